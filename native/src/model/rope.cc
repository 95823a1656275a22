#include "model/rope.h"

#include <cmath>

namespace saccade {

// Angles are computed in double and rounded once, as the PyTorch reference does.
static std::vector<double> inv_freq(int head_dim, double theta) {
  std::vector<double> f(size_t(head_dim / 2));
  for (int j = 0; j < head_dim / 2; ++j) f[size_t(j)] = std::pow(theta, -2.0 * j / head_dim);
  return f;
}

std::vector<float> mrope_table(const TextConfig& c, const Pos3* pos, int rows) {
  const int half = c.head_dim / 2;
  const std::vector<double> inv = inv_freq(c.head_dim, c.rope_theta);
  std::vector<float> t(size_t(rows) * half * 2);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < half; ++j) {
      const int p = j < c.mrope_section[0] ? pos[r].t : j < c.mrope_section[0] + c.mrope_section[1] ? pos[r].h : pos[r].w;
      const double a = double(p) * inv[size_t(j)];
      t[(size_t(r) * half + j) * 2] = float(std::cos(a));
      t[(size_t(r) * half + j) * 2 + 1] = float(std::sin(a));
    }
  return t;
}

std::vector<float> vision_rope_table(const VisionConfig& c, int patch_rows, int patch_cols) {
  const int hd = c.head_dim(), half = hd / 2;
  const std::vector<double> inv = inv_freq(hd, c.rope_theta);
  std::vector<float> t(size_t(patch_rows) * patch_cols * half * 2);
  for (int r = 0; r < patch_rows; ++r)
    for (int cc = 0; cc < patch_cols; ++cc)
      for (int j = 0; j < half; ++j) {
        const double a = double(j < hd / 4 ? r : cc) * inv[size_t(j)];
        float* e = &t[((size_t(r) * patch_cols + cc) * half + j) * 2];
        e[0] = float(std::cos(a));
        e[1] = float(std::sin(a));
      }
  return t;
}

}  // namespace saccade
