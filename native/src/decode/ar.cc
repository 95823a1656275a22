#include "decode/strategies.h"

namespace saccade {

void decode_ar(DecodeContext& ctx, Sequence& seq) {
  const int V = ctx.model.cfg.text.vocab_size;
  const DecodeOptions& o = ctx.opts;
  const double t0 = now_ms();
  for (int round = 0; !seq.done() && !ctx.cancel.load(); ++round) {
    const int L = seq.cache().len;
    const std::vector<float> logits = seq.forward({{seq.pending(), L, L + 1}});
    seq.cache().len = L + 1;
    const std::vector<float> p = distribution(logits.data(), V, o.temperature, o.top_p);
    const int id = o.temperature > 0 ? sample(p, ctx.rng) : argmax(logits.data(), V);
    const float prob = o.temperature > 0 ? p[size_t(id)] : softmax_prob(logits.data(), V, id);
    seq.end_step(0);
    seq.commit({{id, TokenSource::AR, -1.0f, prob, 0}}, round, ctx.sink);
    ++seq.stats().rounds;
  }
  seq.stats().decode_ms += now_ms() - t0;
}

}  // namespace saccade
