#pragma once
// Hardware-aware block size: measured seconds per forward by width, and the block size per round that
// maximises expected committed tokens per second under the running acceptance rate.
#include <array>
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

// Milliseconds plain AR decoding would take, per sequence of a batch, to make `steps[i]` forwards each: step s
// of the batch is one forward as wide as the sequences still decoding, and every sequence in it is charged
// the whole step, as decode time is (RegionStats::decode_ms).
std::vector<double> ar_time_estimate(const ForwardCosts& costs, const std::vector<int>& steps);

// Rounds of the chosen kind before a round of the other kind is tried (a probe): after `first` rounds, then
// twice as many each time the choice does not change, up to `most`.
class ProbeSchedule {
 public:
  ProbeSchedule() = default;
  ProbeSchedule(int first, int most) : first_(first), most_(most), after_(first) {}
  // Counts one round of the chosen kind; true when this round should be a probe instead.
  bool due();
  // The choice changed: the next probe comes `first` rounds from now.
  void restart();
  int first() const { return first_; }

 private:
  int first_ = 16, most_ = 256, streak_ = 0, after_ = 16;
};

// Median of the most recent values. Round times have one-sided outliers (a page fault, another process
// taking the core): one stalled step costs many times the usual, and an average would follow it and flip the
// block-size choice for the next rounds.
class RecentMedian {
 public:
  static constexpr int kWindow = 15;
  void add(double sample);
  double value(double if_empty) const { return count_ ? median_ : if_empty; }

 private:
  std::array<double, kWindow> values_{};
  int count_ = 0, next_ = 0;
  double median_ = 0;  // kept up to date by add(): the sizer reads it many times per round
};

// What a sizer has learnt, handed from one region to the next region of the same kind: acceptance
// pseudo-counts and the measured / predicted round-time ratios. Without it every region would start from the
// optimistic prior and pay for its first rounds again.
struct SpeculationMemory {
  double accepted = 4, rejected = 1;  // the prior: alpha 0.8
  // The same for guesses from the encoder's reading (decode/reading_draft.h), a drafter of its own.
  double read_accepted = 9, read_rejected = 1;  // the prior: 0.9
  // Measured / predicted round time, for AR steps, for speculative rounds and for rounds that verified the
  // reading (their rows are verifier rows, each also weighed against the reading prior).
  RecentMedian ar_ratio, spec_ratio, read_ratio;
  // Decayed sums of measured seconds (a stall counted at kStallFactor times the expected time) and committed
  // tokens, for AR steps and for speculative rounds.
  double ar_seconds = 0, ar_tokens = 0, spec_seconds = 0, spec_tokens = 0;
  // Probes of speculation while on AR steps, and of an AR step while speculating. Kept across regions
  // because a page's lines are short: restarting them per line would probe every line.
  ProbeSchedule spec_probe, ar_probe;
};

