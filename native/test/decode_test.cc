// Decoding strategies on the tiny checkpoint: greedy self-spec reproduces greedy AR exactly, for fixed and
// automatic block sizes; diffusion, refinement, sampling and fixation behave as specified.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "decode/engine.h"
#include "decode/reading_draft.h"
#include "decode/repeat_guard.h"
#include "collect_events.h"
#include "regions.h"
#include "test.h"
#include "tiny_checkpoint.h"

using namespace saccade;

using sctest::Collect;

namespace {

Model& tiny() {
  static std::unique_ptr<Model> m = [] {
    LoadOptions o;
    o.backend.threads = 2;
    return load_model(sctest::write_tiny_checkpoint({}, "decode"), o);
  }();
  return *m;
}

std::vector<RegionInput> regions() { return sctest::three_regions(); }

DecodeResult run(DecodeOptions o, Collect* sink = nullptr, ModelMemory* state = nullptr) {
  Collect local;
  ModelMemory c;
  std::atomic<bool> cancel{false};
  return decode_regions(tiny(), regions(), o, sink ? *sink : local, cancel, state ? state : &c);
}

DecodeOptions opts(DecodeMode mode, int block) { return sctest::short_greedy(mode, block); }

}  // namespace

TEST(greedy_self_spec_equals_greedy_ar) {
  const DecodeResult ar = run(opts(DecodeMode::AR, 0));
  CHECK(ar.regions.size() == 3);
  for (int B : {1, 3, 8, 16}) {
    const DecodeResult sp = run(opts(DecodeMode::Spec, B));
    for (size_t i = 0; i < ar.regions.size(); ++i) {
      CHECK_MSG(sp.regions[i].tokens == ar.regions[i].tokens, "B=" << B << " region " << i);
      CHECK(sp.regions[i].stats.forwards == sp.regions[i].stats.rounds);  // verify and draft share one forward
    }
  }
}

TEST(greedy_self_spec_with_auto_block_equals_ar) {
  const DecodeResult ar = run(opts(DecodeMode::AR, 0));
  Collect sink;
  ModelMemory state;
  const DecodeResult sp = run(opts(DecodeMode::Spec, 0), &sink, &state);
  CHECK(!state.costs.widths.empty() && state.costs.seconds.size() == state.costs.widths.size());
  CHECK(!state.speculation.empty());  // each decoded kind leaves its acceptance memory behind
  for (size_t i = 0; i < ar.regions.size(); ++i) CHECK(sp.regions[i].tokens == ar.regions[i].tokens);
  CHECK(sink.count(Event::Type::Round) > 0);
}

TEST(refined_drafts_keep_greedy_output_exact) {
  const DecodeResult ar = run(opts(DecodeMode::AR, 0));
  DecodeOptions o = opts(DecodeMode::Spec, 6);
  o.refine_steps = 2;
  o.tau_c = 0.5f;
  const DecodeResult sp = run(o);
  for (size_t i = 0; i < ar.regions.size(); ++i) CHECK(sp.regions[i].tokens == ar.regions[i].tokens);
}

TEST(events_describe_every_committed_token_in_order) {
  Collect sink;
  const DecodeResult r = run(opts(DecodeMode::Spec, 4), &sink);
  CHECK(sink.count(Event::Type::RegionStart) == 3 && sink.count(Event::Type::RegionEnd) == 3);
  size_t tokens = 0;
  for (const auto& reg : r.regions) tokens += reg.tokens.size();
  CHECK(size_t(sink.count(Event::Type::Token)) == tokens);
  int next = 0;
  for (const Event& e : sink.events) {
    if (e.type == Event::Type::RegionStart) next = 0;
    if (e.type == Event::Type::Token) CHECK(e.index == next++);
    if (e.type == Event::Type::Round) CHECK(e.committed.size() >= 1 && e.block_size >= 1);
  }
}

TEST(diffusion_fills_one_slot_per_step_at_tau_one_and_all_at_tau_zero) {
  DecodeOptions o = opts(DecodeMode::Diffusion, 4);
  o.tau_c = 1.0f;
  Collect slow;
  run(o, &slow);
  for (const Event& e : slow.events)
    if (e.type == Event::Type::Round && int(e.committed.size()) == e.block_size) CHECK(e.forwards == e.block_size);
  o.tau_c = 0.0f;
  Collect fast;
  run(o, &fast);
  for (const Event& e : fast.events)
    if (e.type == Event::Type::Round) CHECK(e.forwards == 1);
}

