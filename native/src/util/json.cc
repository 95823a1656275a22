#include "util/json.h"
#include "util/utf8.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace saccade {

class JsonParser {
 public:
  JsonParser(const char* p, size_t n) : p_(p), end_(p + n), begin_(p) {}

  Json run() {
    Json v = value(0);
    skip_ws();
    if (p_ != end_) fail("trailing characters");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;
  const char* p_;
  const char* end_;
  const char* begin_;

  [[noreturn]] void fail(const std::string& why) { fail_at(p_, why); }
  [[noreturn]] void fail_at(const char* at, const std::string& why) {
    throw EngineError("invalid JSON at byte " + std::to_string(at - begin_) + ": " + why);
  }
  // A key as an error line can show it: quoted, at most 64 bytes, anything but printable ASCII as '?'.
  static std::string printable(const std::string& key) {
    std::string out = "\"";
    for (size_t i = 0; i < key.size() && i < 64; ++i) out += key[i] >= 0x20 && key[i] < 0x7f ? key[i] : '?';
    return out + (key.size() > 64 ? "...\"" : "\"");
  }
  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool lit(const char* s) {
    size_t n = std::strlen(s);
    if (size_t(end_ - p_) >= n && std::memcmp(p_, s, n) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_ws();
    if (p_ == end_) fail("unexpected end");
    Json v;
    char c = *p_;
    if (c == '{') {
      v.type_ = Json::Type::Object;
      ++p_;
      skip_ws();
      if (p_ < end_ && *p_ == '}') { ++p_; return v; }
      // A key given twice is refused: parsers differ on which one counts (the first, or the last as
      // JSON.parse has it), so a file with one could mean one thing here and another to any other reader.
      std::unordered_set<std::string> keys;
      for (;;) {
        skip_ws();
        if (p_ == end_ || *p_ != '"') fail("expected object key");
        const char* key_at = p_;
        std::string key = string();
        if (!keys.insert(key).second) fail_at(key_at, "duplicate key " + printable(key));
        skip_ws();
        if (p_ == end_ || *p_ != ':') fail("expected ':'");
        ++p_;
        v.obj_.emplace_back(std::move(key), value(depth + 1));
        skip_ws();
        if (p_ == end_) fail("unexpected end in object");
        if (*p_ == ',') { ++p_; continue; }
        if (*p_ == '}') { ++p_; return v; }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.type_ = Json::Type::Array;
      ++p_;
      skip_ws();
      if (p_ < end_ && *p_ == ']') { ++p_; return v; }
      for (;;) {
        v.arr_.push_back(value(depth + 1));
        skip_ws();
        if (p_ == end_) fail("unexpected end in array");
        if (*p_ == ',') { ++p_; continue; }
        if (*p_ == ']') { ++p_; return v; }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.type_ = Json::Type::String;
      v.str_ = string();
      return v;
    }
    if (lit("true")) { v.type_ = Json::Type::Bool; v.bool_ = true; return v; }
    if (lit("false")) { v.type_ = Json::Type::Bool; return v; }
    if (lit("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.type_ = Json::Type::Number;
      v.num_ = number();
      return v;
    }
    fail("unexpected character");
  }

  double number() {
    const char* s = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    auto digits = [&] {
      const char* d = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      if (p_ == d) fail("bad number");
    };
    digits();
    if (p_ < end_ && *p_ == '.') { ++p_; digits(); }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      digits();
    }
    std::string text(s, p_);  // strtod needs a terminated buffer; the mapped file has none
    return std::strtod(text.c_str(), nullptr);
  }

  unsigned hex4() {
    if (end_ - p_ < 4) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  std::string string() {
    ++p_;  // opening quote
    std::string out;
    for (;;) {
      if (p_ == end_) fail("unterminated string");
      char c = *p_++;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') { out += c; continue; }
      if (p_ == end_) fail("unterminated escape");
      char e = *p_++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (!lit("\\u")) fail("lone high surrogate");
            unsigned lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("bad low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail("lone low surrogate");
          }
          append_utf8(char32_t(cp), out);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
};

Json Json::parse(const char* data, size_t size) { return JsonParser(data, size).run(); }

static const char* type_name(Json::Type t) {
  switch (t) {
    case Json::Type::Null: return "null";
    case Json::Type::Bool: return "boolean";
    case Json::Type::Number: return "number";
    case Json::Type::String: return "string";
    case Json::Type::Array: return "array";
    case Json::Type::Object: return "object";
  }
  return "?";
}

static void expect(const Json& j, Json::Type t, const std::string& what) {
  if (j.type() != t)
    throw EngineError(what + ": expected " + type_name(t) + ", got " + type_name(j.type()));
}

double Json::number(const std::string& what) const { expect(*this, Type::Number, what); return num_; }
int64_t Json::integer(const std::string& what) const {
  expect(*this, Type::Number, what);
  if (!(std::fabs(num_) < 9.0e15) || std::floor(num_) != num_) throw EngineError(what + ": expected an integer");
  return static_cast<int64_t>(num_);
}
const std::string& Json::str(const std::string& what) const { expect(*this, Type::String, what); return str_; }
bool Json::boolean(const std::string& what) const { expect(*this, Type::Bool, what); return bool_; }
const std::vector<Json>& Json::items(const std::string& what) const { expect(*this, Type::Array, what); return arr_; }
const std::vector<std::pair<std::string, Json>>& Json::members(const std::string& what) const {
  expect(*this, Type::Object, what);
  return obj_;
}

const Json* Json::find(const std::string& key) const {
  if (type_ != Type::Object) return nullptr;
  for (const auto& kv : obj_)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

const Json& Json::at(const std::string& key, const std::string& path) const {
  expect(*this, Type::Object, path.empty() ? "document" : path);
  const Json* v = find(key);
  if (!v) throw EngineError("missing key " + (path.empty() ? key : path + "." + key));
  return *v;
}

}  // namespace saccade
