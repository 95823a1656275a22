#pragma once
// Loads a GLM-OCR folder as published (docs/glm-ocr.md section 1) into the engine's Model: the vision tower
// into Model::glm, the text decoder and its MTP layer into Model's own decoder fields.
#include <memory>
#include <string>

#include "model/model.h"

namespace saccade::glm_ocr {

// config_json: dir/config.json's text, already read by load_model to tell the architecture.
std::unique_ptr<Model> load(const std::string& dir, const std::string& config_json, const LoadOptions& opts);

}  // namespace saccade::glm_ocr
