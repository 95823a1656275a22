#include "model/glm_ocr/loader.h"

#include <algorithm>
#include <cstring>

#include "model/glm_ocr/checkpoint.h"
#include "model/glm_ocr/rope.h"
#include "model/glm_ocr/tokens.h"
#include "util/error.h"
#include "util/mapped_file.h"

namespace saccade::glm_ocr {

namespace {

DType dtype_of(const std::string& s) {
  if (s == "bfloat16") return DType::BF16;
  if (s == "float16") return DType::F16;
  return DType::F32;
}

// Tensors out of the checkpoint, by the names save_pretrained writes (docs/glm-ocr.md section 3), onto the
// backend. Matrices go through Backend::upload_weight, which keeps bfloat16 values in bfloat16 panels on the
// CPU.
class Reader {
 public:
  Reader(Checkpoint& ck, Backend& be) : ck_(ck), be_(be) {}

  std::vector<float> f32(const std::string& name, const std::vector<int64_t>& shape) {
    return to_f32(ck_.take(name, shape));
  }
  Buffer vec(const std::string& name, int n) { return upload(f32(name, {n})); }
  Buffer upload(const std::vector<float>& h) {
    Buffer b(&be_, h.size());
    be_.upload(b.data(), h.data(), h.size());
    return b;
  }
  Weight linear(const std::vector<float>& w, int rows, int cols, WeightUse use = WeightUse::Linear) {
    return be_.upload_weight(w, rows, cols, use);
  }
  Weight mat(const std::string& name, int rows, int cols) { return linear(f32(name, {rows, cols}), rows, cols); }
  // Rows [first, first + n) of a [*, cols] matrix.
  Weight rows(const std::vector<float>& w, int first, int n, int cols) {
    return linear(std::vector<float>(w.begin() + long(first) * cols, w.begin() + long(first + n) * cols), n, cols);
  }
  // A [heads * head_dim, cols] projection with each head's rows in half_split_rows order.
  Weight half_split(const std::string& name, int heads, int head_dim, int cols) {
    const std::vector<float> w = f32(name, {int64_t(heads) * head_dim, cols});
    std::vector<float> out(w.size());
    const std::vector<int> src = half_split_rows(heads, head_dim);
    for (size_t r = 0; r < src.size(); ++r)
      std::copy_n(w.begin() + long(src[r]) * cols, cols, out.begin() + long(r) * cols);
    return linear(out, heads * head_dim, cols);
  }
  // Columns [first, first + n) of a [rows, cols] matrix.
  Weight columns(const std::vector<float>& w, int rows_n, int cols, int first, int n) {
    std::vector<float> out(size_t(rows_n) * n);
    for (int r = 0; r < rows_n; ++r)
      std::copy_n(w.begin() + long(r) * cols + first, n, out.begin() + long(r) * n);
    return linear(out, rows_n, n);
  }
  // `copy` must hold exactly `original`'s bytes: the engine keeps one of the two.
  void same_as(const std::string& copy, const std::string& original, const std::vector<int64_t>& shape) {
    const TensorView& a = ck_.take(copy, shape);
    const TensorView& b = ck_.take(original, shape);
    if (a.bytes != b.bytes || std::memcmp(a.data, b.data, a.bytes) != 0)
      throw EngineError("checkpoint: " + copy + " differs from " + original + "; this engine shares one between the "
                        "MTP layer and the trunk");
    shared_ += size_t(a.numel());
  }
  size_t shared() const { return shared_; }

