#pragma once
// The narrow op table every compute backend implements (ggml-style). Model code and decoding strategies see
// only this interface: buffers are opaque device pointers that they pass back to ops, never dereference, and
// read through download(). Small per-call tables (positions, key limits, selections) travel as host arrays.
//
// Exactness rule for every implementation: each output element is reduced in a fixed order that does not
// depend on the number of rows in the call, so a row computed in a forward of width 33 is bit-identical to
// the same row computed alone. Greedy self-speculative decoding is byte-identical to AR because of it.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace saccade {

class Backend;

// Device memory of n floats, freed through its backend.
// What a new buffer holds: zeros, or nothing defined, for an output the next op writes in full (a line
// encoder's activations: zeroing them was a few per cent of reading a page).
enum class Contents { Zeros, Undefined };

class Buffer {
 public:
  Buffer() = default;
  Buffer(Backend* b, size_t n, Contents contents = Contents::Zeros);
  ~Buffer();
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  float* data() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  Backend* backend_ = nullptr;
  float* ptr_ = nullptr;
  size_t n_ = 0;
};

// What a weight is for. Linear weights may be kept in a backend-private layout (the CPU packs them into
// panels for its GEMM); Lookup tables (embeddings) keep torch's row layout, since embed() reads whole rows.
// Reduced is a Linear one that the backend may run on reduced inputs and weights with exact or fp32 sums
// where that is measured faster (the line encoder's pointwise convolutions): bf16 pairs (docs/decisions/0032)
// or bytes in groups of channels (docs/decisions/0049); elsewhere it is a Linear weight.
enum class WeightUse { Linear, Lookup, Reduced };

// How a backend stores a weight. The CPU keeps a Linear one as fp16 or bf16 when every value is exactly such
// a number (half the bytes for a single-token forward to stream, the same arithmetic), else as fp32, a
// Lookup table whose values are all bf16 numbers as bf16 rows, and a Reduced one as bf16 pairs
// (Kernels::gemm_bf16_pairs) or grouped bytes (Kernels::gemm_q8) where the chosen kernels have them.
enum class WeightFormat { F32, F16, BF16, BF16Pairs, Q8Groups };

// A weight [rows=out, cols=in] (torch layout on upload), resident on the backend.
struct Weight {
  Buffer w;
  int rows = 0, cols = 0;
  WeightFormat format = WeightFormat::F32;
};

struct AttentionArgs {
  const float* q;         // [M, Hq, d]
  const float* k;         // [cap, Hkv, d]: keys by absolute slot
  const float* v;         // [cap, Hkv, d]
  int M, Hq, Hkv, d;
  const int* key_limit;   // host [M]: row i attends to slots [0, key_limit[i])
  // Gathered sparse attention: slots in [img_begin, img_end) are visible to row i only if listed in
  // img_keep[i] (ascending, img_keep_n[i] entries). img_keep == nullptr or img_keep[i] == nullptr: all.
  int img_begin = 0, img_end = 0;
  const int* const* img_keep = nullptr;
  const int* img_keep_n = nullptr;
  float* out;             // [M, Hq * d]
  // Optional host outputs for visual fixation (full attention rows only):
  float* image_mass = nullptr;    // [M]: attention mass on image slots, mean over heads
  float* image_scores = nullptr;  // [M, img_end - img_begin]: attention probs on image slots, summed over heads
};

