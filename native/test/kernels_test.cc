// CPU kernels against naive references, and the width-independence that byte-identity rests on.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <cmath>
#include <random>

#include "backend/backend.h"
#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"
#include "util/half.h"
#include "test.h"

using namespace saccade;

namespace {

std::vector<float> randv(size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::normal_distribution<float> nd;
  std::vector<float> v(n);
  for (float& x : v) x = nd(r);
  return v;
}

// The fp16 path runs on weights rounded to fp16 and must give exactly what the fp32 path gives for them.
void check_gemm(const cpu::Kernels& k) {
  // M = 11 and 8 reach every row tile (6, 4, 2 and 1 rows); N = 29 ends in a partial panel, and N = 157 runs
  // whole panel blocks and then each narrower tile.
  for (int M : {11, 8})
    for (int K : {1, 7, 8, 37, 64, 200})
      for (int N : {29, 157}) {
        const int panels = (N + k.panel - 1) / k.panel;
        auto x = randv(size_t(M) * K, 1), w = randv(size_t(N) * K, 2), b = randv(size_t(N), 3);
        for (float& v : w) v = f16_to_f32(f32_to_f16(v));
        std::vector<float> y(size_t(M) * N), yh(size_t(M) * N), packed(size_t(panels) * k.panel * K);
        std::vector<uint16_t> packed_h(packed.size());
        k.pack(w.data(), N, K, packed.data());
        k.pack_f16(w.data(), N, K, packed_h.data());
        k.gemm(x.data(), M, K, packed.data(), b.data(), y.data(), N, 0, panels);
        k.gemm_f16(x.data(), M, K, packed_h.data(), b.data(), yh.data(), N, 0, panels);
        CHECK_MSG(y == yh, k.isa << " fp16 panels differ from fp32 panels, K=" << K);
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            double ref = b[size_t(n)];
            for (int i = 0; i < K; ++i) ref += double(x[size_t(m) * K + i]) * w[size_t(n) * K + i];
            CHECK_MSG(std::fabs(ref - y[size_t(m) * N + n]) < 1e-4 * (1 + std::sqrt(double(K))), k.isa << " K=" << K);
          }
        // Every row must be bit-identical to computing it alone (width independence).
        for (int m = 0; m < M; ++m) {
          std::vector<float> y1(static_cast<size_t>(N));
          k.gemm(x.data() + size_t(m) * K, 1, K, packed.data(), b.data(), y1.data(), N, 0, panels);
          for (int n = 0; n < N; ++n) CHECK_MSG(y1[size_t(n)] == y[size_t(m) * N + n], k.isa << " row " << m);
        }
      }
}

// The bf16 pair products: x and w rounded to the nearest bf16, each output its bias plus the products summed
// in fp32 (every product of two bf16 numbers is exact in fp32, so only the sums round), and every row the same
// whatever the rows around it. M = 40 adds a whole 32-row AMX block and a partial one.
void check_bf16_pairs(const cpu::Kernels& k) {
  for (int M : {11, 8, 40})
    for (int K : {1, 7, 8, 37, 64, 200})
      for (int N : {29, 157}) {
        const int panels = (N + k.panel - 1) / k.panel, pairs = (K + 1) / 2;
        auto x = randv(size_t(M) * K, 4), w = randv(size_t(N) * K, 5), b = randv(size_t(N), 6);
        std::vector<uint16_t> xb(size_t(M) * 2 * pairs), packed(size_t(panels) * k.panel * 2 * pairs);
        k.round_to_bf16_pairs(x.data(), M, K, xb.data());
        for (int m = 0; m < M; ++m)
          for (int i = 0; i < 2 * pairs; ++i) {
            const uint16_t want = i < K ? f32_to_bf16_nearest(x[size_t(m) * K + i]) : 0;
            CHECK_MSG(xb[size_t(m) * 2 * pairs + i] == want, k.isa << " rounding of x, K=" << K << " i=" << i);
          }
        k.pack_bf16_pairs(w.data(), N, K, packed.data());
        std::vector<float> y(size_t(M) * N);
        k.gemm_bf16_pairs(xb.data(), M, pairs, packed.data(), b.data(), y.data(), N, 0, panels);
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            double ref = b[size_t(n)], mag = std::fabs(ref);
            for (int i = 0; i < K; ++i) {
              const double p = double(bf16_to_f32(f32_to_bf16_nearest(x[size_t(m) * K + i]))) *
                               bf16_to_f32(f32_to_bf16_nearest(w[size_t(n) * K + i]));
              ref += p;
              mag += std::fabs(p);
            }
            // fp32 sums of K exact products: each rounding at most half an ulp of the running magnitude.
            CHECK_MSG(std::fabs(ref - y[size_t(m) * N + n]) <= 1.2e-7 * (K + 1) * mag, k.isa << " K=" << K << " N=" << N);
          }
        for (int m = 0; m < M; ++m) {
          std::vector<float> y1(static_cast<size_t>(N));
          k.gemm_bf16_pairs(xb.data() + size_t(m) * 2 * pairs, 1, pairs, packed.data(), b.data(), y1.data(), N, 0, panels);
          for (int n = 0; n < N; ++n) CHECK_MSG(y1[size_t(n)] == y[size_t(m) * N + n], k.isa << " bf16 pairs, row " << m);
        }
      }
}

