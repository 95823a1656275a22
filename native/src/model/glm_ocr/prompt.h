#pragma once
// A region's GLM-OCR prompt (docs/glm-ocr.md 5 and 7.3): the chat template's ids with one <|image|> per merged
// token, and the 3-D positions get_rope_index gives them.
#include <cstdint>
#include <string>
#include <vector>

#include "model/region_prompt.h"

namespace saccade {
struct Model;
}

namespace saccade::glm_ocr {

// The prompt's ids for an image of rows x cols merged tokens.
std::vector<int> prompt_ids(const Model& m, const std::string& kind, int image_tokens);

// get_rope_index for one image: a text row at (p, p, p), then p += 1; the image's token k = r * cols + c at
// (p, p + r, p + c), then p += max(rows, cols).
std::vector<Pos3> rope_index(const std::vector<int>& ids, int image_token_id, int rows, int cols);

// Preprocesses and encodes the crop (pixels [h, w, channels], grey or RGB) and lays out the prompt.
RegionPrompt region_prompt(Model& m, const std::string& kind, const uint8_t* pixels, int w, int h, int channels);

}  // namespace saccade::glm_ocr
