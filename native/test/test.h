#pragma once
// Minimal test harness: TEST(name) registers a function; CHECK fails the test with a message.
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sctest {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by a test whose inputs are absent (e.g. golden files before the model ships).
struct Skip : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Registry {
  static std::vector<std::pair<std::string, std::function<void()>>>& tests() {
    static std::vector<std::pair<std::string, std::function<void()>>> t;
    return t;
  }
};

struct Register {
  Register(const char* name, std::function<void()> f) { Registry::tests().emplace_back(name, std::move(f)); }
};

}  // namespace sctest

#define TEST(name)                                                  \
  static void test_##name();                                        \
  static sctest::Register reg_##name(#name, test_##name);           \
  static void test_##name()

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::ostringstream os_;                                                                  \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed";                       \
      throw sctest::Failure(os_.str());                                                        \
    }                                                                                          \
  } while (0)

#define CHECK_MSG(cond, msg)                                                                   \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::ostringstream os_;                                                                  \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed: " << msg;              \
      throw sctest::Failure(os_.str());                                                        \
    }                                                                                          \
  } while (0)

#define CHECK_THROWS_WITH(expr, needle)                                                        \
  do {                                                                                         \
    bool thrown_ = false;                                                                      \
    try {                                                                                      \
      expr;                                                                                    \
    } catch (const std::exception& e_) {                                                       \
      thrown_ = true;                                                                          \
      CHECK_MSG(std::string(e_.what()).find(needle) != std::string::npos, e_.what());          \
    }                                                                                          \
    CHECK_MSG(thrown_, "expected an exception from " #expr);                                  \
  } while (0)
