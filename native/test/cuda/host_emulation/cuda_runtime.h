#pragma once
// Host emulation of the part of CUDA the engine's CUDA backend uses, so its kernels and its host code run
// (slowly) on a machine without a GPU. Kernels run block by block; each thread of a block is a fiber that
// runs until it reaches __syncthreads() or a warp shuffle, so a missing barrier, a barrier not reached by
// every thread, or a wrong reduction tree shows up here as a wrong result or a reported deadlock. Used by the host-emulated build (SACCADE_CUDA_HOST_EMULATION, cmake/cuda.cmake);
// translate.py rewrites `kernel<<<grid, block, shared, stream>>>(args)` into emu::launch calls.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>

#define CUDART_VERSION 13000
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// One block runs at a time, so a function-local static is exactly the running block's shared memory.
#define __shared__ static

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 {
  unsigned x, y, z;
};

struct EmuStream;

namespace emu {
struct ThreadState {
  uint3 thread, block;
  dim3 block_dim, grid_dim;
};
extern ThreadState* self;  // the running fiber's
// Runs body once per thread of every block, block after block; returns when all are done (every emulated
// stream is synchronous).
void launch(dim3 grid, dim3 block, size_t shared_bytes, ::EmuStream* stream, const std::function<void()>& body);
float* dynamic_shared();
void sync_block();
float shfl_xor(float v, int lane_mask);
}  // namespace emu

#define threadIdx (emu::self->thread)
#define blockIdx (emu::self->block)
#define blockDim (emu::self->block_dim)
#define gridDim (emu::self->grid_dim)
inline void __syncthreads() { emu::sync_block(); }
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) { return emu::shfl_xor(v, lane_mask); }

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};
enum cudaDeviceAttr {
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMemoryPoolsSupported = 115,
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
using cudaStream_t = struct EmuStream*;
using cudaMemPool_t = struct EmuPool*;
constexpr unsigned cudaStreamNonBlocking = 1;

struct cudaDeviceProp {
  char name[256];
  int major, minor;
};

const char* cudaGetErrorString(cudaError_t e);
cudaError_t cudaGetLastError();
cudaError_t cudaGetDeviceCount(int* n);
cudaError_t cudaDriverGetVersion(int* v);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device);
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t s);
cudaError_t cudaFreeAsync(void* p, cudaStream_t s);
cudaError_t cudaMalloc(void** p, size_t bytes);
cudaError_t cudaFree(void* p);
cudaError_t cudaMallocHost(void** p, size_t bytes);
cudaError_t cudaFreeHost(void* p);
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t s);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s);
template <class F>
cudaError_t cudaFuncSetAttribute(F*, cudaFuncAttribute, int) {
  return cudaSuccess;
}
