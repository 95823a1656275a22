#pragma once
// The page pipeline's pixel work on 8-bit grey images (main/node/pipeline: resample.ts, page-frame.ts): every
// line of every page is cut out of its page, resampled for the detector and for each of the reader's views,
// and softened. Each function's arithmetic is the one its TypeScript caller documents, in doubles where that
// says doubles and floats where it says floats, so that a page reads the same on every machine.
#include <cstdint>

namespace saccade {

struct GrayView {
  int width = 0, height = 0;
  const uint8_t* data = nullptr;
};

// Resamples to width x height into `out`: area weights when shrinking, bilinear with half-pixel centres when
// enlarging, separable (x, then y through float rows).
void resample_gray(const GrayView& src, int width, int height, uint8_t* out);

// A 3x3 separable blur with the weights `centre` and `side` (centre + 2 side = 1, neither negative), borders mirrored without
// repeating the edge pixel, into `out` (src's size).
void blur3_gray(const GrayView& src, double centre, double side, uint8_t* out);

// The rectangle of `page` centred at (cx, cy), box_width along the unit direction (ux, uy), box_height across
// it, sampled bilinearly at width x height into `out`; paper white (255) outside the page.
struct SampledRect {
  double cx = 0, cy = 0, box_width = 0, box_height = 0, ux = 1, uy = 0;
};
void sample_rect_gray(const GrayView& page, const SampledRect& rect, int width, int height, uint8_t* out);

}  // namespace saccade
