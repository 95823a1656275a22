#include "decode/reading_prior.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "decode/sampling.h"

namespace saccade {

namespace {

constexpr double kFloor = 1e-30;  // the smallest score ratio: a reading the CTC head rules out costs w * 69 nats
// Columns where the prefix ends with less than this share of its likeliest end add nothing a double can tell
// from rounding to any score that can win: skipped (a prefix's mass sits in a few columns).
constexpr double kWindow = 1e-20;
// A token scored this many nats below the choice adds less than e^-40 of the choice's weight to the
// normalising mass: all of them together change no float probability.
constexpr double kNegligible = 40;
// Most tokens score the floor (the reading never shows them): its log once, the very value std::log gives.
const double kLogFloor = std::log(kFloor);

}  // namespace

ReadingPrior::ReadingPrior(std::vector<int> live, std::vector<double> y, std::vector<double> blank, int vocab,
                           int eos, double weight)
    : ReadingPrior(CtcColumns::make(std::move(live), std::move(y), std::move(blank), vocab, eos), vocab, eos,
                   weight) {}

ReadingPrior::ReadingPrior(std::shared_ptr<const CtcColumns> columns, int vocab, int eos, double weight)
    : V_(vocab), eos_(eos), weight_(weight), prefix_(std::move(columns)) {
  part_.resize(prefix_.columns().live.size());
  psi_.resize(size_t(V_));
  lp_.resize(size_t(V_));
}

const std::vector<double>& ReadingPrior::scores() {
  const CtcColumns& k = prefix_.columns();
  const std::vector<double>& rn = prefix_.rn();
  const std::vector<double>& rb = prefix_.rb();
  const int T = k.T, last = prefix_.last();
  const double* y = k.y.data();
  const size_t L = k.live.size();
  for (size_t i = 0; i < L; ++i) part_[i] = last < 0 ? y[i] : 0.0;
  // Only the columns where the prefix can end (kWindow of its most likely end) add anything that counts.
  double top = 0.0;
  for (int t = 0; t + 1 < T; ++t) top = std::max(top, rb[size_t(t)] + rn[size_t(t)]);
  const double cut = top * kWindow;
  const int repeat = last >= 0 ? k.slot[size_t(last)] : -1;
  double s = 0.0;
  for (int t = 1; t < T; ++t) {
    const double phi = rb[size_t(t - 1)] + rn[size_t(t - 1)];
    if (!(phi >= cut)) continue;
    const double* yt = y + size_t(t) * L;
    for (size_t i = 0; i < L; ++i) part_[i] = part_[i] + phi * yt[i];
    // A repeat needs a blank between: only the paths that end in blank extend it.
    if (repeat >= 0) s = s + rb[size_t(t - 1)] * yt[repeat];
  }
  if (repeat >= 0) part_[size_t(repeat)] = s;
  std::fill(psi_.begin(), psi_.end(), 0.0);
  for (size_t i = 0; i < L; ++i) psi_[size_t(k.live[i])] = part_[i];
  psi_[size_t(eos_)] = rb[size_t(T - 1)] + rn[size_t(T - 1)];
  return psi_;
}

int ReadingPrior::take(const float* logits, float* prob) {
  scores();
  // The decoder's log-probabilities less their common normaliser, which moves every joint score alike: the
  // choice and the probability below do not depend on it.
  double top = double(logits[0]);
  for (int c = 1; c < V_; ++c) top = std::max(top, double(logits[c]));
  int best = 0;
  for (int c = 0; c < V_; ++c) {
    const double psi = psi_[size_t(c)];
    lp_[size_t(c)] = (1.0 - weight_) * (double(logits[c]) - top) + weight_ * (psi > kFloor ? std::log(psi) : kLogFloor);
    if (lp_[size_t(c)] > lp_[size_t(best)]) best = c;
  }
  double mass = 0.0;
  for (int c = 0; c < V_; ++c) {
    const double d = lp_[size_t(c)] - lp_[size_t(best)];
    if (d > -kNegligible) mass += std::exp(d);
  }
  *prob = float(1.0 / mass);
  read_.push_back(float(psi_[size_t(best)]));
  decoder_.push_back(softmax_prob(logits, V_, best));  // what the decoder alone would have given it (pick())
  if (best != eos_) prefix_.extend(best);
  return best;
}

}  // namespace saccade
