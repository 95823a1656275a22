// The int8 products (Kernels::gemm_q8, docs/decisions/0049), shared by every instruction set that has them.
// Included inside a namespace that defines `struct Dot` with:
//   using I (an integer register of Vec::L int32 lanes); load(const int8_t*) (Vec::L * 4 bytes); set1(int32_t);
//   dot(acc, a, w): each int32 lane of acc plus the four products of a's unsigned bytes with w's signed bytes
//   in that lane, exactly (VPDPBUSD); to_float(I) -> Vec::R; store_bytes(uint8_t*, Vec::R): L integral
//   values in [0, 255] as bytes.
// One arithmetic for every instruction set and tile: a group's sum of products is an exact integer, and the
// groups' scaled sums are added in group order with one FMA each, so an output is the same number on AVX-VNNI
// and AVX-512 VNNI, whatever M and the threads.

// A group's step: its largest magnitude over `levels`, for groups of any length (a row's last, the weights at
// load); group_step below takes whole groups of activations a vector at a time (a maximum is the same in any
// order).
inline float q8_step(const float* v, int n, float levels) {
  float amax = 0.0f;
  for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(v[i]));
  return amax / levels;
}

// v times a group's inverse step, rounded to the nearest integer, ties to even: adding and taking away 1.5 * 2^23
// rounds any |v| < 2^22 so in IEEE arithmetic, which vectorises on every instruction set alike.
inline int q8_level(float v, float inverse) {
  constexpr float kRound = 12582912.0f;
  return int((v * inverse + kRound) - kRound);
}
inline float q8_inverse(float step) { return step > 0.0f ? 1.0f / step : 0.0f; }

// q8_step of a whole group, a vector at a time.
inline float group_step(const float* x, float levels) {
  using R = typename Vec::R;
  R amax = Vec::zero();
  for (int i = 0; i < kQ8Group; i += Vec::L) {
    const R v = Vec::load(x + i);
    amax = Vec::max(amax, Vec::max(v, Vec::sub(Vec::zero(), v)));
  }
  float lanes[Vec::L];
  Vec::store(lanes, amax);
  return *std::max_element(lanes, lanes + Vec::L) / levels;
}

// A whole group of x as q8_level and the offset would have it, a vector at a time.
inline void quantize_group(const float* x, float inverse, uint8_t* dst) {
  using R = typename Vec::R;
  const R scale = Vec::set1(inverse), round = Vec::set1(12582912.0f), offset = Vec::set1(128.0f);
  for (int i = 0; i < kQ8Group; i += Vec::L) {
    const R level = Vec::sub(Vec::add(Vec::mul(Vec::load(x + i), scale), round), round);
    Dot::store_bytes(dst + i, Vec::add(level, offset));
  }
}

// x[M, K] -> rows of groups * kQ8Group bytes, each x / step in [-127, 127] plus 128 (the instruction takes
// activations as unsigned bytes; 128 past K), and the groups' steps [M][groups] (the group's largest
// magnitude / 127). A step for every kQ8Group channels: the encoder's activations have a few channels many
// times larger than the rest, which one step per row would let swamp them (docs/decisions/0044 measured a
// row's one step moving the golden line).
void quantize_q8(const float* x, int M, int K, uint8_t* q, float* steps) {
  const int groups = (K + kQ8Group - 1) / kQ8Group;
  for (int m = 0; m < M; ++m) {
    const float* row = x + size_t(m) * K;
    uint8_t* dst = q + size_t(m) * groups * kQ8Group;
    for (int g = 0; g < groups; ++g) {
      const int k0 = g * kQ8Group, n = std::min(kQ8Group, K - k0);
      const float step = n == kQ8Group ? group_step(row + k0, 127.0f) : q8_step(row + k0, n, 127.0f);
      const float inverse = q8_inverse(step);
      steps[size_t(m) * groups + g] = step;
      if (n == kQ8Group) {
        quantize_group(row + k0, inverse, dst + k0);
      } else {
        for (int i = 0; i < kQ8Group; ++i) dst[k0 + i] = uint8_t(128 + (i < n ? q8_level(row[k0 + i], inverse) : 0));
      }
    }
  }
}

// w[N, K] -> for each panel of Vec::L columns and each group, [kQ8Group / 4][L][4] signed bytes in [-127, 127];
// then every panel's steps [groups][L] (a column's group's largest magnitude / 127), then its offsets
// [groups][L]: -128 times the group's byte sum, which takes the activations' +128 back out of each sum.
void pack_q8(const float* w, int N, int K, int8_t* packed, float* steps, int32_t* offsets) {
  constexpr int L = Vec::L;
  const int groups = (K + kQ8Group - 1) / kQ8Group, padded = (N + L - 1) / L * L;
  for (int n = 0; n < padded; ++n)
    for (int g = 0; g < groups; ++g) {
      const int k0 = g * kQ8Group, count = std::min(kQ8Group, K - k0);
      const float* row = w + size_t(n) * K + k0;
      const float step = n < N ? q8_step(row, count, 127.0f) : 0.0f, inverse = q8_inverse(step);
      const size_t at = size_t(n / L) * groups + g;
      int32_t sum = 0;
      for (int i = 0; i < kQ8Group; ++i) {
        const int v = n < N && i < count ? q8_level(row[i], inverse) : 0;
        packed[(at * (kQ8Group / 4) + i / 4) * L * 4 + (n % L) * 4 + i % 4] = int8_t(v);
        sum += v;
      }
      steps[at * L + n % L] = step;
      offsets[at * L + n % L] = -128 * sum;
    }
}

