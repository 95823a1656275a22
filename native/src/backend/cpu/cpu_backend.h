#pragma once
#include <memory>

#include "backend/backend.h"

namespace saccade {

std::unique_ptr<Backend> make_cpu_backend(int threads, bool reduced_precision);

}  // namespace saccade
