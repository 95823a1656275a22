#include "decode/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace saccade {

static uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = splitmix(seed);
}

uint64_t Rng::next() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return r;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

int argmax(const float* logits, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (logits[i] > logits[best]) best = i;  // first maximum wins, like torch.argmax
  return best;
}

std::vector<float> distribution(const float* logits, int n, float temperature, float top_p) {
  std::vector<float> p(size_t(n), 0.0f);
  if (temperature <= 0) {
    p[size_t(argmax(logits, n))] = 1;
    return p;
  }
  const float mx = logits[argmax(logits, n)];
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += p[size_t(i)] = std::exp((logits[i] - mx) / temperature);
  for (float& v : p) v = float(v / sum);
  if (top_p < 1) {
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[size_t(a)] > p[size_t(b)]; });
    double cum = 0, kept = 0;
    size_t keep = 0;
    while (keep < order.size() && cum < top_p) cum += p[size_t(order[keep++])];
    for (size_t i = keep; i < order.size(); ++i) p[size_t(order[i])] = 0;
    for (size_t i = 0; i < keep; ++i) kept += p[size_t(order[i])];
    for (float& v : p) v = float(v / kept);
  }
  return p;
}

float softmax_prob(const float* logits, int n, int id) {
  const float mx = logits[argmax(logits, n)];
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i] - mx));
  return float(std::exp(double(logits[id] - mx)) / sum);
}

int sample(const std::vector<float>& probs, Rng& rng) {
  const double u = rng.uniform();
  double cum = 0;
  int last = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] <= 0) continue;
    cum += probs[i];
    last = int(i);
    if (u < cum) return int(i);
  }
  return last;  // rounding left u above the total
}

}  // namespace saccade
