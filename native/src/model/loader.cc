#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "model/conv_stem.h"
#include "model/glm_ocr/config.h"
#include "model/glm_ocr/loader.h"
#include "model/line_encoder.h"
#include "model/safetensors.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/utf8.h"

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
  bool has(const std::string& name) const { return st_.find(name) != nullptr; }
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

// torch's [out, in, 1, k] convolution along the line as a linear weight over Backend::line_windows' (kx, c) rows,
// from input channel `first` for `in` channels.
std::vector<float> line_conv_as_linear(const std::vector<float>& w, int out, int in_total, int k, int first, int in) {
  std::vector<float> r(size_t(out) * k * in);
  for (int o = 0; o < out; ++o)
    for (int kx = 0; kx < k; ++kx)
      for (int c = 0; c < in; ++c)
        r[(size_t(o) * k + kx) * in + c] = w[(size_t(o) * in_total + first + c) * k + kx];
  return r;
}

float scalar(WeightReader& r, const std::string& name) { return r.read(name, {1})[0]; }

void load_rep_conv(WeightReader& r, Backend& be, const std::string& p, int in, int out, int k, bool depthwise,
                   LineRepConv* c) {
  if (depthwise) {
    c->depthwise = r.upload_vec(r.read(p + "conv.weight", {out, 1, k, k}));
  } else {
    c->pointwise = be.upload_weight(r.read(p + "conv.weight", {out, in, 1, 1}), out, in, WeightUse::Reduced);
  }
  c->bias = r.vec(p + "conv.bias", out);
  c->scale1 = scalar(r, p + "lab.scale");
  c->bias1 = scalar(r, p + "lab.bias");
  c->scale2 = scalar(r, p + "act_lab.scale");
  c->bias2 = scalar(r, p + "act_lab.bias");
}

Weight pointwise(WeightReader& r, Backend& be, const std::string& name, int out, int in,
                 WeightUse use = WeightUse::Linear) {
  return be.upload_weight(r.read(name, {out, in, 1, 1}), out, in, use);
}

// Formats 2 and 3: the ViT encoder and the patch merger.
void load_vit_vision(WeightReader& r, Model& m) {
  const ModelConfig& c = m.cfg;
  const VisionConfig& v = c.vision;
  const int Dv = v.hidden_size, hv = v.head_dim(), Iv = v.intermediate_size;
  int stem_in = v.in_channels;
  for (size_t i = 0; i < v.stem_channels.size(); ++i) {
    const std::string p = "vision.stem.convs." + std::to_string(i) + ".";
    StemConv conv;
    conv.in = stem_in;
    conv.out = v.stem_channels[i];
    const std::vector<float> w = r.read(p + "weight", {conv.out, conv.in, 3, 3});
    conv.w = m.backend->upload_weight(conv3x3_as_linear(w, conv.out, conv.in), conv.out, 9 * conv.in, WeightUse::Linear);
    conv.b = r.vec(p + "bias", conv.out);
    stem_in = conv.out;
    m.stem.push_back(std::move(conv));
  }
  m.patch_embed = r.mat("vision.patch_embed.weight", Dv, v.patch_embed_in());
  m.patch_embed_b = r.vec("vision.patch_embed.bias", Dv);
  for (int i = 0; i < v.num_layers; ++i) {
    const std::string p = "vision.layers." + std::to_string(i) + ".";
    VisionLayer L;
    L.norm1 = r.vec(p + "norm1.weight", Dv);
    auto qkv = r.split(p + "attn.qkv.weight", 3, Dv, Dv);
    L.q = m.backend->upload_weight(qkv[0], Dv, Dv, WeightUse::Linear);
    L.k = m.backend->upload_weight(qkv[1], Dv, Dv, WeightUse::Linear);
    L.v = m.backend->upload_weight(qkv[2], Dv, Dv, WeightUse::Linear);
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
    m.vision_layers.push_back(std::move(L));
  }
  m.vision_post_norm = r.vec("vision.post_norm.weight", Dv);

  const int D = c.text.hidden_size, mm = v.merge_size * v.merge_size;
  m.merger_fc1 = r.mat("merger.fc1.weight", D, mm * Dv);
  m.merger_fc1_b = r.vec("merger.fc1.bias", D);
  m.merger_fc2 = r.mat("merger.fc2.weight", D, D);
  m.merger_fc2_b = r.vec("merger.fc2.bias", D);
  m.merger_norm = r.vec("merger.norm.weight", D);

}