TEST(sampling_is_reproducible_by_seed) {
  for (DecodeMode mode : {DecodeMode::AR, DecodeMode::Spec}) {
    DecodeOptions o = opts(mode, 4);
    o.temperature = 1.0f;
    o.top_p = 0.9f;
    o.seed = 7;
    const DecodeResult a = run(o), b = run(o);
    o.seed = 8;
    const DecodeResult c = run(o);
    CHECK(a.regions[0].tokens == b.regions[0].tokens);
    CHECK(a.regions[0].tokens != c.regions[0].tokens);
  }
}

TEST(fixation_keeping_every_image_token_reports_heatmaps_and_changes_nothing) {
  // The default: heatmaps for the user, every layer still attending to the whole image.
  const DecodeResult ar = run(opts(DecodeMode::AR, 0));
  for (DecodeMode mode : {DecodeMode::AR, DecodeMode::Spec}) {
    DecodeOptions o = opts(mode, 4);
    o.fixation = {true, 2, 2, 1.0f};
    Collect sink;
    const DecodeResult fx = run(o, &sink);
    int with = 0, tokens = 0;
    for (const Event& e : sink.events) {
      if (e.type != Event::Type::Token) continue;
      ++tokens;
      with += e.has_fixation;
    }
    CHECK(with > tokens / 2);
    for (size_t i = 0; i < ar.regions.size(); ++i) {
      CHECK(fx.regions[i].tokens == ar.regions[i].tokens);
      CHECK(fx.regions[i].stats.visual_token_fraction == 1.0);
    }
  }
}

TEST(fixation_reports_heatmaps_and_prunes_image_tokens) {
  for (DecodeMode mode : {DecodeMode::AR, DecodeMode::Spec}) {
    DecodeOptions o = opts(mode, 4);
    o.fixation = {true, 3, 1, 0.25f};
    Collect sink;
    const DecodeResult r = run(o, &sink);
    int with = 0, tokens = 0, image_tokens = 0;
    for (const Event& e : sink.events) {
      if (e.type == Event::Type::RegionStart) image_tokens = e.image_tokens;
      if (e.type != Event::Type::Token) continue;
      ++tokens;
      if (!e.has_fixation) continue;
      ++with;
      double sum = 0;
      for (size_t k = 0; k < e.fixation.indices.size(); ++k) {
        CHECK(e.fixation.indices[k] >= 0 && e.fixation.indices[k] < image_tokens);
        sum += e.fixation.weights[k];
      }
      CHECK(std::fabs(sum - 1) < 1e-4);
    }
    CHECK(with > tokens / 2);
    for (const auto& reg : r.regions) CHECK(reg.stats.visual_token_fraction < 0.6);
  }
}

TEST(cancel_stops_decoding) {
  struct CancelAfter final : EventSink {
    std::atomic<bool>* flag;
    int n = 0;
    void emit(Event&&) override {
      if (++n == 5) flag->store(true);
    }
  };
  std::atomic<bool> cancel{false};
  CancelAfter sink;
  sink.flag = &cancel;
  ModelMemory c;
  const DecodeResult r = decode_regions(tiny(), regions(), opts(DecodeMode::AR, 0), sink, cancel, &c);
  CHECK(r.cancelled);
  CHECK(r.regions.size() == 1 && r.regions[0].tokens.size() < 10);
}

TEST(bad_options_are_rejected_with_the_field_name) {
  DecodeOptions o = opts(DecodeMode::Spec, 4);
  o.top_p = 0;
  CHECK_THROWS_WITH(run(o), "topP");
  o = opts(DecodeMode::Spec, 4);
  o.fixation = {true, 1, 99, 0.1f};
  CHECK_THROWS_WITH(run(o), "focalLayers");
  RegionInput bad = sctest::synthetic_region("x", 10, 10, 0);
  bad.kind = "poem";
  std::atomic<bool> cancel{false};
  Collect sink;
  ModelMemory c;
  CHECK_THROWS_WITH(decode_regions(tiny(), {bad}, opts(DecodeMode::AR, 0), sink, cancel, &c), "unknown region kind");
}

