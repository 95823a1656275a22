#pragma once
// Small per-call host tables (token ids, rotary rows, key limits, fixation selections) reach the device
// through one pinned staging ring, and small per-call device scratch comes from the same ring. Copying into
// pinned memory keeps every upload asynchronous; a copy from pageable memory may wait for the stream.
//
// Lifetime: everything handed out stays valid until the stream next drains (reset()), which the backend
// does at each download. An op first calls reserve() with its total need, so its tables never wrap onto
// each other.
#include <cuda_runtime.h>

#include <cstddef>

namespace saccade::cuda {

class HostTables {
 public:
  explicit HostTables(cudaStream_t stream) : stream_(stream) {}
  ~HostTables();
  HostTables(const HostTables&) = delete;
  HostTables& operator=(const HostTables&) = delete;

  // Room for `bytes` of puts and scratch (each rounded up to kAlign); waits for the stream when full.
  void reserve(size_t bytes);
  template <class T>
  const T* put(const T* host, size_t n) {
    return static_cast<const T*>(put_bytes(host, n * sizeof(T)));
  }
  template <class T>
  T* scratch(size_t n) {
    return static_cast<T*>(take(n * sizeof(T)));
  }
  // The stream has drained: the whole ring is free again.
  void reset() { used_ = 0; }

  static constexpr size_t kAlign = 256;
  static constexpr size_t kMinCapacity = size_t(1) << 20;
  static size_t padded(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

 private:
  const void* put_bytes(const void* host, size_t bytes);
  void* take(size_t bytes);
  cudaStream_t stream_;
  char* host_ = nullptr;  // pinned
  char* dev_ = nullptr;
  size_t cap_ = 0, used_ = 0, reserved_end_ = 0;
};

}  // namespace saccade::cuda
