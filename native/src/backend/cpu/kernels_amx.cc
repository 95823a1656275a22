// The bf16 pair products on AMX tiles (Sapphire Rapids and later): the avx512-bf16 kernel set with its GEMM
// replaced. A TDPBF16PS multiplies a 16 x 32 bf16 tile of x by a 32 x 16 one of w into 16 x 16 fp32 sums, 16
// times the multiply-adds of a VDPBF16PS; the packed weights are already in the tile's layout (16 columns of
// pairs per panel row, kernels.h). docs/decisions/0037-amx-tiles-for-the-line-encoder.md
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"

namespace saccade::cpu {

namespace {

constexpr int kTileRows = 16;                // rows of x and of the output per tile
constexpr int kTilePairs = 16;               // pairs of k per tile: 64 bytes a row
constexpr int kRows = 2 * kTileRows;         // rows of x per call: two x tiles against two weight tiles
constexpr int kCols = 16;                    // output columns per weight panel (kernels_avx512's panel)

// Palette 1, every tile 16 rows of 64 bytes: tiles 0-3 the sums, 4-5 x, 6-7 w.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// The configuration is the thread's (saved and restored with its state): loaded once per thread.
void configure_tiles() {
  thread_local bool configured = false;
  if (configured) return;
  TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = kTileRows;
  }
  _tile_loadconfig(&c);
  configured = true;
}

// Writes a 16 x 16 tile of sums to y: rows below `rows`, columns below `cols`, plus the bias.
void store_sums(const float* sums, int rows, int cols, const float* bias, float* y, int N) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) y[size_t(r) * N + c] = bias ? sums[r * kCols + c] + bias[c] : sums[r * kCols + c];
}

// Up to 32 rows of x (rounded to pairs) against panels [p_begin, p_end). x's rows are copied into a block whose
// missing rows and pairs are zero, and a panel's last partial tile of pairs into a zeroed one, so every tile
// is whole and each output is its bias plus the same sums whatever M (zero pairs add exact zeros).
void gemm_tiles(const uint16_t* x, int M, int pairs, const uint16_t* w, const float* bias, float* y, int N,
                int p_begin, int p_end) {
  configure_tiles();
  const int padded = (pairs + kTilePairs - 1) / kTilePairs * kTilePairs;
  const int whole = pairs / kTilePairs * kTilePairs;
  thread_local std::vector<uint16_t> block;
  block.assign(size_t(kRows) * 2 * padded, 0);
  for (int r = 0; r < M; ++r) std::memcpy(block.data() + size_t(r) * 2 * padded, x + size_t(r) * 2 * pairs, size_t(pairs) * 4);
  const size_t xstride = size_t(padded) * 4, panel = size_t(pairs) * 2 * kCols;
  alignas(64) uint16_t tail[2][kTilePairs * 2 * kCols];
  alignas(64) float sums[4][kTileRows * kCols];
  for (int p = p_begin; p < p_end; p += 2) {
    const int second = p + 1 < p_end ? p + 1 : p;  // an odd last panel: its twin's sums are not stored
    const uint16_t* w0 = w + size_t(p) * panel;
    const uint16_t* w1 = w + size_t(second) * panel;
    if (whole < pairs) {
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail[0], w0 + size_t(whole) * 2 * kCols, size_t(pairs - whole) * 4 * kCols);
      std::memcpy(tail[1], w1 + size_t(whole) * 2 * kCols, size_t(pairs - whole) * 4 * kCols);
    }
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int k = 0; k < padded; k += kTilePairs) {
      const bool in_tail = k >= whole;
      _tile_loadd(4, block.data() + size_t(k) * 2, xstride);
      _tile_loadd(5, block.data() + size_t(kTileRows) * 2 * padded + size_t(k) * 2, xstride);
      _tile_loadd(6, in_tail ? tail[0] : w0 + size_t(k) * 2 * kCols, 64);
      _tile_loadd(7, in_tail ? tail[1] : w1 + size_t(k) * 2 * kCols, 64);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, sums[0], 64);
    _tile_stored(1, sums[1], 64);
    _tile_stored(2, sums[2], 64);
    _tile_stored(3, sums[3], 64);
    for (int j = 0; j < (second != p ? 2 : 1); ++j) {
      const int n = (p + j) * kCols, cols = std::min(kCols, N - n);
      const float* b = bias ? bias + n : nullptr;
      store_sums(sums[j], std::min(M, kTileRows), cols, b, y + n, N);
      if (M > kTileRows) store_sums(sums[2 + j], M - kTileRows, cols, b, y + size_t(kTileRows) * N + n, N);
    }
  }
}

void gemm_bf16_pairs(const uint16_t* x, int M, int pairs, const uint16_t* w, const float* bias, float* y, int N,
                     int p_begin, int p_end) {
  for (int m = 0; m < M; m += kRows)
    gemm_tiles(x + size_t(m) * 2 * pairs, std::min(kRows, M - m), pairs, w, bias, y + size_t(m) * N, N, p_begin, p_end);
}

}  // namespace

bool amx_usable() {
  // Linux hands a process the tile registers' state only when asked (arch_prctl ARCH_REQ_XCOMP_PERM for
  // XFEATURE_XTILEDATA); a kernel or hypervisor that refuses leaves AMX unusable though cpuid lists it.
  static const bool usable = cpu_features().amx_bf16 && cpu_features().avx512bf16 &&
                             syscall(SYS_arch_prctl, 0x1023, 18) == 0;
  return usable;
}

const Kernels& kernels_amx() {
  static const Kernels k = [] {
    Kernels a = kernels_avx512_bf16();
    a.isa = "avx512-amx";
    a.pairs_row_block = kRows;
    a.pairs_panel_block = 1 << 20;  // every panel: x's rows are copied into their tile block once per call
    a.gemm_bf16_pairs = gemm_bf16_pairs;
    return a;
  }();
  return k;
}

}  // namespace saccade::cpu
