#include "model/glm_ocr/config.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "util/error.h"
#include "util/json.h"

namespace saccade::glm_ocr {

namespace {

// Fields that change nothing at inference (training settings, provenance); every other field is one the
// parser reads, or the file is refused.
const std::set<std::string> kInert = {"transformers_version", "_name_or_path", "use_cache", "initializer_range",
                                      "attention_dropout", "hidden_dropout_prob", "output_attentions",
                                      "output_hidden_states"};

class Fields {
 public:
  Fields(const Json& obj, std::string path) : obj_(obj), path_(std::move(path)) {
    if (!obj.is_object()) throw EngineError(where("") + "expected an object");
  }

  // Throws for a member that is neither read nor inert.
  void refuse_unknown(const std::set<std::string>& read) const {
    for (const auto& kv : obj_.members(path_))
      if (!read.count(kv.first) && !kInert.count(kv.first))
        throw EngineError(where(kv.first) + "is not a field this engine implements");
  }
  const Json* find(const std::string& key) const { return obj_.find(key); }
  const Json& at(const std::string& key) const {
    const Json* v = obj_.find(key);
    if (!v) throw EngineError(where("") + "missing key " + key);
    return *v;
  }
  int integer(const std::string& key, int lo, int hi) const {
    const int64_t v = at(key).integer(name(key));
    if (v < lo || v > hi)
      throw EngineError(where(key) + "= " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
    return int(v);
  }
  double number(const std::string& key, double lo, double hi) const {
    const double v = at(key).number(name(key));
    if (!(v >= lo && v <= hi)) throw EngineError(where(key) + "is out of range");
    return v;
  }
  const std::string& str(const std::string& key) const { return at(key).str(name(key)); }
  bool boolean(const std::string& key) const { return at(key).boolean(name(key)); }
  void expect(const std::string& key, const std::string& value) const {
    if (str(key) != value) throw EngineError(where(key) + "is " + str(key) + "; this engine implements " + value);
  }
  void expect_flag(const std::string& key, bool value) const {
    if (boolean(key) != value)
      throw EngineError(where(key) + "is " + (value ? "false" : "true") + "; this engine implements " +
                        (value ? "true" : "false"));
  }
  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  // The field's name and a space, to start a message ("" for the file's top level itself).
  std::string where(const std::string& key) const {
    if (!key.empty()) return name(key) + " ";
    return path_.empty() ? "" : path_ + " ";
  }

 private:
  const Json& obj_;
  std::string path_;
};

VisionConfig parse_vision(const Fields& f) {
  VisionConfig v;
  if (f.find("model_type")) f.expect("model_type", "glm_ocr_vision");
  v.depth = f.integer("depth", 0, 256);
  v.hidden_size = f.integer("hidden_size", 1, 16384);
  v.num_heads = f.integer("num_heads", 1, 256);
  v.intermediate_size = f.integer("intermediate_size", 1, 1 << 17);
  v.patch_size = f.integer("patch_size", 1, 64);
  v.temporal_patch_size = f.integer("temporal_patch_size", 1, 8);
  v.merge_size = f.integer("spatial_merge_size", 1, 8);
  v.in_channels = f.integer("in_channels", 3, 3);
  v.out_hidden_size = f.integer("out_hidden_size", 1, 16384);
  v.rms_norm_eps = float(f.number("rms_norm_eps", 0, 1));
  v.bias = f.boolean("attention_bias");
  f.expect("hidden_act", "silu");
  if (v.hidden_size % v.num_heads != 0 || v.head_dim() % 4 != 0)
    throw EngineError("vision_config: hidden_size / num_heads must be a multiple of 4");
  // The published checkpoint has no vision rope_parameters: transformers then builds its axial default.
  v.rope_theta = 10000;
  if (const Json* r = f.find("rope_parameters")) {
    Fields rp(*r, f.name("rope_parameters"));
    rp.expect("rope_type", "axial");
    v.rope_theta = float(rp.number("rope_theta", 1, 1e9));
    rp.refuse_unknown({"rope_type", "rope_theta"});
  }
  f.refuse_unknown({"model_type", "depth", "hidden_size", "num_heads", "intermediate_size", "patch_size",
                    "temporal_patch_size", "spatial_merge_size", "in_channels", "out_hidden_size", "rms_norm_eps",
                    "attention_bias", "hidden_act", "rope_parameters", "image_size", "dtype"});
  return v;
}

std::vector<int> ids(const Fields& f, const std::string& key, int vocab) {
  const Json& j = f.at(key);
  std::vector<const Json*> items;
  if (j.is_array())
    for (const Json& x : j.items(f.name(key))) items.push_back(&x);
  else
    items.push_back(&j);
  std::vector<int> out;
  for (const Json* x : items) {
    const int64_t id = x->integer(f.name(key));
    if (id < 0 || id >= vocab) throw EngineError(f.where(key) + "holds an id outside the vocabulary");
    out.push_back(int(id));
  }
  if (out.empty()) throw EngineError(f.where(key) + "is empty");
  return out;
}

void parse_text(const Fields& f, Config* c, ModelConfig* e) {
  TextConfig& t = e->text;
  if (f.find("model_type")) f.expect("model_type", "glm_ocr_text");
  t.hidden_size = f.integer("hidden_size", 1, 16384);
  t.num_layers = f.integer("num_hidden_layers", 1, 256);
  t.num_attention_heads = f.integer("num_attention_heads", 1, 256);
  t.num_key_value_heads = f.integer("num_key_value_heads", 1, 256);
  t.head_dim = f.integer("head_dim", 2, 1024);
  t.intermediate_size = f.integer("intermediate_size", 1, 1 << 18);
  t.vocab_size = f.integer("vocab_size", 8, 1 << 22);
  t.max_position_embeddings = f.integer("max_position_embeddings", 16, 1 << 24);
  t.rms_norm_eps = float(f.number("rms_norm_eps", 0, 1));
  t.num_mtp_layers = f.find("num_nextn_predict_layers") ? f.integer("num_nextn_predict_layers", 0, 1) : 0;
  f.expect("hidden_act", "silu");
  if (f.find("tie_word_embeddings")) f.expect_flag("tie_word_embeddings", false);
  if (t.num_attention_heads % t.num_key_value_heads != 0)
    throw EngineError("text_config: num_attention_heads must be a multiple of num_key_value_heads");

  Fields rp(f.at("rope_parameters"), f.name("rope_parameters"));
  rp.expect("rope_type", "default");
  t.rope_theta = float(rp.number("rope_theta", 1, 1e9));
  const double factor = rp.find("partial_rotary_factor") ? rp.number("partial_rotary_factor", 0, 1) : 1.0;
  c->rotary_dim = int(t.head_dim * factor);  // int(), as transformers truncates it
  if (c->rotary_dim < 2 || c->rotary_dim % 2 != 0)
    throw EngineError(rp.where("partial_rotary_factor") + "must leave an even rotary width of at least 2");
  const auto& sec = rp.at("mrope_section").items(rp.name("mrope_section"));
  if (sec.size() != 3) throw EngineError(rp.where("mrope_section") + "must have 3 entries (t, h, w)");
  int sum = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t s = sec[size_t(i)].integer(rp.name("mrope_section"));
    if (s < 0 || s > 4096) throw EngineError(rp.where("mrope_section") + "is out of range");
    t.mrope_section[i] = int(s);
    sum += int(s);
  }
  if (sum != c->rotary_dim / 2)
    throw EngineError(rp.where("mrope_section") + "must sum to the rotary width / 2 (" +
                      std::to_string(c->rotary_dim / 2) + ")");
  rp.refuse_unknown({"rope_type", "rope_theta", "partial_rotary_factor", "mrope_section"});

