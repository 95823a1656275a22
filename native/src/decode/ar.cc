#include "decode/strategies.h"
#include "decode/verify.h"

namespace saccade {

void decode_ar(DecodeContext& ctx, const std::vector<Sequence*>& seqs) {
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
      float prob;
      const int id = verifier_pick(ctx, seq, row, &prob);
      seq.end_step(0);
      seq.commit({{id, TokenSource::AR, -1.0f, prob, 0}}, round, ctx.sink);
      ++seq.stats().rounds;
    }
    // Decode time is the step's wall time, picking and commits included, as for the other strategies.
    const double ms = now_ms() - t0;
    for (Sequence* s : active) {
      s->stats().decode_ms += ms;
      s->stats().decode_share_ms += ms / double(active.size());
    }
  }
}

}  // namespace saccade
