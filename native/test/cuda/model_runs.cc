#include "model_runs.h"

#include <atomic>

#include "decode/block_size.h"
#include "decode/engine.h"
#include "model/decoder.h"
#include "model/image_preprocess.h"
#include "model/vision.h"

namespace gpucheck {
namespace {

struct DiscardEvents final : saccade::EventSink {
  void emit(saccade::Event&&) override {}
};

}  // namespace

int argmax(const float* v, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

DecodeRun run_decode(saccade::Model& m, const saccade::RegionInput& in, saccade::DecodeMode mode, int block_size,
                     bool fixation, int max_new_tokens) {
  saccade::DecodeOptions o;
  o.mode = mode;
  o.block_size = block_size;
  o.temperature = 0;
  o.max_new_tokens = max_new_tokens;
  o.fixation.enabled = fixation;
  DiscardEvents sink;
  std::atomic<bool> cancel{false};
  saccade::ModelMemory memory;
  const double t0 = saccade::now_ms();
  saccade::DecodeResult r = saccade::decode_regions(m, {in}, o, sink, cancel, &memory);
  DecodeRun run;
  run.wall_ms = saccade::now_ms() - t0;
  if (r.regions.size() != 1) throw saccade::EngineError("decode_regions returned no region for " + in.id);
  run.ids = r.regions[0].tokens;
  run.stats = r.regions[0].stats;
  return run;
}

FirstForwards first_forwards(saccade::Model& m, const saccade::RegionInput& in, int block) {
  saccade::Decoder dec(m);
  saccade::DecodeOptions o;
  o.fixation.enabled = false;
  saccade::Sequence seq(m, dec, in, o, block);
  const int vocab = m.cfg.text.vocab_size;
  const int L = seq.cache().len;
  FirstForwards f;
  f.prompt_logits = seq.forward({saccade::Row{seq.pending(), L, L + 1}});
  f.first_token = argmax(f.prompt_logits.data(), vocab);
  seq.cache().len = L + 1;  // the prompt's KV, written by the forward above, becomes committed
  std::vector<saccade::Row> rows{{f.first_token, L + 1, L + 2}};
  for (int j = 0; j < block; ++j) rows.push_back({m.cfg.mask_token_id, L + 2 + j, L + 2 + block});
  f.draft_logits = seq.forward(rows);
  return f;
}

std::vector<float> image_embeds(saccade::Model& m, const saccade::RegionInput& in) {
  const saccade::PreparedImage im = saccade::prepare_image(m.cfg, in.pixels.data(), in.width, in.height);
  saccade::Buffer e = saccade::encode_image(m, im);
  std::vector<float> host(e.size());
  m.backend->download(host.data(), e.data(), host.size());
  return host;
}

}  // namespace gpucheck
