#include "model/safetensors.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"
#include "util/half.h"
#include "util/json.h"

namespace saccade {

SafeTensors::SafeTensors(const std::string& path) : file_(std::make_unique<MappedFile>(path)) {
  parse(file_->data(), file_->size(), path);
}

SafeTensors::SafeTensors(const unsigned char* data, size_t size, const std::string& name) { parse(data, size, name); }

void SafeTensors::parse(const unsigned char* data, size_t size, const std::string& name) {
  auto fail = [&](const std::string& why) -> void { throw EngineError(name + ": " + why); };
  if (size < 8) fail("file too short for a safetensors header (" + std::to_string(size) + " bytes)");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = header_len << 8 | data[i];
  if (header_len > size - 8 || header_len > (100u << 20))
    fail("header length " + std::to_string(header_len) + " exceeds the file (" + std::to_string(size) + " bytes): truncated or corrupt");
  Json header;
  try {
    header = Json::parse(reinterpret_cast<const char*>(data + 8), size_t(header_len));
  } catch (const EngineError& e) {
    fail(std::string("corrupt header: ") + e.what());
  }
  if (!header.is_object()) fail("header is not a JSON object");
  const unsigned char* base = data + 8 + header_len;
  const size_t data_size = size - 8 - size_t(header_len);
  std::vector<std::pair<size_t, size_t>> ranges;
  for (const auto& kv : header.members("header")) {
    if (kv.first == "__metadata__") continue;
    const std::string tn = "tensor " + kv.first;
    const Json& t = kv.second;
    if (!t.is_object()) fail(tn + ": expected an object");
    const std::string& dt = t.at("dtype", tn).str(tn + ".dtype");
    TensorView v{};
    size_t esize;
    if (dt == "F16") { v.dtype = DType::F16; esize = 2; }
    else if (dt == "BF16") { v.dtype = DType::BF16; esize = 2; }
    else if (dt == "F32") { v.dtype = DType::F32; esize = 4; }
    else { fail(tn + ": unsupported dtype " + dt); }
    uint64_t numel = 1;
    for (const Json& d : t.at("shape", tn).items(tn + ".shape")) {
      int64_t n = d.integer(tn + ".shape");
      if (n < 0 || n > (int64_t(1) << 32)) fail(tn + ": bad dimension");
      v.shape.push_back(n);
      numel *= uint64_t(n);
      if (numel > (uint64_t(1) << 40)) fail(tn + ": too many elements");
    }
    const auto& off = t.at("data_offsets", tn).items(tn + ".data_offsets");
    if (off.size() != 2) fail(tn + ": data_offsets must have 2 entries");
    int64_t b = off[0].integer(tn + ".data_offsets"), e = off[1].integer(tn + ".data_offsets");
    if (b < 0 || e < b || uint64_t(e) > data_size)
      fail(tn + ": data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + ") outside the data section (" +
           std::to_string(data_size) + " bytes): truncated or corrupt");
    if (uint64_t(e - b) != numel * esize) fail(tn + ": byte size does not match dtype and shape");
    v.data = base + b;
    v.bytes = size_t(e - b);
    ranges.emplace_back(size_t(b), size_t(e));
    tensors_[kv.first] = std::move(v);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) fail("tensor data ranges overlap");
}

const TensorView* SafeTensors::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::vector<float> to_f32(const TensorView& t) {
  std::vector<float> out(size_t(t.numel()));
  const unsigned char* p = t.data;
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == DType::F32) {
      std::memcpy(&out[i], p + 4 * i, 4);
    } else {
      uint16_t h = uint16_t(p[2 * i] | p[2 * i + 1] << 8);
      out[i] = t.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
    }
  }
  return out;
}

}  // namespace saccade
