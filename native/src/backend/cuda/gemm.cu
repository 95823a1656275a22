// Deterministic fp32 GEMM for linear layers: y = x w^T (+ bias), w in torch layout [N, K].
//
// Each output element is one fmaf chain over k = 0..K-1 starting from 0, then + bias. The tile shape only
// decides which elements a thread block computes together, never the arithmetic of one element, so every
// configuration below gives bit-identical rows and the choice by M cannot break AR == self-spec.
#include "backend/cuda/check.h"
#include "backend/cuda/kernels.h"

namespace saccade::cuda {
namespace {

// Block tile BM x BN, K in slices of BK through shared memory; thread (tx, ty) owns rows ty + i * TY and
// columns tx + j * TX, so neighbouring threads read neighbouring shared words.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    gemm_tile(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
              float* __restrict__ y, int M, int N, int K) {
  constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
  __shared__ float xs[BK][BM + 1];
  __shared__ float ws[BK][BN + 1];
  const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += NT) {
      const int r = e / BK, c = e % BK, m = m0 + r, k = k0 + c;
      xs[c][r] = (m < M && k < K) ? x[size_t(m) * K + k] : 0.0f;
    }
    for (int e = tid; e < BN * BK; e += NT) {
      const int r = e / BK, c = e % BK, n = n0 + r, k = k0 + c;
      ws[c][r] = (n < N && k < K) ? w[size_t(n) * K + k] : 0.0f;
    }
    __syncthreads();
    // Stop at K exactly: padding with zeros would add fmaf(0, 0, acc) steps that can turn -0 into +0.
    const int kn = K - k0 < BK ? K - k0 : BK;
    for (int kk = 0; kk < kn; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = xs[kk][ty + i * TY];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = ws[kk][tx + j * TX];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * TY;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx + j * TX;
      if (n < N) y[size_t(m) * N + n] = bias ? acc[i][j] + bias[n] : acc[i][j];
    }
  }
}

template <int BM, int BN, int BK, int TM, int TN>
void launch(const float* x, int M, int K, const float* w, int N, const float* bias, float* y, cudaStream_t s) {
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  gemm_tile<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, s>>>(x, w, bias, y, M, N, K);
}

__global__ void add_bias_kernel(float* y, int M, int N, const float* bias) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < size_t(M) * N) y[i] += bias[i % N];
}

}  // namespace

void gemm(const float* x, int M, int K, const float* w, int N, const float* bias, float* y, cudaStream_t s) {
  if (M <= 0 || N <= 0) return;
  // Decode widths (1 .. 33 rows) read each weight once and want many blocks across N; prefill and the
  // vision encoder (hundreds to thousands of rows) want data reuse.
  if (M <= 8)
    launch<8, 32, 32, 1, 1>(x, M, K, w, N, bias, y, s);
  else if (M <= 64)
    launch<32, 64, 16, 4, 2>(x, M, K, w, N, bias, y, s);
  else
    launch<64, 64, 16, 4, 4>(x, M, K, w, N, bias, y, s);
  check(cudaGetLastError(), "gemm launch");
}

void add_bias_rows(float* y, int M, int N, const float* bias, cudaStream_t s) {
  const size_t n = size_t(M) * N;
  if (n == 0) return;
  add_bias_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(y, M, N, bias);
  check(cudaGetLastError(), "bias launch");
}

}  // namespace saccade::cuda
