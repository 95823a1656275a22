#include "backend/backend.h"

#include "backend/cpu/cpu_backend.h"
#include "util/error.h"

namespace saccade {

Buffer::Buffer(Backend* b, size_t n) : backend_(b), ptr_(b->alloc(n)), n_(n) {}

Buffer::~Buffer() {
  if (ptr_) backend_->free(ptr_);
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) backend_->free(ptr_);
    backend_ = o.backend_;
    ptr_ = o.ptr_;
    n_ = o.n_;
    o.ptr_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

Weight Backend::upload_weight(const std::vector<float>& host, int rows, int cols) {
  Weight w;
  w.w = Buffer(this, host.size());
  upload(w.w.data(), host.data(), host.size());
  w.rows = rows;
  w.cols = cols;
  return w;
}

std::vector<std::string> compiled_backends() { return {"cpu"}; }

std::unique_ptr<Backend> create_backend(const BackendOptions& opts) {
  if (opts.name.empty() || opts.name == "cpu") return make_cpu_backend(opts.threads);
  throw EngineError("backend '" + opts.name + "' is not compiled in (available: cpu)");
}

}  // namespace saccade
