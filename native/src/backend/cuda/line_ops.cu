// The line encoder's kernels (format 4). One thread per output element, or per row or column where the op
// reduces, summing in the CPU backend's order; the encoder runs once per line, so simplicity wins here.
#include <cmath>

#include "backend/cuda/check.h"
#include "backend/cuda/kernels.h"

namespace saccade::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

__global__ void depthwise_conv_kernel(const float* __restrict__ src, int H, int W, int C, int k, int sy, int sx,
                                      const float* __restrict__ w, const float* __restrict__ bias,
                                      float* __restrict__ dst) {
  const int Ho = (H + sy - 1) / sy, Wo = (W + sx - 1) / sx, pad = k / 2;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(Ho) * Wo * C) return;
  const int c = int(i % C), ox = int(i / C % Wo), oy = int(i / C / Wo);
  float acc = bias[c];
  for (int ky = 0; ky < k; ++ky) {
    const int y = oy * sy + ky - pad;
    if (y < 0 || y >= H) continue;
    for (int kx = 0; kx < k; ++kx) {
      const int x = ox * sx + kx - pad;
      if (x < 0 || x >= W) continue;
      acc += src[(size_t(y) * W + x) * C + c] * w[size_t(c) * k * k + ky * k + kx];
    }
  }
  dst[i] = acc;
}

__global__ void line_windows_kernel(const float* __restrict__ src, int T, int C, int k, float* __restrict__ dst) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(T) * k * C) return;
  const int c = int(i % C), kx = int(i / C % k), t = int(i / C / k), x = t + kx - k / 2;
  dst[i] = (x < 0 || x >= T) ? 0.0f : src[size_t(x) * C + c];
}

__global__ void affine_hardswish_kernel(float* x, size_t n, float s1, float b1, float s2, float b2) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float z = x[i] * s1 + b1;
  x[i] = z * fminf(fmaxf(z + 3.0f, 0.0f), 6.0f) / 6.0f * s2 + b2;
}

__global__ void silu_kernel(float* x, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] / (1.0f + expf(-x[i]));
}

__global__ void relu_kernel(float* x, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.0f);
}

__global__ void layer_norm_kernel(const float* __restrict__ x, int rows, int dim, const float* __restrict__ w,
                                  const float* __restrict__ b, float eps, float* __restrict__ y) {
  const int r = int(size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (r >= rows) return;
  const float* xr = x + size_t(r) * dim;
  float* yr = y + size_t(r) * dim;
  float mean = 0, var = 0;
  for (int i = 0; i < dim; ++i) mean += xr[i];
  mean /= float(dim);
  for (int i = 0; i < dim; ++i) var += (xr[i] - mean) * (xr[i] - mean);
  const float inv = 1.0f / sqrtf(var / float(dim) + eps);
  for (int i = 0; i < dim; ++i) yr[i] = (xr[i] - mean) * inv * w[i] + b[i];
}

// One row per thread: the rows are the columns of a line (tens), each a few thousand classes. It sums in row
// order, not in the CPU's vector lanes: the two agree within float rounding (op_parity), not bit for bit.
__global__ void softmax_rows_kernel(float* x, int rows, int cols) {
  const int r = int(size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (r >= rows) return;
  float* xr = x + size_t(r) * cols;
  float mx = -INFINITY;
  for (int i = 0; i < cols; ++i) mx = fmaxf(mx, xr[i]);
  float sum = 0;
  for (int i = 0; i < cols; ++i) sum += (xr[i] = expf(xr[i] - mx));
  const float inv = 1.0f / sum;
  for (int i = 0; i < cols; ++i) xr[i] *= inv;
}

__global__ void column_mean_kernel(const float* __restrict__ x, int rows, int dim, float* __restrict__ out) {
  const int c = int(size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (c >= dim) return;
  float s = 0;
  for (int r = 0; r < rows; ++r) s += x[size_t(r) * dim + c];
  out[c] = s / float(rows);
}

__global__ void hard_sigmoid_kernel(float* x, size_t n, float alpha, float beta) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fminf(fmaxf(alpha * x[i] + beta, 0.0f), 1.0f);
}

__global__ void scale_columns_kernel(float* x, int rows, int dim, const float* __restrict__ g, float offset) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(rows) * dim) return;
  x[i] *= g[i % dim] + offset;
}

