// The CUDA backend: device buffers, one stream, host tables through a pinned ring, and the kernel launchers
// of kernels.h. Everything is enqueued asynchronously; the stream drains only where the op table hands data
// back to the host (download, and attention when fixation asks for its host outputs).
#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/check.h"
#include "backend/cuda/cublas_gemm.h"
#include "backend/cuda/host_tables.h"
#include "backend/cuda/kernels.h"

namespace saccade {
namespace cuda {
namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, const cudaDeviceProp& prop) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    // Keep freed blocks in the stream-ordered pool: the vision encoder allocates per image.
    cudaMemPool_t pool;
    check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    uint64_t keep_all = UINT64_MAX;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all), "memory pool threshold");
    tables_ = std::make_unique<HostTables>(stream_);
    isa_ = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + " " + prop.name;
    try {
      choose_gemm();
    } catch (...) {
      cudaStreamDestroy(stream_);  // the destructor does not run for a throwing constructor
      throw;
    }
  }

  ~CudaBackend() override {
    cudaStreamSynchronize(stream_);  // queued kernels may still read the staging ring
    tables_.reset();
    cublas_.reset();
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }
  std::string kernel_isa() const override { return isa_ + ", gemm " + gemm_name_; }
  int threads() const override { return 1; }  // one host thread drives the stream

  float* alloc(size_t n, Contents contents) override {
    void* p = nullptr;
    const size_t bytes = std::max<size_t>(4, n * sizeof(float));
    check(cudaMallocAsync(&p, bytes, stream_), "cudaMallocAsync");
    if (contents == Contents::Zeros) check(cudaMemsetAsync(p, 0, bytes, stream_), "cudaMemsetAsync");
    return static_cast<float*>(p);
  }
  // Called from Buffer's destructor, which must not throw; the pool reports nothing useful at that point.
  void free(float* p) override { cudaFreeAsync(p, stream_); }
  void upload(float* dst, const float* host, size_t n) override {
    check(cudaMemcpyAsync(dst, host, n * sizeof(float), cudaMemcpyHostToDevice, stream_), "upload");
  }
  void download(float* host, const float* src, size_t n) override {
    check(cudaMemcpyAsync(host, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_), "download");
    drain();
  }
  void copy(float* dst, const float* src, size_t n) override {
    if (n) check(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_), "copy");
  }

  void embed(const int* ids, int n, const Weight& table, float* out) override {
    gather_rows(table.w.data(), table.cols, ids, n, out);
  }

  void gather_rows(const float* src, int row_len, const int* idx, int n, float* dst) override {
    if (n <= 0) return;
    tables_->reserve(HostTables::padded(size_t(n) * sizeof(int)));
    cuda::gather_rows(src, row_len, tables_->put(idx, size_t(n)), n, dst, stream_);
  }

  void im2col(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, int oy0, int oy1,
              float* dst) override {
    cuda::im2col(src, H, W, C, kh, kw, sy, sx, oy0, oy1, dst, stream_);
  }

  void linear(const float* x, int M, const Weight& w, const float* bias, float* y) override {
    if (!cublas_) {
      cuda::gemm(x, M, w.cols, w.w.data(), w.rows, bias, y, stream_);
      return;
    }
    cublas_->gemm(x, M, w.cols, w.w.data(), w.rows, y);
    if (bias) add_bias_rows(y, M, w.rows, bias, stream_);
  }

  void rms_norm(const float* x, int rows, int dim, const float* w, float eps, float* y) override {
    cuda::rms_norm(x, rows, dim, w, eps, y, stream_);
  }

  void rope(float* x, int rows, int heads, int head_dim, const float* cos_sin) override {
    if (rows <= 0) return;
    const size_t n = size_t(rows) * (head_dim / 2) * 2;
    tables_->reserve(HostTables::padded(n * sizeof(float)));
    cuda::rope(x, rows, heads, head_dim, tables_->put(cos_sin, n), stream_);
  }

  void silu_mul(const float* gate, const float* up, float* out, size_t n) override {
    cuda::silu_mul(gate, up, out, n, stream_);
  }
  void center_rows(float* x, int rows, int dim) override { cuda::center_rows(x, rows, dim, stream_); }
  void gelu(float* x, size_t n) override { cuda::gelu(x, n, stream_); }
  void add(float* x, const float* y, size_t n) override { cuda::add(x, y, n, stream_); }

  void depthwise_conv(const float* src, int H, int W, int C, int k, int sy, int sx, const float* w,
                      const float* bias, float* dst) override {
    cuda::depthwise_conv(src, H, W, C, k, sy, sx, w, bias, dst, stream_);
  }
  void line_windows(const float* src, int T, int C, int k, float* dst) override {
    cuda::line_windows(src, T, C, k, dst, stream_);
  }
  void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2) override {
    cuda::affine_hardswish(x, n, s1, b1, s2, b2, stream_);
  }
  void silu(float* x, size_t n) override { cuda::silu(x, n, stream_); }
  void relu(float* x, size_t n) override { cuda::relu(x, n, stream_); }
  void layer_norm(const float* x, int rows, int dim, const float* w, const float* b, float eps, float* y) override {
    cuda::layer_norm(x, rows, dim, w, b, eps, y, stream_);
  }
  void column_mean(const float* x, int rows, int dim, float* out) override {
    cuda::column_mean(x, rows, dim, out, stream_);
  }
  void hard_sigmoid(float* x, size_t n, float alpha, float beta) override {
    cuda::hard_sigmoid(x, n, alpha, beta, stream_);
  }
  void scale_columns(float* x, int rows, int dim, const float* g, float offset) override {
    cuda::scale_columns(x, rows, dim, g, offset, stream_);
  }
  void avg_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) override {
    cuda::avg_pool(src, H, W, C, kh, kw, dst, stream_);
  }
  void max_pool_2x2_same(const float* src, int H, int W, int C, float* dst) override {
    cuda::max_pool_2x2_same(src, H, W, C, dst, stream_);
  }
  void max_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) override {
    cuda::max_pool(src, H, W, C, kh, kw, dst, stream_);
  }
  void upsample_nearest(const float* src, int H, int W, int C, int s, float* dst, int dst_channels,
                        int offset) override {
    cuda::upsample_nearest(src, H, W, C, s, dst, dst_channels, offset, stream_);
  }
  void depth_to_space(const float* src, int H, int W, int C, int s, float* dst) override {
    cuda::depth_to_space(src, H, W, C, s, dst, stream_);
  }
  void sigmoid(float* x, size_t n) override { cuda::sigmoid(x, n, stream_); }
  void softmax_rows(float* x, int rows, int cols) override { cuda::softmax_rows(x, rows, cols, stream_); }

  void attention(const AttentionArgs& a) override {
    if (a.M <= 0) return;
    const int M = a.M, rh = a.M * a.Hq;
    const int img_n = std::max(0, a.img_end - a.img_begin);
    // Keep lists travel flattened and already filtered to each row's key limit, so the kernel visits exactly
    // the slots the CPU backend visits, in the same order.
    keep_off_.assign(size_t(M), -1);
    keep_n_.assign(size_t(M), 0);
    keep_.clear();
    int max_keys = 0;
    for (int r = 0; r < M; ++r) {
      const int limit = a.key_limit[r];
      const int* keep = a.img_keep ? a.img_keep[r] : nullptr;
      if (!keep || img_n == 0) {
        max_keys = std::max(max_keys, limit);
        continue;
      }
      keep_off_[size_t(r)] = int(keep_.size());
      for (int i = 0; i < a.img_keep_n[r]; ++i)
        if (keep[i] < limit) keep_.push_back(keep[i]);
      keep_n_[size_t(r)] = int(keep_.size()) - keep_off_[size_t(r)];
      const int text = std::min(a.img_begin, limit), tail = std::max(0, limit - a.img_end);
      max_keys = std::max(max_keys, text + keep_n_[size_t(r)] + tail);
    }
    const bool selection = a.img_keep && img_n > 0;
    const bool want_mass = a.image_mass != nullptr, want_scores = a.image_scores != nullptr && img_n > 0;

    size_t need = HostTables::padded(size_t(M) * sizeof(int));
    if (selection)
      need += 2 * HostTables::padded(size_t(M) * sizeof(int)) + HostTables::padded(keep_.size() * sizeof(int));
    if (want_mass) need += HostTables::padded(size_t(rh) * sizeof(float)) + HostTables::padded(size_t(M) * sizeof(float));
    if (want_scores)
      need += HostTables::padded(size_t(rh) * img_n * sizeof(float)) +
              HostTables::padded(size_t(M) * img_n * sizeof(float));
    tables_->reserve(need);

    DeviceAttention d{};
    d.q = a.q;
    d.k = a.k;
    d.v = a.v;
    d.M = M;
    d.Hq = a.Hq;
    d.Hkv = a.Hkv;
    d.d = a.d;
    d.key_limit = tables_->put(a.key_limit, size_t(M));
    d.img_begin = a.img_begin;
    d.img_end = a.img_end;
    if (selection) {
      d.keep_off = tables_->put(keep_off_.data(), keep_off_.size());
      d.keep_n = tables_->put(keep_n_.data(), keep_n_.size());
      d.keep = tables_->put(keep_.data(), keep_.size());
    }
    d.out = a.out;
    float *mass_out = nullptr, *scores_out = nullptr;
    if (want_mass) {
      d.mass = tables_->scratch<float>(size_t(rh));
      mass_out = tables_->scratch<float>(size_t(M));
    }
    if (want_scores) {
      d.scores = tables_->scratch<float>(size_t(rh) * img_n);
      scores_out = tables_->scratch<float>(size_t(M) * img_n);
      check(cudaMemsetAsync(d.scores, 0, size_t(rh) * img_n * sizeof(float), stream_), "scores clear");
    }
    cuda::attention(d, max_keys, stream_);
    if (!want_mass && !want_scores) return;

    // Fixation reads these host outputs right after the call (AttentionHook::after_attention).
    fixation_head_sums(d.mass, d.scores, M, a.Hq, img_n, mass_out, scores_out, stream_);
    if (want_mass)
      check(cudaMemcpyAsync(a.image_mass, mass_out, size_t(M) * sizeof(float), cudaMemcpyDeviceToHost, stream_),
            "image mass download");
    if (want_scores)
      check(cudaMemcpyAsync(a.image_scores, scores_out, size_t(M) * img_n * sizeof(float), cudaMemcpyDeviceToHost,
                            stream_),
            "image scores download");
    drain();
  }

 private:
  void drain() {
    check(cudaStreamSynchronize(stream_), "stream");
    tables_->reset();
  }

  void choose_gemm() {
    const char* env = std::getenv("SACCADE_CUDA_GEMM");
    const std::string want = env ? env : "tiled";
    if (want == "tiled") return;
    if (want != "cublas" && want != "cublas-tf32")
      throw EngineError("SACCADE_CUDA_GEMM must be tiled, cublas or cublas-tf32 (got '" + want + "')");
    std::string why;
    cublas_ = CublasGemm::open(stream_, want == "cublas-tf32", &why);
    if (!cublas_) throw EngineError("SACCADE_CUDA_GEMM=" + want + ": " + why);
    gemm_name_ = want + " (" + cublas_->library() + ")";
  }

  cudaStream_t stream_ = nullptr;
  std::unique_ptr<HostTables> tables_;
  std::unique_ptr<CublasGemm> cublas_;
  std::string isa_, gemm_name_ = "tiled fp32 (deterministic)";
  std::vector<int> keep_off_, keep_n_, keep_;  // flattened fixation selection of the current call
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend(std::string* why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the error so later runtime calls start clean
    int driver = 0;
    cudaDriverGetVersion(&driver);
    const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    // Without any driver the runtime also says "insufficient driver"; tell the two cases apart.
    if (driver == 0)
      *why_not = "no CUDA driver installed";
    else if (e == cudaErrorInsufficientDriver)
      *why_not = "the driver supports CUDA " + version(driver) + ", this build needs " + version(CUDART_VERSION);
    else
      *why_not = cudaGetErrorString(e);
    return nullptr;
  }
  if (count == 0) {
    *why_not = "the driver reports no device";
    return nullptr;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    *why_not = "cannot read the properties of device 0";
    return nullptr;
  }
  int pools = 0;
  if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0) != cudaSuccess || !pools) {
    *why_not = std::string(prop.name) + " has no stream-ordered allocator";
    return nullptr;
  }
  return std::make_unique<cuda::CudaBackend>(0, prop);
}

}  // namespace saccade
