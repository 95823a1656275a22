#pragma once
// Token choice from logits: greedy, or temperature + top-p sampling with a seeded generator whose stream is
// the same on every platform (xoshiro256**, own float conversion).
#include <cstdint>
#include <vector>

namespace saccade {

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform();  // [0, 1)

 private:
  uint64_t s_[4];
};

int argmax(const float* logits, int n);

// Probability distribution after temperature and top-p (greedy when temperature == 0: one-hot at argmax).
std::vector<float> distribution(const float* logits, int n, float temperature, float top_p);

// Softmax probability of token id at temperature 1 (reported as confidence).
float softmax_prob(const float* logits, int n, int id);

int sample(const std::vector<float>& probs, Rng& rng);

}  // namespace saccade
