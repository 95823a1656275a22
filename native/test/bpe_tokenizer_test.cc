// The byte-level BPE reader against Hugging Face `tokenizers` (test/golden/bpe/README.md): the library's ids
// on 10,000 strings, round trips, streaming decode, and one clear line for every tokenizer.json it refuses.
#include <cstring>
#include <random>

#include "model/bpe_tokenizer.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/utf8.h"

using namespace saccade;

namespace {

const std::string kDir = SACCADE_SOURCE_DIR "/test/golden/bpe";

struct Case {
  std::string text;
  std::vector<int> ids;
  std::string skipped;  // decode(ids, skip_special) by the library
  uint32_t pieces_hash[2];  // the library's Split pieces of the whole text, GPT-4 and GPT-2 patterns (below)
};

struct Stream {
  std::vector<int> ids;
  std::string text;
};

struct Golden {
  std::vector<Case> cases;
  std::vector<std::vector<int>> gpt2_ids;  // for the first cases, by tokenizer_gpt2.json
  std::vector<Stream> streams;
};

class Reader {
 public:
  explicit Reader(std::string bytes) : b_(std::move(bytes)) {}
  uint32_t u32() { return uint32_t(get(4)); }
  uint16_t u16() { return uint16_t(get(2)); }
  std::string text(uint16_t n) {
    CHECK_MSG(pos_ + n <= b_.size(), "cases.bin is truncated");
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<int> ids() {
    std::vector<int> v(u16());
    for (int& id : v) id = u16();
    return v;
  }
  bool at_end() const { return pos_ == b_.size(); }

 private:
  uint64_t get(int n) {
    CHECK_MSG(pos_ + size_t(n) <= b_.size(), "cases.bin is truncated");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(b_[pos_ + size_t(i)])) << (8 * i);
    pos_ += size_t(n);
    return v;
  }
  std::string b_;
  size_t pos_ = 0;
};

const Golden& golden() {
  static const Golden g = [] {
    Reader r(sctest::read_file(kDir + "/cases.bin"));
    CHECK_MSG(r.text(8) == "SBPEGLD1", "cases.bin: bad magic");
    Golden out;
    out.cases.resize(r.u32());
    for (Case& c : out.cases) {
      c.text = r.text(r.u16());
      c.ids = r.ids();
      const uint16_t n = r.u16();
      c.skipped = n == 0xFFFF ? c.text : r.text(n);
      c.pieces_hash[0] = r.u32();
      c.pieces_hash[1] = r.u32();
    }
    out.gpt2_ids.resize(r.u32());
    for (auto& ids : out.gpt2_ids) ids = r.ids();
    out.streams.resize(r.u32());
    for (Stream& s : out.streams) {
      s.ids = r.ids();
      s.text = r.text(r.u16());
    }
    CHECK_MSG(r.at_end(), "cases.bin has trailing bytes");
    return out;
  }();
  return g;
}

// FNV-1a over the byte offsets where the pieces end, as make_bpe_golden.py hashes them.
uint32_t pieces_hash(const std::vector<uint32_t>& byte_ends) {
  uint32_t h = 0x811C9DC5u;
  for (uint32_t e : byte_ends)
    for (int k = 0; k < 4; ++k) h = (h ^ ((e >> (8 * k)) & 0xFF)) * 0x01000193u;
  return h;
}

const BpeTokenizer& glm() {
  static const BpeTokenizer t = BpeTokenizer::load(kDir + "/tokenizer.json");
  return t;
}

std::string shown(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

std::string ids_text(const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

bool valid_utf8(const std::string& s) {
  std::string out;
  return append_lossy_utf8(s, false, out) == s.size() && out == s;
}

std::string golden_json() { return sctest::read_file(kDir + "/tokenizer.json"); }

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  CHECK_MSG(at != std::string::npos, "no " << from << " in the test tokenizer");
  return s.replace(at, from.size(), to);
}

// How a vocabulary spells byte b (GPT-2's byte-level alphabet).
std::string byte_char(int b) {
  char32_t cp = char32_t(b);
  if (!((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE)) {
    cp = 0x100;
    for (int x = 0; x < b; ++x) cp += !((x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE);
  }
  std::string s;
  append_utf8(cp, s);
  return s;
}

// A tokenizer.json small enough to write by hand: byte b has id b, then `extra_vocab`, merges in the old
// "a b" form, and the given added tokens and pre-tokenizer.
std::string tiny_json(const std::string& added, const std::string& pre_tokenizer, const std::string& extra_vocab,
                      const std::string& merges) {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string ch = byte_char(b);
    if (ch == "\"" || ch == "\\") ch = "\\" + ch;
    vocab += (b ? "," : "") + ("\"" + ch + "\":" + std::to_string(b));
  }
  return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)" + added +
         R"(],"normalizer":null,"pre_tokenizer":)" + pre_tokenizer +
         R"(,"post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,)"
         R"("use_regex":true},"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":)"
         R"(null,"end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":false,"vocab":{)" +
         vocab + extra_vocab + R"(},"merges":[)" + merges + "]}}";
}

const char kLoneByteLevel[] = R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})";

}  // namespace

