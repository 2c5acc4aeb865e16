// Note [Communicator lifecycle]: a Communicator owns one nonblocking NCCL communicator
// (ncclConfig_t.blocking = 0; and its blocking twin for collectives outside groups, Note [Fast
// collectives]), so no NCCL call can make the caller wait for a peer forever:
// a call that must wait for the others (init, split, a group's end, finalize, and the first
// collective with a peer, which connects to it) returns ncclInProgress, and ctorch polls
// ncclCommGetAsyncError until it is done, at most the communicator's timeout (then it aborts,
// Status::Timeout), as PyTorch's nonblocking mode does. Every NCCL call on the communicator
// runs under its mutex, so the watchdog can never abort (and free) it under a running call.
// States: Ok; Failed (an NCCL error or a timeout: aborted at once, its error kept and
// reported by every later call); Aborted and Destroyed (by the caller: Status::State).
//
// Note [The communicator watchdog]: a collective is asynchronous, so a peer that dies after it
// was queued shows only on the GPU: the kernel waits forever, and so would every stream or
// event synchronize behind it. As torch.distributed's watchdog, one thread (started while any
// communicator has work queued) visits each such communicator every 100 ms: it retires the
// finished work (an event recorded after each collective), asks NCCL for asynchronous errors,
// and aborts a communicator whose oldest unfinished collective is older than its timeout.
// The abort ends the NCCL kernels, so the streams move on; the next call on the communicator
// reports what happened. The thread runs in CUDA's relaxed capture mode so that its event
// queries never disturb another thread's graph capture, and work queued during a capture is
// not watched (it runs when the graph is replayed). Nothing escapes the thread, and a
// communicator whose last reference goes while the watchdog holds it ends on a thread of its own.
//
// Note [Fast collectives]: NCCL launches each call on a nonblocking communicator from a thread
// of its own and returns ncclInProgress, and ctorch must poll until the launch is done before
// the stream may take later work: that costs 40-50 us a call (bench/NOTES.md, "Issue 16":
// measured with NCCL alone), which bounds back-to-back collectives of a few MiB. So a
// communicator of two or more members also owns a *blocking* twin, fast_, split from comm_ when
// it is made (color 0, key = rank: the same members and ranks; splitShare, so no second set of
// buffers), inside the bounded wait of init or split (a split's wait follows its parent's
// mode). A collective outside a group runs on fast_, launched inline as torch's blocking
// communicators do. That keeps the rule of Note [Communicator lifecycle], because a blocking
// launch waits for peers only to connect to them, and NCCL makes every connection of a
// collective algorithm at creation here (Note [NCCL connects at init] in nccl.cc); without that
// (NCCL_RUNTIME_CONNECT set to 1 by the user) there is no fast_. What stays on comm_: groups
// (NCCL requires one mode in a group), send/recv and all_to_all (point-to-point connections are
// made at first use, whatever the setting), collectives captured into a CUDA graph (NCCL may
// register the capture's buffers with the peers then; a replay costs no launch anyway), split,
// and every wait. fast_ is watched and ended with comm_: the watchdog's timeout, errors and
// ct_nccl_comm_abort abort both (a shared child shares its parent's abort flag anyway); destroy
// and the last release first wait (at most the timeout) until the queued collectives are done,
// so that fast_'s blocking finalize has nothing to wait for (it synchronizes NCCL's streams).
//
// Note [Communicators and groups]: between ncclGroupStart and ncclGroupEnd NCCL keeps the
// group's communicators on the calling thread's list and defers everything done to them, also
// the finalize, destroy and abort of a communicator (which would also make the whole group
// blocking, without a timeout). So: init, split, destroy, abort and wait are refused inside a
// group (Status::State); a communicator joins the thread's group at its first collective there
// (group_users_ counts the open groups that hold it), and aborting it (the watchdog, an error,
// another thread's ct_nccl_comm_abort) is deferred until the last such group has ended, when
// group_end does it (a communicator the thread's group holds only for that is a "deferred"
// member: its errors are not the group's); destroy and split are refused while another
// thread's group holds it; one whose last reference goes inside a group ends after the group,
// and a thread that ends inside a group lets go of its communicators. A wait for peers polls
// abort_requested_, so another thread's abort ends it at once.
#include "impl/comm/communicator.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <thread>

#include "impl/alloc/allocator.h"
#include "impl/comm/nccl.h"
#include "impl/core/error.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/sanitize.h"

namespace ct::comm {

namespace {

using Clock = std::chrono::steady_clock;

// (a timeout beyond 2^40 ms, 34 years, counts as 2^40 ms: steady_clock cannot hold more)
Clock::time_point deadline_after(int64_t ms) {
  return Clock::now() + std::chrono::milliseconds(std::min<int64_t>(ms, int64_t{1} << 40));
}

int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

ncclConfig_t nonblocking_config() {
  ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
  c.blocking = 0;
  return c;
}

// ---- the watchdog thread (Note [The communicator watchdog])
thread_local bool tl_watchdog_thread = false;

class Watchdog {
 public:
  static Watchdog& get() {
    static Watchdog* w = new Watchdog();  // never destroyed (the thread may outlive statics)
    return *w;
  }
  void watch(std::weak_ptr<Communicator> c) {
    std::lock_guard<std::mutex> l(mu_);
    comms_.push_back(std::move(c));
    if (!running_) {
      running_ = true;
      std::thread([this] { loop(); }).detach();
    }
  }

