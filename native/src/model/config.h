#pragma once
// Typed view of config.json (docs/model-format.md). parse_config validates every value it reads.
#include <string>
#include <vector>

#include "util/json.h"

namespace saccade {

// The pretrained line encoder of format 4 (docs/model-format.md "Format 4"): PP-OCRv4's recogniser, or
// PP-OCRv6 small's (vision_config.encoder.kind "pp_ocrv6").
enum class LineEncoderKind { PPOCRv4, PPOCRv6 };

struct LineBlockConfig {
  int in, out, kernel, stride_h, stride_w;
  bool se;
  // PP-OCRv6's blocks: the squeeze-excite's middle width (0: none), the channel MLP's hidden width, and
  // whether its output is added to the token mixer's (where the channels stay).
  int se_mid = 0, hidden = 0;
  bool residual = false;
};

struct LineEncoderConfig {
  LineEncoderKind kind = LineEncoderKind::PPOCRv4;
  int stem_channels = 0;            // PP-OCRv4's stem; PP-OCRv6's stem ends with stem_out channels
  int stem_mid = 0, stem_out = 0;   // PP-OCRv6
  int neck_kernel = 0;              // PP-OCRv6: the depthwise convolution along the line
  std::vector<LineBlockConfig> blocks;
  int pool_h = 0, pool_w = 0;
  int neck_reduce = 0, neck_dim = 0, neck_depth = 0, neck_heads = 0, neck_mlp_ratio = 0;
  int num_classes = 0;
  std::vector<std::string> features;  // "neck" / "backbone", in the order the image tokens concatenate them
  bool reading_positions = false;      // vision_config.positions "reading": image tokens at their reading index
  int channels() const { return blocks.back().out; }
  int feature_dim(const std::string& f) const { return f == "neck" ? neck_dim : channels(); }
};

struct VisionConfig {
  // Format 4 (a line encoder) fills `line` and leaves the ViT fields below at zero.
  bool line = false;
  LineEncoderConfig encoder;
  int patch_size = 0, in_channels = 0, hidden_size = 0, num_layers = 0, num_heads = 0, intermediate_size = 0,
      merge_size = 0;
  float rms_norm_eps = 0, rope_theta = 0;
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
  int max_image_tokens = 0, min_height = 0, unit = 0;  // formats 2 and 3
  int height = 0, column = 0, max_width = 0;           // format 4: lines scaled to `height`, one token a column
  float mean, std;
};

struct ModelConfig {
  std::string model_type;
  std::string torch_dtype;
  VisionConfig vision;
  TextConfig text;
  ImageConfig image;
  int bos_token_id, eos_token_id, pad_token_id, mask_token_id, image_token_id;
  std::vector<int> eos_token_ids;  // every id that ends a region: eos_token_id, and GLM-OCR's second one
  int prompt_text, prompt_table, prompt_formula;
  int diffusion_block_size;
  // reading_prior.weight: how much the verifier's greedy choices weigh the line encoder's CTC reading
  // (decode/reading_prior.h); 0: the decoder alone. read_as: characters the encoder cannot name or cannot
  // tell from a plainer one (an accent's base letter, a straight quote) -> the one it shows for each
  // (UTF-8).
  double reading_prior_weight = 0;
  std::vector<std::pair<std::string, std::string>> reading_prior_read_as;
};

ModelConfig parse_config(const std::string& json_text);

}  // namespace saccade
