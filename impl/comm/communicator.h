// NCCL communicators for processes and hosts (torch.distributed's NCCL backend):
// Note [Communicator lifecycle] and Note [The communicator watchdog] in communicator.cc.
#pragma once
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/core/tensor.h"
#include "impl/cuda/sanitize.h"
#include "impl/cuda/stream.h"

namespace ct::comm {

constexpr int kUniqueIdBytes = NCCL_UNIQUE_ID_BYTES;
constexpr int64_t kDefaultTimeoutMs = 600000;  // torch.distributed's default for NCCL

// ncclGetUniqueId into out (kUniqueIdBytes bytes).
void get_unique_id(uint8_t* out);

class Communicator;
using CommunicatorPtr = std::shared_ptr<Communicator>;

class Communicator : public std::enable_shared_from_this<Communicator> {
 public:
  // Joins (collective over nranks members); device < 0: the current device; timeout_ms <= 0:
  // kDefaultTimeoutMs. Throws Status::Timeout when the others do not join in time.
  static CommunicatorPtr init_rank(int nranks, const uint8_t* id, int rank, int device, int64_t timeout_ms);
  ~Communicator();  // the last reference: destroy, errors dropped (abort when failed)
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // ncclCommSplit (collective over this communicator); nullptr for color NCCL_SPLIT_NOCOLOR.
  CommunicatorPtr split(int color, int key);

  // Throw as every later call does once the communicator was aborted, destroyed or failed.
  int rank();
  int size();
  int device();
  int64_t timeout_ms() const { return timeout_ms_; }

  void check();                     // throws what ended the communicator, if anything did
  void wait(int64_t timeout_ms);    // until the queued work is done; Status::Timeout (aborts)
  void abort();                     // by the caller
  void destroy();                   // finalize + destroy, at most the timeout

  // stream: empty = the current stream of the communicator's device.
  void all_reduce(const Tensor& t, CommOp op, const cuda::Stream& stream);
  void broadcast(const Tensor& t, int root, const cuda::Stream& stream);
  void reduce(const Tensor& t, int root, CommOp op, const cuda::Stream& stream);
  void all_gather(const Tensor& output, const Tensor& input, const cuda::Stream& stream);
  void reduce_scatter(const Tensor& output, const Tensor& input, CommOp op, const cuda::Stream& stream);
  void all_to_all(const Tensor& output, const Tensor& input, const cuda::Stream& stream);
  void send(const Tensor& t, int peer, const cuda::Stream& stream);
  void recv(const Tensor& t, int peer, const cuda::Stream& stream);

  // The watchdog's visit (Note [The communicator watchdog]); false when nothing is pending.
  bool watchdog_visit();
  // One open group (of a thread that ended inside it) lets go of the communicator.
  void leave_group() noexcept;

 private:
  friend void group_end();
  struct Work {
    cudaEvent_t done = nullptr;
    std::chrono::steady_clock::time_point queued;
    std::string what;  // "all_reduce(numel=1024)"
    uint64_t seq = 0;
  };
  enum class State { Ok, Failed, Aborted, Destroyed };

  Communicator(ncclComm_t c, ncclComm_t fast, int rank, int size, int device, int64_t timeout_ms);
  // The checks every collective starts with; returns the stream to use.
  cuda::Stream prepare(const char* op, const std::vector<const Tensor*>& ts, const cuda::Stream& stream);
  void check_rank(const char* op, const char* what, int r) const;
  // Runs f (one NCCL call, on fast_ or comm_: Note [Fast collectives]) under mu_, then the
  // bookkeeping of Note [The communicator watchdog]; inside a group the work is recorded at the
  // group's end. reads/writes: the collective's tensors, for the stream sanitizer. p2p: f sends
  // or receives (connections NCCL makes at the first use: always the nonblocking comm_).
  template <typename F>
  void run(const char* op, int64_t numel, const cuda::Stream& s, const std::vector<cuda::CsanTensor>& reads,
           const std::vector<cuda::CsanTensor>& writes, bool p2p, F f);
  // Waits until every collective queued so far is done, at most until deadline (then fails
  // with Status::Timeout, aborting).
  void drain_locked(const char* what, std::chrono::steady_clock::time_point deadline);
  void record_work_locked(const std::string& what, const cuda::Stream& s);
  // Polls ncclCommGetAsyncError until the last call is done (nonblocking communicators);
  // on timeout aborts and throws Status::Timeout; on an error fails and throws Status::Comm.
  void wait_ready_locked(const char* what, std::chrono::steady_clock::time_point deadline, bool slow);
  void check_locked();
  void fail_locked(Status code, const std::string& msg);  // ends the communicator (abort)
  void abort_locked() noexcept;  // deferred while a group holds it (Note [Communicators and groups])
  static void check_not_in_group(const char* what);
  void check_no_group_holds_locked(const char* what) const;
  // work: it has work in this thread's group; else it only waits for the group's end to abort
  void join_group_locked(bool work);
  void leave_group_locked() noexcept;
  void interrupt_if_aborted_locked(const char* what);  // after ct_nccl_comm_abort: State
  // Retires the finished work (retire) and asks NCCL for an asynchronous error; false (and the
  // communicator ended, fail_locked) on a failure.
  bool poll_locked(bool retire);
  int checked(const int& field);  // field, unless the communicator ended (then throws)
  void drop_work_locked();

  std::mutex mu_;
  ncclComm_t comm_ = nullptr;
  ncclComm_t fast_ = nullptr;  // blocking, split from comm_ (Note [Fast collectives]); may be null
  int rank_, size_, device_;
  int64_t timeout_ms_;
  State state_ = State::Ok;
  Status error_code_ = Status::Ok;
  std::string error_;
  std::deque<Work> pending_;
  std::vector<cudaEvent_t> spare_events_;  // of retired work, recorded again by the next
  std::vector<cudaEvent_t> csan_events_;   // recorded for the stream sanitizer since the last wait
  uint64_t seq_ = 0;
  bool watched_ = false;
  std::atomic<bool> abort_requested_{false};
  int group_users_ = 0;         // open groups (of any thread) that hold it
  bool abort_deferred_ = false;
};

// ncclGroupStart / ncclGroupEnd for the calling thread (groups nest; the outermost end
// launches, waits for the group's communicators and records their work).
void group_start();
void group_end();
// True between ct_nccl_group_start and its ct_nccl_group_end on the calling thread.
bool in_group();

}  // namespace ct::comm
