#pragma once
// GLM-OCR's image processor (transformers' Glm46VImageProcessorPil, docs/glm-ocr.md section 4): an 8-bit RGB
// crop to the patch rows the vision tower reads, with Python's and Pillow's arithmetic so that the pixel
// values equal the reference's.
#include <cstdint>
#include <vector>

namespace saccade::glm_ocr {

struct ProcessorConfig {
  // preprocessor_config.json's size.shortest_edge / longest_edge: pixels counted over both frames, not edges.
  int64_t min_pixels = 0, max_pixels = 0;
  int patch_size = 0, temporal_patch_size = 0, merge_size = 0;
  double rescale_factor = 0;
  float mean[3] = {}, std[3] = {};
  int factor() const { return patch_size * merge_size; }
  int patch_values() const { return 3 * temporal_patch_size * patch_size * patch_size; }
};

// smart_resize: the size the crop is resized to, multiples of factor() within the pixel budget. Throws
// EngineError for an aspect ratio above 200, as the reference does.
void smart_resize(const ProcessorConfig& c, int height, int width, int* out_height, int* out_width);

// Pillow's Image.resize((W, H), BICUBIC) of rgb [h, w, 3]: separable fixed-point passes, horizontal first.
std::vector<uint8_t> resize_bicubic(const uint8_t* rgb, int w, int h, int W, int H);

struct ProcessedImage {
  int height = 0, width = 0;   // after the resize
  int grid_h = 0, grid_w = 0;  // patches; image_grid_thw is (1, grid_h, grid_w)
  // [grid_h * grid_w, patch_values()]: patches ordered by merge block, then row and column inside the block;
  // each row (channel, frame, y, x), the still image repeated as its own second frame.
  std::vector<float> pixel_values;
};

ProcessedImage process_image(const ProcessorConfig& c, const uint8_t* rgb, int w, int h);

}  // namespace saccade::glm_ocr