TEST(self_spec_with_accepted_drafts_equals_ar) {
  // A checkpoint whose drafts often match, so accepted runs of guesses, corrections, and chains of rounds
  // that verify the previous block's drafts all occur.
  sctest::TinySpec spec;
  spec.favor_strength = 1.5f;
  LoadOptions lo;
  lo.backend.threads = 2;
  auto m = load_model(sctest::write_tiny_checkpoint(spec, "favor"), lo);
  std::atomic<bool> cancel{false};
  ModelMemory costs;
  Collect ar_sink;
  const DecodeResult ar = decode_regions(*m, regions(), opts(DecodeMode::AR, 0), ar_sink, cancel, &costs);
  int chained = 0;
  for (int B : {3, 8, 0}) {
    Collect sink;
    const DecodeResult sp = decode_regions(*m, regions(), opts(DecodeMode::Spec, B), sink, cancel, &costs);
    int accepted = 0, corrected = 0;
    std::map<std::string, const Event*> previous;  // per region
    for (const Event& e : sink.events) {
      if (e.type == Event::Type::Round) {
        const int checked = int(e.draft.size()) - e.block_size;
        if (const Event* p = previous[e.region_id]) {
          // Every guess held: this round verifies the previous block's d_2..d_B; otherwise none.
          const int p_checked = int(p->draft.size()) - p->block_size;
          const bool held = int(p->committed.size()) > p_checked;
          if (held) {
            CHECK(checked <= std::max(0, p->block_size - 1));
            CHECK(std::equal(e.draft.begin(), e.draft.begin() + checked, p->draft.begin() + p_checked + 1));
            chained += checked > 0;
          } else {
            CHECK(checked == 0);
          }
        }
        previous[e.region_id] = &e;
        accepted += e.accepted;
      }
      if (e.type == Event::Type::Token) corrected += e.source == TokenSource::Corrected;
    }
    for (size_t i = 0; i < ar.regions.size(); ++i) {
      CHECK_MSG(sp.regions[i].tokens == ar.regions[i].tokens, "B=" << B << " region " << i);
      if (B > 0) CHECK(sp.regions[i].stats.forwards < ar.regions[i].stats.forwards);  // auto depends on timing
    }
    if (B > 0) CHECK_MSG(accepted > 10 && corrected > 0, "B=" << B << " " << accepted << " " << corrected);
  }
  CHECK(chained > 0);
}

TEST(fixation_warms_up_once_per_region_kind_and_model) {
  DecodeOptions o = opts(DecodeMode::AR, 0);
  o.fixation = {true, 3, 1, 0.25f};
  ModelMemory memory;
  const DecodeResult first = run(o, nullptr, &memory);
  CHECK(memory.image_share.size() == 1);
  CHECK(memory.image_share["text"].size() == size_t(tiny().cfg.text.num_layers));
  const DecodeResult second = run(o, nullptr, &memory);
  // The first region warmed up in the first call only; the others used the learnt focal layers both times.
  CHECK(second.regions[0].stats.visual_token_fraction < first.regions[0].stats.visual_token_fraction);
  for (size_t i = 1; i < first.regions.size(); ++i) {
    CHECK(second.regions[i].tokens == first.regions[i].tokens);
    CHECK(second.regions[i].stats.visual_token_fraction == first.regions[i].stats.visual_token_fraction);
  }
}

TEST(fixation_with_learnt_focal_layers_attends_only_its_selection_from_the_first_step) {
  DecodeOptions o = opts(DecodeMode::AR, 0);
  o.fixation = {true, 3, 1, 0.25f};
  ModelMemory memory;
  run(o, nullptr, &memory);
  Collect sink;
  const DecodeResult r = run(o, &sink, &memory);
  std::map<std::string, int> image_tokens;
  for (const Event& e : sink.events)
    if (e.type == Event::Type::RegionStart) image_tokens[e.region_id] = e.image_tokens;
  // The prompt row's selection in the prefill is what the first step's early layers attend: no full step.
  for (const auto& reg : r.regions) {
    const int n = image_tokens.at(reg.id);
    const double keep = std::ceil(0.25 * n) / n;
    CHECK_MSG(std::fabs(reg.stats.visual_token_fraction - keep) < 1e-12,
              reg.id << ": " << reg.stats.visual_token_fraction << " vs " << keep);
  }
}

TEST(diffusion_with_learnt_focal_layers_attends_the_whole_image_before_them) {
  // Focal layer: the last. AR's earlier layers attend the selection carried from the token just written;
  // a diffusion block's mask rows sit at many positions that selection does not fit, so they see it all.
  const int layers = tiny().cfg.text.num_layers;
  for (DecodeMode mode : {DecodeMode::AR, DecodeMode::Diffusion}) {
    DecodeOptions o = opts(mode, mode == DecodeMode::Diffusion ? 4 : 0);
    o.fixation = {true, 3, 1, 0.25f};
    ModelMemory memory;
    memory.image_share["text"].assign(size_t(layers), 0.0);
    memory.image_share["text"].back() = 1.0;
    Collect sink;
    const DecodeResult r = run(o, &sink, &memory);
    std::map<std::string, int> image_tokens;
    for (const Event& e : sink.events)
      if (e.type == Event::Type::RegionStart) image_tokens[e.region_id] = e.image_tokens;
    for (const auto& reg : r.regions) {
      const int n = image_tokens.at(reg.id);
      const double expected = mode == DecodeMode::AR ? std::ceil(0.25 * n) / n : 1.0;
      CHECK_MSG(std::fabs(reg.stats.visual_token_fraction - expected) < 1e-12,
                reg.id << ": " << reg.stats.visual_token_fraction << " vs " << expected);
    }
  }
}

