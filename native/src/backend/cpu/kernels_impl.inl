// Kernel bodies shared by every ISA. Included by a file that defines `struct Vec` with:
//   static constexpr int L; using R; zero(); load(const float*); store(float*, R); fma(a, b, acc);
//   add(a, b); mul(a, b); set1(float); hsum(R) (a fixed tree)
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

inline float dot(const float* a, const float* b, int n) {
  const int nv = n - n % Vec::L;
  typename Vec::R acc = Vec::zero();
  for (int k = 0; k < nv; k += Vec::L) acc = Vec::fma(Vec::load(a + k), Vec::load(b + k), acc);
  float s = Vec::hsum(acc);
  for (int k = nv; k < n; ++k) s += a[k] * b[k];
  return s;
}

inline void axpy(float p, const float* v, float* out, int n) {
  const int nv = n - n % Vec::L;
  typename Vec::R pv = Vec::set1(p);
  for (int k = 0; k < nv; k += Vec::L) Vec::store(out + k, Vec::fma(pv, Vec::load(v + k), Vec::load(out + k)));
  for (int k = nv; k < n; ++k) out[k] += p * v[k];
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

void attend_row(const AttentionArgs& a, int row, int head, float* scores, float* out, float* image_mass_acc,
                float* image_scores_acc) {
  const int d = a.d, kvh = head / (a.Hq / a.Hkv);
  const size_t kv_stride = size_t(a.Hkv) * d;
  const float* q = a.q + (size_t(row) * a.Hq + head) * d;
  const float scale = 1.0f / std::sqrt(float(d));
  float mx = -INFINITY;
  int n = 0;
  for_each_key(a, row, [&](int s) {
    float v = dot(q, a.k + s * kv_stride + size_t(kvh) * d, d) * scale;
    scores[n++] = v;
    if (v > mx) mx = v;
  });
  float sum = 0;
  for (int i = 0; i < n; ++i) {
    scores[i] = std::exp(scores[i] - mx);
    sum += scores[i];
  }
  const float inv = 1.0f / sum;
  for (int k = 0; k < d; ++k) out[k] = 0;
  int i = 0;
  float img = 0;
  for_each_key(a, row, [&](int s) {
    const float p = scores[i++] * inv;
    axpy(p, a.v + s * kv_stride + size_t(kvh) * d, out, d);
    if (s >= a.img_begin && s < a.img_end) {
      img += p;
      if (image_scores_acc) image_scores_acc[s - a.img_begin] += p;
    }
  });
  if (image_mass_acc) *image_mass_acc += img;
}

}  // namespace
