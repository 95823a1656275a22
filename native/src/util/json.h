#pragma once
// A small strict JSON reader for config.json, tokenizer.json and the safetensors header. Malformed input,
// and an object that names a key twice, throws EngineError; nesting depth is capped so hostile files cannot
// overflow the stack.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.h"

namespace saccade {

class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  static Json parse(const char* data, size_t size);
  static Json parse(const std::string& s) { return parse(s.data(), s.size()); }

  Type type() const { return type_; }
  bool is_object() const { return type_ == Type::Object; }
  bool is_array() const { return type_ == Type::Array; }
  bool is_number() const { return type_ == Type::Number; }
  bool is_string() const { return type_ == Type::String; }

  // Accessors throw EngineError naming `what` when the value has another type.
  double number(const std::string& what) const;
  int64_t integer(const std::string& what) const;  // must be an exact integer
  const std::string& str(const std::string& what) const;
  bool boolean(const std::string& what) const;
  const std::vector<Json>& items(const std::string& what) const;
  const std::vector<std::pair<std::string, Json>>& members(const std::string& what) const;

  // Object lookup: nullptr when absent (or when this is not an object).
  const Json* find(const std::string& key) const;
  // Object lookup that throws "missing key <path>" when absent.
  const Json& at(const std::string& key, const std::string& path) const;

 private:
  friend class JsonParser;
  Type type_ = Type::Null;
  bool bool_ = false;
  double num_ = 0;
  std::string str_;
  std::vector<Json> arr_;
  std::vector<std::pair<std::string, Json>> obj_;
};

}  // namespace saccade
