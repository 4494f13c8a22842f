// Kernel names short enough for a table cell or a sentence, shortened by their
// structure rather than by characters (issue 45): a CUDA kernel's name is a C++
// signature of hundreds of characters, and a cut in the middle keeps neither
// its function nor what tells two of them apart.
//
// Design:
// 1. A name is shortened by dropping, in this order and only as far as needed
//    to fit: the return type ("void "), the parameter list (and a ROCm
//    " [clone .kd]"), the namespaces and enclosing classes of the function,
//    then template arguments from the last: first the whitespace and the
//    namespaces inside them, then whole arguments ("f<4,float,...>"), then the
//    first argument cut by characters, then all ("f<...>"), then the arguments
//    themselves ("f").
// 2. Only a bare name still too long (cuBLAS, nvjet, ROCm Tensile, Triton) is
//    cut by characters: its head, "...", and its last "_" part when that is
//    short (a Triton kernel's number, a GEMM's layout).
// 3. An Itanium-mangled name ("_ZN2ck...") is read as far as its nested name
//    ("ck::...::kernel_gemm<...>"), so it shortens like a demangled one.
// 4. Over a set of names (one table, one report), names that would print
//    alike are kept apart: they keep more of their structure, and where that
//    is longer than the width, the part where they differ.
#ifndef PROFDIFF_DIFFER_KERNEL_NAMES_H_
#define PROFDIFF_DIFFER_KERNEL_NAMES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace profdiff::differ {

// `name` in at most `width` characters (design note 1, 2): the name itself
// when it fits. "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4,
// float, float, float, ...>(float*, float const*, int)" at 32 ->
// "cunn_SoftMaxForward<4,float,...>". Idempotent: a result fits, so shortening
// it again returns it unchanged.
std::string ShortenKernelName(std::string_view name, size_t width);

// Each of `names` shortened to `width` as ShortenKernelName does, except that
// two different names never print alike (design note 4); the same name
// twice prints alike. A name kept apart from another may be longer than
// `width` when nothing shorter tells them apart. Returns one string per name,
// in order.
std::vector<std::string> ShortenKernelNames(
    const std::vector<std::string>& names, size_t width);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_KERNEL_NAMES_H_
