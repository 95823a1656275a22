#pragma once
#include "backend/backend.h"
#include "model/image_preprocess.h"
#include "model/model.h"

namespace saccade {

// Vision encoder + merger: returns device rows [rows * cols, text hidden], row-major over the merged grid.
Buffer encode_image(Model& m, const PreparedImage& im);

// The vision encoder output before the merger ([patches, vision hidden]), for parity tests.
Buffer vision_encoder(Model& m, const PreparedImage& im);

}  // namespace saccade