 private:
  void loop() {
    tl_watchdog_thread = true;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::vector<std::weak_ptr<Communicator>> comms;
      {
        std::lock_guard<std::mutex> l(mu_);
        comms.swap(comms_);
      }
      std::vector<std::weak_ptr<Communicator>> keep;
      for (auto& w : comms) {
        CommunicatorPtr c = w.lock();
        bool again = false;
        try {
          again = c && c->watchdog_visit();
        } catch (...) {  // a detached thread must not let anything escape (std::terminate)
          again = true;
        }
        if (again) keep.push_back(std::move(w));
      }
      std::lock_guard<std::mutex> l(mu_);
      for (auto& w : keep) comms_.push_back(std::move(w));
      if (comms_.empty()) {  // nothing to watch: the thread ends (watch() starts another)
        running_ = false;
        return;
      }
    }
  }
  std::mutex mu_;
  std::vector<std::weak_ptr<Communicator>> comms_;
  bool running_ = false;
};

// ---- the calling thread's NCCL group (ncclGroupStart / ncclGroupEnd)
struct GroupOp {
  CommunicatorPtr comm;
  cuda::Stream stream;  // kept alive until the group's end launches on it
  std::string what;
};
// A communicator whose last reference went while its thread was inside a group: NCCL would defer
// its finalize/destroy/abort into that group, so it ends after the group (Note [Communicators
// and groups]).
struct Orphan {
  ncclComm_t comm;
  ncclComm_t fast;                   // Note [Fast collectives]; may be null
  std::vector<cudaEvent_t> pending;  // its collectives not known to be done (owned)
  int device;
  int64_t timeout_ms;
  bool healthy;
};
struct GroupState {
  int depth = 0;
  std::vector<GroupOp> ops;
  std::vector<CommunicatorPtr> members;   // with work in the group, each once
  std::vector<CommunicatorPtr> deferred;  // joined only to have their abort wait for the group's end
  std::vector<Orphan> orphans;
  ~GroupState();  // a thread that ends inside a group
};
thread_local GroupState tl_group;

const char* op_name(CommOp op) { return abi::kCommOpNames[static_cast<int32_t>(op)]; }

// torch.distributed's reduce-op rules for NCCL: bool SUM is a logical or (max on bytes), bool
// AVG is refused; complex tensors travel as pairs of reals, which only SUM and AVG allow.
ncclRedOp_t red_op(CommOp op, DType dt, const char* what) {
  if (dt == DType::Bool) {
    CT_CHECK(op != CommOp::Avg, Status::DType, what, ": cannot use ReduceOp.AVG with boolean inputs");
    if (op == CommOp::Sum) return ncclMax;
  }
  if (dt == DType::Complex64 || dt == DType::Complex128)
    CT_CHECK(op == CommOp::Sum || op == CommOp::Avg, Status::DType, what, " does not support ReduceOp.", op_name(op),
             " on complex tensors (only SUM and AVG)");
  switch (op) {
    case CommOp::Sum: return ncclSum;
    case CommOp::Avg: return ncclAvg;
    case CommOp::Product: return ncclProd;
    case CommOp::Min: return ncclMin;
    case CommOp::Max: return ncclMax;
  }
  fail(Status::Argument, what, ": unknown reduce op ", static_cast<int32_t>(op));
}

// Elements NCCL moves for t (complex: two reals each) and their NCCL type.
size_t nccl_count(const Tensor& t, const char* what, ncclDataType_t* type) {
  int factor = 1;
  *type = nccl_dtype(t->dtype, what, &factor);
  return static_cast<size_t>(t->numel()) * static_cast<size_t>(factor);
}

}  // namespace

void get_unique_id(uint8_t* out) {
  cuda::check_available();
  ncclUniqueId id;
  check(nccl().get_unique_id(&id), "ncclGetUniqueId");
  std::memcpy(out, id.internal, kUniqueIdBytes);
}

Communicator::Communicator(ncclComm_t c, ncclComm_t fast, int rank, int size, int device, int64_t timeout_ms)
    : comm_(c), fast_(fast), rank_(rank), size_(size), device_(device), timeout_ms_(timeout_ms) {}

