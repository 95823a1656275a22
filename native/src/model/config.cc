#include "model/config.h"

#include <algorithm>

namespace saccade {

namespace {

int get_int(const Json& obj, const std::string& key, const std::string& path, int lo, int hi) {
  const std::string name = path.empty() ? key : path + "." + key;
  int64_t v = obj.at(key, path).integer(name);
  if (v < lo || v > hi)
    throw EngineError(name + " = " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return int(v);
}

double get_double(const Json& obj, const std::string& key, const std::string& path, double lo, double hi) {
  const std::string name = path.empty() ? key : path + "." + key;
  double v = obj.at(key, path).number(name);
  if (!(v >= lo && v <= hi)) throw EngineError(name + " is out of range");
  return v;
}

float get_float(const Json& obj, const std::string& key, const std::string& path, double lo, double hi) {
  return float(get_double(obj, key, path, lo, hi));
}

void parse_vit_vision(const Json& v, int version, VisionConfig* out) {
  const std::string vp = "vision_config";
  out->patch_size = get_int(v, "patch_size", vp, 1, 64);
  out->in_channels = get_int(v, "in_channels", vp, 1, 4);
  out->hidden_size = get_int(v, "hidden_size", vp, 1, 8192);
  out->num_layers = get_int(v, "num_layers", vp, 0, 256);
  out->num_heads = get_int(v, "num_heads", vp, 1, 256);
  out->intermediate_size = get_int(v, "intermediate_size", vp, 1, 65536);
  out->merge_size = get_int(v, "merge_size", vp, 1, 8);
  out->rms_norm_eps = get_float(v, "rms_norm_eps", vp, 0, 1);
  out->rope_theta = get_float(v, "rope_theta", vp, 1, 1e9);
  if (out->hidden_size % out->num_heads != 0 || out->head_dim() % 4 != 0)
    throw EngineError("vision_config: hidden_size / num_heads must be a multiple of 4");
  if (const Json* stem = v.find("stem_channels")) {
    if (version < 3) throw EngineError("vision_config.stem_channels needs format_version 3");
    for (const Json& ch : stem->items("vision_config.stem_channels")) {
      const int64_t n = ch.integer("vision_config.stem_channels");
      if (n < 1 || n > 4096) throw EngineError("vision_config.stem_channels out of range");
      out->stem_channels.push_back(int(n));
    }
    const size_t convs = out->stem_channels.size();
    if (convs == 0 || convs > 6 || (1 << convs) != out->patch_size)
      throw EngineError("vision_config.stem_channels: 2^(number of convolutions) must equal patch_size");
  }
}

// What every line encoder's block states: its channels in and out, its depthwise kernel and its strides.
LineBlockConfig parse_block_shape(const Json& b, const std::string& bp) {
  LineBlockConfig block{};
  block.in = get_int(b, "in", bp, 1, 4096);
  block.out = get_int(b, "out", bp, 1, 4096);
  block.kernel = get_int(b, "kernel", bp, 1, 7);
  const auto& stride = b.at("stride", bp).items(bp + ".stride");
  if (stride.size() != 2) throw EngineError(bp + ".stride: expected 2 entries");
  block.stride_h = int(stride[0].integer(bp + ".stride"));
  block.stride_w = int(stride[1].integer(bp + ".stride"));
  return block;
}

// PP-OCRv4's blocks: a depthwise and a pointwise convolution, squeeze-excite where `se`.
int parse_v4_blocks(const Json& enc, const std::string& ep, LineEncoderConfig* e) {
  e->stem_channels = get_int(enc, "stem_channels", ep, 1, 1024);
  int channels = e->stem_channels, height = 24;  // the stem halves the 48-pixel line
  for (const Json& b : enc.at("blocks", ep).items(ep + ".blocks")) {
    const std::string bp = ep + ".blocks";
    LineBlockConfig block = parse_block_shape(b, bp);
    block.se = b.at("se", bp).boolean(bp + ".se");
    if (block.kernel % 2 == 0 || block.in != channels || block.stride_h < 1 || block.stride_h > 2 ||
        block.stride_w < 1 || block.stride_w > 2)
      throw EngineError(bp + ": each block takes the previous one's channels, an odd kernel and strides of 1 or 2");
    channels = block.out;
    height = (height + block.stride_h - 1) / block.stride_h;
    e->blocks.push_back(block);
  }
  return height;
}

// PP-OCRv6's: a stem of its own (two stride-2 convolutions), then MetaFormer blocks (a depthwise token mixer,
// squeeze-excite of `se` middle channels where nonzero, a channel MLP added back where `residual`).
int parse_v6_blocks(const Json& enc, const std::string& ep, LineEncoderConfig* e) {
  const Json& stem = enc.at("stem", ep);
  e->stem_mid = get_int(stem, "mid", ep + ".stem", 2, 1024);
  e->stem_out = get_int(stem, "out", ep + ".stem", 1, 1024);
  if (e->stem_mid % 2 != 0) throw EngineError(ep + ".stem.mid must be even");
  int channels = e->stem_out, height = 12;  // the stem quarters the 48-pixel line
  for (const Json& b : enc.at("blocks", ep).items(ep + ".blocks")) {
    const std::string bp = ep + ".blocks";
    LineBlockConfig block = parse_block_shape(b, bp);
    block.hidden = get_int(b, "hidden", bp, 1, 16384);
    block.se_mid = get_int(b, "se", bp, 0, 4096);
    block.se = block.se_mid > 0;
    block.residual = b.at("residual", bp).boolean(bp + ".residual");
    if (block.kernel % 2 == 0 || block.in != channels || block.stride_h < 1 || block.stride_h > 2 ||
        block.stride_w != 1 || (block.residual && block.out != block.in))
      throw EngineError(bp + ": each block takes the previous one's channels, an odd kernel, strides (1 or 2, 1), "
                        "and keeps its channels where it adds back");
    channels = block.out;
    height = (height + block.stride_h - 1) / block.stride_h;
    e->blocks.push_back(block);
  }
  return height;
}

void parse_line_vision(const Json& v, VisionConfig* out) {
  const std::string vp = "vision_config";
  if (v.at("type", vp).str("vision_config.type") != "pp_ocr_line")
    throw EngineError("vision_config.type must be pp_ocr_line in format_version 4");
  out->line = true;
  LineEncoderConfig& e = out->encoder;
  const Json& enc = v.at("encoder", vp);
  const std::string ep = "vision_config.encoder";
  if (const Json* kind = enc.find("kind")) {
    const std::string& k = kind->str(ep + ".kind");
    if (k != "pp_ocrv4" && k != "pp_ocrv6") throw EngineError(ep + ".kind must be pp_ocrv4 or pp_ocrv6");
    e.kind = k == "pp_ocrv6" ? LineEncoderKind::PPOCRv6 : LineEncoderKind::PPOCRv4;
  }
  const bool v6 = e.kind == LineEncoderKind::PPOCRv6;
  const int height = v6 ? parse_v6_blocks(enc, ep, &e) : parse_v4_blocks(enc, ep, &e);
  if (e.blocks.empty()) throw EngineError(ep + ".blocks: expected at least one block");
  const auto& pool = enc.at("pool", ep).items(ep + ".pool");
  if (pool.size() != 2) throw EngineError(ep + ".pool: expected 2 entries");
  e.pool_h = int(pool[0].integer(ep + ".pool"));
  e.pool_w = int(pool[1].integer(ep + ".pool"));
  int stride_w = v6 ? 4 : 2;
  for (const LineBlockConfig& b : e.blocks) stride_w *= b.stride_w;
  // One image token per `column` pixels: the pool must leave a single row, each token pool_w backbone columns.
  if (e.pool_h != height || stride_w * e.pool_w != 8)
    throw EngineError(ep + ": the backbone and pool must turn a 48-pixel line into one row, a token per 8 pixels");
  const Json& neck = enc.at("neck", ep);
  const std::string np = ep + ".neck";
  if (v6) e.neck_kernel = get_int(neck, "kernel", np, 1, 15);
  else e.neck_reduce = get_int(neck, "reduce", np, 1, 4096);
  if (v6 && e.neck_kernel % 2 == 0) throw EngineError(np + ".kernel must be odd");
  e.neck_dim = get_int(neck, "dim", np, 1, 4096);
  e.neck_depth = get_int(neck, "depth", np, 0, 64);
  e.neck_heads = get_int(neck, "heads", np, 1, 64);
  e.neck_mlp_ratio = get_int(neck, "mlp_ratio", np, 1, 16);
  if (e.neck_dim % e.neck_heads != 0) throw EngineError(np + ": dim must be a multiple of heads");
  e.num_classes = get_int(enc, "num_classes", ep, 2, 1 << 20);
  for (const Json& f : v.at("features", vp).items("vision_config.features")) {
    const std::string& name = f.str("vision_config.features");
    if ((name != "neck" && name != "backbone") ||
        std::find(e.features.begin(), e.features.end(), name) != e.features.end())
      throw EngineError("vision_config.features: each of neck and backbone at most once");
    e.features.push_back(name);
  }
  if (e.features.empty()) throw EngineError("vision_config.features: expected neck and/or backbone");
  if (const Json* positions = v.find("positions")) {
    const std::string& p = positions->str("vision_config.positions");
    if (p != "reading" && p != "grid") throw EngineError("vision_config.positions must be reading or grid");
    e.reading_positions = p == "reading";
  }
}

}  // namespace

ModelConfig parse_config(const std::string& text) {
  Json root = Json::parse(text);
  if (!root.is_object()) throw EngineError("expected an object");
  ModelConfig c;
  c.model_type = root.at("model_type", "").str("model_type");
  if (c.model_type != "saccade_ocr") throw EngineError("model_type must be saccade_ocr, got " + c.model_type);
  const int version = get_int(root, "format_version", "", 0, 1000);
  if (version < 2 || version > 4)
    throw EngineError("unsupported format_version " + std::to_string(version) + " (this engine reads 2 to 4)");
  c.torch_dtype = root.at("torch_dtype", "").str("torch_dtype");
  if (version == 4) parse_line_vision(root.at("vision_config", ""), &c.vision);
  else parse_vit_vision(root.at("vision_config", ""), version, &c.vision);

  const Json& t = root.at("text_config", "");
  const std::string tp = "text_config";
  c.text.hidden_size = get_int(t, "hidden_size", tp, 1, 16384);
  c.text.num_layers = get_int(t, "num_layers", tp, 1, 256);
  c.text.num_attention_heads = get_int(t, "num_attention_heads", tp, 1, 256);
  c.text.num_key_value_heads = get_int(t, "num_key_value_heads", tp, 1, 256);
  c.text.head_dim = get_int(t, "head_dim", tp, 2, 1024);
  c.text.intermediate_size = get_int(t, "intermediate_size", tp, 1, 131072);
  c.text.vocab_size = get_int(t, "vocab_size", tp, 8, 1 << 22);
  c.text.rms_norm_eps = get_float(t, "rms_norm_eps", tp, 0, 1);
  c.text.rope_theta = get_float(t, "rope_theta", tp, 1, 1e9);
  c.text.max_position_embeddings = get_int(t, "max_position_embeddings", tp, 16, 1 << 20);
  if (t.find("num_mtp_layers")) c.text.num_mtp_layers = get_int(t, "num_mtp_layers", tp, 0, 1);
  const auto& sec = t.at("mrope_section", tp).items("text_config.mrope_section");
  if (sec.size() != 3) throw EngineError("text_config.mrope_section: expected 3 entries");
  int sum = 0;
  for (int i = 0; i < 3; ++i) {
    int64_t s = sec[i].integer("text_config.mrope_section");
    if (s < 0 || s > 4096) throw EngineError("text_config.mrope_section out of range");
    c.text.mrope_section[i] = int(s);
    sum += int(s);
  }
  if (c.text.head_dim % 2 != 0 || sum != c.text.head_dim / 2)
    throw EngineError("text_config.mrope_section must sum to head_dim / 2");
  if (c.text.num_attention_heads % c.text.num_key_value_heads != 0)
    throw EngineError("text_config: num_attention_heads must be a multiple of num_key_value_heads");

  const Json& im = root.at("image", "");
  c.image.mean = get_float(im, "mean", "image", -10, 10);
  c.image.std = get_float(im, "std", "image", 1e-6, 10);
  if (c.vision.line) {
    c.image.height = get_int(im, "height", "image", 48, 48);
    c.image.column = get_int(im, "column", "image", 8, 8);
    c.image.max_width = get_int(im, "max_width", "image", 16, 1 << 14);
    if (c.image.max_width % c.image.column != 0) throw EngineError("image.max_width must be a multiple of image.column");
  } else {
    c.image.max_image_tokens = get_int(im, "max_image_tokens", "image", 1, 1 << 16);
    c.image.min_height = get_int(im, "min_height", "image", 1, 1 << 14);
    c.image.unit = get_int(im, "unit", "image", 1, 1024);
    if (c.image.unit != c.vision.patch_size * c.vision.merge_size)
      throw EngineError("image.unit must equal vision patch_size * merge_size");
  }

  const int V = c.text.vocab_size;
  c.bos_token_id = get_int(root, "bos_token_id", "", 0, V - 1);
  c.eos_token_id = get_int(root, "eos_token_id", "", 0, V - 1);
  c.eos_token_ids = {c.eos_token_id};
  c.pad_token_id = get_int(root, "pad_token_id", "", 0, V - 1);
  c.mask_token_id = get_int(root, "mask_token_id", "", 0, V - 1);
  c.image_token_id = get_int(root, "image_token_id", "", 0, V - 1);
  const Json& pr = root.at("prompt_token_ids", "");
  c.prompt_text = get_int(pr, "text", "prompt_token_ids", 0, V - 1);
  c.prompt_table = get_int(pr, "table", "prompt_token_ids", 0, V - 1);
  c.prompt_formula = get_int(pr, "formula", "prompt_token_ids", 0, V - 1);
  c.diffusion_block_size = get_int(root, "diffusion_block_size", "", 1, 1024);
  if (const Json* prior = root.find("reading_prior")) {
    if (!c.vision.line) throw EngineError("reading_prior: only a line model has a CTC reading to weigh");
    c.reading_prior_weight = get_double(*prior, "weight", "reading_prior", 0, 0.99);
    if (const Json* read_as = prior->find("read_as"))
      for (const auto& [from, to] : read_as->members("reading_prior.read_as"))
        c.reading_prior_read_as.emplace_back(from, to.str("reading_prior.read_as." + from));
  }
  return c;
}

}  // namespace saccade
