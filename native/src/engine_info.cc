#include "engine_info.h"

#include <algorithm>
#include <thread>

#include "backend/backend.h"
#include "backend/cpu/kernels.h"
#include "util/cpu_features.h"

namespace saccade {

EngineInfo engine_info() {
  EngineInfo i;
  i.version = "0.1.0";
  i.backends = compiled_backends();
  i.backend = "cpu";
  const CpuFeatures& f = cpu_features();
  i.cpu_features = {{"avx2", f.avx2}, {"fma", f.fma}, {"f16c", f.f16c}, {"avx512f", f.avx512f}, {"avx512bf16", f.avx512bf16}};
  i.cpu_kernels = cpu::best_kernels().isa;
  for (const cpu::Kernels* k : cpu::runnable_kernels()) i.cpu_kernel_sets.push_back(k->isa);
  i.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  return i;
}

}  // namespace saccade
