#pragma once
// A GLM-OCR folder's config.json and preprocessor_config.json (docs/glm-ocr.md sections 2 and 4), read
// strictly: every shape comes from the files, and a field or value this engine does not implement is refused
// in one line that names it.
#include <string>
#include <vector>

#include "model/config.h"
#include "model/glm_ocr/image_processor.h"

namespace saccade::glm_ocr {

struct VisionConfig {
  int depth = 0, hidden_size = 0, num_heads = 0, intermediate_size = 0;
  int patch_size = 0, temporal_patch_size = 0, merge_size = 0, in_channels = 0, out_hidden_size = 0;
  bool bias = false;  // attention_bias: qkv, proj and the MLP's three projections carry biases
  float rms_norm_eps = 0, rope_theta = 0;
  int head_dim() const { return hidden_size / num_heads; }
  int merger_width() const { return out_hidden_size * in_channels; }  // as GlmOcrVisionModel builds it
};

struct Config {
  std::string dtype;  // the weights': bfloat16, float16 or float32
  VisionConfig vision;
  int rotary_dim = 0;  // head_dim * partial_rotary_factor; the rest of each head passes through
  int image_start_token_id = 0, image_end_token_id = 0;
  std::vector<int> eos_token_ids;
  ProcessorConfig processor;
};

// True when config.json names the GLM-OCR architecture (model_type glm_ocr).
bool is_glm_ocr(const std::string& config_json);

// Parses both files; the text decoder's fields go into the engine-wide `engine` config, which the decoder and
// the decoding strategies read. Throws EngineError naming the file and the field.
Config parse_config(const std::string& config_json, const std::string& preprocessor_json, ModelConfig* engine);

}  // namespace saccade::glm_ocr
