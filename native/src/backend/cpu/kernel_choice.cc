// Which kernels the CPU backend runs: the widest instruction set cpuid offers, and the bf16 pair products only
// where they pay. Having the instruction is not enough: VDPBF16PS does 32 multiply-adds to an fp32 FMA's 16
// on paper, and on a Zen 4 the line encoder's pointwise GEMMs ran twice as fast with it, while a Sapphire
// Rapids guest ran them 1.3-1.6 times slower than fp32 (docs/decisions/0036), and its AMX tiles faster than
// either (docs/decisions/0037). So the choice is measured, once per process, on a GEMM of the line encoder's
// shape.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"
#include "util/error.h"

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

// A pointwise convolution of the line encoder's middle stages (240 positions, 240 channels in and out): the
// fp32 kernels' time and each bf16 pair kernel set's, fastest of 5 on one thread.
struct Probe {
  static constexpr int M = 240, K = 240, N = 240, pairs = (K + 1) / 2;
  std::vector<float> x, w, y;
  Probe() : x(size_t(M) * K), w(size_t(N) * K), y(size_t(M) * N) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (float& v : x) v = normal(rng);
    for (float& v : w) v = normal(rng);
  }
  double fp32_ms(const Kernels& k) {
    const int panels = (N + k.panel - 1) / k.panel;
    std::vector<float> wf(size_t(panels) * k.panel * K);
    k.pack(w.data(), N, K, wf.data());
    return fastest_ms(5, [&] {
      for (int m0 = 0; m0 < M; m0 += k.row_block)
        k.gemm(x.data() + size_t(m0) * K, std::min(k.row_block, M - m0), K, wf.data(), nullptr,
               y.data() + size_t(m0) * N, N, 0, panels);
    });
  }
  double pairs_ms(const Kernels& k) {
    const int panels = (N + k.panel - 1) / k.panel;
    std::vector<uint16_t> wb(size_t(panels) * k.panel * 2 * pairs), xb(size_t(M) * 2 * pairs);
    k.pack_bf16_pairs(w.data(), N, K, wb.data());
    return fastest_ms(5, [&] {
      k.round_to_bf16_pairs(x.data(), M, K, xb.data());
      for (int m0 = 0; m0 < M; m0 += k.pairs_row_block)
        for (int p0 = 0; p0 < panels; p0 += k.pairs_panel_block)
          k.gemm_bf16_pairs(xb.data() + size_t(m0) * 2 * pairs, std::min(k.pairs_row_block, M - m0), pairs, wb.data(),
                            nullptr, y.data() + size_t(m0) * N, N, p0, std::min(panels, p0 + k.pairs_panel_block));
    });
  }
};

// The fastest bf16 pair kernels this CPU has, where they take at most kBf16MustTake of fp32's time; else fp32.
const Kernels& measured_avx512(const CpuFeatures& f) {
  if (!f.avx512bf16) return kernels_avx512();
  Probe probe;
  const double fp32 = probe.fp32_ms(kernels_avx512());
  const Kernels* best = &kernels_avx512_bf16();
  double best_ms = probe.pairs_ms(*best);
  if (amx_usable()) {
    const double amx = probe.pairs_ms(kernels_amx());
    if (amx < best_ms) {
      best = &kernels_amx();
      best_ms = amx;
    }
  }
  return best_ms <= kBf16MustTake * fp32 ? *best : kernels_avx512();
}

}  // namespace

std::vector<const Kernels*> runnable_kernels() {
  const CpuFeatures& f = cpu_features();
  std::vector<const Kernels*> sets{&kernels_generic()};
  if (!(f.fma && f.f16c)) return sets;
  if (f.avx2) sets.push_back(&kernels_avx2());
  if (f.avx512f) sets.push_back(&kernels_avx512());
  if (f.avx512f && f.avx512bf16) sets.push_back(&kernels_avx512_bf16());
  if (f.avx512f && f.avx512bf16 && amx_usable()) sets.push_back(&kernels_amx());
  return sets;
}

const Kernels& best_kernels(bool bf16_pairs) {
  const CpuFeatures& f = cpu_features();
  if (const char* named = std::getenv("SACCADE_CPU_KERNELS"); named && *named) {
    std::string names;
    for (const Kernels* k : runnable_kernels()) {
      if (k->isa == std::string(named))
        return bf16_pairs || !k->gemm_bf16_pairs ? *k : kernels_avx512();  // fp32 asked for: the same set's fp32 sums
      names += std::string(names.empty() ? "" : ", ") + k->isa;
    }
    throw EngineError("SACCADE_CPU_KERNELS=" + std::string(named) + ": this CPU runs " + names);
  }
  if (f.avx512f && f.fma && f.f16c) {
    static const Kernels& measured = measured_avx512(f);
    return bf16_pairs ? measured : kernels_avx512();
  }
  if (f.avx2 && f.fma && f.f16c) return kernels_avx2();
  return kernels_generic();
}

}  // namespace saccade::cpu
