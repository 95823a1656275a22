#include "op_parity.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace gpucheck {
namespace {

using saccade::AttentionArgs;
using saccade::Backend;
using saccade::Buffer;

// Relative to the reference's largest magnitude: fp32 sums in another order differ by a few ulps of the
// largest partial sum, not of each (possibly tiny) element.
constexpr double kTolerance = 1e-4;

std::vector<float> random_vec(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Buffer to_device(Backend& b, const std::vector<float>& h) {
  Buffer d(&b, h.size());
  b.upload(d.data(), h.data(), h.size());
  return d;
}

std::vector<float> to_host(Backend& b, const float* p, size_t n) {
  std::vector<float> h(n);
  b.download(h.data(), p, n);
  return h;
}

// One comparison as a check entry; true when it passed.
bool compare(Json& checks, const std::string& name, const std::vector<float>& ref, const std::vector<float>& test) {
  double max_abs = 0, ref_max = 0;
  bool finite = ref.size() == test.size();
  for (size_t i = 0; finite && i < ref.size(); ++i) {
    finite = std::isfinite(test[i]) && std::isfinite(ref[i]);
    max_abs = std::max(max_abs, double(std::fabs(test[i] - ref[i])));
    ref_max = std::max(ref_max, double(std::fabs(ref[i])));
  }
  const double rel = max_abs / std::max(1.0, ref_max);
  const bool pass = finite && rel <= kTolerance;
  checks.push(Json::object()
                  .set("name", name)
                  .set("pass", pass)
                  .set("max_abs_diff", max_abs)
                  .set("max_rel_diff", rel)
                  .set("tolerance", kTolerance)
                  .set("elements", double(ref.size())));
  return pass;
}

// Host-side description of one attention call; to_args() binds it to device q/k/v/out of one backend.
struct AttentionCase {
  AttentionCase(std::string n, int m, int hq, int hkv, int dd, int c, int ib = 0, int ie = 0)
      : name(std::move(n)), M(m), Hq(hq), Hkv(hkv), d(dd), cap(c), img_begin(ib), img_end(ie) {}
  std::string name;
  int M, Hq, Hkv, d, cap, img_begin, img_end;
  std::vector<int> key_limit;
  std::vector<std::vector<int>> keep;  // per row; empty vector with has_keep[r] == 0: all image slots
  std::vector<char> has_keep;
  bool fixation_outputs = false;
};

struct AttentionResult {
  std::vector<float> out, mass, scores;
};

AttentionResult run_attention(Backend& b, const AttentionCase& c, const std::vector<float>& q,
                              const std::vector<float>& k, const std::vector<float>& v) {
  Buffer dq = to_device(b, q), dk = to_device(b, k), dv = to_device(b, v);
  Buffer out(&b, size_t(c.M) * c.Hq * c.d);
  std::vector<const int*> keep_ptr(size_t(c.M), nullptr);
  std::vector<int> keep_n(size_t(c.M), 0);
  for (int r = 0; r < c.M && !c.keep.empty(); ++r)
    if (c.has_keep[size_t(r)]) {
      keep_ptr[size_t(r)] = c.keep[size_t(r)].data();
      keep_n[size_t(r)] = int(c.keep[size_t(r)].size());
    }
  AttentionResult res;
  const int img_n = c.img_end - c.img_begin;
  if (c.fixation_outputs) {
    res.mass.assign(size_t(c.M), -1.0f);
    res.scores.assign(size_t(c.M) * img_n, -1.0f);
  }
  AttentionArgs a = saccade::attention_args(dq.data(), dk.data(), dv.data(), c.M, c.Hq, c.Hkv, c.d, c.key_limit.data(),
                                            out.data());
  a.img_begin = c.img_begin;
  a.img_end = c.img_end;
  if (!c.keep.empty()) {
    a.img_keep = keep_ptr.data();
    a.img_keep_n = keep_n.data();
  }
  if (c.fixation_outputs) {
    a.image_mass = res.mass.data();
    a.image_scores = res.scores.data();
  }
  b.attention(a);
  res.out = to_host(b, out.data(), out.size());
  return res;
}

// Random ascending selection of about `ratio` of [begin, end).
std::vector<int> random_keep(int begin, int end, double ratio, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution pick(ratio);
  std::vector<int> keep;
  for (int s = begin; s < end; ++s)
    if (pick(rng)) keep.push_back(s);
  return keep;
}

// The line encoder's ops (format 4) on shapes of a 48 x 160 line; true when all passed.
bool line_encoder_ops(Backend& ref, Backend& test, Json& checks) {
  bool all = true;
  const auto run = [&](const std::string& name, const std::function<std::vector<float>(Backend&)>& op) {
    const std::vector<float> r = op(ref), t = op(test);
    all = compare(checks, name, r, t) && all;
  };
  for (auto [k, sy, sx] : {std::tuple<int, int, int>{3, 1, 1}, {3, 2, 1}, {5, 1, 2}, {5, 2, 1}}) {
    const int H = 12, W = 40, C = 24;
    const std::vector<float> x = random_vec(size_t(H) * W * C, 50), w = random_vec(size_t(C) * k * k, 51),
                             bias = random_vec(size_t(C), 52);
    run("depthwise_conv k=" + std::to_string(k) + " stride " + std::to_string(sy) + "x" + std::to_string(sx),
        [&](Backend& b) {
          Buffer dx = to_device(b, x), dw = to_device(b, w), db = to_device(b, bias);
          Buffer dy(&b, size_t((H + sy - 1) / sy) * ((W + sx - 1) / sx) * C);
          b.depthwise_conv(dx.data(), H, W, C, k, sy, sx, dw.data(), db.data(), dy.data());
          return to_host(b, dy.data(), dy.size());
        });
  }
  const int T = 20, C = 48;
  const std::vector<float> x = random_vec(size_t(T) * C, 53, 3.0f), w = random_vec(size_t(C), 54),
                           bias = random_vec(size_t(C), 55);
  run("line_windows k=3", [&](Backend& b) {
    Buffer dx = to_device(b, x), dy(&b, size_t(T) * 3 * C);
    b.line_windows(dx.data(), T, C, 3, dy.data());
    return to_host(b, dy.data(), dy.size());
  });
  run("affine_hardswish, silu, relu", [&](Backend& b) {
    Buffer d1 = to_device(b, x), d2 = to_device(b, x), d3 = to_device(b, x);
    b.affine_hardswish(d1.data(), x.size(), 2.5f, -0.4f, 0.7f, 0.2f);
    b.silu(d2.data(), x.size());
    b.relu(d3.data(), x.size());
    std::vector<float> out = to_host(b, d1.data(), x.size()), s = to_host(b, d2.data(), x.size()),
                       r = to_host(b, d3.data(), x.size());
    out.insert(out.end(), s.begin(), s.end());
    out.insert(out.end(), r.begin(), r.end());
    return out;
  });
  run("layer_norm rows=20 dim=48", [&](Backend& b) {
    Buffer dx = to_device(b, x), dw = to_device(b, w), db = to_device(b, bias), dy(&b, x.size());
    b.layer_norm(dx.data(), T, C, dw.data(), db.data(), 1e-5f, dy.data());
    return to_host(b, dy.data(), dy.size());
  });
  run("column_mean, hard_sigmoid, scale_columns", [&](Backend& b) {
    Buffer dx = to_device(b, x), dm(&b, size_t(C)), ds = to_device(b, w);
    b.column_mean(dx.data(), T, C, dm.data());
    b.hard_sigmoid(ds.data(), size_t(C), 1.0f / 6, 0.5f);
    b.scale_columns(dx.data(), T, C, ds.data(), 1.0f);
    std::vector<float> out = to_host(b, dm.data(), size_t(C)), y = to_host(b, dx.data(), x.size());
    out.insert(out.end(), y.begin(), y.end());
    return out;
  });
  run("softmax_rows rows=20 cols=6625", [&](Backend& b) {
    std::vector<float> z = random_vec(size_t(20) * 6625, 57);
    for (float& v : z) v *= 8.0f;
    Buffer dz = to_device(b, z);
    b.softmax_rows(dz.data(), 20, 6625);
    return to_host(b, dz.data(), z.size());
  });
  run("avg_pool 3x2", [&](Backend& b) {
    Buffer dx = to_device(b, random_vec(size_t(3) * 40 * 16, 56)), dy(&b, size_t(20) * 16);
    b.avg_pool(dx.data(), 3, 40, 16, 3, 2, dy.data());
    return to_host(b, dy.data(), dy.size());
  });
  return all;
}

// The page-analysis networks' ops (native/src/page/convnet.h) on a small odd-sized map; true when all passed.
bool convnet_ops(Backend& ref, Backend& test, Json& checks) {
  bool all = true;
  const auto run = [&](const std::string& name, const std::function<std::vector<float>(Backend&)>& op) {
    const std::vector<float> r = op(ref), t = op(test);
    all = compare(checks, name, r, t) && all;
  };
  const int H = 13, W = 22, C = 6;
  const std::vector<float> x = random_vec(size_t(H) * W * C, 60, 2.0f);
  for (auto [k, s] : {std::pair<int, int>{3, 1}, {3, 2}, {5, 2}}) {
    const int Ho = (H + s - 1) / s, Wo = (W + s - 1) / s;
    run("im2col k=" + std::to_string(k) + " stride " + std::to_string(s) + ", rows 1..Ho", [&](Backend& b) {
      Buffer dx = to_device(b, x), dy(&b, size_t(Ho - 1) * Wo * k * k * C);
      b.im2col(dx.data(), H, W, C, k, k, s, s, 1, Ho, dy.data());
      return to_host(b, dy.data(), dy.size());
    });
  }
  run("max_pool 2x2", [&](Backend& b) {
    Buffer dx = to_device(b, x), dy(&b, size_t(H / 2) * (W / 2) * C);
    b.max_pool(dx.data(), H, W, C, 2, 2, dy.data());
    return to_host(b, dy.data(), dy.size());
  });
  run("upsample_nearest x2 into channels [2, 8) of 9, then x1 into [0, 2)", [&](Backend& b) {
    Buffer dx = to_device(b, x), dy(&b, size_t(2 * H) * (2 * W) * 9);
    b.upsample_nearest(dx.data(), H, W, C, 2, dy.data(), 9, 2);
    Buffer dz = to_device(b, random_vec(size_t(2 * H) * (2 * W) * 2, 61));
    b.upsample_nearest(dz.data(), 2 * H, 2 * W, 2, 1, dy.data(), 9, 0);
    std::vector<float> out = to_host(b, dy.data(), dy.size());
    for (size_t i = 8; i < out.size(); i += 9) out[i] = 0;  // channel 8 was never written
    return out;
  });
  run("depth_to_space x2 (3 channels out), sigmoid", [&](Backend& b) {
    const int Cout = 3;  // src [H, W, 12]
    Buffer dx = to_device(b, random_vec(size_t(H) * W * 4 * Cout, 62, 3.0f)), dy(&b, size_t(H) * W * 4 * Cout);
    b.depth_to_space(dx.data(), H, W, Cout, 2, dy.data());
    b.sigmoid(dy.data(), dy.size());
    return to_host(b, dy.data(), dy.size());
  });
  return all;
}

std::vector<AttentionCase> attention_cases() {
  std::vector<AttentionCase> cases;
  const int Hq = 8, Hkv = 4, d = 32, cap = 400, ib = 1, ie = 257, L = 300, B = 32;
  {
    AttentionCase c{"attention causal decode row (M=1) + fixation outputs", 1, Hq, Hkv, d, cap, ib, ie};
    c.key_limit = {L + 1};
    c.fixation_outputs = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"attention block-bidirectional draft (M=1+32) + fixation outputs", 1 + B, Hq, Hkv, d, cap, ib, ie};
    c.key_limit.assign(size_t(1 + B), L + 1 + B);
    c.key_limit[0] = L + 1;
    c.fixation_outputs = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"attention causal verify (M=32)", B, Hq, Hkv, d, cap, ib, ie};
    for (int i = 0; i < B; ++i) c.key_limit.push_back(L + 1 + i);
    cases.push_back(c);
  }
  {
    AttentionCase c{"attention gathered sparse (8% of image slots per row) + fixation outputs", 1 + B, Hq, Hkv, d, cap,
                    ib, ie};
    c.key_limit.assign(size_t(1 + B), L + 1 + B);
    c.key_limit[3] = 100;  // a limit inside the image: kept slots at or beyond it must be dropped
    for (int r = 0; r < 1 + B; ++r) {
      c.keep.push_back(random_keep(ib, ie, 0.08, 100 + uint32_t(r)));
      c.has_keep.push_back(r != 5);  // row 5 sees every image slot
    }
    c.fixation_outputs = true;
    cases.push_back(c);
  }
  {
    AttentionCase c{"attention vision encoder (full bidirectional, M=300)", 300, 4, 4, 32, 300};
    c.key_limit.assign(300, 300);
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

int op_parity(Backend& ref, Backend& test, Json& checks) {
  int failed = 0;
  const auto count = [&](bool pass) { failed += pass ? 0 : 1; };

  struct LinearCase {
    int M, K, N;
    bool bias;
  };
  for (const LinearCase& c : {LinearCase{1, 256, 768, false}, LinearCase{33, 256, 256, false},
                              LinearCase{7, 768, 256, false}, LinearCase{300, 128, 384, true},
                              LinearCase{5, 100, 37, true}, LinearCase{65, 512, 256, true}}) {
    const std::vector<float> x = random_vec(size_t(c.M) * c.K, 1), w = random_vec(size_t(c.N) * c.K, 2, 0.05f),
                             bias = random_vec(size_t(c.N), 3);
    std::vector<float> y[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      saccade::Weight W = bs[i]->upload_weight(w, c.N, c.K, saccade::WeightUse::Linear);
      Buffer dx = to_device(*bs[i], x), db = to_device(*bs[i], bias), dy(bs[i], size_t(c.M) * c.N);
      bs[i]->linear(dx.data(), c.M, W, c.bias ? db.data() : nullptr, dy.data());
      y[i] = to_host(*bs[i], dy.data(), dy.size());
    }
    count(compare(checks,
                  "linear M=" + std::to_string(c.M) + " K=" + std::to_string(c.K) + " N=" + std::to_string(c.N) +
                      (c.bias ? " +bias" : ""),
                  y[0], y[1]));
  }

  for (auto [rows, dim, in_place] : {std::tuple<int, int, bool>{33, 256, false}, {512, 32, true}}) {
    const std::vector<float> x = random_vec(size_t(rows) * dim, 4, 3.0f), w = random_vec(size_t(dim), 5);
    std::vector<float> y[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      Buffer dx = to_device(*bs[i], x), dw = to_device(*bs[i], w), dy(bs[i], x.size());
      float* out = in_place ? dx.data() : dy.data();
      bs[i]->rms_norm(dx.data(), rows, dim, dw.data(), 1e-6f, out);
      y[i] = to_host(*bs[i], out, x.size());
    }
    count(compare(checks, "rms_norm rows=" + std::to_string(rows) + " dim=" + std::to_string(dim) +
                              (in_place ? " in place" : ""),
                  y[0], y[1]));
  }

  for (auto [rows, dim] : {std::pair<int, int>{1, 64}, {300, 128}}) {
    const std::vector<float> x = random_vec(size_t(rows) * dim, 8, 3.0f);
    std::vector<float> y[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      Buffer dx = to_device(*bs[i], x);
      bs[i]->center_rows(dx.data(), rows, dim);
      y[i] = to_host(*bs[i], dx.data(), x.size());
    }
    count(compare(checks, "center_rows rows=" + std::to_string(rows) + " dim=" + std::to_string(dim), y[0], y[1]));
  }

  {
    const int rows = 33, heads = 8, hd = 32;
    const std::vector<float> x = random_vec(size_t(rows) * heads * hd, 6), ang = random_vec(size_t(rows) * hd / 2, 7, 3);
    std::vector<float> cs;
    for (float a : ang) {
      cs.push_back(std::cos(a));
      cs.push_back(std::sin(a));
    }
    std::vector<float> y[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      Buffer dx = to_device(*bs[i], x);
      bs[i]->rope(dx.data(), rows, heads, hd, cs.data());
      y[i] = to_host(*bs[i], dx.data(), x.size());
    }
    count(compare(checks, "rope rows=33 heads=8 head_dim=32", y[0], y[1]));
  }

  {
    const size_t n = 33 * 768 + 5;
    const std::vector<float> a = random_vec(n, 8, 4.0f), b = random_vec(n, 9);
    std::vector<float> s[2], g[2], ad[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      Buffer da = to_device(*bs[i], a), db = to_device(*bs[i], b), out(bs[i], n);
      bs[i]->silu_mul(da.data(), db.data(), out.data(), n);
      s[i] = to_host(*bs[i], out.data(), n);
      bs[i]->add(da.data(), db.data(), n);
      ad[i] = to_host(*bs[i], da.data(), n);
      bs[i]->gelu(db.data(), n);
      g[i] = to_host(*bs[i], db.data(), n);
    }
    count(compare(checks, "silu_mul n=25349", s[0], s[1]));
    count(compare(checks, "add n=25349", ad[0], ad[1]));
    count(compare(checks, "gelu n=25349", g[0], g[1]));
  }

  {
    const int vocab = 512, dim = 256, rows = 100, row_len = 96;
    const std::vector<float> table = random_vec(size_t(vocab) * dim, 10), src = random_vec(size_t(rows) * row_len, 11);
    std::vector<int> ids, idx;
    for (int i = 0; i < 40; ++i) ids.push_back((i * 97 + 5) % vocab);
    for (int i = 0; i < 50; ++i) idx.push_back((i * 31 + 7) % rows);
    std::vector<float> e[2], gth[2];
    Backend* bs[2] = {&ref, &test};
    for (int i = 0; i < 2; ++i) {
      saccade::Weight T = bs[i]->upload_weight(table, vocab, dim, saccade::WeightUse::Lookup);
      Buffer out(bs[i], ids.size() * dim), ds = to_device(*bs[i], src), dg(bs[i], idx.size() * row_len);
      bs[i]->embed(ids.data(), int(ids.size()), T, out.data());
      e[i] = to_host(*bs[i], out.data(), out.size());
      bs[i]->gather_rows(ds.data(), row_len, idx.data(), int(idx.size()), dg.data());
      gth[i] = to_host(*bs[i], dg.data(), dg.size());
    }
    count(compare(checks, "embed 40 ids", e[0], e[1]));
    count(compare(checks, "gather_rows 50 rows", gth[0], gth[1]));
  }

  count(line_encoder_ops(ref, test, checks));
  count(convnet_ops(ref, test, checks));

  uint32_t seed = 20;
  for (const AttentionCase& c : attention_cases()) {
    const std::vector<float> q = random_vec(size_t(c.M) * c.Hq * c.d, seed++),
                             k = random_vec(size_t(c.cap) * c.Hkv * c.d, seed++),
                             v = random_vec(size_t(c.cap) * c.Hkv * c.d, seed++);
    const AttentionResult r = run_attention(ref, c, q, k, v), t = run_attention(test, c, q, k, v);
    count(compare(checks, c.name + ": output", r.out, t.out));
    if (c.fixation_outputs) {
      count(compare(checks, c.name + ": image mass", r.mass, t.mass));
      count(compare(checks, c.name + ": image scores", r.scores, t.scores));
    }
  }
  return failed;
}

int width_independence(Backend& test, Json& checks) {
  int failed = 0;
  const auto count = [&](bool pass) { failed += pass ? 0 : 1; };
  {
    const int K = 256, N = 768, M = 100;
    const std::vector<float> x = random_vec(size_t(M) * K, 30), w = random_vec(size_t(N) * K, 31, 0.05f),
                             bias = random_vec(size_t(N), 32);
    saccade::Weight W = test.upload_weight(w, N, K, saccade::WeightUse::Linear);
    Buffer dx = to_device(test, x), db = to_device(test, bias), dy(&test, size_t(M) * N);
    std::vector<std::vector<float>> by_width;
    for (int width : {M, 33, 9, 1}) {
      test.linear(dx.data(), width, W, db.data(), dy.data());
      by_width.push_back(to_host(test, dy.data(), size_t(width) * N));
    }
    // Row 0 is computed by every tile configuration (M = 100, 33, 9, 1); rows 0..8 by three of them.
    bool same = true;
    for (size_t i = 1; i < by_width.size(); ++i)
      same = same && std::memcmp(by_width[0].data(), by_width[i].data(), by_width[i].size() * sizeof(float)) == 0;
    checks.push(Json::object().set("name", "linear: rows identical at widths 100, 33, 9, 1").set("pass", same)
                    .set("bit_identical", same));
    count(same);
  }
  for (const AttentionCase& c : attention_cases()) {
    if (c.M < 2) continue;
    const std::vector<float> q = random_vec(size_t(c.M) * c.Hq * c.d, 40), k = random_vec(size_t(c.cap) * c.Hkv * c.d, 41),
                             v = random_vec(size_t(c.cap) * c.Hkv * c.d, 42);
    const AttentionResult all = run_attention(test, c, q, k, v);
    bool same = true;
    for (int r = 0; r < c.M && same; ++r) {
      AttentionCase one = c;
      one.M = 1;
      one.key_limit = {c.key_limit[size_t(r)]};
      if (!c.keep.empty()) {
        one.keep = {c.keep[size_t(r)]};
        one.has_keep = {c.has_keep[size_t(r)]};
      }
      const size_t row = size_t(c.Hq) * c.d;
      const std::vector<float> q1(q.begin() + long(r * row), q.begin() + long((r + 1) * row));
      const AttentionResult single = run_attention(test, one, q1, k, v);
      same = std::memcmp(single.out.data(), all.out.data() + r * row, row * sizeof(float)) == 0;
      if (same && c.fixation_outputs) {
        const int img_n = c.img_end - c.img_begin;
        same = single.mass[0] == all.mass[size_t(r)] &&
               std::memcmp(single.scores.data(), all.scores.data() + size_t(r) * img_n, img_n * sizeof(float)) == 0;
      }
    }
    checks.push(Json::object().set("name", c.name + ": every row alone is bit-identical to its row in the call")
                    .set("pass", same).set("bit_identical", same));
    count(same);
  }
  return failed;
}

}  // namespace gpucheck
