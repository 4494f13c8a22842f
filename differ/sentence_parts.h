// The words and numbers of the differ's sentences (findings, warnings): one
// way to print a duration, a share and a list of names, so every sentence a
// user reads spells them alike.
#ifndef PROFDIFF_DIFFER_SENTENCE_PARTS_H_
#define PROFDIFF_DIFFER_SENTENCE_PARTS_H_

#include <string>
#include <string_view>
#include <vector>

namespace profdiff::differ {

// "850 us", "7.6 ms", "1.32 s": three significant digits or so, the unit a
// person would say.
std::string Duration(double us);
// The same with a sign: "+167.1 ms", "-0.4 us", "0 us".
std::string SignedDuration(double us);
// A relative change: "+2197%", "-5.7%"; "new" from 0, "gone" to 0.
std::string ChangePercent(double baseline, double experimental);
// A share: "60%", "<1%".
std::string Share(double fraction);
// "512.0 MiB", "1.50 GiB".
std::string Bytes(double bytes);
// "12.3 GB/s", "0.456 GB/s" (GB = 1e9 bytes, as nccl-tests).
std::string Bandwidth(double gbps);
// A kernel or operator name short enough for a sentence: without a leading
// "void ", its parameter list and its namespaces, then shortened to `max`
// characters as the tables shorten kernel names (differ/kernel_names.h). "void
// at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float>(float*,
// int)" -> "cunn_SoftMaxForward<8, float>".
std::string ShortName(std::string_view name, size_t max = 60);
// "a, b, c and 4 more": at most `shown` names.
std::string NameList(const std::vector<std::string>& names, int shown);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SENTENCE_PARTS_H_