// MR rows x NV panels. Per group: integer sums seeded with the offsets, then each added to its float sum
// scaled by the row's step times the column's.
template <int MR, int NV>
inline void tile_q8(const uint8_t* x, const float* xs, int groups, const int8_t* w, const float* ws,
                    const int32_t* wo, const float* bias, float* y, int N, int n0) {
  constexpr int L = Vec::L;
  using R = typename Vec::R;
  using I = typename Dot::I;
  const size_t row = size_t(groups) * kQ8Group, pbytes = row * L, pscales = size_t(groups) * L;
  R acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = Vec::zero();
  for (int g = 0; g < groups; ++g) {
    I sums[MR][NV];
    for (int j = 0; j < NV; ++j) {
      const I seed = Dot::load(reinterpret_cast<const int8_t*>(wo + j * pscales + size_t(g) * L));
      for (int i = 0; i < MR; ++i) sums[i][j] = seed;
    }
    const int8_t* wg = w + size_t(g) * kQ8Group * L;
    for (int q = 0; q < kQ8Group / 4; ++q) {
      I wv[NV];
      for (int j = 0; j < NV; ++j) wv[j] = Dot::load(wg + j * pbytes + size_t(q) * 4 * L);
      for (int i = 0; i < MR; ++i) {
        int32_t four;
        std::memcpy(&four, x + i * row + size_t(g) * kQ8Group + q * 4, sizeof four);
        const I a = Dot::set1(four);
        for (int j = 0; j < NV; ++j) sums[i][j] = Dot::dot(sums[i][j], a, wv[j]);
      }
    }
    for (int j = 0; j < NV; ++j) {
      const R wstep = Vec::load(ws + j * pscales + size_t(g) * L);
      for (int i = 0; i < MR; ++i)
        acc[i][j] = Vec::fma(Dot::to_float(sums[i][j]), Vec::mul(Vec::set1(xs[size_t(i) * groups + g]), wstep), acc[i][j]);
    }
  }
  for (int j = 0; j < NV; ++j) {
    const int n = n0 + j * L;
    const int cols = N - n < L ? N - n : L;
    for (int i = 0; i < MR; ++i) {
      float out[L];
      Vec::store(out, acc[i][j]);
      float* yr = y + size_t(i) * N + n;
      for (int c = 0; c < cols; ++c) yr[c] = bias ? out[c] + bias[n + c] : out[c];
    }
  }
}

template <int MR, int NV>
inline void rows_tile_q8(const uint8_t* x, const float* xs, int groups, const int8_t* w, const float* ws,
                         const int32_t* wo, const float* bias, float* y, int N, int p_begin, int p_end) {
  const size_t pbytes = size_t(groups) * kQ8Group * Vec::L, pscales = size_t(groups) * Vec::L;
  int p = p_begin;
  for (; p + NV <= p_end; p += NV)
    tile_q8<MR, NV>(x, xs, groups, w + p * pbytes, ws + p * pscales, wo + p * pscales, bias, y, N, p * Vec::L);
  if constexpr (NV > 1) {
    if (p < p_end) rows_tile_q8<MR, NV / 2>(x, xs, groups, w, ws, wo, bias, y, N, p, p_end);
  }
}

// A tile keeps an integer and a float sum per output: half the registers gemm<T>'s tiles take for sums. Its
// rows divide kQ8RowBlock and its panels kPanelBlock, so that a thread's block is whole tiles.
constexpr int kQ8TileRows = Vec::kAccumulators / 2 >= 12 ? 6 : 2;
constexpr int q8_tile_panels(int rows) {
  int panels = 1;
  while (2 * panels <= kPanelBlock && 2 * panels * rows <= Vec::kAccumulators / 2) panels *= 2;
  return panels;
}
static_assert(kQ8RowBlock % kQ8TileRows == 0 && kPanelBlock % q8_tile_panels(kQ8TileRows) == 0);

// Panels [p_begin, p_end) of y = x W^T (+ bias) from quantize_q8's rows and pack_q8's panels (w: the bytes,
// ws: the steps, wo: the offsets, as pack_q8 lays them out).
void gemm_q8(const uint8_t* x, const float* xs, int M, int groups, const int8_t* w, const float* ws, const int32_t* wo,
             const float* bias, float* y, int N, int p_begin, int p_end) {
  constexpr int MR = kQ8TileRows;
  const size_t row = size_t(groups) * kQ8Group;
  for (int pb = p_begin; pb < p_end; pb += kPanelBlock) {
    const int pe = pb + kPanelBlock < p_end ? pb + kPanelBlock : p_end;
    int m = 0;
    for (; m + MR <= M; m += MR)
      rows_tile_q8<MR, q8_tile_panels(MR)>(x + m * row, xs + size_t(m) * groups, groups, w, ws, wo, bias,
                                           y + size_t(m) * N, N, pb, pe);
    for (; m < M; ++m)
      rows_tile_q8<1, q8_tile_panels(1)>(x + m * row, xs + size_t(m) * groups, groups, w, ws, wo, bias,
                                         y + size_t(m) * N, N, pb, pe);
  }
}

// `base` with these byte products added, named `isa`.
Kernels with_byte_products(const Kernels& base, const char* isa) {
  Kernels k = base;
  k.isa = isa;
  k.quantize_q8 = quantize_q8;
  k.pack_q8 = pack_q8;
  k.gemm_q8 = gemm_q8;
  return k;
}
