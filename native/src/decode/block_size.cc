#include "decode/block_size.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "model/decoder.h"

namespace saccade {

std::vector<double> ar_time_estimate(const ForwardCosts& costs, const std::vector<int>& steps) {
  std::vector<int> sorted = steps;
  std::sort(sorted.begin(), sorted.end());
  // step_ms[s]: the cost of AR step s, with every sequence longer than s still in the batch.
  std::vector<double> step_ms;
  size_t shorter = 0;
  for (int s = 0; s < (sorted.empty() ? 0 : sorted.back()); ++s) {
    while (shorter < sorted.size() && sorted[shorter] <= s) ++shorter;
    step_ms.push_back(1000 * costs.at(int(sorted.size() - shorter)));
  }
  std::vector<double> out;
  for (int n : steps) {
    double ms = 0;
    for (int s = 0; s < n; ++s) ms += step_ms[size_t(s)];
    out.push_back(ms);
  }
  return out;
}

double ForwardCosts::at(int w) const {
  if (widths.empty()) return 1;
  if (w <= widths.front()) return seconds.front();
  for (size_t i = 1; i < widths.size(); ++i)
    if (w <= widths[i]) {
      const double f = double(w - widths[i - 1]) / double(widths[i] - widths[i - 1]);
      return seconds[i - 1] + f * (seconds[i] - seconds[i - 1]);
    }
  // Beyond the last width: extrapolate along the last segment.
  const size_t n = widths.size();
  if (n < 2) return seconds.back();
  const double slope = (seconds[n - 1] - seconds[n - 2]) / double(widths[n - 1] - widths[n - 2]);
  return seconds[n - 1] + slope * double(w - widths[n - 1]);
}

void RecentMedian::add(double sample) {
  values_[size_t(next_)] = sample;
  next_ = (next_ + 1) % kWindow;
  count_ = std::min(count_ + 1, kWindow);
  std::array<double, kWindow> v = values_;
  std::nth_element(v.begin(), v.begin() + count_ / 2, v.begin() + count_);
  median_ = v[size_t(count_ / 2)];
}

ForwardCosts measure_forward_costs(Model& m, const std::vector<int>& widths, int context, int repeats) {
  ForwardCosts fc;
  fc.widths = widths;
  std::sort(fc.widths.begin(), fc.widths.end());
  fc.context = context;
  const int max_w = fc.widths.empty() ? 1 : fc.widths.back();
  Decoder dec(m);
  KvCache cache = make_kv_cache(m, context + max_w);
  cache.len = context;  // zero keys: timing does not depend on their values
  auto run = [&](int w) {
    std::vector<Segment> segs(1);
    Segment& s = segs[0];
    s.cache = &cache;
    s.first_slot = context;
    for (int i = 0; i < w; ++i) {
      s.tokens.push_back(m.cfg.pad_token_id);
      s.pos.push_back({context + i, context + i, context + i});
      s.key_limit.push_back(context + i + 1);
    }
    const auto t0 = std::chrono::steady_clock::now();
    dec.forward(segs);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  run(max_w);  // warm caches and workspace
  // Whole passes over the widths, best of each: a burst of other work spoils one pass's widths, not every
  // repeat of one width.
  fc.seconds.assign(fc.widths.size(), 1e30);
  for (int r = 0; r < std::max(1, repeats); ++r)
    for (size_t i = 0; i < fc.widths.size(); ++i) fc.seconds[i] = std::min(fc.seconds[i], run(fc.widths[i]));
  // A wider forward never costs less; a dip is timing noise (other processes), and left in place it would
  // steer the block size towards it.
  for (size_t i = 1; i < fc.seconds.size(); ++i) fc.seconds[i] = std::max(fc.seconds[i], fc.seconds[i - 1]);
  return fc;
}

bool ProbeSchedule::due() {
  if (streak_ < after_) {
    ++streak_;
    return false;
  }
  streak_ = 0;
  after_ = std::min(2 * after_, most_);
  return true;
}

void ProbeSchedule::restart() {
  streak_ = 0;
  after_ = first_;
}

BlockSizer::BlockSizer(ForwardCosts costs, int max_block, const SpeculationMemory& memory)
    : costs_(std::move(costs)), max_block_(max_block), learnt_(memory) {
  auto cap = [](double& accepted, double& rejected) {
    const double total = accepted + rejected;
    if (total <= kMemoryWeight) return;
    accepted *= kMemoryWeight / total;
    rejected *= kMemoryWeight / total;
  };
  cap(learnt_.accepted, learnt_.rejected);
  cap(learnt_.read_accepted, learnt_.read_rejected);
}

const BlockSizer::RoundCosts& BlockSizer::round_costs(int rows) const {
  rows = std::max(1, rows);
  if (by_rows_.size() <= size_t(rows)) by_rows_.resize(size_t(rows) + 1);
  RoundCosts& rc = by_rows_[size_t(rows)];
  if (rc.verifying.empty()) {
    rc.verifying.push_back(costs_.at(rows));
    rc.fresh.push_back(costs_.at(rows));
    for (int B = 1; B <= max_block_; ++B) {
      rc.verifying.push_back(costs_.at(rows * 2 * B));
      rc.fresh.push_back(costs_.at(rows * (1 + B)));
      // Every guess held: each round verifies B - 1 guesses and commits them and the verifier's token.
      if (B >= kMinBlock) rc.full_acceptance_rate = std::max(rc.full_acceptance_rate, rows * B / rc.verifying.back());
    }
  }
  return rc;
}

SpeculationMemory BlockSizer::memory() const { return learnt_; }

bool BlockSizer::speculation_measured_slower() const {
  // Enough of both to compare: a few tokens' worth, so one noisy round does not decide.
  constexpr double kMinTokens = 8;
  const SpeculationMemory& m = learnt_;
  if (m.ar_tokens < kMinTokens || m.spec_tokens < kMinTokens) return false;
  return m.spec_seconds / m.spec_tokens > m.ar_seconds / m.ar_tokens;
}

double BlockSizer::alpha() const { return learnt_.accepted / (learnt_.accepted + learnt_.rejected); }

// Rounds of block B alternate between two kinds (docs/decisions/0016). A verifying round checks the B - 1
// guesses the last block left and commits the accepted run and one verifier token, 1 + S expected; all of
// them hold with probability h = alpha^(B-1), and then the next round verifies again. Otherwise its block is
// dropped and the next round is fresh: c and B masks, one token. In the long run a share 1 / (2 - h) of the
// rounds verify.
double BlockSizer::spec_rate(int B, int rows, double run, double held) const {
  const RoundCosts& rc = round_costs(rows);
  const double verifying = 1 / (2 - held);
  const double tokens = verifying * (1 + run) + (1 - verifying);
  const double seconds = verifying * rc.verifying[size_t(B)] + (1 - verifying) * rc.fresh[size_t(B)];
  return rows * tokens / (spec_scale() * seconds);
}

double BlockSizer::rate(int B, int rows) const {
  if (B == 0) return rows / (ar_scale() * round_costs(rows).verifying[0]);
  const double a = alpha();
  double run = 0, ai = 1;  // ai ends as alpha^(B-1)
  for (int i = 1; i < B; ++i) run += (ai *= a);
  return spec_rate(B, rows, run, ai);
}

void BlockSizer::observe_time(int B, int width, double seconds, int committed) {
  const double p = costs_.at(width);
  if (!(p > 0) || !(seconds > 0)) return;
  const bool ar = B == 0;
  RecentMedian& ratio = ar ? learnt_.ar_ratio : learnt_.spec_ratio;
  ratio.add(seconds / p);
  const double expected = (ar ? ar_scale() : spec_scale()) * p;
  // Decayed per kind of round, so the comparison follows the region as it changes.
  constexpr double kDecay = 0.95;
  double& s = ar ? learnt_.ar_seconds : learnt_.spec_seconds;
  double& t = ar ? learnt_.ar_tokens : learnt_.spec_tokens;
  s = kDecay * s + std::min(seconds, kStallFactor * expected);
  t = kDecay * t + committed;
}

// Runs every round: one pass, the expected run of B (and alpha^(B-1)) built from those of B - 1.
int BlockSizer::best_block(int rows) const {
  const double a = alpha();
  double run = 0, ai = 1;  // B = 1
  int best = std::min(kMinBlock, max_block_);
  double best_rate = 0;
  for (int B = 2; B <= max_block_; ++B) {
    run += (ai *= a);
    const double r = spec_rate(B, rows, run, ai);
    if (r > best_rate) {
      best = B;
      best_rate = r;
    }
  }
  return best;
}

bool BlockSizer::speculation_can_pay(int rows) const {
  return round_costs(rows).full_acceptance_rate / spec_scale() > rate(0, rows);
}

// Expected run of guesses 1..n that hold under per-token acceptance a: a + a^2 + ... + a^n.
static double expected_run(double a, int n) {
  double run = 0, ai = 1;
  for (int i = 0; i < n; ++i) run += (ai *= a);
  return run;
}

double BlockSizer::finish_rate(int left, int rows, double a) const {
  // The fresh round [c, MASK x left] commits one token; the next verifies the n = left - 1 guesses up to the
  // end of text with no masks after them, and commits the run that holds and the verifier's correction
  // (none when every guess held: the last is EOS).
  const int n = left - 1;
  const double tokens = 2 + expected_run(a, n) - std::pow(a, n);
  const double seconds = costs_.at(rows * (1 + left)) + costs_.at(rows * left);
  return rows * tokens / (spec_scale() * seconds);
}

double BlockSizer::rest_rate(int B, int left, int rows) const {
  // A fresh round of block B, then the rest at the block's long-run rate.
  const double seconds = spec_scale() * costs_.at(rows * (1 + B)) + rows * (left - 1) / rate(B, rows);
  return rows * left / seconds;
}

int BlockSizer::next(int rows, int left) {
  if (probe_to_verify_ > 0) return std::exchange(probe_to_verify_, 0);
  const bool finishing = left > 1 && left <= max_block_;
  if (!speculation_can_pay(rows) && !(finishing && finish_rate(left, rows, 1) > rate(0, rows))) return 0;
  int best = left;
  double best_rate = 0;
  if (finishing) {
    // A few tokens left: a block that drafts them all, or a shorter one with its first (fresh) round paid.
    best_rate = finish_rate(left, rows, alpha());
    for (int B = kMinBlock; B < left; ++B)
      if (const double r = rest_rate(B, left, rows); r > best_rate) {
        best = B;
        best_rate = r;
      }
  } else {
    best = best_block(rows);
    best_rate = rate(best, rows);
  }
  SpeculationMemory& m = learnt_;
  if (best_rate >= rate(0, rows) && !speculation_measured_slower()) {
    m.spec_probe.restart();
    return m.ar_probe.due() ? 0 : best;
  }
  m.ar_probe.restart();
  if (!m.spec_probe.due()) return 0;
  // A probe from AR steps is two rounds: one drafts a block, the next verifies it. An AR step after the draft
  // would drop its guesses unchecked, and the acceptance estimate would never move.
  probe_to_verify_ = best;
  return probe_to_verify_;
}

void BlockSizer::observe(int checked, int accepted) {
  learnt_.accepted += accepted;
  if (accepted < checked) learnt_.rejected += 1;
}

int BlockSizer::reading_guesses(int available, bool ends_text, int rows) const {
  const SpeculationMemory& m = learnt_;
  const double a = m.read_accepted / (m.read_accepted + m.read_rejected);
  // This sequence's share of the batch's forward, plus the rows its guesses add.
  const double share = costs_.at(rows) / rows;
  int best = 0;
  double best_rate = 1 / (ar_scale() * share), run = 0, ai = 1;
  for (int n = 1; n <= available; ++n) {
    run += (ai *= a);
    const double tokens = 1 + run - (ends_text && n == available ? ai : 0);
    const double r = tokens / (read_scale() * (share + costs_.at(rows + n) - costs_.at(rows)));
    if (r > best_rate) {
      best = n;
      best_rate = r;
    }
  }
  return best;
}

void BlockSizer::observe_reading_time(int width, double seconds) {
  const double p = costs_.at(width);
  if (p > 0 && seconds > 0) learnt_.read_ratio.add(seconds / p);
}

void BlockSizer::observe_reading(int checked, int accepted) {
  learnt_.read_accepted += accepted;
  if (accepted < checked) learnt_.read_rejected += 1;
}

}  // namespace saccade