// The int8 products against their arithmetic written out: each group's levels (x to 127 steps of its largest
// magnitude, w likewise, each value times the step's inverse rounded to the nearest, ties to even), their exact integer sum, scaled by both steps and added in group order with one FMA,
// then the bias; every row the same as alone; and within the levels' rounding (half a step each) of the fp32
// product.
std::vector<float> check_q8(const cpu::Kernels& k) {
  std::vector<float> all;
  for (int M : {11, 8, 3})
    for (int K : {1, 7, 32, 37, 200})
      for (int N : {29, 157}) {
        const int panels = (N + k.panel - 1) / k.panel, groups = (K + cpu::kQ8Group - 1) / cpu::kQ8Group;
        auto x = randv(size_t(M) * K, 7), w = randv(size_t(N) * K, 8), b = randv(size_t(N), 9);
        x[0] = 40.0f;  // an outlier channel, which only its own group's step may feel
        const size_t row = size_t(groups) * cpu::kQ8Group;
        std::vector<uint8_t> xq(size_t(M) * row);
        std::vector<float> xs(size_t(M) * groups), ws(size_t(panels) * k.panel * groups), y(size_t(M) * N);
        std::vector<int8_t> wq(size_t(panels) * k.panel * row);
        std::vector<int32_t> wo(ws.size());
        k.quantize_q8(x.data(), M, K, xq.data(), xs.data());
        k.pack_q8(w.data(), N, K, wq.data(), ws.data(), wo.data());
        k.gemm_q8(xq.data(), xs.data(), M, groups, wq.data(), ws.data(), wo.data(), b.data(), y.data(), N, 0, panels);
        const auto step = [](const float* v, int n, float levels) {
          float amax = 0.0f;
          for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(v[i]));
          return amax / levels;
        };
        const auto level = [](float v, float s) { return s > 0.0f ? int(std::nearbyint(v * (1.0f / s))) : 0; };
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            float acc = 0.0f;
            double exact = b[size_t(n)], bound = 1e-5 * (1 + std::fabs(exact));
            for (int g = 0; g < groups; ++g) {
              const int k0 = g * cpu::kQ8Group, count = std::min(cpu::kQ8Group, K - k0);
              const float* xr = &x[size_t(m) * K + k0];
              const float* wr = &w[size_t(n) * K + k0];
              const float sx = step(xr, count, 127.0f), sw = step(wr, count, 127.0f);
              int32_t sum = 0;
              for (int i = 0; i < count; ++i) sum += level(xr[i], sx) * level(wr[i], sw);
              acc = std::fma(float(sum), sx * sw, acc);
              for (int i = 0; i < count; ++i) {
                exact += double(xr[i]) * wr[i];
                bound += std::fabs(xr[i]) * sw / 2 + std::fabs(wr[i]) * sx / 2 + sx * sw / 4;
              }
            }
            const float got = y[size_t(m) * N + n];
            CHECK_MSG(got == acc + b[size_t(n)], k.isa << " int8 products, M=" << M << " K=" << K << " N=" << N);
            CHECK_MSG(std::fabs(got - exact) <= bound, k.isa << " int8 products far from fp32, K=" << K);
          }
        for (int m = 0; m < M; ++m) {
          std::vector<float> y1(static_cast<size_t>(N));
          k.gemm_q8(xq.data() + m * row, xs.data() + size_t(m) * groups, 1, groups, wq.data(), ws.data(), wo.data(),
                    b.data(), y1.data(), N, 0, panels);
          for (int n = 0; n < N; ++n) CHECK_MSG(y1[size_t(n)] == y[size_t(m) * N + n], k.isa << " int8 products, row " << m);
        }
        all.insert(all.end(), y.begin(), y.end());
      }
  return all;
}

}  // namespace

