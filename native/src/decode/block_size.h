#pragma once
// Hardware-aware block size: measured seconds per forward by width, and the block size per round that
// maximises expected committed tokens per second under the running acceptance rate.
#include <vector>

#include "model/model.h"

namespace saccade {

struct ForwardCosts {
  std::vector<int> widths;       // ascending
  std::vector<double> seconds;   // per forward at that width
  int context = 0;               // cached tokens the forwards attended to
  double at(int width) const;    // linear interpolation, clamped at the ends
};

// Times decoder forwards of each width over a synthetic cache of `context` tokens (best of `repeats`, made
// non-decreasing in width).
ForwardCosts measure_forward_costs(Model& m, const std::vector<int>& widths, int context, int repeats);

// AR steps before the first probe of speculation (BlockSizer::next).
constexpr int kFirstProbeAfter = 16;

// What a sizer has learnt, handed from one region to the next region of the same kind: acceptance
// pseudo-counts and the measured / predicted round-time ratios. Without it every region would start from the
// optimistic prior and pay for its first rounds again.
struct SpeculationMemory {
  double accepted = 4, rejected = 1;  // the prior: alpha 0.8
  double ar_scale = 1, spec_scale = 1;
  // Decayed sums of measured seconds and committed tokens, for AR steps and for speculative rounds.
  double ar_seconds = 0, ar_tokens = 0, spec_seconds = 0, spec_tokens = 0;
  // The probe schedule: AR steps since the last speculative round, and how many to wait for. Kept across
  // regions because a page's lines are short: restarting it per line would probe every line.
  int ar_streak = 0, probe_after = kFirstProbeAfter;
};

// Picks each round's block size, or 0 for a plain AR step when no block size is expected to beat AR (a
// CPU forward of B + 1 tokens can cost many single-token forwards). While on AR it still probes one
// speculative round after kFirstProbeAfter steps, then after twice as many each time a probe does not win (up
// to kProbeMax), so a region whose drafts become good is noticed without paying for a probe every few tokens.
// Where the forward costs leave speculation slower than AR even if every draft were accepted (a small model
// on a compute-bound CPU), it never probes: nothing a probe could measure would change the choice.
class BlockSizer {
 public:
  static constexpr int kProbeMax = 256;
  // Memory counts are capped at kMemoryWeight pseudo-events so a region unlike its predecessors moves the
  // estimate within a few rounds.
  static constexpr double kMemoryWeight = 12;
  BlockSizer(ForwardCosts costs, int max_block, const SpeculationMemory& memory = {});
  // This sizer's estimates, to start the next region of the same kind from.
  SpeculationMemory memory() const;
  // Best speculative block size (>= 1) under the current acceptance estimate.
  int best_block() const;
  // This round's choice: best_block(), or 0 (AR step) where AR is faster, with periodic probes.
  int next();
  // After a verify: `checked` drafted tokens were compared, `accepted` of them matched.
  void observe(int checked, int accepted);
  // Wall time of a finished round of block size B (0: AR step) that committed `committed` tokens. The
  // calibrated forward costs leave out per-round work (sampling, bookkeeping, events) and were measured at one
  // context length; the ratio of measured to predicted time, kept apart for AR steps and speculative rounds,
  // corrects the prediction. On top of the model, the measured seconds per committed token of speculative
  // rounds and of AR steps are compared directly: once both are known, speculation that measured slower
  // than AR is not chosen (probes still run), whatever the model predicts.
  void observe_time(int B, double seconds, int committed);
  // True when measured speculative rounds cost more per committed token than measured AR steps.
  bool speculation_measured_slower() const;
  // True when some block size would beat AR steps were every drafted token accepted.
  bool speculation_can_pay() const;
  // Per-token acceptance probability (geometric model, prior 0.8).
  double alpha() const;
  // Expected committed tokens per second for block size B (B = 0: plain AR).
  double rate(int B) const;

 private:
  ForwardCosts costs_;
  int max_block_;
  SpeculationMemory learnt_;  // acceptance counts, time ratios, measured sums and probe schedule
  // Best tokens per predicted second over all B were every draft accepted: fixed by the costs, so the
  // per-round check of speculation_can_pay() only applies the current time ratios to it.
  double full_acceptance_rate_ = 0;
  double predicted(int B) const;
  // Rate of block size B given the expected committed tokens of its round.
  double spec_rate(int B, double expected) const;
};

}  // namespace saccade
