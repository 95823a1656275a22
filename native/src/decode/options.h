#pragma once
// C++ mirror of DecodeOptions in common/engine-types.ts.
#include <cstdint>
#include <string>

namespace saccade {

enum class DecodeMode { AR, Spec, Mtp, Diffusion };

struct FixationOptions {
  bool enabled = true;
  int warmup_steps = 4;
  int focal_layers = 2;
  float keep_ratio = 1.0f;  // 1: heatmaps only, nothing pruned (docs/decisions/0012)
};

struct DecodeOptions {
  DecodeMode mode = DecodeMode::Spec;
  int block_size = 0;  // 0 = auto; MTP: drafts per round
  float tau_c = 0.9f;
  int refine_steps = 0;
  float temperature = 0;  // 0 = greedy
  float top_p = 1;
  uint64_t seed = 0;
  int max_new_tokens = 1024;
  int batch_size = 1;  // regions decoded together, one shared forward per step (AR and spec)
  bool repeat_guard = true;  // stop a region that loops, keeping the loop's first copy (repeat_guard.h)
  bool reading_prior = true;  // greedy: weigh a line model's CTC reading as its config says (reading_prior.h)
  FixationOptions fixation;
};

// Throws EngineError naming the first bad field.
void validate(const DecodeOptions& o, int num_layers);

}  // namespace saccade
