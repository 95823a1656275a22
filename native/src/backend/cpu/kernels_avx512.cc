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

const Kernels& kernels_avx512() {
  static const Kernels k{"avx512", true, Vec::L, kRowBlock, kPanelBlock, pack<float>, pack<uint16_t>, pack_bf16,
                        gemm<float>, gemm<uint16_t>, gemm_bf16, attend_group, depthwise_rows, affine_hardswish,
                        silu_mul};
  return k;
}
}  // namespace saccade::cpu
