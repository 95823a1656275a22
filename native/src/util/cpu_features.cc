#include "util/cpu_features.h"

namespace saccade {

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures r;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    r.avx2 = __builtin_cpu_supports("avx2");
    r.fma = __builtin_cpu_supports("fma");
    r.f16c = __builtin_cpu_supports("f16c");
    r.avx512f = __builtin_cpu_supports("avx512f");
    r.avx512bf16 = __builtin_cpu_supports("avx512bf16");
    r.avx_vnni = __builtin_cpu_supports("avxvnni");
    r.avx512vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
    r.amx_bf16 = __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16");
#endif
    return r;
  }();
  return f;
}

}  // namespace saccade
