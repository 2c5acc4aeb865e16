// The stream sanitizer's bookkeeping alone (impl/core/csan, Note [Stream sanitizer]): streams,
// events and storages are plain ids here, so it runs without a GPU. The cases follow torch's
// test/test_cuda_sanitizer.py (TestEventHandler): s(i) a stream, t(i) a storage, e(i) an event.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impl/core/csan.h"
#include "impl/core/error.h"

using namespace ct;

namespace {

csan::StreamKey s(int i, int device = 0) {
  return csan::stream_key(device, reinterpret_cast<const void*>(static_cast<uintptr_t>(0x1000 + i)));
}
const void* t(int i) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(0x900000 + 0x100 * i)); }
const void* e(int i) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(0x5000 + i)); }

std::vector<std::string> g_reports;
void collect(const char* r, void*) { g_reports.emplace_back(r); }

class Csan : public ::testing::Test {
 protected:
  void SetUp() override {
    csan::set_mode(CsanMode::Off);
    csan::set_mode(CsanMode::Warn);
    csan::set_callback(&collect, nullptr);
    g_reports.clear();
  }
  void TearDown() override {
    csan::set_callback(nullptr, nullptr);
    csan::set_mode(CsanMode::Off);
  }
  // The number of reports a kernel gave.
  size_t kernel(csan::StreamKey stream, std::vector<int> reads, std::vector<int> writes, const char* op = "op") {
    size_t before = g_reports.size();
    std::vector<csan::Arg> r, w;
    for (int i : reads) r.push_back({t(i), "self", {}});
    for (int i : writes) w.push_back({t(i), "out", {}});
    csan::raise(op, csan::kernel(stream, op, r, w));
    return g_reports.size() - before;
  }
};

}  // namespace

TEST_F(Csan, ReadsOnTwoStreamsThenAnUnsynchronizedWrite) {
  EXPECT_EQ(kernel(s(1), {1}, {}), 0u);
  EXPECT_EQ(kernel(s(2), {1}, {}), 0u);  // read after read never races
  EXPECT_EQ(kernel(s(2), {}, {1}), 1u);  // s(1)'s read was not waited for
}

TEST_F(Csan, EventRecordAndWaitOrder) {
  kernel(s(1), {1}, {});
  csan::event_record(e(0), s(1));
  csan::event_wait(e(0), s(2));
  EXPECT_EQ(kernel(s(2), {}, {1}), 0u);
}

TEST_F(Csan, EveryReadIsCheckedAgainstTheLastWrite) {
  kernel(s(1), {}, {1});
  csan::event_record(e(0), s(1));
  csan::event_wait(e(0), s(2));
  EXPECT_EQ(kernel(s(2), {1}, {}), 0u);
  EXPECT_EQ(kernel(s(3), {1}, {}), 1u);  // s(3) never waited for the write
}

TEST_F(Csan, AWriteIsCheckedAgainstEveryReadSinceTheLastWrite) {
  kernel(s(1), {}, {1});
  csan::event_record(e(0), s(1));
  csan::event_wait(e(0), s(2));
  csan::event_wait(e(0), s(3));
  EXPECT_EQ(kernel(s(2), {1}, {}), 0u);
  EXPECT_EQ(kernel(s(3), {1}, {}), 0u);
  EXPECT_EQ(kernel(s(2), {}, {1}), 1u);  // s(3)'s read is not ordered before it
}

TEST_F(Csan, AChainOfWaits) {
  kernel(s(0), {}, {1});
  for (int i = 0; i < 10; ++i) {
    csan::event_record(e(i), s(i));
    csan::event_wait(e(i), s(i + 1));
  }
  EXPECT_EQ(kernel(s(10), {}, {1}), 0u);
}

TEST_F(Csan, AnEventCapturesTheStateWhenRecorded) {
  kernel(s(1), {1}, {});
  csan::event_record(e(0), s(1));
  kernel(s(1), {1}, {});  // after the record: the wait does not cover it
  csan::event_wait(e(0), s(2));
  EXPECT_EQ(kernel(s(2), {}, {1}), 1u);
}

TEST_F(Csan, ADestroyedEventOrdersNothing) {
  kernel(s(1), {}, {1});
  csan::event_record(e(0), s(1));
  csan::event_destroyed(e(0));
  csan::event_wait(e(0), s(2));
  EXPECT_EQ(kernel(s(2), {1}, {}), 1u);
}

