#pragma once
// Hardware-aware draft length for MTP speculation (docs/decisions/0018): each round drafts the number of
// tokens that maximises expected committed tokens per second from the measured cost of a verify forward by
// width, the measured cost of one pass of the head, and the running acceptance of each draft depth. Where no
// draft length beats a plain AR step, it takes AR steps and leaves the head idle (a CPU), probing now and then.
#include <vector>

#include "decode/block_size.h"

namespace saccade {

// What MTP speculation has learnt about a kind of region, handed on from batch to batch.
struct MtpMemory {
  // Per draft depth j (index 0: d_1): pseudo-counts of drafts checked with every earlier one accepted, and of
  // those accepted. Prior 2 of 3.
  std::vector<double> tried, accepted;
  RecentMedian trunk_ratio;   // measured / calibrated seconds of verify forwards
  RecentMedian head_seconds;  // one pass of the head over a batch (the catch-up pass or a chain step)
  // Rounds of AR steps before a speculative round is tried again. Rarer than self-spec's probes: a probe
  // also pays the head's catch-up over its backlog, in a region's first probe the whole image prefix (a
  // quarter of a prefill for this one-layer head), which at self-spec's rate cost 8% of AR's speed.
  ProbeSchedule probe{64, 1024};
};

class MtpSizer {
 public:
  static constexpr double kMemoryWeight = 12;  // pseudo-counts carried per depth at most
  // head_prior: seconds of one head pass before any was measured (the share of one trunk layer).
  MtpSizer(ForwardCosts costs, int max_drafts, double head_prior, const MtpMemory& memory = {});
  MtpMemory memory() const { return learnt_; }
  // Drafts for the next round of a batch of `rows` sequences; 0: a plain AR step, the head left idle.
  int next(int rows);
  // Expected committed tokens per second with k drafts a round (k = 0: AR steps, no head passes).
  double rate(int k, int rows) const;
  // Chance that draft `depth` (1-based) is accepted when every earlier one was.
  double acceptance(int depth) const;
  // One sequence's round: `checked` drafts were compared with the verifier, the first `accepted` matched.
  void observe(int checked, int accepted);
  void observe_trunk(int width, double seconds);
  void observe_head(double seconds_per_pass);

 private:
  ForwardCosts costs_;
  int max_drafts_;
  double head_prior_;
  MtpMemory learnt_;
  int best_drafts(int rows) const;
};

}  // namespace saccade
