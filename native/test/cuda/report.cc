#include "report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace gpucheck {

Json Json::object() {
  Json j;
  j.kind_ = Kind::Object;
  return j;
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::Array;
  return j;
}

Json::Json(double v) : kind_(Kind::Number), num_(v) {}
Json::Json(bool v) : kind_(Kind::Bool), bool_(v) {}
Json::Json(const char* v) : kind_(Kind::String), str_(v) {}
Json::Json(const std::string& v) : kind_(Kind::String), str_(v) {}

Json& Json::set(const std::string& key, Json v) {
  if (kind_ != Kind::Object) throw std::logic_error("Json::set on a non-object");
  members_.emplace_back(key, std::move(v));
  return *this;
}

Json& Json::push(Json v) {
  if (kind_ != Kind::Array) throw std::logic_error("Json::push on a non-array");
  members_.emplace_back(std::string(), std::move(v));
  return *this;
}

static void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

void Json::write(std::string& out, int indent, int depth) const {
  const auto newline = [&](int d) {
    if (!indent) return;
    out += '\n';
    out.append(size_t(indent) * d, ' ');
  };
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += bool_ ? "true" : "false"; break;
    case Kind::Number: {
      if (!std::isfinite(num_)) {
        out += "null";  // JSON has no inf/nan; a non-finite metric is itself a failure the checks report
        break;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", num_);
      out += buf;
      break;
    }
    case Kind::String: write_string(out, str_); break;
    case Kind::Array:
    case Kind::Object: {
      const bool obj = kind_ == Kind::Object;
      // Arrays of scalars stay on one line; they are token ids and timings.
      bool flat = !obj;
      for (const auto& m : members_) flat = flat && m.second.kind_ != Kind::Array && m.second.kind_ != Kind::Object;
      out += obj ? '{' : '[';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i) out += flat ? ", " : ",";
        if (!flat) newline(depth + 1);
        if (obj) {
          write_string(out, members_[i].first);
          out += ": ";
        }
        members_[i].second.write(out, indent, depth + 1);
      }
      if (!flat && !members_.empty()) newline(depth);
      out += obj ? '}' : ']';
      break;
    }
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  out += '\n';
  return out;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace gpucheck
