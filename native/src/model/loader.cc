#include "model/model.h"

#include <algorithm>
#include <set>

#include "model/conv_stem.h"
#include "model/safetensors.h"
#include "util/error.h"
#include "util/mapped_file.h"

namespace saccade {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Pulls tensors out of the file by name, checking shape and dtype, and remembers which names were used.
class WeightReader {
 public:
  WeightReader(const SafeTensors& st, Backend& be, DType dtype) : st_(st), be_(be), dtype_(dtype) {}

  std::vector<float> read(const std::string& name, std::vector<int64_t> shape) {
    const TensorView* t = st_.find(name);
    if (!t) throw EngineError("model.safetensors: missing tensor " + name);
    if (t->shape != shape)
      throw EngineError("model.safetensors: tensor " + name + " has shape " + shape_str(t->shape) + ", config expects " +
                        shape_str(shape));
    if (t->dtype != dtype_) throw EngineError("model.safetensors: tensor " + name + " dtype differs from config torch_dtype");
    used_.insert(name);
    count_ += size_t(t->numel());
    return to_f32(*t);
  }
  Buffer vec(const std::string& name, int64_t n) {
    std::vector<float> h = read(name, {n});
    Buffer b(&be_, h.size());
    be_.upload(b.data(), h.data(), h.size());
    return b;
  }
  Weight mat(const std::string& name, int rows, int cols, WeightUse use = WeightUse::Linear) {
    return be_.upload_weight(read(name, {rows, cols}), rows, cols, use);
  }
  // Splits a [parts * rows, cols] matrix (or [parts * rows] vector when cols == 0) into row blocks.
  std::vector<std::vector<float>> split(const std::string& name, int parts, int rows, int cols) {
    std::vector<float> all = cols ? read(name, {int64_t(parts) * rows, cols}) : read(name, {int64_t(parts) * rows});
    const size_t block = size_t(rows) * size_t(cols ? cols : 1);
    std::vector<std::vector<float>> out;
    for (int p = 0; p < parts; ++p) out.emplace_back(all.begin() + p * block, all.begin() + (p + 1) * block);
    return out;
  }
  Buffer upload_vec(const std::vector<float>& h) {
    Buffer b(&be_, h.size());
    be_.upload(b.data(), h.data(), h.size());
    return b;
  }
  void check_all_used() const {
    for (const auto& kv : st_.tensors())
      if (!used_.count(kv.first))
        throw EngineError("model.safetensors: unexpected tensor " + kv.first + " (checkpoint does not match config.json)");
  }
  size_t count() const { return count_; }

 private:
  const SafeTensors& st_;
  Backend& be_;
  DType dtype_;
  std::set<std::string> used_;
  size_t count_ = 0;
};

DType dtype_from_config(const std::string& s) {
  if (s == "float16") return DType::F16;
  if (s == "bfloat16") return DType::BF16;
  if (s == "float32") return DType::F32;
  throw EngineError("config.json: unsupported torch_dtype " + s);
}

}  // namespace

