// The vision stem on the backend against a direct convolution over the image the patches were cut from.
#include <cmath>
#include <random>

#include "model/conv_stem.h"
#include "test.h"

using namespace saccade;

namespace {

std::vector<float> randv(size_t n, std::mt19937_64& r) {
  std::normal_distribution<float> nd;
  std::vector<float> v(n);
  for (float& x : v) x = nd(r);
  return v;
}

double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

}  // namespace

TEST(conv_stem_matches_direct_convolution_over_the_image) {
  std::mt19937_64 rng(7);
  const int P = 4, C = 2, rows = 2, cols = 3, H = rows * P, W = cols * P;
  Model m;
  m.backend = create_backend({"cpu", 2});
  m.cfg.vision.patch_size = P;
  m.cfg.vision.in_channels = C;
  PreparedImage im;
  im.patch_rows = rows;
  im.patch_cols = cols;
  im.patches = randv(size_t(rows) * cols * C * P * P, rng);
  // The image, read back from the contract's patch layout: channel-major, then row-major pixels.
  std::vector<double> x(size_t(C) * H * W);
  for (int c = 0; c < C; ++c)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < W; ++xx)
        x[(size_t(c) * H + y) * W + xx] =
            im.patches[((size_t(y / P) * cols + xx / P) * C + c) * P * P + size_t(y % P) * P + xx % P];

  int in = C, h = H, w = W;
  for (int out : {3, 5}) {
    const std::vector<float> wt = randv(size_t(out) * in * 9, rng), b = randv(size_t(out), rng);
    StemConv conv;
    conv.in = in;
    conv.out = out;
    conv.w = m.backend->upload_weight(conv3x3_as_linear(wt, out, in), out, 9 * in, WeightUse::Linear);
    conv.b = Buffer(m.backend.get(), b.size());
    m.backend->upload(conv.b.data(), b.data(), b.size());
    m.stem.push_back(std::move(conv));
    std::vector<double> y(size_t(out) * (h / 2) * (w / 2));
    for (int o = 0; o < out; ++o)
      for (int oy = 0; oy < h / 2; ++oy)
        for (int ox = 0; ox < w / 2; ++ox) {
          double s = b[size_t(o)];
          for (int c = 0; c < in; ++c)
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) {
                const int iy = 2 * oy + ky - 1, ix = 2 * ox + kx - 1;
                if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                  s += wt[((size_t(o) * in + c) * 3 + ky) * 3 + kx] * x[(size_t(c) * h + iy) * w + ix];
              }
          y[(size_t(o) * (h / 2) + oy) * (w / 2) + ox] = gelu(s);
        }
    x = std::move(y);
    in = out;
    h /= 2;
    w /= 2;
  }
  CHECK(h == rows && w == cols);
  Buffer got = conv_stem(m, im);
  std::vector<float> host(size_t(rows) * cols * in);
  m.backend->download(host.data(), got.data(), host.size());
  for (int p = 0; p < rows * cols; ++p)
    for (int c = 0; c < in; ++c)
      CHECK_MSG(std::fabs(host[size_t(p) * in + c] - x[size_t(c) * rows * cols + p]) < 1e-4,
                "patch " << p << " channel " << c);
}
