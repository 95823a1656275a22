// Loading the checkpoint: valid files load; every kind of mismatch gives one clear error.
#include <cmath>

#include "model/model.h"
#include "model/vision.h"
#include "model/safetensors.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/json.h"
#include "util/mapped_file.h"

using namespace saccade;
using sctest::read_file;
using sctest::write_file;

TEST(tiny_checkpoint_loads) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "load");
  auto m = load_model(dir, {});
  CHECK(m->cfg.text.num_layers == 3);
  CHECK(m->layers.size() == 3);
  CHECK(m->weight_dtype == "F16");
  CHECK(m->tokenizer.decode({1, 8 + ('H' - ' '), 8 + ('i' - ' '), 2}) == "Hi");
  CHECK(m->tokenizer.encode("Hi").size() == 2);
}

TEST(missing_config_key_is_named) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "badcfg");
  std::string c = read_file(dir + "/config.json");
  c.replace(c.find("\"eos_token_id\""), 14, "\"eos_token_xx\"");
  write_file(dir + "/config.json", c);
  CHECK_THROWS_WITH(load_model(dir, {}), "missing key eos_token_id");
}

TEST(stem_checkpoint_loads_and_its_config_is_checked) {
  sctest::TinySpec spec;
  spec.stem_channels = {4, 6, 8};
  const std::string dir = sctest::write_tiny_checkpoint(spec, "stem");
  auto m = load_model(dir, {});
  CHECK(m->stem.size() == 3 && m->stem[2].in == 6 && m->stem[2].out == 8 && m->patch_embed.cols == 8);
  std::vector<uint8_t> gray(size_t(40) * 70);
  for (size_t i = 0; i < gray.size(); ++i) gray[i] = uint8_t(i * 37 % 251);
  const PreparedImage im = prepare_image(m->cfg, gray.data(), 70, 40);
  std::vector<float> feats(size_t(im.patch_rows) * im.patch_cols * 32);
  Buffer enc = vision_encoder(*m, im);
  CHECK(enc.size() == feats.size());
  m->backend->download(feats.data(), enc.data(), feats.size());
  for (float f : feats) CHECK(std::isfinite(f));
  const std::string c = read_file(dir + "/config.json");
  std::string v2 = c;
  v2.replace(v2.find("\"format_version\":3"), 18, "\"format_version\":2");
  write_file(dir + "/config.json", v2);
  CHECK_THROWS_WITH(load_model(dir, {}), "stem_channels needs format_version 3");
  std::string two = c;
  two.replace(two.find("[4,6,8]"), 7, "[4,8]");
  write_file(dir + "/config.json", two);
  CHECK_THROWS_WITH(load_model(dir, {}), "must equal patch_size");
  std::string wide = c;
  wide.replace(wide.find("[4,6,8]"), 7, "[4,6,9]");
  write_file(dir + "/config.json", wide);
  CHECK_THROWS_WITH(load_model(dir, {}), "config expects [9, 6, 3, 3]");
}

TEST(config_that_does_not_match_weights_is_rejected) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "mismatch");
  std::string c = read_file(dir + "/config.json");
  c.replace(c.find("\"intermediate_size\":96"), 22, "\"intermediate_size\":97");
  write_file(dir + "/config.json", c);
  CHECK_THROWS_WITH(load_model(dir, {}), "config expects [97, 64]");
}

TEST(extra_layer_in_weights_is_rejected) {
  sctest::TinySpec spec;
  const std::string dir = sctest::write_tiny_checkpoint(spec, "extra");
  std::string c = read_file(dir + "/config.json");
  c.replace(c.find("\"num_layers\":3"), 14, "\"num_layers\":2");
  write_file(dir + "/config.json", c);
  CHECK_THROWS_WITH(load_model(dir, {}), "unexpected tensor model.layers.2");
}

TEST(truncated_weights_are_rejected) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "trunc");
  std::string w = read_file(dir + "/model.safetensors");
  write_file(dir + "/model.safetensors", w.substr(0, w.size() - 100));
  CHECK_THROWS_WITH(load_model(dir, {}), "truncated or corrupt");
}

TEST(json_parser_handles_escapes_and_rejects_garbage) {
  Json j = Json::parse(std::string("{\"a\":\"x\\u00e9\\ud83d\\ude00\\n\",\"b\":[1,2.5e1,-3]}"));
  CHECK(j.at("a", "").str("a") == "x\xc3\xa9\xf0\x9f\x98\x80\n");
  CHECK(j.at("b", "").items("b")[1].number("b") == 25.0);
  CHECK_THROWS_WITH(Json::parse(std::string("{\"a\":1,}")), "invalid JSON");
  CHECK_THROWS_WITH(Json::parse(std::string(100, '[')), "nesting too deep");
  CHECK_THROWS_WITH(Json::parse(std::string("\"\\ud800\"")), "surrogate");
}

TEST(json_parser_refuses_a_key_given_twice) {
  CHECK(Json::parse(std::string("[{\"a\":1},{\"a\":2}]")).items("")[1].at("a", "").integer("a") == 2);
  CHECK_THROWS_WITH(Json::parse(std::string("{\"a\":1,\"b\":{\"x\":1,\"x\":2}}")),
                    "invalid JSON at byte 18: duplicate key \"x\"");
}

// The native parser once took the first of two "added_tokens" and JSON.parse the last: one file, two
// vocabularies. Such a file is now refused where it is read.
TEST(tokenizer_json_with_a_key_given_twice_is_refused) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "dupkey");
  std::string t = read_file(dir + "/tokenizer.json");
  t.insert(t.find('{') + 1, "\"added_tokens\":[],");
  write_file(dir + "/tokenizer.json", t);
  CHECK_THROWS_WITH(load_model(dir, {}), "tokenizer.json: invalid JSON at byte ");
  CHECK_THROWS_WITH(load_model(dir, {}), ": duplicate key \"added_tokens\"");
}

// /proc files report 0 bytes whatever they hold: a read is bounded by what it gives.
TEST(text_files_are_bounded_by_the_bytes_read_not_the_size_reported) {
  if (!path_exists("/proc/self/pagemap")) return;
  CHECK(read_text_file("/proc/self/status", kMaxConfigBytes).rfind("Name:", 0) == 0);
  CHECK_THROWS_WITH(read_text_file("/proc/self/pagemap", kMaxConfigBytes),
                    "/proc/self/pagemap holds more than 1048576 bytes, whatever size it reports");
}
