// Portable kernels: an 8-lane vector emulated in scalar code (same reduction tree as AVX2, without FMA).
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
  static constexpr int kAccumulators = 12;
  struct R {
    float v[8];
  };
  static R zero() { return R{}; }
  static R load(const float* p) {
    R r;
    for (int i = 0; i < 8; ++i) r.v[i] = p[i];
    return r;
  }
  static void store(float* p, R r) {
    for (int i = 0; i < 8; ++i) p[i] = r.v[i];
  }
  static R set1(float f) {
    R r;
    for (int i = 0; i < 8; ++i) r.v[i] = f;
    return r;
  }
  static R load_f16(const uint16_t* p) {
    R r;
    for (int i = 0; i < 8; ++i) r.v[i] = f16_to_f32(p[i]);
    return r;
  }
  static R load_bf16(const uint16_t* p) {
    R r;
    for (int i = 0; i < 8; ++i) r.v[i] = bf16_to_f32(p[i]);
    return r;
  }
  static R add(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] += b.v[i];
    return a;
  }
  static R sub(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] -= b.v[i];
    return a;
  }
  static R mul(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] *= b.v[i];
    return a;
  }
  static R max(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
    return a;
  }
  static R min(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i];
    return a;
  }
  static R div(R a, R b) {
    for (int i = 0; i < 8; ++i) a.v[i] /= b.v[i];
    return a;
  }
  static R floor(R a) {
    for (float& x : a.v) x = std::floor(x);
    return a;
  }
  static R exp2i(R n) {
    for (float& x : n.v) {
      const int32_t bits = (int32_t(x) + 127) << 23;
      std::memcpy(&x, &bits, sizeof x);
    }
    return n;
  }
  static R fma(R a, R b, R c) {
    for (int i = 0; i < 8; ++i) c.v[i] += a.v[i] * b.v[i];
    return c;
  }
  static float fma1(float a, float b, float c) { return c + a * b; }
  static float hsum(R r) {
    float a[4];
    for (int i = 0; i < 4; ++i) a[i] = r.v[i] + r.v[i + 4];
    return (a[0] + a[2]) + (a[1] + a[3]);
  }
  static void hsum8(const R* r, float* out) {
    for (int i = 0; i < 8; ++i) out[i] = hsum(r[i]);
  }
};

}  // namespace
}  // namespace saccade::cpu

namespace saccade::cpu {
#include "backend/cpu/kernels_impl.inl"

const Kernels& kernels_generic() {
  static const Kernels k{"generic", false, Vec::L, kRowBlock, kPanelBlock, kRowBlock, kPanelBlock, pack<float>, pack<uint16_t>, pack_bf16,
                        gemm<float>, gemm<uint16_t>, gemm_bf16, conv<float>, conv<uint16_t>, conv_bf16, nullptr, nullptr, nullptr, attend_rows, depthwise_rows, affine_hardswish,
                        silu_mul, gelu, softmax};
  return k;
}
}  // namespace saccade::cpu
