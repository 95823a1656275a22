#pragma once
// A small convolutional network run on a backend from the op list its converter wrote (training/page_nets/,
// docs/model-format.md "Page analysis networks"): the pretrained text detector, line direction classifier and
// layout detector. The graph is data, not code, because three networks share one vocabulary of a dozen ops;
// every op is a backend op (backend.h), so each runs on the CPU and on CUDA alike. Activations are row-major
// [H, W, C] maps; a value's buffer is freed after its last use.
#include <string>
#include <vector>

#include "backend/backend.h"

namespace saccade {

class Json;
class SafeTensors;

// One output of a forward, on the host.
struct ConvNetMap {
  int H = 0, W = 0, C = 0;
  std::vector<float> data;  // [H, W, C]
};

class ConvNet {
 public:
  // Reads `spec` (one entry of config.json's "nets": its input channels and op list) and its weights, checking
  // every name, shape and channel count before anything runs. `used` collects the weight names read.
  ConvNet(const Json& spec, const SafeTensors& weights, Backend& be, const std::string& name,
          std::vector<std::string>* used);

  int input_channels() const { return input_channels_; }
  // Runs on an input map [H, W, input_channels()] on the host.
  std::vector<ConvNetMap> forward(const float* input, int H, int W) const;
  size_t parameter_count() const { return parameters_; }

 private:
  enum class Kind { Conv, ConvTranspose, GlobalAvgPool, MaxPool, Upsample, Concat, Add, Gate, Activation };
  enum class Act { None, Relu, Sigmoid, HardSigmoid, Hardswish };
  struct Op {
    Kind kind;
    std::vector<int> in;
    int out = 0;
    int kh = 1, kw = 1, sy = 1, sx = 1, scale = 1, channels = 0;
    bool depthwise = false, residual = false;
    Act act = Act::None;
    float p0 = 0, p1 = 0;  // hardsigmoid: alpha, beta; hardswish: the scale and shift after it
    Weight w;              // a convolution's [out, kh * kw * in], a transposed one's [4 * out, in]
    Buffer taps, bias;     // a depthwise convolution's [C, kh * kw]; bias [out] (a transposed one's [4 * out])
  };
  struct Dims {
    int H, W, C;
    size_t size() const { return size_t(H) * W * C; }
  };

  void activate(const Op& op, float* x, size_t n) const;
  void conv(const Op& op, const float* x, const Dims& d, float* y, const Dims& out) const;

  Backend& be_;
  std::string name_;
  int input_channels_ = 0;
  int values_ = 0;
  std::vector<Op> ops_;
  std::vector<int> outputs_;
  std::vector<int> last_use_;  // per value: the index of the last op that reads it (-1: an output, kept)
  size_t parameters_ = 0;
};

}  // namespace saccade
