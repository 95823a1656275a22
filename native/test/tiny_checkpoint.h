#pragma once
// Writes a small random checkpoint in the documented format (config.json, model.safetensors fp16,
// tokenizer.json) so loader, forward and decoding tests run without the trained model.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sctest {

struct TinySpec {
  int vision_layers = 2, vision_hidden = 32, vision_heads = 2, vision_inter = 48;
  int layers = 3, hidden = 64, heads = 4, kv_heads = 2, head_dim = 16, inter = 96, vocab = 96;
  int max_image_tokens = 24;
  // Format 3's convolutional stem (three convolutions for the 8-pixel patches); empty: format 2.
  std::vector<int> stem_channels;
  uint64_t seed = 1;
  float weight_scale = 0.15f;
  // When > 0, the LM head leans towards token 50 by this much (along the mean embedding direction), and
  // token 50's embedding along the same direction, so drafts often match the verifier (the acceptance paths of
  // self-spec get exercised) and strong leans end in loops.
  float favor_strength = 0;
  // Adds an MTP head (mtp.*, num_mtp_layers 1).
  bool mtp = false;
};

// Returns the directory (under /tmp). Files are rewritten each call.
std::string write_tiny_checkpoint(const TinySpec& spec, const std::string& name);

// Raw bytes of a safetensors file from fp16 tensors (name -> (shape, values)).
std::string safetensors_bytes(const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>& t);

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

}  // namespace sctest