TEST(bpe_ids_match_the_library_on_golden_strings) {
  const Golden& g = golden();
  CHECK(g.cases.size() == 10000);
  int wrong = 0;
  std::string first;
  for (size_t i = 0; i < g.cases.size(); ++i) {
    const std::vector<int> ids = glm().encode(g.cases[i].text);
    if (ids == g.cases[i].ids) continue;
    if (!wrong++)
      first = "case " + std::to_string(i) + " \"" + shown(g.cases[i].text) + "\": got " + ids_text(ids) +
              ", the library " + ids_text(g.cases[i].ids);
  }
  CHECK_MSG(wrong == 0, wrong << " of " << g.cases.size() << " differ; first " << first);
}

// Ids only show a wrong split where a merge would cross it; the pieces themselves show every one.
TEST(bpe_split_patterns_cut_where_the_library_does) {
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  std::vector<size_t> ends;
  std::vector<uint32_t> byte_ends;
  const SplitPattern patterns[2] = {SplitPattern::Gpt4, SplitPattern::Gpt2};
  for (const Case& c : golden().cases) {
    decode_utf8(c.text, cps, offsets);
    for (int p = 0; p < 2; ++p) {
      ends.clear();
      split_pieces(patterns[p], cps.data(), 0, cps.size(), ends);
      byte_ends.clear();
      std::string pieces;
      uint32_t start = 0;
      for (size_t e : ends) {
        pieces += "[" + shown(c.text.substr(start, offsets[e] - start)) + "]";
        byte_ends.push_back(start = offsets[e]);
      }
      CHECK_MSG(pieces_hash(byte_ends) == c.pieces_hash[p], (p ? "GPT-2" : "GPT-4") << " pieces of \"" << shown(c.text)
                                                              << "\" differ from the library's: " << pieces);
    }
  }
}

TEST(bpe_gpt2_shape_matches_the_library) {
  const BpeTokenizer gpt2 = BpeTokenizer::load(kDir + "/tokenizer_gpt2.json");
  const Golden& g = golden();
  CHECK(!g.gpt2_ids.empty());
  for (size_t i = 0; i < g.gpt2_ids.size(); ++i) {
    const std::vector<int> ids = gpt2.encode(g.cases[i].text);
    CHECK_MSG(ids == g.gpt2_ids[i], "case " << i << " \"" << shown(g.cases[i].text) << "\": got " << ids_text(ids)
                                            << ", the library " << ids_text(g.gpt2_ids[i]));
  }
}

TEST(bpe_decode_round_trips_and_skips_specials_like_the_library) {
  for (const Case& c : golden().cases) {
    CHECK_MSG(glm().decode(c.ids, false) == c.text, "\"" << shown(c.text) << "\"");
    CHECK_MSG(glm().decode(c.ids, true) == c.skipped, "\"" << shown(c.text) << "\" without specials");
  }
}

TEST(bpe_stream_decode_shows_only_whole_characters) {
  for (const Case& c : golden().cases) {
    for (bool skip : {false, true}) {
      StreamDecoder d(glm(), skip);
      std::string all;
      for (int id : c.ids) {
        const std::string part = d.push(id);
        CHECK_MSG(valid_utf8(part), "a push of \"" << shown(c.text) << "\" gave \"" << shown(part) << "\"");
        all += part;
      }
      CHECK(d.finish().empty());
      CHECK_MSG(all == (skip ? c.skipped : c.text), "\"" << shown(c.text) << "\" streamed as \"" << shown(all) << "\"");
    }
  }
}

TEST(bpe_broken_bytes_decode_as_the_library_does) {
  for (const Stream& s : golden().streams) {
    CHECK_MSG(glm().decode(s.ids, false) == s.text, ids_text(s.ids) << ": \"" << shown(glm().decode(s.ids, false))
                                                                   << "\", the library \"" << shown(s.text) << "\"");
    StreamDecoder d(glm(), false);
    std::string all;
    for (int id : s.ids) {
      const std::string part = d.push(id);
      CHECK(valid_utf8(part));
      all += part;
    }
    const std::string tail = d.finish();
    CHECK(valid_utf8(tail));
    CHECK_MSG(all + tail == s.text, ids_text(s.ids));
  }
}

