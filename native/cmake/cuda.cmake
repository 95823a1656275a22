# CUDA backend (src/backend/cuda): compiled into saccade_engine whenever nvcc is found, unless
# -DSACCADE_CUDA=OFF or SACCADE_NO_CUDA=1 in the environment. Whether a device exists is decided at run time
# (src/backend/backend.cc), so a build made here runs on machines without a driver.
#
# -DSACCADE_CUDA_HOST_EMULATION=ON builds the same backend against a host emulation of CUDA instead
# (test/cuda/host_emulation): no nvcc, no GPU, kernels run as threads on the CPU. It exists to test the
# backend's logic where no GPU is available; speed and device limits still need a real GPU.
option(SACCADE_CUDA "Build the CUDA backend when nvcc is found" ON)
option(SACCADE_CUDA_HOST_EMULATION "Build the CUDA backend against the host emulation of CUDA" OFF)
# "90" = sm_90 machine code (H100/H200) plus compute_90 PTX that newer GPUs JIT-compile.
set(SACCADE_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures, CMake syntax")

set(_saccade_cuda_host_sources
  src/backend/cuda/cuda_backend.cc
  src/backend/cuda/host_tables.cc
  src/backend/cuda/cublas_gemm.cc)
set(_saccade_cuda_kernels gemm attention elementwise line_ops convnet_ops)
set(_saccade_cuda_mode "")

if(SACCADE_CUDA_HOST_EMULATION)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(_emu ${CMAKE_CURRENT_SOURCE_DIR}/test/cuda/host_emulation)
  set(_emu_sources "")
  foreach(_k IN LISTS _saccade_cuda_kernels)
    set(_in ${CMAKE_CURRENT_SOURCE_DIR}/src/backend/cuda/${_k}.cu)
    set(_out ${CMAKE_CURRENT_BINARY_DIR}/cuda_host_emulation/${_k}.cc)
    add_custom_command(OUTPUT ${_out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/cuda_host_emulation
      COMMAND Python3::Interpreter ${_emu}/translate.py ${_in} ${_out}
      DEPENDS ${_in} ${_emu}/translate.py VERBATIM)
    list(APPEND _emu_sources ${_out})
    set_source_files_properties(${_out} PROPERTIES COMPILE_OPTIONS "-Wno-unknown-pragmas")  # #pragma unroll
  endforeach()
  target_sources(saccade_engine PRIVATE ${_saccade_cuda_host_sources} ${_emu_sources} ${_emu}/emulation.cc)
  target_include_directories(saccade_engine BEFORE PRIVATE ${_emu})
  target_link_libraries(saccade_engine PUBLIC ${CMAKE_DL_LIBS})
  set(_saccade_cuda_mode "host emulation")
elseif(SACCADE_CUDA AND NOT "$ENV{SACCADE_NO_CUDA}" STREQUAL "1" AND NOT CMAKE_VERSION VERSION_LESS 3.18)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${SACCADE_CUDA_ARCHITECTURES})
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(_kernel_sources "")
    foreach(_k IN LISTS _saccade_cuda_kernels)
      list(APPEND _kernel_sources src/backend/cuda/${_k}.cu)
    endforeach()
    target_sources(saccade_engine PRIVATE ${_saccade_cuda_host_sources} ${_kernel_sources})
    # The directory's warning and FP options are GCC flags that nvcc rejects: keep them for C++ only. nvcc
    # gets --fmad=false for the reason C++ gets -ffp-contract=off (kernels ask for FMA explicitly).
    get_target_property(_opts saccade_engine COMPILE_OPTIONS)
    if(_opts)
      set(_cxx_opts "")
      foreach(_o IN LISTS _opts)
        list(APPEND _cxx_opts "$<$<COMPILE_LANGUAGE:CXX>:${_o}>")
      endforeach()
      set_target_properties(saccade_engine PROPERTIES COMPILE_OPTIONS "${_cxx_opts}")
    endif()
    target_compile_options(saccade_engine PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -Xcompiler=-Wall,-Wextra>)
    # The target existed before CUDA was enabled, so it did not pick up CMAKE_CUDA_ARCHITECTURES by itself.
    set_target_properties(saccade_engine PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
      CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
    # The static runtime needs nothing at run time beyond the driver; cuBLAS is opened with dlopen.
    target_link_libraries(saccade_engine PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})
    set(_saccade_cuda_mode "nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    message(STATUS "saccade: nvcc not found; CPU backend only")
  endif()
else()
  message(STATUS "saccade: CUDA backend disabled (SACCADE_CUDA, SACCADE_NO_CUDA or CMake < 3.18)")
endif()

if(_saccade_cuda_mode)
  message(STATUS "saccade: CUDA backend on (${_saccade_cuda_mode})")
  target_compile_definitions(saccade_engine PUBLIC SACCADE_HAVE_CUDA)

  # GPU check binaries (scripts/gpu-check.sh): parity against the CPU backend, and the benchmark. Both exit
  # 77 (ctest: skipped) when no device is present, so CI without a GPU stays green.
  add_library(saccade_gpu_check STATIC test/cuda/report.cc test/cuda/golden_regions.cc test/cuda/model_runs.cc
    test/cuda/op_parity.cc test/tiny_checkpoint.cc)
  target_include_directories(saccade_gpu_check PUBLIC test)
  target_link_libraries(saccade_gpu_check PUBLIC saccade_engine)
  target_compile_definitions(saccade_gpu_check PUBLIC SACCADE_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  add_executable(saccade_cuda_parity test/cuda/cuda_parity.cc)
  target_link_libraries(saccade_cuda_parity PRIVATE saccade_gpu_check)
  add_executable(saccade_cuda_bench test/cuda/cuda_bench.cc)
  target_link_libraries(saccade_cuda_bench PRIVATE saccade_gpu_check)
  add_test(NAME saccade_cuda_parity COMMAND saccade_cuda_parity --ops-only)
  set_tests_properties(saccade_cuda_parity PROPERTIES SKIP_RETURN_CODE 77)
endif()
