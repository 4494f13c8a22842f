// Pairs of real traces of one model (hardware, software version, settings)
// under PROFDIFF_TRACES, for tests that check a property on every real diff.
#ifndef PROFDIFF_TESTS_SUPPORT_REAL_PAIRS_H_
#define PROFDIFF_TESTS_SUPPORT_REAL_PAIRS_H_

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace profdiff::test_support {

// The TensorBoard plugin's ResNet50 samples: DataLoader workers 0 and 4 (two
// captures of the latter).
inline constexpr char kNw0A[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_0/"
    "worker0.1623143089861.pt.trace.json.gz";
inline constexpr char kNw4A[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_4/"
    "worker0.1623212756351.pt.trace.json.gz";
inline constexpr char kNw4B[] =
    "kineto/tb_plugin_samples/resnet50_num_workers_4/"
    "worker0.1623213129365.pt.trace.json.gz";

// Every pair the corpus has, paths relative to `root`; some may be absent.
std::vector<std::pair<std::string, std::string>> RealTracePairs(
    const std::filesystem::path& root);

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_REAL_PAIRS_H_