// Any code point, assigned or not, in any plane: encoding never fails on valid UTF-8 and decoding gives it back.
TEST(bpe_round_trips_random_code_points) {
  std::mt19937 rng(23);
  for (int n = 0; n < 2000; ++n) {
    std::string s;
    const int len = int(rng() % 40);
    for (int k = 0; k < len; ++k) {
      const uint32_t r = rng();
      char32_t cp = r % 4 == 0 ? r % 0x80 : r % 4 == 1 ? r % 0x800 : r % 4 == 2 ? r % 0x10000 : r % 0x110000;
      if (cp >= 0xD800 && cp < 0xE000) cp = ' ';
      append_utf8(cp, s);
    }
    CHECK_MSG(glm().decode(glm().encode(s), false) == s, "\"" << shown(s) << "\"");
  }
}

TEST(bpe_stream_holds_a_character_split_across_tokens) {
  const std::string euro = "\xE2\x82\xAC";  // three byte tokens, one character
  std::vector<int> ids;
  for (char c : euro) ids.push_back(glm().token_to_id(byte_char(uint8_t(c))));
  CHECK(ids[0] >= 0 && ids[1] >= 0 && ids[2] >= 0);
  StreamDecoder d(glm(), false);
  CHECK(d.push(ids[0]).empty());
  CHECK(d.push(ids[1]).empty());
  CHECK(d.push(ids[2]) == euro);
  StreamDecoder cut(glm(), false);
  CHECK(cut.push(ids[0]).empty());
  CHECK(cut.push(ids[1]).empty());
  CHECK(cut.finish() == "\xEF\xBF\xBD");  // the stream ended inside the character: one replacement, as decode
  CHECK(glm().decode({ids[0], ids[1]}, false) == "\xEF\xBF\xBD");
}

TEST(bpe_special_tokens_in_the_middle_of_text) {
  const BpeTokenizer& t = glm();
  const int image = t.token_to_id("<|image|>"), gmask = t.token_to_id("[gMASK]"), td = t.token_to_id("<td>");
  CHECK(image >= 0 && gmask >= 0 && td >= 0);
  CHECK(t.is_special(image) && t.is_special(gmask) && !t.is_special(td));
  CHECK(t.id_to_token(image) == "<|image|>");
  CHECK(t.token_to_id("<|no such token|>") == -1);
  CHECK(t.vocab_size() == 3005);
  // Text on each side is pre-tokenized on its own: " world" keeps its space with the word.
  auto cat = [](std::vector<std::vector<int>> parts) {
    std::vector<int> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  const std::string left = "Hello's", right = " world\n";
  CHECK(t.encode(left + "<|image|>" + right) == cat({t.encode(left), {image}, t.encode(right)}));
  CHECK(t.encode("[gMASK]<|image|><td>x") == cat({{gmask, image, td}, t.encode("x")}));
  CHECK(t.decode(t.encode("a<|image|>b<td>c"), true) == "ab<td>c");
  CHECK(t.decode(t.encode("a<|image|>b<td>c"), false) == "a<|image|>b<td>c");
}

TEST(bpe_added_tokens_raw_before_normalized) {
  // "ab" is matched on the raw text first, so in "xab" it wins over "xa", which starts further left but is only
  // looked for afterwards (as tokenizers 0.23 splits it: ["x", "ab"]).
  const std::string added =
      R"({"id":256,"content":"ab","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,)"
      R"("special":true},{"id":257,"content":"xa","single_word":false,"lstrip":false,"rstrip":false,)"
      R"("normalized":true,"special":false})";
  const BpeTokenizer t = BpeTokenizer::parse(tiny_json(added, kLoneByteLevel, "", ""));
  CHECK(t.encode("xab") == std::vector<int>({'x', 256}));
  CHECK(t.encode("xac") == std::vector<int>({257, 'c'}));
  CHECK(t.vocab_size() == 258);
}

TEST(bpe_merges_in_the_string_form) {
  const std::string extra = R"(,"he":256,"ll":257,"hell":258,"Ġw":259)";
  const BpeTokenizer t = BpeTokenizer::parse(tiny_json("", kLoneByteLevel, extra, R"("l l","h e","he ll","Ġ w")"));
  CHECK(t.encode("hello w") == std::vector<int>({258, 'o', 259}));
  CHECK(t.decode({258, 'o', 259}, false) == "hello w");
}

TEST(bpe_repeated_merge_keeps_its_last_rank) {
  // As tokenizers 0.23 encodes "abc" with these merges: ["a", "bc"].
  const std::string extra = R"(,"ab":256,"bc":257)";
  const BpeTokenizer t = BpeTokenizer::parse(tiny_json("", kLoneByteLevel, extra, R"("a b","b c","a b")"));
  CHECK(t.encode("abc") == std::vector<int>({'a', 257}));
}

