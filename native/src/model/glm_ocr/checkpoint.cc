#include "model/glm_ocr/checkpoint.h"

#include "util/error.h"
#include "util/json.h"
#include "util/mapped_file.h"

namespace saccade::glm_ocr {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

}  // namespace

Checkpoint::Checkpoint(const std::string& dir, DType dtype) : dtype_(dtype) {
  const std::string index_name = "model.safetensors.index.json";
  if (!path_exists(dir + "/" + index_name)) {
    files_.push_back(std::make_unique<SafeTensors>(dir + "/model.safetensors"));
    for (const auto& kv : files_[0]->tensors()) tensors_[kv.first] = {&kv.second, "model.safetensors"};
    return;
  }
  const std::string index_text = read_text_file(dir + "/" + index_name, kMaxConfigBytes);
  Json index;
  try {
    index = Json::parse(index_text);
  } catch (const EngineError& e) {
    throw EngineError(index_name + ": " + e.what());
  }
  const Json* map = index.is_object() ? index.find("weight_map") : nullptr;
  if (!map || !map->is_object()) throw EngineError(index_name + ": missing key weight_map");
  std::map<std::string, const SafeTensors*> shards;
  for (const auto& kv : map->members(index_name + ".weight_map")) {
    const std::string& file = kv.second.str(index_name + ".weight_map." + kv.first);
    if (file.empty() || file.find('/') != std::string::npos)
      throw EngineError(index_name + ": shard name \"" + file + "\" is not a file of the folder");
    auto it = shards.find(file);
    if (it == shards.end()) {
      if (!path_exists(dir + "/" + file))
        throw EngineError(index_name + " names shard " + file + ", which is not in the folder");
      files_.push_back(std::make_unique<SafeTensors>(dir + "/" + file));
      it = shards.emplace(file, files_.back().get()).first;
    }
    const TensorView* t = it->second->find(kv.first);
    if (!t) throw EngineError(index_name + " puts tensor " + kv.first + " in " + file + ", which does not hold it");
    tensors_[kv.first] = {t, file};
  }
  for (const auto& [file, shard] : shards)
    for (const auto& kv : shard->tensors())
      if (!tensors_.count(kv.first))
        throw EngineError(file + " holds tensor " + kv.first + ", which " + index_name + " does not list");
}

const TensorView& Checkpoint::take(const std::string& name, const std::vector<int64_t>& shape) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw EngineError("checkpoint: missing tensor " + name);
  const TensorView& t = *it->second.first;
  if (t.shape != shape)
    throw EngineError(it->second.second + ": tensor " + name + " has shape " + shape_str(t.shape) +
                      ", config.json implies " + shape_str(shape));
  if (t.dtype != dtype_)
    throw EngineError(it->second.second + ": tensor " + name + " is not stored in config.json's dtype");
  if (taken_.insert(name).second) parameters_ += size_t(t.numel());
  return t;
}

void Checkpoint::check_all_taken() const {
  for (const auto& kv : tensors_)
    if (!taken_.count(kv.first))
      throw EngineError(kv.second.second + ": unexpected tensor " + kv.first + " (the checkpoint does not match config.json)");
}

}  // namespace saccade::glm_ocr
