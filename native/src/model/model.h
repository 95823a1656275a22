#pragma once
// A loaded checkpoint: config, tokenizer and weights resident on one backend.
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"
#include "model/glm_ocr/glm_ocr.h"
#include "model/line_encoder.h"
#include "model/tokenizer.h"

namespace saccade {

// One stride-2 3x3 convolution of the vision stem; w is [out, 9 * in] in Backend::im2col's order.
struct StemConv {
  Weight w;
  Buffer b;
  int in = 0, out = 0;
};

struct VisionLayer {
  Buffer norm1, q_b, k_b, v_b, q_norm, k_norm, proj_b, norm2;
  Weight q, k, v, proj, gate, up, down;  // q/k/v are the three row blocks of attn.qkv
};

struct DecoderLayer {
  Buffer input_norm, post_norm;
  Weight q, k, v, o, gate, up, down;
  // GLM-4's extra norms on the attention and MLP outputs, before each residual add; empty: none.
  Buffer attn_out_norm, mlp_out_norm;
};

// The multi-token-prediction head (DeepSeek-V3's MTP module): one decoder layer over
// eh_proj([hnorm(h); enorm(embedding of the next token)]), read out through its own norm and the shared LM
// head. eh_proj's two column halves are kept as two weights, which spares a concatenation per forward.
struct MtpHead {
  Buffer hnorm, enorm, norm;
  Weight eh_proj_h, eh_proj_e;
  DecoderLayer layer;
  // GLM-OCR's head (vLLM's convention): it continues from the trunk's hidden state after the final norm, and
  // a sequence's first row (position 0) reads a zero embedding.
  bool after_final_norm = false, zero_first_embedding = false;
};

struct Model {
  ModelConfig cfg;
  Tokenizer tokenizer;
  std::unique_ptr<Backend> backend;
  std::string dir;
  std::string weight_dtype;  // as stored in the file ("F16", "BF16", "F32"); computed in fp32

  std::unique_ptr<LineVision> line;  // format 4; the ViT fields below stay empty then
  std::vector<StemConv> stem;  // empty before format 3
  Weight patch_embed;
  Buffer patch_embed_b, vision_post_norm;
  std::vector<VisionLayer> vision_layers;
  Weight merger_fc1, merger_fc2;
  Buffer merger_fc1_b, merger_fc2_b, merger_norm;

  Weight embed_tokens, lm_head;
  Buffer final_norm;
  std::vector<DecoderLayer> layers;
  std::unique_ptr<MtpHead> mtp;  // when the config has num_mtp_layers = 1
  std::unique_ptr<glm_ocr::GlmOcr> glm;  // a GLM-OCR folder; the ViT and line fields above stay empty then

  size_t parameter_count = 0;
};

struct LoadOptions {
  BackendOptions backend;
};

// Reads config.json, model.safetensors (memory-mapped) and tokenizer.json from dir, or a GLM-OCR folder
// (glm_ocr/loader.h). Every name, shape and dtype is checked against the config before any weight is used;
// problems throw one EngineError.
std::unique_ptr<Model> load_model(const std::string& dir, const LoadOptions& opts);

}  // namespace saccade