// PP-OCRv4's stem, blocks and the neck's convolutions around the mixer.
void load_v4_backbone(WeightReader& r, Backend& be, const LineEncoderConfig& e, LineVision* lv) {
  const int S = e.stem_channels;
  const std::vector<float> stem = r.read("encoder.stem.weight", {S, 3, 3, 3});
  std::vector<float> grey(size_t(S) * 9, 0.0f);  // the line is grey: B = G = R
  for (int o = 0; o < S; ++o)
    for (int ch = 0; ch < 3; ++ch)
      for (int tap = 0; tap < 9; ++tap) grey[size_t(o) * 9 + tap] += stem[(size_t(o) * 3 + ch) * 9 + tap];
  lv->stem = be.upload_weight(conv3x3_as_linear(grey, S, 1), S, 9, WeightUse::Linear);
  lv->stem_b = r.vec("encoder.stem.bias", S);
  for (size_t i = 0; i < e.blocks.size(); ++i) {
    const LineBlockConfig& bc = e.blocks[i];
    const std::string p = "encoder.blocks." + std::to_string(i) + ".";
    LineBlock b;
    load_rep_conv(r, be, p + "dw.", bc.in, bc.in, bc.kernel, true, &b.dw);
    load_rep_conv(r, be, p + "pw.", bc.in, bc.out, 1, false, &b.pw);
    b.se = bc.se;
    if (b.se) {
      const int q = bc.in / 4;
      b.se_reduce = pointwise(r, be, p + "se.reduce.weight", q, bc.in);
      b.se_reduce_b = r.vec(p + "se.reduce.bias", q);
      b.se_expand = pointwise(r, be, p + "se.expand.weight", bc.in, q);
      b.se_expand_b = r.vec(p + "se.expand.bias", bc.in);
    }
    lv->blocks.push_back(std::move(b));
  }
  const int C = e.channels(), R = e.neck_reduce, N = e.neck_dim;
  const std::vector<float> neck_in = r.read("encoder.neck_in.conv.weight", {R, C, 1, 3});
  lv->neck_in = be.upload_weight(line_conv_as_linear(neck_in, R, C, 3, 0, C), R, 3 * C, WeightUse::Linear);
  lv->neck_in_b = r.vec("encoder.neck_in.conv.bias", R);
  lv->neck_up = pointwise(r, be, "encoder.neck_up.conv.weight", N, R);
  lv->neck_up_b = r.vec("encoder.neck_up.conv.bias", N);
  lv->neck_back = pointwise(r, be, "encoder.neck_back.conv.weight", C, N);
  lv->neck_back_b = r.vec("encoder.neck_back.conv.bias", C);
  const std::vector<float> fuse = r.read("encoder.neck_fuse.conv.weight", {R, 2 * C, 1, 3});
  lv->neck_fuse_z = be.upload_weight(line_conv_as_linear(fuse, R, 2 * C, 3, 0, C), R, 3 * C, WeightUse::Linear);
  lv->neck_fuse_h = be.upload_weight(line_conv_as_linear(fuse, R, 2 * C, 3, C, C), R, 3 * C, WeightUse::Linear);
  lv->neck_fuse_b = r.vec("encoder.neck_fuse.conv.bias", R);
  lv->neck_out = pointwise(r, be, "encoder.neck_out.conv.weight", N, R);
  lv->neck_out_b = r.vec("encoder.neck_out.conv.bias", N);
}

// A torch [out, in, 2, 2] convolution as a 3x3 one over Backend::im2col's windows (zero padding 1) whose top row and
// left column are zero: the 2x2 window at each position then covers it and the row and column after, which is
// ONNX's SAME_UPPER padding of a 2x2 convolution at stride 1.
std::vector<float> conv2x2_same_as_3x3(const std::vector<float>& w, int out, int in) {
  std::vector<float> k3(size_t(out) * in * 9, 0.0f);
  for (int o = 0; o < out; ++o)
    for (int c = 0; c < in; ++c)
      for (int ky = 0; ky < 2; ++ky)
        for (int kx = 0; kx < 2; ++kx)
          k3[((size_t(o) * in + c) * 3 + ky + 1) * 3 + kx + 1] = w[((size_t(o) * in + c) * 2 + ky) * 2 + kx];
  return conv3x3_as_linear(k3, out, in);
}

