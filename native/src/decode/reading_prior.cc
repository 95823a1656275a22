#include "decode/reading_prior.h"

#include <algorithm>
#include <cmath>

#include "model/model.h"
#include "util/error.h"
#include "util/utf8.h"

namespace saccade {

namespace {

constexpr double kFloor = 1e-30;  // the smallest score ratio: a reading the CTC head rules out costs w * 69 nats

bool one_character(const Tokenizer& tok, int id) {
  if (id >= tok.size() || tok.is_special(id)) return false;
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  decode_utf8(tok.piece(id), cps, offsets);
  return cps.size() == 1;
}

// The id of the token that is exactly `text`, or -1.
int single_token(const Tokenizer& tok, const std::string& text) {
  try {
    const std::vector<int> ids = tok.encode(text);
    return ids.size() == 1 ? ids[0] : -1;
  } catch (const EngineError&) {
    return -1;
  }
}

}  // namespace

ReadingPrior::ReadingPrior(std::vector<double> y, std::vector<double> blank, int eos, double weight)
    : T_(int(blank.size())), V_(T_ > 0 ? int(y.size() / blank.size()) : 0), eos_(eos), weight_(weight) {
  if (T_ < 1 || y.size() != size_t(T_) * size_t(V_) || eos < 0 || eos >= V_)
    throw EngineError("reading prior: expected probabilities [T, V] and [T] with end of text among the V");
  rn_.assign(size_t(T_), 0.0);
  rb_.resize(size_t(T_));
  double run = 1.0;  // the empty prefix: every column so far blank
  for (int t = 0; t < T_; ++t) rb_[size_t(t)] = run *= blank[size_t(t)];
  y_ = std::make_shared<const std::vector<double>>(std::move(y));
  blank_ = std::make_shared<const std::vector<double>>(std::move(blank));
  psi_.resize(size_t(V_));
  lp_.resize(size_t(V_));
}

std::unique_ptr<ReadingPrior> ReadingPrior::for_line(const Model& m, const std::vector<float>& ctc, int T) {
  const int V = m.cfg.text.vocab_size, classes = V + 2;
  if (!m.line || T < 1 || ctc.size() != size_t(T) * size_t(classes))
    throw EngineError("reading prior: expected a line model's folded CTC distribution");
  std::vector<char> named(size_t(V), 0);
  for (int c : m.line->ctc_map)
    if (c < V) named[size_t(c)] = 1;
  // Which folded column each token reads: its own, its stand-in's, "a character we lack" (V + 1), or none.
  std::vector<int> column(size_t(V), -1);
  for (int c = 0; c < V; ++c)
    if (one_character(m.tokenizer, c)) column[size_t(c)] = named[size_t(c)] ? c : V + 1;
  for (const auto& [from, to] : m.cfg.reading_prior_read_as) {
    const int f = single_token(m.tokenizer, from), t = single_token(m.tokenizer, to);
    if (f >= 0 && t >= 0 && !named[size_t(f)] && named[size_t(t)]) column[size_t(f)] = t;
  }
  std::vector<double> y(size_t(T) * size_t(V), 0.0), blank(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) blank[size_t(t)] = double(ctc[size_t(t) * classes + size_t(V)]);
  for (int c = 0; c < V; ++c)
    if (column[size_t(c)] >= 0)
      for (int t = 0; t < T; ++t)
        y[size_t(t) * V + size_t(c)] = double(ctc[size_t(t) * classes + size_t(column[size_t(c)])]);
  return std::make_unique<ReadingPrior>(std::move(y), std::move(blank), m.cfg.eos_token_id,
                                        m.cfg.reading_prior_weight);
}

const std::vector<double>& ReadingPrior::scores() {
  const double* y = y_->data();
  for (int c = 0; c < V_; ++c) psi_[size_t(c)] = last_ < 0 ? y[c] : 0.0;
  for (int t = 1; t < T_; ++t) {
    const double phi = rb_[size_t(t - 1)] + rn_[size_t(t - 1)];
    const double* yt = y + size_t(t) * V_;
    for (int c = 0; c < V_; ++c) psi_[size_t(c)] = psi_[size_t(c)] + phi * yt[c];
  }
  if (last_ >= 0) {  // a repeat needs a blank between: only the paths that end in blank extend it
    double s = 0.0;
    for (int t = 1; t < T_; ++t) s = s + rb_[size_t(t - 1)] * y[size_t(t) * V_ + size_t(last_)];
    psi_[size_t(last_)] = s;
  }
  psi_[size_t(eos_)] = rb_[size_t(T_ - 1)] + rn_[size_t(T_ - 1)];
  return psi_;
}

int ReadingPrior::take(const float* logits, float* prob) {
  scores();
  double top = double(logits[0]);
  for (int c = 1; c < V_; ++c) top = std::max(top, double(logits[c]));
  double sum = 0.0;
  for (int c = 0; c < V_; ++c) sum += std::exp(lp_[size_t(c)] = double(logits[c]) - top);
  const double log_sum = std::log(sum);
  int best = 0;
  for (int c = 0; c < V_; ++c) {
    lp_[size_t(c)] =
        (1.0 - weight_) * (lp_[size_t(c)] - log_sum) + weight_ * std::log(std::max(psi_[size_t(c)], kFloor));
    if (lp_[size_t(c)] > lp_[size_t(best)]) best = c;
  }
  double mass = 0.0;
  for (int c = 0; c < V_; ++c) mass += std::exp(lp_[size_t(c)] - lp_[size_t(best)]);
  *prob = float(1.0 / mass);
  commit(best);
  return best;
}

void ReadingPrior::commit(int c) {
  if (c == eos_) return;
  const double* y = y_->data();
  const std::vector<double>& blank = *blank_;
  std::vector<double> rn(size_t(T_), 0.0), rb(size_t(T_), 0.0);
  rn[0] = last_ < 0 ? y[c] : 0.0;
  double psi = rn[0];
  for (int t = 1; t < T_; ++t) {
    const double phi = c != last_ ? rb_[size_t(t - 1)] + rn_[size_t(t - 1)] : rb_[size_t(t - 1)];
    const double yt = y[size_t(t) * V_ + size_t(c)];
    rn[size_t(t)] = (rn[size_t(t - 1)] + phi) * yt;
    rb[size_t(t)] = (rb[size_t(t - 1)] + rn[size_t(t - 1)]) * blank[size_t(t)];
    psi = psi + phi * yt;
  }
  const double scale = psi > 0 ? 1.0 / psi : 1.0;  // keeps psi(prefix) = 1: the scores are then ratios
  for (int t = 0; t < T_; ++t) {
    rn_[size_t(t)] = rn[size_t(t)] * scale;
    rb_[size_t(t)] = rb[size_t(t)] * scale;
  }
  last_ = c;
}

}  // namespace saccade
