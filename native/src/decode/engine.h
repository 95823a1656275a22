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

// Decodes regions one after another. `speculation` carries what blockSize auto learns across regions and
// calls: the forward-cost calibration (measured on first use) and the acceptance memory per region kind.
DecodeResult decode_regions(Model& m, const std::vector<RegionInput>& regions, const DecodeOptions& o,
                            EventSink& sink, const std::atomic<bool>& cancel, SpeculationState* speculation);

// Widths whose forward cost the auto block size measures.
std::vector<int> calibration_widths();

}  // namespace saccade