// Every set with byte products this CPU runs, whether or not they are faster than fp32 here: each matches the
// arithmetic, and all give the same numbers.
TEST(int8_products_match_their_arithmetic_on_every_set) {
  std::vector<float> first;
  int sets = 0;
  for (const cpu::Kernels* k : cpu::runnable_kernels()) {
    if (!k->gemm_q8) continue;
    const std::vector<float> y = check_q8(*k);
    if (sets++ == 0) first = y;
    else CHECK_MSG(y == first, k->isa << " int8 products differ from another set's");
  }
  if (sets == 0) std::printf("  (skipped: this CPU has no byte products)\n");
}

// The bf16 kernels wherever the CPU has the instruction, whether or not they are faster than fp32 here.
TEST(bf16_pair_products_match_their_arithmetic_and_are_width_independent) {
  if (!cpu_features().avx512bf16 || !cpu_features().avx512f) {
    std::printf("  (skipped: this CPU does not multiply bf16 pairs natively)\n");
    return;
  }
  check_bf16_pairs(cpu::kernels_avx512_bf16());
}

// The same products on AMX tiles, wherever the CPU has them and the OS grants their state.
TEST(amx_pair_products_match_their_arithmetic_and_are_width_independent) {
  if (!cpu::amx_usable()) {
    std::printf("  (skipped: this CPU or its OS offers no AMX tiles for bf16)\n");
    return;
  }
  check_bf16_pairs(cpu::kernels_amx());
}

TEST(gemm_generic_matches_reference_and_is_width_independent) { check_gemm(cpu::kernels_generic()); }

TEST(gemm_best_isa_matches_reference_and_is_width_independent) { check_gemm(cpu::best_kernels()); }

TEST(attention_matches_reference_and_is_width_independent) {
  auto be = create_backend({"cpu", 2});
  const int cap = 40, Hq = 4, Hkv = 2, d = 16, M = 6;
  auto q = randv(size_t(M) * Hq * d, 4), k = randv(size_t(cap) * Hkv * d, 5), v = randv(size_t(cap) * Hkv * d, 6);
  std::vector<int> limit{20, 21, 22, 40, 40, 40};
  std::vector<float> out(size_t(M) * Hq * d), mass(static_cast<size_t>(M));
  AttentionArgs a = attention_args(q.data(), k.data(), v.data(), M, Hq, Hkv, d, limit.data(), out.data());
  a.img_begin = 2;
  a.img_end = 12;
  a.image_mass = mass.data();
  be->attention(a);
  for (int r = 0; r < M; ++r) {
    double img = 0;
    for (int h = 0; h < Hq; ++h) {
      const int kh = h / (Hq / Hkv);
      std::vector<double> s(size_t(limit[size_t(r)]));
      double mx = -1e30, sum = 0;
      for (int j = 0; j < limit[size_t(r)]; ++j) {
        double dot = 0;
        for (int i = 0; i < d; ++i) dot += double(q[(size_t(r) * Hq + h) * d + i]) * k[(size_t(j) * Hkv + kh) * d + i];
        s[size_t(j)] = dot / std::sqrt(double(d));
        mx = std::max(mx, s[size_t(j)]);
      }
      for (double& x : s) sum += x = std::exp(x - mx);
      for (int i = 0; i < d; ++i) {
        double o = 0;
        for (int j = 0; j < limit[size_t(r)]; ++j) o += s[size_t(j)] / sum * v[(size_t(j) * Hkv + kh) * d + i];
        CHECK(std::fabs(o - out[(size_t(r) * Hq + h) * d + i]) < 1e-5);
      }
      for (int j = 2; j < 12; ++j) img += s[size_t(j)] / sum;
    }
    CHECK(std::fabs(img / Hq - mass[size_t(r)]) < 1e-5);
    // Row alone gives identical bits.
    std::vector<float> o1(size_t(Hq) * d);
    AttentionArgs b = a;
    b.q = q.data() + size_t(r) * Hq * d;
    b.M = 1;
    b.key_limit = &limit[size_t(r)];
    b.out = o1.data();
    b.image_mass = nullptr;
    be->attention(b);
    for (int i = 0; i < Hq * d; ++i) CHECK(o1[size_t(i)] == out[size_t(r) * Hq * d + i]);
  }
}

