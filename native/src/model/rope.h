#pragma once
// Rotary tables (docs/model-format.md): host arrays [rows, head_dim / 2, 2] of (cos, sin).
#include <vector>

#include "model/config.h"

namespace saccade {

struct Pos3 {
  int t, h, w;
};

std::vector<float> mrope_table(const TextConfig& c, const Pos3* pos, int rows);
// Vision 2-D rotary: the first half of the frequencies follow the patch row, the rest the patch column.
std::vector<float> vision_rope_table(const VisionConfig& c, int patch_rows, int patch_cols);

}  // namespace saccade
