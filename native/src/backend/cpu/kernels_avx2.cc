// AVX2 + FMA kernels; this file is compiled with -mavx2 -mfma and only called after a cpuid check.
#include <immintrin.h>

#include <cmath>

#include "backend/cpu/kernels.h"

namespace saccade::cpu {
namespace {

struct Vec {
  static constexpr int L = 8;
  using R = __m256;
  static R zero() { return _mm256_setzero_ps(); }
  static R load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, R r) { _mm256_storeu_ps(p, r); }
  static R set1(float f) { return _mm256_set1_ps(f); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static float hsum(R r) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
};

}  // namespace

#include "backend/cpu/kernels_impl.inl"

const Kernels& kernels_avx2() {
  static const Kernels k{"avx2", gemm, attend_row};
  return k;
}
}  // namespace saccade::cpu
