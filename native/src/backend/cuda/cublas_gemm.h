#pragma once
// cuBLAS SGEMM as an opt-in alternative to the deterministic kernel (SACCADE_CUDA_GEMM=cublas or
// cublas-tf32). cuBLAS picks its algorithm by shape, so a row's bits may change with the number of rows and
// greedy self-spec is no longer guaranteed byte-identical to AR (docs/gpu-check.md). The library is opened at
// run time, so the engine builds without it and runs where it is missing.
#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace saccade::cuda {

class CublasGemm {
 public:
  // nullptr with *why_not set when no loadable cuBLAS is found.
  static std::unique_ptr<CublasGemm> open(cudaStream_t stream, bool tf32, std::string* why_not);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // y[M, N] = x[M, K] w[N, K]^T (no bias)
  void gemm(const float* x, int M, int K, const float* w, int N, float* y);
  const std::string& library() const { return library_; }

 private:
  CublasGemm() = default;
  struct Api;
  std::unique_ptr<Api> api_;
  void* lib_ = nullptr;
  void* handle_ = nullptr;
  std::string library_;
};

}  // namespace saccade::cuda