  c->eos_token_ids = ids(f, "eos_token_id", t.vocab_size);
  e->pad_token_id = f.integer("pad_token_id", 0, t.vocab_size - 1);
  // The text attention has no biases whatever attention_bias says (GlmOcrTextAttention hard-codes them off).
  f.refuse_unknown({"model_type", "hidden_size", "num_hidden_layers", "num_attention_heads",
                    "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings",
                    "rms_norm_eps", "num_nextn_predict_layers", "hidden_act", "tie_word_embeddings",
                    "rope_parameters", "eos_token_id", "pad_token_id", "attention_bias", "dtype"});
}

ProcessorConfig parse_processor(const Fields& f, const VisionConfig& v) {
  ProcessorConfig p;
  Fields size(f.at("size"), "size");
  p.min_pixels = size.integer("shortest_edge", 1, 1 << 30);
  p.max_pixels = size.integer("longest_edge", 1, 1 << 30);
  size.refuse_unknown({"shortest_edge", "longest_edge"});
  if (p.min_pixels > p.max_pixels) throw EngineError("size: shortest_edge (min pixels) exceeds longest_edge");
  p.patch_size = f.integer("patch_size", 1, 64);
  p.temporal_patch_size = f.integer("temporal_patch_size", 1, 8);
  p.merge_size = f.integer("merge_size", 1, 8);
  if (p.patch_size != v.patch_size || p.temporal_patch_size != v.temporal_patch_size || p.merge_size != v.merge_size)
    throw EngineError("patch_size, temporal_patch_size and merge_size must equal config.json's vision_config");
  const std::pair<const char*, float*> per_channel[] = {{"image_mean", p.mean}, {"image_std", p.std}};
  for (const auto& [key, out] : per_channel) {
    const auto& vals = f.at(key).items(key);
    if (vals.size() != 3) throw EngineError(std::string(key) + " must have 3 entries");
    for (int ch = 0; ch < 3; ++ch) out[ch] = float(vals[size_t(ch)].number(key));
  }
  for (float s : p.std)
    if (!(s > 0)) throw EngineError("image_std must be positive");
  // Absent ones are the processor class's defaults (docs/glm-ocr.md 4): bicubic, 1/255, normalise, RGB.
  p.rescale_factor = f.find("rescale_factor") ? f.number("rescale_factor", 0, 1) : 1.0 / 255;
  f.expect_flag("do_rescale", true);
  if (f.find("do_resize")) f.expect_flag("do_resize", true);
  if (f.find("do_normalize")) f.expect_flag("do_normalize", true);
  if (f.find("do_convert_rgb")) f.expect_flag("do_convert_rgb", true);
  if (f.find("resample") && f.integer("resample", 0, 5) != 3)
    throw EngineError("resample is not 3 (bicubic), the only resize this engine implements");
  const std::string& type = f.str("image_processor_type");
  if (type != "Glm46VImageProcessor" && type != "Glm46VImageProcessorPil")
    throw EngineError("image_processor_type is " + type + "; this engine implements Glm46VImageProcessor");
  f.refuse_unknown({"size", "patch_size", "temporal_patch_size", "merge_size", "image_mean", "image_std",
                    "rescale_factor", "do_rescale", "do_resize", "do_normalize", "do_convert_rgb", "resample",
                    "image_processor_type", "processor_class"});
  return p;
}

// What a dual-mode conversion adds to config.json. The engine's drafts assume the conversion's label and
// attention conventions (those of the saccade format), so a folder trained with others is refused rather
// than decoded into wrong drafts.
void parse_dual_mode(const Fields& f, int vocab, ModelConfig* e) {
  e->mask_token_id = f.integer("mask_token_id", 0, vocab - 1);
  e->diffusion_block_size = f.integer("block_size", 1, 1024);
  f.expect("diffusion_predicts", "own position");
  f.expect("mask_attention", "bidirectional within a block, causal to earlier blocks");
  f.refuse_unknown({"mask_token_id", "block_size", "diffusion_predicts", "mask_attention"});
}

}  // namespace

bool is_glm_ocr(const std::string& config_json) {
  const Json root = Json::parse(config_json);
  const Json* type = root.is_object() ? root.find("model_type") : nullptr;
  return type && type->is_string() && type->str("model_type") == "glm_ocr";
}

Config parse_config(const std::string& config_json, const std::string& preprocessor_json, ModelConfig* e) {
  Config c;
  try {
    const Json root = Json::parse(config_json);
    const Fields f(root, "");
    const auto& arch = f.at("architectures").items("architectures");
    if (arch.size() != 1 || arch[0].str("architectures") != "GlmOcrForConditionalGeneration")
      throw EngineError("architectures must be [\"GlmOcrForConditionalGeneration\"], the one this engine implements");
    e->model_type = f.str("model_type");
    const char* dtype_key = f.find("dtype") ? "dtype" : "torch_dtype";
    c.dtype = f.str(dtype_key);
    if (c.dtype != "bfloat16" && c.dtype != "float16" && c.dtype != "float32")
      throw EngineError(std::string(dtype_key) + " " + c.dtype + " is not bfloat16, float16 or float32");
    e->torch_dtype = c.dtype;
    if (f.find("tie_word_embeddings")) f.expect_flag("tie_word_embeddings", false);
    parse_text(Fields(f.at("text_config"), "text_config"), &c, e);
    c.vision = parse_vision(Fields(f.at("vision_config"), "vision_config"));
    const int V = e->text.vocab_size;
    e->image_token_id = f.integer("image_token_id", 0, V - 1);
    c.image_start_token_id = f.integer("image_start_token_id", 0, V - 1);
    c.image_end_token_id = f.integer("image_end_token_id", 0, V - 1);
    // Video is not decoded here; its ids are read only to be checked.
    for (const char* key : {"video_token_id", "video_start_token_id", "video_end_token_id"})
      if (f.find(key)) f.integer(key, 0, V - 1);
    if (c.vision.out_hidden_size != e->text.hidden_size)
      throw EngineError("vision_config.out_hidden_size must equal text_config.hidden_size: image features "
                        "replace token embeddings");
    // The saccade format's fields that a GLM-OCR folder has no use for: its prompt is rendered from the chat
    // template (prompt.cc). Self-speculation and diffusion need the mask token and block size of a dual-mode
    // conversion (training/glm_ocr/convert_dual.py); a plain folder has neither, and those modes are refused.
    e->bos_token_id = e->mask_token_id = e->prompt_text = e->prompt_table = e->prompt_formula = -1;
    e->diffusion_block_size = 0;
    if (f.find("saccade_dual_mode")) parse_dual_mode(Fields(f.at("saccade_dual_mode"), "saccade_dual_mode"), V, e);
    f.refuse_unknown({"architectures", "model_type", "dtype", "torch_dtype", "tie_word_embeddings", "text_config",
                      "vision_config", "image_token_id", "image_start_token_id", "image_end_token_id",
                      "video_token_id", "video_start_token_id", "video_end_token_id", "saccade_dual_mode"});
  } catch (const EngineError& err) {
    throw EngineError(std::string("config.json: ") + err.what());
  }
  try {
    const Json root = Json::parse(preprocessor_json);
    c.processor = parse_processor(Fields(root, ""), c.vision);
  } catch (const EngineError& err) {
    throw EngineError(std::string("preprocessor_config.json: ") + err.what());
  }
  // What the addon reports as the most image tokens: the pixel budget over both frames, in merged tokens.
  e->image.max_image_tokens =
      int(c.processor.max_pixels / c.processor.temporal_patch_size / (c.processor.factor() * c.processor.factor()));
  e->eos_token_id = c.eos_token_ids[0];
  e->eos_token_ids = c.eos_token_ids;
  return c;
}

}  // namespace saccade::glm_ocr
