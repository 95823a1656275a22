#pragma once
// GLM-OCR's vision tower (GlmOcrVisionModel, docs/glm-ocr.md 7.1): patch embedding, blocks with 2-D rotary
// q/k-normed attention, post-layernorm, the 2 x 2 downsample and the patch merger.
#include <vector>

#include "backend/backend.h"
#include "model/glm_ocr/image_processor.h"

namespace saccade {
struct Model;
}

namespace saccade::glm_ocr {

// Host copies of the tower's intermediate outputs, for parity tests.
struct VisionStages {
  std::vector<float> patch_embeds;    // [patches, vision hidden]
  std::vector<float> post_layernorm;  // [patches, vision hidden]
  std::vector<float> downsample;      // [merged tokens, text hidden]
};

// The image's merged tokens [grid_h * grid_w / m^2, text hidden] in merged-grid raster order: the rows that
// replace the prompt's <|image|> ids.
Buffer encode_image(Model& m, const ProcessedImage& im, VisionStages* stages = nullptr);

}  // namespace saccade::glm_ocr
