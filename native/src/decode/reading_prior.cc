#include "decode/reading_prior.h"

#include <algorithm>
#include <cmath>

#include "model/model.h"
#include "util/error.h"

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
    : T_(int(blank.size())), V_(vocab), L_(int(live.size())), eos_(eos), weight_(weight) {
  bool ids_ok = eos >= 0 && eos < vocab;
  for (int c : live) ids_ok = ids_ok && c >= 0 && c < vocab && c != eos;
  if (T_ < 1 || L_ < 1 || !ids_ok || y.size() != size_t(T_) * size_t(L_))
    throw EngineError("reading prior: expected token ids below the vocabulary and probabilities [T, live] and [T]");
  std::vector<int> slot(size_t(vocab), -1);
  for (int i = 0; i < L_; ++i) slot[size_t(live[size_t(i)])] = i;
  slot_ = std::make_shared<const std::vector<int>>(std::move(slot));
  rn_.assign(size_t(T_), 0.0);
  rb_.resize(size_t(T_));
  double run = 1.0;  // the empty prefix: every column so far blank
  for (int t = 0; t < T_; ++t) rb_[size_t(t)] = run *= blank[size_t(t)];
  live_ = std::make_shared<const std::vector<int>>(std::move(live));
  y_ = std::make_shared<const std::vector<double>>(std::move(y));
  blank_ = std::make_shared<const std::vector<double>>(std::move(blank));
  part_.resize(size_t(L_));
  psi_.resize(size_t(V_));
  lp_.resize(size_t(V_));
}

std::unique_ptr<ReadingPrior> ReadingPrior::for_line(const Model& m, const std::vector<float>& ctc, int T) {
  const int V = m.cfg.text.vocab_size, classes = V + 2;
  if (!m.line || T < 1 || ctc.size() != size_t(T) * size_t(classes))
    throw EngineError("reading prior: expected a line model's folded CTC distribution");
  const std::vector<int>& live = m.line->shown_tokens;
  const std::vector<int>& column = m.line->shown_class;
  const size_t L = live.size();
  std::vector<double> y(size_t(T) * L), blank(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) {
    const float* row = ctc.data() + size_t(t) * classes;
    blank[size_t(t)] = double(row[V]);
    for (size_t i = 0; i < L; ++i) y[size_t(t) * L + i] = double(row[column[i]]);
  }
  return std::make_unique<ReadingPrior>(live, std::move(y), std::move(blank), V, m.cfg.eos_token_id,
                                        m.cfg.reading_prior_weight);
}

const std::vector<double>& ReadingPrior::scores() {
  const double* y = y_->data();
  const size_t L = size_t(L_);
  for (size_t i = 0; i < L; ++i) part_[i] = last_ < 0 ? y[i] : 0.0;
  // Only the columns where the prefix can end (kWindow of its most likely end) add anything that counts.
  double top = 0.0;
  for (int t = 0; t + 1 < T_; ++t) top = std::max(top, rb_[size_t(t)] + rn_[size_t(t)]);
  const double cut = top * kWindow;
  const int repeat = last_ >= 0 ? (*slot_)[size_t(last_)] : -1;
  double s = 0.0;
  double* __restrict part = part_.data();  // never the tables': the loop below runs two columns at a time
  for (int t = 1; t < T_; ++t) {
    const double phi = rb_[size_t(t - 1)] + rn_[size_t(t - 1)];
    if (!(phi >= cut)) continue;
    const double* __restrict yt = y + size_t(t) * L;
    for (size_t i = 0; i < L; ++i) part[i] = part[i] + phi * yt[i];
    // A repeat needs a blank between: only the paths that end in blank extend it.
    if (repeat >= 0) s = s + rb_[size_t(t - 1)] * yt[repeat];
  }
  if (repeat >= 0) part_[size_t(repeat)] = s;
  std::fill(psi_.begin(), psi_.end(), 0.0);
  for (size_t i = 0; i < L; ++i) psi_[size_t((*live_)[i])] = part_[i];
  psi_[size_t(eos_)] = rb_[size_t(T_ - 1)] + rn_[size_t(T_ - 1)];
  return psi_;
}

double ReadingPrior::read_by(int t) const {
  if (t < 0) return last_ < 0 ? 1.0 : 0.0;
  t = std::min(t, T_ - 1);
  return rn_[size_t(t)] + rb_[size_t(t)];
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
  commit(best);
  return best;
}

void ReadingPrior::commit(int c) {
  if (c == eos_) return;
  const double* y = y_->data();
  const std::vector<double>& blank = *blank_;
  const int i = (*slot_)[size_t(c)];  // a token the reading never shows has probability 0 in every column
  auto y_at = [&](int t) { return i >= 0 ? y[size_t(t) * size_t(L_) + size_t(i)] : 0.0; };
  std::vector<double>& rn = next_rn_;
  std::vector<double>& rb = next_rb_;
  rn.resize(size_t(T_));
  rb.resize(size_t(T_));
  rn[0] = last_ < 0 ? y_at(0) : 0.0;
  rb[0] = 0.0;
  double psi = rn[0];
  for (int t = 1; t < T_; ++t) {
    const double phi = c != last_ ? rb_[size_t(t - 1)] + rn_[size_t(t - 1)] : rb_[size_t(t - 1)];
    const double yt = y_at(t);
    rn[size_t(t)] = (rn[size_t(t - 1)] + phi) * yt;
    rb[size_t(t)] = (rb[size_t(t - 1)] + rn[size_t(t - 1)]) * blank[size_t(t)];
    psi = psi + phi * yt;
  }
  const double scale = psi > 0 ? 1.0 / psi : 1.0;  // keeps psi(prefix) = 1: the scores are then ratios
  for (int t = 0; t < T_; ++t) {
    rn[size_t(t)] *= scale;
    rb[size_t(t)] *= scale;
  }
  rn_.swap(rn);
  rb_.swap(rb);
  last_ = c;
}

}  // namespace saccade
