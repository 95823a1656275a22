#pragma once
#include <stdexcept>
#include <string>

namespace saccade {

// The one exception type the engine throws for bad input (checkpoint, options, images). The binding turns it
// into a Promise rejection with this message.
struct EngineError : std::runtime_error {
  explicit EngineError(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace saccade
