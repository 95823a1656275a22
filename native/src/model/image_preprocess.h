#pragma once
// Region crop -> normalised patches (docs/model-format.md, "Image preprocessing").
#include <cstdint>
#include <vector>

#include "model/config.h"

namespace saccade {

struct PreparedImage {
  int width = 0, height = 0;           // after resizing (multiples of unit)
  int patch_rows = 0, patch_cols = 0;  // patch grid
  int rows = 0, cols = 0;              // merged grid
  std::vector<float> patches;          // [patch_rows * patch_cols, P * P * C], row-major over the patch grid
};

// Target size for a w x h crop.
void target_size(const ModelConfig& c, int w, int h, int* W, int* H);

// Bilinear resize with half-pixel centres and no antialiasing (torch interpolate, align_corners=False).
std::vector<float> resize_bilinear(const uint8_t* src, int w, int h, int W, int H);

PreparedImage prepare_image(const ModelConfig& c, const uint8_t* gray, int w, int h);

}  // namespace saccade
