#pragma once
// CUDA runtime errors become EngineError, so a failing device call surfaces like any other engine error.
#include <cuda_runtime.h>

#include <string>

#include "util/error.h"

namespace saccade::cuda {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw EngineError(std::string("cuda: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace saccade::cuda
