#include "model/bpe_pretokenizer.h"

#include <algorithm>
#include <iterator>

namespace saccade {

namespace {

constexpr CharClass kLetter = CharClass::Letter, kNumber = CharClass::Number, kSpace = CharClass::Space;

struct ClassRange {
  char32_t first, last;
  CharClass cls;
};

constexpr ClassRange kRanges[] = {
#include "model/unicode_tables.inc"
};

const char kGpt2Regex[] = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char kGpt4Regex[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

struct Scanner {
  const char32_t* s;
  size_t end;

  CharClass cls(size_t i) const { return char_class(s[i]); }
  bool is(size_t i, CharClass c) const { return i < end && cls(i) == c; }
  bool newline(size_t i) const { return i < end && (s[i] == '\r' || s[i] == '\n'); }
  size_t run(size_t i, CharClass c) const {
    while (i < end && cls(i) == c) ++i;
    return i;
  }

  // 's|'t|'re|'ve|'m|'ll|'d at i (the apostrophe already seen); 0 when none. Under (?i) Oniguruma also folds
  // U+017F (long s) to s; no other code point folds to these letters (checked against the library).
  size_t contraction(size_t i, bool fold) const {
    auto low = [&](size_t k) -> char32_t {
      if (k >= end) return 0;
      const char32_t c = s[k];
      if (!fold) return c;
      if (c >= 'A' && c <= 'Z') return c + 32;
      return c == 0x17F ? char32_t('s') : c;
    };
    const char32_t a = low(i + 1);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    const char32_t b = low(i + 2);
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    return 0;
  }

  // \s+(?!\S)|\s+ at a white space i: the run, less its last character when a non-space follows and the
  // run could give one back.
  size_t trailing_space(size_t i) const {
    const size_t e = run(i, kSpace);
    return e == end ? e : std::max(e - 1, i + 1);
  }

  size_t gpt2(size_t i) const {
    if (s[i] == '\'')
      if (size_t e = contraction(i, false)) return e;
    const size_t after_space = s[i] == ' ' ? i + 1 : i;
    for (CharClass c : {kLetter, kNumber, CharClass::Other})  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
      if (is(after_space, c)) return run(after_space, c);
    return trailing_space(i);  // only white space is left, and a space not followed by a letter, digit or other
  }

  size_t gpt4(size_t i) const {
    if (s[i] == '\'')
      if (size_t e = contraction(i, true)) return e;
    const CharClass c = cls(i);
    if (c == kLetter) return run(i, kLetter);
    if (c != kNumber && !newline(i) && is(i + 1, kLetter)) return run(i + 1, kLetter);  // [^\r\n\p{L}\p{N}]?\p{L}+
    if (c == kNumber) {  // \p{N}{1,3}
      size_t e = i + 1;
      while (e < i + 3 && is(e, kNumber)) ++e;
      return e;
    }
    const size_t start = s[i] == ' ' && is(i + 1, CharClass::Other) ? i + 1 : i;
    if (is(start, CharClass::Other)) {  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
      size_t e = run(start, CharClass::Other);
      while (newline(e)) ++e;
      return e;
    }
    // \s*[\r\n]+: \s* gives back the run until the last \r or \n in it, which [\r\n]+ then takes.
    const size_t e = run(i, kSpace);
    for (size_t k = e; k > i; --k)
      if (newline(k - 1)) return k;
    return trailing_space(i);
  }
};

}  // namespace

CharClass char_class(char32_t cp) {
  auto it = std::upper_bound(std::begin(kRanges), std::end(kRanges), cp,
                             [](char32_t c, const ClassRange& r) { return c < r.first; });
  if (it == std::begin(kRanges)) return CharClass::Other;
  --it;
  return cp <= it->last ? it->cls : CharClass::Other;
}

bool split_pattern_of(const std::string& regex, SplitPattern* out) {
  if (regex == kGpt2Regex) {
    *out = SplitPattern::Gpt2;
    return true;
  }
  if (regex == kGpt4Regex) {
    *out = SplitPattern::Gpt4;
    return true;
  }
  return false;
}

void split_pieces(SplitPattern pattern, const char32_t* cps, size_t begin, size_t end, std::vector<size_t>& ends) {
  const Scanner sc{cps, end};
  for (size_t i = begin; i < end;) {
    i = pattern == SplitPattern::Gpt2 ? sc.gpt2(i) : sc.gpt4(i);
    ends.push_back(i);
  }
}

}  // namespace saccade
