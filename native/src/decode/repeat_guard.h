#pragma once
// Greedy decoding of a weak or confused model can fall into a loop ("the the the ..."), inventing text and
// running to the token cap. The guard watches the committed output and reports a loop once the output ends
// in at least kMinSpan tokens (and at least kMinCopies copies) of one unit of up to kMaxUnit tokens that
// holds a letter or digit character. Dot leaders, rules and empty table cells repeat on real pages and hold
// none, so they are left alone. It looks only at committed tokens, so AR and self-spec stop at the same token.
#include <array>
#include <vector>

#include "model/tokenizer.h"

namespace saccade {

class RepeatGuard {
 public:
  static constexpr int kMaxUnit = 16, kMinSpan = 40, kMinCopies = 4;
  explicit RepeatGuard(const Tokenizer& tok) : tok_(tok) {}
  // Call after each committed token. Returns how many trailing tokens repeat the loop's first copy (to be
  // retracted), or 0 when the output does not end in a loop.
  int observe(const std::vector<int>& out);

 private:
  bool has_alnum(const std::vector<int>& out, int unit) const;
  const Tokenizer& tok_;
  // run_[p]: trailing tokens equal to the token p places earlier.
  std::array<int, kMaxUnit + 1> run_{};
};

}  // namespace saccade
