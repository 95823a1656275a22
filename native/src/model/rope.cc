#include "model/rope.h"

#include <cmath>

namespace saccade {

std::vector<float> mrope_table(const TextConfig& c, const Pos3* pos, int rows) {
  const int half = c.head_dim / 2;
  std::vector<float> inv(half);
  for (int j = 0; j < half; ++j) inv[j] = 1.0f / std::pow(c.rope_theta, float(2 * j) / float(c.head_dim));
  std::vector<float> t(size_t(rows) * half * 2);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < half; ++j) {
      const int p = j < c.mrope_section[0] ? pos[r].t : j < c.mrope_section[0] + c.mrope_section[1] ? pos[r].h : pos[r].w;
      const float a = float(p) * inv[j];
      t[(size_t(r) * half + j) * 2] = std::cos(a);
      t[(size_t(r) * half + j) * 2 + 1] = std::sin(a);
    }
  return t;
}

std::vector<float> vision_rope_table(const VisionConfig& c, int patch_rows, int patch_cols) {
  const int hd = c.head_dim(), half = hd / 2;
  std::vector<float> inv(half);
  for (int j = 0; j < half; ++j) inv[j] = 1.0f / std::pow(c.rope_theta, float(2 * j) / float(hd));
  std::vector<float> t(size_t(patch_rows) * patch_cols * half * 2);
  for (int r = 0; r < patch_rows; ++r)
    for (int cc = 0; cc < patch_cols; ++cc)
      for (int j = 0; j < half; ++j) {
        const float a = float(j < hd / 4 ? r : cc) * inv[j];
        float* e = &t[((size_t(r) * patch_cols + cc) * half + j) * 2];
        e[0] = std::cos(a);
        e[1] = std::sin(a);
      }
  return t;
}

}  // namespace saccade