TEST(batched_regions_decode_exactly_as_one_by_one) {
  for (DecodeMode mode : {DecodeMode::AR, DecodeMode::Spec}) {
    for (bool fixation : {false, true}) {
      DecodeOptions o = opts(mode, 4);
      o.fixation = {fixation, 2, 1, 0.3f};
      // One region at a time, later regions use the focal layers the first one learnt; in a batch all warm
      // up together. Both start from the same learnt model memory, as a warm model would.
      ModelMemory warm;
      run(o, nullptr, &warm);
      ModelMemory for_single = warm, for_batched = warm;
      const DecodeResult single = run(o, nullptr, &for_single);
      o.batch_size = 3;
      Collect sink;
      const DecodeResult batched = run(o, &sink, &for_batched);
      CHECK(sink.count(Event::Type::RegionStart) == 3 && sink.count(Event::Type::RegionEnd) == 3);
      for (size_t i = 0; i < single.regions.size(); ++i) {
        CHECK(batched.regions[i].id == single.regions[i].id);
        CHECK_MSG(batched.regions[i].tokens == single.regions[i].tokens, "region " << i << " fixation " << fixation);
        CHECK(batched.regions[i].stats.forwards == single.regions[i].stats.forwards);
      }
      // Each region is charged every step it shared whole (decode_ms) and its share of it: the shares add up
      // to the batch's decoding time, which the region in every step was charged whole.
      double shares = 0, longest = 0;
      for (const RegionResult& r : batched.regions) {
        CHECK(r.stats.decode_share_ms <= r.stats.decode_ms + 1e-9);
        shares += r.stats.decode_share_ms;
        longest = std::max(longest, r.stats.decode_ms);
      }
      CHECK_MSG(std::abs(shares - longest) <= 1e-6 * std::max(1.0, longest), "shares " << shares << " longest " << longest);
    }
  }
}

namespace {
// Forward costs that grow linearly from width 1 to width 65.
ForwardCosts costs_1_to_65(double width_1, double width_65) {
  ForwardCosts c;
  c.widths = {1, 65};
  c.seconds = {width_1, width_65};
  return c;
}
}  // namespace

TEST(ar_time_estimate_charges_each_sequence_the_steps_it_is_in_at_the_batch_width) {
  const ForwardCosts costs = costs_1_to_65(1e-3, 65e-3);  // 1 ms per token of width
  CHECK(ar_time_estimate(costs, {}).empty());
  const std::vector<double> one = ar_time_estimate(costs, {5});
  CHECK(std::abs(one[0] - 5.0) < 1e-9);
  // Two sequences: 2 steps at width 2 (2 ms each), then the longer one alone for 3 steps at width 1.
  const std::vector<double> two = ar_time_estimate(costs, {5, 2});
  CHECK(std::abs(two[0] - (2 * 2.0 + 3 * 1.0)) < 1e-9);
  CHECK(std::abs(two[1] - 2 * 2.0) < 1e-9);
}

TEST(block_sizer_prefers_long_blocks_only_when_forwards_are_cheap_and_drafts_good) {
  const ForwardCosts flat = costs_1_to_65(1e-3, 1e-3);  // GPU-like: width costs nothing
  const ForwardCosts steep = costs_1_to_65(1e-3, 65e-3);  // compute-bound CPU: cost grows with width
  BlockSizer good(flat, 64), bad(steep, 64), cpu(steep, 64);
  for (int i = 0; i < 50; ++i) {
    good.observe(31, 31);  // full blocks accepted
    bad.observe(10, 0);    // first checked draft token wrong every round
    cpu.observe(31, 31);
  }
  CHECK(good.best_block() == 64);
  CHECK(bad.best_block() <= 4);
  CHECK(cpu.best_block() < good.best_block());
  CHECK(good.alpha() > 0.95 && bad.alpha() < 0.5);
  CHECK(good.next() == 64);
}

