#pragma once
// A Hugging Face tokenizer.json with a byte-level BPE model (the GPT-2 / GLM-4 family), read without the
// `tokenizers` library and giving the same ids. Supported, and nothing else (anything else is refused at load
// with one line naming it):
//   model: BPE with vocab, merges ("a b" or ["a", "b"]), ignore_merges; no dropout, no subword affixes; the
//     vocabulary holds all 256 byte characters, so no text needs an unknown token.
//   normalizer: none. truncation, padding: none.
//   pre_tokenizer: ByteLevel (add_prefix_space false; use_regex: the GPT-2 pattern), or a Sequence of Split
//     (a pattern bpe_pretokenizer.h knows, behavior Isolated, not inverted) followed by that ByteLevel.
//   added_tokens: special or not, matched before pre-tokenization leftmost-longest, the normalized ones
//     after the others as the library does; single_word, lstrip and rstrip must be false.
//   decoder: ByteLevel.
//   post_processor: read but never applied: encode() is the library's encode(text, add_special_tokens=False),
//     so the prompt's special tokens are the caller's to place.
// Text to encode must be valid UTF-8 (the library takes only Unicode strings); otherwise encode throws. Decoded
// text is always valid UTF-8: bytes that form no character come out as U+FFFD, as the library's decode does.
// Encoding keeps no cache, so one loaded tokenizer serves any number of threads; prompts are short.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/bpe_pretokenizer.h"

namespace saccade {

class BpeTokenizer {
 public:
  static BpeTokenizer load(const std::string& path);
  static BpeTokenizer parse(const std::string& json_text);

  // One past the largest id of the vocabulary and the added tokens.
  int vocab_size() const { return int(bytes_.size()); }
  std::vector<int> encode(const std::string& text) const;
  // Throws EngineError for an id outside the vocabulary.
  std::string decode(const std::vector<int>& ids, bool skip_special) const;

  // The id of a token as tokenizer.json spells it (an added token's content, or a vocabulary entry in the
  // byte-level alphabet); -1 when there is none.
  int token_to_id(const std::string& token) const;
  // "" for an id no token has.
  const std::string& id_to_token(int id) const;
  bool is_special(int id) const { return id >= 0 && id < vocab_size() && special_[size_t(id)]; }
  // The bytes a token decodes to; throws EngineError for an id outside the vocabulary.
  const std::string& token_bytes(int id) const;

 private:
  struct Added {
    std::string content;
    int id;
  };
  struct Merge {
    int rank, id;
  };

  void encode_piece(const char* bytes, size_t size, std::vector<int>& out) const;

  std::vector<std::string> tokens_;  // by id, as tokenizer.json spells them
  std::vector<std::string> bytes_;   // by id, what each decodes to
  std::vector<char> known_, special_;
  std::unordered_map<std::string, int> vocab_;  // model vocabulary, byte-level spelling
  std::unordered_map<std::string, int> added_ids_;
  // Added tokens in the library's two passes: those matched on the raw text, then the "normalized" ones on
  // what is left (without a normalizer the text is the same, but the order of the passes still decides).
  std::vector<Added> raw_added_, normalized_added_;
  std::unordered_map<uint64_t, Merge> merges_;  // (left id << 32 | right id) -> rank and merged id
  int byte_ids_[256] = {};
  std::vector<SplitPattern> splits_;  // applied in order to each piece of the previous split
  bool ignore_merges_ = false;
};

// Decodes a stream of ids one at a time for display: each push returns only whole characters and holds back
// the bytes of one that the next tokens have yet to finish. The pushes' results and finish() concatenate to
// decode(all ids). The tokenizer must outlive the decoder.
class StreamDecoder {
 public:
  StreamDecoder(const BpeTokenizer& tokenizer, bool skip_special) : tok_(tokenizer), skip_special_(skip_special) {}
  std::string push(int id);
  // The held bytes, as U+FFFD (the stream ended inside a character); the decoder is then empty.
  std::string finish();

 private:
  const BpeTokenizer& tok_;
  bool skip_special_;
  std::string held_;
};

}  // namespace saccade