// PP-OCRv6's stem, blocks and the neck's convolutions around the mixer (model/line_encoder.h).
void load_v6_backbone(WeightReader& r, Backend& be, const LineEncoderConfig& e, LineVision* lv) {
  const int mid = e.stem_mid, out = e.stem_out, N = e.neck_dim, C = e.channels(), k = e.neck_kernel;
  LineStemV6& st = lv->v6_stem;
  const std::vector<float> conv1 = r.read("encoder.stem.conv1.weight", {mid, 3, 3, 3});
  std::vector<float> grey(size_t(mid) * 9, 0.0f);  // the line is grey: B = G = R
  for (int o = 0; o < mid; ++o)
    for (int ch = 0; ch < 3; ++ch)
      for (int tap = 0; tap < 9; ++tap) grey[size_t(o) * 9 + tap] += conv1[(size_t(o) * 3 + ch) * 9 + tap];
  st.conv1 = be.upload_weight(conv3x3_as_linear(grey, mid, 1), mid, 9, WeightUse::Linear);
  st.conv1_b = r.vec("encoder.stem.conv1.bias", mid);
  st.conv2a = be.upload_weight(conv2x2_same_as_3x3(r.read("encoder.stem.conv2a.weight", {mid / 2, mid, 2, 2}), mid / 2, mid),
                               mid / 2, 9 * mid, WeightUse::Linear);
  st.conv2a_b = r.vec("encoder.stem.conv2a.bias", mid / 2);
  st.conv2b = be.upload_weight(conv2x2_same_as_3x3(r.read("encoder.stem.conv2b.weight", {mid, mid / 2, 2, 2}), mid, mid / 2),
                               mid, 9 * (mid / 2), WeightUse::Linear);
  st.conv2b_b = r.vec("encoder.stem.conv2b.bias", mid);
  st.conv3 = be.upload_weight(conv3x3_as_linear(r.read("encoder.stem.conv3.weight", {mid, 2 * mid, 3, 3}), mid, 2 * mid),
                              mid, 9 * 2 * mid, WeightUse::Linear);
  st.conv3_b = r.vec("encoder.stem.conv3.bias", mid);
  st.conv4 = pointwise(r, be, "encoder.stem.conv4.weight", out, mid);
  st.conv4_b = r.vec("encoder.stem.conv4.bias", out);
  for (size_t i = 0; i < e.blocks.size(); ++i) {
    const LineBlockConfig& bc = e.blocks[i];
    const std::string p = "encoder.blocks." + std::to_string(i) + ".";
    LineBlockV6 b;
    b.dw = r.upload_vec(r.read(p + "dw.weight", {bc.in, 1, bc.kernel, bc.kernel}));
    b.dw_b = r.vec(p + "dw.bias", bc.in);
    if (bc.se) {
      b.se_reduce = pointwise(r, be, p + "se.reduce.weight", bc.se_mid, bc.in);
      b.se_reduce_b = r.vec(p + "se.reduce.bias", bc.se_mid);
      b.se_expand = pointwise(r, be, p + "se.expand.weight", bc.in, bc.se_mid);
      b.se_expand_b = r.vec(p + "se.expand.bias", bc.in);
    }
    // The channel MLPs hold nearly all of the encoder's products: reduced products where the CPU measures them
    // faster, as PP-OCRv4's pointwise convolutions (docs/decisions/0032, 0049).
    b.fc1 = pointwise(r, be, p + "fc1.weight", bc.hidden, bc.in, WeightUse::Reduced);
    b.fc1_b = r.vec(p + "fc1.bias", bc.hidden);
    b.fc2 = pointwise(r, be, p + "fc2.weight", bc.out, bc.hidden, WeightUse::Reduced);
    b.fc2_b = r.vec(p + "fc2.bias", bc.out);
    lv->v6_blocks.push_back(std::move(b));
  }
  lv->neck_shortcut = pointwise(r, be, "encoder.neck_shortcut.weight", N, C);
  lv->neck_shortcut_b = r.vec("encoder.neck_shortcut.bias", N);
  lv->neck_in = pointwise(r, be, "encoder.neck_in.weight", N, C);
  lv->neck_in_b = r.vec("encoder.neck_in.bias", N);
  const std::vector<float> along = r.read("encoder.neck_dw.weight", {N, 1, 1, k});
  std::vector<float> square(size_t(N) * k * k, 0.0f);  // the 1 x k kernel as the middle row of a k x k one
  for (int c = 0; c < N; ++c)
    for (int kx = 0; kx < k; ++kx) square[(size_t(c) * k + k / 2) * k + kx] = along[size_t(c) * k + kx];
  lv->neck_dw = r.upload_vec(square);
  lv->neck_dw_b = r.vec("encoder.neck_dw.bias", N);
}

