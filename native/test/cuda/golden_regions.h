#pragma once
// The regions of native/test/golden/index.json (written by training/golden.py) and the checkpoint they were
// made from, as engine inputs plus the reference outputs the GPU check compares against.
#include <string>
#include <vector>

#include "decode/sequence.h"

namespace gpucheck {

struct GoldenRegion {
  std::string name;
  saccade::RegionInput input;
  std::vector<float> prefill_last_logits;  // [vocab]: logits at the prompt token after the prefill
  std::vector<int> greedy_ar_ids, self_spec_ids;
};

struct GoldenSet {
  std::string model_dir;
  int max_new_tokens = 0;
  std::vector<GoldenRegion> regions;
};

// Empty `regions` (and a reason in *why_not) when the golden folder or its checkpoint is missing.
GoldenSet load_golden(const std::string& golden_dir, std::string* why_not);

}  // namespace gpucheck
