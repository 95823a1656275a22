#include "model/glm_ocr/image_processor.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.h"

namespace saccade::glm_ocr {

void smart_resize(const ProcessorConfig& c, int height, int width, int* out_height, int* out_width) {
  // The reference's Python, operation for operation: doubles, round() ties to even, int() truncates.
  const int factor = c.factor(), frames = c.temporal_patch_size;
  if (height < factor || width < factor) {
    const double scale = std::max(double(factor) / height, double(factor) / width);
    height = int(height * scale);
    width = int(width * scale);
  }
  if (double(std::max(height, width)) / std::min(height, width) > 200)
    throw EngineError("image aspect ratio " + std::to_string(std::max(height, width) / std::min(height, width)) +
                      " is above 200, which GLM-OCR's processor refuses");
  int h = int(std::nearbyint(double(height) / factor)) * factor;
  int w = int(std::nearbyint(double(width) / factor)) * factor;
  const double pixels = double(int64_t(frames) * height * width);
  if (int64_t(frames) * h * w > c.max_pixels) {
    const double beta = std::sqrt(pixels / double(c.max_pixels));
    h = std::max(factor, int(std::floor(height / beta / factor)) * factor);
    w = std::max(factor, int(std::floor(width / beta / factor)) * factor);
  } else if (int64_t(frames) * h * w < c.min_pixels) {
    const double beta = std::sqrt(double(c.min_pixels) / pixels);
    h = int(std::ceil(height * beta / factor)) * factor;
    w = int(std::ceil(width * beta / factor)) * factor;
  }
  *out_height = h;
  *out_width = w;
}

namespace {

constexpr int kPrecision = 22;  // Pillow's PRECISION_BITS for 8-bit images

double bicubic(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

// One axis of a resize: for each output index its first input index, tap count and fixed-point weights.
struct Taps {
  int stride = 0;  // weights per output index
  std::vector<int> first, count;
  std::vector<int32_t> weights;
};

Taps precompute_taps(int in, int out) {
  const double scale = double(in) / out;
  const double filter_scale = std::max(scale, 1.0);
  const double support = 2 * filter_scale;
  const double inv_filter_scale = 1.0 / filter_scale;  // Pillow multiplies by the reciprocal
  Taps t;
  t.stride = int(std::ceil(support)) * 2 + 1;
  t.first.resize(size_t(out));
  t.count.resize(size_t(out));
  t.weights.assign(size_t(out) * t.stride, 0);
  std::vector<double> k(size_t(t.stride));
  for (int o = 0; o < out; ++o) {
    const double center = (o + 0.5) * scale;
    const int lo = std::max(0, int(center - support + 0.5));
    const int n = std::min(in, int(center + support + 0.5)) - lo;
    double sum = 0;
    for (int x = 0; x < n; ++x) sum += k[size_t(x)] = bicubic((x + lo - center + 0.5) * inv_filter_scale);
    for (int x = 0; x < n; ++x) {
      const double w = sum != 0 ? k[size_t(x)] / sum : k[size_t(x)];
      t.weights[size_t(o) * t.stride + x] = int32_t(w < 0 ? -0.5 + w * (1 << kPrecision) : 0.5 + w * (1 << kPrecision));
    }
    t.first[size_t(o)] = lo;
    t.count[size_t(o)] = n;
  }
  return t;
}

uint8_t clip8(int64_t v) {
  if (v >= int64_t(1) << (kPrecision + 8)) return 255;
  if (v <= 0) return 0;
  return uint8_t(v >> kPrecision);
}

// src [h, w, 3] -> [h, W, 3]
std::vector<uint8_t> resample_rows(const uint8_t* src, int w, int h, int W) {
  const Taps t = precompute_taps(w, W);
  std::vector<uint8_t> out(size_t(h) * W * 3);
  for (int y = 0; y < h; ++y)
    for (int o = 0; o < W; ++o) {
      const int32_t* k = &t.weights[size_t(o) * t.stride];
      const uint8_t* row = src + (size_t(y) * w + t.first[size_t(o)]) * 3;
      for (int c = 0; c < 3; ++c) {
        int64_t acc = int64_t(1) << (kPrecision - 1);
        for (int x = 0; x < t.count[size_t(o)]; ++x) acc += int64_t(row[size_t(x) * 3 + c]) * k[x];
        out[(size_t(y) * W + o) * 3 + c] = clip8(acc);
      }
    }
  return out;
}

// src [h, w, 3] -> [H, w, 3]
std::vector<uint8_t> resample_columns(const uint8_t* src, int w, int h, int H) {
  const Taps t = precompute_taps(h, H);
  std::vector<uint8_t> out(size_t(H) * w * 3);
  for (int o = 0; o < H; ++o) {
    const int32_t* k = &t.weights[size_t(o) * t.stride];
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        int64_t acc = int64_t(1) << (kPrecision - 1);
        for (int y = 0; y < t.count[size_t(o)]; ++y)
          acc += int64_t(src[((size_t(t.first[size_t(o)]) + y) * w + x) * 3 + c]) * k[y];
        out[(size_t(o) * w + x) * 3 + c] = clip8(acc);
      }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> resize_bicubic(const uint8_t* rgb, int w, int h, int W, int H) {
  std::vector<uint8_t> img(rgb, rgb + size_t(w) * h * 3);
  if (W != w) img = resample_rows(img.data(), w, h, W);
  if (H != h) img = resample_columns(img.data(), W, h, H);
  return img;
}

ProcessedImage process_image(const ProcessorConfig& c, const uint8_t* rgb, int w, int h) {
  if (w <= 0 || h <= 0) throw EngineError("image has no pixels");
  ProcessedImage out;
  smart_resize(c, h, w, &out.height, &out.width);
  const std::vector<uint8_t> img = resize_bicubic(rgb, w, h, out.width, out.height);
  const int P = c.patch_size, T = c.temporal_patch_size, M = c.merge_size, W = out.width;
  out.grid_h = out.height / P;
  out.grid_w = out.width / P;
  // As numpy does it: the rescale in double rounded to float32, then the normalisation in float32.
  float table[3][256];
  for (int ch = 0; ch < 3; ++ch)
    for (int v = 0; v < 256; ++v) table[ch][v] = (float(double(v) * c.rescale_factor) - c.mean[ch]) / c.std[ch];
  const int blocks_w = out.grid_w / M;
  out.pixel_values.resize(size_t(out.grid_h) * out.grid_w * c.patch_values());
  float* dst = out.pixel_values.data();
  for (int bh = 0; bh < out.grid_h / M; ++bh)
    for (int bw = 0; bw < blocks_w; ++bw)
      for (int mh = 0; mh < M; ++mh)
        for (int mw = 0; mw < M; ++mw) {
          const int y0 = (bh * M + mh) * P, x0 = (bw * M + mw) * P;
          for (int ch = 0; ch < 3; ++ch)
            for (int t = 0; t < T; ++t)
              for (int y = 0; y < P; ++y)
                for (int x = 0; x < P; ++x) *dst++ = table[ch][img[((size_t(y0) + y) * W + x0 + x) * 3 + ch]];
        }
  return out;
}

}  // namespace saccade::glm_ocr
