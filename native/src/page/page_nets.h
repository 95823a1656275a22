#pragma once
// The page-analysis networks of a folder (assets/models/page-analysis; docs/model-format.md "Page analysis
// networks"): PaddleOCR's text detector and line direction classifier and PP-Structure's layout detector, read
// from config.json ("format": "saccade-page-analysis") and model.safetensors, resident on one backend. The page
// pipeline (main/node/pipeline/detect) sizes their inputs and reads their outputs.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "page/convnet.h"

namespace saccade {

struct PageNet {
  std::string name;
  std::unique_ptr<ConvNet> net;
  std::vector<float> mean, std;  // per input channel: x = (pixel / 255 - mean) / std
  int height = 0, width = 0;     // the one input size a network takes (0: any size whose sides are a multiple)
  int multiple = 1;
  std::vector<std::string> labels;
  std::vector<int> strides;      // a detector head's output strides, in the order of its outputs
};

struct PageNets {
  std::string dir;
  std::unique_ptr<Backend> backend;
  std::vector<PageNet> nets;
  size_t parameter_count = 0;

  // Throws EngineError naming the networks there are when `name` is not one of them.
  const PageNet& get(const std::string& name) const;
};

std::unique_ptr<PageNets> load_page_nets(const std::string& dir, const BackendOptions& opts);

// The most pixels a network input may have (a 2048 x 2048 page): the detector's widest maps then take a few
// hundred megabytes.
constexpr int64_t kMaxPageNetPixels = int64_t(2048) * 2048;

// Runs `net` on a grey image [h, w] already at a size it takes (every input channel the same pixel, normalised
// with that channel's mean and std, as the networks were trained on colour pages). Throws EngineError for a size
// the network does not take.
std::vector<ConvNetMap> run_page_net(const PageNet& net, const uint8_t* grey, int h, int w);

}  // namespace saccade
