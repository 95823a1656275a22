#include "cuda_runtime.h"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace emu {

thread_local ThreadState self;

namespace {

// Reusable barrier for a fixed number of threads.
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    const long gen = gen_;
    if (++waiting_ == n_) {
      waiting_ = 0;
      ++gen_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return gen_ != gen; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, waiting_ = 0;
  long gen_ = 0;
};

struct Block {
  Barrier* block_barrier = nullptr;
  std::vector<Barrier*> warp_barriers;
  std::vector<float> lanes;  // one exchange slot per thread
};

Block* running = nullptr;
std::vector<float> shared_memory;
constexpr size_t kSharedLimit = 227 * 1024;  // an H100/H200 block's opt-in shared memory

unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

}  // namespace

float* dynamic_shared() { return shared_memory.data(); }

void sync_block() { running->block_barrier->wait(); }

float shfl_xor(float v, int lane_mask) {
  const unsigned t = linear_thread(), warp = t / 32, lane = t % 32;
  running->lanes[t] = v;
  running->warp_barriers[warp]->wait();
  const float other = running->lanes[warp * 32 + (lane ^ unsigned(lane_mask))];
  running->warp_barriers[warp]->wait();
  return other;
}

void launch(dim3 grid, dim3 block, size_t shared_bytes, ::EmuStream*, const std::function<void()>& body) {
  const unsigned n = block.x * block.y * block.z;
  if (n == 0 || n > 1024 || n % 32 != 0) throw std::runtime_error("emulated launch: block size must be 32..1024, whole warps");
  if (shared_bytes > kSharedLimit) throw std::runtime_error("emulated launch: too much dynamic shared memory");
  shared_memory.assign(shared_bytes / sizeof(float) + 1, NAN);  // NaN: reading unwritten shared memory shows
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Barrier block_barrier{int(n)};
        std::vector<std::unique_ptr<Barrier>> warps;
        Block b;
        b.block_barrier = &block_barrier;
        for (unsigned w = 0; w < n / 32; ++w) {
          warps.push_back(std::make_unique<Barrier>(32));
          b.warp_barriers.push_back(warps.back().get());
        }
        b.lanes.assign(n, 0.0f);
        running = &b;
        std::vector<std::thread> threads;
        threads.reserve(n);
        for (unsigned t = 0; t < n; ++t)
          threads.emplace_back([&, t] {
            self.block_dim = block;
            self.grid_dim = grid;
            self.block = {bx, by, bz};
            self.thread = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
            body();
          });
        for (std::thread& th : threads) th.join();
        running = nullptr;
      }
}

}  // namespace emu

const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated CUDA error"; }
cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::strcpy(p->name, "host emulation");
  p->major = 9;
  p->minor = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int) {
  *v = attr == cudaDevAttrMaxSharedMemoryPerBlockOptin ? 227 * 1024 : 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = nullptr;
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int) {
  *pool = nullptr;
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void*) { return cudaSuccess; }
cudaError_t cudaMalloc(void** p, size_t bytes) {
  // Garbage-filled like device memory: code that forgets to initialise a buffer fails visibly.
  *p = std::malloc(bytes ? bytes : 1);
  if (!*p) return cudaErrorMemoryAllocation;
  std::memset(*p, 0xff, bytes);
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return cudaFree(p); }
cudaError_t cudaMallocHost(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t) {
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
