// config.json's line encoders: the shipped model's PP-OCRv4 encoder with a small PP-OCRv6 one put in its place
// parses, and a PP-OCRv6 block that cannot run (an unknown kind, a residual that changes channels, a stride
// along the line, an even neck kernel) is refused with one message, as is every mutation of it (no crash).
#include <random>
#include <string>

#include "model/config.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/error.h"

using namespace saccade;

namespace {

// Heights 12 -> 6 -> 3, pooled to one row; widths W / 4 -> W / 8 through the pool: a token per 8 pixels.
const std::string kV6 =
    R"({"kind":"pp_ocrv6","stem":{"mid":8,"out":8},"pool":[3,2],"num_classes":10,"blocks":[)"
    R"({"in":8,"hidden":16,"out":8,"kernel":3,"stride":[2,1],"se":2,"residual":true},)"
    R"({"in":8,"hidden":16,"out":16,"kernel":3,"stride":[2,1],"se":0,"residual":false}],)"
    R"("neck":{"dim":8,"kernel":7,"depth":1,"heads":2,"mlp_ratio":2}})";

// The shipped model's config with its encoder replaced by `encoder`.
std::string with_encoder(const std::string& encoder) {
  std::string cfg = sctest::read_file(SACCADE_SOURCE_DIR "/../assets/models/saccade-ocr-tiny/config.json");
  const size_t key = cfg.find("\"encoder\"");
  const size_t open = cfg.find('{', key);
  size_t close = open;
  for (int depth = 0; close < cfg.size(); ++close) {
    if (cfg[close] == '{') ++depth;
    if (cfg[close] == '}' && --depth == 0) break;
  }
  return cfg.substr(0, open) + encoder + cfg.substr(close + 1);
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

}  // namespace

TEST(line_config_reads_a_pp_ocrv6_encoder_and_refuses_one_that_cannot_run) {
  const ModelConfig c = parse_config(with_encoder(kV6));
  CHECK(c.vision.encoder.kind == LineEncoderKind::PPOCRv6);
  CHECK(c.vision.encoder.stem_out == 8 && c.vision.encoder.neck_kernel == 7 && c.vision.encoder.channels() == 16);
  CHECK(c.vision.encoder.blocks[0].residual && c.vision.encoder.blocks[0].se_mid == 2);
  CHECK_THROWS_WITH(parse_config(with_encoder(replaced(kV6, "pp_ocrv6", "pp_ocrv7"))), "kind must be pp_ocrv4 or pp_ocrv6");
  CHECK_THROWS_WITH(parse_config(with_encoder(replaced(kV6, R"("out":16,"kernel":3,"stride":[2,1],"se":0,"residual":false)",
                                                       R"("out":16,"kernel":3,"stride":[2,1],"se":0,"residual":true)"))),
                    "keeps its channels where it adds back");
  CHECK_THROWS_WITH(parse_config(with_encoder(replaced(kV6, R"("stride":[2,1],"se":2)", R"("stride":[2,2],"se":2)"))),
                    "strides (1 or 2, 1)");
  CHECK_THROWS_WITH(parse_config(with_encoder(replaced(kV6, R"("kernel":7)", R"("kernel":6)"))), "kernel must be odd");
  CHECK_THROWS_WITH(parse_config(with_encoder(replaced(kV6, R"("pool":[3,2])", R"("pool":[6,2])"))), "one row, a token per 8 pixels");
}

TEST(fuzzed_pp_ocrv6_config_gives_errors_not_crashes) {
  const std::string cfg = with_encoder(kV6);
  std::mt19937_64 rng(46);
  int errors = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string m = cfg;
    const size_t at = std::uniform_int_distribution<size_t>(cfg.find("\"encoder\""), cfg.find("\"encoder\"") + kV6.size())(rng);
    m[at] = "0123456789{}[]\",:-ax"[rng() % 20];
    try {
      parse_config(m);
    } catch (const EngineError&) {
      ++errors;
    }
  }
  CHECK(errors > 500);
}
