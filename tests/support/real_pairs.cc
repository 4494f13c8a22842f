#include "tests/support/real_pairs.h"

namespace profdiff::test_support {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> RealTracePairs(
    const fs::path& root) {
  std::vector<std::pair<std::string, std::string>> pairs = {
      {kNw0A, kNw4A},
      {kNw4A, kNw4B},
      {"torch_profiling_tutorial/log/transformer/"
       "dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz",
       "torch_profiling_tutorial/log/transformer/"
       "dc3b0e7228dd_851.1752215573993169006.pt.trace.json.gz"},
      {"tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz",
       "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz"},
      {"switchtransformers/history/trace.v0c4a673.json.gz",
       "switchtransformers/history/trace.v05c1085.json.gz"},
      {"tracelens/mi300/resnet_act_checkpoint.json.gz",
       "tracelens/mi300/resnet_act_checkpoint.json.gz"},
      // User annotations over the operator tree (issue 46): 8 ranks of DLRM
      // ("## forward ##", "## wait_sparse_data_dist ##", ...), and one DDP
      // rank of the HTA samples ("## forward ##", "## backward ##").
      {"param/dlrm_kineto", "param/dlrm_kineto"},
      {"hta/nccl_parser_config/nccl_data.json.gz",
       "hta/ns_resolution_trace/"
       "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"},
  };
  if (fs::is_directory(root / "tracelens/h100")) {
    for (const auto& entry : fs::directory_iterator(root / "tracelens/h100")) {
      const std::string name = entry.path().filename().string();
      if (fs::exists(root / "tracelens/mi300" / name))
        pairs.emplace_back("tracelens/h100/" + name, "tracelens/mi300/" + name);
    }
  }
  return pairs;
}

}  // namespace profdiff::test_support
