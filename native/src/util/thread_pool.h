#pragma once
// A small fixed thread pool for data-parallel kernels. parallel_for splits [0, n) into contiguous chunks;
// the calling thread takes a chunk too. Chunking never changes the arithmetic of one output element, so
// results do not depend on the thread count.
//
// A decode step issues ~50 short parallel ops, so waking sleeping threads each time would cost more than
// the work: workers spin briefly on an atomic generation counter before they block. Work is split into more
// chunks than threads and claimed from a shared counter, so when a worker is not scheduled (a busy machine)
// the caller simply runs the remaining chunks itself instead of waiting for it.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace saccade {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }
  // fn(begin, end) over [0, n); runs inline when n is small (below min_chunk per thread).
  void parallel_for(int n, int min_chunk, const std::function<void(int, int)>& fn);

 private:
  void worker_loop(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool claim_and_run(uint32_t gen);

  const std::function<void(int, int)>* job_ = nullptr;
  int job_n_ = 0;
  std::atomic<uint32_t> generation_{0};
  // generation (24 bits) | chunk count (20 bits) | next unclaimed chunk (20 bits): one word, so a late
  // worker can never mix one job's chunk count with another job's counter.
  std::atomic<uint64_t> next_{0};
  std::atomic<int> done_{0};       // chunks finished in the current generation
  std::atomic<bool> stop_{false};
  std::mutex run_mu_;  // one parallel_for at a time
};

}  // namespace saccade
