#pragma once
// Launchers of the CUDA kernels (defined in the .cu files beside this one). All pointers are device pointers;
// every launcher enqueues on `stream` and returns without waiting.
//
// Exactness (backend.h): every output element is reduced in an order that depends only on the reduction
// length, never on the number of rows in the call or on which tile computes it.
#include <cuda_runtime.h>

#include <cstddef>

namespace saccade::cuda {

// y[M, N] = x[M, K] w[N, K]^T (+ bias[N]): one fmaf chain over k = 0..K-1 per element.
void gemm(const float* x, int M, int K, const float* w, int N, const float* bias, float* y, cudaStream_t stream);
// y[M, N] += bias[N]
void add_bias_rows(float* y, int M, int N, const float* bias, cudaStream_t stream);

// dst[i, :] = src[idx[i], :] for rows of row_len floats.
void gather_rows(const float* src, int row_len, const int* idx, int n, float* dst, cudaStream_t stream);
// A convolution's windows for output rows [oy0, oy1) (Backend::im2col).
void im2col(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, int oy0, int oy1, float* dst,
            cudaStream_t stream);
void rms_norm(const float* x, int rows, int dim, const float* w, float eps, float* y, cudaStream_t stream);
void center_rows(float* x, int rows, int dim, cudaStream_t stream);
// cos_sin: [rows, head_dim / 2, 2]
void rope(float* x, int rows, int heads, int head_dim, const float* cos_sin, cudaStream_t stream);
void silu_mul(const float* gate, const float* up, float* out, size_t n, cudaStream_t stream);
void gelu(float* x, size_t n, cudaStream_t stream);
void add(float* x, const float* y, size_t n, cudaStream_t stream);

// The line encoder's ops (format 4): the same contracts as Backend's functions of the same names.
void depthwise_conv(const float* src, int H, int W, int C, int k, int sy, int sx, const float* w, const float* bias,
                    float* dst, cudaStream_t stream);
void line_windows(const float* src, int T, int C, int k, float* dst, cudaStream_t stream);
void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2, cudaStream_t stream);
void silu(float* x, size_t n, cudaStream_t stream);
void relu(float* x, size_t n, cudaStream_t stream);
void layer_norm(const float* x, int rows, int dim, const float* w, const float* b, float eps, float* y,
                cudaStream_t stream);
void column_mean(const float* x, int rows, int dim, float* out, cudaStream_t stream);
void hard_sigmoid(float* x, size_t n, float alpha, float beta, cudaStream_t stream);
void scale_columns(float* x, int rows, int dim, const float* g, float offset, cudaStream_t stream);
void avg_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst, cudaStream_t stream);
void softmax_rows(float* x, int rows, int cols, cudaStream_t stream);

// The page-analysis networks' ops (convnet_ops.cu): the same contracts as Backend's functions of the same names.
void max_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst, cudaStream_t stream);
void max_pool_2x2_same(const float* src, int H, int W, int C, float* dst, cudaStream_t stream);
void upsample_nearest(const float* src, int H, int W, int C, int s, float* dst, int dst_channels, int offset,
                      cudaStream_t stream);
void depth_to_space(const float* src, int H, int W, int C, int s, float* dst, cudaStream_t stream);
void sigmoid(float* x, size_t n, cudaStream_t stream);

// Attention over a KV cache; the device form of AttentionArgs with its host tables already uploaded.
struct DeviceAttention {
  const float* q;  // [M, Hq, d]
  const float* k;  // [cap, Hkv, d]
  const float* v;
  int M, Hq, Hkv, d;
  const int* key_limit;  // [M]
  int img_begin, img_end;
  // Per row: offset into keep of its visible image slots (already filtered to < key_limit, in the caller's
  // order), or -1 when every image slot is visible; keep_n[row] entries.
  const int* keep_off;  // [M] or nullptr (no selection at all)
  const int* keep_n;    // [M]
  const int* keep;
  float* out;           // [M, Hq * d]
  float* mass;          // [M * Hq] per (row, head) image mass, or nullptr
  float* scores;        // [M * Hq, img_end - img_begin] per (row, head) image probs, pre-zeroed, or nullptr
};

// max_keys: the largest visible key count of any row (sizes shared memory).
void attention(const DeviceAttention& a, int max_keys, cudaStream_t stream);

// mass_out[r] = mean over heads of mass[r, h]; scores_out[r, :] = sum over heads of scores[r, h, :], both in
// head order (the CPU backend's order).
void fixation_head_sums(const float* mass, const float* scores, int M, int Hq, int img_n, float* mass_out,
                        float* scores_out, cudaStream_t stream);

}  // namespace saccade::cuda