TEST_F(Csan, ARecordOverridesTheEarlierOne) {
  kernel(s(1), {}, {1});
  csan::event_record(e(1), s(1));
  csan::event_record(e(1), s(2));
  csan::event_wait(e(1), s(3));
  EXPECT_EQ(kernel(s(3), {}, {1}), 1u);
}

TEST_F(Csan, AllReadsAreChecked) {
  for (int i = 1; i <= 10; ++i) kernel(s(i), {1}, {});
  for (int i = 1; i <= 9; ++i) {
    csan::event_record(e(i), s(i));
    csan::event_wait(e(i), s(0));
  }
  EXPECT_EQ(kernel(s(0), {}, {1}), 1u);  // s(10)'s read
  g_reports.clear();
  for (int i = 1; i <= 10; ++i) kernel(s(i), {2}, {});
  for (int i = 1; i <= 10; ++i) {
    csan::event_record(e(i), s(i));
    csan::event_wait(e(i), s(0));
  }
  EXPECT_EQ(kernel(s(0), {}, {2}), 0u);
}

TEST_F(Csan, OneReportPerConflictingTensor) {
  std::vector<int> ts = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  kernel(s(0), {}, ts);
  EXPECT_EQ(kernel(s(1), {}, ts), 10u);
}

TEST_F(Csan, HostWaits) {
  kernel(s(2), {9}, {});  // s(2) and s(3) exist before the waits: the waits must reach them
  kernel(s(3), {9}, {});
  kernel(s(1), {}, {1});
  csan::stream_synchronize(s(1));
  EXPECT_EQ(kernel(s(2), {1}, {}), 0u);  // the host waited for s(1): every stream is after it
  kernel(s(2), {}, {2});
  csan::event_record(e(0), s(2));
  csan::event_synchronize(e(0));
  EXPECT_EQ(kernel(s(3), {}, {2}), 0u);
  kernel(s(3), {}, {3});
  kernel(s(4), {}, {4});
  kernel(s(5), {9}, {});
  csan::device_synchronize(0);
  EXPECT_EQ(kernel(s(5), {3, 4}, {}), 0u);
  EXPECT_EQ(kernel(s(6), {3, 4}, {}), 0u);  // a stream seen for the first time starts from the host
  EXPECT_EQ(kernel(s(1), {}, {3, 4}), 4u);  // s(5)'s and s(6)'s reads of each were not waited for
}

TEST_F(Csan, WithoutTheWaitsTheSameAccessesRace) {  // the case above fails without its waits
  kernel(s(2), {9}, {});
  kernel(s(1), {}, {1});
  EXPECT_EQ(kernel(s(2), {1}, {}), 1u);
}

TEST_F(Csan, DevicesAreApart) {
  // the legacy default stream is handle 0 on every device: two streams, not one
  const csan::StreamKey d0 = csan::stream_key(0, nullptr), d1 = csan::stream_key(1, nullptr);
  EXPECT_NE(d0, d1);
  kernel(d0, {}, {1});
  kernel(d1, {9}, {});
  csan::device_synchronize(1);  // device 1 only
  EXPECT_EQ(kernel(d1, {1}, {}), 1u);
  csan::device_synchronize(0);
  EXPECT_EQ(kernel(d1, {1}, {}), 0u);
  EXPECT_NE(g_reports[0].find("Access by stream 0 on cuda:1 during kernel"), std::string::npos) << g_reports[0];
  EXPECT_NE(g_reports[0].find("Previous access by stream 0 on cuda:0 during kernel"), std::string::npos) << g_reports[0];
}

TEST_F(Csan, TheNewestReadOfEachStreamIsKept) {
  for (int i = 0; i < 100; ++i) kernel(s(1), {1}, {});
  EXPECT_EQ(kernel(s(2), {}, {1}), 1u);  // one report for s(1), not a hundred
  for (int i = 0; i < 10; ++i) {
    kernel(s(1), {2}, {});
    kernel(s(3), {2}, {});
  }
  csan::event_record(e(0), s(1));
  csan::event_wait(e(0), s(2));
  EXPECT_EQ(kernel(s(2), {}, {2}), 1u);  // s(3)'s newest read is not waited for
  kernel(s(1), {3}, {});
  csan::event_record(e(1), s(1));  // covers the first read of s(1) only
  kernel(s(1), {3}, {});
  csan::event_wait(e(1), s(2));
  EXPECT_EQ(kernel(s(2), {}, {3}), 1u);  // the newer read of s(1) is the one that counts
}