namespace {
// Polls a nonblocking communicator (Note [Communicator lifecycle]) until NCCL is done with its
// last call: ncclSuccess, the error that ended it, or ncclInProgress when the deadline passed
// first. tick runs between polls (it may throw); slow polls sleep 1 ms, the others yield.
template <typename Tick>
ncclResult_t settle(ncclComm_t c, Clock::time_point deadline, bool slow, Tick tick) {
  for (;;) {
    ncclResult_t st = comm_state(c);
    if (st != ncclInProgress || Clock::now() >= deadline) return st;
    tick();
    if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    else std::this_thread::yield();
  }
}
ncclResult_t settle(ncclComm_t c, Clock::time_point deadline) { return settle(c, deadline, true, [] {}); }

// Waits for a communicator being created (init, split); aborts it and throws on an error or at
// the deadline.
void wait_created(ncclComm_t c, Clock::time_point deadline, const std::string& what, int64_t timeout_ms) {
  ncclResult_t st = settle(c, deadline);
  if (st == ncclSuccess) return;
  std::string m = st == ncclInProgress
                      ? str_cat(what, " timed out after ", timeout_ms,
                                " ms waiting for the other members (did every member call it, with the same unique id?)")
                      : error_message(st, what.c_str(), c);
  nccl().abort(c);
  fail(st == ncclInProgress ? Status::Timeout : Status::Comm, m);
}

// The blocking twin of a new nonblocking communicator c of size members (Note [Fast
// collectives]), or null when there is none to make. A collective over c, waited for as c's
// creation was, by deadline; on a failure aborts c (and the twin) and throws.
ncclComm_t make_fast(ncclComm_t c, int rank, int size, Clock::time_point deadline, int64_t timeout_ms) {
  if (size < 2 || !connects_at_init()) return nullptr;
  const Nccl& n = nccl();
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  config.splitShare = 1;
  ncclComm_t fast = nullptr;
  const char* what = "ncclCommSplit (the communicator's blocking twin for fast collectives)";
  ncclResult_t r = n.split(c, 0, rank, &fast, &config);
  ncclResult_t st = r == ncclSuccess || r == ncclInProgress ? settle(c, deadline) : r;
  while (st == ncclSuccess && fast == nullptr && Clock::now() < deadline)  // published when done
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (st == ncclSuccess && fast != nullptr) st = settle(fast, deadline);
  if (st == ncclSuccess && fast != nullptr) return fast;
  bool late = st == ncclInProgress || (st == ncclSuccess && fast == nullptr);
  std::string m = late ? str_cat(what, " timed out after ", timeout_ms, " ms waiting for the other members")
                       : error_message(st, what, fast ? fast : c);
  if (fast) n.abort(fast);
  n.abort(c);
  fail(late ? Status::Timeout : Status::Comm, m);
}
}  // namespace

CommunicatorPtr Communicator::init_rank(int nranks, const uint8_t* id, int rank, int device, int64_t timeout_ms) {
  cuda::check_available();
  check_not_in_group("ct_nccl_comm_init_rank");
  const Nccl& n = nccl();
  CT_CHECK(nranks >= 1, Status::Argument, "nranks must be >= 1, got ", nranks);
  CT_CHECK(rank >= 0 && rank < nranks, Status::Argument, "rank ", rank, " is not a rank of a communicator of ", nranks,
           " members (expected 0 <= rank < ", nranks, ")");
  device = cuda::resolve_device(device);
  if (timeout_ms <= 0) timeout_ms = kDefaultTimeoutMs;
  ncclUniqueId uid;
  std::memcpy(uid.internal, id, kUniqueIdBytes);
  cuda::DeviceGuard guard(device);
  ncclComm_t c = nullptr;
  ncclConfig_t config = nonblocking_config();
  auto deadline = deadline_after(timeout_ms);
  ncclResult_t r = n.init_rank_config(&c, nranks, uid, rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    std::string m = error_message(r, "ncclCommInitRankConfig", c);
    if (c) n.abort(c);
    fail(r == ncclInvalidArgument || r == ncclInvalidUsage ? Status::Argument : Status::Comm, m);
  }
  wait_created(c, deadline,
               str_cat("NCCL communicator initialization (rank ", rank, " of ", nranks, ", cuda:", device, ")"),
               timeout_ms);
  ncclComm_t fast = make_fast(c, rank, nranks, deadline, timeout_ms);  // aborts c on failure
  return CommunicatorPtr(new Communicator(c, fast, rank, nranks, device, timeout_ms));
}