// Rows go to the kernel in blocks that share each tile of keys (Kernels::attend_rows); a row's output and its
// fixation outputs must be the bits it has alone, whatever block it falls in and whatever its neighbours see:
// causal and whole limits, a selection of image keys on some rows, three query heads to a KV head and a
// head_dim with a vector tail, a last block cut short.
TEST(attention_rows_in_blocks_equal_each_row_alone) {
  for (int threads : {1, 2}) {
    auto be = create_backend({"cpu", threads});
    const int cap = 300, Hq = 6, Hkv = 2, d = 20, M = 45, img_begin = 5, img_end = 105;
    auto q = randv(size_t(M) * Hq * d, 21), k = randv(size_t(cap) * Hkv * d, 22), v = randv(size_t(cap) * Hkv * d, 23);
    std::vector<int> limit(M), keep_n(M);
    std::vector<std::vector<int>> keep(M);
    std::vector<const int*> keep_ptr(M);
    for (int r = 0; r < M; ++r) {
      limit[size_t(r)] = r % 3 == 0 ? cap : 200 + r;
      if (r % 4 == 1)
        for (int s = img_begin + r % 7; s < img_end; s += 9) keep[size_t(r)].push_back(s);
      keep_n[size_t(r)] = int(keep[size_t(r)].size());
      keep_ptr[size_t(r)] = keep[size_t(r)].empty() ? nullptr : keep[size_t(r)].data();
    }
    const int img_n = img_end - img_begin;
    std::vector<float> out(size_t(M) * Hq * d), mass(static_cast<size_t>(M)), scores(size_t(M) * img_n);
    AttentionArgs a = attention_args(q.data(), k.data(), v.data(), M, Hq, Hkv, d, limit.data(), out.data());
    a.img_begin = img_begin;
    a.img_end = img_end;
    a.img_keep = keep_ptr.data();
    a.img_keep_n = keep_n.data();
    a.image_mass = mass.data();
    a.image_scores = scores.data();
    be->attention(a);
    for (int r = 0; r < M; ++r) {
      std::vector<float> o1(size_t(Hq) * d), m1(1), s1(static_cast<size_t>(img_n));
      AttentionArgs b = a;
      b.q = q.data() + size_t(r) * Hq * d;
      b.M = 1;
      b.key_limit = &limit[size_t(r)];
      b.img_keep = &keep_ptr[size_t(r)];
      b.img_keep_n = &keep_n[size_t(r)];
      b.out = o1.data();
      b.image_mass = m1.data();
      b.image_scores = s1.data();
      be->attention(b);
      bool same = m1[0] == mass[size_t(r)];
      for (int i = 0; i < Hq * d; ++i) same = same && o1[size_t(i)] == out[size_t(r) * Hq * d + i];
      for (int i = 0; i < img_n; ++i) same = same && s1[size_t(i)] == scores[size_t(r) * img_n + i];
      CHECK_MSG(same, "row " << r << " differs from itself alone, threads " << threads);
    }
  }
}

