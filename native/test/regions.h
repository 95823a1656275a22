#pragma once
// Synthetic region crops for tests that run without the trained model.
#include <string>

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

}  // namespace sctest
