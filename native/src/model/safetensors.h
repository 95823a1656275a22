#pragma once
// safetensors reader over a memory-mapped file. The header is validated completely before any tensor is
// touched: offsets inside the data section, no overlaps, byte sizes that match dtype x shape.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/mapped_file.h"

namespace saccade {

enum class DType { F16, BF16, F32 };

struct TensorView {
  DType dtype;
  std::vector<int64_t> shape;
  const unsigned char* data;
  size_t bytes;
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

class SafeTensors {
 public:
  explicit SafeTensors(const std::string& path);
  // Parses a buffer the caller keeps alive (tests and the fuzzer use this).
  SafeTensors(const unsigned char* data, size_t size, const std::string& name);

  const TensorView* find(const std::string& name) const;
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }

 private:
  void parse(const unsigned char* data, size_t size, const std::string& name);
  std::unique_ptr<MappedFile> file_;
  std::map<std::string, TensorView> tensors_;
};

// Copies a tensor into fp32, checking its shape. `name` is used in errors.
std::vector<float> to_f32(const TensorView& t);

}  // namespace saccade