TEST(gathered_attention_equals_attention_over_the_kept_keys) {
  auto be = create_backend({"cpu", 1});
  const int cap = 30, H = 2, d = 8;
  auto q = randv(size_t(H) * d, 7), k = randv(size_t(cap) * H * d, 8), v = randv(size_t(cap) * H * d, 9);
  std::vector<int> keep{4, 9, 11};
  const int* keep_ptr = keep.data();
  int keep_n = 3, limit = 25;
  std::vector<float> out(size_t(H) * d), ref(size_t(H) * d);
  AttentionArgs a = attention_args(q.data(), k.data(), v.data(), 1, H, H, d, &limit, out.data());
  a.img_begin = 2;
  a.img_end = 20;
  a.img_keep = &keep_ptr;
  a.img_keep_n = &keep_n;
  be->attention(a);
  // Reference: drop the unkept image keys by giving them -inf via a compacted cache.
  std::vector<int> slots{0, 1, 4, 9, 11, 20, 21, 22, 23, 24};
  std::vector<float> k2, v2;
  for (int s : slots) {
    k2.insert(k2.end(), k.begin() + s * H * d, k.begin() + (s + 1) * H * d);
    v2.insert(v2.end(), v.begin() + s * H * d, v.begin() + (s + 1) * H * d);
  }
  int limit2 = int(slots.size());
  be->attention(attention_args(q.data(), k2.data(), v2.data(), 1, H, H, d, &limit2, ref.data()));
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == ref[i]);
}

TEST(center_rows_subtracts_each_columns_mean_in_row_order) {
  auto be = create_backend({"cpu", 1});
  const int rows = 5, dim = 3;
  auto x = randv(size_t(rows) * dim, 10);
  const auto before = x;
  be->center_rows(x.data(), rows, dim);
  for (int c = 0; c < dim; ++c) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) sum += before[size_t(r) * dim + c];
    for (int r = 0; r < rows; ++r) CHECK(x[size_t(r) * dim + c] == before[size_t(r) * dim + c] - sum / float(rows));
  }
  std::vector<float> one{1.5f, -2.0f};
  be->center_rows(one.data(), 1, 2);
  CHECK(one[0] == 0.0f && one[1] == 0.0f);
}

namespace {

// The line encoder's two element-wise kernels must round exactly as their loops do (the depthwise one with a
// fused multiply-add where the ISA has one), for channel counts with and without a vector tail, strides
// (2, 1), (1, 2) and 1, and kernels 3 and 5, on images wide enough for runs of four interior outputs.
void check_line_kernels(const cpu::Kernels& kern) {
  for (int C : {16, 19})
    for (int k : {3, 5})
      for (auto [sy, sx] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}}) {
        const int H = 7, W = 13, Ho = (H + sy - 1) / sy, Wo = (W + sx - 1) / sx, pad = k / 2;
        auto src = randv(size_t(H) * W * C, 7), w = randv(size_t(C) * k * k, 8), bias = randv(size_t(C), 9);
        std::vector<float> taps(w.size()), got(size_t(Ho) * Wo * C), want(got.size());
        for (int c = 0; c < C; ++c)
          for (int t = 0; t < k * k; ++t) taps[size_t(t) * C + c] = w[size_t(c) * k * k + t];
        kern.depthwise_rows(src.data(), H, W, C, k, sy, sx, taps.data(), bias.data(), got.data(), 0, Ho);
        for (int oy = 0; oy < Ho; ++oy)
          for (int ox = 0; ox < Wo; ++ox)
            for (int c = 0; c < C; ++c) {
              float acc = bias[size_t(c)];
              for (int ky = 0; ky < k; ++ky)
                for (int kx = 0; kx < k; ++kx) {
                  const int y = oy * sy + ky - pad, x = ox * sx + kx - pad;
                  if (y >= 0 && y < H && x >= 0 && x < W) {
                    const float s = src[(size_t(y) * W + x) * C + c], t = w[size_t(c) * k * k + size_t(ky * k + kx)];
                    acc = kern.fused ? std::fma(s, t, acc) : acc + s * t;
                  }
                }
              want[(size_t(oy) * Wo + ox) * C + c] = acc;
            }
        CHECK_MSG(got == want, kern.isa << " depthwise C=" << C << " k=" << k << " sy=" << sy << " sx=" << sx);
      }
  auto x = randv(1000, 10);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = -3.0f;  // the gate's corners: exactly 0 and 6 after the affine
  std::vector<float> got = x;
  kern.affine_hardswish(got.data(), got.size(), 1.5f, 0.25f, 0.75f, -0.125f);
  for (size_t i = 0; i < x.size(); ++i) {
    const float z = x[i] * 1.5f + 0.25f;
    const float want = z * std::min(std::max(z + 3.0f, 0.0f), 6.0f) / 6.0f * 0.75f + -0.125f;
    CHECK_MSG(got[i] == want, kern.isa << " hardswish at " << i);
  }
}

