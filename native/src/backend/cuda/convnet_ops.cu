// The page-analysis networks' kernels (native/src/page/convnet.h): copies and element-wise maps, one thread per
// output element; the convolutions themselves are im2col and the GEMM.
#include "backend/cuda/check.h"
#include "backend/cuda/kernels.h"

namespace saccade::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

__global__ void max_pool_kernel(const float* __restrict__ src, int H, int W, int C, int kh, int kw,
                                float* __restrict__ dst) {
  const int Ho = H / kh, Wo = W / kw;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(Ho) * Wo * C) return;
  const int c = int(i % C), ox = int(i / C % Wo), oy = int(i / C / Wo);
  float m = src[(size_t(oy * kh) * W + ox * kw) * C + c];
  for (int ky = 0; ky < kh; ++ky)
    for (int kx = 0; kx < kw; ++kx) m = fmaxf(m, src[(size_t(oy * kh + ky) * W + ox * kw + kx) * C + c]);
  dst[i] = m;
}

__global__ void max_pool_2x2_same_kernel(const float* __restrict__ src, int H, int W, int C, float* __restrict__ dst) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(H) * W * C) return;
  const int c = int(i % C), x = int(i / C % W), y = int(i / C / W);
  float m = src[i];
  for (int dy = 0; dy < 2 && y + dy < H; ++dy)
    for (int dx = 0; dx < 2 && x + dx < W; ++dx) m = fmaxf(m, src[(size_t(y + dy) * W + x + dx) * C + c]);
  dst[i] = m;
}

__global__ void upsample_nearest_kernel(const float* __restrict__ src, int H, int W, int C, int s,
                                        float* __restrict__ dst, int dst_channels, int offset) {
  const int Wo = W * s;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(H) * s * Wo * C) return;
  const int c = int(i % C), x = int(i / C % Wo), y = int(i / C / Wo);
  dst[(size_t(y) * Wo + x) * dst_channels + offset + c] = src[(size_t(y / s) * W + x / s) * C + c];
}

__global__ void depth_to_space_kernel(const float* __restrict__ src, int H, int W, int C, int s,
                                      float* __restrict__ dst) {
  const int Wo = W * s;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(H) * s * Wo * C) return;
  const int c = int(i % C), x = int(i / C % Wo), y = int(i / C / Wo);
  dst[i] = src[((size_t(y / s) * W + x / s) * s * s + (y % s) * s + x % s) * C + c];
}

__global__ void sigmoid_kernel(float* x, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f / (1.0f + expf(-x[i]));
}

}  // namespace

void max_pool(const float* src, int H, int W, int C, int kh, int kw, float* dst, cudaStream_t s) {
  const size_t total = size_t(H / kh) * (W / kw) * C;
  if (total == 0) return;
  max_pool_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, kh, kw, dst);
  check(cudaGetLastError(), "max_pool launch");
}

void max_pool_2x2_same(const float* src, int H, int W, int C, float* dst, cudaStream_t s) {
  const size_t total = size_t(H) * W * C;
  if (total == 0) return;
  max_pool_2x2_same_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, dst);
  check(cudaGetLastError(), "max_pool_2x2_same launch");
}

void upsample_nearest(const float* src, int H, int W, int C, int scale, float* dst, int dst_channels, int offset,
                      cudaStream_t s) {
  const size_t total = size_t(H) * scale * W * scale * C;
  if (total == 0) return;
  upsample_nearest_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, scale, dst, dst_channels, offset);
  check(cudaGetLastError(), "upsample_nearest launch");
}

void depth_to_space(const float* src, int H, int W, int C, int scale, float* dst, cudaStream_t s) {
  const size_t total = size_t(H) * scale * W * scale * C;
  if (total == 0) return;
  depth_to_space_kernel<<<blocks_for(total), kThreads, 0, s>>>(src, H, W, C, scale, dst);
  check(cudaGetLastError(), "depth_to_space launch");
}

void sigmoid(float* x, size_t n, cudaStream_t s) {
  if (n == 0) return;
  sigmoid_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, n);
  check(cudaGetLastError(), "sigmoid launch");
}

}  // namespace saccade::cuda
