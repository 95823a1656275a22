#pragma once
// JSON results of the GPU check (parity and benchmark), kept in insertion order so files diff cleanly.
#include <string>
#include <utility>
#include <vector>

namespace gpucheck {

class Json {
 public:
  static Json object();
  static Json array();
  Json(double v);  // NOLINT: numbers convert implicitly, like in JSON itself
  Json(int v) : Json(double(v)) {}
  Json(bool v);
  Json(const char* v);
  Json(const std::string& v);
  template <class T>
  static Json list(const std::vector<T>& v) {
    Json a = array();
    for (const T& x : v) a.push(Json(x));
    return a;
  }

  Json& set(const std::string& key, Json v);  // object member (appended)
  Json& push(Json v);                         // array element
  std::string dump(int indent = 0) const;

 private:
  enum class Kind { Null, Number, Bool, String, Array, Object };
  Json() = default;
  void write(std::string& out, int indent, int depth) const;
  Kind kind_ = Kind::Null;
  double num_ = 0;
  bool bool_ = false;
  std::string str_;
  std::vector<std::pair<std::string, Json>> members_;  // array elements have empty keys
};

void write_text_file(const std::string& path, const std::string& text);

}  // namespace gpucheck
