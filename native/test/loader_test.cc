// Loading the checkpoint: valid files load; every kind of mismatch gives one clear error.
#include "model/model.h"
#include "model/safetensors.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/json.h"

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
