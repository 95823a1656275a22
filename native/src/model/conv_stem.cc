#include "model/conv_stem.h"

namespace saccade {

std::vector<float> conv3x3_as_linear(const std::vector<float>& w, int out, int in) {
  std::vector<float> r(w.size());
  for (int o = 0; o < out; ++o)
    for (int c = 0; c < in; ++c)
      for (int tap = 0; tap < 9; ++tap)
        r[(size_t(o) * 9 + tap) * in + c] = w[(size_t(o) * in + c) * 9 + tap];
  return r;
}

std::vector<float> image_from_patches(const PreparedImage& im, int P, int C) {
  const int W = im.patch_cols * P, H = im.patch_rows * P;
  std::vector<float> img(size_t(H) * W * C);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        const size_t patch = size_t(y / P) * im.patch_cols + x / P;
        img[(size_t(y) * W + x) * C + c] = im.patches[(patch * C + c) * P * P + size_t(y % P) * P + x % P];
      }
  return img;
}

Buffer conv_stem(Model& m, const PreparedImage& im) {
  Backend& be = *m.backend;
  const VisionConfig& v = m.cfg.vision;
  int H = im.patch_rows * v.patch_size, W = im.patch_cols * v.patch_size;
  const std::vector<float> img = image_from_patches(im, v.patch_size, v.in_channels);
  Buffer x(&be, img.size());
  be.upload(x.data(), img.data(), img.size());
  for (const StemConv& conv : m.stem) {
    H /= 2;
    W /= 2;
    Buffer y(&be, size_t(H) * W * conv.out);
    be.conv(x.data(), 2 * H, 2 * W, conv.in, 3, 3, 2, 2, conv.w, conv.b.data(), false, y.data());
    be.gelu(y.data(), y.size());
    x = std::move(y);
  }
  return x;
}

}  // namespace saccade
