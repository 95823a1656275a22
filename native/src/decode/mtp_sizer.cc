#include "decode/mtp_sizer.h"

#include <algorithm>

namespace saccade {

MtpSizer::MtpSizer(ForwardCosts costs, int max_drafts, double head_prior, const MtpMemory& memory)
    : costs_(std::move(costs)), max_drafts_(std::max(1, max_drafts)), head_prior_(head_prior), learnt_(memory) {
  learnt_.tried.resize(size_t(max_drafts_), 3);
  learnt_.accepted.resize(size_t(max_drafts_), 2);
  for (size_t j = 0; j < learnt_.tried.size(); ++j)
    if (learnt_.tried[j] > kMemoryWeight) {
      learnt_.accepted[j] *= kMemoryWeight / learnt_.tried[j];
      learnt_.tried[j] = kMemoryWeight;
    }
}

double MtpSizer::acceptance(int depth) const {
  const size_t j = size_t(std::clamp(depth, 1, max_drafts_) - 1);
  return learnt_.accepted[j] / learnt_.tried[j];
}

// A round of k drafts commits the accepted run and the verifier's token, 1 + a_1 + a_1 a_2 + ... expected;
// it costs a verify forward of k + 1 rows per sequence and k passes of the head (the catch-up pass over what
// was committed, which gives d_1, then k - 1 chain steps), each over the whole batch.
double MtpSizer::rate(int k, int rows) const {
  const double trunk = learnt_.trunk_ratio.value(1) * costs_.at(rows * (k + 1));
  double tokens = 1, run = 1;
  for (int j = 1; j <= k; ++j) tokens += (run *= acceptance(j));
  const double head = k > 0 ? k * learnt_.head_seconds.value(head_prior_) : 0;
  return rows * tokens / (trunk + head);
}

int MtpSizer::best_drafts(int rows) const {
  int best = 1;
  for (int k = 2; k <= max_drafts_; ++k)
    if (rate(k, rows) > rate(best, rows)) best = k;
  return best;
}

int MtpSizer::next(int rows) {
  // Where no draft length would beat AR steps even were every draft accepted, nothing a probe could measure
  // would change the choice.
  bool can_pay = false;
  const double head = learnt_.head_seconds.value(head_prior_);
  for (int k = 1; k <= max_drafts_ && !can_pay; ++k)
    can_pay = rows * (k + 1) / (learnt_.trunk_ratio.value(1) * costs_.at(rows * (k + 1)) + k * head) > rate(0, rows);
  if (!can_pay) return 0;
  const int best = best_drafts(rows);
  if (rate(best, rows) >= rate(0, rows)) {
    learnt_.probe.restart();
    return best;
  }
  // A probe drafts one token: the cheapest round that measures the head and its first draft.
  return learnt_.probe.due() ? 1 : 0;
}

void MtpSizer::observe(int checked, int accepted) {
  for (int j = 0; j < checked && j <= accepted; ++j) {
    learnt_.tried[size_t(j)] += 1;
    if (j < accepted) learnt_.accepted[size_t(j)] += 1;
  }
}

void MtpSizer::observe_trunk(int width, double seconds) {
  const double p = costs_.at(width);
  if (p > 0 && seconds > 0) learnt_.trunk_ratio.add(seconds / p);
}

void MtpSizer::observe_head(double seconds_per_pass) {
  if (seconds_per_pass > 0) learnt_.head_seconds.add(seconds_per_pass);
}

}  // namespace saccade
