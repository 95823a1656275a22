// Row and element kernels. Compiled with --fmad=false, so each expression rounds like the CPU backend's
// (built with -ffp-contract=off); only expf/erff may differ from glibc by an ulp.
#include "backend/cuda/check.h"
#include "backend/cuda/kernels.h"

namespace saccade::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

__global__ void gather_rows_kernel(const float* __restrict__ src, int row_len, const int* __restrict__ idx, int n,
                                   float* __restrict__ dst) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(n) * row_len) return;
  const size_t r = i / row_len, c = i % row_len;
  dst[i] = src[size_t(idx[r]) * row_len + c];
}

// One thread per output element; a copy, so nothing to round.
__global__ void im2col_kernel(const float* __restrict__ src, int H, int W, int C, int kh, int kw, int sy, int sx,
                              int oy0, int rows, float* __restrict__ dst) {
  const int Wo = (W + sx - 1) / sx, row_len = kh * kw * C;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(rows) * Wo * row_len) return;
  const size_t o = i / row_len;
  const int j = int(i % row_len), tap = j / C, c = j % C;
  const int y = sy * (oy0 + int(o / Wo)) + tap / kw - kh / 2, x = sx * int(o % Wo) + tap % kw - kw / 2;
  dst[i] = (y < 0 || y >= H || x < 0 || x >= W) ? 0.0f : src[(size_t(y) * W + x) * C + c];
}

// One warp per row: lane l sums x[l], x[l + 32], ... in order, then a fixed butterfly over the lanes. The order
// depends only on dim, so a row's result is the same in any call.
__global__ void rms_norm_kernel(const float* x, int rows, int dim, const float* __restrict__ w, float eps,
                                float* y) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* xr = x + size_t(row) * dim;
  float ss = 0.0f;
  for (int i = lane; i < dim; i += 32) ss += xr[i] * xr[i];
  for (int o = 16; o > 0; o /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float inv = 1.0f / sqrtf(ss / float(dim) + eps);
  // x and y may alias (in-place q/k norms): every lane reads its elements before writing them.
  float* yr = y + size_t(row) * dim;
  for (int i = lane; i < dim; i += 32) yr[i] = xr[i] * inv * w[i];
}

// One thread per column, summing its rows in order: the same sum as the CPU backend's.
__global__ void center_rows_kernel(float* x, int rows, int dim) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= dim) return;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += x[size_t(r) * dim + col];
  const float mean = sum / float(rows);
  for (int r = 0; r < rows; ++r) x[size_t(r) * dim + col] -= mean;
}

__global__ void rope_kernel(float* x, int rows, int heads, int head_dim, const float* __restrict__ cos_sin) {
  const int half = head_dim / 2;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(rows) * heads * half) return;
  const int j = int(i % half);
  const size_t rh = i / half, r = rh / heads;
  float* v = x + rh * head_dim;
  const float c = cos_sin[(r * half + j) * 2], s = cos_sin[(r * half + j) * 2 + 1], a = v[j], b = v[j + half];
  v[j] = a * c - b * s;
  v[j + half] = b * c + a * s;
}

__global__ void silu_mul_kernel(const float* gate, const float* up, float* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float g = gate[i];
  out[i] = g / (1.0f + expf(-g)) * up[i];
}

__global__ void gelu_kernel(float* x, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

__global__ void add_kernel(float* x, const float* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

}  // namespace

void gather_rows(const float* src, int row_len, const int* idx, int n, float* dst, cudaStream_t s) {
  const size_t total = size_t(n) * row_len;
  if (total == 0) return;
  gather_rows_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, row_len, idx, n, dst);
  check(cudaGetLastError(), "gather_rows launch");
}

void im2col(const float* src, int H, int W, int C, int kh, int kw, int sy, int sx, int oy0, int oy1, float* dst,
            cudaStream_t s) {
  const size_t total = size_t(oy1 - oy0) * ((W + sx - 1) / sx) * kh * kw * C;
  if (total == 0) return;
  im2col_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, kh, kw, sy, sx, oy0, oy1 - oy0, dst);
  check(cudaGetLastError(), "im2col launch");
}

void rms_norm(const float* x, int rows, int dim, const float* w, float eps, float* y, cudaStream_t s) {
  if (rows <= 0) return;
  constexpr int kRowsPerBlock = kThreads / 32;
  rms_norm_kernel<<<unsigned((rows + kRowsPerBlock - 1) / kRowsPerBlock), kThreads, 0, s>>>(x, rows, dim, w, eps, y);
  check(cudaGetLastError(), "rms_norm launch");
}

void center_rows(float* x, int rows, int dim, cudaStream_t s) {
  if (rows <= 0 || dim <= 0) return;
  center_rows_kernel<<<blocks_for(size_t(dim)), kThreads, 0, s>>>(x, rows, dim);
  check(cudaGetLastError(), "center_rows launch");
}

void rope(float* x, int rows, int heads, int head_dim, const float* cos_sin, cudaStream_t s) {
  const size_t total = size_t(rows) * heads * (head_dim / 2);
  if (total == 0) return;
  rope_kernel<<<blocks_for(total), kThreads, 0, s>>>(x, rows, heads, head_dim, cos_sin);
  check(cudaGetLastError(), "rope launch");
}

void silu_mul(const float* gate, const float* up, float* out, size_t n, cudaStream_t s) {
  if (n == 0) return;
  silu_mul_kernel<<<blocks_for(n), kThreads, 0, s>>>(gate, up, out, n);
  check(cudaGetLastError(), "silu_mul launch");
}

void gelu(float* x, size_t n, cudaStream_t s) {
  if (n == 0) return;
  gelu_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n);
  check(cudaGetLastError(), "gelu launch");
}

void add(float* x, const float* y, size_t n, cudaStream_t s) {
  if (n == 0) return;
  add_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, y, n);
  check(cudaGetLastError(), "add launch");
}

}  // namespace saccade::cuda