__global__ void avg_pool_kernel(const float* __restrict__ src, int H, int W, int C, int kh, int kw,
                                float* __restrict__ dst) {
  const int Ho = H / kh, Wo = W / kw;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(Ho) * Wo * C) return;
  const int c = int(i % C), ox = int(i / C % Wo), oy = int(i / C / Wo);
  float s = 0;
  for (int ky = 0; ky < kh; ++ky)
    for (int kx = 0; kx < kw; ++kx) s += src[(size_t(oy * kh + ky) * W + ox * kw + kx) * C + c];
  dst[i] = s * (1.0f / float(kh * kw));
}

}  // namespace

void depthwise_conv(const float* src, int H, int W, int C, int k, int sy, int sx, const float* w, const float* bias,
                    float* dst, cudaStream_t s) {
  const size_t total = size_t((H + sy - 1) / sy) * ((W + sx - 1) / sx) * C;
  if (total == 0) return;
  depthwise_conv_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, k, sy, sx, w, bias, dst);
  check(cudaGetLastError(), "depthwise_conv launch");
}

void line_windows(const float* src, int T, int C, int k, float* dst, cudaStream_t s) {
  const size_t total = size_t(T) * k * C;
  if (total == 0) return;
  line_windows_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, T, C, k, dst);
  check(cudaGetLastError(), "line_windows launch");
}

void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2, cudaStream_t s) {
  if (n == 0) return;
  affine_hardswish_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n, s1, b1, s2, b2);
  check(cudaGetLastError(), "affine_hardswish launch");
}

void silu(float* x, size_t n, cudaStream_t s) {
  if (n == 0) return;
  silu_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n);
  check(cudaGetLastError(), "silu launch");
}

void relu(float* x, size_t n, cudaStream_t s) {
  if (n == 0) return;
  relu_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n);
  check(cudaGetLastError(), "relu launch");
}

void softmax_rows(float* x, int rows, int cols, cudaStream_t s) {
  if (rows <= 0) return;
  softmax_rows_kernel<<<blocks_for(size_t(rows)), kThreads, 0, s>>>(x, rows, cols);
  check(cudaGetLastError(), "softmax_rows launch");
}

void layer_norm(const float* x, int rows, int dim, const float* w, const float* b, float eps, float* y,
                cudaStream_t s) {
  if (rows <= 0) return;
  layer_norm_kernel<<<blocks_for(size_t(rows)), kThreads, 0, s>>>(x, rows, dim, w, b, eps, y);
  check(cudaGetLastError(), "layer_norm launch");
}

void column_mean(const float* x, int rows, int dim, float* out, cudaStream_t s) {
  if (dim <= 0) return;
  column_mean_kernel<<<blocks_for(size_t(dim)), kThreads, 0, s>>>(x, rows, dim, out);
  check(cudaGetLastError(), "column_mean launch");
}

void hard_sigmoid(float* x, size_t n, float alpha, float beta, cudaStream_t s) {
  if (n == 0) return;
  hard_sigmoid_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n, alpha, beta);
  check(cudaGetLastError(), "hard_sigmoid launch");
}

void scale_columns(float* x, int rows, int dim, const float* g, float offset, cudaStream_t s) {
  const size_t total = size_t(rows) * dim;
  if (total == 0) return;
  scale_columns_kernel<<<blocks_for(total), kThreads, 0, s>>>(x, rows, dim, g, offset);
  check(cudaGetLastError(), "scale_columns launch");
}

void avg_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst, cudaStream_t s) {
  const size_t total = size_t(H / kh) * (W / kw) * C;
  if (total == 0) return;
  avg_pool_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, kh, kw, dst);
  check(cudaGetLastError(), "avg_pool launch");
}

}  // namespace saccade::cuda
