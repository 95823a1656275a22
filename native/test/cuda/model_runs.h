#pragma once
// Whole-model runs through the engine's own API (Sequence, decode_regions), shared by the parity check and
// the benchmark so both measure exactly what the app runs.
#include <vector>

#include "decode/options.h"
#include "decode/sequence.h"
#include "model/model.h"

namespace gpucheck {

struct DecodeRun {
  std::vector<int> ids;
  saccade::RegionStats stats;
  double wall_ms = 0;  // whole region: encode, prefill and decode
};

// Greedy decoding of one region. block_size 0 = the engine's auto block size (Spec only).
DecodeRun run_decode(saccade::Model& m, const saccade::RegionInput& in, saccade::DecodeMode mode, int block_size,
                     bool fixation, int max_new_tokens);

// The first forwards after the prefill: the prompt row alone (logits of the first token), then, with the
// prompt committed, the draft forward [c, MASK x B] of docs/decisions/0002 with c = the greedy first token.
struct FirstForwards {
  std::vector<float> prompt_logits;  // [vocab]
  std::vector<float> draft_logits;   // [1 + B, vocab]
  int first_token = 0;
};
FirstForwards first_forwards(saccade::Model& m, const saccade::RegionInput& in, int block);

// Vision encoder + merger output on the host: [image tokens, text hidden].
std::vector<float> image_embeds(saccade::Model& m, const saccade::RegionInput& in);

int argmax(const float* v, int n);

}  // namespace gpucheck