 private:
  Checkpoint& ck_;
  Backend& be_;
  size_t shared_ = 0;
};

void load_vision(Reader& r, const VisionConfig& v, Vision* out) {
  const int Dv = v.hidden_size, I = v.intermediate_size, hd = v.head_dim(), m = v.merge_size;
  const int D = v.out_hidden_size, Im = v.merger_width();
  const int patch_in = 3 * v.temporal_patch_size * v.patch_size * v.patch_size;
  const std::string p = "model.visual.";
  // The Conv3d over a patch is a dot product with its flattened kernel, which flattens as pixel_values do.
  out->patch_embed =
      r.linear(r.f32(p + "patch_embed.proj.weight", {Dv, 3, v.temporal_patch_size, v.patch_size, v.patch_size}), Dv,
               patch_in);
  out->patch_embed_b = r.vec(p + "patch_embed.proj.bias", Dv);
  for (int i = 0; i < v.depth; ++i) {
    const std::string b = p + "blocks." + std::to_string(i) + ".";
    VisionBlock L;
    L.norm1 = r.vec(b + "norm1.weight", Dv);
    L.norm2 = r.vec(b + "norm2.weight", Dv);
    const std::vector<float> qkv = r.f32(b + "attn.qkv.weight", {3 * Dv, Dv});
    L.q = r.rows(qkv, 0, Dv, Dv);
    L.k = r.rows(qkv, Dv, Dv, Dv);
    L.v = r.rows(qkv, 2 * Dv, Dv, Dv);
    L.q_norm = r.vec(b + "attn.q_norm.weight", hd);
    L.k_norm = r.vec(b + "attn.k_norm.weight", hd);
    L.proj = r.mat(b + "attn.proj.weight", Dv, Dv);
    L.gate = r.mat(b + "mlp.gate_proj.weight", I, Dv);
    L.up = r.mat(b + "mlp.up_proj.weight", I, Dv);
    L.down = r.mat(b + "mlp.down_proj.weight", Dv, I);
    if (v.bias) {
      const std::vector<float> qkv_b = r.f32(b + "attn.qkv.bias", {3 * Dv});
      L.q_b = r.upload({qkv_b.begin(), qkv_b.begin() + Dv});
      L.k_b = r.upload({qkv_b.begin() + Dv, qkv_b.begin() + 2 * Dv});
      L.v_b = r.upload({qkv_b.begin() + 2 * Dv, qkv_b.end()});
      L.proj_b = r.vec(b + "attn.proj.bias", Dv);
      L.gate_b = r.vec(b + "mlp.gate_proj.bias", I);
      L.up_b = r.vec(b + "mlp.up_proj.bias", I);
      L.down_b = r.vec(b + "mlp.down_proj.bias", Dv);
    }
    out->blocks.push_back(std::move(L));
  }
  out->post_norm = r.vec(p + "post_layernorm.weight", Dv);
  // The m x m Conv2d over a merge block, [out, c, i, j], as a linear map of the block's patches laid end to end.
  const std::vector<float> ds = r.f32(p + "downsample.weight", {D, Dv, m, m});
  std::vector<float> ds_linear(ds.size());
  for (int o = 0; o < D; ++o)
    for (int c = 0; c < Dv; ++c)
      for (int ij = 0; ij < m * m; ++ij)
        ds_linear[(size_t(o) * m * m + ij) * Dv + c] = ds[(size_t(o) * Dv + c) * m * m + ij];
  out->downsample = r.linear(ds_linear, D, m * m * Dv);
  out->downsample_b = r.vec(p + "downsample.bias", D);
  out->merger_proj = r.mat(p + "merger.proj.weight", D, D);
  out->merger_norm_w = r.vec(p + "merger.post_projection_norm.weight", D);
  out->merger_norm_b = r.vec(p + "merger.post_projection_norm.bias", D);
  out->merger_gate = r.mat(p + "merger.gate_proj.weight", Im, D);
  out->merger_up = r.mat(p + "merger.up_proj.weight", Im, D);
  out->merger_down = r.mat(p + "merger.down_proj.weight", D, Im);
}

DecoderLayer load_text_layer(Reader& r, const TextConfig& t, const std::string& p) {
  const int D = t.hidden_size, I = t.intermediate_size, hd = t.head_dim;
  DecoderLayer L;
  L.input_norm = r.vec(p + "input_layernorm.weight", D);
  L.q = r.half_split(p + "self_attn.q_proj.weight", t.num_attention_heads, hd, D);
  L.k = r.half_split(p + "self_attn.k_proj.weight", t.num_key_value_heads, hd, D);
  L.v = r.mat(p + "self_attn.v_proj.weight", t.num_key_value_heads * hd, D);
  L.o = r.mat(p + "self_attn.o_proj.weight", D, t.num_attention_heads * hd);
  L.attn_out_norm = r.vec(p + "post_self_attn_layernorm.weight", D);
  L.post_norm = r.vec(p + "post_attention_layernorm.weight", D);
  const std::vector<float> gate_up = r.f32(p + "mlp.gate_up_proj.weight", {2 * I, D});
  L.gate = r.rows(gate_up, 0, I, D);
  L.up = r.rows(gate_up, I, I, D);
  L.down = r.mat(p + "mlp.down_proj.weight", D, I);
  L.mlp_out_norm = r.vec(p + "post_mlp_layernorm.weight", D);
  return L;
}

// The layer after the trunk's (layers.{num_hidden_layers}), which transformers does not load (section 8).
std::unique_ptr<MtpHead> load_mtp(Reader& r, const TextConfig& t) {
  const int D = t.hidden_size, V = t.vocab_size;
  const std::string p = "model.language_model.layers." + std::to_string(t.num_layers) + ".";
  auto h = std::make_unique<MtpHead>();
  h->layer = load_text_layer(r, t, p);
  h->enorm = r.vec(p + "enorm.weight", D);
  h->hnorm = r.vec(p + "hnorm.weight", D);
  const std::vector<float> eh = r.f32(p + "eh_proj.weight", {D, 2 * D});  // columns: [embedding ; hidden]
  h->eh_proj_e = r.columns(eh, D, 2 * D, 0, D);
  h->eh_proj_h = r.columns(eh, D, 2 * D, D, D);
  h->norm = r.vec(p + "shared_head.norm.weight", D);
  r.same_as(p + "shared_head.head.weight", "lm_head.weight", {V, D});
  r.same_as(p + "embed_tokens.weight", "model.language_model.embed_tokens.weight", {V, D});
  h->after_final_norm = h->zero_first_embedding = true;
  return h;
}

// GLM-OCR has been checked against its goldens on the CPU backend only, so "auto" picks the CPU for it; a
// backend asked for by name runs it (the CUDA backend has every op it uses), which is how `npm run
// gpu-check` runs those goldens on a device.
std::unique_ptr<Backend> make_backend(const BackendOptions& opts) {
  BackendOptions o = opts;
  if (o.name.empty() || o.name == "auto") o.name = "cpu";
  return create_backend(o);
}

}  // namespace

std::unique_ptr<Model> load(const std::string& dir, const std::string& config_json, const LoadOptions& opts) {
  auto m = std::make_unique<Model>();
  m->dir = dir;
  m->glm = std::make_unique<GlmOcr>();
  GlmOcr& g = *m->glm;
  std::string preprocessor;
  try {
    preprocessor = read_text_file(dir + "/preprocessor_config.json", kMaxConfigBytes);
  } catch (const EngineError& e) {
    throw EngineError(std::string("preprocessor_config.json: ") + e.what());
  }
  g.cfg = parse_config(config_json, preprocessor, &m->cfg);
  const TextConfig& t = m->cfg.text;
  TokenizerParts tok = load_tokenizer(dir, m->cfg.image_token_id, t.vocab_size);
  if (tok.prompt.before_image.back() != g.cfg.image_start_token_id ||
      tok.prompt.after_image.begin()->second.front() != g.cfg.image_end_token_id)
    throw EngineError("tokenizer.json: <|begin_of_image|> and <|end_of_image|> are not config.json's "
                      "image_start_token_id and image_end_token_id");
  m->tokenizer = std::move(tok.text);
  g.prompt = std::move(tok.prompt);

  Checkpoint ck(dir, dtype_of(g.cfg.dtype));
  m->weight_dtype = g.cfg.dtype == "bfloat16" ? "BF16" : g.cfg.dtype == "float16" ? "F16" : "F32";
  m->backend = make_backend(opts.backend);
  Reader r(ck, *m->backend);
  load_vision(r, g.cfg.vision, &g.vision);
  const int D = t.hidden_size, V = t.vocab_size;
  const std::string p = "model.language_model.";
  m->embed_tokens = r.linear(r.f32(p + "embed_tokens.weight", {V, D}), V, D, WeightUse::Lookup);
  for (int i = 0; i < t.num_layers; ++i) m->layers.push_back(load_text_layer(r, t, p + "layers." + std::to_string(i) + "."));
  m->final_norm = r.vec(p + "norm.weight", D);
  m->lm_head = r.mat("lm_head.weight", V, D);
  if (t.num_mtp_layers == 1) m->mtp = load_mtp(r, t);
  ck.check_all_taken();
  m->parameter_count = ck.parameters() - r.shared();
  return m;
}

}  // namespace saccade::glm_ocr
