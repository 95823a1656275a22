#include "decode/block_size.h"

#include <algorithm>
#include <chrono>

#include "model/decoder.h"

namespace saccade {

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
  for (int w : fc.widths) {
    double best = 1e30;
    for (int r = 0; r < std::max(1, repeats); ++r) best = std::min(best, run(w));
    fc.seconds.push_back(best);
  }
  // A wider forward never costs less; a dip is timing noise (other processes), and left in place it would
  // steer the block size towards it.
  for (size_t i = 1; i < fc.seconds.size(); ++i) fc.seconds[i] = std::max(fc.seconds[i], fc.seconds[i - 1]);
  return fc;
}

BlockSizer::BlockSizer(ForwardCosts costs, int max_block, const SpeculationMemory& memory)
    : costs_(std::move(costs)),
      max_block_(max_block),
      ar_scale_(memory.ar_scale),
      spec_scale_(memory.spec_scale),
      accepted_(memory.accepted),
      rejected_(memory.rejected),
      ar_seconds_(memory.ar_seconds),
      ar_tokens_(memory.ar_tokens),
      spec_seconds_(memory.spec_seconds),
      spec_tokens_(memory.spec_tokens) {
  const double total = accepted_ + rejected_;
  if (total > kMemoryWeight) {
    accepted_ *= kMemoryWeight / total;
    rejected_ *= kMemoryWeight / total;
  }
}

SpeculationMemory BlockSizer::memory() const {
  return {accepted_, rejected_, ar_scale_, spec_scale_, ar_seconds_, ar_tokens_, spec_seconds_, spec_tokens_};
}

bool BlockSizer::speculation_measured_slower() const {
  // Enough of both to compare: a few tokens' worth, so one noisy round does not decide.
  constexpr double kMinTokens = 8;
  if (ar_tokens_ < kMinTokens || spec_tokens_ < kMinTokens) return false;
  return spec_seconds_ / spec_tokens_ > ar_seconds_ / ar_tokens_;
}

double BlockSizer::alpha() const { return accepted_ / (accepted_ + rejected_); }

double BlockSizer::predicted(int B) const {
  // A speculative round is one draft forward of width B + 1 and one verify forward of width B.
  return B == 0 ? costs_.at(1) : costs_.at(B + 1) + costs_.at(B);
}

double BlockSizer::rate(int B) const {
  if (B == 0) return 1 / (ar_scale_ * predicted(0));
  // A round commits a_1, the accepted run of d_2..d_B (each accepted with probability alpha while the run
  // lasts) and one verifier token.
  const double a = alpha();
  double expected = 2, ai = 1;
  for (int i = 1; i < B; ++i) expected += (ai *= a);
  return expected / (spec_scale_ * predicted(B));
}

void BlockSizer::observe_time(int B, double seconds, int committed) {
  const double p = predicted(B);
  if (!(p > 0) || !(seconds > 0)) return;
  double& scale = B == 0 ? ar_scale_ : spec_scale_;
  scale = 0.8 * scale + 0.2 * (seconds / p);
  // Decayed per kind of round, so the comparison follows the region as it changes.
  constexpr double kDecay = 0.95;
  double& s = B == 0 ? ar_seconds_ : spec_seconds_;
  double& t = B == 0 ? ar_tokens_ : spec_tokens_;
  s = kDecay * s + seconds;
  t = kDecay * t + committed;
}

int BlockSizer::best_block() const {
  int best = 1;
  for (int B = 2; B <= max_block_; ++B)
    if (rate(B) > rate(best)) best = B;
  return best;
}

int BlockSizer::next() {
  const int best = best_block();
  if (rate(best) >= rate(0) && !speculation_measured_slower()) {
    ar_streak_ = 0;
    probe_after_ = kProbeEvery;
    return best;
  }
  if (ar_streak_ >= probe_after_) {
    ar_streak_ = 0;
    probe_after_ = std::min(2 * probe_after_, kProbeMax);
    return best;
  }
  ++ar_streak_;
  return 0;
}

void BlockSizer::observe(int checked, int accepted) {
  accepted_ += accepted;
  if (accepted < checked) rejected_ += 1;
}

}  // namespace saccade
