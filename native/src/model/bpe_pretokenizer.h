#pragma once
// The split patterns of byte-level BPE tokenizers (the regex of a `Split` pre-tokenizer, or the one a
// `ByteLevel` pre-tokenizer applies itself), as hand-written scanners over code points: the standard library's
// regex has no \p{L} or \p{N}. Each scanner reproduces the leftmost-first, backtracking match of its pattern in
// Oniguruma, the engine Hugging Face `tokenizers` runs, so pieces equal the library's.
#include <cstddef>
#include <string>
#include <vector>

namespace saccade {

enum class SplitPattern {
  // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  Gpt2,
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  Gpt4,
};

// The pattern whose regex is exactly `regex`; false for every other string.
bool split_pattern_of(const std::string& regex, SplitPattern* out);

// Splits code points [begin, end) the way the pattern's find-all does, appending the end of each piece to
// `ends`. The pieces cover the range: every code point matches some alternative of these patterns.
void split_pieces(SplitPattern pattern, const char32_t* cps, size_t begin, size_t end, std::vector<size_t>& ends);

// Oniguruma's \p{L}, \p{N} and \s (the White_Space property) from the generated table (unicode_tables.inc).
enum class CharClass { Other, Letter, Number, Space };
CharClass char_class(char32_t cp);

}  // namespace saccade
