// MTP speculation (docs/decisions/0018) on tiny checkpoints with an MTP head: greedy output equals greedy AR
// for every draft length, the sizer's choice and batch size, drafts are carried and verified as the round
// events say, a model or checkpoint without the head is refused clearly; and the draft-length sizer.
#include <algorithm>
#include <map>

#include "collect_events.h"
#include "decode/engine.h"
#include "decode/mtp_sizer.h"
#include "regions.h"
#include "test.h"
#include "tiny_checkpoint.h"
#include "util/error.h"

using namespace saccade;
using sctest::Collect;

namespace {

std::unique_ptr<Model> load_tiny(sctest::TinySpec spec, const std::string& name) {
  LoadOptions o;
  o.backend.threads = 2;
  return load_model(sctest::write_tiny_checkpoint(spec, name), o);
}

// Drafts that often match (the favoured token 50), so accepted runs, corrections and bonus tokens all occur.
Model& favoured() {
  static std::unique_ptr<Model> m = [] {
    sctest::TinySpec spec;
    spec.mtp = true;
    spec.favor_strength = 1.5f;
    return load_tiny(spec, "mtp-favor");
  }();
  return *m;
}

DecodeOptions opts(DecodeMode mode, int drafts) { return sctest::short_greedy(mode, drafts); }

DecodeResult run(Model& m, const DecodeOptions& o, Collect& sink) {
  ModelMemory memory;
  std::atomic<bool> cancel{false};
  return decode_regions(m, sctest::three_regions(), o, sink, cancel, &memory);
}

}  // namespace

TEST(greedy_mtp_equals_greedy_ar_for_every_draft_length_and_batch) {
  Collect ar_sink;
  const DecodeResult ar = run(favoured(), opts(DecodeMode::AR, 0), ar_sink);
  for (int k : {1, 3, 6, 0})
    for (int batch : {1, 3}) {
      Collect sink;
      DecodeOptions o = opts(DecodeMode::Mtp, k);
      o.batch_size = batch;
      const DecodeResult r = run(favoured(), o, sink);
      int accepted = 0, corrected = 0;
      for (const Event& e : sink.events) {
        if (e.type == Event::Type::Round) accepted += e.accepted;
        if (e.type == Event::Type::Token) corrected += e.source == TokenSource::Corrected;
      }
      for (size_t i = 0; i < ar.regions.size(); ++i) {
        CHECK_MSG(r.regions[i].tokens == ar.regions[i].tokens, "k=" << k << " batch=" << batch << " region " << i);
        CHECK(r.regions[i].stats.forwards == r.regions[i].stats.rounds);  // the head's passes are not trunk forwards
        // k = 0: the sizer's choice, which on this CPU may be AR steps.
        if (k > 0) CHECK(r.regions[i].stats.forwards < ar.regions[i].stats.forwards);
      }
      if (k > 0) CHECK_MSG(accepted > 10 && corrected > 0, "k=" << k << " " << accepted << " " << corrected);
    }
}

TEST(mtp_rounds_verify_the_drafts_the_previous_round_made) {
  Collect sink;
  run(favoured(), opts(DecodeMode::Mtp, 4), sink);
  std::map<std::string, const Event*> previous;
  int rounds = 0;
  for (const Event& e : sink.events) {
    if (e.type != Event::Type::Round) continue;
    ++rounds;
    const int checked = int(e.draft.size()) - e.block_size;
    CHECK(e.block_size <= 4 && checked <= 4);
    CHECK(e.verify.size() == std::min<size_t>(size_t(checked) + 1, size_t(e.accepted) + 1));
    // The committed tokens: the accepted drafts, then the trunk's token.
    CHECK(std::equal(e.draft.begin(), e.draft.begin() + e.accepted, e.committed.begin()));
    if (const Event* p = previous[e.region_id]) {
      CHECK(checked == p->block_size);  // every round's drafts are verified in the next one
      CHECK(std::equal(e.draft.begin(), e.draft.begin() + checked, p->draft.end() - p->block_size));
    } else {
      CHECK(checked == 0);  // the first round verifies nothing: the head has not read the prompt yet
    }
    previous[e.region_id] = &e;
  }
  CHECK(rounds > 0);
}

TEST(sampled_mtp_is_reproducible_by_seed) {
  DecodeOptions o = opts(DecodeMode::Mtp, 3);
  o.temperature = 0.8f;
  o.seed = 11;
  Collect a, b;
  const DecodeResult x = run(favoured(), o, a), y = run(favoured(), o, b);
  for (size_t i = 0; i < x.regions.size(); ++i) CHECK(x.regions[i].tokens == y.regions[i].tokens);
}

