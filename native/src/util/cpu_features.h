#pragma once
// CPU feature detection, done once at run time; kernels are picked from it (backend/cpu/cpu_backend.cc).
namespace saccade {

struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false, avx512f = false, avx512bf16 = false, amx_bf16 = false;
  // Byte products summed into int32 lanes (VPDPBUSD): 256-bit AVX-VNNI, 512-bit AVX-512 VNNI (with AVX-512BW).
  bool avx_vnni = false, avx512vnni = false;
};

const CpuFeatures& cpu_features();

}  // namespace saccade
