#pragma once
// What a GLM-OCR folder adds to the engine's Model (docs/glm-ocr.md): its config, the vision tower's weights
// and the prompt's ids. Its text decoder is Model's own layers, embed_tokens, lm_head and mtp, which the
// shared Decoder runs.
#include <map>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/glm_ocr/config.h"

namespace saccade::glm_ocr {

struct VisionBlock {
  Buffer norm1, norm2, q_norm, k_norm;
  Weight q, k, v, proj, gate, up, down;  // q, k, v: the three row blocks of attn.qkv
  Buffer q_b, k_b, v_b, proj_b, gate_b, up_b, down_b;  // empty without attention_bias
};

struct Vision {
  Weight patch_embed;  // the Conv3d as [hidden, 3 * T * P * P], columns in pixel_values' order
  Buffer patch_embed_b;
  std::vector<VisionBlock> blocks;
  Buffer post_norm;
  Weight downsample;  // the 2 x 2 Conv2d as [out, m * m * hidden], columns (patch of the block, channel)
  Buffer downsample_b;
  Weight merger_proj, merger_gate, merger_up, merger_down;
  Buffer merger_norm_w, merger_norm_b;
};

// The chat template rendered for one image and a task (docs/glm-ocr.md 5.1), as ids: before_image, the
// <|image|> run (one per merged token), then after_image of the region's kind.
struct PromptIds {
  std::vector<int> before_image;                        // [gMASK] <sop> <|user|> \n <|begin_of_image|>
  std::map<std::string, std::vector<int>> after_image;  // <|end_of_image|> task text <|assistant|> \n
};

struct GlmOcr {
  Config cfg;
  Vision vision;
  PromptIds prompt;
};

}  // namespace saccade::glm_ocr
