// Kernel bodies shared by every ISA. Included by a file that defines `struct Vec` with:
//   static constexpr int L; using R; zero(); load(const float*); store(float*, R); fma(a, b, acc);
//   add(a, b); mul(a, b); max(a, b); floor(a); exp2i(n) (2^n for integral n); set1(float); hsum(R) (a fixed
//   tree); hsum8(const R[8], float[8]) (eight sums at once)
// Every output element owns its accumulator; the K loop always walks lanes k = l, l + L, ... then a fixed
// horizontal sum, then the K tail in order. Tile shapes change only which elements are computed together,
// never the arithmetic of one element, so results are independent of M and of threading.
namespace {

template <int MR, int NR>
inline void tile(const float* x, int K, int Kv, const float* w, const float* bias, float* y, int N) {
  typename Vec::R acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = Vec::zero();
  for (int k = 0; k < Kv; k += Vec::L) {
    typename Vec::R xv[MR];
    for (int i = 0; i < MR; ++i) xv[i] = Vec::load(x + size_t(i) * K + k);
    for (int j = 0; j < NR; ++j) {
      typename Vec::R wv = Vec::load(w + size_t(j) * K + k);
      for (int i = 0; i < MR; ++i) acc[i][j] = Vec::fma(xv[i], wv, acc[i][j]);
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      float s = Vec::hsum(acc[i][j]);
      const float* xr = x + size_t(i) * K;
      const float* wr = w + size_t(j) * K;
      for (int k = Kv; k < K; ++k) s += xr[k] * wr[k];
      if (bias) s += bias[j];
      y[size_t(i) * N + j] = s;
    }
}

void gemm(const float* x, int M, int K, const float* w, const float* bias, float* y, int N, int n_begin,
          int n_end) {
  const int Kv = K - K % Vec::L;
  constexpr int kColBlock = 64;  // keeps the weight rows of one block in L2 while rows stream past
  for (int nb = n_begin; nb < n_end; nb += kColBlock) {
    const int ne = nb + kColBlock < n_end ? nb + kColBlock : n_end;
    int m = 0;
    for (; m + 4 <= M; m += 4) {
      const float* xm = x + size_t(m) * K;
      float* ym = y + size_t(m) * N;
      int n = nb;
      for (; n + 3 <= ne; n += 3) tile<4, 3>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
      for (; n < ne; ++n) tile<4, 1>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
    }
    for (; m + 2 <= M; m += 2) {
      const float* xm = x + size_t(m) * K;
      float* ym = y + size_t(m) * N;
      int n = nb;
      for (; n + 4 <= ne; n += 4) tile<2, 4>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
      for (; n < ne; ++n) tile<2, 1>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
    }
    for (; m < M; ++m) {
      const float* xm = x + size_t(m) * K;
      float* ym = y + size_t(m) * N;
      int n = nb;
      for (; n + 8 <= ne; n += 8) tile<1, 8>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
      for (; n < ne; ++n) tile<1, 1>(xm, K, Kv, w + size_t(n) * K, bias ? bias + n : nullptr, ym + n, N);
    }
  }
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

// out[0, NV * L) += sum_i p[i] * v_i[0, NV * L), accumulated in registers in key order.
template <int NV>
inline void weighted_sum(const float* p, const int* slots, int n, const float* v, size_t stride, float* out) {
  typename Vec::R o[NV];
  for (int j = 0; j < NV; ++j) o[j] = Vec::load(out + j * Vec::L);
  for (int i = 0; i < n; ++i) {
    const typename Vec::R pv = Vec::set1(p[i]);
    const float* vr = v + size_t(slots[i]) * stride;
    for (int j = 0; j < NV; ++j) o[j] = Vec::fma(pv, Vec::load(vr + j * Vec::L), o[j]);
  }
  for (int j = 0; j < NV; ++j) Vec::store(out + j * Vec::L, o[j]);
}

// Softmax over p[0, n) in place. p has room for n rounded up to 8 and to L; the padding is zeroed before the
// sum, so it never reaches a visible slot.
inline void softmax(float* p, int n) {
  float mx = -INFINITY;
  for (int i = 0; i < n; ++i) mx = p[i] > mx ? p[i] : mx;
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

void attend_group(const AttentionArgs& a, int row, int kv_head, float* probs, int* slots, float* out,
                  float* image_mass_acc, float* image_scores_acc) {
  const int d = a.d, dv = d - d % Vec::L, G = a.Hq / a.Hkv;
  const size_t stride = size_t(a.Hkv) * d;
  const float* q = a.q + (size_t(row) * a.Hq + size_t(kv_head) * G) * d;
  const float* kbase = a.k + size_t(kv_head) * d;
  const float* vbase = a.v + size_t(kv_head) * d;
  const float scale = 1.0f / std::sqrt(float(d));
  int n = 0;
  for_each_key(a, row, [&](int s) { slots[n++] = s; });
  const size_t pstride = size_t(a.key_limit[row]) + 32;
  for (int i = 0; i < G * d; ++i) out[i] = 0;
  if (n == 0) return;

  // The heads of a group share their keys and values: each tile of keys comes from memory once and is then
  // served from L1 to every head.
  for (int i = 0; i < n; i += 8) {
    const float* keys[8];
    for (int j = 0; j < 8; ++j) keys[j] = kbase + size_t(slots[i + j < n ? i + j : n - 1]) * stride;
    for (int h = 0; h < G; ++h) scores8(q + size_t(h) * d, d, dv, keys, scale, probs + h * pstride + i);
  }
  for (int h = 0; h < G; ++h) softmax(probs + h * pstride, n);

  constexpr int kKeyTile = 64;
  for (int i0 = 0; i0 < n; i0 += kKeyTile) {
    const int cn = n - i0 < kKeyTile ? n - i0 : kKeyTile;
    for (int h = 0; h < G; ++h) {
      const float* p = probs + h * pstride + i0;
      float* o = out + size_t(h) * d;
      int k = 0;
      for (; k + 4 * Vec::L <= dv; k += 4 * Vec::L) weighted_sum<4>(p, slots + i0, cn, vbase + k, stride, o + k);
      switch ((dv - k) / Vec::L) {
        case 3: weighted_sum<3>(p, slots + i0, cn, vbase + k, stride, o + k); break;
        case 2: weighted_sum<2>(p, slots + i0, cn, vbase + k, stride, o + k); break;
        case 1: weighted_sum<1>(p, slots + i0, cn, vbase + k, stride, o + k); break;
        default: break;
      }
      for (k = dv; k < d; ++k)
        for (int i = 0; i < cn; ++i) o[k] += p[i] * vbase[size_t(slots[i0 + i]) * stride + k];
    }
  }

  if (!image_mass_acc && !image_scores_acc) return;
  const int img_n = a.img_end - a.img_begin;
  for (int h = 0; h < G; ++h) {
    const float* p = probs + h * pstride;
    float img = 0;
    for (int i = 0; i < n; ++i) {
      const int s = slots[i];
      if (s < a.img_begin || s >= a.img_end) continue;
      img += p[i];
      if (image_scores_acc) image_scores_acc[size_t(h) * img_n + size_t(s - a.img_begin)] += p[i];
    }
    if (image_mass_acc) image_mass_acc[h] += img;
  }
}

}  // namespace
