#include "backend/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cpu/kernels.h"
#include "util/half.h"
#include "util/thread_pool.h"

namespace saccade {
namespace cpu {

namespace {

constexpr int64_t kMinChunkWork = 1 << 16;  // ~10 us of FMAs: below this a chunk is not worth a handoff

// Items per chunk so that each chunk has at least kMinChunkWork multiply-adds: a call smaller than that runs
// on the calling thread, where handing it out would cost more than it does.
int chunk_grain(int items, int64_t work_per_item) {
  return int(std::min<int64_t>(items, std::max<int64_t>(1, kMinChunkWork / std::max<int64_t>(1, work_per_item))));
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, bool reduced_precision)
      : pool_(threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()))),
        k_(best_kernels(reduced_precision)) {}

  std::string name() const override { return "cpu"; }
  std::string kernel_isa() const override { return k_.isa; }
  int threads() const override { return pool_.size(); }

  float* alloc(size_t n, Contents contents) override {
    // 64-byte aligned so vector loads of row starts never split cache lines more than necessary.
    size_t bytes = std::max<size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    if (contents == Contents::Zeros) std::memset(p, 0, bytes);
    return static_cast<float*>(p);
  }
  void free(float* p) override { std::free(p); }
  void upload(float* dst, const float* host, size_t n) override { std::memcpy(dst, host, n * sizeof(float)); }
  void download(float* host, const float* src, size_t n) override { std::memcpy(host, src, n * sizeof(float)); }
  void copy(float* dst, const float* src, size_t n) override { std::memmove(dst, src, n * sizeof(float)); }

  Weight upload_weight(const std::vector<float>& host, int rows, int cols, WeightUse use) override {
    const bool bf16 = std::all_of(host.begin(), host.end(), [](float v) {
      uint32_t u;
      std::memcpy(&u, &v, 4);
      return (u & 0xFFFF) == 0;
    });
    if (use == WeightUse::Lookup) {
      if (!bf16) return Backend::upload_weight(host, rows, cols, use);
      Weight w;  // rows of bf16, widened by embed()
      w.rows = rows;
      w.cols = cols;
      w.format = WeightFormat::BF16;
      w.w = Buffer(this, (host.size() + 1) / 2);
      uint16_t* dst = reinterpret_cast<uint16_t*>(w.w.data());
      for (size_t i = 0; i < host.size(); ++i) dst[i] = f32_to_bf16_bits(host[i]);
      return w;
    }
    const int P = k_.panel, panels = (rows + P - 1) / P;
    const size_t packed = size_t(panels) * P * cols;
    Weight w;
    w.rows = rows;
    w.cols = cols;
    if (use == WeightUse::Reduced && k_.gemm_q8) {
      w.format = WeightFormat::Q8Groups;
      const size_t groups = (cols + kQ8Group - 1) / kQ8Group;
      w.w = Buffer(this, q8_group_columns(w) * (kQ8Group / 4 + 2));  // the bytes, then the steps, then the offsets
      const Q8Panels q = q8_panels(w);
      pool_.parallel_for(panels, chunk_grain(panels, int64_t(P) * cols), [&](int pb, int pe) {
        const int n0 = pb * P, n1 = std::min(rows, pe * P);
        const size_t at = size_t(pb) * P * groups;
        k_.pack_q8(host.data() + size_t(n0) * cols, n1 - n0, cols, q.bytes + at * kQ8Group, q.steps + at, q.offsets + at);
      });
    } else if (use == WeightUse::Reduced && k_.gemm_bf16_pairs) {
      w.format = WeightFormat::BF16Pairs;
      const size_t pair_packed = size_t(panels) * P * 2 * ((cols + 1) / 2);
      w.w = Buffer(this, pair_packed / 2);
      pack_in_parallel(k_.pack_bf16_pairs, host.data(), rows, cols, reinterpret_cast<uint16_t*>(w.w.data()));
    } else if (std::all_of(host.begin(), host.end(), [](float v) { return f16_to_f32(f32_to_f16(v)) == v; })) {
      w.format = WeightFormat::F16;
      w.w = Buffer(this, (packed + 1) / 2);
      pack_in_parallel(k_.pack_f16, host.data(), rows, cols, reinterpret_cast<uint16_t*>(w.w.data()));
    } else if (bf16) {
      w.format = WeightFormat::BF16;
      w.w = Buffer(this, (packed + 1) / 2);
      pack_in_parallel(k_.pack_bf16, host.data(), rows, cols, reinterpret_cast<uint16_t*>(w.w.data()));
    } else {
      w.w = Buffer(this, packed);
      pack_in_parallel(k_.pack, host.data(), rows, cols, w.w.data());
    }
    return w;
  }

