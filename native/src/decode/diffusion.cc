#include <algorithm>

#include "decode/strategies.h"

namespace saccade {

void decode_diffusion(DecodeContext& ctx, Sequence& seq) {
  const ModelConfig& c = ctx.model.cfg;
  const int V = c.text.vocab_size, mask = c.mask_token_id;
  const DecodeOptions& o = ctx.opts;
  // Committed tokens whose KV is not cached yet; they lead the next block's first forward, causally.
  std::vector<int> uncached{seq.pending()};
  for (int round = 0; !seq.done() && !ctx.cancel.load(); ++round) {
    const int B = std::max(1, std::min(o.block_size > 0 ? o.block_size : c.diffusion_block_size, seq.budget()));
    const int L = seq.cache().len, U = int(uncached.size()), first = L + U;
    std::vector<int> tok(size_t(B), mask);
    std::vector<float> conf(size_t(B), 0.0f);
    std::vector<int> fixation_row(size_t(B), -1);
    int forwards = 0;
    const double t0 = now_ms();
    for (int remaining = B; remaining > 0 && !ctx.cancel.load();) {
      std::vector<Row> rows;
      if (forwards == 0)
        for (int i = 0; i < U; ++i) rows.push_back({uncached[size_t(i)], L + i, L + i + 1});
      const int lead = int(rows.size());
      for (int j = 0; j < B; ++j) rows.push_back({tok[size_t(j)], first + j, first + B});
      const std::vector<float> logits = seq.forward(rows);
      if (forwards == 0) seq.cache().len = first;  // the leading committed tokens are cached now
      seq.end_step(lead > 0 ? lead - 1 : -1);
      ++forwards;
      // Candidates: every masked slot with its choice and confidence.
      std::vector<int> choice(size_t(B), -1);
      std::vector<float> prob(size_t(B), -1.0f);
      int best = -1;
      for (int j = 0; j < B; ++j) {
        if (tok[size_t(j)] != mask) continue;
        const float* row = logits.data() + size_t(lead + j) * V;
        if (o.temperature > 0) {
          std::vector<float> p = distribution(row, V, o.temperature, o.top_p);
          choice[size_t(j)] = sample(p, ctx.rng);
          prob[size_t(j)] = p[size_t(choice[size_t(j)])];
        } else {
          choice[size_t(j)] = argmax(row, V);
          prob[size_t(j)] = softmax_prob(row, V, choice[size_t(j)]);
        }
        if (best < 0 || prob[size_t(j)] > prob[size_t(best)]) best = j;
      }
      int filled = 0;
      for (int j = 0; j < B; ++j)
        if (choice[size_t(j)] >= 0 && prob[size_t(j)] > o.tau_c) {
          tok[size_t(j)] = choice[size_t(j)];
          conf[size_t(j)] = prob[size_t(j)];
          fixation_row[size_t(j)] = lead + j;
          ++filled;
        }
      if (filled == 0) {
        tok[size_t(best)] = choice[size_t(best)];
        conf[size_t(best)] = prob[size_t(best)];
        fixation_row[size_t(best)] = lead + best;
        filled = 1;
      }
      remaining -= filled;
    }
    if (ctx.cancel.load()) break;
    // Only fixations of the last forward are still held by the controller.
    std::vector<Commit> out;
    for (int j = 0; j < B; ++j)
      out.push_back({tok[size_t(j)], TokenSource::Diffusion, conf[size_t(j)], conf[size_t(j)],
                     forwards == 1 ? fixation_row[size_t(j)] : j});
    const int n = seq.commit(out, round, ctx.sink);
    uncached.assign(tok.begin(), tok.begin() + n);
    ++seq.stats().rounds;
    Event e{};
    e.type = Event::Type::Round;
    e.region_id = seq.id();
    e.round = round;
    e.block_size = B;
    e.draft = tok;
    e.draft_conf = conf;
    e.accepted = n;
    e.committed = uncached;
    e.forwards = forwards;
    e.draft_ms = now_ms() - t0;
    seq.stats().decode_ms += e.draft_ms;
    seq.stats().decode_share_ms += e.draft_ms;
    ctx.sink.emit(std::move(e));
  }
}

}  // namespace saccade
