#pragma once
#include <vector>

#include "backend/backend.h"
#include "model/image_preprocess.h"
#include "model/line_encoder.h"
#include "model/model.h"

namespace saccade {

// Vision encoder + merger: returns device rows [rows * cols, text hidden], row-major over the merged grid.
// A line model fills `reading` with what its encoder read (line_encoder.h); otherwise it is left empty.
Buffer encode_image(Model& m, const PreparedImage& im, LineReading* reading = nullptr);

// The vision encoder output before the merger ([patches, vision hidden]), for parity tests.
Buffer vision_encoder(Model& m, const PreparedImage& im);

}  // namespace saccade
