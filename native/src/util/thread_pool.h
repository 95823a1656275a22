#pragma once
// A small fixed thread pool for data-parallel kernels. parallel_for splits [0, n) into contiguous chunks;
// the calling thread takes a chunk too. Chunking never changes the arithmetic of one output element, so
// results do not depend on the thread count.
#include <condition_variable>
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
  std::condition_variable cv_work_, cv_done_;
  const std::function<void(int, int)>* job_ = nullptr;
  int job_n_ = 0, job_chunks_ = 0;
  long generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::mutex run_mu_;  // one parallel_for at a time
};

}  // namespace saccade