// The fields every attention call sets; the optional ones (image range, kept slots, fixation outputs) stay off.
inline AttentionArgs attention_args(const float* q, const float* k, const float* v, int M, int Hq, int Hkv, int d,
                                    const int* key_limit, float* out) {
  AttentionArgs a{};
  a.q = q;
  a.k = k;
  a.v = v;
  a.M = M;
  a.Hq = Hq;
  a.Hkv = Hkv;
  a.d = d;
  a.key_limit = key_limit;
  a.out = out;
  return a;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string kernel_isa() const = 0;
  virtual int threads() const = 0;

  virtual float* alloc(size_t n, Contents contents) = 0;
  virtual void free(float* p) = 0;
  virtual void upload(float* dst, const float* host, size_t n) = 0;
  virtual void download(float* host, const float* src, size_t n) = 0;
  virtual void copy(float* dst, const float* src, size_t n) = 0;

  virtual Weight upload_weight(const std::vector<float>& host, int rows, int cols, WeightUse use);

  // out[i] = table[ids[i]] (rows of length dim)
  virtual void embed(const int* ids, int n, const Weight& table, float* out) = 0;
  // dst[i] = src[idx[i]] (rows of length row_len)
  virtual void gather_rows(const float* src, int row_len, const int* idx, int n, float* dst) = 0;
  // A k_h x k_w convolution's input rows, stride (sy, sx), zero padding (kh / 2, kw / 2), for output rows
  // [oy0, oy1) of the output grid (Ho = ceil(H / sy), Wo = ceil(W / sx)): src [H, W, C] -> dst [(oy1 - oy0) * Wo,
  // kh * kw * C], each row its window in (ky, kx, c) order. A convolution is then linear() with the weight in the
  // same order; a caller bounds its memory by taking the output rows a band at a time.
  virtual void im2col(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, int oy0, int oy1,
                      float* dst) = 0;
  // A kh x kw convolution: im2col's windows (stride (sy, sx), zero padding (kh / 2, kw / 2)) through linear() with
  // w [N, kh * kw * C] in their (ky, kx, c) order, plus bias, then max(x, 0) where relu: src [H, W, C] -> dst
  // [ceil(H / sy), ceil(W / sx), N]. By default the windows of a band of output rows at a time, then linear();
  // a backend may read the windows in place instead, with the same arithmetic.
  virtual void conv(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, const Weight& w,
                    const float* bias, bool relu, float* dst);
  // y[M, N] = x[M, K] W^T (+ bias[N])
  virtual void linear(const float* x, int M, const Weight& w, const float* bias, float* y) = 0;
  // RMSNorm over rows of length dim: y = x / sqrt(mean(x^2) + eps) * w
  virtual void rms_norm(const float* x, int rows, int dim, const float* w, float eps, float* y) = 0;
  // x[r, :] -= mean over the rows of x[:, :], in place; each column summed in row order.
  virtual void center_rows(float* x, int rows, int dim) = 0;
  // Rotate-half RoPE in place on x [rows, heads, head_dim]; cos_sin host [rows, head_dim/2, 2].
  virtual void rope(float* x, int rows, int heads, int head_dim, const float* cos_sin) = 0;
  virtual void silu_mul(const float* gate, const float* up, float* out, size_t n) = 0;
  virtual void gelu(float* x, size_t n) = 0;
  virtual void add(float* x, const float* y, size_t n) = 0;  // x += y
  virtual void attention(const AttentionArgs& a) = 0;

  // The line encoder's ops (format 4), over row-major [H, W, C] images or [rows, dim] matrices.
  // Depthwise k x k convolution, stride (sy, sx), zero padding k / 2: w [C, k, k], bias [C];
  // dst [ceil(H / sy), ceil(W / sx), C].
  virtual void depthwise_conv(const float* src, int H, int W, int C, int k, int sy, int sx, const float* w,
                              const float* bias, float* dst) = 0;
  // Windows of k rows along a line, zero padding k / 2: src [T, C] -> dst [T, k * C] in (kx, c) order, so that a
  // 1 x k convolution is then linear().
  virtual void line_windows(const float* src, int T, int C, int k, float* dst) = 0;
  // x = s2 * hardswish(s1 * x + b1) + b2 in place (PaddleOCR's learnable affines around hardswish).
  virtual void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2) = 0;
  virtual void silu(float* x, size_t n) = 0;
  virtual void relu(float* x, size_t n) = 0;
  // LayerNorm over rows of length dim: y = (x - mean) / sqrt(var + eps) * w + b
  virtual void layer_norm(const float* x, int rows, int dim, const float* w, const float* b, float eps, float* y) = 0;
  // out[c] = mean over rows of x[:, c], each column summed in row order.
  virtual void column_mean(const float* x, int rows, int dim, float* out) = 0;
  // x = min(max(alpha * x + beta, 0), 1) in place.
  virtual void hard_sigmoid(float* x, size_t n, float alpha, float beta) = 0;
  // x[r, c] *= g[c] + offset (a squeeze-excite gate; offset 1 adds the gated map to its input).
  virtual void scale_columns(float* x, int rows, int dim, const float* g, float offset) = 0;
  // Maximum over the 2 x 2 window at each position, stride 1, the bottom row and right column taking only what
  // lies inside (ONNX's SAME_UPPER; PP-OCRv6's stem): src [H, W, C] -> dst [H, W, C].
  virtual void max_pool_2x2_same(const float* src, int H, int W, int C, float* dst) = 0;
  // Mean over kh x kw windows, stride = window, no padding: src [H, W, C] -> dst [H / kh, W / kw, C].
  virtual void avg_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) = 0;

  // The page-analysis networks' ops (native/src/page/convnet.h), over row-major [H, W, C] maps.
  // Maximum over kh x kw windows, stride = window, no padding: src [H, W, C] -> dst [H / kh, W / kw, C].
  virtual void max_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) = 0;
  // Nearest upsampling by a whole factor s into channels [offset, offset + C) of dst [H * s, W * s, dst_channels]:
  // dst[y, x, offset + c] = src[y / s, x / s, c]. With s = 1 it places a map in a concatenation of channels.
  virtual void upsample_nearest(const float* src, int H, int W, int C, int s, float* dst, int dst_channels,
                                int offset) = 0;
  // src [H, W, s * s * C] with its channels in (dy, dx, c) order -> dst [H * s, W * s, C] (a 2 x 2, stride 2
  // transposed convolution is linear() to 4 * C channels, then this with s = 2).
  virtual void depth_to_space(const float* src, int H, int W, int C, int s, float* dst) = 0;
  virtual void sigmoid(float* x, size_t n) = 0;
  // Each of `rows` rows of `cols` replaced by its softmax (the line encoder's CTC distribution per column).
  virtual void softmax_rows(float* x, int rows, int cols) = 0;
};

struct BackendOptions {
  // "auto" (default): CUDA when it is compiled in and a device answers, else the CPU; or a name from
  // compiled_backends().
  std::string name = "auto";
  int threads = 0;           // 0: hardware concurrency
  // Reduced weights (WeightUse::Reduced) in bf16 pairs or bytes where the CPU's probe finds them faster; false:
  // fp32 throughout.
  bool reduced_precision = true;
};

std::vector<std::string> compiled_backends();
std::unique_ptr<Backend> create_backend(const BackendOptions& opts);

}  // namespace saccade
