#include "decode/ctc_prefix.h"

#include <algorithm>
#include <utility>

#include "model/model.h"
#include "util/error.h"

namespace saccade {

std::shared_ptr<const CtcColumns> CtcColumns::make(std::vector<int> live, std::vector<double> y,
                                                   std::vector<double> blank, int vocab, int eos) {
  const int T = int(blank.size()), L = int(live.size());
  bool ids_ok = eos >= 0 && eos < vocab;
  for (int c : live) ids_ok = ids_ok && c >= 0 && c < vocab && c != eos;
  if (T < 1 || L < 1 || !ids_ok || y.size() != size_t(T) * size_t(L))
    throw EngineError("reading prior: expected token ids below the vocabulary and probabilities [T, live] and [T]");
  auto c = std::make_shared<CtcColumns>();
  c->T = T;
  c->slot.assign(size_t(vocab), -1);
  for (int i = 0; i < L; ++i) c->slot[size_t(live[size_t(i)])] = i;
  c->live = std::move(live);
  c->y = std::move(y);
  c->blank = std::move(blank);
  return c;
}

std::shared_ptr<const CtcColumns> CtcColumns::for_line(const Model& m, const std::vector<float>& ctc, int T) {
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
  return make(live, std::move(y), std::move(blank), V, m.cfg.eos_token_id);
}

CtcPrefix::CtcPrefix(std::shared_ptr<const CtcColumns> columns) : cols_(std::move(columns)) {
  const int T = cols_->T;
  rn_.assign(size_t(T), 0.0);
  rb_.resize(size_t(T));
  double run = 1.0;  // the empty text: every column so far blank
  for (int t = 0; t < T; ++t) rb_[size_t(t)] = run *= cols_->blank[size_t(t)];
}

double CtcPrefix::read_by(int t) const {
  if (t < 0) return last_ < 0 ? 1.0 : 0.0;
  t = std::min(t, cols_->T - 1);
  return rn_[size_t(t)] + rb_[size_t(t)];
}

void CtcPrefix::extend(int c, bool optional) {
  const CtcColumns& k = *cols_;
  const int T = k.T;
  const double* y = k.y.data();
  const size_t L = k.live.size();
  const int i = k.slot[size_t(c)];  // a token the reading never shows has probability 0 in every column
  auto y_at = [&](int t) { return i >= 0 ? y[size_t(t) * L + size_t(i)] : 0.0; };
  std::vector<double>& rn = next_rn_;
  std::vector<double>& rb = next_rb_;
  rn.resize(size_t(T));
  rb.resize(size_t(T));
  rn[0] = last_ < 0 ? y_at(0) : 0.0;
  rb[0] = 0.0;
  double psi = rn[0];
  for (int t = 1; t < T; ++t) {
    const double phi = c != last_ ? rb_[size_t(t - 1)] + rn_[size_t(t - 1)] : rb_[size_t(t - 1)];
    const double yt = y_at(t);
    rn[size_t(t)] = (rn[size_t(t - 1)] + phi) * yt;
    rb[size_t(t)] = (rb[size_t(t - 1)] + rn[size_t(t - 1)]) * k.blank[size_t(t)];
    psi = psi + phi * yt;
  }
  if (optional) {
    // Without the token: its paths at their own weight (the text before it had prefix probability 1).
    for (int t = 0; t < T; ++t) {
      rn[size_t(t)] += rn_[size_t(t)];
      rb[size_t(t)] += rb_[size_t(t)];
    }
    psi += 1.0;
  }
  const double scale = psi > 0 ? 1.0 / psi : 1.0;  // keeps the prefix probability 1: scores are then ratios
  for (int t = 0; t < T; ++t) {
    rn[size_t(t)] *= scale;
    rb[size_t(t)] *= scale;
  }
  rn_.swap(rn);
  rb_.swap(rb);
  last_ = c;
}

}  // namespace saccade
