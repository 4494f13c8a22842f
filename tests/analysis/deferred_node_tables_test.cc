// A profile built with its module nodes' tables deferred
// (analysis/deferred_node_tables.h) is the eager profile without those tables,
// and each node's tables made when asked are the eager node's, in whatever
// order the nodes are asked for. Through the loader and the differ:
// tests/differ/differ_test.cc (DeferredNodeTablesDiffAsEveryNodesTablesDo).
#include "analysis/deferred_node_tables.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "analysis/event_links.h"
#include "analysis/module_tree.h"
#include "analysis/profile_limits.h"
#include "analysis/run_loader.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "analysis/worker_profile.h"
#include "base/str_cat.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

using google::protobuf::util::MessageDifferencer;

void ClearTables(v1::ModuleNode& node) {
  node.clear_operators();
  node.clear_kernels();
  for (v1::ModuleNode& child : *node.mutable_children()) ClearTables(child);
}

// Every node below the root with the names leading to it, where those names
// lead to it (of two children of one name, the later).
void NodesByNames(const v1::ModuleNode& node,
                  std::vector<const std::string*>& names,
                  std::vector<std::pair<std::vector<const std::string*>,
                                        const v1::ModuleNode*>>& out) {
  for (int c = 0; c < node.children_size(); ++c) {
    const v1::ModuleNode& child = node.children(c);
    bool later = false;
    for (int d = c + 1; d < node.children_size(); ++d)
      later = later || node.children(d).name() == child.name();
    if (later) continue;
    names.push_back(&child.name());
    out.emplace_back(names, &child);
    NodesByNames(child, names, out);
    names.pop_back();
  }
}

// Real traces: kernels with occupancy, several steps, deep trees.
std::vector<std::string> Traces() {
  return {
      "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz",
      std::string("kineto/tb_plugin_samples/resnet50_num_workers_0/") +
          "worker0.1623143089861.pt.trace.json.gz",
      "profdiff_h200/transformer-bf16.pt.trace.json.gz",
      "param/dlrm_kineto/worker3_step_12.1694128201557.pt.trace.json.gz"};
}

// `name` under the traces folder, read as a diff reads it; null when it is
// missing (a failure when it does not read).
std::shared_ptr<const trace::Trace> Read(const std::string& name) {
  const std::filesystem::path path = test_support::TracesDir() / name;
  if (!std::filesystem::exists(path)) return nullptr;
  trace::KinetoReader reader({.keep_python_frames = false});
  absl::StatusOr<trace::Trace> read = reader.ReadFile(path.string());
  if (!read.ok()) {
    ADD_FAILURE() << read.status();
    return nullptr;
  }
  return std::make_shared<const trace::Trace>(*std::move(read));
}

TEST(DeferredNodeTablesTest, EachNodesTablesAreTheEagerProfiles) {
  size_t nodes_with_tables = 0;
  for (const std::string& name : Traces()) {
    SCOPED_TRACE(name);
    const std::shared_ptr<const trace::Trace> trace = Read(name);
    if (trace == nullptr) GTEST_SKIP() << "SKIPPED: " << name << " is missing";
    const WorkerIdentity identity{"run", "worker", 1};
    const v1::WorkerProfile eager = BuildWorkerProfile(*trace, identity, {});
    std::unique_ptr<DeferredNodeTables> deferred;
    v1::WorkerProfile lazy = BuildWorkerProfile(trace, identity, {}, deferred);
    ASSERT_NE(deferred, nullptr);

    v1::WorkerProfile without = eager;
    ClearTables(*without.mutable_modules());
    EXPECT_TRUE(MessageDifferencer::Equals(lazy, without));

    std::vector<const std::string*> names;
    std::vector<
        std::pair<std::vector<const std::string*>, const v1::ModuleNode*>>
        nodes;
    NodesByNames(eager.modules(), names, nodes);
    ASSERT_GT(nodes.size(), 10u);
    // Deepest first, then again from the top: the rows found for one node
    // must not carry into another's.
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        const auto& [at, node] = nodes[pass == 0 ? nodes.size() - 1 - i : i];
        v1::ModuleNode made;
        ASSERT_TRUE(deferred->Fill(at, made)) << node->path();
        v1::ModuleNode want;
        *want.mutable_operators() = node->operators();
        *want.mutable_kernels() = node->kernels();
        EXPECT_TRUE(MessageDifferencer::Equals(made, want)) << node->path();
        if (pass == 0 && node->operators_size() + node->kernels_size() > 0)
          ++nodes_with_tables;
      }
    }
  }
  EXPECT_GT(nodes_with_tables, 100u);
}

