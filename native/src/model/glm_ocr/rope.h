#pragma once
// GLM-OCR's rotary tables for Backend::rope, which rotates the pairs (j, j + head_dim / 2) by the table's
// angle j. Angles are computed in float32, as transformers computes them.
#include <vector>

#include "model/config.h"
#include "model/glm_ocr/config.h"
#include "model/rope.h"

namespace saccade::glm_ocr {

// The text decoder rotates adjacent pairs (2j, 2j + 1). The loader stores q_proj and k_proj with each head's
// rows reordered by half_split_rows, which makes those pairs (j, j + head_dim / 2) and leaves q . k as it was,
// so this table serves Backend::rope: frequency j takes the t, h or w position by mrope_section; frequencies
// at or past rotary_dim / 2 are (cos 1, sin 0), the dimensions that partial rotary leaves alone.
std::vector<float> text_rope_table(const Config& c, const TextConfig& t, const Pos3* pos, int rows);

// For each row of a [heads * head_dim, in] projection, the source row: even dimensions of a head first,
// then the odd ones.
std::vector<int> half_split_rows(int heads, int head_dim);

// The vision tower's 2-D table: patch p (merge-block order) takes its patch row for the first head_dim / 4
// frequencies and its patch column for the next, with frequencies theta^(-2k / (head_dim / 2)).
std::vector<float> vision_rope_table(const VisionConfig& v, int grid_h, int grid_w);

}  // namespace saccade::glm_ocr