  // Panels are independent: ranges of them pack on their own threads (a GLM-OCR checkpoint is 0.9 G weights).
  template <class T>
  void pack_in_parallel(void (*pack)(const float*, int, int, T*), const float* w, int N, int K, T* packed) {
    const int P = k_.panel, panels = (N + P - 1) / P;
    pool_.parallel_for(panels, chunk_grain(panels, int64_t(P) * K), [&](int pb, int pe) {
      const int n0 = pb * P, n1 = std::min(N, pe * P);
      pack(w + size_t(n0) * K, n1 - n0, K, packed + size_t(pb) * P * K);
    });
  }

  // Where a Q8Groups weight's parts lie in its buffer.
  struct Q8Panels {
    int8_t* bytes;
    float* steps;
    int32_t* offsets;
  };
  // Its panels' columns times its groups: the count of steps (and of offsets) it holds.
  size_t q8_group_columns(const Weight& w) const {
    return size_t((w.rows + k_.panel - 1) / k_.panel) * k_.panel * ((w.cols + kQ8Group - 1) / kQ8Group);
  }
  Q8Panels q8_panels(const Weight& w) const {
    const size_t n = q8_group_columns(w);
    float* base = w.w.data();
    return {reinterpret_cast<int8_t*>(base), base + n * kQ8Group / 4, reinterpret_cast<int32_t*>(base + n * (kQ8Group / 4 + 1))};
  }

