#include "model/decoder.h"

#include <chrono>

#include "model/glm_ocr/rope.h"
#include "util/error.h"

namespace saccade {

namespace {
double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

KvCache make_kv_cache(Model& m, int cap, int layers) {
  const TextConfig& t = m.cfg.text;
  KvCache c;
  c.cap = cap;
  for (int i = 0; i < (layers < 0 ? t.num_layers : layers); ++i) {
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
  e_ = Buffer(be, R * D);
  q_ = Buffer(be, R * t.num_attention_heads * t.head_dim);
  k_ = Buffer(be, R * t.num_key_value_heads * t.head_dim);
  v_ = Buffer(be, R * t.num_key_value_heads * t.head_dim);
  att_ = Buffer(be, R * t.num_attention_heads * t.head_dim);
  g_ = Buffer(be, R * t.intermediate_size);
  u_ = Buffer(be, R * t.intermediate_size);
  logits_ = Buffer(be, R * t.vocab_size);
  cap_rows_ = rows;
}

int Decoder::embed_rows(std::vector<Segment>& segs, std::vector<Pos3>* pos) {
  Backend& be = *m_.backend;
  const ModelConfig& c = m_.cfg;
  const TextConfig& t = c.text;
  const int D = t.hidden_size;
  int T = 0;
  std::vector<int> ids;
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
    pos->insert(pos->end(), s.pos.begin(), s.pos.end());
    T += n;
  }
  reserve(T);
  be.embed(ids.data(), T, m_.embed_tokens, x_.data());
  int row = 0;
  for (Segment& s : segs) {
    int img = 0;
    for (size_t i = 0; i < s.tokens.size(); ++i, ++row)
      if (s.image_embeds && s.tokens[i] == c.image_token_id)
        be.copy(x_.data() + size_t(row) * D, s.image_embeds + size_t(img++) * D, size_t(D));
  }
  return T;
}

void Decoder::run_layer(const DecoderLayer& L, int cache_layer, int hook_layer, std::vector<Segment>& segs, int T,
                        const float* rope) {
  Backend& be = *m_.backend;
  const TextConfig& t = m_.cfg.text;
  const int D = t.hidden_size, Hq = t.num_attention_heads, Hkv = t.num_key_value_heads, hd = t.head_dim;
  const int qd = Hq * hd, kvd = Hkv * hd;
  const size_t l = size_t(cache_layer);
  be.rms_norm(x_.data(), T, D, L.input_norm.data(), t.rms_norm_eps, h_.data());
  be.linear(h_.data(), T, L.q, nullptr, q_.data());
  be.linear(h_.data(), T, L.k, nullptr, k_.data());
  be.linear(h_.data(), T, L.v, nullptr, v_.data());
  be.rope(q_.data(), T, Hq, hd, rope);
  be.rope(k_.data(), T, Hkv, hd, rope);
  int row = 0;
  for (Segment& s : segs) {
    const int n = int(s.tokens.size());
    KvCache& kv = *s.cache;
    be.copy(kv.k[l].data() + size_t(s.first_slot) * kvd, k_.data() + size_t(row) * kvd, size_t(n) * kvd);
    be.copy(kv.v[l].data() + size_t(s.first_slot) * kvd, v_.data() + size_t(row) * kvd, size_t(n) * kvd);
    AttentionArgs a = attention_args(q_.data() + size_t(row) * qd, kv.k[l].data(), kv.v[l].data(), n, Hq, Hkv, hd,
                                     s.key_limit.data(), att_.data() + size_t(row) * qd);
    a.img_begin = s.img_begin;
    a.img_end = s.img_end;
    AttentionHook* hook = hook_layer >= 0 ? s.hook : nullptr;
    const double t0 = s.attention_ms ? wall_ms() : 0;
    if (hook) hook->before_attention(hook_layer, a);
    be.attention(a);
    if (hook) hook->after_attention(hook_layer, a);
    if (s.attention_ms) *s.attention_ms += wall_ms() - t0;
    row += n;
  }
  be.linear(att_.data(), T, L.o, nullptr, h_.data());
  if (L.attn_out_norm.size()) be.rms_norm(h_.data(), T, D, L.attn_out_norm.data(), t.rms_norm_eps, h_.data());
  be.add(x_.data(), h_.data(), size_t(T) * D);
  be.rms_norm(x_.data(), T, D, L.post_norm.data(), t.rms_norm_eps, h_.data());
  be.linear(h_.data(), T, L.gate, nullptr, g_.data());
  be.linear(h_.data(), T, L.up, nullptr, u_.data());
  be.silu_mul(g_.data(), u_.data(), g_.data(), size_t(T) * t.intermediate_size);
  be.linear(g_.data(), T, L.down, nullptr, h_.data());
  if (L.mlp_out_norm.size()) be.rms_norm(h_.data(), T, D, L.mlp_out_norm.data(), t.rms_norm_eps, h_.data());
  be.add(x_.data(), h_.data(), size_t(T) * D);
}

std::vector<float> Decoder::rope_table(const std::vector<Pos3>& pos) const {
  if (m_.glm) return glm_ocr::text_rope_table(m_.glm->cfg, m_.cfg.text, pos.data(), int(pos.size()));
  return mrope_table(m_.cfg.text, pos.data(), int(pos.size()));
}

std::vector<float> Decoder::read_out(std::vector<Segment>& segs, const Buffer& norm, bool normed_hidden) {
  Backend& be = *m_.backend;
  const TextConfig& t = m_.cfg.text;
  const int D = t.hidden_size;
  int T = 0;
  bool wanted = false;
  for (const Segment& s : segs) {
    T += int(s.tokens.size());
    wanted = wanted || s.hidden_out;
  }
  if (normed_hidden && wanted) be.rms_norm(x_.data(), T, D, norm.data(), t.rms_norm_eps, e_.data());
  const float* hidden = normed_hidden ? e_.data() : x_.data();
  std::vector<int> out_rows;
  int row = 0;
  for (Segment& s : segs) {
    const int n = int(s.tokens.size());
    if (s.hidden_out) {
      s.hidden_out->resize(size_t(n) * D);
      be.download(s.hidden_out->data(), hidden + size_t(row) * D, s.hidden_out->size());
    }
    for (int i = s.last_row_logits_only ? n - 1 : 0; i < n; ++i) out_rows.push_back(row + i);
    row += n;
  }
  const int R = int(out_rows.size());
  be.gather_rows(x_.data(), D, out_rows.data(), R, h_.data());
  be.rms_norm(h_.data(), R, D, norm.data(), t.rms_norm_eps, h_.data());
  be.linear(h_.data(), R, m_.lm_head, nullptr, logits_.data());
  std::vector<float> out(size_t(R) * t.vocab_size);
  be.download(out.data(), logits_.data(), out.size());
  return out;
}

std::vector<float> Decoder::forward(std::vector<Segment>& segs) {
  std::vector<Pos3> pos;
  const int T = embed_rows(segs, &pos);
  const std::vector<float> rope = rope_table(pos);
  for (int l = 0; l < m_.cfg.text.num_layers; ++l) run_layer(m_.layers[size_t(l)], l, l, segs, T, rope.data());
  const bool normed_hidden = m_.mtp && m_.mtp->after_final_norm;
  return read_out(segs, m_.final_norm, normed_hidden);
}

std::vector<float> Decoder::forward_mtp(std::vector<Segment>& segs) {
  if (!m_.mtp) throw EngineError("this model has no MTP head");
  Backend& be = *m_.backend;
  const TextConfig& t = m_.cfg.text;
  const int D = t.hidden_size;
  const MtpHead& head = *m_.mtp;
  std::vector<Pos3> pos;
  const int T = embed_rows(segs, &pos);  // x_: the next tokens' embeddings
  int row = 0;
  for (Segment& s : segs) {
    if (!s.mtp_hidden) throw EngineError("decoder forward_mtp: segment without hidden states");
    be.upload(h_.data() + size_t(row) * D, s.mtp_hidden, s.tokens.size() * size_t(D));
    row += int(s.tokens.size());
  }
  if (head.zero_first_embedding) {
    const std::vector<float> zero(size_t(D), 0.0f);
    for (int i = 0; i < T; ++i)
      if (pos[size_t(i)].t == 0 && pos[size_t(i)].h == 0 && pos[size_t(i)].w == 0)
        be.upload(x_.data() + size_t(i) * D, zero.data(), zero.size());
  }
  be.rms_norm(h_.data(), T, D, head.hnorm.data(), t.rms_norm_eps, h_.data());
  be.rms_norm(x_.data(), T, D, head.enorm.data(), t.rms_norm_eps, x_.data());
  be.linear(x_.data(), T, head.eh_proj_e, nullptr, e_.data());
  be.linear(h_.data(), T, head.eh_proj_h, nullptr, x_.data());
  be.add(x_.data(), e_.data(), size_t(T) * D);
  const std::vector<float> rope = rope_table(pos);
  run_layer(head.layer, 0, -1, segs, T, rope.data());
  return read_out(segs, head.norm, false);
}

}  // namespace saccade