// silu(g) * u within a few ulps of the double formula over the whole range, without overflow at the ends (far
// below zero, exp saturates at e^-87, so a result that should be ~0 comes out below 1e-30), and
// each element's result independent of where it falls (the tail runs the vector arithmetic too).
void check_silu_mul(const cpu::Kernels& kern) {
  auto g = randv(203, 11), u = randv(203, 12);
  for (size_t i = 0; i < g.size(); ++i) g[i] *= 12.0f;
  g[0] = 0.0f, g[1] = -200.0f, g[2] = 200.0f, g[3] = 1e-30f;
  std::vector<float> got(g.size());
  kern.silu_mul(g.data(), u.data(), got.data(), g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const double want = double(g[i]) / (1.0 + std::exp(-double(g[i]))) * u[i];
    CHECK_MSG(std::fabs(got[i] - want) <= 4e-7 * std::fabs(want) + 1e-30, kern.isa << " silu_mul at " << i);
  }
  for (size_t first : {size_t(1), size_t(5), size_t(200)}) {
    std::vector<float> part(g.size() - first);
    kern.silu_mul(g.data() + first, u.data() + first, part.data(), part.size());
    for (size_t i = 0; i < part.size(); ++i)
      CHECK_MSG(part[i] == got[first + i], kern.isa << " silu_mul depends on position, element " << first + i);
  }
}

// gelu within 2e-7 of the double erf formula at every scale a layer's activations take (relative to
// max(1, |x|): the error is erf's, times x), far negative inputs to ~0 without a NaN, and each element's result
// independent of where it falls.
void check_gelu(const cpu::Kernels& kern) {
  auto x = randv(203, 14);
  for (size_t i = 0; i < x.size(); ++i) x[i] *= 10.0f;
  x[0] = 0.0f, x[1] = -200.0f, x[2] = 200.0f, x[3] = 1e-30f, x[4] = -1e-30f;
  std::vector<float> got = x;
  kern.gelu(got.data(), got.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
    CHECK_MSG(std::fabs(got[i] - want) <= 2e-7 * std::max(1.0, std::fabs(double(x[i]))), kern.isa << " gelu at " << i << ": " << got[i] << " for " << want);
  }
  for (size_t first : {size_t(1), size_t(5), size_t(200)}) {
    std::vector<float> part(x.begin() + long(first), x.end());
    kern.gelu(part.data(), part.size());
    for (size_t i = 0; i < part.size(); ++i)
      CHECK_MSG(part[i] == got[first + i], kern.isa << " gelu depends on position, element " << first + i);
  }
}

}  // namespace

TEST(gelu_is_accurate_and_position_independent_generic) { check_gelu(cpu::kernels_generic()); }

TEST(gelu_is_accurate_and_position_independent_best_isa) { check_gelu(cpu::best_kernels()); }

TEST(silu_mul_is_accurate_and_position_independent_generic) { check_silu_mul(cpu::kernels_generic()); }

TEST(silu_mul_is_accurate_and_position_independent_best_isa) { check_silu_mul(cpu::best_kernels()); }

TEST(line_encoder_kernels_round_as_their_plain_loops_generic) { check_line_kernels(cpu::kernels_generic()); }

TEST(line_encoder_kernels_round_as_their_plain_loops_best_isa) { check_line_kernels(cpu::best_kernels()); }

