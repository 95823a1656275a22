#pragma once
// tokenizer.json (docs/model-format.md): id -> string; special tokens decode to nothing; encoding is greedy
// longest match over the non-special vocabulary. A GLM-OCR folder's pieces are the bytes of its byte-level BPE
// tokens (from_pieces), which decode() turns into valid UTF-8 as Hugging Face's decoder does.
#include <string>
#include <unordered_map>
#include <vector>

namespace saccade {

class Tokenizer {
 public:
  Tokenizer() = default;
  static Tokenizer parse(const std::string& json_text, int vocab_size);
  // From each id's text and special flag (a GLM-OCR folder, whose byte-level BPE model/bpe_tokenizer.h reads).
  static Tokenizer from_pieces(std::vector<std::string> pieces, std::vector<char> special);

  int size() const { return int(pieces_.size()); }
  // Text of one token ("" for special or unknown ids).
  const std::string& piece(int id) const;
  bool is_special(int id) const { return id >= 0 && id < size() && special_[id]; }
  std::string decode(const std::vector<int>& ids) const;
  std::vector<int> encode(const std::string& text) const;

 private:
  void index_pieces();
  std::vector<std::string> pieces_;
  std::vector<char> special_;
  std::unordered_map<std::string, int> lookup_;
  size_t max_piece_ = 0;
};

}  // namespace saccade
