#include "decode/strategies.h"

namespace saccade {

void decode_ar(DecodeContext& ctx, const std::vector<Sequence*>& seqs) {
  const int V = ctx.model.cfg.text.vocab_size;
  const DecodeOptions& o = ctx.opts;
  for (int round = 0; !ctx.cancel.load(); ++round) {
    std::vector<Sequence*> active;
    std::vector<std::vector<Row>> rows;
    for (Sequence* s : seqs)
      if (!s->done()) {
        active.push_back(s);
        rows.push_back({{s->pending(), s->cache().len, s->cache().len + 1}});
      }
    if (active.empty()) break;
    const double t0 = now_ms();
    const std::vector<std::vector<float>> logits = forward_batch(ctx.decoder, active, rows);
    for (size_t i = 0; i < active.size(); ++i) {
      Sequence& seq = *active[i];
      const float* row = logits[i].data();
      seq.cache().len += 1;
      int id;
      float prob;
      if (o.temperature > 0) {
        const std::vector<float> p = distribution(row, V, o.temperature, o.top_p);
        id = sample(p, ctx.rng);
        prob = p[size_t(id)];
      } else {  // greedy: no distribution to build, as in self-spec's steps
        id = argmax(row, V);
        prob = softmax_prob(row, V, id);
      }
      seq.end_step(0);
      seq.commit({{id, TokenSource::AR, -1.0f, prob, 0}}, round, ctx.sink);
      ++seq.stats().rounds;
    }
    // Decode time is the step's wall time, picking and commits included, as for the other strategies.
    const double ms = now_ms() - t0;
    for (Sequence* s : active) s->stats().decode_ms += ms;
  }
}

}  // namespace saccade
