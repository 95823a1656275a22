#pragma once
// The vision encoder's convolutional stem (format 3, docs/model-format.md): stride-2 3x3 convolutions, each
// followed by GELU, from the resized image to one feature vector per patch.
#include <vector>

#include "backend/backend.h"
#include "model/image_preprocess.h"
#include "model/model.h"

namespace saccade {

// torch's convolution weight [out, in, 3, 3] with its columns in Backend::im2col's (ky, kx, c) order.
std::vector<float> conv3x3_as_linear(const std::vector<float>& w, int out, int in);

// The image [H, W, C] that the contract's patch vectors (channel-major inside a patch) were cut from.
std::vector<float> image_from_patches(const PreparedImage& im, int patch_size, int channels);

// Device rows [patch_rows * patch_cols, stem.back().out], row-major over the patch grid.
Buffer conv_stem(Model& m, const PreparedImage& im);

}  // namespace saccade
