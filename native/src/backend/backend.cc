#include "backend/backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "backend/cpu/cpu_backend.h"
#ifdef SACCADE_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"
#endif
#include "util/error.h"

namespace saccade {

Buffer::Buffer(Backend* b, size_t n, Contents contents) : backend_(b), ptr_(b->alloc(n, contents)), n_(n) {}

Buffer::~Buffer() {
  if (ptr_) backend_->free(ptr_);
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) backend_->free(ptr_);
    backend_ = o.backend_;
    ptr_ = o.ptr_;
    n_ = o.n_;
    o.ptr_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

Weight Backend::upload_weight(const std::vector<float>& host, int rows, int cols, WeightUse) {
  Weight w;
  w.w = Buffer(this, host.size());
  upload(w.w.data(), host.data(), host.size());
  w.rows = rows;
  w.cols = cols;
  return w;
}

void Backend::conv(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, const Weight& w,
                   const float* bias, bool relu, float* dst) {
  // Bands of output rows keep a 3 x 3 convolution over a full-page map from needing hundreds of megabytes.
  constexpr size_t kWindowFloats = size_t(1) << 22;
  const int Ho = (H + sy - 1) / sy, Wo = (W + sx - 1) / sx;
  const size_t row = size_t(Wo) * w.cols;
  const int band = int(std::max<size_t>(1, std::min<size_t>(Ho, kWindowFloats / row)));
  Buffer cols(this, size_t(band) * row, Contents::Undefined);
  for (int oy0 = 0; oy0 < Ho; oy0 += band) {
    const int oy1 = std::min(Ho, oy0 + band);
    im2col(src, H, W, C, kh, kw, sy, sx, oy0, oy1, cols.data());
    linear(cols.data(), (oy1 - oy0) * Wo, w, bias, dst + size_t(oy0) * Wo * w.rows);
  }
  if (relu) this->relu(dst, size_t(Ho) * Wo * w.rows);
}

std::vector<std::string> compiled_backends() {
#ifdef SACCADE_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

std::unique_ptr<Backend> create_backend(const BackendOptions& opts) {
  const char* env = std::getenv("SACCADE_BACKEND");  // cpu | cuda: overrides the caller's choice
  const std::string name = env && *env ? env : opts.name;
  if (name == "cpu") return make_cpu_backend(opts.threads, opts.reduced_precision);
  if (name.empty() || name == "auto") {
#ifdef SACCADE_HAVE_CUDA
    std::string why;
    if (std::unique_ptr<Backend> b = make_cuda_backend(&why)) return b;
    std::fprintf(stderr, "saccade: no CUDA device (%s); using the CPU backend\n", why.c_str());
#endif
    return make_cpu_backend(opts.threads, opts.reduced_precision);
  }
#ifdef SACCADE_HAVE_CUDA
  if (name == "cuda") {
    std::string why;
    if (std::unique_ptr<Backend> b = make_cuda_backend(&why)) return b;
    std::fprintf(stderr, "saccade: no CUDA device (%s); using the CPU backend\n", why.c_str());
    return make_cpu_backend(opts.threads, opts.reduced_precision);
  }
#endif
  std::string available;
  for (const std::string& b : compiled_backends()) available += (available.empty() ? "" : ", ") + b;
  throw EngineError("backend '" + name + "' is not compiled in (available: " + available + ")");
}

}  // namespace saccade