// encoder_charset [num_classes]: each CTC class's Unicode scalar value (stored as a float, which holds every
// one exactly), the blank's 0 and first.
std::vector<std::string> class_texts(const std::vector<float>& codes) {
  std::vector<std::string> texts(codes.size());
  for (size_t c = 0; c < codes.size(); ++c) {
    const float v = codes[c];
    const bool scalar = v == std::floor(v) && v >= 1 && v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF);
    if (c == 0 ? v != 0 : !scalar)
      throw EngineError("model.safetensors: encoder_charset must hold 0 for the blank, then Unicode scalar values");
    if (c > 0) append_utf8(char32_t(v), texts[c]);
  }
  return texts;
}

// Format 4's encoder and projector (docs/model-format.md "Format 4"); `embed` is model.embed_tokens in rows.
std::unique_ptr<LineVision> load_line_vision(WeightReader& r, Backend& be, const ModelConfig& c,
                                             const std::vector<float>& embed) {
  auto lv = std::make_unique<LineVision>();
  const LineEncoderConfig& e = c.vision.encoder;
  const int N = e.neck_dim, I = N * e.neck_mlp_ratio;
  if (e.kind == LineEncoderKind::PPOCRv6) load_v6_backbone(r, be, e, lv.get());
  else load_v4_backbone(r, be, e, lv.get());
  for (int d = 0; d < e.neck_depth; ++d) {
    const std::string p = "encoder.mixer." + std::to_string(d) + ".";
    LineMixerLayer L;
    L.norm1_w = r.vec(p + "norm1.weight", N);
    L.norm1_b = r.vec(p + "norm1.bias", N);
    auto qkv = r.split(p + "attn.qkv.weight", 3, N, N);
    L.q = be.upload_weight(qkv[0], N, N, WeightUse::Linear);
    L.k = be.upload_weight(qkv[1], N, N, WeightUse::Linear);
    L.v = be.upload_weight(qkv[2], N, N, WeightUse::Linear);
    auto qkv_b = r.split(p + "attn.qkv.bias", 3, N, 0);
    L.q_b = r.upload_vec(qkv_b[0]);
    L.k_b = r.upload_vec(qkv_b[1]);
    L.v_b = r.upload_vec(qkv_b[2]);
    L.proj = r.mat(p + "attn.proj.weight", N, N);
    L.proj_b = r.vec(p + "attn.proj.bias", N);
    L.norm2_w = r.vec(p + "norm2.weight", N);
    L.norm2_b = r.vec(p + "norm2.bias", N);
    L.fc1 = r.mat(p + "fc1.weight", I, N);
    L.fc1_b = r.vec(p + "fc1.bias", I);
    L.fc2 = r.mat(p + "fc2.weight", N, I);
    L.fc2_b = r.vec(p + "fc2.bias", N);
    lv->mixer.push_back(std::move(L));
  }
  lv->neck_norm_w = r.vec("encoder.neck_norm.weight", N);
  lv->neck_norm_b = r.vec("encoder.neck_norm.bias", N);
  // fp32: in bytes, its greedy reading of a golden line moved where two classes nearly tie (docs/decisions/0049).
  lv->ctc = r.mat("encoder.ctc.weight", e.num_classes, N);
  lv->ctc_b = r.vec("encoder.ctc.bias", e.num_classes);

  const int D = c.text.hidden_size, V = c.text.vocab_size;
  int F = 0;
  for (const std::string& f : e.features) F += e.feature_dim(f);
  const std::vector<float> fc1 = r.read("projector.fc1.weight", {D, F});
  int col = 0;
  for (const std::string& f : e.features) {
    const int n = e.feature_dim(f);
    std::vector<float> block(size_t(D) * n);
    for (int o = 0; o < D; ++o)
      std::copy_n(fc1.begin() + long(size_t(o) * F + col), n, block.begin() + long(size_t(o) * n));
    lv->proj_fc1.push_back(be.upload_weight(block, D, n, WeightUse::Linear));
    col += n;
  }
  lv->proj_fc1_b = r.vec("projector.fc1.bias", D);
  lv->proj_fc2 = r.mat("projector.fc2.weight", D, D);
  lv->proj_fc2_b = r.vec("projector.fc2.bias", D);
  lv->proj_norm = r.vec("projector.norm.weight", D);
  const std::vector<float> extra = r.read("projector.ctc_extra", {2, D});
  std::vector<float> table(size_t(D) * (V + 2));  // [D, V + 2]: column j is class j's embedding
  for (int j = 0; j < V + 2; ++j)
    for (int o = 0; o < D; ++o)
      table[size_t(o) * (V + 2) + j] = j < V ? embed[size_t(j) * D + o] : extra[size_t(j - V) * D + o];
  lv->ctc_table = be.upload_weight(table, D, V + 2, WeightUse::Linear);
  for (float v : r.read("ctc_map", {e.num_classes})) {
    if (!(v >= 0 && v < float(V + 2) && v == std::floor(v)))
      throw EngineError("model.safetensors: ctc_map holds a class outside [0, vocab_size + 2)");
    lv->ctc_map.push_back(int(v));
  }
  if (r.has("encoder_charset")) lv->class_text = class_texts(r.read("encoder_charset", {e.num_classes}));
  lv->ctc_class_start.assign(size_t(V + 3), 0);
  for (int c : lv->ctc_map) ++lv->ctc_class_start[size_t(c) + 1];
  for (int c = 0; c < V + 2; ++c) lv->ctc_class_start[size_t(c) + 1] += lv->ctc_class_start[size_t(c)];
  lv->ctc_by_class.resize(lv->ctc_map.size());
  std::vector<int> next(lv->ctc_class_start.begin(), lv->ctc_class_start.end() - 1);
  for (int j = 0; j < int(lv->ctc_map.size()); ++j)
    lv->ctc_by_class[size_t(next[size_t(lv->ctc_map[size_t(j)])]++)] = j;
  return lv;
}

}  // namespace

