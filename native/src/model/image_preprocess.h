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
  std::vector<float> pixels;           // format 4: the normalised line [height, width]; rows = 1, cols = width / 8
};

// Format 4's input width for a w x h crop scaled to the line height: a multiple of image.column, at least two
// columns, at most image.max_width (wider crops are squeezed).
int line_width(const ModelConfig& c, int w, int h);

// Target size for a w x h crop.
void target_size(const ModelConfig& c, int w, int h, int* W, int* H);

// Bilinear resize with half-pixel centres and no antialiasing (torch interpolate, align_corners=False).
std::vector<float> resize_bilinear(const uint8_t* src, int w, int h, int W, int H);

PreparedImage prepare_image(const ModelConfig& c, const uint8_t* gray, int w, int h);

}  // namespace saccade
