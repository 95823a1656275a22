#include "model/tokenizer.h"

#include "util/error.h"
#include "util/json.h"
#include "util/utf8.h"

namespace saccade {

static const std::string kEmpty;

Tokenizer Tokenizer::parse(const std::string& text, int vocab_size) {
  Json root = Json::parse(text);
  Tokenizer t;
  t.pieces_.assign(size_t(vocab_size), std::string());
  t.special_.assign(size_t(vocab_size), 0);
  const Json& model = root.at("model", "tokenizer.json");
  const auto& vocab = model.at("vocab", "tokenizer.json.model").members("tokenizer.json.model.vocab");
  for (const auto& kv : vocab) {
    int64_t id = kv.second.integer("tokenizer vocab id");
    if (id < 0 || id >= vocab_size)
      throw EngineError("tokenizer.json: id " + std::to_string(id) + " of \"" + kv.first + "\" outside vocab_size");
    t.pieces_[size_t(id)] = kv.first;
  }
  if (const Json* added = root.find("added_tokens")) {
    for (const Json& a : added->items("tokenizer.json.added_tokens")) {
      int64_t id = a.at("id", "added_tokens[]").integer("added_tokens[].id");
      if (id < 0 || id >= vocab_size) throw EngineError("tokenizer.json: added token id outside vocab_size");
      t.pieces_[size_t(id)] = a.at("content", "added_tokens[]").str("added_tokens[].content");
      const Json* sp = a.find("special");
      if (sp && sp->boolean("added_tokens[].special")) t.special_[size_t(id)] = 1;
    }
  }
  t.index_pieces();
  return t;
}

Tokenizer Tokenizer::from_pieces(std::vector<std::string> pieces, std::vector<char> special) {
  Tokenizer t;
  t.pieces_ = std::move(pieces);
  t.special_ = std::move(special);
  t.special_.resize(t.pieces_.size(), 0);
  t.index_pieces();
  return t;
}

void Tokenizer::index_pieces() {
  for (int i = 0; i < size(); ++i) {
    if (special_[size_t(i)] || pieces_[size_t(i)].empty()) continue;
    lookup_.emplace(pieces_[size_t(i)], i);
    max_piece_ = std::max(max_piece_, pieces_[size_t(i)].size());
  }
}

const std::string& Tokenizer::piece(int id) const {
  if (id < 0 || id >= size() || special_[size_t(id)]) return kEmpty;
  return pieces_[size_t(id)];
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  std::string bytes, s;
  for (int id : ids) bytes += piece(id);
  append_lossy_utf8(bytes, false, s);  // byte-level pieces may leave a character unfinished
  return s;
}

std::vector<int> Tokenizer::encode(const std::string& text) const {
  std::vector<int> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t n = std::min(max_piece_, text.size() - i);
    for (; n > 0; --n) {
      auto it = lookup_.find(text.substr(i, n));
      if (it != lookup_.end()) {
        out.push_back(it->second);
        break;
      }
    }
    if (n == 0) throw EngineError("tokenizer: no token covers byte " + std::to_string(i) + " of the text");
    i += n;
  }
  return out;
}

}  // namespace saccade
