#include "model/decoder.h"

#include <chrono>

#include "util/error.h"

namespace saccade {

namespace {
double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

KvCache make_kv_cache(Model& m, int cap) {
  const TextConfig& t = m.cfg.text;
  KvCache c;
  c.cap = cap;
  for (int i = 0; i < t.num_layers; ++i) {
    c.k.emplace_back(m.backend.get(), size_t(cap) * t.num_key_value_heads * t.head_dim);
    c.v.emplace_back(m.backend.get(), size_t(cap) * t.num_key_value_heads * t.head_dim);
  }
  return c;
}

void Decoder::reserve(int rows) {
  if (rows <= cap_rows_) return;
  Backend* be = m_.backend.get();
  const TextConfig& t = m_.cfg.text;
  const size_t R = size_t(rows), D = size_t(t.hidden_size);
  x_ = Buffer(be, R * D);
  h_ = Buffer(be, R * D);
  q_ = Buffer(be, R * t.num_attention_heads * t.head_dim);
  k_ = Buffer(be, R * t.num_key_value_heads * t.head_dim);
  v_ = Buffer(be, R * t.num_key_value_heads * t.head_dim);
  att_ = Buffer(be, R * t.num_attention_heads * t.head_dim);
  g_ = Buffer(be, R * t.intermediate_size);
  u_ = Buffer(be, R * t.intermediate_size);
  logits_ = Buffer(be, R * t.vocab_size);
  cap_rows_ = rows;
}

std::vector<float> Decoder::forward(std::vector<Segment>& segs) {
  Backend& be = *m_.backend;
  const ModelConfig& c = m_.cfg;
  const TextConfig& t = c.text;
  const int D = t.hidden_size, Hq = t.num_attention_heads, Hkv = t.num_key_value_heads, hd = t.head_dim;
  const int qd = Hq * hd, kvd = Hkv * hd;

  int T = 0;
  std::vector<int> ids;
  std::vector<Pos3> pos;
  for (Segment& s : segs) {
    const int n = int(s.tokens.size());
    if (n == 0 || int(s.pos.size()) != n || int(s.key_limit.size()) != n)
      throw EngineError("decoder forward: malformed segment");
    if (s.first_slot < s.cache->len || s.first_slot + n > s.cache->cap)
      throw EngineError("decoder forward: rows outside the cache's scratch area");
    for (int i = 0; i < n; ++i)
      if (s.key_limit[i] < 1 || s.key_limit[i] > s.cache->cap || s.tokens[i] < 0 || s.tokens[i] >= t.vocab_size)
        throw EngineError("decoder forward: bad row");
    ids.insert(ids.end(), s.tokens.begin(), s.tokens.end());
    pos.insert(pos.end(), s.pos.begin(), s.pos.end());
    T += n;
  }
  reserve(T);
  be.embed(ids.data(), T, m_.embed_tokens, x_.data());
  {
    int row = 0;
    for (Segment& s : segs) {
      int img = 0;
      for (size_t i = 0; i < s.tokens.size(); ++i, ++row)
        if (s.image_embeds && s.tokens[i] == c.image_token_id)
          be.copy(x_.data() + size_t(row) * D, s.image_embeds + size_t(img++) * D, size_t(D));
    }
  }
  const std::vector<float> rope = mrope_table(t, pos.data(), T);

  for (int l = 0; l < t.num_layers; ++l) {
    const DecoderLayer& L = m_.layers[size_t(l)];
    be.rms_norm(x_.data(), T, D, L.input_norm.data(), t.rms_norm_eps, h_.data());
    be.linear(h_.data(), T, L.q, nullptr, q_.data());
    be.linear(h_.data(), T, L.k, nullptr, k_.data());
    be.linear(h_.data(), T, L.v, nullptr, v_.data());
    be.rope(q_.data(), T, Hq, hd, rope.data());
    be.rope(k_.data(), T, Hkv, hd, rope.data());
    int row = 0;
    for (Segment& s : segs) {
      const int n = int(s.tokens.size());
      KvCache& kv = *s.cache;
      be.copy(kv.k[size_t(l)].data() + size_t(s.first_slot) * kvd, k_.data() + size_t(row) * kvd, size_t(n) * kvd);
      be.copy(kv.v[size_t(l)].data() + size_t(s.first_slot) * kvd, v_.data() + size_t(row) * kvd, size_t(n) * kvd);
      AttentionArgs a{};
      a.q = q_.data() + size_t(row) * qd;
      a.k = kv.k[size_t(l)].data();
      a.v = kv.v[size_t(l)].data();
      a.M = n;
      a.Hq = Hq;
      a.Hkv = Hkv;
      a.d = hd;
      a.key_limit = s.key_limit.data();
      a.img_begin = s.img_begin;
      a.img_end = s.img_end;
      a.out = att_.data() + size_t(row) * qd;
      const double t0 = s.attention_ms ? wall_ms() : 0;
      if (s.hook) s.hook->before_attention(l, a);
      be.attention(a);
      if (s.hook) s.hook->after_attention(l, a);
      if (s.attention_ms) *s.attention_ms += wall_ms() - t0;
      row += n;
    }
    be.linear(att_.data(), T, L.o, nullptr, h_.data());
    be.add(x_.data(), h_.data(), size_t(T) * D);
    be.rms_norm(x_.data(), T, D, L.post_norm.data(), t.rms_norm_eps, h_.data());
    be.linear(h_.data(), T, L.gate, nullptr, g_.data());
    be.linear(h_.data(), T, L.up, nullptr, u_.data());
    be.silu_mul(g_.data(), u_.data(), g_.data(), size_t(T) * t.intermediate_size);
    be.linear(g_.data(), T, L.down, nullptr, h_.data());
    be.add(x_.data(), h_.data(), size_t(T) * D);
  }

  // Final norm and LM head only on the rows whose logits are wanted.
  std::vector<int> out_rows;
  {
    int row = 0;
    for (Segment& s : segs) {
      const int n = int(s.tokens.size());
      for (int i = s.last_row_logits_only ? n - 1 : 0; i < n; ++i) out_rows.push_back(row + i);
      row += n;
    }
  }
  const int R = int(out_rows.size());
  be.gather_rows(x_.data(), D, out_rows.data(), R, h_.data());
  be.rms_norm(h_.data(), R, D, m_.final_norm.data(), t.rms_norm_eps, h_.data());
  be.linear(h_.data(), R, m_.lm_head, nullptr, logits_.data());
  std::vector<float> out(size_t(R) * t.vocab_size);
  be.download(out.data(), logits_.data(), out.size());
  return out;
}

}  // namespace saccade
