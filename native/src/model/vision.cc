#include "model/vision.h"

#include "model/conv_stem.h"
#include "model/line_encoder.h"
#include "model/rope.h"

namespace saccade {

Buffer vision_encoder(Model& m, const PreparedImage& im) {
  Backend& be = *m.backend;
  const VisionConfig& c = m.cfg.vision;
  const int N = im.patch_rows * im.patch_cols, Dv = c.hidden_size, H = c.num_heads, hd = c.head_dim();
  const int I = c.intermediate_size;

  Buffer embed_in;
  if (m.stem.empty()) {
    embed_in = Buffer(&be, im.patches.size());
    be.upload(embed_in.data(), im.patches.data(), im.patches.size());
  } else {
    embed_in = conv_stem(m, im);
  }
  Buffer x(&be, size_t(N) * Dv), h(&be, size_t(N) * Dv), q(&be, size_t(N) * Dv), k(&be, size_t(N) * Dv),
      v(&be, size_t(N) * Dv), att(&be, size_t(N) * Dv), g(&be, size_t(N) * I), u(&be, size_t(N) * I);
  be.linear(embed_in.data(), N, m.patch_embed, m.patch_embed_b.data(), x.data());

  const std::vector<float> rope = vision_rope_table(c, im.patch_rows, im.patch_cols);
  std::vector<int> limit(size_t(N), N);  // full bidirectional attention
  for (const VisionLayer& L : m.vision_layers) {
    be.rms_norm(x.data(), N, Dv, L.norm1.data(), c.rms_norm_eps, h.data());
    be.linear(h.data(), N, L.q, L.q_b.data(), q.data());
    be.linear(h.data(), N, L.k, L.k_b.data(), k.data());
    be.linear(h.data(), N, L.v, L.v_b.data(), v.data());
    be.rms_norm(q.data(), N * H, hd, L.q_norm.data(), c.rms_norm_eps, q.data());
    be.rms_norm(k.data(), N * H, hd, L.k_norm.data(), c.rms_norm_eps, k.data());
    be.rope(q.data(), N, H, hd, rope.data());
    be.rope(k.data(), N, H, hd, rope.data());
    be.attention(attention_args(q.data(), k.data(), v.data(), N, H, H, hd, limit.data(), att.data()));
    be.linear(att.data(), N, L.proj, L.proj_b.data(), h.data());
    be.add(x.data(), h.data(), size_t(N) * Dv);
    be.rms_norm(x.data(), N, Dv, L.norm2.data(), c.rms_norm_eps, h.data());
    be.linear(h.data(), N, L.gate, nullptr, g.data());
    be.linear(h.data(), N, L.up, nullptr, u.data());
    be.silu_mul(g.data(), u.data(), g.data(), size_t(N) * I);
    be.linear(g.data(), N, L.down, nullptr, h.data());
    be.add(x.data(), h.data(), size_t(N) * Dv);
  }
  // The patches' differences are what the decoder reads (docs/model-format.md).
  be.center_rows(x.data(), N, Dv);
  be.rms_norm(x.data(), N, Dv, m.vision_post_norm.data(), c.rms_norm_eps, x.data());
  return x;
}

Buffer encode_image(Model& m, const PreparedImage& im, LineReading* reading) {
  if (m.line) return line_image_tokens(m, im, reading);
  Backend& be = *m.backend;
  const int ms = m.cfg.vision.merge_size, Dv = m.cfg.vision.hidden_size, D = m.cfg.text.hidden_size;
  const int Nm = im.rows * im.cols;
  Buffer enc = vision_encoder(m, im);
  // Concatenate the m x m patches of each merged cell, row-major inside the cell.
  std::vector<int> idx;
  idx.reserve(size_t(Nm) * ms * ms);
  for (int r = 0; r < im.rows; ++r)
    for (int cc = 0; cc < im.cols; ++cc)
      for (int i = 0; i < ms; ++i)
        for (int j = 0; j < ms; ++j) idx.push_back((r * ms + i) * im.patch_cols + cc * ms + j);
  Buffer cat(&be, size_t(Nm) * ms * ms * Dv), hid(&be, size_t(Nm) * D), out(&be, size_t(Nm) * D);
  be.gather_rows(enc.data(), Dv, idx.data(), int(idx.size()), cat.data());
  be.linear(cat.data(), Nm, m.merger_fc1, m.merger_fc1_b.data(), hid.data());
  be.gelu(hid.data(), size_t(Nm) * D);
  be.linear(hid.data(), Nm, m.merger_fc2, m.merger_fc2_b.data(), out.data());
  be.rms_norm(out.data(), Nm, D, m.merger_norm.data(), m.cfg.text.rms_norm_eps, out.data());
  return out;
}

}  // namespace saccade
