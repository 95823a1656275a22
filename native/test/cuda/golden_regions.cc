#include "golden_regions.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/json.h"

namespace gpucheck {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw saccade::EngineError("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<int> ids(const saccade::Json& entry, const std::string& key) {
  std::vector<int> out;
  for (const saccade::Json& v : entry.at(key, key).items(key)) out.push_back(int(v.integer(key)));
  return out;
}

std::vector<float> floats(const std::string& dir, const saccade::Json& entry, const std::string& key) {
  const std::string bytes = slurp(dir + "/" + entry.at(key, key).at("file", key + ".file").str(key));
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

}  // namespace

GoldenSet load_golden(const std::string& dir, std::string* why_not) {
  GoldenSet set;
  const std::string index_path = dir + "/index.json";
  if (!exists(index_path)) {
    *why_not = index_path + " not found";
    return set;
  }
  const saccade::Json index = saccade::Json::parse(slurp(index_path));
  set.model_dir = dir + "/" + index.at("model_dir", "model_dir").str("model_dir");
  if (!exists(set.model_dir + "/model.safetensors")) {
    *why_not = "checkpoint " + set.model_dir + "/model.safetensors not found";
    return set;
  }
  set.max_new_tokens = int(index.at("max_new_tokens", "max_new_tokens").integer("max_new_tokens"));
  for (const auto& [name, e] : index.at("regions", "regions").members("regions")) {
    GoldenRegion r;
    r.name = name;
    const saccade::Json& image = e.at("image", name + ".image");
    const std::vector<saccade::Json>& shape = image.at("shape", "image.shape").items("image.shape");
    if (shape.size() != 2) throw saccade::EngineError(name + ": golden image must be [height, width]");
    r.input.id = name;
    r.input.kind = e.at("kind", name + ".kind").str("kind");
    r.input.height = int(shape[0].integer("height"));
    r.input.width = int(shape[1].integer("width"));
    const std::string px = slurp(dir + "/" + image.at("file", "image.file").str("image.file"));
    r.input.pixels.assign(px.begin(), px.end());
    r.prefill_last_logits = floats(dir, e, "prefill_last_logits");
    r.greedy_ar_ids = ids(e, "greedy_ar_ids");
    r.self_spec_ids = ids(e, "self_spec_ids");
    set.regions.push_back(std::move(r));
  }
  return set;
}

}  // namespace gpucheck
