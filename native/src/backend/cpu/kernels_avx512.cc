// AVX-512F kernels; compiled with -mavx512f and only called after a cpuid check.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "backend/cpu/kernels.h"
#include "util/half.h"

namespace saccade::cpu {
namespace {

struct Vec {
  static constexpr int L = 16;
  static constexpr int kAccumulators = 24;  // of 32 registers: the rest hold panel rows and a broadcast
  using R = __m512;
  static R zero() { return _mm512_setzero_ps(); }
  static R load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, R r) { _mm512_storeu_ps(p, r); }
  static R set1(float f) { return _mm512_set1_ps(f); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R load_f16(const uint16_t* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static R load_bf16(const uint16_t* p) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
  }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  static R max(R a, R b) { return _mm512_max_ps(a, b); }
  static R min(R a, R b) { return _mm512_min_ps(a, b); }
  static R div(R a, R b) { return _mm512_div_ps(a, b); }
  static R floor(R a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static R exp2i(R n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
  }
  static float fma1(float a, float b, float c) { return std::fma(a, b, c); }
  static float hsum(R r) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(r), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
  // Transposing reduction: fold halves of register pairs, then quarters, then within 128-bit lanes, so the
  // eight sums take about 24 instructions instead of 8 full horizontal sums. Every input goes through the
  // same tree: (256-bit fold, 128-bit fold, (x0 + x2) + (x1 + x3)).
  static void hsum8(const R* r, float* out) {
    R u[4];
    for (int i = 0; i < 4; ++i)
      u[i] = _mm512_add_ps(_mm512_shuffle_f32x4(r[2 * i], r[2 * i + 1], 0x44),
                           _mm512_shuffle_f32x4(r[2 * i], r[2 * i + 1], 0xEE));
    // v0's 128-bit blocks hold r0..r3 folded to four partial sums, v1's r4..r7.
    const R v0 = _mm512_add_ps(_mm512_shuffle_f32x4(u[0], u[1], 0x88), _mm512_shuffle_f32x4(u[0], u[1], 0xDD));
    const R v1 = _mm512_add_ps(_mm512_shuffle_f32x4(u[2], u[3], 0x88), _mm512_shuffle_f32x4(u[2], u[3], 0xDD));
    const R p = _mm512_add_ps(_mm512_unpacklo_ps(v0, v1), _mm512_unpackhi_ps(v0, v1));
    const R q = _mm512_add_ps(p, _mm512_permute_ps(p, 0x4E));
    alignas(64) float t[16];
    _mm512_store_ps(t, q);
    for (int i = 0; i < 4; ++i) {
      out[i] = t[4 * i];
      out[i + 4] = t[4 * i + 1];
    }
  }
};

}  // namespace

#include "backend/cpu/kernels_impl.inl"

namespace {

// The bf16 pair products (Kernels::gemm_bf16_pairs) with VDPBF16PS, which multiplies 16 lanes of bf16 pairs and
// adds both products to each fp32 lane: twice the multiply-adds of an fp32 FMA per instruction. Compiled for
// that extension alone and called only where cpuid reports it.
#define SACCADE_BF16 __attribute__((target("avx512f,avx512bw,avx512bf16")))

// Round to nearest, ties to even, as VCVTNE2PS2BF16 does; 32 floats a step, the row's end masked (zeros
// beyond K, so an odd K's last pair ends in a zero).
SACCADE_BF16 void round_to_bf16_pairs(const float* x, int M, int K, uint16_t* out) {
  const int pairs = (K + 1) / 2;
  for (int m = 0; m < M; ++m) {
    const float* row = x + size_t(m) * K;
    uint16_t* dst = out + size_t(m) * 2 * pairs;
    for (int k = 0; k < 2 * pairs; k += 32) {
      const int left = K - k;
      const __mmask16 lo = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << std::max(left, 0)) - 1);
      const __mmask16 hi = left >= 32 ? __mmask16(0xFFFF) : __mmask16((1u << std::clamp(left - 16, 0, 16)) - 1);
      const __m512 a = _mm512_maskz_loadu_ps(lo, row + k), b = _mm512_maskz_loadu_ps(hi, row + k + 16);
      const __m512i packed = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));
      const int n = std::min(32, 2 * pairs - k);
      _mm512_mask_storeu_epi16(dst + k, n == 32 ? __mmask32(0xFFFFFFFFu) : __mmask32((1u << n) - 1), packed);
    }
  }
}

void pack_bf16_pairs(const float* w, int N, int K, uint16_t* packed) {
  constexpr int L = Vec::L;
  const int pairs = (K + 1) / 2, padded = (N + L - 1) / L * L;
  for (int n = 0; n < padded; ++n)
    for (int k = 0; k < 2 * pairs; ++k) {
      const float v = n < N && k < K ? w[size_t(n) * K + k] : 0.0f;
      packed[((size_t(n / L) * pairs + k / 2) * L + n % L) * 2 + k % 2] = f32_to_bf16_nearest(v);
    }
}

