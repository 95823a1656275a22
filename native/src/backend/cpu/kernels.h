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
  // Attention of one query row and one head; see AttentionArgs. scratch holds key_limit floats.
  // Returns nothing; writes out[d] and, when wanted, adds probs of image slots into image_scores.
  void (*attend_row)(const AttentionArgs& a, int row, int head, float* scratch, float* out,
                     float* image_mass_acc, float* image_scores_acc);
};

const Kernels& kernels_generic();
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();
const Kernels& best_kernels();

}  // namespace saccade::cpu