std::unique_ptr<Model> load_model(const std::string& dir, const LoadOptions& opts) {
  auto m = std::make_unique<Model>();
  m->dir = dir;
  std::string config;
  bool glm = false;
  try {
    config = read_text_file(dir + "/config.json", kMaxConfigBytes);
    glm = glm_ocr::is_glm_ocr(config);
    if (!glm) m->cfg = parse_config(config);
  } catch (const EngineError& e) {
    throw EngineError(std::string("config.json: ") + e.what());
  }
  if (glm) return glm_ocr::load(dir, config, opts);
  const ModelConfig& c = m->cfg;
  try {
    m->tokenizer = Tokenizer::parse(read_text_file(dir + "/tokenizer.json", kMaxTokenizerBytes), c.text.vocab_size);
  } catch (const EngineError& e) {
    throw EngineError(std::string("tokenizer.json: ") + e.what());
  }
  SafeTensors st(dir + "/model.safetensors");
  const DType dtype = dtype_from_config(c.torch_dtype);
  m->weight_dtype = dtype == DType::F16 ? "F16" : dtype == DType::BF16 ? "BF16" : "F32";
  m->backend = create_backend(opts.backend);
  WeightReader r(st, *m->backend, dtype);

  const TextConfig& t = c.text;
  const int D = t.hidden_size;
  if (!c.vision.line) load_vit_vision(r, *m);

  const int qd = t.num_attention_heads * t.head_dim, kvd = t.num_key_value_heads * t.head_dim;
  const std::vector<float> embed = r.read("model.embed_tokens.weight", {t.vocab_size, D});
  m->embed_tokens = m->backend->upload_weight(embed, t.vocab_size, D, WeightUse::Lookup);
  if (c.vision.line) {
    m->line = load_line_vision(r, *m->backend, c, embed);
    index_shown_tokens(*m);
  }
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