TEST(DeferredNodeTablesTest, ANodeTheTreeLacksOrTheRootIsFalse) {
  const std::shared_ptr<const trace::Trace> trace = Read(Traces()[2]);
  if (trace == nullptr) GTEST_SKIP() << "SKIPPED: " << Traces()[2];
  std::unique_ptr<DeferredNodeTables> deferred;
  const v1::WorkerProfile profile =
      BuildWorkerProfile(trace, {"run", "worker", 1}, {}, deferred);
  ASSERT_NE(deferred, nullptr);
  ASSERT_GT(profile.modules().children_size(), 0);
  const std::string& first = profile.modules().children(0).name();
  const std::string missing = "no such module";
  v1::ModuleNode made;
  EXPECT_FALSE(deferred->Fill({}, made));
  EXPECT_FALSE(deferred->Fill({&missing}, made));
  EXPECT_FALSE(deferred->Fill({&first, &missing}, made));
  EXPECT_TRUE(deferred->Fill({&first}, made));
}

TEST(DeferredNodeTablesTest, WithoutModuleTablesNothingIsDeferred) {
  const std::shared_ptr<const trace::Trace> trace = Read(Traces()[2]);
  if (trace == nullptr) GTEST_SKIP() << "SKIPPED: " << Traces()[2];
  std::unique_ptr<DeferredNodeTables> deferred;
  const v1::WorkerProfile lazy = BuildWorkerProfile(
      trace, {"run", "worker", 1}, {.module_tables = false}, deferred);
  EXPECT_EQ(deferred, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(
      lazy, BuildWorkerProfile(*trace, {"run", "worker", 1},
                               {.module_tables = false})));
}

// The bound that decides whether tables may be deferred (the 48 MiB rule's
// verdict must not change) is at least what they add to a profile.
TEST(DeferredNodeTablesTest, TheBoundIsAtLeastTheTablesBytes) {
  for (const std::string& name : Traces()) {
    SCOPED_TRACE(name);
    const std::shared_ptr<const trace::Trace> trace = Read(name);
    if (trace == nullptr) GTEST_SKIP() << "SKIPPED: " << name << " is missing";
    const v1::WorkerProfile eager = BuildWorkerProfile(*trace, {"r", "w"}, {});
    v1::WorkerProfile without = eager;
    ClearTables(*without.mutable_modules());
    const size_t tables = eager.ByteSizeLong() - without.ByteSizeLong();
    // Kept steps as the profile counts them; the tree with its steps.
    const EventLinks links = LinkEvents(*trace);
    const StepWindows steps = FindSteps(*trace, links);
    const std::vector<int32_t> of_event =
        AssignEventsToSteps(*trace, links, steps);
    const size_t bound = worker_profile_internal::NodeTablesBytesBound(
        *trace, links, BuildModuleTree(*trace, links, &of_event, &steps),
        static_cast<size_t>(eager.steps_size()));
    EXPECT_EQ(steps.kept.size(), static_cast<size_t>(eager.steps_size()));
    EXPECT_GT(tables, 0u);
    EXPECT_GE(bound, tables);
    std::printf("%s: tables %zu bytes, bound %zu (%.1fx)\n", name.c_str(),
                tables, bound, static_cast<double>(bound) / tables);
  }
}

