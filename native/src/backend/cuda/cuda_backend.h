#pragma once
#include <memory>
#include <string>

#include "backend/backend.h"

namespace saccade {

// The CUDA backend on the first visible device, or nullptr with *why_not set when there is no usable driver
// or device (the caller then falls back to the CPU backend).
std::unique_ptr<Backend> make_cuda_backend(std::string* why_not);

}  // namespace saccade
