# CUDA backend (src/backend/cuda): compiled into saccade_engine whenever nvcc is found, unless
# -DSACCADE_CUDA=OFF or SACCADE_NO_CUDA=1 in the environment. Whether a device exists is decided at run time
# (src/backend/backend.cc), so a build made here runs on machines without a driver.
option(SACCADE_CUDA "Build the CUDA backend when nvcc is found" ON)
# "90" = sm_90 machine code (H100/H200) plus compute_90 PTX that newer GPUs JIT-compile.
set(SACCADE_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures, CMake syntax")

if(NOT SACCADE_CUDA OR "$ENV{SACCADE_NO_CUDA}" STREQUAL "1")
  message(STATUS "saccade: CUDA backend disabled")
  return()
endif()
if(CMAKE_VERSION VERSION_LESS 3.18)
  message(STATUS "saccade: CMake ${CMAKE_VERSION} is too old for the CUDA backend (needs 3.18); CPU only")
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "saccade: nvcc not found; CPU backend only")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES ${SACCADE_CUDA_ARCHITECTURES})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "saccade: CUDA backend on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")

target_sources(saccade_engine PRIVATE
  src/backend/cuda/cuda_backend.cc
  src/backend/cuda/host_tables.cc
  src/backend/cuda/cublas_gemm.cc
  src/backend/cuda/gemm.cu
  src/backend/cuda/attention.cu
  src/backend/cuda/elementwise.cu
)
# The directory's warning and FP options are GCC flags that nvcc rejects: keep them for C++ only. nvcc gets
# --fmad=false for the same reason the C++ code gets -ffp-contract=off (kernels ask for FMA explicitly).
get_target_property(_saccade_opts saccade_engine COMPILE_OPTIONS)
if(_saccade_opts)
  set(_saccade_cxx_opts "")
  foreach(_o IN LISTS _saccade_opts)
    list(APPEND _saccade_cxx_opts "$<$<COMPILE_LANGUAGE:CXX>:${_o}>")
  endforeach()
  set_target_properties(saccade_engine PROPERTIES COMPILE_OPTIONS "${_saccade_cxx_opts}")
endif()
target_compile_options(saccade_engine PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -Xcompiler=-Wall,-Wextra>)
# The target existed before CUDA was enabled, so it did not pick up CMAKE_CUDA_ARCHITECTURES by itself.
set_target_properties(saccade_engine PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
  CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
# The static runtime needs no CUDA libraries at run time beyond the driver; cuBLAS is opened with dlopen.
target_link_libraries(saccade_engine PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})
target_compile_definitions(saccade_engine PUBLIC SACCADE_HAVE_CUDA)

# GPU check binaries (scripts/gpu-check.sh): parity against the CPU backend, and the benchmark. Both exit 77
# (ctest: skipped) when no device is present, so CI without a GPU stays green.
add_library(saccade_gpu_check STATIC test/cuda/golden_regions.cc test/cuda/greedy_drivers.cc test/cuda/report.cc)
target_link_libraries(saccade_gpu_check PUBLIC saccade_engine)
add_executable(saccade_cuda_parity test/cuda/cuda_parity.cc)
target_link_libraries(saccade_cuda_parity PRIVATE saccade_gpu_check)
add_executable(saccade_cuda_bench test/cuda/cuda_bench.cc)
target_link_libraries(saccade_cuda_bench PRIVATE saccade_gpu_check)
foreach(_t saccade_gpu_check saccade_cuda_parity saccade_cuda_bench)
  target_compile_definitions(${_t} PRIVATE SACCADE_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
endforeach()
add_test(NAME saccade_cuda_parity COMMAND saccade_cuda_parity --ops-only)
set_tests_properties(saccade_cuda_parity PROPERTIES SKIP_RETURN_CODE 77)
