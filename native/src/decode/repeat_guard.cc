#include "decode/repeat_guard.h"

#include <algorithm>
#include <cctype>

namespace saccade {

int RepeatGuard::observe(const std::vector<int>& out) {
  const int n = int(out.size());
  for (int p = 1; p <= kMaxUnit; ++p) run_[size_t(p)] = n > p && out[size_t(n - 1)] == out[size_t(n - 1 - p)] ? run_[size_t(p)] + 1 : 0;
  for (int p = 1; p <= kMaxUnit; ++p) {
    const int span = run_[size_t(p)] + p;  // the p-periodic tail
    if (span >= std::max(kMinSpan, kMinCopies * p) && has_alnum(out, p)) return span - p;
  }
  return 0;
}

bool RepeatGuard::has_alnum(const std::vector<int>& out, int unit) const {
  // Only one-character pieces are text: tag and LaTeX-command tokens spell letters but are structure.
  for (size_t i = out.size() - size_t(unit); i < out.size(); ++i) {
    const std::string& piece = tok_.piece(out[i]);
    if (piece.size() == 1 && std::isalnum(static_cast<unsigned char>(piece[0]))) return true;
  }
  return false;
}

}  // namespace saccade
