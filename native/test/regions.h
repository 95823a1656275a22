#pragma once
// Synthetic region crops for tests that run without the trained model.
#include <string>
#include <vector>

#include "decode/sequence.h"

namespace sctest {

inline saccade::RegionInput synthetic_region(const std::string& id, int w, int h, int seed) {
  saccade::RegionInput r;
  r.id = id;
  r.kind = "text";
  r.width = w;
  r.height = h;
  r.pixels.resize(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      r.pixels[size_t(y) * w + x] = uint8_t((x * 7 + y * 13 + seed * 31 + ((x / 5 + y / 3 + seed) % 3) * 60) & 0xFF);
  return r;
}

// The crops (wide, tall, a long line) the decoding tests run every strategy over.
inline std::vector<saccade::RegionInput> three_regions() {
  return {synthetic_region("a", 96, 48, 1), synthetic_region("b", 40, 70, 2), synthetic_region("c", 200, 30, 3)};
}

// Greedy, at most 40 new tokens, no fixation: the options the decoding tests compare strategies under.
inline saccade::DecodeOptions short_greedy(saccade::DecodeMode mode, int block) {
  saccade::DecodeOptions o;
  o.mode = mode;
  o.block_size = block;
  o.max_new_tokens = 40;
  o.fixation.enabled = false;
  return o;
}

}  // namespace sctest
