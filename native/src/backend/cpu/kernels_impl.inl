// Kernel bodies shared by every ISA. Included by a file that defines `struct Vec` with:
//   static constexpr int L; using R; zero(); load(const float*); load_f16 and load_bf16(const uint16_t*);
//   store(float*, R); fma(a, b, acc) and fma1 (its scalar form, rounding as it does); kAccumulators (the
//   vector registers a GEMM tile may keep as accumulators);
//   add(a, b); sub(a, b); mul(a, b); div(a, b); max(a, b); min(a, b); floor(a); exp2i(n) (2^n for integral n); set1(float); hsum(R) (a fixed
//   tree); hsum8(const R[8], float[8]) (eight sums at once)
// Every output element owns its accumulator and a fixed order of arithmetic. Tile shapes change only which
// elements are computed together, never the arithmetic of one element, so results are independent of M and
// of threading.
namespace {

// Linear layers run on weights packed into panels of L output columns stored k-major ([K][L] per panel; the
// last panel zero-padded), so the kernel broadcasts x[m][k] and multiplies whole panel rows: no horizontal
// sums, and one panel row serves every row of x while it sits in L1. Panels hold fp32, or fp16 or bf16 where
// every weight is exactly such a number (widened on load, so the arithmetic is the same).
struct Bf16 {
  uint16_t bits;
};
inline float to_panel(float v, const float*) { return v; }
inline uint16_t to_panel(float v, const uint16_t*) { return f32_to_f16(v); }
inline Bf16 to_panel(float v, const Bf16*) { return Bf16{f32_to_bf16_bits(v)}; }
inline typename Vec::R load_panel(const float* p) { return Vec::load(p); }
inline typename Vec::R load_panel(const uint16_t* p) { return Vec::load_f16(p); }
inline typename Vec::R load_panel(const Bf16* p) { return Vec::load_bf16(reinterpret_cast<const uint16_t*>(p)); }

template <class T>
void pack(const float* w, int N, int K, T* packed) {
  constexpr int L = Vec::L;
  const int padded = (N + L - 1) / L * L;
  for (int n = 0; n < padded; ++n)
    for (int k = 0; k < K; ++k)
      packed[(size_t(n / L) * K + k) * L + n % L] = to_panel(n < N ? w[size_t(n) * K + k] : 0.0f, packed);
}

// MR rows x NV panels; every y[m][n] is an FMA chain over k = 0..K-1 in order (then + bias), whatever the
// tile, so a row's result does not depend on M.
template <int MR, int NV, class T>
inline void tile(const float* x, int K, const T* panels, const float* bias, float* y, int N, int n0) {
  constexpr int L = Vec::L;
  typename Vec::R acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = Vec::zero();
  const size_t pstride = size_t(K) * L;
  for (int k = 0; k < K; ++k) {
    typename Vec::R wv[NV];
    for (int j = 0; j < NV; ++j) wv[j] = load_panel(panels + j * pstride + size_t(k) * L);
    for (int i = 0; i < MR; ++i) {
      const typename Vec::R xv = Vec::set1(x[size_t(i) * K + k]);
      for (int j = 0; j < NV; ++j) acc[i][j] = Vec::fma(xv, wv[j], acc[i][j]);
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

// Panels [p_begin, p_end) for MR rows, NV panels at a time, the rest in narrower tiles.
template <int MR, int NV, class T>
inline void rows_tile(const float* x, int K, const T* w, const float* bias, float* y, int N, int p_begin, int p_end) {
  int p = p_begin;
  for (; p + NV <= p_end; p += NV) tile<MR, NV>(x, K, w + size_t(p) * K * Vec::L, bias, y, N, p * Vec::L);
  if constexpr (NV > 1) {
    if (p < p_end) rows_tile<MR, NV / 2>(x, K, w, bias, y, N, p, p_end);
  }
}

// Panel groups of kPanelBlock stay in L1 while up to kRowBlock rows of x pass them at once. A tile of MR
// rows keeps MR x NV accumulators in registers, as many as the ISA's register file leaves room for
// (Vec::kAccumulators): the more independent FMA chains per loaded panel row, the closer to the FMA units'
// peak.
constexpr int kRowBlock = 6;
constexpr int kPanelBlock = 4;
constexpr int tile_panels(int rows) {
  return Vec::kAccumulators / rows < kPanelBlock ? Vec::kAccumulators / rows : kPanelBlock;
}

// Panels [p_begin, p_end) of y = x W^T (+ bias).
template <class T>
void gemm(const float* x, int M, int K, const T* w, const float* bias, float* y, int N, int p_begin, int p_end) {
  for (int pb = p_begin; pb < p_end; pb += kPanelBlock) {
    const int pe = pb + kPanelBlock < p_end ? pb + kPanelBlock : p_end;
    int m = 0;
    for (; m + kRowBlock <= M; m += kRowBlock)
      rows_tile<kRowBlock, tile_panels(kRowBlock)>(x + size_t(m) * K, K, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m + 4 <= M; m += 4) rows_tile<4, tile_panels(4)>(x + size_t(m) * K, K, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m + 2 <= M; m += 2) rows_tile<2, tile_panels(2)>(x + size_t(m) * K, K, w, bias, y + size_t(m) * N, N, pb, pe);
    for (; m < M; ++m) rows_tile<1, tile_panels(1)>(x + size_t(m) * K, K, w, bias, y + size_t(m) * N, N, pb, pe);
  }
}

// Backend::conv without the windows written out: a tile of MR neighbouring outputs of one output row reads each
// window's pixels where they lie (a row of zeros for the padding) in im2col's (ky, kx, c) order, so every output
// is the FMA chain gemm<T> runs over its im2col row, then the bias and the relu.
template <int MR, int NV, class T>
inline void conv_tile(const ConvShape& s, const float* src, const float* zeros, int oy, int ox0, const T* panels,
                      const float* bias, bool relu, float* y, int n0) {
  constexpr int L = Vec::L;
  typename Vec::R acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = Vec::zero();
  const size_t pstride = size_t(s.kh) * s.kw * s.C * L;
  const T* wk = panels;
  for (int ky = 0; ky < s.kh; ++ky) {
    const int iy = oy * s.sy + ky - s.kh / 2;
    for (int kx = 0; kx < s.kw; ++kx) {
      const float* xr[MR];
      for (int i = 0; i < MR; ++i) {
        const int ix = (ox0 + i) * s.sx + kx - s.kw / 2;
        xr[i] = iy >= 0 && iy < s.H && ix >= 0 && ix < s.W ? src + (size_t(iy) * s.W + ix) * s.C : zeros;
      }
      for (int c = 0; c < s.C; ++c, wk += L) {
        typename Vec::R wv[NV];
        for (int j = 0; j < NV; ++j) wv[j] = load_panel(wk + j * pstride);
        for (int i = 0; i < MR; ++i) {
          const typename Vec::R xv = Vec::set1(xr[i][c]);
          for (int j = 0; j < NV; ++j) acc[i][j] = Vec::fma(xv, wv[j], acc[i][j]);
        }
      }
    }
  }
  for (int j = 0; j < NV; ++j) {
    const int n = n0 + j * L;
    const int cols = s.N - n < L ? s.N - n : L;
    for (int i = 0; i < MR; ++i) {
      float out[L];
      Vec::store(out, acc[i][j]);
      float* yr = y + size_t(i) * s.N + n;
      for (int c = 0; c < cols; ++c) {
        const float v = bias ? out[c] + bias[n + c] : out[c];
        yr[c] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

template <int MR, int NV, class T>
inline void conv_row_tiles(const ConvShape& s, const float* src, const float* zeros, int oy, int ox, const T* w,
                           const float* bias, bool relu, float* y, int p_begin, int p_end) {
  const size_t pstride = size_t(s.kh) * s.kw * s.C * Vec::L;
  int p = p_begin;
  for (; p + NV <= p_end; p += NV) conv_tile<MR, NV>(s, src, zeros, oy, ox, w + p * pstride, bias, relu, y, p * Vec::L);
  if constexpr (NV > 1) {
    if (p < p_end) conv_row_tiles<MR, NV / 2>(s, src, zeros, oy, ox, w, bias, relu, y, p, p_end);
  }
}

// Output rows [oy_begin, oy_end), panels [p_begin, p_end) of Backend::conv with w packed by pack<T> from
// [N, kh * kw * C]; dst [Ho, Wo, N] whole, zeros: C zeros.
template <class T>
void conv(const ConvShape& s, const float* src, const float* zeros, const T* w, const float* bias, bool relu,
          float* dst, int oy_begin, int oy_end, int p_begin, int p_end) {
  const int Wo = (s.W + s.sx - 1) / s.sx;
  for (int oy = oy_begin; oy < oy_end; ++oy)
    for (int pb = p_begin; pb < p_end; pb += kPanelBlock) {
      const int pe = pb + kPanelBlock < p_end ? pb + kPanelBlock : p_end;
      float* row = dst + size_t(oy) * Wo * s.N;
      int x = 0;
      for (; x + kRowBlock <= Wo; x += kRowBlock)
        conv_row_tiles<kRowBlock, tile_panels(kRowBlock)>(s, src, zeros, oy, x, w, bias, relu, row + size_t(x) * s.N, pb, pe);
      for (; x + 4 <= Wo; x += 4) conv_row_tiles<4, tile_panels(4)>(s, src, zeros, oy, x, w, bias, relu, row + size_t(x) * s.N, pb, pe);
      for (; x + 2 <= Wo; x += 2) conv_row_tiles<2, tile_panels(2)>(s, src, zeros, oy, x, w, bias, relu, row + size_t(x) * s.N, pb, pe);
      for (; x < Wo; ++x) conv_row_tiles<1, tile_panels(1)>(s, src, zeros, oy, x, w, bias, relu, row + size_t(x) * s.N, pb, pe);
    }
}

// The Kernels table's bf16 entries, which pass the panels as raw 16-bit words.
void pack_bf16(const float* w, int N, int K, uint16_t* packed) { pack(w, N, K, reinterpret_cast<Bf16*>(packed)); }
void conv_bf16(const ConvShape& s, const float* src, const float* zeros, const uint16_t* w, const float* bias, bool relu,
               float* dst, int oy_begin, int oy_end, int p_begin, int p_end) {
  conv(s, src, zeros, reinterpret_cast<const Bf16*>(w), bias, relu, dst, oy_begin, oy_end, p_begin, p_end);
}
void gemm_bf16(const float* x, int M, int K, const uint16_t* w, const float* bias, float* y, int N, int p_begin,
               int p_end) {
  gemm(x, M, K, reinterpret_cast<const Bf16*>(w), bias, y, N, p_begin, p_end);
}

// exp(x) for x <= 0 (softmax after subtracting the maximum), Cephes-style: 2^n times a degree-6 polynomial on
// [-ln2/2, ln2/2], about 1 ulp.
inline typename Vec::R exp_nonpositive(typename Vec::R x) {
  x = Vec::max(x, Vec::set1(-87.0f));
  const typename Vec::R n = Vec::floor(Vec::fma(x, Vec::set1(1.44269504088896341f), Vec::set1(0.5f)));
  typename Vec::R r = Vec::fma(n, Vec::set1(-0.693359375f), x);
  r = Vec::fma(n, Vec::set1(2.12194440e-4f), r);
  typename Vec::R p = Vec::set1(1.9875691500e-4f);
  p = Vec::fma(p, r, Vec::set1(1.3981999507e-3f));
  p = Vec::fma(p, r, Vec::set1(8.3334519073e-3f));
  p = Vec::fma(p, r, Vec::set1(4.1665795894e-2f));
  p = Vec::fma(p, r, Vec::set1(1.6666665459e-1f));
  p = Vec::fma(p, r, Vec::set1(5.0000001201e-1f));
  p = Vec::fma(Vec::mul(p, r), r, Vec::add(r, Vec::set1(1.0f)));
  return Vec::mul(p, Vec::exp2i(n));
}

// Visits visible slots of a row in ascending order: text slots of [0, limit) plus the kept image slots.
template <class F>
inline void for_each_key(const AttentionArgs& a, int row, F&& f) {
  const int limit = a.key_limit[row];
  const int* keep = a.img_keep ? a.img_keep[row] : nullptr;
  if (!keep || a.img_end <= a.img_begin) {
    for (int s = 0; s < limit; ++s) f(s);
    return;
  }
  const int ib = a.img_begin < limit ? a.img_begin : limit;
  for (int s = 0; s < ib; ++s) f(s);
  const int n = a.img_keep_n[row];
  for (int i = 0; i < n; ++i)
    if (keep[i] < limit) f(keep[i]);
  for (int s = a.img_end; s < limit; ++s) f(s);
}

// q . k for 8 keys at once: lane-parallel partial sums over head_dim, then one transposing reduction
// (Vec::hsum8) instead of a horizontal sum per key. A short last group repeats its final key and drops the
// extra results, so every key goes through the same arithmetic wherever it falls.
inline void scores8(const float* q, int d, int dv, const float* const* keys, float scale, float* out) {
  typename Vec::R acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = Vec::zero();
  for (int k = 0; k < dv; k += Vec::L) {
    const typename Vec::R qv = Vec::load(q + k);
    for (int j = 0; j < 8; ++j) acc[j] = Vec::fma(qv, Vec::load(keys[j] + k), acc[j]);
  }
  Vec::hsum8(acc, out);
  for (int j = 0; j < 8; ++j) {
    for (int k = dv; k < d; ++k) out[j] += q[k] * keys[j][k];
    out[j] *= scale;
  }
}

// For GH outputs at once (heads of a row, or the same head of rows that read the same keys): out_g[0, NV * L)
// += sum_i p_g[i] * v_i[0, NV * L), accumulated in registers in key order. Several outputs give the FMA unit
// independent chains and share each value row; each output's sums are the ones it has alone.
template <int GH, int NV>
inline void weighted_sum(const float* const* p, const int* slots, int n, const float* v, size_t stride,
                         float* const* out) {
  typename Vec::R o[GH][NV];
  for (int g = 0; g < GH; ++g)
    for (int j = 0; j < NV; ++j) o[g][j] = Vec::load(out[g] + j * Vec::L);
  for (int i = 0; i < n; ++i) {
    const float* vr = v + size_t(slots[i]) * stride;
    for (int g = 0; g < GH; ++g) {
      const typename Vec::R pv = Vec::set1(p[g][i]);
      for (int j = 0; j < NV; ++j) o[g][j] = Vec::fma(pv, Vec::load(vr + j * Vec::L), o[g][j]);
    }
  }
  for (int g = 0; g < GH; ++g)
    for (int j = 0; j < NV; ++j) Vec::store(out[g] + j * Vec::L, o[g][j]);
}

// Value rows of keys [0, n) weighted into GH outputs of head_dim d, the vector part in chunks of up to 4
// vectors, then the scalar tail.
template <int GH>
inline void weigh_values(const float* const* p, const int* slots, int n, const float* v, size_t stride,
                         float* const* out, int d, int dv) {
  float* at[GH];
  int k = 0;
  const auto shifted = [&](int off) {
    for (int g = 0; g < GH; ++g) at[g] = out[g] + off;
    return at;
  };
  for (; k + 4 * Vec::L <= dv; k += 4 * Vec::L) weighted_sum<GH, 4>(p, slots, n, v + k, stride, shifted(k));
  switch ((dv - k) / Vec::L) {
    case 3: weighted_sum<GH, 3>(p, slots, n, v + k, stride, shifted(k)); break;
    case 2: weighted_sum<GH, 2>(p, slots, n, v + k, stride, shifted(k)); break;
    case 1: weighted_sum<GH, 1>(p, slots, n, v + k, stride, shifted(k)); break;
    default: break;
  }
  for (int g = 0; g < GH; ++g)
    for (k = dv; k < d; ++k)
      for (int i = 0; i < n; ++i) out[g][k] += p[g][i] * v[size_t(slots[i]) * stride + k];
}

// Weighs a tile's value rows into outputs that all read the same keys, up to four at a time.
inline void weigh_values_into(const float* const* p, float* const* out, int outputs, const int* slots, int n,
                              const float* v, size_t stride, int d, int dv) {
  int g = 0;
  for (; g + 4 <= outputs; g += 4) weigh_values<4>(p + g, slots, n, v, stride, out + g, d, dv);
  switch (outputs - g) {
    case 3: weigh_values<3>(p + g, slots, n, v, stride, out + g, d, dv); break;
    case 2: weigh_values<2>(p + g, slots, n, v, stride, out + g, d, dv); break;
    case 1: weigh_values<1>(p + g, slots, n, v, stride, out + g, d, dv); break;
    default: break;
  }
}

// Softmax over p[0, n) in place. p has room for n rounded up to 8 and to L; the padding is zeroed before the
// sum, so it never reaches a visible slot.
inline void softmax(float* p, int n) {
  // The maximum is exact in any order, so whole vectors first and then the tail.
  const int whole = n - n % Vec::L;
  typename Vec::R vmx = Vec::set1(-INFINITY);
  for (int i = 0; i < whole; i += Vec::L) vmx = Vec::max(vmx, Vec::load(p + i));
  float lanes[Vec::L];
  Vec::store(lanes, vmx);
  float mx = -INFINITY;
  for (float v : lanes) mx = v > mx ? v : mx;
  for (int i = whole; i < n; ++i) mx = p[i] > mx ? p[i] : mx;
  const int padded = (n + Vec::L - 1) / Vec::L * Vec::L;
  const typename Vec::R neg_mx = Vec::set1(-mx);
  typename Vec::R acc = Vec::zero();
  for (int i = 0; i < padded; i += Vec::L) {
    Vec::store(p + i, exp_nonpositive(Vec::add(Vec::load(p + i), neg_mx)));
    if (i + Vec::L > n)
      for (int j = n; j < i + Vec::L; ++j) p[j] = 0;
    acc = Vec::add(acc, Vec::load(p + i));
  }
  const typename Vec::R inv = Vec::set1(1.0f / Vec::hsum(acc));
  for (int i = 0; i < padded; i += Vec::L) Vec::store(p + i, Vec::mul(Vec::load(p + i), inv));
}

void attend_rows(const AttentionArgs& a, int row0, int rows, int kv_head, float* probs, int* slots,
                 float* image_mass_acc, float* image_scores_acc) {
  const int d = a.d, dv = d - d % Vec::L, G = a.Hq / a.Hkv;
  const size_t stride = size_t(a.Hkv) * d;
  const float* kbase = a.k + size_t(kv_head) * d;
  const float* vbase = a.v + size_t(kv_head) * d;
  const float scale = 1.0f / std::sqrt(float(d));
  int limit = 0;
  for (int r = 0; r < rows; ++r) limit = a.key_limit[row0 + r] > limit ? a.key_limit[row0 + r] : limit;
  const size_t pstride = size_t(limit) + 32;
  // Per row: its keys (slots), its group's first query head, its probabilities (G rows of pstride) and output.
  int n[kAttendRows];
  int most = 0;
  const auto head0 = [&](int r) { return size_t(row0 + r) * a.Hq + size_t(kv_head) * G; };
  for (int r = 0; r < rows; ++r) {
    int* sl = slots + size_t(r) * pstride;
    n[r] = 0;
    for_each_key(a, row0 + r, [&](int s) { sl[n[r]++] = s; });
    most = n[r] > most ? n[r] : most;
    float* out = a.out + head0(r) * d;
    for (int i = 0; i < G * d; ++i) out[i] = 0;
  }

  // Keys outer, rows and heads inner: each tile of keys comes from memory once and is then served from L1 to
  // every head of every row (a row's keys are a prefix of the others' where limits differ, the same keys for an
  // encoder's rows). Each row's sums are the ones it has alone: the same tiles in the same order.
  for (int i = 0; i < most; i += 8)
    for (int r = 0; r < rows; ++r) {
      if (i >= n[r]) continue;
      const int* sl = slots + size_t(r) * pstride;
      const float* keys[8];
      for (int j = 0; j < 8; ++j) keys[j] = kbase + size_t(sl[i + j < n[r] ? i + j : n[r] - 1]) * stride;
      const float* q = a.q + head0(r) * d;
      for (int h = 0; h < G; ++h) scores8(q + size_t(h) * d, d, dv, keys, scale, probs + (size_t(r) * G + h) * pstride + i);
    }
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < G && n[r] > 0; ++h) softmax(probs + (size_t(r) * G + h) * pstride, n[r]);

  // Value tiles outer. The heads of rows that read the same keys in a tile (an encoder's rows, causal rows
  // short of their limits) are weighed together: more independent sums for the FMA unit, each value row
  // loaded once for all of them.
  constexpr int kKeyTile = 64, kLanes = 4 * kAttendRows;
  const float* lane_p[kLanes];
  float* lane_out[kLanes];
  for (int i0 = 0; i0 < most; i0 += kKeyTile) {
    int lanes = 0, cn = 0;
    const int* keys = nullptr;
    const auto flush = [&] {
      if (lanes > 0) weigh_values_into(lane_p, lane_out, lanes, keys, cn, vbase, stride, d, dv);
      lanes = 0;
    };
    for (int r = 0; r < rows; ++r) {
      if (i0 >= n[r]) continue;
      const int rn = n[r] - i0 < kKeyTile ? n[r] - i0 : kKeyTile;
      const int* sl = slots + size_t(r) * pstride + i0;
      if (lanes > 0 && !(rn == cn && std::equal(sl, sl + rn, keys))) flush();
      keys = sl;
      cn = rn;
      for (int h = 0; h < G; ++h) {
        if (lanes == kLanes) flush();
        lane_p[lanes] = probs + (size_t(r) * G + h) * pstride + i0;
        lane_out[lanes++] = a.out + (head0(r) + size_t(h)) * d;
      }
    }
    flush();
  }

  if (!image_mass_acc && !image_scores_acc) return;
  const int img_n = a.img_end - a.img_begin;
  for (int r = 0; r < rows; ++r) {
    const int* sl = slots + size_t(r) * pstride;
    for (int h = 0; h < G; ++h) {
      const float* p = probs + (size_t(r) * G + h) * pstride;
      const size_t head = head0(r) + size_t(h);
      float img = 0;
      for (int i = 0; i < n[r]; ++i) {
        const int s = sl[i];
        if (s < a.img_begin || s >= a.img_end) continue;
        img += p[i];
        if (image_scores_acc) image_scores_acc[head * img_n + size_t(s - a.img_begin)] += p[i];
      }
      if (image_mass_acc) image_mass_acc[head] += img;
    }
  }
}

// Four horizontally adjacent outputs of a depthwise convolution, channels [c, c + L), every column tap in bounds
// for all four (stride sx), kernel rows [ky0, ky1) inside the image: each tap's weights are loaded once for the
// four, the loads that bound the kernel.
inline void depthwise_four(const float* src, int W, int C, int k, int sx, const float* taps, const float* bias,
                           float* out, int y0, int x0, int c, int ky0, int ky1) {
  typename Vec::R acc[4];
  for (int o = 0; o < 4; ++o) acc[o] = Vec::load(bias + c);
  for (int ky = ky0; ky < ky1; ++ky) {
    const float* row = src + (size_t(y0 + ky) * W + size_t(x0)) * C + c;
    for (int kx = 0; kx < k; ++kx) {
      const typename Vec::R t = Vec::load(taps + size_t(ky * k + kx) * C + c);
      for (int o = 0; o < 4; ++o) acc[o] = Vec::fma(Vec::load(row + size_t(o * sx + kx) * C), t, acc[o]);
    }
  }
  for (int o = 0; o < 4; ++o) Vec::store(out + size_t(o) * C + c, acc[o]);
}

// Output rows [oy_begin, oy_end) of a depthwise convolution (Kernels::depthwise_rows). Each output element is
// its bias plus each in-bounds tap's product, accumulated in (ky, kx) order with Vec::fma (one rounding per
// tap where the ISA fuses, as the CUDA kernel's contracted loop does), L channels at a time; a channel tail
// goes through the same arithmetic one channel at a time (Vec::fma1). Where four outputs in a row have
// every tap inside the image they are computed together (depthwise_four), with the same arithmetic each.
void depthwise_rows(const float* src, int H, int W, int C, int k, int sy, int sx, const float* taps,
                    const float* bias, float* dst, int oy_begin, int oy_end) {
  const int Wo = (W + sx - 1) / sx, pad = k / 2, cv = C - C % Vec::L;
  // Outputs [ox_in, ox_end) read columns inside the image for every kx.
  const int ox_in = (pad + sx - 1) / sx, ox_end = W - k + pad >= 0 ? (W - k + pad) / sx + 1 : 0;
  for (int oy = oy_begin; oy < oy_end; ++oy) {
    const int y0 = oy * sy - pad;
    // The kernel rows inside the image; the rows outside add nothing, as in the loops below.
    const int ky0 = std::max(0, -y0), ky1 = std::min(k, H - y0);
    for (int ox = 0; ox < Wo;) {
      float* out = dst + (size_t(oy) * Wo + ox) * C;
      const int x0 = ox * sx - pad;
      if (cv == C && ox >= ox_in && ox + 4 <= ox_end) {
        for (int c = 0; c < C; c += Vec::L) depthwise_four(src, W, C, k, sx, taps, bias, out, y0, x0, c, ky0, ky1);
        ox += 4;
        continue;
      }
      for (int c = 0; c < cv; c += Vec::L) {
        typename Vec::R acc = Vec::load(bias + c);
        for (int ky = 0; ky < k; ++ky) {
          if (y0 + ky < 0 || y0 + ky >= H) continue;
          for (int kx = 0; kx < k; ++kx) {
            if (x0 + kx < 0 || x0 + kx >= W) continue;
            const float* in = src + (size_t(y0 + ky) * W + size_t(x0 + kx)) * C + c;
            acc = Vec::fma(Vec::load(in), Vec::load(taps + size_t(ky * k + kx) * C + c), acc);
          }
        }
        Vec::store(out + c, acc);
      }
      for (int c = cv; c < C; ++c) {
        float acc = bias[c];
        for (int ky = 0; ky < k; ++ky) {
          if (y0 + ky < 0 || y0 + ky >= H) continue;
          for (int kx = 0; kx < k; ++kx) {
            if (x0 + kx < 0 || x0 + kx >= W) continue;
            acc = Vec::fma1(src[(size_t(y0 + ky) * W + size_t(x0 + kx)) * C + c], taps[size_t(ky * k + kx) * C + c],
                            acc);
          }
        }
        out[c] = acc;
      }
      ++ox;
    }
  }
}

// silu(g) * u = g * sigmoid(g) * u with sigmoid(g) = exp(min(g, 0)) / (1 + exp(-|g|)): both exponents are
// non-positive, so neither overflows. The tail runs through the same vector arithmetic on a padded copy, so an
// element's result does not depend on where it falls.
inline typename Vec::R silu_mul_vec(typename Vec::R g, typename Vec::R u) {
  const typename Vec::R zero = Vec::zero();
  const typename Vec::R e = exp_nonpositive(Vec::min(g, Vec::sub(zero, g)));
  const typename Vec::R sig = Vec::div(exp_nonpositive(Vec::min(g, zero)), Vec::add(Vec::set1(1.0f), e));
  return Vec::mul(Vec::mul(g, sig), u);
}

void silu_mul(const float* gate, const float* up, float* out, size_t n) {
  size_t i = 0;
  for (; i + Vec::L <= n; i += Vec::L) Vec::store(out + i, silu_mul_vec(Vec::load(gate + i), Vec::load(up + i)));
  if (i == n) return;
  float g[Vec::L] = {}, u[Vec::L] = {}, o[Vec::L];
  std::copy(gate + i, gate + n, g);
  std::copy(up + i, up + n, u);
  Vec::store(o, silu_mul_vec(Vec::load(g), Vec::load(u)));
  std::copy(o, o + (n - i), out + i);
}

// gelu(x) = x / 2 (1 + erf(x / sqrt 2)) = max(x, 0) - |x| / 2 q, where erf(z) = 1 - q for z = |x| / sqrt 2 >= 0,
// with q = t (a1 + t (a2 + ... a5)) e^(-z^2), t = 1 / (1 + p z): Abramowitz and Stegun 7.1.26, within 1.5e-7
// of erf. Written with q, it takes no sign test, and a far negative x keeps its small result rather than a
// difference of two numbers near 1. The tail runs the vector arithmetic on a padded copy, as silu_mul's.
inline typename Vec::R gelu_vec(typename Vec::R x) {
  const typename Vec::R a = Vec::max(x, Vec::sub(Vec::zero(), x));
  const typename Vec::R z = Vec::mul(a, Vec::set1(0.70710678118654752f));
  const typename Vec::R t = Vec::div(Vec::set1(1.0f), Vec::fma(z, Vec::set1(0.3275911f), Vec::set1(1.0f)));
  typename Vec::R poly = Vec::set1(1.061405429f);
  poly = Vec::fma(poly, t, Vec::set1(-1.453152027f));
  poly = Vec::fma(poly, t, Vec::set1(1.421413741f));
  poly = Vec::fma(poly, t, Vec::set1(-0.284496736f));
  poly = Vec::fma(poly, t, Vec::set1(0.254829592f));
  const typename Vec::R q = Vec::mul(Vec::mul(poly, t), exp_nonpositive(Vec::sub(Vec::zero(), Vec::mul(z, z))));
  return Vec::sub(Vec::max(x, Vec::zero()), Vec::mul(Vec::mul(a, Vec::set1(0.5f)), q));
}

void gelu(float* x, size_t n) {
  size_t i = 0;
  for (; i + Vec::L <= n; i += Vec::L) Vec::store(x + i, gelu_vec(Vec::load(x + i)));
  if (i == n) return;
  float tail[Vec::L] = {};
  std::copy(x + i, x + n, tail);
  Vec::store(tail, gelu_vec(Vec::load(tail)));
  std::copy(tail, tail + (n - i), x + i);
}

// x = hardswish(x * s1 + b1) * s2 + b2 in place, in the order the scalar form rounds: z = x * s1 + b1, then
// z * min(max(z + 3, 0), 6) / 6 * s2 + b2.
void affine_hardswish(float* x, size_t n, float s1, float b1, float s2, float b2) {
  const typename Vec::R S1 = Vec::set1(s1), B1 = Vec::set1(b1), S2 = Vec::set1(s2), B2 = Vec::set1(b2);
  const typename Vec::R zero = Vec::zero(), three = Vec::set1(3.0f), six = Vec::set1(6.0f);
  size_t i = 0;
  for (; i + Vec::L <= n; i += Vec::L) {
    const typename Vec::R z = Vec::add(Vec::mul(Vec::load(x + i), S1), B1);
    const typename Vec::R gate = Vec::min(Vec::max(Vec::add(z, three), zero), six);
    Vec::store(x + i, Vec::add(Vec::mul(Vec::div(Vec::mul(z, gate), six), S2), B2));
  }
  for (; i < n; ++i) {
    const float z = x[i] * s1 + b1;
    const float gate = std::min(std::max(z + 3.0f, 0.0f), 6.0f);
    x[i] = z * gate / 6.0f * s2 + b2;
  }
}

}  // namespace
