// The reading prior's prefix scores against a brute-force sum over every CTC path of a short line, and its
// joint choice, with each reader's vote, where the decoder and the encoder's reading disagree.
#include <cmath>
#include <string>
#include <vector>

#include "decode/reading_prior.h"
#include "test.h"

using namespace saccade;

namespace {

constexpr int kT = 5, kV = 4, kEos = 0;  // tokens: end of text, a, b, c; paths also hold blank (-1)

// Column distributions over blank, a, b, c (fixed, uneven, each summing to 1).
struct Line {
  std::vector<int> live{1, 2, 3};
  std::vector<double> y = std::vector<double>(kT * 3), blank = std::vector<double>(kT);
  Line() {
    const double raw[kT][4] = {{0.1, 0.7, 0.1, 0.1}, {0.5, 0.3, 0.1, 0.1}, {0.2, 0.1, 0.6, 0.1},
                               {0.6, 0.1, 0.2, 0.1}, {0.3, 0.4, 0.1, 0.2}};
    for (int t = 0; t < kT; ++t) {
      blank[size_t(t)] = raw[t][0];
      for (int c = 1; c < kV; ++c) y[size_t(t * 3 + c - 1)] = raw[t][c];
    }
  }
  double p(int t, int s) const { return s < 0 ? blank[size_t(t)] : y[size_t(t * 3 + s - 1)]; }
  ReadingPrior prior(double weight) const { return ReadingPrior(live, y, blank, kV, kEos, weight); }
};

// Sums P(path) over every path whose collapse (repeats merged, then blanks dropped) starts with `prefix`
// (exactly: equals it).
double brute(const Line& line, const std::vector<int>& prefix, bool exactly) {
  double total = 0;
  std::vector<int> path(kT, -1);
  for (int code = 0; code < 1 << (2 * kT); ++code) {
    double p = 1;
    for (int t = 0; t < kT; ++t) {
      path[size_t(t)] = ((code >> (2 * t)) & 3) - 1;  // -1 blank, 0..2 tokens a..c less one
      if (path[size_t(t)] >= 0) ++path[size_t(t)];
      p *= line.p(t, path[size_t(t)]);
    }
    std::vector<int> text;
    for (int t = 0; t < kT; ++t)
      if (path[size_t(t)] >= 0 && (t == 0 || path[size_t(t)] != path[size_t(t - 1)])) text.push_back(path[size_t(t)]);
    const bool starts = text.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), text.begin());
    if (starts && (!exactly || text.size() == prefix.size())) total += p;
  }
  return total;
}

// Logits that make the decoder all but certain of `id`.
std::vector<float> certain(int id) {
  std::vector<float> z(kV, 0.0f);
  z[size_t(id)] = 1000.0f;
  return z;
}

}  // namespace

TEST(reading_prior_scores_every_next_token_as_the_sum_over_ctc_paths) {
  const Line line;
  for (const std::vector<int>& prefix : std::vector<std::vector<int>>{{}, {1}, {1, 2}, {1, 1}, {2, 1}, {1, 2, 1}}) {
    ReadingPrior prior = line.prior(0.5);
    float p;
    for (int c : prefix) CHECK(prior.take(certain(c).data(), &p) == c);
    const std::vector<double>& s = prior.scores();
    const double base = brute(line, prefix, false);
    for (int c = 1; c < kV; ++c) {
      std::vector<int> next = prefix;
      next.push_back(c);
      const double want = brute(line, next, false) / base;
      CHECK_MSG(std::fabs(s[size_t(c)] - want) <= 1e-12 + 1e-9 * want,
                "prefix of " << prefix.size() << " + " << c << ": " << s[size_t(c)] << " vs " << want);
    }
    const double end = brute(line, prefix, true) / base;
    CHECK_MSG(std::fabs(s[kEos] - end) <= 1e-12 + 1e-9 * end, "end after " << prefix.size() << ": " << s[kEos]);
  }
}

TEST(reading_prior_outweighs_a_decoder_that_loses_its_place) {
  const Line line;  // reads "aba" most likely
  ReadingPrior prior = line.prior(0.5);
  // The decoder prefers b by 1 nat where the reading starts with a five times likelier than with b
  // (0.75 against 0.14): the reading wins.
  std::vector<float> z(kV, 0.0f);
  z[2] = 1.0f;
  float p, p_alone;
  CHECK(prior.take(z.data(), &p) == 1);
  // With weight 0 the decoder alone decides, and its probability is the decoder's softmax.
  ReadingPrior alone = line.prior(0.0);
  CHECK(alone.take(z.data(), &p_alone) == 2);
  CHECK_MSG(std::fabs(p_alone - std::exp(1.0) / (3 + std::exp(1.0))) < 1e-6, p_alone);
  // The joint probability: the geometric mixture of the decoder's softmax and the CTC ratios, normalised.
  ReadingPrior ref = line.prior(0.5);
  const std::vector<double> ratio = ref.scores();
  const double norm = 3 + std::exp(1.0);
  double mass = 0, of_a = 0;
  for (int c = 0; c < kV; ++c) {
    const double joint = std::sqrt(std::exp(double(z[size_t(c)])) / norm * ratio[size_t(c)]);
    mass += joint;
    if (c == 1) of_a = joint;
  }
  CHECK_MSG(std::fabs(p - of_a / mass) < 1e-6, p << " vs " << of_a / mass);
  // The two readers' separate votes for the token taken: the CTC ratio of a, and the decoder's softmax of a,
  // which it gave 1 / (3 + e).
  CHECK_MSG(std::fabs(prior.read_prob(0) - ratio[1]) < 1e-6, prior.read_prob(0) << " vs " << ratio[1]);
  CHECK_MSG(std::fabs(prior.decoder_prob(0) - 1 / norm) < 1e-6, prior.decoder_prob(0));
  CHECK_THROWS_WITH(ReadingPrior({1, 2}, std::vector<double>(7), std::vector<double>(2), kV, kEos, 0.5),
                    "reading prior");
  CHECK_THROWS_WITH(ReadingPrior({kEos}, std::vector<double>(2), std::vector<double>(2), kV, kEos, 0.5),
                    "reading prior");
}
