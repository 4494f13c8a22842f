// The upload mode's queue: groups handed out in order, repeats of a path
// together, and files out at once bounded by their bytes on disk.
#include "agent/upload_queue.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

class UploadQueueTest : public ::testing::Test {
 protected:
  std::string File(const std::string& name, size_t bytes) {
    const fs::path path = fs::path(::testing::TempDir()) / name;
    std::ofstream(path) << std::string(bytes, 'x');
    return path.string();
  }
};

TEST_F(UploadQueueTest, RepeatsOfAPathAreOneGroupInTheOrderGiven) {
  const std::string a = File("a.json", 10), b = File("b.json", 20);
  const std::vector<std::string> paths = {a, b, a};
  UploadQueue queue(paths, /*repeats_together=*/true);
  ASSERT_EQ(queue.group_count(), 2u);
  const UploadQueue::Group first = queue.Next();
  EXPECT_EQ(first.indices, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(first.bytes, 10u);  // read once
  const UploadQueue::Group second = queue.Next();
  EXPECT_EQ(second.indices, (std::vector<size_t>{1}));
  EXPECT_TRUE(queue.Next().indices.empty());
  queue.Record(1, false);
  EXPECT_EQ(queue.Failed(), (std::vector<std::string>{b}));
}

TEST_F(UploadQueueTest, GroupsOutAtOnceFitTheBytesAndALargerOneGoesAlone) {
  const std::string small1 = File("s1.json", 40), small2 = File("s2.json", 40),
                    large = File("large.json", 500),
                    small3 = File("s3.json", 40);
  const std::vector<std::string> paths = {small1, small2, large, small3};
  UploadQueue queue(paths, true, /*max_bytes_out=*/100);
  const UploadQueue::Group g1 = queue.Next();
  const UploadQueue::Group g2 = queue.Next();  // 80 of 100: fits
  EXPECT_EQ(queue.out(), 2);
  // The large file waits until nothing is out, and the one after it waits in
  // line behind it (a wrong answer shows within the pause; a right one never
  // depends on it).
  std::atomic<bool> third_out{false}, fourth_out{false};
  UploadQueue::Group g3, g4;
  std::jthread third([&] {
    g3 = queue.Next();
    third_out = true;
  });
  queue.Done(g1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_out) << "500 bytes beside 40 of a 100-byte bound";
  queue.Done(g2);
  third.join();
  EXPECT_EQ(g3.indices, (std::vector<size_t>{2}));
  std::jthread fourth([&] {
    g4 = queue.Next();
    fourth_out = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(fourth_out) << "40 bytes beside 500";
  queue.Done(g3);
  fourth.join();
  EXPECT_EQ(g4.indices, (std::vector<size_t>{3}));
  queue.Done(g4);
  EXPECT_EQ(queue.most_out(), 2);
  EXPECT_TRUE(queue.Next().indices.empty());
}

TEST_F(UploadQueueTest, NoBoundHandsOutEveryGroupAtOnce) {
  std::vector<std::string> paths;
  paths.reserve(5);
  for (int i = 0; i < 5; ++i)
    paths.push_back(File("n" + std::to_string(i) + ".json", 1000));
  UploadQueue queue(paths, true, /*max_bytes_out=*/0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(queue.Next().indices.size(), 1u);
  EXPECT_EQ(queue.most_out(), 5);
}

TEST_F(UploadQueueTest,
       AFileThatCannotBeSizedCountsNothingAndIsStillHandedOut) {
  const std::vector<std::string> paths = {"/nonexistent/trace.json"};
  UploadQueue queue(paths, true, 100);
  const UploadQueue::Group group = queue.Next();
  EXPECT_EQ(group.indices, (std::vector<size_t>{0}));
  EXPECT_EQ(group.bytes, 0u);
}

}  // namespace
}  // namespace profdiff::agent
