// A small CUDA program with known activity, for checking libprofdiff_cupti.so
// on a GPU (docs/cupti.md): per step, inside NVTX ranges "ProfilerStep#<s>" and
// "aten::fake_op":
//   1 memcpy HtoD (Pageable -> Device) of 1 MiB, 1 memset of 1 MiB,
//   2 launches of scale_kernel and 1 of add_kernel, 1 memcpy DtoH (Device ->
//   Pageable).
// With STEPS steps (argv[1], default 10) a capture of every step holds exactly
// 3*STEPS kernels (2*STEPS scale_kernel, STEPS add_kernel), 2*STEPS memcpys and
// STEPS memsets.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void add_kernel(float* x, const float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

#define CHECK(call)                                                   \
  do {                                                                \
    cudaError_t e = (call);                                           \
    if (e != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); \
      return 1;                                                       \
    }                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10;
  const int n = 1 << 18;  // 1 MiB of floats
  std::vector<float> host(n, 1.0f);
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  for (int s = 0; s < steps; ++s) {
    const std::string step = "ProfilerStep#" + std::to_string(s);
    nvtxRangePushA(step.c_str());
    nvtxRangePushA("aten::fake_op, seq = 1");
    CHECK(
        cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    scale_kernel<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
    scale_kernel<<<(n + 255) / 256, 256>>>(x, 0.5f, n);
    add_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
    CHECK(
        cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    nvtxRangePop();
    nvtxRangePop();
  }
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  std::printf("cupti_check: %d steps done\n", steps);
  return 0;
}
