#include "model/bpe_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <queue>
#include <unordered_set>

#include "util/error.h"
#include "util/json.h"
#include "util/mapped_file.h"
#include "util/utf8.h"

namespace saccade {

namespace {

// Far above any released vocabulary (GLM-4: 151k), low enough that a hostile id cannot size a huge table.
constexpr int64_t kMaxVocab = int64_t(1) << 22;

// parse() adds the file's name to every refusal.
[[noreturn]] void refuse(const std::string& what) { throw EngineError(what); }

// GPT-2's byte alphabet: printable Latin-1 bytes stand for themselves and the other 68 bytes (controls, space,
// DEL, NBSP, soft hyphen) for U+0100 onwards in byte order, so every byte is a visible character in vocab files.
struct ByteAlphabet {
  char32_t of_byte[256];
  int16_t byte_of[0x144];  // -1: not in the alphabet

  ByteAlphabet() {
    std::fill(std::begin(byte_of), std::end(byte_of), int16_t(-1));
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      of_byte[b] = printable ? char32_t(b) : next++;
      byte_of[of_byte[b]] = int16_t(b);
    }
  }
};

const ByteAlphabet& alphabet() {
  static const ByteAlphabet a;
  return a;
}

std::string byte_level(const char* bytes, size_t size) {
  std::string s;
  for (size_t i = 0; i < size; ++i) append_utf8(alphabet().of_byte[uint8_t(bytes[i])], s);
  return s;
}

// What the ByteLevel decoder turns a token into: the bytes its characters stand for, or, when one of them is
// outside the alphabet (an added token such as "<|end of text|>"), the token's own UTF-8, as the library does.
std::string bytes_of_token(const std::string& token, int id) {
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  try {
    decode_utf8(token, cps, offsets);
  } catch (const EngineError&) {
    refuse("token " + std::to_string(id) + " is not valid UTF-8");
  }
  std::string out;
  for (char32_t c : cps) {
    if (c >= 0x144 || alphabet().byte_of[c] < 0) return token;
    out += char(alphabet().byte_of[c]);
  }
  return out;
}

bool is_null(const Json* j) { return !j || j->type() == Json::Type::Null; }

void only_keys(const Json& obj, std::initializer_list<const char*> keys, const std::string& where) {
  for (const auto& kv : obj.members(where)) {
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return kv.first == k; }))
      refuse(where + " option \"" + kv.first + "\" is not supported");
  }
}

bool flag(const Json& obj, const char* key, bool fallback, const std::string& where) {
  const Json* v = obj.find(key);
  return is_null(v) ? fallback : v->boolean(where + "." + key);
}

const std::string& type_of(const Json& obj, const std::string& where) {
  return obj.at("type", where).str(where + ".type");
}

// A ByteLevel pre-tokenizer: whether it splits with the GPT-2 pattern itself.
bool byte_level_uses_regex(const Json& j) {
  only_keys(j, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, "pre_tokenizer ByteLevel");
  if (flag(j, "add_prefix_space", false, "pre_tokenizer"))
    refuse("pre_tokenizer ByteLevel with add_prefix_space true is not supported");
  return flag(j, "use_regex", true, "pre_tokenizer");
}

SplitPattern split_of(const Json& j) {
  only_keys(j, {"type", "pattern", "behavior", "invert"}, "pre_tokenizer Split");
  const Json& pattern = j.at("pattern", "pre_tokenizer Split");
  const Json* regex = pattern.find("Regex");
  if (!regex) refuse("pre_tokenizer Split on a plain string is not supported (only the byte-level BPE regexes)");
  const std::string& source = regex->str("pre_tokenizer Split pattern");
  SplitPattern p;
  if (!split_pattern_of(source, &p)) refuse("pre_tokenizer Split pattern " + source + " is not supported");
  const std::string& behavior = j.at("behavior", "pre_tokenizer Split").str("pre_tokenizer Split behavior");
  if (behavior != "Isolated") refuse("pre_tokenizer Split behavior \"" + behavior + "\" is not supported");
  if (flag(j, "invert", false, "pre_tokenizer Split")) refuse("pre_tokenizer Split with invert true is not supported");
  return p;
}