TEST(block_sizer_expects_a_fresh_round_after_every_rejected_guess) {
  const ForwardCosts flat = costs_1_to_65(1e-3, 1e-3);
  BlockSizer s(flat, 64);
  for (int i = 0; i < 3; ++i) s.observe(10, 0);
  CHECK(std::abs(s.alpha() - 0.5) < 1e-12);
  // Half the guesses hold: a verifying round of a long block commits 1 + (1/2 + 1/4 + ...) = 2 tokens, but
  // its block almost never holds whole, so every other round is a fresh one committing 1: 1.5 per forward.
  CHECK(std::abs(s.rate(64) / s.rate(0) - 1.5) < 1e-6);
  // A block of 2 holds whole half the time: two verifying rounds in three, (2/3 * 1.5 + 1/3) per forward.
  CHECK(std::abs(s.rate(2) / s.rate(0) - (2.0 / 3 * 1.5 + 1.0 / 3)) < 1e-9);
}

TEST(block_sizer_falls_back_to_ar_steps_when_drafts_are_poor_and_still_probes) {
  const ForwardCosts moderate = costs_1_to_65(1e-3, 8e-3);  // wide forwards cost more, but full blocks of good drafts would pay
  BlockSizer bad(moderate, 64);
  CHECK(bad.speculation_can_pay());
  for (int i = 0; i < 50; ++i) bad.observe(10, 0);
  CHECK(bad.rate(0) > bad.rate(bad.best_block()));
  // AR steps, with probes after 16, then 32, then 64 more AR steps; a probe is two rounds, the draft and the
  // round that verifies it, the second of the same block.
  std::vector<int> probes, blocks;
  for (int i = 0; i < 16 + 2 + 32 + 2 + 64 + 2; ++i)
    if (const int b = bad.next(); b != 0) {
      probes.push_back(i);
      blocks.push_back(b);
    }
  CHECK(probes == std::vector<int>({16, 17, 50, 51, 116, 117}));
  for (size_t i = 0; i + 1 < blocks.size(); i += 2) CHECK(blocks[i] == blocks[i + 1]);
}

// Drafts that always hold, under costs where the prior starts the sizer on AR steps: each probe is a draft
// and the round that verifies it, so what the probes find moves the estimate.
TEST(block_sizer_verifies_its_probes) {
  const ForwardCosts costs = costs_1_to_65(1e-3, 24e-3);
  BlockSizer s(costs, 64);
  const double prior = s.alpha();
  int previous = 0, probes = 0;
  for (int round = 0; round < 120; ++round) {
    const int b = s.next();
    if (round == 0) CHECK(b == 0);
    // A round after a speculative one verifies that block's guesses (as decode_self_spec does): all hold.
    if (b > 0 && previous > 0) {
      CHECK(b == previous);
      s.observe(b - 1, b - 1);
      ++probes;
    }
    previous = b;
  }
  CHECK(probes == 3);  // after 16, 32 and 64 AR steps
  CHECK_MSG(s.alpha() > prior + 0.05, "alpha " << s.alpha() << " from " << prior);
}

TEST(block_sizer_never_speculates_where_even_perfect_drafts_cannot_pay) {
  const ForwardCosts steep = costs_1_to_65(1e-3, 65e-3);  // compute-bound CPU: a forward of w tokens costs w single-token forwards
  BlockSizer s(steep, 64);
  for (int i = 0; i < 50; ++i) s.observe(31, 31);  // however good the drafts
  CHECK(!s.speculation_can_pay());
  for (int i = 0; i < 1000; ++i) CHECK(s.next() == 0);  // not even a probe
}

TEST(block_sizer_probe_schedule_carries_over_to_the_next_region) {
  const ForwardCosts moderate = costs_1_to_65(1e-3, 8e-3);
  BlockSizer line(moderate, 64);
  for (int i = 0; i < 50; ++i) line.observe(10, 0);
  for (int i = 0; i < 16 + 2 + 10; ++i) line.next();  // one probe, then 10 of the 32 AR steps before the next
  // Short lines: the next region goes on waiting 22 more steps, not 16 from scratch.
  BlockSizer next_line(moderate, 64, line.memory());
  std::vector<int> probes;
  for (int i = 0; i < 24 + 64; ++i)
    if (next_line.next() != 0) probes.push_back(i);
  CHECK(probes == std::vector<int>({22, 23}));
}

TEST(block_sizer_starts_from_what_earlier_regions_of_its_kind_taught) {
  const ForwardCosts steep = costs_1_to_65(1e-3, 65e-3);
  BlockSizer first(steep, 64);
  CHECK(first.alpha() > 0.75);  // the optimistic prior
  for (int i = 0; i < 40; ++i) first.observe(10, 0);
  const SpeculationMemory learnt = first.memory();
  BlockSizer next(steep, 64, learnt);
  CHECK(next.alpha() < 0.3);
  CHECK(next.next() == 0);  // starts on AR steps instead of paying for wide drafts first
  // Capped weight: a region whose drafts are good pulls the estimate up within a few rounds.
  for (int i = 0; i < 6; ++i) next.observe(31, 31);
  CHECK(next.alpha() > 0.9);
}