  void embed(const int* ids, int n, const Weight& table, float* out) override {
    if (table.format == WeightFormat::BF16) {
      const uint16_t* rows = reinterpret_cast<const uint16_t*>(table.w.data());
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < table.cols; ++c)
          out[size_t(i) * table.cols + c] = bf16_to_f32(rows[size_t(ids[i]) * table.cols + c]);
      return;
    }
    for (int i = 0; i < n; ++i)
      std::memcpy(out + size_t(i) * table.cols, table.w.data() + size_t(ids[i]) * table.cols,
                  size_t(table.cols) * sizeof(float));
  }

  void gather_rows(const float* src, int row_len, const int* idx, int n, float* dst) override {
    for (int i = 0; i < n; ++i)
      std::memcpy(dst + size_t(i) * row_len, src + size_t(idx[i]) * row_len, size_t(row_len) * sizeof(float));
  }

  void im2col(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, int oy0, int oy1,
              float* dst) override {
    const int Wo = (W + sx - 1) / sx, ph = kh / 2, pw = kw / 2;
    const int rows = oy1 - oy0;
    pool_.parallel_for(rows, chunk_grain(rows, int64_t(Wo) * kh * kw * C), [&](int rb, int re) {
      for (int r = rb; r < re; ++r) {
        const int oy = oy0 + r;
        for (int ox = 0; ox < Wo; ++ox) {
          float* row = dst + (size_t(r) * Wo + ox) * kh * kw * C;
          for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx, row += C) {
              const int y = sy * oy + ky - ph, x = sx * ox + kx - pw;
              if (y < 0 || y >= H || x < 0 || x >= W)
                std::fill(row, row + C, 0.0f);
              else
                std::memcpy(row, src + (size_t(y) * W + x) * C, size_t(C) * sizeof(float));
            }
        }
      }
    });
  }

  void conv(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, const Weight& w, const float* bias,
            bool relu, float* dst) override {
    if (w.format == WeightFormat::BF16Pairs || w.format == WeightFormat::Q8Groups) {
      Backend::conv(src, H, W, C, kh, kw, sy, sx, w, bias, relu, dst);
      return;
    }
    const ConvShape s{H, W, C, kh, kw, sy, sx, w.rows};
    const int Ho = (H + sy - 1) / sy, Wo = (W + sx - 1) / sx;
    const int panels = (w.rows + k_.panel - 1) / k_.panel, panel_blocks = (panels + k_.panel_block - 1) / k_.panel_block;
    const std::vector<float> zeros(size_t(C), 0.0f);
    const uint16_t* wh = reinterpret_cast<const uint16_t*>(w.w.data());
    // Threads take whole output rows of a panel block: a row's tiles share its windows' pixels in cache.
    const int units = Ho * panel_blocks;
    pool_.parallel_for(units, chunk_grain(units, int64_t(Wo) * w.cols * k_.panel * k_.panel_block), [&](int ub, int ue) {
      for (int u = ub; u < ue; ++u) {
        const int oy = u / panel_blocks, pb = u % panel_blocks * k_.panel_block, pe = std::min(panels, pb + k_.panel_block);
        switch (w.format) {
          case WeightFormat::F16: k_.conv_f16(s, src, zeros.data(), wh, bias, relu, dst, oy, oy + 1, pb, pe); break;
          case WeightFormat::BF16: k_.conv_bf16(s, src, zeros.data(), wh, bias, relu, dst, oy, oy + 1, pb, pe); break;
          default: k_.conv(s, src, zeros.data(), w.w.data(), bias, relu, dst, oy, oy + 1, pb, pe); break;
        }
      }
    });
  }

  void linear(const float* x, int M, const Weight& w, const float* bias, float* y) override {
    const int N = w.rows, K = w.cols;
    const float* wf = w.w.data();
    const uint16_t* wh = reinterpret_cast<const uint16_t*>(wf);
    if (w.format == WeightFormat::Q8Groups) {
      // x quantised first: one pass over x, against N multiply-adds per element in the GEMM.
      const int groups = (K + kQ8Group - 1) / kQ8Group;
      const size_t row = size_t(groups) * kQ8Group;
      const std::unique_ptr<uint8_t[]> xq(new uint8_t[size_t(M) * row]);
      const std::unique_ptr<float[]> xs(new float[size_t(M) * groups]);
      pool_.parallel_for(M, chunk_grain(M, 8 * int64_t(K)), [&](int mb, int me) {
        k_.quantize_q8(x + size_t(mb) * K, me - mb, K, xq.get() + mb * row, xs.get() + size_t(mb) * groups);
      });
      const Q8Panels q = q8_panels(w);
      for_each_tile(M, N, K, kQ8RowBlock, k_.panel_block, [&](int m0, int rows, int pb, int pe) {
        k_.gemm_q8(xq.get() + m0 * row, xs.get() + size_t(m0) * groups, rows, groups, q.bytes, q.steps, q.offsets, bias,
                   y + size_t(m0) * N, N, pb, pe);
      });
      return;
    }
    if (w.format == WeightFormat::BF16Pairs) {
      // x rounded to bf16 pairs first: one pass over x, against N multiply-adds per element in the GEMM.
      const int pairs = (K + 1) / 2;
      const std::unique_ptr<uint16_t[]> xb(new uint16_t[size_t(M) * 2 * pairs]);
      pool_.parallel_for(M, chunk_grain(M, 8 * int64_t(K)), [&](int mb, int me) {
        k_.round_to_bf16_pairs(x + size_t(mb) * K, me - mb, K, xb.get() + size_t(mb) * 2 * pairs);
      });
      for_each_tile(M, N, pairs, k_.pairs_row_block, k_.pairs_panel_block, [&](int m0, int rows, int pb, int pe) {
        k_.gemm_bf16_pairs(xb.get() + size_t(m0) * 2 * pairs, rows, pairs, wh, bias, y + size_t(m0) * N, N, pb, pe);
      });
      return;
    }
    for_each_tile(M, N, K, k_.row_block, k_.panel_block, [&](int m0, int rows, int pb, int pe) {
      const float* xr = x + size_t(m0) * K;
      float* yr = y + size_t(m0) * N;
      switch (w.format) {
        case WeightFormat::F16: k_.gemm_f16(xr, rows, K, wh, bias, yr, N, pb, pe); break;
        case WeightFormat::BF16: k_.gemm_bf16(xr, rows, K, wh, bias, yr, N, pb, pe); break;
        case WeightFormat::F32: k_.gemm(xr, rows, K, wf, bias, yr, N, pb, pe); break;
        case WeightFormat::BF16Pairs: case WeightFormat::Q8Groups: break;  // above
      }
    });
  }

  // Runs tile(m0, rows, p_begin, p_end) over an M x N GEMM whose tiles (row_block rows by panel_block panels)
  // cost `steps` vector multiply-adds a row and panel. Threads take whole kernel tiles, so no chunk boundary
  // splits a tile into narrower, slower ones; a single-token forward's small layers stay on this thread.
  template <class Tile>
  void for_each_tile(int M, int N, int steps, int row_block, int panel_block, Tile&& tile) {
    const int panels = (N + k_.panel - 1) / k_.panel;
    const int row_blocks = (M + row_block - 1) / row_block;
    const int panel_blocks = (panels + panel_block - 1) / panel_block;
    const int64_t tile_work = int64_t(std::min(M, row_block)) * steps * k_.panel * std::min(panels, panel_block);
    const int tiles = row_blocks * panel_blocks;
    pool_.parallel_for(tiles, chunk_grain(tiles, tile_work), [&](int ub, int ue) {
      for (int u = ub; u < ue; ++u) {
        const int m0 = u / panel_blocks * row_block, rows = std::min(M - m0, row_block);
        const int pb = u % panel_blocks * panel_block;
        tile(m0, rows, pb, std::min(panels, pb + panel_block));
      }
    });
  }

  void rms_norm(const float* x, int rows, int dim, const float* w, float eps, float* y) override {
    for (int r = 0; r < rows; ++r) {
      const float* xr = x + size_t(r) * dim;
      float* yr = y + size_t(r) * dim;
      float ss = 0;
      for (int i = 0; i < dim; ++i) ss += xr[i] * xr[i];
      const float inv = 1.0f / std::sqrt(ss / float(dim) + eps);
      for (int i = 0; i < dim; ++i) yr[i] = xr[i] * inv * w[i];
    }
  }

  void center_rows(float* x, int rows, int dim) override {
    if (rows <= 0) return;
    std::vector<float> mean(size_t(dim), 0.0f);
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < dim; ++i) mean[size_t(i)] += x[size_t(r) * dim + i];
    for (float& m : mean) m /= float(rows);
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < dim; ++i) x[size_t(r) * dim + i] -= mean[size_t(i)];
  }

  void rope(float* x, int rows, int heads, int head_dim, const float* cos_sin) override {
    const int half = head_dim / 2;
    for (int r = 0; r < rows; ++r) {
      const float* cs = cos_sin + size_t(r) * half * 2;
      for (int h = 0; h < heads; ++h) {
        float* v = x + (size_t(r) * heads + h) * head_dim;
        for (int j = 0; j < half; ++j) {
          const float c = cs[2 * j], s = cs[2 * j + 1], a = v[j], b = v[j + half];
          v[j] = a * c - b * s;
          v[j + half] = b * c + a * s;
        }
      }
    }
  }

  void silu_mul(const float* gate, const float* up, float* out, size_t n) override { k_.silu_mul(gate, up, out, n); }

  void gelu(float* x, size_t n) override {
    for_each_span(n, [&](size_t begin, size_t end) { k_.gelu(x + begin, end - begin); });
  }

  void add(float* x, const float* y, size_t n) override {
    for (size_t i = 0; i < n; ++i) x[i] += y[i];
  }

  void depthwise_conv(const float* src, int H, int W, int C, int k, int sy, int sx, const float* w,
                      const float* bias, float* dst) override {
    const int Ho = (H + sy - 1) / sy, Wo = (W + sx - 1) / sx;
    // Tap-major weights, so that each tap's multiply covers a vector of channels.
    std::vector<float> taps(size_t(C) * k * k);
    for (int c = 0; c < C; ++c)
      for (int t = 0; t < k * k; ++t) taps[size_t(t) * C + c] = w[size_t(c) * k * k + t];
    pool_.parallel_for(Ho, chunk_grain(Ho, int64_t(Wo) * C * k * k), [&](int yb, int ye) {
      k_.depthwise_rows(src, H, W, C, k, sy, sx, taps.data(), bias, dst, yb, ye);
    });
  }

  void line_windows(const float* src, int T, int C, int k, float* dst) override {
    const int pad = k / 2;
    for (int t = 0; t < T; ++t)
      for (int kx = 0; kx < k; ++kx) {
        float* out = dst + (size_t(t) * k + kx) * C;
        const int x = t + kx - pad;
        if (x < 0 || x >= T) std::fill(out, out + C, 0.0f);
        else std::memcpy(out, src + size_t(x) * C, size_t(C) * sizeof(float));
      }
  }

  void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2) override {
    for_each_span(n, [&](size_t begin, size_t end) { k_.affine_hardswish(x + begin, end - begin, s1, b1, s2, b2); });
  }

  void silu(float* x, size_t n) override {
    for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
  }

  void relu(float* x, size_t n) override {
    for_each_span(n, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) x[i] = std::max(x[i], 0.0f);
    });
  }

  void layer_norm(const float* x, int rows, int dim, const float* w, const float* b, float eps, float* y) override {
    for (int r = 0; r < rows; ++r) {
      const float* xr = x + size_t(r) * dim;
      float* yr = y + size_t(r) * dim;
      float mean = 0, var = 0;
      for (int i = 0; i < dim; ++i) mean += xr[i];
      mean /= float(dim);
      for (int i = 0; i < dim; ++i) var += (xr[i] - mean) * (xr[i] - mean);
      const float inv = 1.0f / std::sqrt(var / float(dim) + eps);
      for (int i = 0; i < dim; ++i) yr[i] = (xr[i] - mean) * inv * w[i] + b[i];
    }
  }

  void column_mean(const float* x, int rows, int dim, float* out) override {
    std::fill(out, out + dim, 0.0f);
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < dim; ++i) out[i] += x[size_t(r) * dim + i];
    for (int i = 0; i < dim; ++i) out[i] /= float(rows);
  }

  void hard_sigmoid(float* x, size_t n, float alpha, float beta) override {
    for (size_t i = 0; i < n; ++i) x[i] = std::min(std::max(alpha * x[i] + beta, 0.0f), 1.0f);
  }

  void scale_columns(float* x, int rows, int dim, const float* g, float offset) override {
    std::vector<float> f(static_cast<size_t>(dim));
    for (int i = 0; i < dim; ++i) f[size_t(i)] = g[i] + offset;
    pool_.parallel_for(rows, chunk_grain(rows, dim), [&](int rb, int re) {
      for (int r = rb; r < re; ++r)
        for (int i = 0; i < dim; ++i) x[size_t(r) * dim + i] *= f[size_t(i)];
    });
  }

  void avg_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) override {
    const int Ho = H / kh, Wo = W / kw;
    const float inv = 1.0f / float(kh * kw);
    for (int oy = 0; oy < Ho; ++oy)
      for (int ox = 0; ox < Wo; ++ox) {
        float* out = dst + (size_t(oy) * Wo + ox) * C;
        std::fill(out, out + C, 0.0f);
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx) {
            const float* in = src + (size_t(oy * kh + ky) * W + ox * kw + kx) * C;
            for (int c = 0; c < C; ++c) out[c] += in[c];
          }
        for (int c = 0; c < C; ++c) out[c] *= inv;
      }
  }

  void max_pool_2x2_same(const float* src, int H, int W, int C, float* dst) override {
    pool_.parallel_for(H, chunk_grain(H, int64_t(W) * C * 4), [&](int yb, int ye) {
      for (int y = yb; y < ye; ++y)
        for (int x = 0; x < W; ++x) {
          float* out = dst + (size_t(y) * W + x) * C;
          std::memcpy(out, src + (size_t(y) * W + x) * C, size_t(C) * sizeof(float));
          for (int dy = 0; dy < 2 && y + dy < H; ++dy)
            for (int dx = 0; dx < 2 && x + dx < W; ++dx) {
              const float* in = src + (size_t(y + dy) * W + x + dx) * C;
              for (int c = 0; c < C; ++c) out[c] = std::max(out[c], in[c]);
            }
        }
    });
  }

  void max_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst) override {
    const int Ho = H / kh, Wo = W / kw;
    for (int oy = 0; oy < Ho; ++oy)
      for (int ox = 0; ox < Wo; ++ox) {
        float* out = dst + (size_t(oy) * Wo + ox) * C;
        std::memcpy(out, src + (size_t(oy * kh) * W + ox * kw) * C, size_t(C) * sizeof(float));
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx) {
            const float* in = src + (size_t(oy * kh + ky) * W + ox * kw + kx) * C;
            for (int c = 0; c < C; ++c) out[c] = std::max(out[c], in[c]);
          }
      }
  }

  void upsample_nearest(const float* src, int H, int W, int C, int s, float* dst, int dst_channels,
                        int offset) override {
    const int Ho = H * s, Wo = W * s;
    pool_.parallel_for(Ho, chunk_grain(Ho, int64_t(Wo) * C), [&](int yb, int ye) {
      for (int y = yb; y < ye; ++y)
        for (int x = 0; x < Wo; ++x)
          std::memcpy(dst + (size_t(y) * Wo + x) * dst_channels + offset, src + (size_t(y / s) * W + x / s) * C,
                      size_t(C) * sizeof(float));
    });
  }

  void depth_to_space(const float* src, int H, int W, int C, int s, float* dst) override {
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int dy = 0; dy < s; ++dy)
          for (int dx = 0; dx < s; ++dx)
            std::memcpy(dst + (size_t(y * s + dy) * W * s + x * s + dx) * C,
                        src + ((size_t(y) * W + x) * s * s + dy * s + dx) * C, size_t(C) * sizeof(float));
  }

  void sigmoid(float* x, size_t n) override {
    for (size_t i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + std::exp(-x[i]));
  }

  void softmax_rows(float* x, int rows, int cols) override {
    const size_t padded = (size_t(cols) + size_t(k_.panel) - 1) / size_t(k_.panel) * size_t(k_.panel);
    pool_.parallel_for(rows, chunk_grain(rows, int64_t(cols) * 16), [&](int rb, int re) {
      std::vector<float> row(padded);
      for (int r = rb; r < re; ++r) {
        float* xr = x + size_t(r) * cols;
        std::copy(xr, xr + cols, row.data());
        k_.softmax(row.data(), cols);
        std::copy(row.data(), row.data() + cols, xr);
      }
    });
  }

  void attention(const AttentionArgs& a) override {
    int max_keys = 0;
    for (int i = 0; i < a.M; ++i) max_keys = std::max(max_keys, a.key_limit[i]);
    const int img_n = std::max(0, a.img_end - a.img_begin);
    const int G = a.Hq / a.Hkv;
    // Rows go to the kernel a block at a time (it reads each tile of keys once for the block), in blocks small
    // enough to leave every thread a few (row block, KV head) jobs.
    int block = kAttendRows;
    while (block > 1 && (a.M + block - 1) / block * a.Hkv < 4 * pool_.size()) block /= 2;
    const int blocks = (a.M + block - 1) / block, jobs = blocks * a.Hkv;
    // (row block, KV head) jobs run in parallel; their fixation outputs land in per-head slots and are summed
    // over heads afterwards in head order, so the sums do not depend on the thread count.
    mass_.assign(a.image_mass ? size_t(a.M) * a.Hq : 0, 0.0f);
    scores_.assign(a.image_scores ? size_t(a.M) * a.Hq * img_n : 0, 0.0f);
    // A single-token step's attention over a few hundred keys takes microseconds: it stays on this thread.
    const int grain = chunk_grain(jobs, int64_t(block) * G * max_keys * a.d * 2);
    pool_.parallel_for(jobs, grain, [&](int jb, int je) {
      // Padded so the kernel's whole-vector passes never run off the end.
      const size_t pstride = size_t(max_keys) + 32;
      std::vector<float> probs(size_t(block) * G * pstride);
      std::vector<int> slots(size_t(block) * pstride);
      for (int j = jb; j < je; ++j) {
        const int row0 = j / a.Hkv * block, g = j % a.Hkv;
        k_.attend_rows(a, row0, std::min(block, a.M - row0), g, probs.data(), slots.data(),
                       a.image_mass ? mass_.data() : nullptr, a.image_scores ? scores_.data() : nullptr);
      }
    });
    for (int r = 0; r < a.M; ++r) {
      if (a.image_mass) {
        float m = 0;
        for (int h = 0; h < a.Hq; ++h) m += mass_[size_t(r) * a.Hq + h];
        a.image_mass[r] = m / float(a.Hq);
      }
      if (a.image_scores) {
        float* dst = a.image_scores + size_t(r) * img_n;
        std::fill(dst, dst + img_n, 0.0f);
        for (int h = 0; h < a.Hq; ++h) {
          const float* src = &scores_[(size_t(r) * a.Hq + h) * img_n];
          for (int i = 0; i < img_n; ++i) dst[i] += src[i];
        }
      }
    }
  }

 private:
  // An elementwise op over [0, n) in spans of 16 Ki elements shared among the threads: f(begin, end).
  template <class F>
  void for_each_span(size_t n, F&& f) {
    constexpr int kSpan = 1 << 14;
    const int spans = int((n + kSpan - 1) / kSpan);
    pool_.parallel_for(spans, chunk_grain(spans, kSpan), [&](int sb, int se) {
      f(size_t(sb) * kSpan, std::min(n, size_t(se) * kSpan));
    });
  }

  ThreadPool pool_;
  const Kernels& k_;
  std::vector<float> mass_, scores_;  // per-(row, head) fixation outputs of the current call
};

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(int threads, bool reduced_precision) {
  return std::make_unique<cpu::CpuBackend>(threads, reduced_precision);
}

}  // namespace saccade
