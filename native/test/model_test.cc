// Forward passes on the tiny checkpoint: rows do not depend on the forward's width, drafts never touch the
// committed cache, and the image path produces the documented grid.
#include <cstring>

#include "decode/sequence.h"
#include "model/decoder.h"
#include "model/image_preprocess.h"
#include "model/line_encoder.h"
#include "model/vision.h"
#include "regions.h"
#include "test.h"
#include "tiny_checkpoint.h"

using namespace saccade;

namespace {

std::unique_ptr<Model> tiny_model(int threads = 2) {
  LoadOptions o;
  o.backend.threads = threads;
  return load_model(sctest::write_tiny_checkpoint({}, "model"), o);
}

std::vector<float> kv_snapshot(Model& m, KvCache& c, int slots) {
  const size_t n = size_t(slots) * m.cfg.text.num_key_value_heads * m.cfg.text.head_dim;
  std::vector<float> out;
  for (size_t l = 0; l < c.k.size(); ++l) {
    std::vector<float> k(n), v(n);
    m.backend->download(k.data(), c.k[l].data(), n);
    m.backend->download(v.data(), c.v[l].data(), n);
    out.insert(out.end(), k.begin(), k.end());
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace

TEST(target_size_follows_the_contract) {
  auto m = tiny_model();
  int W, H;
  target_size(m->cfg, 100, 20, &W, &H);  // upscaled to min_height 32 -> 160 x 32 = 10 x 2 units, within 24
  CHECK(H == 32 && W == 160);
  target_size(m->cfg, 1000, 1000, &W, &H);  // capped at 24 merged tokens
  CHECK((W / 16) * (H / 16) <= 24);
  CHECK(W % 16 == 0 && H % 16 == 0);
}

TEST(bilinear_resize_matches_half_pixel_reference) {
  // 2x upscale of a 2x1 image [0, 100]: torch gives [0, 25, 75, 100].
  const uint8_t px[2] = {0, 100};
  auto out = resize_bilinear(px, 2, 1, 4, 1);
  CHECK(out[0] == 0 && out[1] == 25 && out[2] == 75 && out[3] == 100);
}

TEST(decoder_rows_are_independent_of_forward_width) {
  auto m = tiny_model();
  const int V = m->cfg.text.vocab_size;
  Decoder dec(*m);
  Sequence seq(*m, dec, sctest::synthetic_region("r", 96, 48, 1), DecodeOptions{}, 8);
  const int L = seq.cache().len;
  const std::vector<int> toks{seq.pending(), 20, 30, 40, 50};
  std::vector<Row> rows;
  for (int i = 0; i < 5; ++i) rows.push_back({toks[size_t(i)], L + i, L + i + 1});
  const std::vector<float> wide = seq.forward(rows);
  for (int i = 0; i < 5; ++i) {
    const std::vector<float> one = seq.forward({rows[size_t(i)]});
    CHECK_MSG(std::memcmp(one.data(), wide.data() + size_t(i) * V, sizeof(float) * V) == 0, "row " << i);
    seq.cache().len += 1;  // commit it so the next single row sees it, as in AR
  }
}

TEST(results_do_not_depend_on_thread_count) {
  auto m1 = tiny_model(1), m2 = tiny_model(2);
  Decoder d1(*m1), d2(*m2);
  const RegionInput r = sctest::synthetic_region("r", 96, 48, 2);
  Sequence s1(*m1, d1, r, DecodeOptions{}, 8), s2(*m2, d2, r, DecodeOptions{}, 8);
  const int L = s1.cache().len;
  std::vector<Row> rows;
  for (int i = 0; i < 6; ++i) rows.push_back({10 + i, L + i, L + 6});
  const auto a = s1.forward(rows), b = s2.forward(rows);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST(draft_forward_leaves_the_committed_cache_untouched) {
  auto m = tiny_model();
  Decoder dec(*m);
  Sequence seq(*m, dec, sctest::synthetic_region("r", 96, 48, 3), DecodeOptions{}, 8);
  const int L = seq.cache().len;
  const std::vector<float> before = kv_snapshot(*m, seq.cache(), L);
  std::vector<Row> rows{{seq.pending(), L, L + 1}};
  for (int j = 0; j < 8; ++j) rows.push_back({m->cfg.mask_token_id, L + 1 + j, L + 9});
  seq.forward(rows);
  CHECK(kv_snapshot(*m, seq.cache(), L) == before);
  CHECK(seq.cache().len == L);
}

TEST(block_rows_see_the_whole_block_and_causal_rows_do_not) {
  auto m = tiny_model();
  const int V = m->cfg.text.vocab_size;
  Decoder dec(*m);
  Sequence seq(*m, dec, sctest::synthetic_region("r", 96, 48, 4), DecodeOptions{}, 8);
  const int L = seq.cache().len, mask = m->cfg.mask_token_id;
  // Changing a later block token changes an earlier mask row's logits (bidirectional) but never the causal
  // row in front of the block.
  auto run = [&](int last) {
    return seq.forward({{seq.pending(), L, L + 1}, {mask, L + 1, L + 4}, {mask, L + 2, L + 4}, {last, L + 3, L + 4}});
  };
  const auto a = run(mask), b = run(42);
  CHECK(std::memcmp(a.data(), b.data(), sizeof(float) * V) == 0);
  CHECK(std::memcmp(a.data() + V, b.data() + V, sizeof(float) * V) != 0);
}

TEST(image_grid_and_embeddings_have_documented_shape) {
  auto m = tiny_model();
  PreparedImage im = prepare_image(m->cfg, sctest::synthetic_region("r", 96, 48, 5).pixels.data(), 96, 48);
  CHECK(im.rows == 3 && im.cols == 6);
  CHECK(im.patches.size() == size_t(6 * 12 * 64));
  Buffer e = encode_image(*m, im);
  CHECK(e.size() == size_t(18 * m->cfg.text.hidden_size));
}

TEST(greedy_readout_adds_the_spaces_the_ctc_head_nearly_read) {
  // Classes: 0 space, 1 a, 2 b, 3 (blank), 4 (a character we lack). Columns: a, blank with space at 0.3, b,
  // blank with space at 0.01, a, a character we lack, then a with space second in its own column.
  const int classes = 5, space = 0;
  const std::vector<std::vector<float>> cols = {{0.0f, 0.9f, 0.0f, 0.1f, 0.0f}, {0.3f, 0.0f, 0.0f, 0.7f, 0.0f},
                                                {0.0f, 0.0f, 0.8f, 0.2f, 0.0f}, {0.01f, 0.0f, 0.0f, 0.99f, 0.0f},
                                                {0.0f, 0.6f, 0.0f, 0.4f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.1f, 0.9f},
                                                {0.2f, 0.7f, 0.0f, 0.1f, 0.0f}};
  std::vector<float> folded;
  for (const auto& c : cols) folded.insert(folded.end(), c.begin(), c.end());
  const int T = int(cols.size());
  LineReading reading;
  read_greedy(folded, T, classes, space, true, &reading);
  CHECK((reading.tokens == std::vector<int>{1, space, 2, 1, -1, 1}));
  CHECK((reading.token_column == std::vector<int>{0, 1, 2, 4, 5, 6}));
  CHECK(reading.token_prob.size() == reading.tokens.size());
  CHECK(reading.token_prob[1] == 0.3f && reading.token_prob[2] == 0.8f && reading.token_prob[3] == 0.6f);
  // The positions count the characters the CTC head wrote, not the added spaces.
  CHECK((reading.index == std::vector<int>{0, 1, 1, 2, 2, 3, 4}));
  LineReading plain;
  read_greedy(folded, T, classes, -1, false, &plain);
  CHECK((plain.tokens == std::vector<int>{1, 2, 1, -1, 1}));
  CHECK(plain.index.empty());
}