std::vector<SplitPattern> pre_tokenizer_of(const Json* j) {
  if (is_null(j)) refuse("pre_tokenizer is missing (byte-level BPE needs ByteLevel)");
  const std::string& type = type_of(*j, "pre_tokenizer");
  std::vector<SplitPattern> splits;
  if (type == "ByteLevel") {
    if (byte_level_uses_regex(*j)) splits.push_back(SplitPattern::Gpt2);
    return splits;
  }
  if (type != "Sequence") refuse("pre_tokenizer \"" + type + "\" is not supported");
  only_keys(*j, {"type", "pretokenizers"}, "pre_tokenizer Sequence");
  const auto& items = j->at("pretokenizers", "pre_tokenizer").items("pre_tokenizer.pretokenizers");
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& t = type_of(items[i], "pre_tokenizer.pretokenizers[]");
    const bool last = i + 1 == items.size();
    if (t == "Split" && !last) {
      splits.push_back(split_of(items[i]));
    } else if (t == "ByteLevel" && last) {
      if (byte_level_uses_regex(items[i])) splits.push_back(SplitPattern::Gpt2);
    } else {
      refuse("pre_tokenizer Sequence with \"" + t + "\" at " + std::to_string(i) +
             " is not supported (only Split ..., then ByteLevel)");
    }
  }
  if (items.empty()) refuse("pre_tokenizer Sequence is empty");
  return splits;
}

void check_decoder(const Json* j) {
  if (is_null(j)) refuse("decoder is missing (byte-level BPE needs ByteLevel)");
  const std::string& type = type_of(*j, "decoder");
  if (type != "ByteLevel") refuse("decoder \"" + type + "\" is not supported (only ByteLevel)");
  only_keys(*j, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, "decoder ByteLevel");
}

// A merge in either form tokenizer.json has used: "a b", or ["a", "b"].
std::pair<std::string, std::string> merge_pair(const Json& m, size_t rank) {
  if (m.is_string()) {
    const std::string& s = m.str("model.merges[]");
    const size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
      refuse("merge " + std::to_string(rank) + " \"" + s + "\" is not two tokens");
    return {s.substr(0, space), s.substr(space + 1)};
  }
  const auto& pair = m.items("model.merges[]");
  if (pair.size() != 2) refuse("merge " + std::to_string(rank) + " is not two tokens");
  return {pair[0].str("model.merges[][0]"), pair[1].str("model.merges[][1]")};
}

uint64_t pair_key(int left, int right) { return uint64_t(uint32_t(left)) << 32 | uint32_t(right); }

}  // namespace

BpeTokenizer BpeTokenizer::load(const std::string& path) { return parse(read_text_file(path, kMaxTokenizerBytes)); }

