#include "cuda_runtime.h"

#include <ucontext.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace emu {

ThreadState* self = nullptr;

namespace {

constexpr size_t kSharedLimit = 227 * 1024;  // an H100/H200 block's opt-in shared memory
constexpr size_t kStackBytes = 64 * 1024;

// A barrier generation counter per group of fibers (the block, or one warp).
struct Barrier {
  int expected = 0, arrived = 0;
  long generation = 0;
};

struct Fiber {
  ucontext_t ctx;
  ThreadState state;
  bool done = false;
  Barrier* waiting_on = nullptr;
  long waiting_generation = 0;
};

struct Block {
  std::vector<Fiber> fibers;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<float> lanes;  // one shuffle slot per thread
  ucontext_t scheduler;
  Fiber* running = nullptr;
  const std::function<void()>* body = nullptr;
};

Block* block = nullptr;
std::vector<float> shared_memory;

unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

void fiber_main() {
  (*block->body)();
  block->running->done = true;
  // Returning ends the fiber; uc_link resumes the scheduler.
}

// Cooperative barrier: the last arrival opens it; the others yield until it has opened.
void wait(Barrier& b) {
  Fiber* f = block->running;
  const long gen = b.generation;
  if (++b.arrived == b.expected) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  f->waiting_on = &b;
  f->waiting_generation = gen;
  swapcontext(&f->ctx, &block->scheduler);
}

void run_block(Block& b) {
  for (;;) {
    bool progressed = false, all_done = true;
    for (Fiber& f : b.fibers) {
      if (f.done) continue;
      all_done = false;
      if (f.waiting_on && f.waiting_on->generation == f.waiting_generation) continue;
      f.waiting_on = nullptr;
      b.running = &f;
      self = &f.state;
      swapcontext(&b.scheduler, &f.ctx);
      progressed = true;
    }
    if (all_done) return;
    if (!progressed) throw std::runtime_error("emulated kernel deadlock: a barrier that not every thread reaches");
  }
}

}  // namespace

float* dynamic_shared() { return shared_memory.data(); }

void sync_block() { wait(block->block_barrier); }

float shfl_xor(float v, int lane_mask) {
  const unsigned t = linear_thread(), warp = t / 32, lane = t % 32;
  block->lanes[t] = v;
  wait(block->warp_barriers[warp]);
  const float other = block->lanes[warp * 32 + (lane ^ unsigned(lane_mask))];
  wait(block->warp_barriers[warp]);
  return other;
}

void launch(dim3 grid, dim3 dims, size_t shared_bytes, ::EmuStream*, const std::function<void()>& body) {
  const unsigned n = dims.x * dims.y * dims.z;
  if (n == 0 || n > 1024 || n % 32 != 0)
    throw std::runtime_error("emulated launch: block size must be 32..1024, whole warps");
  if (shared_bytes > kSharedLimit) throw std::runtime_error("emulated launch: too much dynamic shared memory");
  // Stacks are reused across launches of the same block size.
  static std::vector<std::unique_ptr<char[]>> stacks;
  while (stacks.size() < n) stacks.push_back(std::unique_ptr<char[]>(new char[kStackBytes]));

  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        shared_memory.assign(shared_bytes / sizeof(float) + 1, NAN);  // unwritten shared memory reads as NaN
        Block b;
        b.body = &body;
        b.block_barrier.expected = int(n);
        b.warp_barriers.resize(n / 32);
        for (Barrier& w : b.warp_barriers) w.expected = 32;
        b.lanes.assign(n, 0.0f);
        b.fibers.resize(n);
        for (unsigned t = 0; t < n; ++t) {
          Fiber& f = b.fibers[t];
          f.state.block_dim = dims;
          f.state.grid_dim = grid;
          f.state.block = {bx, by, bz};
          f.state.thread = {t % dims.x, t / dims.x % dims.y, t / (dims.x * dims.y)};
          getcontext(&f.ctx);
          f.ctx.uc_stack.ss_sp = stacks[t].get();
          f.ctx.uc_stack.ss_size = kStackBytes;
          f.ctx.uc_link = &b.scheduler;
          makecontext(&f.ctx, fiber_main, 0);
        }
        block = &b;
        run_block(b);
        block = nullptr;
        self = nullptr;
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
  *v = attr == cudaDevAttrMaxSharedMemoryPerBlockOptin ? int(emu::kSharedLimit) : 1;
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
