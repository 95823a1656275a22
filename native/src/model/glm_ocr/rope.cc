#include "model/glm_ocr/rope.h"

#include <cmath>

namespace saccade::glm_ocr {

namespace {
// transformers' inverse frequencies: 1 / base^(float32(2k) / dim), all in float32.
float inv_freq(float theta, int k, int dim) { return 1.0f / std::pow(theta, float(2 * k) / float(dim)); }
}  // namespace

std::vector<float> text_rope_table(const Config& c, const TextConfig& t, const Pos3* pos, int rows) {
  const int half = t.head_dim / 2, rotary = c.rotary_dim / 2;
  const int h_from = t.mrope_section[0], w_from = t.mrope_section[0] + t.mrope_section[1];
  std::vector<float> inv(static_cast<size_t>(rotary));
  for (int j = 0; j < rotary; ++j) inv[size_t(j)] = inv_freq(t.rope_theta, j, c.rotary_dim);
  std::vector<float> table(size_t(rows) * half * 2);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < half; ++j) {
      float* e = &table[(size_t(r) * half + j) * 2];
      if (j >= rotary) {
        e[0] = 1;
        e[1] = 0;
        continue;
      }
      const int p = j < h_from ? pos[r].t : j < w_from ? pos[r].h : pos[r].w;
      const float a = float(p) * inv[size_t(j)];
      e[0] = std::cos(a);
      e[1] = std::sin(a);
    }
  return table;
}

std::vector<int> half_split_rows(int heads, int head_dim) {
  std::vector<int> src(size_t(heads) * head_dim);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < head_dim; ++i) src[size_t(h) * head_dim + (i % 2 ? head_dim / 2 : 0) + i / 2] = h * head_dim + i;
  return src;
}

std::vector<float> vision_rope_table(const VisionConfig& v, int grid_h, int grid_w) {
  const int half = v.head_dim() / 2, quarter = half / 2, m = v.merge_size;
  std::vector<float> inv(static_cast<size_t>(quarter));
  for (int k = 0; k < quarter; ++k) inv[size_t(k)] = inv_freq(v.rope_theta, k, half);
  std::vector<float> table(size_t(grid_h) * grid_w * half * 2);
  float* e = table.data();
  for (int bh = 0; bh < grid_h / m; ++bh)
    for (int bw = 0; bw < grid_w / m; ++bw)
      for (int mh = 0; mh < m; ++mh)
        for (int mw = 0; mw < m; ++mw)
          for (int j = 0; j < half; ++j, e += 2) {
            const float a = float(j < quarter ? bh * m + mh : bw * m + mw) * inv[size_t(j % quarter)];
            e[0] = std::cos(a);
            e[1] = std::sin(a);
          }
  return table;
}

}  // namespace saccade::glm_ocr