namespace {
int piece_id(const Tokenizer& tok, const std::string& piece) {
  for (int i = 0; i < tok.size(); ++i)
    if (tok.piece(i) == piece) return i;
  return -1;
}
}  // namespace

TEST(repeat_guard_stops_loops_of_text_but_not_leaders_or_rules) {
  const Tokenizer& tok = tiny().tokenizer;
  const int a = piece_id(tok, "a"), b = piece_id(tok, "b"), sp = piece_id(tok, " "), dot = piece_id(tok, ".");
  CHECK(a >= 0 && b >= 0 && sp >= 0 && dot >= 0);
  if (a < 0 || b < 0 || sp < 0 || dot < 0) return;
  RepeatGuard loop(tok);
  std::vector<int> out{b, b, sp};
  int cut = 0, at = 0;
  for (int i = 0; i < 60 && !cut; ++i) {  // "bb ab ab ab ..."
    out.push_back(i % 2 ? b : a);
    cut = loop.observe(out);
    at = int(out.size());
  }
  CHECK(cut > 0 && at - cut >= 3 + 2);        // keeps the text before the loop and one copy of "ab"
  CHECK(at - 3 >= RepeatGuard::kMinSpan - 2);  // not before the loop is kMinSpan tokens long
  RepeatGuard leaders(tok);
  std::vector<int> dots;
  for (int i = 0; i < 200; ++i) {
    dots.push_back(dot);
    CHECK(leaders.observe(dots) == 0);
  }
}

TEST(repeat_guard_retracts_a_loop_identically_in_ar_and_self_spec) {
  sctest::TinySpec spec;
  spec.favor_strength = 1.5f;  // greedy output collapses onto one token: a loop
  LoadOptions lo;
  lo.backend.threads = 2;
  auto m = load_model(sctest::write_tiny_checkpoint(spec, "loop"), lo);
  std::atomic<bool> cancel{false};
  ModelMemory state;
  DecodeOptions o = opts(DecodeMode::AR, 0);
  o.max_new_tokens = 160;
  o.repeat_guard = false;
  Collect raw_sink;
  const DecodeResult raw = decode_regions(*m, regions(), o, raw_sink, cancel, &state);
  o.repeat_guard = true;
  Collect ar_sink;
  const DecodeResult ar = decode_regions(*m, regions(), o, ar_sink, cancel, &state);
  int looped = 0;
  for (size_t i = 0; i < ar.regions.size(); ++i) {
    const auto& g = ar.regions[i].tokens;
    const auto& r = raw.regions[i].tokens;
    CHECK(g.size() <= r.size() && std::equal(g.begin(), g.end(), r.begin()));  // a prefix: nothing invented
    if (ar.regions[i].stats.retracted_tokens > 0) {
      ++looped;
      CHECK(int(g.size()) == ar.regions[i].stats.tokens);
    }
  }
  CHECK(looped > 0);
  for (const Event& e : ar_sink.events)
    if (e.type == Event::Type::Retract) {
      const auto it = std::find_if(ar.regions.begin(), ar.regions.end(), [&](const RegionResult& r) { return r.id == e.region_id; });
      CHECK(it != ar.regions.end() && e.index == int(it->tokens.size()));
    }
  CHECK(ar_sink.count(Event::Type::Retract) == looped);
  for (int B : {4, 0}) {
    DecodeOptions so = o;
    so.mode = DecodeMode::Spec;
    so.block_size = B;
    Collect sink;
    const DecodeResult sp = decode_regions(*m, regions(), so, sink, cancel, &state);
    for (size_t i = 0; i < ar.regions.size(); ++i) CHECK_MSG(sp.regions[i].tokens == ar.regions[i].tokens, "B=" << B);
  }
}

