#include <chrono>
#include <cstdio>
#include <cstring>

#include "test.h"

// Runs every registered test (or those whose name contains argv[1]) and prints "N passed, N failed, N skipped".
int main(int argc, char** argv) {
  int passed = 0, failed = 0, skipped = 0;
  for (auto& t : sctest::Registry::tests()) {
    if (argc > 1 && t.first.find(argv[1]) == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      t.second();
      ++passed;
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("ok   %s (%.2fs)\n", t.first.c_str(), s);
    } catch (const sctest::Skip& e) {
      ++skipped;
      std::printf("skip %s: %s\n", t.first.c_str(), e.what());
    } catch (const std::exception& e) {
      ++failed;
      std::printf("FAIL %s: %s\n", t.first.c_str(), e.what());
    }
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