// Picks each round's block size for a batch of `rows` sequences decoded in lockstep, or 0 for a plain AR step
// when no block size is expected to beat AR (a CPU forward of 2B tokens can cost many single-token
// forwards). The whole batch takes the same kind of round, costed at the batch's total widths: a sequence
// speculating alone would make every other one wait for its wide forward, and the time of that round would
// count against their AR steps. Whichever it chooses, it probes the other now and then (ProbeSchedule; a
// probe of speculation is two rounds, the draft and the round that verifies it): drafts that become good are
// noticed without paying for a speculative round every few tokens, and a calibration that made AR steps look
// slow is corrected by measuring them. Where the forward costs leave speculation
// slower than AR even if every draft were accepted (a small model on a compute-bound CPU), it never probes:
// nothing a probe could measure would change the choice.
class BlockSizer {
 public:
  // Memory counts are capped at kMemoryWeight pseudo-events so a region unlike its predecessors moves the
  // estimate within a few rounds.
  static constexpr double kMemoryWeight = 12;
  // A round slower than this many times its expected time is a stall, not what the block size costs.
  static constexpr double kStallFactor = 2;
  // A block of one drafts only the token its own verifier writes: an AR step with a wasted row.
  static constexpr int kMinBlock = 2;
  BlockSizer(ForwardCosts costs, int max_block, const SpeculationMemory& memory = {});
  // This sizer's estimates, to start the next batch of the same kind from.
  SpeculationMemory memory() const;
  // Best speculative block size (>= kMinBlock where max_block allows) under the current acceptance estimate.
  int best_block(int rows = 1) const;
  // This round's choice: best_block(), or 0 (AR step) where AR is faster, with periodic probes. left: the
  // most tokens any sequence of the batch is likely to have left (-1: unknown); a block that drafts them all
  // is then weighed too, its verifying round without masks (nothing follows the end of text).
  int next(int rows = 1, int left = -1);
  // After a round: `checked` guesses were compared with the verifier, `accepted` of them matched.
  void observe(int checked, int accepted);
  // How many of the `available` guesses the encoder's reading offers a round should verify: the count that
  // commits the most tokens per second by the reading's own acceptance rate, or 0 where an AR step commits
  // more. A wrong guess wastes the rows after it, so the longer a run, the less each further guess is likely
  // to add, while past a few rows every row adds to a CPU forward's cost. ends_text: the last guess is EOS
  // (nothing follows it to commit when every guess holds).
  int reading_guesses(int available, bool ends_text, int rows = 1) const;
  // After a round that checked `checked` guesses from the reading, `accepted` of them matched.
  void observe_reading(int checked, int accepted);
  // Wall time of a finished round of block size B (0: AR step) whose forward had `width` rows in all (every
  // sequence's c, guesses and masks) and committed `committed` tokens in all. The calibrated forward costs
  // leave out per-round work (sampling, bookkeeping, events) and were measured at one context length; the
  // ratio of measured to predicted time, kept apart for AR steps and speculative rounds, corrects the
  // prediction (the median of recent ratios, so that a stall does not). On top of the model, the measured
  // seconds per committed token of speculative rounds and of AR steps are compared directly: once both are
  // known, speculation that measured slower than AR is not chosen (probes still run), whatever the model
  // predicts.
  void observe_time(int B, int width, double seconds, int committed);
  // Wall time of a finished round in which every sequence verified the reading, `width` rows in all.
  void observe_reading_time(int width, double seconds);
  // True when measured speculative rounds cost more per committed token than measured AR steps.
  bool speculation_measured_slower() const;
  // True when some block size would beat AR steps were every drafted token accepted.
  bool speculation_can_pay(int rows = 1) const;
  // Per-token acceptance probability (geometric model, prior 0.8).
  double alpha() const;
  // Expected committed tokens per second for block size B (B = 0: plain AR).
  double rate(int B, int rows = 1) const;

 private:
  // Predicted seconds of the rounds of block size B for a batch of some rows: `verifying` (c, B - 1 guesses,
  // B masks), `fresh` (c and B masks: the round after a rejected guess); index 0 is an AR step. And the best
  // tokens per predicted second over all B were every guess accepted. Fixed by the costs, read every round for
  // every B, so worked out once per batch size.
  struct RoundCosts {
    std::vector<double> verifying, fresh;
    double full_acceptance_rate = 0;
  };
  ForwardCosts costs_;
  int max_block_;
  int probe_to_verify_ = 0;  // the block of the probe whose guesses the next round verifies (0: none)
  SpeculationMemory learnt_;  // acceptance counts, time ratios, measured sums and probe schedule
  mutable std::vector<RoundCosts> by_rows_;  // index: rows
  const RoundCosts& round_costs(int rows) const;
  double ar_scale() const { return learnt_.ar_ratio.value(1); }
  double spec_scale() const { return learnt_.spec_ratio.value(1); }
  double read_scale() const { return learnt_.read_ratio.value(1); }
  // Rate of block size B given S = alpha + ... + alpha^(B-1), the expected accepted run of B - 1 guesses, and
  // alpha^(B-1), the chance that all of them hold.
  double spec_rate(int B, int rows, double run, double held) const;
  // Rate of drafting the `left` tokens still to come in one block and verifying them in the next round,
  // under per-token acceptance a.
  double finish_rate(int left, int rows, double a) const;
  // Rate over the `left` tokens still to come of block size B, its first round fresh.
  double rest_rate(int B, int left, int rows) const;
};

}  // namespace saccade