TEST(reading_draft_offers_the_reading_from_where_the_ctc_columns_place_the_output) {
  // Tokens: 0 end of text, 1 a, 2 b, 3 c, 4 d, 5 space, 6 one the line never shows.
  const int eos = 0, a = 1, b = 2, c = 3, d = 4, space = 5, unseen = 6, V = 7;
  using Column = std::array<double, 6>;  // blank, a, b, c, d, space
  auto columns = [&](const std::vector<Column>& cols) {
    std::vector<double> y, blank;
    for (const Column& col : cols) {
      blank.push_back(col[0]);
      y.insert(y.end(), col.begin() + 1, col.end());
    }
    return CtcColumns::make({a, b, c, d, space}, y, blank, V, eos);
  };
  // The guesses of a fresh draft once the output has written `written`.
  auto after = [&](ReadingDraft r, const std::vector<int>& written) {
    for (int id : written) r.extend(id);
    std::vector<int> ids;
    std::vector<float> conf;
    r.guesses(&ids, &conf);
    CHECK(conf.size() == ids.size());
    return ids;
  };
  // A line that reads "abc": a, blank, b, c, blank (b and c side by side); d and the space a little likely
  // anywhere.
  const auto line = columns({{0.05, 0.85, 0.03, 0.03, 0.03, 0.01}, {0.9, 0.03, 0.03, 0.01, 0.02, 0.01},
                             {0.1, 0.03, 0.8, 0.02, 0.04, 0.01}, {0.02, 0.03, 0.03, 0.87, 0.04, 0.01},
                             {0.9, 0.03, 0.03, 0.01, 0.02, 0.01}});
  const ReadingDraft abc({a, b, c}, {0.85f, 0.8f, 0.87f}, {0, 2, 3}, line, eos, space);
  CHECK((after(abc, {}) == std::vector<int>{a, b, c, eos}));
  CHECK((after(abc, {a}) == std::vector<int>{b, c, eos}));
  CHECK((after(abc, {a, d}) == std::vector<int>{c, eos}));  // d where the reading has b: one read as another
  CHECK((after(abc, {a, c}) == std::vector<int>{eos}));     // the output has no b
  CHECK((after(abc, {a, b, c}) == std::vector<int>{eos}));
  // A space between b and c, which sit in adjacent columns: the output keeps its place before c.
  CHECK((after(abc, {a, b, space}) == std::vector<int>{c, eos}));
  CHECK((after(abc, {a, unseen}) == std::vector<int>{b, c, eos}));  // a token no column shows takes none
  // A space the reading added in a blank column: offered until the output writes it or goes past it.
  const auto spaced_line = columns({{0.05, 0.85, 0.03, 0.03, 0.03, 0.01}, {0.6, 0.03, 0.03, 0.01, 0.03, 0.3},
                                    {0.1, 0.03, 0.8, 0.02, 0.04, 0.01}, {0.9, 0.03, 0.03, 0.01, 0.02, 0.01}});
  const ReadingDraft spaced({a, space, b}, {0.85f, 0.3f, 0.8f}, {0, 1, 2}, spaced_line, eos, space);
  CHECK((after(spaced, {a}) == std::vector<int>{space, b, eos}));
  CHECK((after(spaced, {a, space}) == std::vector<int>{b, eos}));
  CHECK((after(spaced, {a, b}) == std::vector<int>{eos}));
  // A character the model lacks (-1) ends the guesses; the verifier's own token stands in for it.
  CHECK((after(ReadingDraft({a, -1, c}, {1, 1, 1}, {0, 2, 3}, line, eos, space), {}) == std::vector<int>{a}));
}

TEST(block_sizer_verifies_the_reading_while_it_holds) {
  ForwardCosts cpu;  // a fixed cost per forward plus a cost per row
  cpu.widths = {1, 600};
  cpu.seconds = {1.1e-3, 1e-3 + 600 * 0.1e-3};
  BlockSizer s(cpu, 64);
  // The prior (the reading mostly right): a run of guesses, not all 30, since a wrong one wastes the rows after it.
  const int first = s.reading_guesses(30, true);
  CHECK(first > 2 && first < 30);
  BlockSizer good(cpu, 64);
  for (int i = 0; i < 10; ++i) good.observe_reading(30, 30);  // lines it reads right
  CHECK(good.reading_guesses(30, true) > first);
  // A line's last guesses: the verifier's own token after the last character writes EOS, one row less.
  CHECK(good.reading_guesses(4, true) == 3);
  CHECK(good.reading_guesses(4, false) == 4);
  for (int i = 0; i < 40; ++i) s.observe_reading(30, 0);  // a kind of region it reads badly (formulas)
  const int bad = s.reading_guesses(30, true);
  CHECK(bad <= 1);  // a guess that may hold, where one more row costs a tenth of a forward
  // Its own acceptance: the masks' estimate is untouched.
  CHECK(std::fabs(s.alpha() - 0.8) < 1e-9);
  BlockSizer next(cpu, 64, s.memory());
  CHECK(next.reading_guesses(30, true) <= 1);
  ForwardCosts steep;  // a row costs half a forward: only a reading that holds pays
  steep.widths = {1, 600};
  steep.seconds = {1e-3, 1e-3 + 599 * 0.5e-3};
  CHECK(BlockSizer(steep, 64, s.memory()).reading_guesses(30, true) == 0);
  CHECK(BlockSizer(steep, 64, good.memory()).reading_guesses(30, true) > 0);
}

