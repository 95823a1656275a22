#include "page/page_nets.h"

#include <algorithm>
#include <set>

#include "model/safetensors.h"
#include "util/error.h"
#include "util/json.h"
#include "util/mapped_file.h"

namespace saccade {

namespace {

std::vector<float> numbers(const Json& j, const std::string& what) {
  std::vector<float> out;
  for (const Json& v : j.items(what)) out.push_back(float(v.number(what)));
  return out;
}

}  // namespace

const PageNet& PageNets::get(const std::string& name) const {
  std::string names;
  for (const PageNet& n : nets) {
    if (n.name == name) return n;
    names += (names.empty() ? "" : ", ") + n.name;
  }
  throw EngineError("no page-analysis network named " + name + " (there are: " + names + ")");
}

std::unique_ptr<PageNets> load_page_nets(const std::string& dir, const BackendOptions& opts) {
  auto p = std::make_unique<PageNets>();
  p->dir = dir;
  Json config;
  try {
    config = Json::parse(read_text_file(dir + "/config.json", kMaxConfigBytes));
    if (config.at("format", "").str("format") != "saccade-page-analysis")
      throw EngineError("format is not saccade-page-analysis");
    if (config.at("version", "").integer("version") != 1) throw EngineError("only version 1 is known");
  } catch (const EngineError& e) {
    throw EngineError(std::string("config.json: ") + e.what());
  }
  SafeTensors st(dir + "/model.safetensors");
  p->backend = create_backend(opts);
  std::vector<std::string> used;
  try {
    for (const auto& [name, spec] : config.at("nets", "").members("nets")) {
      const std::string path = "nets." + name;
      PageNet n;
      n.name = name;
      n.net = std::make_unique<ConvNet>(spec, st, *p->backend, name, &used);
      const Json& input = spec.at("input", path);
      n.mean = numbers(input.at("mean", path + ".input"), path + ".input.mean");
      n.std = numbers(input.at("std", path + ".input"), path + ".input.std");
      if (n.std.size() != n.mean.size() || std::any_of(n.std.begin(), n.std.end(), [](float s) { return !(s > 0); }))
        throw EngineError(path + ".input.std must hold one positive number per channel");
      if (const Json* size = spec.find("size")) {
        const auto& hw = size->items(path + ".size");
        if (hw.size() != 2) throw EngineError(path + ".size is [height, width]");
        n.height = int(hw[0].integer(path + ".size"));
        n.width = int(hw[1].integer(path + ".size"));
        if (n.height < 1 || n.width < 1 || int64_t(n.height) * n.width > kMaxPageNetPixels)
          throw EngineError(path + ".size is out of range");
      } else {
        n.multiple = int(spec.at("multiple", path).integer(path + ".multiple"));
        if (n.multiple < 1 || n.multiple > 256) throw EngineError(path + ".multiple is out of range");
      }
      if (const Json* labels = spec.find("labels"))
        for (const Json& l : labels->items(path + ".labels")) n.labels.push_back(l.str(path + ".labels"));
      if (const Json* strides = spec.find("strides"))
        for (const Json& s : strides->items(path + ".strides")) n.strides.push_back(int(s.integer(path + ".strides")));
      p->parameter_count += n.net->parameter_count();
      p->nets.push_back(std::move(n));
    }
  } catch (const EngineError& e) {
    throw EngineError(std::string("config.json: ") + e.what());
  }
  if (p->nets.empty()) throw EngineError("config.json: nets is empty");
  const std::set<std::string> read(used.begin(), used.end());
  for (const auto& kv : st.tensors())
    if (!read.count(kv.first))
      throw EngineError("model.safetensors: unexpected tensor " + kv.first + " (it does not match config.json)");
  return p;
}

std::vector<ConvNetMap> run_page_net(const PageNet& n, const uint8_t* grey, int h, int w) {
  if (h < 1 || w < 1 || int64_t(h) * w > kMaxPageNetPixels)
    throw EngineError(n.name + ": an input of " + std::to_string(w) + " x " + std::to_string(h) + " pixels is out of range");
  if (n.height ? (h != n.height || w != n.width) : (h % n.multiple || w % n.multiple))
    throw EngineError(n.name + ": takes " +
                      (n.height ? std::to_string(n.width) + " x " + std::to_string(n.height) + " pixels"
                                : "sides that are multiples of " + std::to_string(n.multiple)) +
                      ", not " + std::to_string(w) + " x " + std::to_string(h));
  const size_t C = n.mean.size();
  std::vector<float> x(size_t(h) * w * C);
  for (size_t i = 0; i < size_t(h) * w; ++i)
    for (size_t c = 0; c < C; ++c) x[i * C + c] = (float(grey[i]) / 255.0f - n.mean[c]) / n.std[c];
  return n.net->forward(x.data(), h, w);
}

}  // namespace saccade
