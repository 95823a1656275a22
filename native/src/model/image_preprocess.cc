#include "model/image_preprocess.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace saccade {

void target_size(const ModelConfig& c, int w, int h, int* W, int* H) {
  const double unit = c.image.unit;
  double s = 1;
  if (h < c.image.min_height) s = double(c.image.min_height) / h;
  const double budget = double(c.image.max_image_tokens) * unit * unit;
  if (double(w) * s * double(h) * s > budget) s = std::sqrt(budget / (double(w) * double(h)));
  // Python's round() (ties to even), which the reference uses.
  int ww = std::max(c.image.unit, int(std::nearbyint(w * s / unit)) * c.image.unit);
  int hh = std::max(c.image.unit, int(std::nearbyint(h * s / unit)) * c.image.unit);
  while ((ww / c.image.unit) * (hh / c.image.unit) > c.image.max_image_tokens) {
    if (ww >= hh) ww -= c.image.unit;
    else hh -= c.image.unit;
  }
  *W = ww;
  *H = hh;
}

std::vector<float> resize_bilinear(const uint8_t* src, int w, int h, int W, int H) {
  std::vector<float> out(size_t(W) * H);
  const float sy = float(h) / float(H), sx = float(w) / float(W);
  // As torch computes it: the source index in double from the float scale, then rounded to float.
  auto source = [](float scale, int dst, int in, int* i0, int* step, float* l1) {
    float s = float(double(scale) * (double(dst) + 0.5) - 0.5);
    if (s < 0) s = 0;
    *i0 = std::min(int(s), in - 1);
    *step = *i0 < in - 1 ? 1 : 0;
    *l1 = s - float(*i0);
  };
  for (int y = 0; y < H; ++y) {
    int y0, dy;
    float ly;
    source(sy, y, h, &y0, &dy, &ly);
    const float ly0 = 1.0f - ly;
    for (int x = 0; x < W; ++x) {
      int x0, dx;
      float lx;
      source(sx, x, w, &x0, &dx, &lx);
      const float lx0 = 1.0f - lx;
      const uint8_t* r0 = src + size_t(y0) * w;
      const uint8_t* r1 = src + size_t(y0 + dy) * w;
      out[size_t(y) * W + x] = ly0 * (lx0 * float(r0[x0]) + lx * float(r0[x0 + dx])) +
                               ly * (lx0 * float(r1[x0]) + lx * float(r1[x0 + dx]));
    }
  }
  return out;
}

int line_width(const ModelConfig& c, int w, int h) {
  const int col = c.image.column;
  // As the reference computes it: ceil(w * height / h / column) in double.
  const double cols = std::ceil(double(w) * c.image.height / double(std::max(1, h)) / col);
  return int(std::min<double>(c.image.max_width, std::max<double>(2 * col, cols * col)));
}

static PreparedImage prepare_line(const ModelConfig& c, const uint8_t* gray, int w, int h) {
  PreparedImage im;
  im.height = c.image.height;
  im.width = line_width(c, w, h);
  im.pixels = resize_bilinear(gray, w, h, im.width, im.height);
  for (float& v : im.pixels) v = (v / 255.0f - c.image.mean) / c.image.std;
  im.rows = 1;
  im.cols = im.width / c.image.column;
  return im;
}

PreparedImage prepare_image(const ModelConfig& c, const uint8_t* gray, int w, int h) {
  if (w <= 0 || h <= 0) throw EngineError("region image has no pixels");
  if (c.vision.line) return prepare_line(c, gray, w, h);
  if (c.vision.in_channels != 1) throw EngineError("only single-channel (grayscale) vision input is supported");
  PreparedImage im;
  target_size(c, w, h, &im.width, &im.height);
  std::vector<float> px = resize_bilinear(gray, w, h, im.width, im.height);
  for (float& v : px) v = (v / 255.0f - c.image.mean) / c.image.std;
  const int P = c.vision.patch_size;
  im.patch_rows = im.height / P;
  im.patch_cols = im.width / P;
  im.rows = im.patch_rows / c.vision.merge_size;
  im.cols = im.patch_cols / c.vision.merge_size;
  im.patches.resize(size_t(im.patch_rows) * im.patch_cols * P * P);
  float* dst = im.patches.data();
  for (int pr = 0; pr < im.patch_rows; ++pr)
    for (int pc = 0; pc < im.patch_cols; ++pc)
      for (int y = 0; y < P; ++y)
        for (int x = 0; x < P; ++x) *dst++ = px[size_t(pr * P + y) * im.width + pc * P + x];
  return im;
}

}  // namespace saccade
