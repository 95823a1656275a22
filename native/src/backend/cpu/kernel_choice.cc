// Which kernels the CPU backend runs: the widest instruction set cpuid offers, and reduced products (bf16 pairs,
// bytes) for the line encoder's pointwise convolutions only where they pay. Having the instruction is not
// enough: VDPBF16PS does 32 multiply-adds to an fp32 FMA's 16 on paper, and on a Zen 4 the line encoder's
// pointwise GEMMs ran twice as fast with it, while a Sapphire Rapids guest ran them 1.3-1.6 times slower than
// fp32 (docs/decisions/0036), and its AMX tiles faster than either (docs/decisions/0037); VNNI's byte products
// take a quarter of fp32's instructions, but their activations are quantised first (docs/decisions/0049).
// So the choice is measured, once per process, on a GEMM of the line encoder's shape.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"
#include "util/error.h"

namespace saccade::cpu {

namespace {

// Reduced products round every activation; they are taken only where clearly faster, so that a timing near a
// tie does not make one machine's output differ from run to run.
constexpr double kReducedMustTake = 0.8;

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
// fp32 kernels' time and each reduced kernel set's, fastest of 5 on one thread.
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
  double bytes_ms(const Kernels& k) {
    const int panels = (N + k.panel - 1) / k.panel, groups = (K + kQ8Group - 1) / kQ8Group;
    std::vector<int8_t> wq(size_t(panels) * k.panel * groups * kQ8Group);
    std::vector<float> ws(size_t(panels) * k.panel * groups), xs(size_t(M) * groups);
    std::vector<int32_t> wo(ws.size());
    std::vector<uint8_t> xq(size_t(M) * groups * kQ8Group);
    k.pack_q8(w.data(), N, K, wq.data(), ws.data(), wo.data());
    return fastest_ms(5, [&] {
      k.quantize_q8(x.data(), M, K, xq.data(), xs.data());
      for (int m0 = 0; m0 < M; m0 += kQ8RowBlock)
        k.gemm_q8(xq.data() + size_t(m0) * groups * kQ8Group, xs.data() + size_t(m0) * groups,
                  std::min(kQ8RowBlock, M - m0), groups, wq.data(), ws.data(), wo.data(), nullptr,
                  y.data() + size_t(m0) * N, N, 0, panels);
    });
  }
  double reduced_ms(const Kernels& k) { return k.gemm_q8 ? bytes_ms(k) : pairs_ms(k); }
};

// The fastest of the reduced kernel sets where it takes at most kReducedMustTake of the fp32 set's time; else
// the fp32 set.
const Kernels& measured(const Kernels& fp32, const std::vector<const Kernels*>& reduced) {
  if (reduced.empty()) return fp32;
  Probe probe;
  const double fp32_ms = probe.fp32_ms(fp32);
  const Kernels* best = &fp32;
  double best_ms = kReducedMustTake * fp32_ms;
  for (const Kernels* k : reduced)
    if (const double ms = probe.reduced_ms(*k); ms <= best_ms) {
      best = k;
      best_ms = ms;
    }
  return *best;
}

// The sets of reduced products this CPU runs, beside each fp32 set.
std::vector<const Kernels*> reduced_avx2(const CpuFeatures& f) {
  if (f.avx_vnni) return {&kernels_avx2_vnni()};
  return {};
}

std::vector<const Kernels*> reduced_avx512(const CpuFeatures& f) {
  std::vector<const Kernels*> sets;
  if (f.avx512vnni) sets.push_back(&kernels_avx512_vnni());
  if (f.avx512bf16) sets.push_back(&kernels_avx512_bf16());
  if (f.avx512bf16 && amx_usable()) sets.push_back(&kernels_amx());
  return sets;
}

// A set's fp32 products: the set its reduced products were added to, or the set itself.
const Kernels& fp32_of(const Kernels& k, const CpuFeatures& f) {
  const auto added = [&](const std::vector<const Kernels*>& sets) { return std::count(sets.begin(), sets.end(), &k) > 0; };
  if (added(reduced_avx512(f))) return kernels_avx512();
  if (added(reduced_avx2(f))) return kernels_avx2();
  return k;
}

}  // namespace

std::vector<const Kernels*> runnable_kernels() {
  const CpuFeatures& f = cpu_features();
  std::vector<const Kernels*> sets{&kernels_generic()};
  if (!(f.fma && f.f16c)) return sets;
  if (f.avx2) {
    sets.push_back(&kernels_avx2());
    for (const Kernels* k : reduced_avx2(f)) sets.push_back(k);
  }
  if (f.avx512f) {
    sets.push_back(&kernels_avx512());
    for (const Kernels* k : reduced_avx512(f)) sets.push_back(k);
  }
  return sets;
}

const Kernels& best_kernels(bool reduced) {
  const CpuFeatures& f = cpu_features();
  if (const char* named = std::getenv("SACCADE_CPU_KERNELS"); named && *named) {
    std::string names;
    for (const Kernels* k : runnable_kernels()) {
      if (k->isa == std::string(named)) return reduced ? *k : fp32_of(*k, f);
      names += std::string(names.empty() ? "" : ", ") + k->isa;
    }
    throw EngineError("SACCADE_CPU_KERNELS=" + std::string(named) + ": this CPU runs " + names);
  }
  if (f.avx512f && f.fma && f.f16c) {
    static const Kernels& chosen = measured(kernels_avx512(), reduced_avx512(f));
    return reduced ? chosen : kernels_avx512();
  }
  if (f.avx2 && f.fma && f.f16c) {
    static const Kernels& chosen = measured(kernels_avx2(), reduced_avx2(f));
    return reduced ? chosen : kernels_avx2();
  }
  return kernels_generic();
}

}  // namespace saccade::cpu