// A function try block: every refusal names the file, whichever step found it (the JSON itself, a value of
// another type, or what this reader does not implement).
BpeTokenizer BpeTokenizer::parse(const std::string& json_text) try {
  const Json root = Json::parse(json_text);
  only_keys(root, {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                   "post_processor", "decoder", "model"}, "top-level");
  if (!is_null(root.find("truncation"))) refuse("truncation is not supported");
  if (!is_null(root.find("padding"))) refuse("padding is not supported");
  if (const Json* n = root.find("normalizer"); !is_null(n))
    refuse("normalizer \"" + type_of(*n, "normalizer") + "\" is not supported");

  BpeTokenizer t;
  const Json& model = root.at("model", "");
  const std::string& type = type_of(model, "model");
  if (type != "BPE") refuse("model type \"" + type + "\" is not supported (only BPE)");
  only_keys(model, {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                    "byte_fallback", "ignore_merges", "vocab", "merges"}, "model");
  if (const Json* d = model.find("dropout"); !is_null(d) && d->number("model.dropout") != 0)
    refuse("model dropout is not supported");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const Json* a = model.find(affix);
    if (!is_null(a) && !a->str(std::string("model.") + affix).empty())
      refuse(std::string("model ") + affix + " is not supported");
  }
  if (flag(model, "byte_fallback", false, "model")) refuse("model byte_fallback is not supported");
  t.ignore_merges_ = flag(model, "ignore_merges", false, "model");

  int64_t size = 0;
  auto check_id = [&](int64_t id, const std::string& token) {
    if (id < 0 || id >= kMaxVocab) refuse("id " + std::to_string(id) + " of \"" + token + "\" is out of range");
    size = std::max(size, id + 1);
  };
  const auto& vocab = model.at("vocab", "model").members("model.vocab");
  for (const auto& kv : vocab) {
    const int64_t id = kv.second.integer("model.vocab id");
    check_id(id, kv.first);
    if (kv.first.empty()) refuse("the vocabulary has an empty token");
    if (!t.vocab_.emplace(kv.first, int(id)).second) refuse("token \"" + kv.first + "\" is in the vocabulary twice");
  }
  std::unordered_set<std::string> special_contents;
  std::vector<std::pair<Added, bool>> added;  // token, normalized
  if (const Json* a = root.find("added_tokens"); !is_null(a)) {
    for (const Json& item : a->items("added_tokens")) {
      only_keys(item, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}, "added_tokens[]");
      const std::string& content = item.at("content", "added_tokens[]").str("added_tokens[].content");
      const int64_t id = item.at("id", "added_tokens[]").integer("added_tokens[].id");
      check_id(id, content);
      const Added tok{content, int(id)};
      if (tok.content.empty()) refuse("added token " + std::to_string(tok.id) + " is empty");
      for (const char* opt : {"single_word", "lstrip", "rstrip"})
        if (flag(item, opt, false, "added_tokens[]"))
          refuse("added token \"" + tok.content + "\" with " + opt + " true is not supported");
      const bool special = flag(item, "special", false, "added_tokens[]");
      if (special) special_contents.insert(tok.content);
      added.emplace_back(tok, flag(item, "normalized", !special, "added_tokens[]"));
    }
  }

  t.tokens_.assign(size_t(size), std::string());
  t.known_.assign(size_t(size), 0);
  std::vector<char> taken(size_t(size), 0);
  for (const auto& kv : t.vocab_) {
    if (taken[size_t(kv.second)]) refuse("id " + std::to_string(kv.second) + " is given to two tokens");
    taken[size_t(kv.second)] = 1;
    t.tokens_[size_t(kv.second)] = kv.first;
    t.known_[size_t(kv.second)] = 1;
  }
  for (const auto& [tok, normalized] : added) {
    // The added token's content wins over a vocabulary entry of the same id, as in the library's id_to_token.
    t.tokens_[size_t(tok.id)] = tok.content;
    t.known_[size_t(tok.id)] = 1;
    if (!t.added_ids_.emplace(tok.content, tok.id).second) refuse("added token \"" + tok.content + "\" appears twice");
    (normalized ? t.normalized_added_ : t.raw_added_).push_back(tok);
  }
  for (auto* list : {&t.raw_added_, &t.normalized_added_})
    std::stable_sort(list->begin(), list->end(),
                     [](const Added& a, const Added& b) { return a.content.size() > b.content.size(); });
  t.bytes_.resize(size_t(size));
  t.special_.assign(size_t(size), 0);
  for (int64_t id = 0; id < size; ++id) {
    if (!t.known_[size_t(id)]) continue;
    t.bytes_[size_t(id)] = bytes_of_token(t.tokens_[size_t(id)], int(id));
    t.special_[size_t(id)] = special_contents.count(t.tokens_[size_t(id)]) ? 1 : 0;
  }

  for (int b = 0; b < 256; ++b) {
    const char byte = char(b);
    auto it = t.vocab_.find(byte_level(&byte, 1));
    if (it == t.vocab_.end()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", b);
      refuse(std::string("the vocabulary lacks the character of byte ") + hex + " (not a byte-level BPE)");
    }
    t.byte_ids_[b] = it->second;
  }

  const auto& merges = model.at("merges", "model").items("model.merges");
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto [left, right] = merge_pair(merges[rank], rank);
    int ids[3];
    const std::string parts[3] = {left, right, left + right};
    for (int k = 0; k < 3; ++k) {
      auto it = t.vocab_.find(parts[k]);
      if (it == t.vocab_.end())
        refuse("merge " + std::to_string(rank) + " (\"" + left + " " + right + "\") needs \"" + parts[k] +
               "\", which is not in the vocabulary");
      ids[k] = it->second;
    }
    // A repeated pair keeps its last rank, as the library's map does.
    t.merges_[pair_key(ids[0], ids[1])] = Merge{int(rank), ids[2]};
  }

  t.splits_ = pre_tokenizer_of(root.find("pre_tokenizer"));
  check_decoder(root.find("decoder"));
  return t;
} catch (const EngineError& e) {
  throw EngineError(std::string("tokenizer.json: ") + e.what());
}

int BpeTokenizer::token_to_id(const std::string& token) const {
  if (auto it = added_ids_.find(token); it != added_ids_.end()) return it->second;
  auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

const std::string& BpeTokenizer::id_to_token(int id) const {
  static const std::string kNone;
  return id >= 0 && id < vocab_size() ? tokens_[size_t(id)] : kNone;
}

const std::string& BpeTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size() || !known_[size_t(id)])
    throw EngineError("tokenizer: id " + std::to_string(id) + " is not in the vocabulary (size " +
                      std::to_string(vocab_size()) + ")");
  return bytes_[size_t(id)];
}

namespace {

struct Span {
  size_t begin, end;
  int id;  // an added token, or -1 for text
};

// Cuts the added tokens out of text[begin, end): at the leftmost position where one starts, the longest
// (`tokens` is sorted longest first), as the library's leftmost-longest automaton does.
template <typename Added>
void cut_added(const std::vector<Added>& tokens, const std::string& text, size_t begin, size_t end,
               std::vector<Span>& out) {
  size_t text_start = begin;
  for (size_t i = begin; i < end && !tokens.empty();) {
    const Added* hit = nullptr;
    for (const Added& a : tokens) {
      if (a.content.size() <= end - i && text.compare(i, a.content.size(), a.content) == 0) {
        hit = &a;
        break;
      }
    }
    if (!hit) {
      ++i;
      continue;
    }
    if (i > text_start) out.push_back({text_start, i, -1});
    out.push_back({i, i + hit->content.size(), hit->id});
    i += hit->content.size();
    text_start = i;
  }
  if (end > text_start) out.push_back({text_start, end, -1});
}

}  // namespace

