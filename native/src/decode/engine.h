#pragma once
// Entry point above the strategies: decode a list of regions with one set of options, streaming events.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "decode/block_size.h"
#include "decode/mtp_sizer.h"
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

// What decoding learns about one model and hands on from region to region and from call to call.
struct ModelMemory {
  ForwardCosts costs;  // blockSize auto's forward-cost calibration, measured on first use
  std::map<std::string, SpeculationMemory> speculation;  // per region kind
  std::map<std::string, MtpMemory> mtp;                  // per region kind
  // Per region kind: each decoder layer's share of attention on image tokens over fixation's warm-up, which
  // picks the focal layers. Which layers look at the image is a property of the model and the kind of
  // region, so only a kind's first region warms up (docs/decisions/0004).
  std::map<std::string, std::vector<double>> image_share;
};

// Decodes regions one after another (in groups of batch_size), learning into and from `memory`.
DecodeResult decode_regions(Model& m, const std::vector<RegionInput>& regions, const DecodeOptions& o,
                            EventSink& sink, const std::atomic<bool>& cancel, ModelMemory* memory);

// Widths whose forward cost the auto block size measures.
std::vector<int> calibration_widths();

}  // namespace saccade