// The CTC distribution of a line's columns: each probability within 2e-6 of itself (1e-12 in the far tail) of the
// double softmax, logits spread as a CTC head's are (one class far above the rest), a width with a vector tail,
// and the same result whatever the threads.
TEST(softmax_rows_is_accurate_and_thread_independent) {
  const int rows = 7, cols = 6625;
  auto x = randv(size_t(rows) * cols, 13);
  for (size_t i = 0; i < x.size(); ++i) x[i] *= 8.0f;
  for (int r = 0; r < rows; ++r) x[size_t(r) * cols + size_t(r * 911 % cols)] = 40.0f;
  auto one = x, two = x;
  create_backend({"cpu", 1})->softmax_rows(one.data(), rows, cols);
  create_backend({"cpu", 2})->softmax_rows(two.data(), rows, cols);
  CHECK(one == two);
  for (int r = 0; r < rows; ++r) {
    const float* z = x.data() + size_t(r) * cols;
    const double top = *std::max_element(z, z + cols);
    double sum = 0;
    for (int j = 0; j < cols; ++j) sum += std::exp(double(z[j]) - top);
    for (int j = 0; j < cols; ++j) {
      const double want = std::exp(double(z[j]) - top) / sum;
      CHECK_MSG(std::fabs(one[size_t(r) * cols + j] - want) <= 2e-6 * want + 1e-12, "row " << r << " class " << j);
    }
  }
}

// SACCADE_CPU_KERNELS picks any set the CPU runs, by its name; one it cannot run, or no set at all, is refused
// with the names of those it can.
TEST(cpu_kernels_are_forced_by_name_and_refused_where_the_cpu_lacks_them) {
  const char* before = std::getenv("SACCADE_CPU_KERNELS");
  const std::string saved = before ? before : "";
  for (const cpu::Kernels* k : cpu::runnable_kernels()) {
    setenv("SACCADE_CPU_KERNELS", k->isa, 1);
    CHECK(std::string(cpu::best_kernels().isa) == k->isa);
  }
  setenv("SACCADE_CPU_KERNELS", "avx1024", 1);
  CHECK_THROWS_WITH(cpu::best_kernels(), "this CPU runs generic");
  if (before) setenv("SACCADE_CPU_KERNELS", saved.c_str(), 1);
  else unsetenv("SACCADE_CPU_KERNELS");
}

// The CPU's convolution reads its windows in place; the Backend's own writes them out with im2col and runs
// linear(). Both must give the same numbers, bit for bit, for every weight format the CPU keeps Linear weights
// in (fp32, and fp16 or bf16 where every weight is such a number), strides 1 and 2, odd map sizes whose windows
// hang over every edge, and a relu or none.
TEST(convolution_in_place_equals_im2col_and_linear) {
  auto be = create_backend({"cpu", 2});
  for (int format = 0; format < 3; ++format)
    for (int s : {1, 2})
      for (int k : {1, 3})
        for (bool relu : {false, true}) {
          const int H = 7, W = 13, C = 5, N = 37;
          auto x = randv(size_t(H) * W * C, 21), w = randv(size_t(N) * k * k * C, 22), b = randv(size_t(N), 23);
          if (format == 1) for (float& v : w) v = f16_to_f32(f32_to_f16(v));
          if (format == 2) for (float& v : w) v = bf16_to_f32(f32_to_bf16_bits(v));
          const Weight wt = be->upload_weight(w, N, k * k * C, WeightUse::Linear);
          const int Ho = (H + s - 1) / s, Wo = (W + s - 1) / s;
          Buffer src(be.get(), x.size()), got(be.get(), size_t(Ho) * Wo * N), want(be.get(), size_t(Ho) * Wo * N);
          be->upload(src.data(), x.data(), x.size());
          be->conv(src.data(), H, W, C, k, k, s, s, wt, b.data(), relu, got.data());
          be->Backend::conv(src.data(), H, W, C, k, k, s, s, wt, b.data(), relu, want.data());
          CHECK_MSG(std::equal(got.data(), got.data() + got.size(), want.data()),
                    "format " << format << " stride " << s << " kernel " << k << " relu " << relu);
        }
}