CommunicatorPtr Communicator::split(int color, int key) {
  CT_CHECK(color >= 0 || color == NCCL_SPLIT_NOCOLOR, Status::Argument,
           "split: color must be a non-negative value or CT_NCCL_SPLIT_NOCOLOR (-1), but got ", color);
  check_not_in_group("ct_nccl_comm_split");
  std::lock_guard<std::mutex> l(mu_);
  check_locked();
  check_no_group_holds_locked("ct_nccl_comm_split");
  const Nccl& n = nccl();
  cuda::DeviceGuard guard(device_);
  ncclComm_t child = nullptr;
  ncclConfig_t config = nonblocking_config();
  auto deadline = deadline_after(timeout_ms_);
  ncclResult_t r = n.split(comm_, color, key, &child, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    std::string m = error_message(r, "ncclCommSplit", comm_);
    if (r == ncclInvalidArgument || r == ncclInvalidUsage) fail(Status::Argument, m);
    fail_locked(Status::Comm, m);
    fail(Status::Comm, m);
  }
  int crank = 0, csize = 0;
  try {
    wait_ready_locked("ncclCommSplit", deadline, true);
    if (color == NCCL_SPLIT_NOCOLOR) return nullptr;
    // NCCL may publish the new communicator only when the split is done
    while (child == nullptr) {
      if (Clock::now() >= deadline) {
        std::string m = str_cat("ncclCommSplit timed out after ", timeout_ms_, " ms on rank ", rank_, " of ", size_,
                                "; the communicator was aborted");
        fail_locked(Status::Timeout, m);
        fail(Status::Timeout, m);
      }
      interrupt_if_aborted_locked("ncclCommSplit");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } catch (...) {
    if (child) n.abort(child);  // NCCL publishes the new communicator also when the split fails
    throw;
  }
  wait_created(child, deadline, "ncclCommSplit's new communicator", timeout_ms_);  // aborts it on failure
  try {
    comm::check(n.user_rank(child, &crank), "ncclCommUserRank", child);
    comm::check(n.count(child, &csize), "ncclCommCount", child);
  } catch (...) {
    n.abort(child);
    throw;
  }
  ncclComm_t fast = make_fast(child, crank, csize, deadline, timeout_ms_);  // aborts child on failure
  return CommunicatorPtr(new Communicator(child, fast, crank, csize, device_, timeout_ms_));
}

namespace {
// Ends an NCCL communicator nobody uses any more: finalize (its queued work done, at most
// timeout_ms) and destroy when it is healthy, abort otherwise or when that fails. Its blocking
// twin (Note [Fast collectives]) goes first, finalized only once the pending collectives are
// done within the timeout (else both are aborted). Never throws.
void end_comm(const Orphan& o) noexcept {
  try {
    const Nccl& n = nccl();
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    (void)cudaSetDevice(o.device);
    auto deadline = deadline_after(o.timeout_ms);
    bool healthy = o.healthy;
    for (cudaEvent_t e : o.pending) {
      cudaError_t q = cudaSuccess;
      while (healthy && (q = cudaEventQuery(e)) == cudaErrorNotReady) {
        if (Clock::now() >= deadline) healthy = false;
        else std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (healthy && q != cudaSuccess) healthy = false, (void)cudaGetLastError();
      cudaEventDestroy(e);
    }
    if (o.fast) {
      bool done = healthy && n.finalize(o.fast) == ncclSuccess && n.destroy(o.fast) == ncclSuccess;
      if (!done) healthy = false, n.abort(o.fast);
    }
    bool done = false;
    ncclResult_t r = healthy ? n.finalize(o.comm) : ncclInternalError;
    if ((r == ncclSuccess || r == ncclInProgress) && settle(o.comm, deadline) == ncclSuccess)
      done = n.destroy(o.comm) == ncclSuccess;
    if (!done) n.abort(o.comm);
    if (prev >= 0) (void)cudaSetDevice(prev);
  } catch (...) {
  }
}
}  // namespace

Communicator::~Communicator() {
  std::lock_guard<std::mutex> l(mu_);  // the last reference: nobody else holds it
  Orphan o{comm_, fast_, {}, device_, timeout_ms_, state_ == State::Ok};
  if (comm_ && fast_) {  // end_comm waits for them (Note [Fast collectives])
    try {
      o.pending.reserve(pending_.size());
      for (Work& w : pending_) o.pending.push_back(w.done);
      pending_.clear();
    } catch (...) {
      o.healthy = false;  // (no memory: the events stay in pending_ and go below; abort)
    }
  }
  drop_work_locked();
  if (!comm_) return;
  comm_ = nullptr;
  fast_ = nullptr;
  if (tl_group.depth > 0) {  // Note [Communicators and groups]: after the group
    try {
      tl_group.orphans.push_back(o);
    } catch (...) {  // (no memory: leak it rather than end it inside the group)
    }
  } else if (tl_watchdog_thread) {
    // the last reference went while the watchdog held it: the end (a finalize can wait for the
    // timeout) runs on a thread of its own, not where it would stop the watch of the others
    try {
      std::thread([o] { end_comm(o); }).detach();
    } catch (...) {
      end_comm(o);
    }
  } else {
    end_comm(o);
  }
}

GroupState::~GroupState() {
  depth = 0;  // what is released from here on ends at once
  for (const CommunicatorPtr& c : members) c->leave_group();
  for (const CommunicatorPtr& c : deferred) c->leave_group();
  for (const Orphan& o : orphans) end_comm(o);
}

void Communicator::check_no_group_holds_locked(const char* what) const {
  CT_CHECK(group_users_ == 0, Status::State, what,
           ": the communicator has work in an open group of another thread (ct_nccl_group_start); end that group first");
}

void Communicator::check_not_in_group(const char* what) {
  CT_CHECK(tl_group.depth == 0, Status::State, what,
           " is not allowed between ct_nccl_group_start and ct_nccl_group_end (end the group first)");
}

void Communicator::join_group_locked(bool work) {
  for (const CommunicatorPtr& m : tl_group.members)
    if (m.get() == this) return;
  std::vector<CommunicatorPtr>& list = work ? tl_group.members : tl_group.deferred;
  if (!work)
    for (const CommunicatorPtr& m : list)
      if (m.get() == this) return;
  list.push_back(shared_from_this());
  ++group_users_;
}

void Communicator::leave_group_locked() noexcept {
  if (--group_users_ == 0 && abort_deferred_) {  // Note [Communicators and groups]
    abort_deferred_ = false;
    abort_locked();
  }
}

void Communicator::leave_group() noexcept {
  try {
    std::lock_guard<std::mutex> l(mu_);
    leave_group_locked();
  } catch (...) {
  }
}

void Communicator::interrupt_if_aborted_locked(const char* what) {
  if (!abort_requested_.load()) return;
  abort_locked();
  if (state_ == State::Ok) state_ = State::Aborted;
  fail(Status::State, "[Rank ", rank_, "] ", what, " was interrupted: the communicator was aborted by ct_nccl_comm_abort");
}

void Communicator::check_locked() {
  switch (state_) {
    case State::Ok: return;
    case State::Failed: fail(error_code_, error_);
    case State::Aborted:
      fail(Status::State, "the NCCL communicator (rank ", rank_, " of ", size_,
           ") was aborted by ct_nccl_comm_abort; release it");
    case State::Destroyed:
      fail(Status::State, "the NCCL communicator (rank ", rank_, " of ", size_,
           ") was destroyed by ct_nccl_comm_destroy; release it");
  }
}

void Communicator::drop_work_locked() {
  for (cudaEvent_t e : csan_events_) csan::event_destroyed(e);
  csan_events_.clear();
  for (Work& w : pending_) cudaEventDestroy(w.done);
  pending_.clear();
  for (cudaEvent_t e : spare_events_) cudaEventDestroy(e);
  spare_events_.clear();
}

void Communicator::abort_locked() noexcept {
  drop_work_locked();
  if (!comm_) return;
  if (tl_group.depth > 0) {  // Note [Communicators and groups]: at this thread's group end
    try {
      join_group_locked(false);
    } catch (...) {
    }
  }
  if (group_users_ > 0) {  // at the end of the last group that holds it
    abort_deferred_ = true;
    return;
  }
  try {
    const Nccl& n = nccl();
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    (void)cudaSetDevice(device_);
    if (fast_) n.abort(fast_);
    n.abort(comm_);
    if (prev >= 0) (void)cudaSetDevice(prev);
  } catch (...) {
  }
  comm_ = nullptr;
  fast_ = nullptr;
}

void Communicator::fail_locked(Status code, const std::string& msg) {
  if (state_ != State::Ok) return;
  state_ = State::Failed;
  error_code_ = code;
  error_ = msg;
  abort_locked();
}

void Communicator::wait_ready_locked(const char* what, Clock::time_point deadline, bool slow) {
  ncclResult_t st = settle(comm_, deadline, slow, [&] { interrupt_if_aborted_locked(what); });
  if (st == ncclSuccess) return;
  Status code = st == ncclInProgress ? Status::Timeout : Status::Comm;
  std::string m = st == ncclInProgress
                      ? str_cat("[Rank ", rank_, "] ", what, " timed out after ", timeout_ms_, " ms (rank ", rank_, " of ",
                                size_, " waited for the other members: a peer that died or never called it?); ",
                                "the communicator was aborted")
                      : str_cat("[Rank ", rank_, "] ", error_message(st, what, comm_), "; the communicator was aborted");
  fail_locked(code, m);
  fail(code, m);
}

void Communicator::record_work_locked(const std::string& what, const cuda::Stream& stream) {
  cudaStream_t s = stream->stream;
  if (cuda::capture_of(s) != 0) return;  // runs at replay: not watched
  cudaEvent_t e = nullptr;  // the events of retired work are used again (no create per call)
  if (!spare_events_.empty()) {
    e = spare_events_.back();
    spare_events_.pop_back();
  } else {
    cuda::check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  }
  cudaError_t err = cudaEventRecord(e, s);
  if (err != cudaSuccess) {
    cudaEventDestroy(e);
    cuda::check(err, "cudaEventRecord");
  }
  if (csan::on()) {  // ct_nccl_comm_wait waits for it on the host
    csan::event_record(e, cuda::csan_key(stream));
    if (std::find(csan_events_.begin(), csan_events_.end(), e) == csan_events_.end()) csan_events_.push_back(e);
  }
  pending_.push_back(Work{e, Clock::now(), what, ++seq_});
  if (!watched_) {
    watched_ = true;
    Watchdog::get().watch(weak_from_this());
  }
}

bool Communicator::poll_locked(bool retire) {
  while (retire && !pending_.empty()) {
    cudaError_t e = cudaEventQuery(pending_.front().done);
    if (e == cudaErrorNotReady) break;
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      fail_locked(Status::Comm, str_cat("[Rank ", rank_, "] CUDA error while waiting for ", pending_.front().what, ": ",
                                        cudaGetErrorString(e), "; the communicator was aborted"));
      return false;
    }
    spare_events_.push_back(pending_.front().done);
    pending_.pop_front();
  }
  for (ncclComm_t c : {comm_, fast_}) {
    if (!c) continue;
    ncclResult_t st = comm_state(c);
    if (st != ncclSuccess && st != ncclInProgress) {
      fail_locked(Status::Comm, str_cat("[Rank ", rank_, "] NCCL communicator failed: ",
                                        error_message(st, "an asynchronous operation", c),
                                        "; the communicator was aborted"));
      return false;
    }
  }
  return true;
}

bool Communicator::watchdog_visit() {
  std::unique_lock<std::mutex> l(mu_, std::try_to_lock);
  if (!l.owns_lock()) return true;  // a call is under way: next time
  if (state_ == State::Ok && comm_ && poll_locked(true) && !pending_.empty()) {
    const Work& w = pending_.front();
    int64_t ran = ms_since(w.queued);
    if (ran <= timeout_ms_) return true;
    fail_locked(Status::Timeout, str_cat("[Rank ", rank_, "] Watchdog caught collective operation timeout: ", w.what,
                                         " (SeqNum=", w.seq, ", Timeout(ms)=", timeout_ms_, ") ran for ", ran,
                                         " milliseconds before timing out; the communicator was aborted"));
  }
  watched_ = false;  // nothing left to watch, or ended
  return false;
}

int Communicator::checked(const int& field) {
  std::lock_guard<std::mutex> l(mu_);
  check_locked();
  return field;
}

int Communicator::rank() { return checked(rank_); }
int Communicator::size() { return checked(size_); }
int Communicator::device() { return checked(device_); }

void Communicator::check() {
  std::lock_guard<std::mutex> l(mu_);
  check_locked();
  // no event queries: check is allowed during a graph capture, where they are not
  if (!poll_locked(false)) check_locked();
}

void Communicator::wait(int64_t timeout_ms) {
  check_not_in_group("ct_nccl_comm_wait");
  cuda::check_capture_safe("waiting for an NCCL communicator");
  if (timeout_ms <= 0) timeout_ms = timeout_ms_;
  auto deadline = deadline_after(timeout_ms);
  for (;;) {
    {
      std::lock_guard<std::mutex> l(mu_);
      check_locked();
      if (!poll_locked(true)) check_locked();  // throws what ended it
      if (pending_.empty()) {
        // the stream sanitizer: every collective recorded since the last wait is done (events
        // reused since hold later work, done too)
        if (csan::on())
          for (cudaEvent_t e : csan_events_) csan::event_synchronize(e);
        csan_events_.clear();
        return;
      }
      if (Clock::now() >= deadline) {
        const Work& w = pending_.front();
        std::string m = str_cat("[Rank ", rank_, "] ", w.what, " (SeqNum=", w.seq, ") did not finish within ", timeout_ms,
                                " ms (a peer that died or never called it?); the communicator was aborted");
        fail_locked(Status::Timeout, m);
        fail(Status::Timeout, m);
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void Communicator::abort() {
  check_not_in_group("ct_nccl_comm_abort");
  abort_requested_ = true;  // a wait for peers under way on another thread gives up at once
  std::lock_guard<std::mutex> l(mu_);
  abort_locked();
  if (state_ == State::Ok) state_ = State::Aborted;  // a failure keeps its own error
}

void Communicator::drain_locked(const char* what, Clock::time_point deadline) {
  for (;;) {
    if (!poll_locked(true)) check_locked();  // throws what ended it
    if (pending_.empty()) return;
    if (Clock::now() >= deadline) {
      const Work& w = pending_.front();
      std::string m = str_cat("[Rank ", rank_, "] ", what, ": ", w.what, " (SeqNum=", w.seq, ") did not finish within ",
                              timeout_ms_, " ms (a peer that died or never called it?); the communicator was aborted");
      fail_locked(Status::Timeout, m);
      fail(Status::Timeout, m);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void Communicator::destroy() {
  check_not_in_group("ct_nccl_comm_destroy");
  std::lock_guard<std::mutex> l(mu_);
  check_locked();
  check_no_group_holds_locked("ct_nccl_comm_destroy");
  const Nccl& n = nccl();
  cuda::DeviceGuard guard(device_);
  auto deadline = deadline_after(timeout_ms_);
  if (fast_) {  // Note [Fast collectives]: its blocking finalize only once its work is done
    drain_locked("ct_nccl_comm_destroy", deadline);
    ncclResult_t f = n.finalize(fast_);
    if (f == ncclSuccess) f = n.destroy(fast_);
    if (f != ncclSuccess) {
      std::string m = error_message(f, "ncclCommFinalize", fast_);
      fail_locked(Status::Comm, m);
      fail(Status::Comm, m);
    }
    fast_ = nullptr;
  }
  ncclResult_t r = n.finalize(comm_);
  if (r != ncclSuccess && r != ncclInProgress) {
    std::string m = error_message(r, "ncclCommFinalize", comm_);
    fail_locked(Status::Comm, m);
    fail(Status::Comm, m);
  }
  wait_ready_locked("ncclCommFinalize", deadline, true);
  n.destroy(comm_);
  comm_ = nullptr;
  drop_work_locked();
  state_ = State::Destroyed;
}

// ---- collectives

void Communicator::check_rank(const char* op, const char* what, int r) const {
  CT_CHECK(r >= 0 && r < size_, Status::Argument, op, ": ", what, " ", r, " is not a rank of this communicator (expected 0 <= ",
           what, " < ", size_, ")");
}

cuda::Stream Communicator::prepare(const char* op, const std::vector<const Tensor*>& ts, const cuda::Stream& stream) {
  for (const Tensor* t : ts) {
    const Device& d = (*t)->device();
    CT_CHECK(d.is_cuda(), Status::Device, op, ": tensors must be CUDA tensors, but got a tensor on ", d.str());
    CT_CHECK(d.index == device_, Status::Device, op, ": the tensor is on ", d.str(), " but the communicator is on cuda:",
             device_);
    CT_CHECK((*t)->is_contiguous(), Status::Argument, op, ": tensors must be contiguous");
  }
  cuda::Stream s = stream ? stream : cuda::current_stream(device_);
  CT_CHECK(s->device == device_, Status::Device, op, ": the stream is on cuda:", s->device,
           " but the communicator is on cuda:", device_);
  // as Tensor.record_stream: memory used on another stream is not reused before that work is done
  if (stream)
    for (const Tensor* t : ts) alloc::record_stream((*t)->storage->data_ptr, s);
  return s;
}

template <typename F>
void Communicator::run(const char* op, int64_t numel, const cuda::Stream& s, const std::vector<cuda::CsanTensor>& reads,
                       const std::vector<cuda::CsanTensor>& writes, bool p2p, F f) {
  std::string what = str_cat(op, "(numel=", numel, ")");
  // Note [Stream sanitizer]: the collective's accesses are recorded before the event that
  // ct_nccl_comm_wait waits for (so that the event covers them), its races raised at the end,
  // outside the lock
  cuda::CsanReports races;
  {
    std::lock_guard<std::mutex> l(mu_);
    check_locked();
    bool grouped = tl_group.depth > 0;
    if (grouped) join_group_locked(true);  // Note [Communicators and groups]
    cuda::DeviceGuard guard(device_);
    ncclComm_t c = fast_ && !grouped && !p2p && cuda::capture_of(s->stream) == 0 ? fast_ : comm_;  // Note [Fast collectives]
    ncclResult_t r = f(c, s->stream);
    if (r != ncclSuccess && r != ncclInProgress) {
      std::string m = str_cat("[Rank ", rank_, "] ", error_message(r, op, c));
      if (r == ncclInvalidArgument || r == ncclInvalidUsage) fail(Status::Argument, m);
      fail_locked(Status::Comm, m + "; the communicator was aborted");
      fail(Status::Comm, m + "; the communicator was aborted");
    }
    races.kernel(s, op, reads, writes);
    if (grouped) {  // queued at the group's end
      tl_group.ops.push_back(GroupOp{shared_from_this(), s, std::move(what)});
    } else {
      if (r == ncclInProgress && c == comm_) wait_ready_locked(op, deadline_after(timeout_ms_), false);
      record_work_locked(what, s);
    }
  }
  races.raise(op);
}

void Communicator::all_reduce(const Tensor& t, CommOp op, const cuda::Stream& stream) {
  cuda::Stream s = prepare("all_reduce", {&t}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(t, "all_reduce", &type);
  ncclRedOp_t ro = red_op(op, t->dtype, "all_reduce");
  run("all_reduce", t->numel(), s, {{t.get(), "tensor"}}, {{t.get(), "tensor"}}, false, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().all_reduce(t->data(), t->data(), count, type, ro, c, cs);
  });
}

void Communicator::broadcast(const Tensor& t, int root, const cuda::Stream& stream) {
  check_rank("broadcast", "root", root);
  cuda::Stream s = prepare("broadcast", {&t}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(t, "broadcast", &type);
  run("broadcast", t->numel(), s, {{t.get(), "tensor"}}, {{t.get(), "tensor"}}, false, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().broadcast(t->data(), t->data(), count, type, root, c, cs);
  });
}

void Communicator::reduce(const Tensor& t, int root, CommOp op, const cuda::Stream& stream) {
  check_rank("reduce", "root", root);
  cuda::Stream s = prepare("reduce", {&t}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(t, "reduce", &type);
  ncclRedOp_t ro = red_op(op, t->dtype, "reduce");
  run("reduce", t->numel(), s, {{t.get(), "tensor"}}, {{t.get(), "tensor"}}, false, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().reduce(t->data(), t->data(), count, type, ro, root, c, cs);
  });
}

namespace {
void check_same_dtype(const char* op, const Tensor& output, const Tensor& input) {
  CT_CHECK(output->dtype == input->dtype, Status::DType, op, ": output tensor must have the same type as input tensor (got ",
           dtype_name(output->dtype), " and ", dtype_name(input->dtype), ")");
}
}  // namespace

void Communicator::all_gather(const Tensor& output, const Tensor& input, const cuda::Stream& stream) {
  check_same_dtype("all_gather", output, input);
  CT_CHECK(output->numel() == input->numel() * size_, Status::Shape,
           "all_gather: the output tensor must have nranks times the input's elements: expected ", input->numel() * size_,
           " (", size_, " x ", input->numel(), "), got ", output->numel());
  cuda::Stream s = prepare("all_gather", {&output, &input}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(input, "all_gather", &type);
  run("all_gather", output->numel(), s, {{input.get(), "input"}}, {{output.get(), "output"}}, false, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().all_gather(input->data(), output->data(), count, type, c, cs);
  });
}

void Communicator::reduce_scatter(const Tensor& output, const Tensor& input, CommOp op, const cuda::Stream& stream) {
  check_same_dtype("reduce_scatter", output, input);
  CT_CHECK(input->numel() == output->numel() * size_, Status::Shape,
           "reduce_scatter: the input tensor must have nranks times the output's elements: expected ",
           output->numel() * size_, " (", size_, " x ", output->numel(), "), got ", input->numel());
  cuda::Stream s = prepare("reduce_scatter", {&output, &input}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(output, "reduce_scatter", &type);
  ncclRedOp_t ro = red_op(op, input->dtype, "reduce_scatter");
  run("reduce_scatter", input->numel(), s, {{input.get(), "input"}}, {{output.get(), "output"}}, false, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().reduce_scatter(input->data(), output->data(), count, type, ro, c, cs);
  });
}

void Communicator::all_to_all(const Tensor& output, const Tensor& input, const cuda::Stream& stream) {
  check_same_dtype("all_to_all", output, input);
  CT_CHECK(output->numel() == input->numel(), Status::Shape,
           "all_to_all: the output and input tensors must have the same number of elements, got ", output->numel(),
           " and ", input->numel());
  CT_CHECK(input->dim() >= 1 && input->sizes[0] % size_ == 0, Status::Shape, "all_to_all: the input's dim 0 (",
           input->dim() >= 1 ? input->sizes[0] : 0, ") does not divide equally across the ", size_, " members");
  cuda::Stream s = prepare("all_to_all", {&output, &input}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(input, "all_to_all", &type) / static_cast<size_t>(size_);
  size_t chunk = static_cast<size_t>(input->numel() / size_) * static_cast<size_t>(input->itemsize());
  run("all_to_all", input->numel(), s, {{input.get(), "input"}}, {{output.get(), "output"}}, true, [&](ncclComm_t c, cudaStream_t cs) {
    const Nccl& n = nccl();
    ncclResult_t r = n.group_start();
    if (r != ncclSuccess) return r;
    ncclResult_t bad = ncclSuccess;
    for (int peer = 0; peer < size_ && bad == ncclSuccess; ++peer) {
      ncclResult_t a = n.send(input->data() + peer * chunk, count, type, peer, c, cs);
      if (a != ncclSuccess && a != ncclInProgress) bad = a;
      ncclResult_t b = n.recv(output->data() + peer * chunk, count, type, peer, c, cs);
      if (bad == ncclSuccess && b != ncclSuccess && b != ncclInProgress) bad = b;
    }
    ncclResult_t e = n.group_end();
    return bad != ncclSuccess ? bad : e;
  });
}

void Communicator::send(const Tensor& t, int peer, const cuda::Stream& stream) {
  check_rank("send", "peer", peer);
  cuda::Stream s = prepare("send", {&t}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(t, "send", &type);
  run("send", t->numel(), s, {{t.get(), "tensor"}}, {}, true, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().send(t->data(), count, type, peer, c, cs);
  });
}

void Communicator::recv(const Tensor& t, int peer, const cuda::Stream& stream) {
  check_rank("recv", "peer", peer);
  cuda::Stream s = prepare("recv", {&t}, stream);
  ncclDataType_t type;
  size_t count = nccl_count(t, "recv", &type);
  run("recv", t->numel(), s, {}, {{t.get(), "tensor"}}, true, [&](ncclComm_t c, cudaStream_t cs) {
    return nccl().recv(t->data(), count, type, peer, c, cs);
  });
}

// ---- groups

bool in_group() { return tl_group.depth > 0; }

void group_start() {
  cuda::check_available();
  check(nccl().group_start(), "ncclGroupStart");
  ++tl_group.depth;
}

void group_end() {
  CT_CHECK(tl_group.depth > 0, Status::State,
           "ct_nccl_group_end without a matching ct_nccl_group_start on this thread (ncclGroupEnd)");
  const Nccl& n = nccl();
  if (--tl_group.depth > 0) {
    check(n.group_end(), "ncclGroupEnd");
    return;
  }
  std::vector<GroupOp> ops = std::move(tl_group.ops);
  std::vector<CommunicatorPtr> members = std::move(tl_group.members);
  std::vector<CommunicatorPtr> deferred = std::move(tl_group.deferred);
  std::vector<Orphan> orphans = std::move(tl_group.orphans);
  tl_group.ops.clear();
  tl_group.members.clear();
  tl_group.deferred.clear();
  tl_group.orphans.clear();
  std::vector<Communicator*> all;  // every communicator to lock, once, in address order
  for (const CommunicatorPtr& c : members) all.push_back(c.get());
  for (const CommunicatorPtr& c : deferred) all.push_back(c.get());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::exception_ptr first;  // the first error; every communicator is seen to all the same
  {
    std::vector<std::unique_lock<std::mutex>> locks;  // in address order: no deadlock between groups
    locks.reserve(all.size());
    for (Communicator* c : all) locks.emplace_back(c->mu_);
    ncclResult_t r = n.group_end();
    std::string group_error;
    if (r != ncclSuccess && r != ncclInProgress) {
      try {
        group_error = error_message(r, "ncclGroupEnd", nullptr);
      } catch (...) {
        group_error = "ncclGroupEnd failed";
      }
    }
    for (const CommunicatorPtr& c : members) {  // the group's work: its errors are the group's
      try {
        if (!group_error.empty()) c->fail_locked(Status::Comm, group_error + "; the communicator was aborted");
        c->check_locked();
        c->wait_ready_locked("ncclGroupEnd", deadline_after(c->timeout_ms_), false);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    for (const GroupOp& o : ops) {
      if (o.comm->state_ != Communicator::State::Ok) continue;
      try {
        o.comm->record_work_locked(o.what, o.stream);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    for (const CommunicatorPtr& c : members) c->leave_group_locked();
    for (const CommunicatorPtr& c : deferred) c->leave_group_locked();
  }
  for (const Orphan& o : orphans) end_comm(o);
  if (first) std::rethrow_exception(first);
}

}  // namespace ct::comm
