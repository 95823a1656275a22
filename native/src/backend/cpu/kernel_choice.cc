// Which kernels the CPU backend runs: the widest instruction set cpuid offers, and the bf16 pair products only
// where they pay. Having the instruction is not enough: VDPBF16PS does 32 multiply-adds to an fp32 FMA's 16
// on paper, and on a Zen 4 the line encoder's pointwise GEMMs ran twice as fast with it, while a Sapphire
// Rapids guest ran them 1.3-1.6 times slower than fp32 (docs/decisions/0036). So the choice is measured, once
// per process, on a GEMM of the line encoder's shape.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"

namespace saccade::cpu {

namespace {

// bf16 rounds every activation; it is taken only where it is clearly faster, so that a timing near a tie does
// not make one machine's output differ from run to run.
constexpr double kBf16MustTake = 0.8;

// One thread, the fastest of a few repetitions: about 5 ms on either kernel set at these sizes.
template <class Run>
double fastest_ms(int repetitions, const Run& run) {
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// A pointwise convolution of the line encoder's middle stages: 240 positions, 240 channels in and out.
bool bf16_pairs_pay(const Kernels& fp32, const Kernels& bf16) {
  constexpr int M = 240, K = 240, N = 240, pairs = (K + 1) / 2;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> x(size_t(M) * K), w(size_t(N) * K), y(size_t(M) * N);
  for (float& v : x) v = normal(rng);
  for (float& v : w) v = normal(rng);
  const int panels = (N + fp32.panel - 1) / fp32.panel;
  std::vector<float> wf(size_t(panels) * fp32.panel * K);
  fp32.pack(w.data(), N, K, wf.data());
  std::vector<uint16_t> wb(size_t(panels) * bf16.panel * 2 * pairs), xb(size_t(M) * 2 * pairs);
  bf16.pack_bf16_pairs(w.data(), N, K, wb.data());
  const double f = fastest_ms(5, [&] {
    for (int m0 = 0; m0 < M; m0 += fp32.row_block)
      fp32.gemm(x.data() + size_t(m0) * K, std::min(fp32.row_block, M - m0), K, wf.data(), nullptr,
                y.data() + size_t(m0) * N, N, 0, panels);
  });
  const double b = fastest_ms(5, [&] {
    bf16.round_to_bf16_pairs(x.data(), M, K, xb.data());
    for (int m0 = 0; m0 < M; m0 += bf16.row_block)
      bf16.gemm_bf16_pairs(xb.data() + size_t(m0) * 2 * pairs, std::min(bf16.row_block, M - m0), pairs, wb.data(),
                           nullptr, y.data() + size_t(m0) * N, N, 0, panels);
  });
  return b <= kBf16MustTake * f;
}

}  // namespace

const Kernels& best_kernels(bool bf16_pairs) {
  const CpuFeatures& f = cpu_features();
  if (std::getenv("SACCADE_CPU_GENERIC")) return kernels_generic();
  if (f.avx512f && f.fma && f.f16c) {
    static const bool pay = f.avx512bf16 && bf16_pairs_pay(kernels_avx512(), kernels_avx512_bf16());
    return bf16_pairs && pay ? kernels_avx512_bf16() : kernels_avx512();
  }
  if (f.avx2 && f.fma && f.f16c) return kernels_avx2();
  return kernels_generic();
}

}  // namespace saccade::cpu
