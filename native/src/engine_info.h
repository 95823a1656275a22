#pragma once
// What this build and this machine offer (EngineInfo in common/engine-types.ts).
#include <string>
#include <utility>
#include <vector>

namespace saccade {

struct EngineInfo {
  std::string version;
  std::vector<std::string> backends;
  std::string backend;  // the always-available backend; a loaded model's info() names the one it runs on
  std::vector<std::pair<std::string, bool>> cpu_features;
  std::string cpu_kernels;  // ISA the CPU backend picked
  std::vector<std::string> cpu_kernel_sets;  // every kernel set this CPU can run (SACCADE_CPU_KERNELS names one)
  int threads;
};

EngineInfo engine_info();

}  // namespace saccade
