#pragma once
// Typed view of config.json (docs/model-format.md). parse_config validates every value it reads.
#include <string>
#include <vector>

#include "util/json.h"

namespace saccade {

struct VisionConfig {
  int patch_size, in_channels, hidden_size, num_layers, num_heads, intermediate_size, merge_size;
  float rms_norm_eps, rope_theta;
  // Output channels of the stride-2 3x3 convolutions before the patch embedding (format 3); empty: the
  // patch embedding reads the patch's pixels.
  std::vector<int> stem_channels;
  int head_dim() const { return hidden_size / num_heads; }
  int patch_embed_in() const {
    return stem_channels.empty() ? patch_size * patch_size * in_channels : stem_channels.back();
  }
};

struct TextConfig {
  int hidden_size, num_layers, num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
      vocab_size, max_position_embeddings;
  float rms_norm_eps, rope_theta;
  int mrope_section[3];
  int num_mtp_layers = 0;  // 1: the checkpoint carries an MTP head (mtp.*, docs/model-format.md)
};

struct ImageConfig {
  int max_image_tokens, min_height, unit;
  float mean, std;
};

struct ModelConfig {
  std::string model_type;
  std::string torch_dtype;
  VisionConfig vision;
  TextConfig text;
  ImageConfig image;
  int bos_token_id, eos_token_id, pad_token_id, mask_token_id, image_token_id;
  int prompt_text, prompt_table, prompt_formula;
  int diffusion_block_size;
};

ModelConfig parse_config(const std::string& json_text);

}  // namespace saccade
