#include "model/glm_ocr/prompt.h"

#include <algorithm>

#include "model/glm_ocr/image_processor.h"
#include "model/glm_ocr/vision.h"
#include "model/model.h"
#include "util/error.h"

namespace saccade::glm_ocr {

std::vector<int> prompt_ids(const Model& m, const std::string& kind, int image_tokens) {
  const PromptIds& p = m.glm->prompt;
  const auto after = p.after_image.find(kind);
  if (after == p.after_image.end()) throw EngineError("unknown region kind '" + kind + "' (text, table or formula)");
  std::vector<int> ids = p.before_image;
  ids.insert(ids.end(), size_t(image_tokens), m.cfg.image_token_id);
  ids.insert(ids.end(), after->second.begin(), after->second.end());
  return ids;
}

std::vector<Pos3> rope_index(const std::vector<int>& ids, int image_token_id, int rows, int cols) {
  std::vector<Pos3> pos;
  int p = 0;
  for (size_t i = 0; i < ids.size();) {
    if (ids[i] != image_token_id) {
      pos.push_back({p, p, p});
      ++p, ++i;
      continue;
    }
    for (int k = 0; k < rows * cols; ++k, ++i) {
      if (i >= ids.size() || ids[i] != image_token_id)
        throw EngineError("prompt: the image's run has fewer tokens than its grid");
      pos.push_back({p, p + k / cols, p + k % cols});
    }
    p += std::max(rows, cols);
  }
  return pos;
}

RegionPrompt region_prompt(Model& m, const std::string& kind, const uint8_t* pixels, int w, int h, int channels) {
  if (channels != 1 && channels != 3) throw EngineError("a GLM-OCR region has 1 (grey) or 3 (RGB) channels");
  std::vector<uint8_t> rgb;
  if (channels == 1) {  // as Pillow's convert("RGB") of a grey image
    rgb.resize(size_t(w) * h * 3);
    for (size_t i = 0; i < size_t(w) * h; ++i) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = pixels[i];
    pixels = rgb.data();
  }
  const int merge = m.glm->cfg.vision.merge_size;
  const ProcessedImage im = process_image(m.glm->cfg.processor, pixels, w, h);
  RegionPrompt r;
  r.rows = im.grid_h / merge;
  r.cols = im.grid_w / merge;
  std::vector<int> ids = prompt_ids(m, kind, r.rows * r.cols);
  std::vector<Pos3> pos = rope_index(ids, m.cfg.image_token_id, r.rows, r.cols);
  r.image_embeds = encode_image(m, im);
  r.img_begin = int(m.glm->prompt.before_image.size());
  // The prompt ends in text ("\n"), so the rows after it count up from its position on every axis.
  r.pending = ids.back();
  r.next_pos = pos.back().t;
  ids.pop_back();
  pos.pop_back();
  r.tokens = std::move(ids);
  r.pos = std::move(pos);
  return r;
}

}  // namespace saccade::glm_ocr