TEST(bpe_ignore_merges_takes_a_whole_word_from_the_vocabulary) {
  // "abc" is in the vocabulary but no merge builds it; tokenizers 0.23 gives ["abc", "Ġ", "a", "bc", "d"] with
  // ignore_merges and ["a", "bc", "Ġ", "a", "bc", "d"] without.
  const std::string extra = R"(,"ab":256,"bc":257,"abc":258)";
  std::string json = tiny_json("", kLoneByteLevel, extra, R"("b c","a b")");
  CHECK(BpeTokenizer::parse(json).encode("abc abcd") == std::vector<int>({'a', 257, ' ', 'a', 257, 'd'}));
  json = replaced(json, R"("ignore_merges":false)", R"("ignore_merges":true)");
  CHECK(BpeTokenizer::parse(json).encode("abc abcd") == std::vector<int>({258, ' ', 'a', 257, 'd'}));
}

TEST(bpe_invalid_utf8_and_unknown_ids_are_refused) {
  CHECK_THROWS_WITH(glm().encode("ok\xC3("), "tokenizer: text is not valid UTF-8 at byte 2");
  CHECK_THROWS_WITH(glm().encode("\xED\xA0\x80"), "not valid UTF-8 at byte 0");  // a surrogate
  CHECK_THROWS_WITH(glm().encode("\xC0\xAF"), "not valid UTF-8 at byte 0");      // overlong
  CHECK_THROWS_WITH(glm().decode({5, 3005}, false), "tokenizer: id 3005 is not in the vocabulary (size 3005)");
  CHECK_THROWS_WITH(glm().decode({-1}, false), "id -1 is not in the vocabulary");
  StreamDecoder d(glm(), true);
  CHECK_THROWS_WITH(d.push(99999), "id 99999 is not in the vocabulary");
}

TEST(bpe_loader_refuses_what_it_does_not_implement) {
  const std::string j = golden_json();
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"(\\p{N}{1,3})", R"(\\p{N})")),
                    "tokenizer.json: pre_tokenizer Split pattern (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?"
                    "\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+ is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("type":"BPE")", R"("type":"WordPiece")")),
                    "tokenizer.json: model type \"WordPiece\" is not supported (only BPE)");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"(["Ġ","t"])", R"(["Ġ","t\u2603"])")),
                    "tokenizer.json: merge 0 (\"Ġ t\u2603\") needs \"t\u2603\", which is not in the vocabulary");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("normalizer":null)", R"("normalizer":{"type":"NFC"})")),
                    "tokenizer.json: normalizer \"NFC\" is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("behavior":"Isolated")", R"("behavior":"Removed")")),
                    "tokenizer.json: pre_tokenizer Split behavior \"Removed\" is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("use_regex":false)", R"("use_regex":false,"x":1)")),
                    "tokenizer.json: pre_tokenizer ByteLevel option \"x\" is not supported");
  CHECK_THROWS_WITH(
      BpeTokenizer::parse(replaced(j, R"("content":"<|image|>","single_word":false,"lstrip":false)",
                                   R"("content":"<|image|>","single_word":false,"lstrip":true)")),
      "tokenizer.json: added token \"<|image|>\" with lstrip true is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("dropout":null)", R"("dropout":0.1)")),
                    "tokenizer.json: model dropout is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("truncation":null)", R"("truncation":{"max_length":8})")),
                    "tokenizer.json: truncation is not supported");
  CHECK_THROWS_WITH(
      BpeTokenizer::parse(replaced(j, R"("decoder":{"type":"ByteLevel")", R"("decoder":{"type":"BPEDecoder")")),
      "tokenizer.json: decoder \"BPEDecoder\" is not supported (only ByteLevel)");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("id":11,)", R"("id":99999999,)")),
                    "tokenizer.json: id 99999999 of \"<|image|>\" is out of range");
  CHECK_THROWS_WITH(BpeTokenizer::parse(replaced(j, R"("Ā":)", R"("Ā-gone":)")),
                    "tokenizer.json: the vocabulary lacks the character of byte 0x00 (not a byte-level BPE)");
  CHECK_THROWS_WITH(BpeTokenizer::parse(tiny_json("", R"({"type":"Whitespace"})", "", "")),
                    "tokenizer.json: pre_tokenizer \"Whitespace\" is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(tiny_json("", R"({"type":"ByteLevel","add_prefix_space":true})", "", "")),
                    "tokenizer.json: pre_tokenizer ByteLevel with add_prefix_space true is not supported");
  CHECK_THROWS_WITH(BpeTokenizer::parse(tiny_json("", kLoneByteLevel, "", R"("a b c")")),
                    "tokenizer.json: merge 0 \"a b c\" is not two tokens");
}
