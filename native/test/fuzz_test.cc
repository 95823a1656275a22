// Random truncations and bit flips of real checkpoint files must give an EngineError, never a crash.
#include <random>

#include "model/config.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "model/tokenizer.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/error.h"

using namespace saccade;

namespace {

std::string mutate(const std::string& s, std::mt19937_64& rng) {
  std::string m = s;
  switch (rng() % 3) {
    case 0:  // truncate
      m.resize(size_t(rng() % (s.size() + 1)));
      break;
    case 1:  // flip bits
      for (int i = 0, n = 1 + int(rng() % 8); i < n && !m.empty(); ++i) m[rng() % m.size()] ^= char(1 << (rng() % 8));
      break;
    default:  // overwrite a byte with a structural character
      if (!m.empty()) m[rng() % m.size()] = "{}[],:\"0-e\\"[rng() % 11];
  }
  return m;
}

// Runs f on mutated inputs; each must either succeed or throw EngineError.
template <class F>
int fuzz(const std::string& original, int iters, uint64_t seed, F&& f) {
  std::mt19937_64 rng(seed);
  int errors = 0;
  for (int i = 0; i < iters; ++i) {
    const std::string m = mutate(original, rng);
    try {
      f(m);
    } catch (const EngineError&) {
      ++errors;
    }
  }
  return errors;
}

}  // namespace

TEST(fuzzed_config_gives_errors_not_crashes) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "fuzz");
  const std::string cfg = sctest::read_file(dir + "/config.json");
  const int errors = fuzz(cfg, 3000, 11, [](const std::string& m) { parse_config(m); });
  CHECK(errors > 1000);  // most mutations must be caught
}

TEST(fuzzed_safetensors_header_gives_errors_not_crashes) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "fuzz");
  const std::string st = sctest::read_file(dir + "/model.safetensors");
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = hlen << 8 | uint8_t(st[size_t(i)]);
  // Mutate only the length field and header (the data section is opaque bytes), keep the data.
  const std::string head = st.substr(0, size_t(8 + hlen)), data = st.substr(size_t(8 + hlen));
  const int errors = fuzz(head, 3000, 12, [&](const std::string& m) {
    const std::string file = m + data;
    SafeTensors s(reinterpret_cast<const unsigned char*>(file.data()), file.size(), "fuzz");
    for (const auto& kv : s.tensors()) to_f32(kv.second);  // touches every byte the header points at
  });
  CHECK(errors > 1000);
}

TEST(fuzzed_tokenizer_gives_errors_not_crashes) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "fuzz");
  const std::string tk = sctest::read_file(dir + "/tokenizer.json");
  const int errors = fuzz(tk, 500, 13, [](const std::string& m) { Tokenizer::parse(m, 96); });
  CHECK(errors > 100);
}

TEST(fuzzed_checkpoint_files_fail_to_load_cleanly) {
  const std::string dir = sctest::write_tiny_checkpoint({}, "fuzzload");
  const std::string st = sctest::read_file(dir + "/model.safetensors");
  std::mt19937_64 rng(14);
  for (int i = 0; i < 40; ++i) {
    sctest::write_file(dir + "/model.safetensors", st.substr(0, size_t(rng() % st.size())));
    CHECK_THROWS_WITH(load_model(dir, {}), "model.safetensors");
  }
}