std::unique_ptr<Model> load_model(const std::string& dir, const LoadOptions& opts) {
  auto m = std::make_unique<Model>();
  m->dir = dir;
  try {
    m->cfg = parse_config(read_text_file(dir + "/config.json"));
  } catch (const EngineError& e) {
    throw EngineError(std::string("config.json: ") + e.what());
  }
  const ModelConfig& c = m->cfg;
  try {
    m->tokenizer = Tokenizer::parse(read_text_file(dir + "/tokenizer.json"), c.text.vocab_size);
  } catch (const EngineError& e) {
    throw EngineError(std::string("tokenizer.json: ") + e.what());
  }
  SafeTensors st(dir + "/model.safetensors");
  const DType dtype = dtype_from_config(c.torch_dtype);
  m->weight_dtype = dtype == DType::F16 ? "F16" : dtype == DType::BF16 ? "BF16" : "F32";
  m->backend = create_backend(opts.backend);
  WeightReader r(st, *m->backend, dtype);

  const VisionConfig& v = c.vision;
  const int Dv = v.hidden_size, hv = v.head_dim(), Iv = v.intermediate_size;
  int stem_in = v.in_channels;
  for (size_t i = 0; i < v.stem_channels.size(); ++i) {
    const std::string p = "vision.stem.convs." + std::to_string(i) + ".";
    StemConv conv;
    conv.in = stem_in;
    conv.out = v.stem_channels[i];
    const std::vector<float> w = r.read(p + "weight", {conv.out, conv.in, 3, 3});
    conv.w = m->backend->upload_weight(conv3x3_as_linear(w, conv.out, conv.in), conv.out, 9 * conv.in, WeightUse::Linear);
    conv.b = r.vec(p + "bias", conv.out);
    stem_in = conv.out;
    m->stem.push_back(std::move(conv));
  }
  m->patch_embed = r.mat("vision.patch_embed.weight", Dv, v.patch_embed_in());
  m->patch_embed_b = r.vec("vision.patch_embed.bias", Dv);
  for (int i = 0; i < v.num_layers; ++i) {
    const std::string p = "vision.layers." + std::to_string(i) + ".";
    VisionLayer L;
    L.norm1 = r.vec(p + "norm1.weight", Dv);
    auto qkv = r.split(p + "attn.qkv.weight", 3, Dv, Dv);
    L.q = m->backend->upload_weight(qkv[0], Dv, Dv, WeightUse::Linear);
    L.k = m->backend->upload_weight(qkv[1], Dv, Dv, WeightUse::Linear);
    L.v = m->backend->upload_weight(qkv[2], Dv, Dv, WeightUse::Linear);
    auto qkv_b = r.split(p + "attn.qkv.bias", 3, Dv, 0);
    L.q_b = r.upload_vec(qkv_b[0]);
    L.k_b = r.upload_vec(qkv_b[1]);
    L.v_b = r.upload_vec(qkv_b[2]);
    L.q_norm = r.vec(p + "attn.q_norm.weight", hv);
    L.k_norm = r.vec(p + "attn.k_norm.weight", hv);
    L.proj = r.mat(p + "attn.proj.weight", Dv, Dv);
    L.proj_b = r.vec(p + "attn.proj.bias", Dv);
    L.norm2 = r.vec(p + "norm2.weight", Dv);
    L.gate = r.mat(p + "mlp.gate_proj.weight", Iv, Dv);
    L.up = r.mat(p + "mlp.up_proj.weight", Iv, Dv);
    L.down = r.mat(p + "mlp.down_proj.weight", Dv, Iv);
    m->vision_layers.push_back(std::move(L));
  }
  m->vision_post_norm = r.vec("vision.post_norm.weight", Dv);

  const TextConfig& t = c.text;
  const int D = t.hidden_size, mm = v.merge_size * v.merge_size;
  m->merger_fc1 = r.mat("merger.fc1.weight", D, mm * Dv);
  m->merger_fc1_b = r.vec("merger.fc1.bias", D);
  m->merger_fc2 = r.mat("merger.fc2.weight", D, D);
  m->merger_fc2_b = r.vec("merger.fc2.bias", D);
  m->merger_norm = r.vec("merger.norm.weight", D);

  const int qd = t.num_attention_heads * t.head_dim, kvd = t.num_key_value_heads * t.head_dim;
  m->embed_tokens = r.mat("model.embed_tokens.weight", t.vocab_size, D, WeightUse::Lookup);
  auto decoder_layer = [&](const std::string& p) {
    DecoderLayer L;
    L.input_norm = r.vec(p + "input_layernorm.weight", D);
    L.q = r.mat(p + "self_attn.q_proj.weight", qd, D);
    L.k = r.mat(p + "self_attn.k_proj.weight", kvd, D);
    L.v = r.mat(p + "self_attn.v_proj.weight", kvd, D);
    L.o = r.mat(p + "self_attn.o_proj.weight", D, qd);
    L.post_norm = r.vec(p + "post_attention_layernorm.weight", D);
    L.gate = r.mat(p + "mlp.gate_proj.weight", t.intermediate_size, D);
    L.up = r.mat(p + "mlp.up_proj.weight", t.intermediate_size, D);
    L.down = r.mat(p + "mlp.down_proj.weight", D, t.intermediate_size);
    return L;
  };
  for (int i = 0; i < t.num_layers; ++i) m->layers.push_back(decoder_layer("model.layers." + std::to_string(i) + "."));
  m->final_norm = r.vec("model.norm.weight", D);
  m->lm_head = r.mat("lm_head.weight", t.vocab_size, D);
  if (t.num_mtp_layers == 1) {
    auto h = std::make_unique<MtpHead>();
    h->hnorm = r.vec("mtp.hnorm.weight", D);
    h->enorm = r.vec("mtp.enorm.weight", D);
    const std::vector<float> eh = r.read("mtp.eh_proj.weight", {D, 2 * D});
    std::vector<float> wh(size_t(D) * D), we(size_t(D) * D);
    for (size_t row = 0; row < size_t(D); ++row) {
      std::copy_n(eh.begin() + long(row * 2 * D), D, wh.begin() + long(row * D));
      std::copy_n(eh.begin() + long(row * 2 * D + D), D, we.begin() + long(row * D));
    }
    h->eh_proj_h = m->backend->upload_weight(wh, D, D, WeightUse::Linear);
    h->eh_proj_e = m->backend->upload_weight(we, D, D, WeightUse::Linear);
    h->layer = decoder_layer("mtp.layer.");
    h->norm = r.vec("mtp.norm.weight", D);
    m->mtp = std::move(h);
  }
  r.check_all_used();
  m->parameter_count = r.count();
  return m;
}

}  // namespace saccade
