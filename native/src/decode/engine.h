#pragma once
// Entry point above the strategies: decode a list of regions with one set of options, streaming events.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "decode/block_size.h"
#include "decode/events.h"
#include "decode/options.h"
#include "decode/sequence.h"
#include "model/model.h"

namespace saccade {

struct RegionResult {
  std::string id, text;
  std::vector<int> tokens;
  RegionStats stats;
};

struct DecodeResult {
  std::vector<RegionResult> regions;
  bool cancelled = false;
};

// Decodes regions one after another. `costs` caches the forward-cost calibration for blockSize auto across
// calls (measured on first use when empty).
DecodeResult decode_regions(Model& m, const std::vector<RegionInput>& regions, const DecodeOptions& o,
                            EventSink& sink, const std::atomic<bool>& cancel, ForwardCosts* costs);

// Widths whose forward cost the auto block size measures.
std::vector<int> calibration_widths();

}  // namespace saccade
