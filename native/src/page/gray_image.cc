#include "page/gray_image.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace saccade {

namespace {

// floor() of a value well inside int64's range, without the libm call that baseline x86-64 makes of std::floor
// (these run once per pixel).
inline int64_t floor_int(double v) {
  const int64_t i = int64_t(v);
  return double(i) > v ? i - 1 : i;
}

// A pixel value (never negative) as JavaScript's Math.round and a Uint8Array store make it: half-way cases
// go up. In int32, so that the compiler vectorises the loops around it.
inline uint8_t round_pixel(double v) {
  const int i = int(v);
  return uint8_t(i + int(v - double(i) >= 0.5));
}

// Per output pixel, `count` consecutive source pixels from start[i] and their weights weights[i * count + k];
// a pixel with fewer taps has zero weights, placed so that every tap stays inside the source (a zero tap adds
// exactly 0, so the sums are those of the unpadded footprint).
struct Taps {
  int count = 0;
  std::vector<int> start;
  std::vector<float> weights;
};

Taps make_taps(int src, int dst) {
  const double scale = double(src) / dst;
  std::vector<int> first(dst);
  std::vector<std::vector<double>> w(dst);
  for (int i = 0; i < dst; ++i) {
    if (scale > 1) {
      const double a = i * scale;
      const double b = a + scale;
      const int f = int(std::floor(a));
      const int last = std::min(src - 1, int(std::ceil(b)) - 1);
      for (int j = f; j <= last; ++j) w[i].push_back((std::min(b, double(j + 1)) - std::max(a, double(j))) / scale);
      first[i] = f;
    } else {
      const double x = std::min(double(src - 1), std::max(0.0, (i + 0.5) * scale - 0.5));
      const int f = std::min(src - 1, int(std::floor(x)));
      const double frac = x - f;
      first[i] = f;
      if (f + 1 < src) w[i] = {1 - frac, frac};
      else w[i] = {1};
    }
  }
  Taps t;
  for (const auto& ws : w) t.count = std::max(t.count, int(ws.size()));
  t.start.resize(dst);
  t.weights.assign(size_t(dst) * t.count, 0.0f);
  for (int i = 0; i < dst; ++i) {
    const int s = std::min(first[i], src - t.count);
    t.start[i] = s;
    for (size_t k = 0; k < w[i].size(); ++k) t.weights[size_t(i) * t.count + (first[i] - s) + k] = float(w[i][k]);
  }
  return t;
}

inline int mirror(int i, int n) { return n == 1 ? 0 : i < 0 ? 1 : i >= n ? n - 2 : i; }

}  // namespace

void resample_gray(const GrayView& src, int width, int height, uint8_t* out) {
  const Taps tx = make_taps(src.width, width);
  const Taps ty = make_taps(src.height, height);
  std::vector<float> rows(size_t(width) * src.height);
  for (int y = 0; y < src.height; ++y) {
    const uint8_t* row = src.data + size_t(y) * src.width;
    float* dst = rows.data() + size_t(y) * width;
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = row + tx.start[x];
      const float* w = tx.weights.data() + size_t(x) * tx.count;
      double s = 0;
      for (int k = 0; k < tx.count; ++k) s += double(w[k]) * double(p[k]);
      dst[x] = float(s);
    }
  }
  std::vector<double> acc(width);
  for (int y = 0; y < height; ++y) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int k = 0; k < ty.count; ++k) {
      const double w = ty.weights[size_t(y) * ty.count + k];
      const float* r = rows.data() + size_t(ty.start[y] + k) * width;
      for (int x = 0; x < width; ++x) acc[x] += w * double(r[x]);
    }
    uint8_t* o = out + size_t(y) * width;
    for (int x = 0; x < width; ++x) o[x] = round_pixel(acc[x]);
  }
}

void blur3_gray(const GrayView& src, double centre, double side, uint8_t* out) {
  const int W = src.width, H = src.height;
  std::vector<float> rows(size_t(W) * H);
  auto blurred = [&](const uint8_t* s, int x, int l, int r) { return float(centre * double(s[x]) + side * double(int(s[l]) + int(s[r]))); };
  for (int y = 0; y < H; ++y) {
    const uint8_t* s = src.data + size_t(y) * W;
    float* r = rows.data() + size_t(y) * W;
    r[0] = blurred(s, 0, mirror(-1, W), mirror(1, W));
    for (int x = 1; x < W - 1; ++x) r[x] = float(centre * double(s[x]) + side * double(int(s[x - 1]) + int(s[x + 1])));
    if (W > 1) r[W - 1] = blurred(s, W - 1, mirror(W - 2, W), mirror(W, W));
  }
  for (int y = 0; y < H; ++y) {
    const float* r = rows.data() + size_t(y) * W;
    const float* up = rows.data() + size_t(mirror(y - 1, H)) * W;
    const float* down = rows.data() + size_t(mirror(y + 1, H)) * W;
    uint8_t* o = out + size_t(y) * W;
    for (int x = 0; x < W; ++x) o[x] = round_pixel(centre * double(r[x]) + side * (double(up[x]) + double(down[x])));
  }
}

namespace {

// The page's grey value at (x, y) (pixel centres at integers), paper white outside it.
inline uint8_t bilinear(const GrayView& page, double x, double y) {
  const int64_t W = page.width, H = page.height;
  // Far outside the page is white, whatever a wild rectangle asks for (and floor_int's range holds).
  if (x < -2 || y < -2 || x >= double(W + 2) || y >= double(H + 2)) return 255;
  const int64_t x0 = floor_int(x), y0 = floor_int(y);
  const double fx = x - double(x0), fy = y - double(y0);
  const uint8_t* d = page.data;
  if (x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H) {
    const int64_t i = y0 * W + x0;
    const double top = double(d[i]) + double(int(d[i + 1]) - int(d[i])) * fx;
    const double bottom = double(d[i + W]) + double(int(d[i + W + 1]) - int(d[i + W])) * fx;
    return round_pixel(top + (bottom - top) * fy);
  }
  auto at = [&](int64_t xx, int64_t yy) -> double { return xx < 0 || yy < 0 || xx >= W || yy >= H ? 255.0 : double(d[yy * W + xx]); };
  const double top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
  const double bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
  return round_pixel(top * (1 - fy) + bottom * fy);
}

}  // namespace

void sample_rect_gray(const GrayView& page, const SampledRect& rect, int width, int height, uint8_t* out) {
  for (int j = 0; j < height; ++j) {
    const double t = ((j + 0.5) / height - 0.5) * rect.box_height;
    for (int i = 0; i < width; ++i) {
      const double s = ((i + 0.5) / width - 0.5) * rect.box_width;
      out[size_t(j) * width + i] = bilinear(page, rect.cx + s * rect.ux - t * rect.uy - 0.5, rect.cy + s * rect.uy + t * rect.ux - 0.5);
    }
  }
}

}  // namespace saccade
