#include "util/thread_pool.h"

#include <algorithm>

namespace saccade {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_work_.notify_all();
  for (auto& t : workers_) t.join();
}

static void run_chunk(const std::function<void(int, int)>& fn, int n, int chunks, int c) {
  int begin = int(int64_t(n) * c / chunks), end = int(int64_t(n) * (c + 1) / chunks);
  if (begin < end) fn(begin, end);
}

void ThreadPool::parallel_for(int n, int min_chunk, const std::function<void(int, int)>& fn) {
  if (n <= 0) return;
  int chunks = std::min(size(), std::max(1, n / std::max(1, min_chunk)));
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> run(run_mu_);
  {
    std::lock_guard<std::mutex> lk(mu_);
    job_ = &fn;
    job_n_ = n;
    job_chunks_ = chunks;
    pending_ = chunks - 1;
    ++generation_;
  }
  cv_work_.notify_all();
  run_chunk(fn, n, chunks, 0);
  std::unique_lock<std::mutex> lk(mu_);
  cv_done_.wait(lk, [this] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::worker_loop(int index) {
  long seen = 0;
  for (;;) {
    const std::function<void(int, int)>* job;
    int n, chunks;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_work_.wait(lk, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = job_n_;
      chunks = job_chunks_;
    }
    if (index < chunks) {
      run_chunk(*job, n, chunks, index);
      std::lock_guard<std::mutex> lk(mu_);
      if (--pending_ == 0) cv_done_.notify_one();
    }
  }
}

}  // namespace saccade
