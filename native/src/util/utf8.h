#pragma once
// UTF-8 for the tokenizers: strict reading of text to encode, and the lossy, resumable writing of decoded
// bytes (a token may end inside a character; what is shown must never hold half of one).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace saccade {

// Code points of `text` and the byte offset each starts at (`offsets` gets one more entry: the size).
// Throws EngineError naming the first byte that is not valid UTF-8 (overlong forms and surrogates included).
void decode_utf8(std::string_view text, std::vector<char32_t>& cps, std::vector<uint32_t>& offsets);

// Appends `bytes` to `out` as valid UTF-8, each maximal invalid subpart replaced by U+FFFD (Unicode's
// recommended practice, which Rust's from_utf8_lossy follows, so decoded text matches Hugging Face
// `tokenizers`). With `hold_tail`, a trailing sequence that more bytes could still complete is left out;
// returns how many bytes were consumed.
size_t append_lossy_utf8(std::string_view bytes, bool hold_tail, std::string& out);

void append_utf8(char32_t cp, std::string& out);

}  // namespace saccade
