#include "model/glm_ocr/vision.h"

#include "model/glm_ocr/rope.h"
#include "model/model.h"

namespace saccade::glm_ocr {

namespace {

const float* bias(const Buffer& b) { return b.size() ? b.data() : nullptr; }

std::vector<float> download(Backend& be, const Buffer& b, size_t n) {
  std::vector<float> h(n);
  be.download(h.data(), b.data(), n);
  return h;
}

}  // namespace

Buffer encode_image(Model& m, const ProcessedImage& im, VisionStages* stages) {
  Backend& be = *m.backend;
  const VisionConfig& c = m.glm->cfg.vision;
  const Vision& w = m.glm->vision;
  const int S = im.grid_h * im.grid_w, Dv = c.hidden_size, H = c.num_heads, hd = c.head_dim();
  const int I = c.intermediate_size, mm = c.merge_size * c.merge_size, N = S / mm, D = c.out_hidden_size;
  const int Im = c.merger_width();

  Buffer px(&be, im.pixel_values.size());
  be.upload(px.data(), im.pixel_values.data(), im.pixel_values.size());
  Buffer x(&be, size_t(S) * Dv), h(&be, size_t(S) * Dv), q(&be, size_t(S) * Dv), k(&be, size_t(S) * Dv),
      v(&be, size_t(S) * Dv), att(&be, size_t(S) * Dv), g(&be, size_t(S) * I), u(&be, size_t(S) * I);
  be.linear(px.data(), S, w.patch_embed, w.patch_embed_b.data(), x.data());  // [S, Dv]
  if (stages) stages->patch_embeds = download(be, x, size_t(S) * Dv);

  const std::vector<float> rope = vision_rope_table(c, im.grid_h, im.grid_w);
  const std::vector<int> limit(size_t(S), S);  // one image: full bidirectional attention over its patches
  for (const VisionBlock& L : w.blocks) {
    be.rms_norm(x.data(), S, Dv, L.norm1.data(), c.rms_norm_eps, h.data());
    be.linear(h.data(), S, L.q, bias(L.q_b), q.data());
    be.linear(h.data(), S, L.k, bias(L.k_b), k.data());
    be.linear(h.data(), S, L.v, bias(L.v_b), v.data());
    be.rms_norm(q.data(), S * H, hd, L.q_norm.data(), c.rms_norm_eps, q.data());
    be.rms_norm(k.data(), S * H, hd, L.k_norm.data(), c.rms_norm_eps, k.data());
    be.rope(q.data(), S, H, hd, rope.data());
    be.rope(k.data(), S, H, hd, rope.data());
    be.attention(attention_args(q.data(), k.data(), v.data(), S, H, H, hd, limit.data(), att.data()));
    be.linear(att.data(), S, L.proj, bias(L.proj_b), h.data());
    be.add(x.data(), h.data(), size_t(S) * Dv);
    be.rms_norm(x.data(), S, Dv, L.norm2.data(), c.rms_norm_eps, h.data());
    be.linear(h.data(), S, L.gate, bias(L.gate_b), g.data());
    be.linear(h.data(), S, L.up, bias(L.up_b), u.data());
    be.silu_mul(g.data(), u.data(), g.data(), size_t(S) * I);
    be.linear(g.data(), S, L.down, bias(L.down_b), h.data());
    be.add(x.data(), h.data(), size_t(S) * Dv);
  }
  be.rms_norm(x.data(), S, Dv, w.post_norm.data(), c.rms_norm_eps, x.data());
  if (stages) stages->post_layernorm = download(be, x, size_t(S) * Dv);

  // Patches come in merge-block order, so each block's m x m patches are one contiguous row of x [N, mm * Dv].
  Buffer z(&be, size_t(N) * D), y(&be, size_t(N) * D), mg(&be, size_t(N) * Im), mu(&be, size_t(N) * Im);
  be.linear(x.data(), N, w.downsample, w.downsample_b.data(), z.data());
  if (stages) stages->downsample = download(be, z, size_t(N) * D);
  be.linear(z.data(), N, w.merger_proj, nullptr, y.data());
  // LayerNorm at PyTorch's default eps, not the config's (GlmOcrVisionPatchMerger builds it without one).
  be.layer_norm(y.data(), N, D, w.merger_norm_w.data(), w.merger_norm_b.data(), 1e-5f, z.data());
  be.gelu(z.data(), size_t(N) * D);
  be.linear(z.data(), N, w.merger_gate, nullptr, mg.data());
  be.linear(z.data(), N, w.merger_up, nullptr, mu.data());
  be.silu_mul(mg.data(), mu.data(), mg.data(), size_t(N) * Im);
  be.linear(mg.data(), N, w.merger_down, nullptr, y.data());
  return y;
}

}  // namespace saccade::glm_ocr
