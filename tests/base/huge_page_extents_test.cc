// jemalloc's extents on huge pages (base/huge_page_extents.h), in a binary that
// links jemalloc as its malloc with the CLI's settings: an arena per core and
// the main thread's are hooked, and threads running at once, one per core,
// take them; a large block starts on a 2 MiB boundary (within jemalloc's page
// of cache-oblivious offset), blocks of every size class keep what is written
// to them through growth and frees, and a block the process touches is on huge
// pages where the kernel allows them.
#include "base/huge_page_extents.h"

#include <jemalloc/jemalloc.h>

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
// NOLINTNEXTLINE(readability-identifier-naming): the name jemalloc reads.
const char* malloc_conf = "thp:always,oversize_threshold:0";
}

namespace profdiff::base {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

// AnonHugePages of the mapping that holds `p`, in kB; -1 when not found.
long AnonHugeKbAt(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool in = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      in = begin <= at && at < end;
      continue;
    }
    if (in && line.rfind("AnonHugePages:", 0) == 0)
      return std::stol(line.substr(14));
  }
  return -1;
}

bool KernelOffersHugePages() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(enabled, modes);
  return !modes.empty() && modes.find("[never]") == std::string::npos;
}

class HugePageExtentsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { hooked_ = UseHugePageExtents(); }
  static unsigned hooked_;
};
unsigned HugePageExtentsTest::hooked_ = 0;

// The arenas hooked: one per core and the main thread's (jemalloc makes four
// per core, and hooking one creates it).
TEST_F(HugePageExtentsTest, AnArenaPerCoreAndTheMainThreadsAreHooked) {
  unsigned arenas = 0;
  size_t size = sizeof(arenas);
  ASSERT_EQ(mallctl("arenas.narenas", &arenas, &size, nullptr, 0), 0);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(hooked_, std::min(arenas, cores + 1));
}

// Whether every large block allocated here starts on a huge page.
void ExpectLargeBlocksOnHugePages(const std::string& where) {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (size_t mib : {3, 4, 5, 9, 17}) {
    blocks.push_back(std::make_unique<char[]>(mib << 20));
    const auto at = reinterpret_cast<uintptr_t>(blocks.back().get());
    EXPECT_LT(at % kHugePage, 4096u) << mib << " MiB at " << at << where;
  }
}

TEST_F(HugePageExtentsTest, LargeBlocksStartOnAHugePage) {
  ExpectLargeBlocksOnHugePages(" on the main thread");
}

// A thread per core, all at once (as the CLI reads a file per core), each
// takes a hooked arena.
TEST_F(HugePageExtentsTest, AThreadPerCoreAllocatesFromHookedArenas) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::barrier all_started(static_cast<std::ptrdiff_t>(cores));
  std::vector<std::jthread> threads;
  for (unsigned t = 0; t < cores; ++t) {
    threads.emplace_back([&all_started, t] {
      // Each has its arena before any allocates.
      all_started.arrive_and_wait();
      ExpectLargeBlocksOnHugePages(" on thread " + std::to_string(t));
    });
  }
}

TEST_F(HugePageExtentsTest, BlocksOfEverySizeKeepTheirBytes) {
  std::vector<std::vector<uint32_t>> grown(64);
  std::vector<std::unique_ptr<char[]>> freed_half;
  for (size_t round = 0; round < 2000; ++round) {
    std::vector<uint32_t>& v = grown[round % grown.size()];
    v.push_back(static_cast<uint32_t>(round));
    const size_t bytes = (round * 2654435761u) % (1 << 16) + 1;
    freed_half.push_back(std::make_unique<char[]>(bytes));
    std::memset(freed_half.back().get(), static_cast<int>(round & 0xff), bytes);
    if (round % 2 == 1) freed_half.erase(freed_half.end() - 2);
  }
  for (size_t k = 0; k < grown.size(); ++k) {
    for (size_t i = 0; i < grown[k].size(); ++i)
      ASSERT_EQ(grown[k][i], i * grown.size() + k);
  }
  std::vector<uint64_t> big;
  for (uint64_t i = 0; i < (uint64_t{24} << 20) / 8; ++i) big.push_back(i);
  for (uint64_t i = 0; i < big.size(); i += 4099) ASSERT_EQ(big[i], i);
}

// /proc/vmstat's count of huge page faults that got small pages instead.
long HugePageFallbacks() {
  std::ifstream vmstat("/proc/vmstat");
  std::string name;
  long value = 0;
  while (vmstat >> name >> value) {
    if (name == "thp_fault_fallback") return value;
  }
  return 0;
}

TEST_F(HugePageExtentsTest, ATouchedBlockIsOnHugePages) {
  if (!KernelOffersHugePages())
    GTEST_SKIP() << "transparent huge pages are off in this kernel";
  const long fallbacks = HugePageFallbacks();
  const size_t bytes = size_t{8} << 20;
  auto block = std::make_unique<char[]>(bytes);
  std::memset(block.get(), 1, bytes);
  const long kb = AnonHugeKbAt(block.get());
  if (kb < 4096 && HugePageFallbacks() > fallbacks)
    GTEST_SKIP() << "the kernel had no free huge page (thp_fault_fallback)";
  EXPECT_GE(kb, 4096);
}

}  // namespace
}  // namespace profdiff::base
