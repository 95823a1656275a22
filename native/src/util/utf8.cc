#include "util/utf8.h"

#include "util/error.h"

namespace saccade {

namespace {

// Length of the sequence a lead byte starts and the range its second byte must fall in (Unicode's table of
// well-formed sequences); 0 for a byte no sequence starts with.
struct Lead {
  int len;
  uint8_t lo, hi;
};

Lead lead_of(uint8_t b) {
  if (b < 0x80) return {1, 0, 0};
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};  // U+D800..U+DFFF are surrogates, not characters
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing above U+10FFFF
  return {0, 0, 0};
}

// How many bytes from `p` form a well-formed prefix of one sequence (at least 1), and whether it is whole.
size_t valid_prefix(const uint8_t* p, size_t avail, bool* whole) {
  const Lead l = lead_of(p[0]);
  if (l.len <= 1) {
    *whole = l.len == 1;
    return 1;
  }
  size_t k = 1;
  for (; k < size_t(l.len) && k < avail; ++k) {
    const uint8_t lo = k == 1 ? l.lo : 0x80, hi = k == 1 ? l.hi : 0xBF;
    if (p[k] < lo || p[k] > hi) break;
  }
  *whole = k == size_t(l.len);
  return k;
}

}  // namespace

void append_utf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

void decode_utf8(std::string_view text, std::vector<char32_t>& cps, std::vector<uint32_t>& offsets) {
  if (text.size() >= UINT32_MAX)
    throw EngineError("tokenizer: text of " + std::to_string(text.size()) + " bytes is too long");
  cps.clear();
  offsets.clear();
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    bool whole = false;
    const size_t k = valid_prefix(p + i, text.size() - i, &whole);
    if (!whole) throw EngineError("tokenizer: text is not valid UTF-8 at byte " + std::to_string(i));
    char32_t cp = k == 1 ? p[i] : char32_t(p[i] & (0x7F >> k));
    for (size_t j = 1; j < k; ++j) cp = (cp << 6) | (p[i + j] & 0x3F);
    cps.push_back(cp);
    offsets.push_back(uint32_t(i));
    i += k;
  }
  offsets.push_back(uint32_t(text.size()));
}

size_t append_lossy_utf8(std::string_view bytes, bool hold_tail, std::string& out) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t i = 0;
  while (i < bytes.size()) {
    bool whole = false;
    const size_t k = valid_prefix(p + i, bytes.size() - i, &whole);
    if (whole) {
      out.append(bytes.data() + i, k);
    } else if (hold_tail && i + k == bytes.size() && lead_of(p[i]).len > 1) {
      return i;
    } else {
      out += "\xEF\xBF\xBD";
    }
    i += k;
  }
  return i;
}

}  // namespace saccade
