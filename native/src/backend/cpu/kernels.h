#pragma once
// CPU kernels compiled once per instruction set (kernels_generic.cc, kernels_avx2.cc, kernels_avx512.cc from
// the same template, kernels_impl.inl) and picked at run time by cpuid.
#include "backend/backend.h"

namespace saccade::cpu {

struct Kernels {
  const char* isa;
  // y[m, n] = dot(x[m, :K], w[n, :K]) (+ bias[n]) for n in [n_begin, n_end), all m < M.
  void (*gemm)(const float* x, int M, int K, const float* w, const float* bias, float* y, int N, int n_begin,
               int n_end);
  // Attention of one query row and one head (AttentionArgs); scratch holds key_limit[row] floats. Writes
  // out[d]; when the pointers are set, adds the image attention mass and per-image-slot probabilities.
  void (*attend_row)(const AttentionArgs& a, int row, int head, float* scratch, float* out,
                     float* image_mass_acc, float* image_scores_acc);
};

const Kernels& kernels_generic();
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();
// AVX-512 > AVX2 > generic by cpuid; SACCADE_CPU_GENERIC=1 forces the portable kernels.
const Kernels& best_kernels();

}  // namespace saccade::cpu
