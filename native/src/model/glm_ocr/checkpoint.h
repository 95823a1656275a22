#pragma once
// A Hugging Face folder's weights: model.safetensors, or the shards that model.safetensors.index.json's
// weight_map names, each memory-mapped. Tensors are taken by name with the shape the config implies; at the
// end every tensor of the files must have been taken, so a checkpoint that does not match its config is
// refused rather than half-used.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/safetensors.h"

namespace saccade::glm_ocr {

class Checkpoint {
 public:
  Checkpoint(const std::string& dir, DType dtype);

  // Throws EngineError naming the tensor when it is missing or its shape or dtype differs.
  const TensorView& take(const std::string& name, const std::vector<int64_t>& shape);
  void check_all_taken() const;
  size_t parameters() const { return parameters_; }

 private:
  std::vector<std::unique_ptr<SafeTensors>> files_;
  std::map<std::string, std::pair<const TensorView*, std::string>> tensors_;  // name -> (view, file name)
  std::set<std::string> taken_;
  DType dtype_;
  size_t parameters_ = 0;
};

}  // namespace saccade::glm_ocr