TEST(block_sizer_drafts_a_short_rest_in_one_block) {
  ForwardCosts cpu;
  cpu.widths = {1, 600};
  cpu.seconds = {1.1e-3, 1e-3 + 600 * 0.1e-3};
  BlockSizer s(cpu, 64);
  for (int i = 0; i < 50; ++i) s.observe(20, 20);  // drafts that hold
  CHECK(s.next() == s.best_block());
  // Ten tokens left: one block of ten drafts them all and the next round verifies them without masks,
  // cheaper than the long blocks that pay in the long run.
  CHECK(s.best_block() > 10);
  CHECK(s.next(1, 10) == 10);
  // A rest of one token is an AR step's.
  CHECK(s.next(1, 1) == s.best_block());
}

TEST(block_sizer_costs_a_batch_at_its_total_widths) {
  ForwardCosts cpu;  // a fixed cost per forward plus a cost per row, as on this machine's CPU
  cpu.widths = {1, 600};
  cpu.seconds = {1.1e-3, 1e-3 + 600 * 0.1e-3};
  BlockSizer s(cpu, 64);
  for (int i = 0; i < 50; ++i) s.observe(10, 9);  // good drafts
  // Alone, a round of a few drafted tokens costs little more than one AR step: speculation pays.
  CHECK(s.rate(s.best_block(1), 1) > s.rate(0, 1));
  CHECK(s.next(1) > 0);
  // Eight sequences already fill the AR forward; drafting for all of them costs more than it commits.
  CHECK(s.rate(s.best_block(8), 8) < s.rate(0, 8));
  CHECK(s.next(8) == 0);
}

TEST(block_sizer_measures_ar_steps_even_when_its_calibration_says_speculate) {
  const ForwardCosts flat = costs_1_to_65(1e-3, 1e-3);  // a calibration that promised wide forwards for free and AR steps at 1 ms
  BlockSizer s(flat, 64);
  // Really: AR steps take 0.2 ms; a speculative round takes 1.5 ms and commits 2 tokens.
  std::vector<int> choices;
  for (int round = 0; round < 400; ++round) {
    const int B = s.next();
    choices.push_back(B);
    if (B == 0) {
      s.observe_time(0, 1, 0.2e-3, 1);
    } else {
      s.observe(B - 1, 0);
      s.observe_time(B, 2 * B, 1.5e-3, 2);
    }
  }
  CHECK(choices.front() > 0);
  CHECK(std::count(choices.end() - 100, choices.end(), 0) >= 95);
}

TEST(block_sizer_is_not_turned_by_one_stalled_step) {
  const ForwardCosts moderate = costs_1_to_65(1e-3, 8e-3);
  BlockSizer s(moderate, 64);
  for (int i = 0; i < 50; ++i) s.observe(10, 5);
  // Steady state: AR steps as predicted; speculation measured slower per token than AR.
  for (int i = 0; i < 20; ++i) s.observe_time(0, 1, 1e-3, 1);
  for (int i = 0; i < 5; ++i) s.observe_time(s.best_block(), 2 * s.best_block(), 1.5e-3 * s.best_block(), 2);
  CHECK(s.next() == 0);
  // One AR step stalls for 50 ms (another process took the core): still AR, for every step until the
  // next scheduled probe.
  s.observe_time(0, 1, 50e-3, 1);
  CHECK(s.rate(s.best_block()) < s.rate(0));
  CHECK(s.speculation_measured_slower());
  CHECK(s.next() == 0);
  // A lasting change does move it: AR steps now cost 10x.
  for (int i = 0; i < 10; ++i) s.observe_time(0, 1, 10e-3, 1);
  CHECK(s.rate(s.best_block()) > s.rate(0));
}

TEST(block_sizer_stops_speculating_when_speculation_measures_slower_than_ar) {
  const ForwardCosts flat = costs_1_to_65(1e-3, 1e-3);  // the calibration promises that wide forwards cost nothing extra
  BlockSizer s(flat, 64);
  for (int i = 0; i < 20; ++i) s.observe(8, 5);
  CHECK(s.next() > 0);  // the model says speculate
  // Measured: AR steps 1 ms per token, speculative rounds 6 ms for 2 tokens.
  for (int i = 0; i < 10; ++i) {
    s.observe_time(0, 1, 1e-3, 1);
    s.observe_time(4, 8, 6e-3, 2);
  }
  CHECK(s.speculation_measured_slower());
  CHECK(s.next() == 0);
  // A new region of the same kind starts from that measurement.
  BlockSizer next(flat, 64, s.memory());
  CHECK(next.next() == 0);
}