template <int MR, int NV>
SACCADE_BF16 inline void tile_pairs(const uint16_t* x, int pairs, const uint16_t* panels, const float* bias, float* y,
                                    int N, int n0) {
  constexpr int L = Vec::L;
  __m512 acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_setzero_ps();
  const size_t pstride = size_t(pairs) * 2 * L;
  for (int k = 0; k < pairs; ++k) {
    __m512bh wv[NV];
    for (int j = 0; j < NV; ++j)
      wv[j] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(panels + j * pstride + size_t(k) * 2 * L));
    for (int i = 0; i < MR; ++i) {
      int32_t pair;
      std::memcpy(&pair, x + (size_t(i) * pairs + k) * 2, sizeof pair);
      const __m512bh xv = reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
      for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_dpbf16_ps(acc[i][j], xv, wv[j]);
    }
  }
  for (int j = 0; j < NV; ++j) {
    const int n = n0 + j * L;
    const int cols = N - n < L ? N - n : L;
    for (int i = 0; i < MR; ++i) {
      float out[L];
      _mm512_storeu_ps(out, acc[i][j]);
      float* yr = y + size_t(i) * N + n;
      for (int c = 0; c < cols; ++c) yr[c] = bias ? out[c] + bias[n + c] : out[c];
    }
  }
}

template <int MR, int NV>
SACCADE_BF16 inline void rows_tile_pairs(const uint16_t* x, int pairs, const uint16_t* w, const float* bias, float* y,
                                         int N, int p_begin, int p_end) {
  int p = p_begin;
  for (; p + NV <= p_end; p += NV) tile_pairs<MR, NV>(x, pairs, w + size_t(p) * pairs * 2 * Vec::L, bias, y, N, p * Vec::L);
  if constexpr (NV > 1) {
    if (p < p_end) rows_tile_pairs<MR, NV / 2>(x, pairs, w, bias, y, N, p, p_end);
  }
}

// The tiles of gemm<T>, over pairs of k.
SACCADE_BF16 void gemm_bf16_pairs(const uint16_t* x, int M, int pairs, const uint16_t* w, const float* bias, float* y,
                                  int N, int p_begin, int p_end) {
  const size_t row = size_t(pairs) * 2;
  for (int pb = p_begin; pb < p_end; pb += kPanelBlock) {
    const int pe = pb + kPanelBlock < p_end ? pb + kPanelBlock : p_end;
    int m = 0;
    for (; m + kRowBlock <= M; m += kRowBlock)
      rows_tile_pairs<kRowBlock, tile_panels(kRowBlock)>(x + m * row, pairs, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m + 4 <= M; m += 4) rows_tile_pairs<4, tile_panels(4)>(x + m * row, pairs, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m + 2 <= M; m += 2) rows_tile_pairs<2, tile_panels(2)>(x + m * row, pairs, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m < M; ++m) rows_tile_pairs<1, tile_panels(1)>(x + m * row, pairs, w, bias, y + size_t(m) * N, N, pb, pe);
  }
}

#undef SACCADE_BF16

// Byte products with AVX-512 VNNI's VPDPBUSD: 64 multiply-adds of bytes into 16 int32 lanes per instruction,
// four times an fp32 FMA's.
#pragma GCC push_options
#pragma GCC target("avx512bw,avx512vnni")
namespace vnni {
struct Dot {
  using I = __m512i;
  static I load(const int8_t* p) { return _mm512_loadu_si512(p); }
  static I set1(int32_t v) { return _mm512_set1_epi32(v); }
  static I dot(I acc, I a, I w) { return _mm512_dpbusd_epi32(acc, a, w); }
  static __m512 to_float(I v) { return _mm512_cvtepi32_ps(v); }
  static void store_bytes(uint8_t* p, __m512 v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
  }
};
#include "backend/cpu/kernels_int8.inl"
}  // namespace vnni
#pragma GCC pop_options

}  // namespace

const Kernels& kernels_avx512() {
  static const Kernels k{"avx512", true, Vec::L, kRowBlock, kPanelBlock, kRowBlock, kPanelBlock, pack<float>, pack<uint16_t>, pack_bf16,
                        gemm<float>, gemm<uint16_t>, gemm_bf16, conv<float>, conv<uint16_t>, conv_bf16, nullptr, nullptr, nullptr, attend_rows,
                        depthwise_rows, affine_hardswish, silu_mul, gelu, softmax};
  return k;
}

const Kernels& kernels_avx512_bf16() {
  static const Kernels k{"avx512-bf16", true, Vec::L, kRowBlock, kPanelBlock, kRowBlock, kPanelBlock, pack<float>, pack<uint16_t>, pack_bf16,
                        gemm<float>, gemm<uint16_t>, gemm_bf16, conv<float>, conv<uint16_t>, conv_bf16, round_to_bf16_pairs, pack_bf16_pairs,
                        gemm_bf16_pairs, attend_rows, depthwise_rows, affine_hardswish, silu_mul, gelu, softmax};
  return k;
}

const Kernels& kernels_avx512_vnni() {
  static const Kernels k = vnni::with_byte_products(kernels_avx512(), "avx512-vnni");
  return k;
}
}  // namespace saccade::cpu
