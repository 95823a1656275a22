// AVX2 + FMA kernels; this file is compiled with -mavx2 -mfma and only called after a cpuid check.
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
  static constexpr int L = 8;
  static constexpr int kAccumulators = 12;  // of 16 registers: the rest hold panel rows and a broadcast
  using R = __m256;
  static R zero() { return _mm256_setzero_ps(); }
  static R load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, R r) { _mm256_storeu_ps(p, r); }
  static R set1(float f) { return _mm256_set1_ps(f); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R load_f16(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static R load_bf16(const uint16_t* p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
  }
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  static R max(R a, R b) { return _mm256_max_ps(a, b); }
  static R min(R a, R b) { return _mm256_min_ps(a, b); }
  static R div(R a, R b) { return _mm256_div_ps(a, b); }
  static R floor(R a) { return _mm256_floor_ps(a); }
  static R exp2i(R n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  }
  static float fma1(float a, float b, float c) { return std::fma(a, b, c); }
  static float hsum(R r) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
  // Transposing reduction: three rounds of pairwise adds give all eight sums in one register.
  static void hsum8(const R* r, float* out) {
    const __m256 t0 = _mm256_hadd_ps(r[0], r[1]), t1 = _mm256_hadd_ps(r[2], r[3]);
    const __m256 t2 = _mm256_hadd_ps(r[4], r[5]), t3 = _mm256_hadd_ps(r[6], r[7]);
    const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31)));
  }
};

}  // namespace

#include "backend/cpu/kernels_impl.inl"

namespace {

// Byte products where the CPU has AVX-VNNI (Alder Lake and later, Zen 5): VPDPBUSD, 32 multiply-adds of bytes
// into 8 int32 lanes per instruction, four times an fp32 FMA's. AVX2 alone multiplies bytes with VPMADDUBSW,
// which saturates unless one side's signs are moved onto the other first: four instructions for 32
// multiply-adds, measured no faster than fp32 (docs/decisions/0049).
#pragma GCC push_options
#pragma GCC target("avxvnni")
namespace vnni {
struct Dot {
  using I = __m256i;
  static I load(const int8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static I set1(int32_t v) { return _mm256_set1_epi32(v); }
  static I dot(I acc, I a, I w) { return _mm256_dpbusd_avx_epi32(acc, a, w); }
  static __m256 to_float(I v) { return _mm256_cvtepi32_ps(v); }
  static void store_bytes(uint8_t* p, __m256 v) {
    const __m256i i = _mm256_cvtps_epi32(v);
    const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(words, words));
  }
};
#include "backend/cpu/kernels_int8.inl"
}  // namespace vnni
#pragma GCC pop_options

}  // namespace

const Kernels& kernels_avx2() {
  static const Kernels k{"avx2", true, Vec::L, kRowBlock, kPanelBlock, kRowBlock, kPanelBlock, pack<float>, pack<uint16_t>, pack_bf16,
                        gemm<float>, gemm<uint16_t>, gemm_bf16, conv<float>, conv<uint16_t>, conv_bf16, nullptr, nullptr, nullptr, attend_rows, depthwise_rows, affine_hardswish,
                        silu_mul, gelu, softmax};
  return k;
}

const Kernels& kernels_avx2_vnni() {
  static const Kernels k = vnni::with_byte_products(kernels_avx2(), "avx2-vnni");
  return k;
}
}  // namespace saccade::cpu