// The loader keeps traces for deferred tables only where each loading thread
// reads one worker: two traces on two cores, not two 8-rank folders.
TEST(DeferredNodeTablesTest, TheLoaderDefersWhereAThreadReadsOneWorker) {
  const std::filesystem::path root = test_support::TracesDir();
  const std::filesystem::path folder = root / "param/dlrm_kineto";
  const std::filesystem::path trace = root / Traces()[2];
  if (!std::filesystem::exists(folder) || !std::filesystem::exists(trace))
    GTEST_SKIP() << "SKIPPED: " << folder << " or " << trace << " is missing";
  const size_t cores = std::thread::hardware_concurrency();
  std::vector<std::vector<DeferredRunTables>> deferred;
  auto runs = LoadRunsWithEachOptions({{trace.string()}, {trace.string()}},
                                      {{}}, &deferred);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(deferred.size(), 1u);
  ASSERT_EQ(deferred[0].size(), 2u);
  EXPECT_EQ(deferred[0][0].size(), cores >= 2 ? 1u : 0u);
  EXPECT_EQ(deferred[0][1].size(), cores >= 2 ? 1u : 0u);
  if (cores >= 2) {
    EXPECT_EQ(deferred[0][0].begin()->first,
              (*runs)[0][0].workers(0).worker().rank());
    EXPECT_EQ((*runs)[0][0].workers(0).modules().children(0).operators_size(),
              0);
  }
  runs = LoadRunsWithEachOptions({{folder.string()}, {folder.string()}}, {{}},
                                 &deferred);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ((*runs)[0][0].workers_size(), 8);
  if (cores < 16) {
    EXPECT_TRUE(deferred[0][0].empty());
    EXPECT_TRUE(deferred[0][1].empty());
    EXPECT_GT((*runs)[0][0].workers(0).modules().children(0).operators_size(),
              0);
  }
}

// Where the bound could pass kMaxProfileBytes (here 20 annotated blocks of 65
// launches each, one kernel named with 100 KB: the bound is 130 MB, the real
// tables a few KB), the tables are made at once and the profile is the eager
// one, tables and all, so the 48 MiB rule judges it as before.
TEST(DeferredNodeTablesTest, TablesThatCouldPassTheLimitAreMadeAtOnce) {
  const std::string long_name(100'000, 'k');
  std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1,
     "tid": 1, "ts": 0, "dur": 30000})";
  int id = 0;
  for (int b = 0; b < 20; ++b) {
    const int block = 10 + b * 1000;
    json += base::StrCat(
        R"(, {"ph": "X", "cat": "user_annotation", "name": "block_)", b,
        R"(", "pid": 1, "tid": 1, "ts": )", block, R"(, "dur": 900})");
    for (int k = 0; k < 65; ++k, ++id) {
      const int t = block + 1 + k * 12;
      json += base::StrCat(
          R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )",
          t, R"(, "dur": 10, "args": {"External id": )", id,
          R"(}}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )",
          t + 1, R"(, "dur": 2, "args": {"correlation": )", id,
          R"(, "External id": )", id,
          R"(}}, {"ph": "X", "cat": "kernel", "name": ")",
          b == 0 && k == 0 ? long_name : "mm_kernel",
          R"(", "pid": 0, "tid": 7, "ts": )", t + 5,
          R"(, "dur": 3, "args": {"correlation": )", id, R"(, "External id": )",
          id, R"(, "device": 0, "stream": 7}})");
    }
  }
  json += "]}";
  absl::StatusOr<trace::Trace> read =
      trace::KinetoReader().ReadBytes(json, "blocks.json");
  ASSERT_TRUE(read.ok()) << read.status();
  const auto trace = std::make_shared<const trace::Trace>(*std::move(read));
  const v1::WorkerProfile eager = BuildWorkerProfile(*trace, {"r", "w"}, {});
  std::unique_ptr<DeferredNodeTables> deferred;
  const v1::WorkerProfile lazy =
      BuildWorkerProfile(trace, {"r", "w"}, {}, deferred);
  EXPECT_EQ(deferred, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(lazy, eager));
  EXPECT_LT(eager.ByteSizeLong(), kMaxProfileBytes);
  // The blocks carry their tables (the rule did not clear them).
  size_t blocks_with_kernels = 0;
  std::vector<const v1::ModuleNode*> stack = {&eager.modules()};
  while (!stack.empty()) {
    const v1::ModuleNode* node = stack.back();
    stack.pop_back();
    if (node->name().starts_with("block_") && node->kernels_size() > 0)
      ++blocks_with_kernels;
    for (const v1::ModuleNode& child : node->children())
      stack.push_back(&child);
  }
  EXPECT_EQ(blocks_with_kernels, 20u);
}

}  // namespace
}  // namespace profdiff::analysis