TEST(mtp_needs_a_head) {
  auto plain = load_tiny({}, "mtp-none");
  Collect sink;
  CHECK_THROWS_WITH(run(*plain, opts(DecodeMode::Mtp, 3), sink), "MTP head");
  // A config that promises a head its weights lack names the first missing tensor.
  sctest::TinySpec spec;
  spec.mtp = true;
  const std::string dir = sctest::write_tiny_checkpoint(spec, "mtp-cut");
  const std::string headless = sctest::write_tiny_checkpoint({}, "mtp-none");
  sctest::write_file(dir + "/model.safetensors", sctest::read_file(headless + "/model.safetensors"));
  LoadOptions lo;
  CHECK_THROWS_WITH(load_model(dir, lo), "missing tensor mtp.");
}

TEST(mtp_with_fixation_keeps_heatmaps_and_output) {
  // Fixation works on the trunk's verify forwards as on any other: heatmaps with nothing pruned change no
  // token, and pruning runs under MTP too.
  Collect ar_sink;
  const DecodeResult ar = run(favoured(), opts(DecodeMode::AR, 0), ar_sink);
  DecodeOptions o = opts(DecodeMode::Mtp, 3);
  o.fixation = {true, 2, 2, 1.0f};
  Collect sink;
  const DecodeResult fx = run(favoured(), o, sink);
  int with = 0, tokens = 0;
  for (const Event& e : sink.events)
    if (e.type == Event::Type::Token) ++tokens, with += e.has_fixation;
  CHECK(with > tokens / 2);
  for (size_t i = 0; i < ar.regions.size(); ++i) CHECK(fx.regions[i].tokens == ar.regions[i].tokens);
  o.fixation = {true, 2, 1, 0.25f};
  Collect pruned_sink;
  const DecodeResult pruned = run(favoured(), o, pruned_sink);
  for (const RegionResult& r : pruned.regions) CHECK(r.stats.visual_token_fraction < 1.0 && !r.tokens.empty());
}

namespace {
// Forward costs of a GPU-like device (flat in width) or a CPU-like one (proportional to width).
ForwardCosts costs(bool flat) {
  ForwardCosts c;
  for (int w : {1, 2, 4, 8, 16, 33, 65}) {
    c.widths.push_back(w);
    c.seconds.push_back(flat ? 1e-3 : 1e-3 * w);
  }
  return c;
}
}  // namespace

TEST(mtp_sizer_drafts_where_forwards_are_flat_and_steps_where_they_are_not) {
  // Flat forwards and a cheap head: every draft the head can make pays once drafts are often right.
  MtpSizer gpu(costs(true), 3, 1e-4);
  for (int i = 0; i < 20; ++i) gpu.observe(3, 3);
  CHECK(gpu.acceptance(1) > 0.9 && gpu.acceptance(3) > 0.9);
  CHECK(gpu.next(1) == 3);
  // Forwards that cost their width: a round of k drafts costs k + 1 steps and the head's passes, so even
  // drafts that always hold cannot pay; the sizer takes AR steps and never probes.
  MtpSizer cpu(costs(false), 3, 2e-4);
  for (int i = 0; i < 20; ++i) cpu.observe(3, 3);
  for (int round = 0; round < 300; ++round) CHECK(cpu.next(1) == 0);
}

TEST(mtp_sizer_follows_acceptance_by_depth_and_probes_from_ar_steps) {
  // Forwards whose cost grows slowly: drafts pay when they hold, not when they fail.
  ForwardCosts c;
  c.widths = {1, 2, 4, 8};
  c.seconds = {1e-3, 1.2e-3, 1.5e-3, 2e-3};
  MtpSizer s(c, 3, 1e-4);
  s.observe(3, 1);  // d_1 held, d_2 failed, d_3 never compared
  MtpMemory m = s.memory();
  CHECK(m.tried[0] == 4 && m.accepted[0] == 3 && m.tried[1] == 4 && m.accepted[1] == 2 && m.tried[2] == 3);
  for (int i = 0; i < 40; ++i) s.observe(3, 0);  // the head's drafts fail
  CHECK(s.acceptance(1) < 0.1);
  int probes = 0, first_probe = -1;
  for (int round = 0; round < 150; ++round)
    if (s.next(1) > 0) {
      ++probes;
      if (first_probe < 0) first_probe = round;
    }
  CHECK_MSG(first_probe == MtpMemory{}.probe.first() && probes == 1, first_probe << " " << probes);
  for (int i = 0; i < 60; ++i) s.observe(1, 1);  // drafts became good
  CHECK(s.next(1) >= 1);
}