TEST_F(Csan, ADestroyedStreamKeepsWhatOthersKnow) {
  kernel(s(1), {}, {1});
  csan::event_record(e(0), s(1));
  csan::event_wait(e(0), s(2));
  csan::stream_destroyed(s(1));
  EXPECT_EQ(kernel(s(2), {1}, {}), 0u);  // s(2) waited for s(1)'s write
  // a new stream with s(1)'s handle starts from the host's clock: it knows nothing of s(2)
  EXPECT_EQ(kernel(s(1), {}, {1}), 1u);
}

TEST_F(Csan, ReadAndWriteOfOneStorageInOneKernelIsAWrite) {
  kernel(s(1), {1}, {});
  // read and written by one kernel on s(2): checked as a write against s(1)'s read
  EXPECT_EQ(kernel(s(2), {1}, {1}), 1u);
  EXPECT_NE(g_reports.back().find("writing to argument(s) self, out"), std::string::npos) << g_reports.back();
}

TEST_F(Csan, NewMemoryStartsANewHistory) {
  kernel(s(1), {}, {1});
  csan::memory_allocated(t(1));  // handed out again (its free may not have been seen)
  EXPECT_EQ(kernel(s(2), {}, {1}), 0u);
  kernel(s(1), {}, {2});
  csan::memory_freed(t(2));
  EXPECT_EQ(kernel(s(2), {}, {2}), 0u);
  kernel(s(1), {}, {3});
  EXPECT_EQ(kernel(s(2), {}, {3}), 1u);  // neither: the race is found
}

TEST_F(Csan, TheReportNamesBothAccesses) {
  std::vector<csan::Arg> w{{t(1), "out", csan::TensorDesc{DType::Float32, {4}, 0, 0, t(1)}}};
  csan::raise("mul", csan::kernel(s(1), "mul", {}, w));
  std::vector<csan::Arg> r{{t(1), "self", csan::TensorDesc{DType::Float32, {4}, 0, 0, t(1)}}};
  csan::raise("add", csan::kernel(s(2), "add", r, {}));
  ASSERT_EQ(g_reports.size(), 1u);
  const std::string& m = g_reports[0];
  EXPECT_NE(m.find("CSAN detected a possible data race on tensor with data pointer " +
                   std::to_string(reinterpret_cast<uintptr_t>(t(1)))),
            std::string::npos) << m;
  EXPECT_NE(m.find("Access by stream " + std::to_string(0x1002) +
                   " on cuda:0 during kernel:\nadd\nreading from argument(s) self\nTensor: torch.float32[4] on cuda:0 (storage " +
                   str_cat(t(1)) + ", offset 0)\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("Previous access by stream " + std::to_string(0x1001) +
                   " on cuda:0 during kernel:\nmul\nwriting to argument(s) out\n"),
            std::string::npos) << m;
}

TEST_F(Csan, ErrorModeThrowsAfterRecording) {
  csan::set_mode(CsanMode::Error);
  int64_t before = csan::report_count();
  kernel(s(1), {}, {1});
  std::vector<std::string> found = csan::kernel(s(2), "add_", {}, {{t(1), "self", {}}});
  EXPECT_EQ(found.size(), 1u);  // returned, not raised: an op raises at its end
  EXPECT_EQ(g_reports.size(), 0u);
  try {
    csan::raise("add_", found);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), Status::DataRace);
    EXPECT_NE(std::string(err.what()).find("The CUDA stream sanitizer detected 1 error (add_"), std::string::npos)
        << err.what();
  }
  EXPECT_EQ(csan::report_count(), before + 1);
  EXPECT_EQ(kernel(s(2), {}, {1}), 0u);  // the racing write was recorded: s(2) is now the last writer
}

TEST_F(Csan, OffForgetsAndChecksNothing) {
  kernel(s(1), {}, {1});
  csan::set_mode(CsanMode::Off);
  EXPECT_FALSE(csan::on());
  csan::set_mode(CsanMode::Warn);
  EXPECT_EQ(kernel(s(2), {}, {1}), 0u);  // nothing known from before
}

TEST(CsanEnv, ModeFromTheVariable) {
  EXPECT_EQ(csan::mode_from_env(nullptr), CsanMode::Off);
  EXPECT_EQ(csan::mode_from_env(""), CsanMode::Error);  // presence switches it on, as torch
  EXPECT_EQ(csan::mode_from_env("0"), CsanMode::Error);
  EXPECT_EQ(csan::mode_from_env("warn"), CsanMode::Warn);
}