std::vector<int> BpeTokenizer::encode(const std::string& text) const {
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  decode_utf8(text, cps, offsets);  // refuses invalid UTF-8 before any work

  std::vector<Span> raw, spans;
  cut_added(raw_added_, text, 0, text.size(), raw);
  for (const Span& s : raw) {
    if (s.id >= 0) spans.push_back(s);
    else cut_added(normalized_added_, text, s.begin, s.end, spans);
  }

  std::vector<int> out;
  std::vector<size_t> ends, next;
  for (const Span& s : spans) {
    if (s.id >= 0) {
      out.push_back(s.id);
      continue;
    }
    // Added tokens start and end on character boundaries (both are valid UTF-8), so these are exact.
    const size_t first = size_t(std::lower_bound(offsets.begin(), offsets.end(), uint32_t(s.begin)) - offsets.begin());
    const size_t last = size_t(std::lower_bound(offsets.begin(), offsets.end(), uint32_t(s.end)) - offsets.begin());
    ends.assign(1, last);
    size_t start = first;
    for (SplitPattern p : splits_) {
      next.clear();
      start = first;
      for (size_t e : ends) {
        split_pieces(p, cps.data(), start, e, next);
        start = e;
      }
      ends.swap(next);
    }
    start = first;
    for (size_t e : ends) {
      encode_piece(text.data() + offsets[start], offsets[e] - offsets[start], out);
      start = e;
    }
  }
  return out;
}

// Byte pair merges over one piece, in the library's order: always the adjacent pair of lowest rank, the
// leftmost of equals, until no pair has a merge.
void BpeTokenizer::encode_piece(const char* bytes, size_t size, std::vector<int>& out) const {
  if (size == 0) return;
  if (ignore_merges_) {
    auto it = vocab_.find(byte_level(bytes, size));
    if (it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  struct Symbol {
    int id, prev, next;
    bool alive;
  };
  const int n = int(size);
  std::vector<Symbol> sym(size);
  for (int i = 0; i < n; ++i) sym[size_t(i)] = {byte_ids_[uint8_t(bytes[i])], i - 1, i + 1 < n ? i + 1 : -1, true};
  auto merge_at = [&](int left) -> const Merge* {
    const int right = sym[size_t(left)].next;
    if (right < 0) return nullptr;
    auto it = merges_.find(pair_key(sym[size_t(left)].id, sym[size_t(right)].id));
    return it == merges_.end() ? nullptr : &it->second;
  };
  using Entry = std::pair<int, int>;  // rank, position of the left symbol
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (int i = 0; i + 1 < n; ++i)
    if (const Merge* m = merge_at(i)) queue.push({m->rank, i});
  while (!queue.empty()) {
    const auto [rank, pos] = queue.top();
    queue.pop();
    if (!sym[size_t(pos)].alive) continue;
    const Merge* m = merge_at(pos);
    if (!m || m->rank != rank) continue;  // the pair has changed since it was queued
    Symbol& s = sym[size_t(pos)];
    Symbol& right = sym[size_t(s.next)];
    s.id = m->id;
    s.next = right.next;
    right.alive = false;
    if (s.next >= 0) sym[size_t(s.next)].prev = pos;
    if (s.prev >= 0)
      if (const Merge* p = merge_at(s.prev)) queue.push({p->rank, s.prev});
    if (const Merge* p = merge_at(pos)) queue.push({p->rank, pos});
  }
  for (int i = 0; i >= 0; i = sym[size_t(i)].next) out.push_back(sym[size_t(i)].id);
}

std::string BpeTokenizer::decode(const std::vector<int>& ids, bool skip_special) const {
  std::string bytes;
  for (int id : ids) {
    const std::string& b = token_bytes(id);
    if (!(skip_special && special_[size_t(id)])) bytes += b;
  }
  std::string out;
  append_lossy_utf8(bytes, false, out);
  return out;
}

std::string StreamDecoder::push(int id) {
  const std::string& b = tok_.token_bytes(id);
  if (!(skip_special_ && tok_.is_special(id))) held_ += b;
  std::string out;
  held_.erase(0, append_lossy_utf8(held_, true, out));
  return out;
}

std::string StreamDecoder::finish() {
  std::string out;
  append_lossy_utf8(held_, false, out);
  held_.clear();
  return out;
}

}  // namespace saccade
