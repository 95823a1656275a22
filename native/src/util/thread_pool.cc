#include "util/thread_pool.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SACCADE_PAUSE() _mm_pause()
#else
#define SACCADE_PAUSE() std::this_thread::yield()
#endif

namespace saccade {

namespace {
constexpr int kWorkerSpin = 4000;  // pause loops (tens of microseconds) before a worker sleeps
constexpr int kCallerSpin = 2000;  // then the caller yields while in-flight chunks finish
constexpr uint64_t kMask = (1u << 20) - 1;
}

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this] { worker_loop(0); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

// Claims chunks of generation `gen` until none is left; false when the generation has moved on.
bool ThreadPool::claim_and_run(uint32_t gen) {
  for (;;) {
    uint64_t v = next_.load(std::memory_order_acquire);
    const int c = int(v & kMask), chunks = int((v >> 20) & kMask);
    if (uint32_t(v >> 40) != (gen & 0xFFFFFFu) || c >= chunks) return false;
    if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
    // The caller waits for this chunk, so job_ and job_n_ stay as published for this generation.
    const int begin = int(int64_t(job_n_) * c / chunks), end = int(int64_t(job_n_) * (c + 1) / chunks);
    if (begin < end) (*job_)(begin, end);
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(int n, int min_chunk, const std::function<void(int, int)>& fn) {
  if (n <= 0) return;
  const int chunks = std::min(4 * size(), std::max(1, n / std::max(1, min_chunk)));  // < 2^20
  if (chunks <= 1 || workers_.empty()) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> run(run_mu_);
  uint32_t gen;
  {
    std::lock_guard<std::mutex> lk(mu_);
    job_ = &fn;
    job_n_ = n;
    done_.store(0, std::memory_order_relaxed);
    gen = generation_.load(std::memory_order_relaxed) + 1;
    next_.store(uint64_t(gen & 0xFFFFFFu) << 40 | uint64_t(chunks) << 20, std::memory_order_release);
    generation_.store(gen, std::memory_order_release);
  }
  cv_.notify_all();
  claim_and_run(gen);
  for (int spin = 0; done_.load(std::memory_order_acquire) != chunks; ++spin) {
    if (spin < kCallerSpin) SACCADE_PAUSE();
    else std::this_thread::yield();
  }
}

void ThreadPool::worker_loop(int) {
  uint32_t seen = 0;
  for (;;) {
    for (int spin = 0; generation_.load(std::memory_order_acquire) == seen && spin < kWorkerSpin; ++spin) SACCADE_PAUSE();
    uint32_t gen;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_.load() || generation_.load() != seen; });
      if (stop_.load()) return;
      gen = seen = generation_.load();
    }
    claim_and_run(gen);
  }
}

}  // namespace saccade
