#include "decode/verify.h"

#include <algorithm>

#include "decode/sampling.h"

namespace saccade {

int pick(DecodeContext& ctx, const float* logits, std::vector<float>* dist_out, float* prob) {
  const int V = ctx.model.cfg.text.vocab_size;
  const DecodeOptions& o = ctx.opts;
  if (o.temperature <= 0) {
    const int id = argmax(logits, V);
    *prob = softmax_prob(logits, V, id);
    return id;
  }
  std::vector<float> p = distribution(logits, V, o.temperature, o.top_p);
  const int id = sample(p, ctx.rng);
  *prob = p[size_t(id)];
  if (dist_out) *dist_out = std::move(p);
  return id;
}

int verifier_pick(DecodeContext& ctx, Sequence& seq, const float* logits, float* prob) {
  ReadingPrior* prior = seq.reading_prior();
  if (!prior) return pick(ctx, logits, nullptr, prob);
  return prior->take(logits, prob);
}

int check_guess(DecodeContext& ctx, Sequence& seq, const float* row, int guess, const std::vector<float>* q,
                bool* ok, float* prob) {
  if (ctx.opts.temperature <= 0) {
    const int a = verifier_pick(ctx, seq, row, prob);
    *ok = a == guess;
    return a;
  }
  const int V = ctx.model.cfg.text.vocab_size;
  const std::vector<float> p = distribution(row, V, ctx.opts.temperature, ctx.opts.top_p);
  *ok = ctx.rng.uniform() < std::min(1.0, double(p[size_t(guess)]) / double((*q)[size_t(guess)]));
  int id = guess;
  if (!*ok) {
    std::vector<float> res(p.size());
    double s = 0;
    for (size_t i = 0; i < p.size(); ++i) s += res[i] = std::max(0.0f, p[i] - (*q)[i]);
    if (s > 0) {
      for (float& v : res) v = float(v / s);
      id = sample(res, ctx.rng);
    } else {
      id = sample(p, ctx.rng);
    }
  }
  *prob = p[size_t(id)];
  return id;
}

}  // namespace saccade
