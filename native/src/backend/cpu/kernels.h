#pragma once
// CPU kernels compiled once per instruction set (kernels_generic.cc, kernels_avx2.cc, kernels_avx512.cc from
// the same template, kernels_impl.inl) and picked at run time by cpuid.
#include <cstdint>
#include <vector>

#include "backend/backend.h"

namespace saccade::cpu {

// The most query rows Kernels::attend_rows takes at once: a block's probabilities stay in L2 over a few
// thousand keys, and its key and value tiles are read once for all of them.
constexpr int kAttendRows = 16;

// The int8 products' layout (Kernels::gemm_q8): channels in groups of kQ8Group, each its own step; a thread
// takes up to kQ8RowBlock rows of x at a time.
constexpr int kQ8Group = 32;
constexpr int kQ8RowBlock = 12;

// Backend::conv's shape: src [H, W, C], a kh x kw window, stride (sy, sx), zero padding (kh / 2, kw / 2), N outputs.
struct ConvShape {
  int H, W, C, kh, kw, sy, sx, N;
};

struct Kernels {
  const char* isa;
  bool fused;  // multiply-adds round once (FMA); the portable kernels round the product and the sum
  int panel;  // output columns per packed weight panel
  // The GEMM's tile: up to row_block rows of x by panel_block panels; a caller splitting work between threads
  // along these keeps every tile whole.
  int row_block;
  int panel_block;
  // The same for gemm_bf16_pairs, whose tile may be another shape (AMX's: 32 rows by every panel).
  int pairs_row_block;
  int pairs_panel_block;
  // Packs w[N, K] (torch layout) into ceil(N / panel) panels of [K][panel], the last one zero-padded; the
  // _f16 and _bf16 variants store fp16 or bf16 (exact only for weights that are such numbers).
  void (*pack)(const float* w, int N, int K, float* packed);
  void (*pack_f16)(const float* w, int N, int K, uint16_t* packed);
  void (*pack_bf16)(const float* w, int N, int K, uint16_t* packed);
  // y[m, n] = dot(x[m, :K], w[n, :K]) (+ bias[n]) for the columns of panels [p_begin, p_end), all m < M;
  // w packed by `pack` (or `pack_f16` for gemm_f16, `pack_bf16` for gemm_bf16). All give the same result for
  // the same weights.
  void (*gemm)(const float* x, int M, int K, const float* w, const float* bias, float* y, int N, int p_begin,
               int p_end);
  void (*gemm_f16)(const float* x, int M, int K, const uint16_t* w, const float* bias, float* y, int N,
                   int p_begin, int p_end);
  void (*gemm_bf16)(const float* x, int M, int K, const uint16_t* w, const float* bias, float* y, int N,
                    int p_begin, int p_end);
  // Output rows [oy_begin, oy_end) and panels [p_begin, p_end) of Backend::conv, w packed as for gemm (fp32,
  // fp16 or bf16 panels) from [N, kh * kw * C]; zeros: C zeros. Each output the same number as gemm's over
  // im2col's row of its window, then relu'd where asked.
  void (*conv)(const ConvShape& s, const float* src, const float* zeros, const float* w, const float* bias, bool relu,
               float* dst, int oy_begin, int oy_end, int p_begin, int p_end);
  void (*conv_f16)(const ConvShape& s, const float* src, const float* zeros, const uint16_t* w, const float* bias,
                   bool relu, float* dst, int oy_begin, int oy_end, int p_begin, int p_end);
  void (*conv_bf16)(const ConvShape& s, const float* src, const float* zeros, const uint16_t* w, const float* bias,
                    bool relu, float* dst, int oy_begin, int oy_end, int p_begin, int p_end);
  // Products of bf16 pairs, where the CPU multiplies them natively (AVX-512 BF16; nullptr elsewhere):
  // x rounded to bf16 (to nearest, ties to even) into rows of ceil(K / 2) pairs, an odd K's last pair ending
  // in a zero; w[N, K] rounded so into panels of [ceil(K / 2)][panel][2], each lane a pair of consecutive k;
  // and y[m, n] = (bias[n] +) the pairs' products summed in k order in fp32, every output with one fixed
  // arithmetic whatever M and the tile.
  void (*round_to_bf16_pairs)(const float* x, int M, int K, uint16_t* out);
  void (*pack_bf16_pairs)(const float* w, int N, int K, uint16_t* packed);
  void (*gemm_bf16_pairs)(const uint16_t* x, int M, int pairs, const uint16_t* w, const float* bias, float* y,
                          int N, int p_begin, int p_end);
  // Attention of query rows [row0, row0 + rows) (rows <= kAttendRows) for the Hq / Hkv query heads that share
  // KV head kv_head (AttentionArgs), the rows together so that each tile of keys and values read from memory
  // serves all of them; every row's result is bit for bit the one it has alone. With P = the rows' largest
  // key_limit + 32, probs holds rows * (Hq / Hkv) * P floats and slots rows * P ints of scratch. Writes the
  // rows' group heads to a.out; when the pointers are set, adds per row and query head the image attention mass
  // (image_mass_acc[row * Hq + head]) and the per-image-slot probabilities
  // (image_scores_acc[(row * Hq + head) * image slots + slot]).
  void (*attend_rows)(const AttentionArgs& a, int row0, int rows, int kv_head, float* probs, int* slots,
                      float* image_mass_acc, float* image_scores_acc);
  // Output rows [oy_begin, oy_end) of Backend::depthwise_conv, with the weights tap-major: taps[k * k][C].
  void (*depthwise_rows)(const float* src, int H, int W, int C, int k, int sy, int sx, const float* taps,
                         const float* bias, float* dst, int oy_begin, int oy_end);
  // Backend::affine_hardswish over x[0, n).
  void (*affine_hardswish)(float* x, size_t n, float s1, float b1, float s2, float b2);
  // Backend::silu_mul: out = silu(gate) * up over [0, n).
  void (*silu_mul)(const float* gate, const float* up, float* out, size_t n);
  // Backend::gelu in place over x[0, n): x / 2 (1 + erf(x / sqrt 2)), erf within 1.5e-7 of itself.
  void (*gelu)(float* x, size_t n);
  // Softmax over p[0, n) in place; p has room for n rounded up to `panel` floats (the padding is overwritten).
  void (*softmax)(float* p, int n);
  // Products of bytes, where the set has them (nullptr elsewhere; docs/decisions/0049): x[M, K] quantised
  // per row and group of kQ8Group channels to bytes (x / step + 128) and the groups' steps; w[N, K] packed
  // per column and group to 7-bit signed bytes with their steps and offsets (kernels_int8.inl lays them out);
  // y[m, n] = (bias[n] +) the groups' exact integer sums, each times its two steps, added in group order.
  void (*quantize_q8)(const float* x, int M, int K, uint8_t* q, float* steps) = nullptr;
  void (*pack_q8)(const float* w, int N, int K, int8_t* packed, float* steps, int32_t* offsets) = nullptr;
  void (*gemm_q8)(const uint8_t* x, const float* xs, int M, int groups, const int8_t* w, const float* ws,
                  const int32_t* wo, const float* bias, float* y, int N, int p_begin, int p_end) = nullptr;
};

const Kernels& kernels_generic();
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();
const Kernels& kernels_avx512_bf16();  // kernels_avx512() with the bf16 pair products
const Kernels& kernels_amx();          // kernels_avx512_bf16() with the pair products on AMX tiles
const Kernels& kernels_avx2_vnni();    // kernels_avx2() with byte products on AVX-VNNI's VPDPBUSD
const Kernels& kernels_avx512_vnni();  // kernels_avx512() with byte products on AVX-512 VNNI's VPDPBUSD
bool amx_usable();                      // cpuid lists AMX BF16 and the OS grants this process its tile state
// The kernel sets this CPU can run, narrowest first, each fp32 set followed by the sets that add reduced products
// to it (their `isa` names: generic, avx2, avx2-vnni, avx512, avx512-vnni, avx512-bf16, avx512-amx).
std::vector<const Kernels*> runnable_kernels();
// AVX-512 > AVX2 > generic by cpuid, each with the reduced products (bytes, or bf16 pairs on AVX-512 BF16 or
// AMX tiles) that are wanted, present and measured clearly faster than fp32 here. SACCADE_CPU_KERNELS=<isa>
// forces one of runnable_kernels() (a developer on an AVX-512 machine measures the AVX2 path users have); naming
// one this CPU cannot run throws. reduced = false: the chosen or named set's fp32 products.
const Kernels& best_kernels(bool reduced = true);

}  // namespace saccade::cpu
