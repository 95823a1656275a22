#include "model/config.h"

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

float get_float(const Json& obj, const std::string& key, const std::string& path, double lo, double hi) {
  const std::string name = path.empty() ? key : path + "." + key;
  double v = obj.at(key, path).number(name);
  if (!(v >= lo && v <= hi)) throw EngineError(name + " is out of range");
  return float(v);
}

}  // namespace

ModelConfig parse_config(const std::string& text) {
  Json root = Json::parse(text);
  if (!root.is_object()) throw EngineError("expected an object");
  ModelConfig c;
  c.model_type = root.at("model_type", "").str("model_type");
  if (c.model_type != "saccade_ocr") throw EngineError("model_type must be saccade_ocr, got " + c.model_type);
  int version = get_int(root, "format_version", "", 0, 1000);
  if (version != 2 && version != 3)
    throw EngineError("unsupported format_version " + std::to_string(version) + " (this engine reads 2 and 3)");
  c.torch_dtype = root.at("torch_dtype", "").str("torch_dtype");

  const Json& v = root.at("vision_config", "");
  const std::string vp = "vision_config";
  c.vision.patch_size = get_int(v, "patch_size", vp, 1, 64);
  c.vision.in_channels = get_int(v, "in_channels", vp, 1, 4);
  c.vision.hidden_size = get_int(v, "hidden_size", vp, 1, 8192);
  c.vision.num_layers = get_int(v, "num_layers", vp, 0, 256);
  c.vision.num_heads = get_int(v, "num_heads", vp, 1, 256);
  c.vision.intermediate_size = get_int(v, "intermediate_size", vp, 1, 65536);
  c.vision.merge_size = get_int(v, "merge_size", vp, 1, 8);
  c.vision.rms_norm_eps = get_float(v, "rms_norm_eps", vp, 0, 1);
  c.vision.rope_theta = get_float(v, "rope_theta", vp, 1, 1e9);
  if (c.vision.hidden_size % c.vision.num_heads != 0 || c.vision.head_dim() % 4 != 0)
    throw EngineError("vision_config: hidden_size / num_heads must be a multiple of 4");
  if (const Json* stem = v.find("stem_channels")) {
    if (version < 3) throw EngineError("vision_config.stem_channels needs format_version 3");
    for (const Json& ch : stem->items("vision_config.stem_channels")) {
      const int64_t n = ch.integer("vision_config.stem_channels");
      if (n < 1 || n > 4096) throw EngineError("vision_config.stem_channels out of range");
      c.vision.stem_channels.push_back(int(n));
    }
    const size_t convs = c.vision.stem_channels.size();
    if (convs == 0 || convs > 6 || (1 << convs) != c.vision.patch_size)
      throw EngineError("vision_config.stem_channels: 2^(number of convolutions) must equal patch_size");
  }

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
  c.image.max_image_tokens = get_int(im, "max_image_tokens", "image", 1, 1 << 16);
  c.image.min_height = get_int(im, "min_height", "image", 1, 1 << 14);
  c.image.unit = get_int(im, "unit", "image", 1, 1024);
  c.image.mean = get_float(im, "mean", "image", -10, 10);
  c.image.std = get_float(im, "std", "image", 1e-6, 10);
  if (c.image.unit != c.vision.patch_size * c.vision.merge_size)
    throw EngineError("image.unit must equal vision patch_size * merge_size");

  const int V = c.text.vocab_size;
  c.bos_token_id = get_int(root, "bos_token_id", "", 0, V - 1);
  c.eos_token_id = get_int(root, "eos_token_id", "", 0, V - 1);
  c.pad_token_id = get_int(root, "pad_token_id", "", 0, V - 1);
  c.mask_token_id = get_int(root, "mask_token_id", "", 0, V - 1);
  c.image_token_id = get_int(root, "image_token_id", "", 0, V - 1);
  const Json& pr = root.at("prompt_token_ids", "");
  c.prompt_text = get_int(pr, "text", "prompt_token_ids", 0, V - 1);
  c.prompt_table = get_int(pr, "table", "prompt_token_ids", 0, V - 1);
  c.prompt_formula = get_int(pr, "formula", "prompt_token_ids", 0, V - 1);
  c.diffusion_block_size = get_int(root, "diffusion_block_size", "", 1, 1024);
  return c;
}

}  // namespace saccade
