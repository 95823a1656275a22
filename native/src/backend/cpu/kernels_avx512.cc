// AVX-512F kernels; compiled with -mavx512f and only called after a cpuid check.
#include <immintrin.h>

#include <cmath>

#include "backend/cpu/kernels.h"

namespace saccade::cpu {
namespace {

struct Vec {
  static constexpr int L = 16;
  using R = __m512;
  static R zero() { return _mm512_setzero_ps(); }
  static R load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, R r) { _mm512_storeu_ps(p, r); }
  static R set1(float f) { return _mm512_set1_ps(f); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static float hsum(R r) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(r), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
};

}  // namespace

#include "backend/cpu/kernels_impl.inl"

const Kernels& kernels_avx512() {
  static const Kernels k{"avx512", gemm, attend_row};
  return k;
}
}  // namespace saccade::cpu
