#include "backend/cuda/host_tables.h"

#include <cstring>

#include "backend/cuda/check.h"

namespace saccade::cuda {

HostTables::~HostTables() {
  // Destructors must not throw; a failing free at shutdown has nothing left to corrupt.
  if (host_) cudaFreeHost(host_);
  if (dev_) cudaFree(dev_);
}

void HostTables::reserve(size_t bytes) {
  bytes = padded(bytes);
  if (used_ + bytes > cap_) {
    check(cudaStreamSynchronize(stream_), "staging ring wait");
    used_ = 0;
    if (bytes > cap_) {
      size_t cap = bytes > 2 * cap_ ? bytes : 2 * cap_;
      if (cap < kMinCapacity) cap = kMinCapacity;
      if (host_) check(cudaFreeHost(host_), "cudaFreeHost");
      if (dev_) check(cudaFree(dev_), "cudaFree");
      host_ = nullptr;
      dev_ = nullptr;
      cap_ = 0;
      check(cudaMallocHost(reinterpret_cast<void**>(&host_), cap), "cudaMallocHost");
      check(cudaMalloc(reinterpret_cast<void**>(&dev_), cap), "cudaMalloc");
      cap_ = cap;
    }
  }
  reserved_end_ = used_ + bytes;
}

void* HostTables::take(size_t bytes) {
  const size_t need = padded(bytes);
  if (used_ + need > reserved_end_) throw EngineError("cuda: staging table outside its reservation");
  void* p = dev_ + used_;
  used_ += need;
  return p;
}

const void* HostTables::put_bytes(const void* host, size_t bytes) {
  const size_t at = used_;
  void* dev = take(bytes);
  if (bytes == 0) return dev;
  std::memcpy(host_ + at, host, bytes);
  check(cudaMemcpyAsync(dev, host_ + at, bytes, cudaMemcpyHostToDevice, stream_), "table upload");
  return dev;
}

}  // namespace saccade::cuda
