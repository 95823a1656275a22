#include "page/convnet.h"

#include <algorithm>
#include <map>

#include "model/safetensors.h"
#include "util/error.h"
#include "util/json.h"

namespace saccade {

namespace {

// Bounds on what a config may ask for: far above the shipped networks, far below what would exhaust memory.
constexpr int kMaxOps = 4096, kMaxChannels = 4096, kMaxKernel = 9, kMaxStride = 4, kMaxScale = 16;
std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

int bounded(const Json& j, const std::string& what, int lo, int hi) {
  const int64_t v = j.integer(what);
  if (v < lo || v > hi) throw EngineError(what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return int(v);
}

}  // namespace

ConvNet::ConvNet(const Json& spec, const SafeTensors& weights, Backend& be, const std::string& name,
                 std::vector<std::string>* used)
    : be_(be), name_(name) {
  const std::string path = "nets." + name;
  const Json& input = spec.at("input", path);
  input_channels_ = int(input.at("mean", path + ".input").items(path + ".input.mean").size());
  if (input_channels_ < 1 || input_channels_ > 4) throw EngineError(path + ".input.mean must have 1 to 4 channels");
  std::map<std::string, int> ids;
  std::vector<int> channels;
  const auto define = [&](const std::string& value, int C, const std::string& where) {
    if (!ids.emplace(value, int(channels.size())).second) throw EngineError(where + ": value " + value + " is defined twice");
    channels.push_back(C);
    return int(channels.size()) - 1;
  };
  const auto value = [&](const Json& j, const std::string& where) {
    auto it = ids.find(j.str(where));
    if (it == ids.end()) throw EngineError(where + ": value " + j.str(where) + " is used before it is computed");
    return it->second;
  };
  const auto read = [&](const Json& op, const std::string& key, std::vector<int64_t> shape, const std::string& where) {
    const std::string& tensor = op.at(key, where).str(where + "." + key);
    const TensorView* t = weights.find(tensor);
    if (!t) throw EngineError("model.safetensors: missing tensor " + tensor);
    if (t->shape != shape)
      throw EngineError("model.safetensors: tensor " + tensor + " has shape " + shape_str(t->shape) + ", " + where +
                        " needs " + shape_str(shape));
    used->push_back(tensor);
    parameters_ += size_t(t->numel());
    return to_f32(*t);
  };
  const auto upload = [&](const std::vector<float>& h) {
    Buffer b(&be_, h.size());
    be_.upload(b.data(), h.data(), h.size());
    return b;
  };

  define(input.at("name", path + ".input").str(path + ".input.name"), input_channels_, path);
  const auto& list = spec.at("ops", path).items(path + ".ops");
  if (list.empty() || list.size() > size_t(kMaxOps)) throw EngineError(path + ".ops must hold 1 to 4096 ops");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& j = list[i];
    const std::string where = path + ".ops[" + std::to_string(i) + "]";
    const std::string& kind = j.at("op", where).str(where + ".op");
    Op op;
    const Json& in = j.at("in", where);
    if (in.is_array()) {
      for (const Json& v : in.items(where + ".in")) op.in.push_back(value(v, where + ".in"));
    } else {
      op.in.push_back(value(in, where + ".in"));
    }
    const int C = channels[size_t(op.in[0])];
    int out_channels = C;
    const auto act = [&]() {
      const std::string& a = j.at("act", where).str(where + ".act");
      const auto& params = j.at("act_params", where).items(where + ".act_params");
      const size_t want = a == "hardsigmoid" || a == "hardswish" ? 2 : 0;
      if (params.size() != want) throw EngineError(where + ".act_params must hold " + std::to_string(want) + " numbers");
      if (want) {
        op.p0 = float(params[0].number(where + ".act_params"));
        op.p1 = float(params[1].number(where + ".act_params"));
      }
      if (a == "none") op.act = Act::None;
      else if (a == "relu") op.act = Act::Relu;
      else if (a == "sigmoid") op.act = Act::Sigmoid;
      else if (a == "hardsigmoid") op.act = Act::HardSigmoid;
      else if (a == "hardswish") op.act = Act::Hardswish;
      else throw EngineError(where + ".act: unknown activation " + a);
    };
    if (kind == "conv") {
      op.kind = Kind::Conv;
      const auto& k = j.at("kernel", where).items(where + ".kernel");
      const auto& s = j.at("stride", where).items(where + ".stride");
      if (k.size() != 2 || s.size() != 2) throw EngineError(where + ": kernel and stride are [y, x] pairs");
      op.kh = bounded(k[0], where + ".kernel", 1, kMaxKernel);
      op.kw = bounded(k[1], where + ".kernel", 1, kMaxKernel);
      op.sy = bounded(s[0], where + ".stride", 1, kMaxStride);
      op.sx = bounded(s[1], where + ".stride", 1, kMaxStride);
      op.depthwise = j.at("depthwise", where).boolean(where + ".depthwise");
      op.channels = out_channels = bounded(j.at("channels", where), where + ".channels", 1, kMaxChannels);
      if (op.depthwise) {
        if (op.channels != C || op.kh != op.kw) throw EngineError(where + ": a depthwise convolution keeps its channels and is square");
        op.taps = upload(read(j, "weight", {C, int64_t(op.kh) * op.kw}, where));
      } else {
        const int K = op.kh * op.kw * C;
        op.w = be_.upload_weight(read(j, "weight", {op.channels, K}, where), op.channels, K, WeightUse::Linear);
      }
      op.bias = upload(read(j, "bias", {op.channels}, where));
      act();
    } else if (kind == "conv_transpose") {
      op.kind = Kind::ConvTranspose;
      op.channels = out_channels = bounded(j.at("channels", where), where + ".channels", 1, kMaxChannels);
      op.w = be_.upload_weight(read(j, "weight", {4 * op.channels, C}, where), 4 * op.channels, C, WeightUse::Linear);
      op.bias = upload(read(j, "bias", {4 * op.channels}, where));
      act();
    } else if (kind == "global_avg_pool") {
      op.kind = Kind::GlobalAvgPool;
    } else if (kind == "max_pool") {
      op.kind = Kind::MaxPool;
      const auto& k = j.at("kernel", where).items(where + ".kernel");
      if (k.size() != 2) throw EngineError(where + ": kernel is a [y, x] pair");
      op.kh = bounded(k[0], where + ".kernel", 1, kMaxKernel);
      op.kw = bounded(k[1], where + ".kernel", 1, kMaxKernel);
    } else if (kind == "upsample") {
      op.kind = Kind::Upsample;
      op.scale = bounded(j.at("scale", where), where + ".scale", 1, kMaxScale);
    } else if (kind == "concat") {
      op.kind = Kind::Concat;
      out_channels = 0;
      for (int v : op.in) out_channels += channels[size_t(v)];
      if (out_channels > kMaxChannels) throw EngineError(where + ": too many channels");
    } else if (kind == "add" || kind == "gate") {
      op.kind = kind == "add" ? Kind::Add : Kind::Gate;
      if (op.in.size() != 2 || channels[size_t(op.in[1])] != C)
        throw EngineError(where + ": " + kind + " takes two values of the same channels");
      if (op.kind == Kind::Gate) op.residual = j.at("residual", where).boolean(where + ".residual");
    } else if (kind == "activation") {
      op.kind = Kind::Activation;
      act();
    } else {
      throw EngineError(where + ": unknown op " + kind);
    }
    if (op.kind != Kind::Concat && op.kind != Kind::Add && op.kind != Kind::Gate && op.in.size() != 1)
      throw EngineError(where + ": " + kind + " takes one value");
    op.out = define(j.at("out", where).str(where + ".out"), out_channels, where);
    ops_.push_back(std::move(op));
  }
  for (const Json& o : spec.at("outputs", path).items(path + ".outputs")) outputs_.push_back(value(o, path + ".outputs"));
  if (outputs_.empty()) throw EngineError(path + ".outputs is empty");
  values_ = int(channels.size());
  last_use_.assign(size_t(values_), -2);
  for (size_t i = 0; i < ops_.size(); ++i)
    for (int v : ops_[i].in) last_use_[size_t(v)] = int(i);
  for (int v : outputs_) last_use_[size_t(v)] = -1;
}

void ConvNet::activate(const Op& op, float* x, size_t n) const {
  switch (op.act) {
    case Act::None: break;
    case Act::Relu: be_.relu(x, n); break;
    case Act::Sigmoid: be_.sigmoid(x, n); break;
    case Act::HardSigmoid: be_.hard_sigmoid(x, n, op.p0, op.p1); break;
    case Act::Hardswish: be_.affine_hardswish(x, n, 1.0f, 0.0f, op.p0, op.p1); break;
  }
}

void ConvNet::conv(const Op& op, const float* x, const Dims& d, float* y, const Dims& out) const {
  if (op.depthwise) {
    be_.depthwise_conv(x, d.H, d.W, d.C, op.kh, op.sy, op.sx, op.taps.data(), op.bias.data(), y);
  } else if (op.kh == 1 && op.kw == 1 && op.sy == 1 && op.sx == 1) {
    be_.linear(x, d.H * d.W, op.w, op.bias.data(), y);
  } else {
    const bool relu = op.act == Act::Relu;  // in the convolution's own pass over its output
    be_.conv(x, d.H, d.W, d.C, op.kh, op.kw, op.sy, op.sx, op.w, op.bias.data(), relu, y);
    if (relu) return;
  }
  activate(op, y, out.size());
}

std::vector<ConvNetMap> ConvNet::forward(const float* input, int H, int W) const {
  if (H < 1 || W < 1) throw EngineError(name_ + ": empty input");
  std::vector<Buffer> v(static_cast<size_t>(values_));
  std::vector<Dims> dims(static_cast<size_t>(values_));
  dims[0] = {H, W, input_channels_};
  v[0] = Buffer(&be_, dims[0].size(), Contents::Undefined);
  be_.upload(v[0].data(), input, dims[0].size());
  const auto mismatch = [&](const std::string& what) {
    return EngineError(name_ + ": " + what + " (input " + std::to_string(H) + " x " + std::to_string(W) + ")");
  };
  // An elementwise op writes over its first input where nothing reads that input after it (most of a
  // network's residual adds and activations): no copy, and no fresh pages to fault in.
  const auto in_place = [&](size_t i, const Dims& d) {
    const std::vector<int>& in = ops_[i].in;
    const int first = in[0];
    if (last_use_[size_t(first)] == int(i) && std::count(in.begin(), in.end(), first) == 1) return std::move(v[size_t(first)]);
    Buffer y(&be_, d.size(), Contents::Undefined);
    be_.copy(y.data(), v[size_t(first)].data(), d.size());
    return y;
  };
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    const Dims a = dims[size_t(op.in[0])];
    const float* x = v[size_t(op.in[0])].data();
    Dims d = a;
    Buffer y;
    switch (op.kind) {
      case Kind::Conv:
        d = {(a.H + op.sy - 1) / op.sy, (a.W + op.sx - 1) / op.sx, op.channels};
        y = Buffer(&be_, d.size(), Contents::Undefined);
        conv(op, x, a, y.data(), d);
        break;
      case Kind::ConvTranspose: {
        Buffer t(&be_, size_t(a.H) * a.W * 4 * op.channels, Contents::Undefined);
        be_.linear(x, a.H * a.W, op.w, op.bias.data(), t.data());
        d = {2 * a.H, 2 * a.W, op.channels};
        y = Buffer(&be_, d.size(), Contents::Undefined);
        be_.depth_to_space(t.data(), a.H, a.W, op.channels, 2, y.data());
        activate(op, y.data(), d.size());
        break;
      }
      case Kind::GlobalAvgPool:
        d = {1, 1, a.C};
        y = Buffer(&be_, d.size(), Contents::Undefined);
        be_.column_mean(x, a.H * a.W, a.C, y.data());
        break;
      case Kind::MaxPool:
        d = {a.H / op.kh, a.W / op.kw, a.C};
        if (d.H < 1 || d.W < 1) throw mismatch("a max pool's input is smaller than its window");
        y = Buffer(&be_, d.size(), Contents::Undefined);
        be_.max_pool(x, a.H, a.W, a.C, op.kh, op.kw, y.data());
        break;
      case Kind::Upsample:
        d = {a.H * op.scale, a.W * op.scale, a.C};
        y = Buffer(&be_, d.size(), Contents::Undefined);
        be_.upsample_nearest(x, a.H, a.W, a.C, op.scale, y.data(), a.C, 0);
        break;
      case Kind::Concat: {
        d.C = 0;
        for (int in : op.in) {
          if (dims[size_t(in)].H != a.H || dims[size_t(in)].W != a.W) throw mismatch("concatenated maps differ in size");
          d.C += dims[size_t(in)].C;
        }
        y = Buffer(&be_, d.size(), Contents::Undefined);
        int offset = 0;
        for (int in : op.in) {
          be_.upsample_nearest(v[size_t(in)].data(), a.H, a.W, dims[size_t(in)].C, 1, y.data(), d.C, offset);
          offset += dims[size_t(in)].C;
        }
        break;
      }
      case Kind::Add:
      case Kind::Gate: {
        const Dims b = dims[size_t(op.in[1])];
        if (op.kind == Kind::Add ? (b.H != a.H || b.W != a.W) : (b.H != 1 || b.W != 1))
          throw mismatch(op.kind == Kind::Add ? "added maps differ in size" : "a gate is not one value per channel");
        y = in_place(i, d);
        if (op.kind == Kind::Add) be_.add(y.data(), v[size_t(op.in[1])].data(), d.size());
        else be_.scale_columns(y.data(), a.H * a.W, a.C, v[size_t(op.in[1])].data(), op.residual ? 1.0f : 0.0f);
        break;
      }
      case Kind::Activation:
        y = in_place(i, d);
        activate(op, y.data(), d.size());
        break;
    }
    v[size_t(op.out)] = std::move(y);
    dims[size_t(op.out)] = d;
    for (int in : op.in)
      if (last_use_[size_t(in)] == int(i)) v[size_t(in)] = Buffer();
  }
  std::vector<ConvNetMap> out;
  for (int o : outputs_) {
    ConvNetMap m{dims[size_t(o)].H, dims[size_t(o)].W, dims[size_t(o)].C, {}};
    m.data.resize(dims[size_t(o)].size());
    be_.download(m.data.data(), v[size_t(o)].data(), m.data.size());
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace saccade
