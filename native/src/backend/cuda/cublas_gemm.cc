#include "backend/cuda/cublas_gemm.h"

#include <dlfcn.h>

#include <cstdlib>

#include "util/error.h"

namespace saccade::cuda {

// The few cuBLAS v2 entry points used here, declared by their stable C ABI (enums are ints, the handle is an
// opaque pointer) so no cuBLAS header is needed to build.
struct CublasGemm::Api {
  using Create = int (*)(void** handle);
  using Destroy = int (*)(void* handle);
  using SetStream = int (*)(void* handle, cudaStream_t stream);
  using SetMathMode = int (*)(void* handle, int mode);
  using Sgemm = int (*)(void* handle, int transa, int transb, int m, int n, int k, const float* alpha,
                        const float* A, int lda, const float* B, int ldb, const float* beta, float* C, int ldc);
  Create create = nullptr;
  Destroy destroy = nullptr;
  SetStream set_stream = nullptr;
  SetMathMode set_math_mode = nullptr;
  Sgemm sgemm = nullptr;
};

namespace {
constexpr int kOpN = 0, kOpT = 1;             // cublasOperation_t
constexpr int kTf32TensorOpMath = 3;          // cublasMath_t CUBLAS_TF32_TENSOR_OP_MATH
constexpr int kDefaultMath = 0;               // cublasMath_t CUBLAS_DEFAULT_MATH: plain fp32
}  // namespace

std::unique_ptr<CublasGemm> CublasGemm::open(cudaStream_t stream, bool tf32, std::string* why_not) {
  std::unique_ptr<CublasGemm> g(new CublasGemm());
  const char* env = std::getenv("SACCADE_CUBLAS_LIB");
  for (const char* name : {env, "libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}) {
    if (!name || !*name) continue;
    if ((g->lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
      g->library_ = name;
      break;
    }
  }
  if (!g->lib_) {
    *why_not = "libcublas.so not found (set SACCADE_CUBLAS_LIB to its path)";
    return nullptr;
  }
  g->api_ = std::make_unique<Api>();
  Api& a = *g->api_;
  a.create = reinterpret_cast<Api::Create>(dlsym(g->lib_, "cublasCreate_v2"));
  a.destroy = reinterpret_cast<Api::Destroy>(dlsym(g->lib_, "cublasDestroy_v2"));
  a.set_stream = reinterpret_cast<Api::SetStream>(dlsym(g->lib_, "cublasSetStream_v2"));
  a.set_math_mode = reinterpret_cast<Api::SetMathMode>(dlsym(g->lib_, "cublasSetMathMode"));
  a.sgemm = reinterpret_cast<Api::Sgemm>(dlsym(g->lib_, "cublasSgemm_v2"));
  if (!a.create || !a.destroy || !a.set_stream || !a.set_math_mode || !a.sgemm) {
    *why_not = g->library_ + " lacks the cuBLAS v2 entry points";
    return nullptr;
  }
  if (int st = a.create(&g->handle_)) {
    *why_not = "cublasCreate failed with status " + std::to_string(st);
    return nullptr;
  }
  if (a.set_stream(g->handle_, stream) || a.set_math_mode(g->handle_, tf32 ? kTf32TensorOpMath : kDefaultMath)) {
    *why_not = "cuBLAS stream or math mode setup failed";
    return nullptr;
  }
  return g;
}

CublasGemm::~CublasGemm() {
  if (handle_) api_->destroy(handle_);
  if (lib_) dlclose(lib_);
}

void CublasGemm::gemm(const float* x, int M, int K, const float* w, int N, float* y) {
  // Row-major y[M, N] is column-major y^T[N, M] = w[N, K] x^T: w is column-major [K, N] (transposed), x is
  // column-major [K, M].
  const float one = 1.0f, zero = 0.0f;
  if (int st = api_->sgemm(handle_, kOpT, kOpN, N, M, K, &one, w, K, x, K, &zero, y, N))
    throw EngineError("cublasSgemm failed with status " + std::to_string(st));
}

}  // namespace saccade::cuda
