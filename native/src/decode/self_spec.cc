#include <algorithm>

#include "decode/strategies.h"

namespace saccade {

namespace {

struct Draft {
  std::vector<int> tok;                // d_1..d_B
  std::vector<float> conf;             // draft probability of each
  std::vector<std::vector<float>> q;   // draft distributions (sampling only)
};

// Picks a token from one row of logits: argmax when greedy, else a sample from the processed distribution.
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

// Extra denoising steps: re-mask drafted slots (j >= 2) below tau_c and predict them again with the block
// attending bidirectionally. Returns the forwards spent.
int refine(DecodeContext& ctx, Sequence& seq, int a1, Draft& d) {
  const int V = ctx.model.cfg.text.vocab_size, mask = ctx.model.cfg.mask_token_id;
  const int B = int(d.tok.size()), first = seq.cache().len;  // slot of d_1 (= a_1)
  int forwards = 0;
  for (int step = 0; step < ctx.opts.refine_steps && !ctx.cancel.load(); ++step) {
    std::vector<int> masked;
    for (int j = 1; j < B; ++j)
      if (d.conf[size_t(j)] < ctx.opts.tau_c) masked.push_back(j);
    if (masked.empty()) break;
    std::vector<Row> rows;
    for (int j = 0; j < B; ++j) rows.push_back({j == 0 ? a1 : d.tok[size_t(j)], first + j, first + B});
    for (int j : masked) rows[size_t(j)].token = mask;
    const std::vector<float> logits = seq.forward(rows);
    seq.end_step(-1);
    ++forwards;
    for (int j : masked) {
      std::vector<float>* qd = ctx.opts.temperature > 0 ? &d.q[size_t(j)] : nullptr;
      d.tok[size_t(j)] = pick(ctx, logits.data() + size_t(j) * V, qd, &d.conf[size_t(j)]);
    }
  }
  return forwards;
}

}  // namespace

void decode_self_spec(DecodeContext& ctx, Sequence& seq, BlockSizer* sizer) {
  const ModelConfig& c = ctx.model.cfg;
  const int V = c.text.vocab_size;
  const bool sampling = ctx.opts.temperature > 0;
  const double t_start = now_ms();
  for (int round = 0; !seq.done() && !ctx.cancel.load(); ++round) {
    int B = sizer ? sizer->choose() : ctx.opts.block_size;
    B = std::max(1, std::min(B, seq.budget()));
    const int L = seq.cache().len;

    // Draft forward [c, MASK x B]: c causal, the masks see the prefix, c and the whole block.
    double t0 = now_ms();
    std::vector<Row> rows{{seq.pending(), L, L + 1}};
    for (int j = 0; j < B; ++j) rows.push_back({c.mask_token_id, L + 1 + j, L + 1 + B});
    std::vector<float> logits = seq.forward(rows);
    seq.cache().len = L + 1;  // c's KV is committed; the masks' KV stays scratch
    seq.end_step(0);
    float a1_prob;
    const int a1 = pick(ctx, logits.data(), nullptr, &a1_prob);
    Draft d;
    d.tok.resize(size_t(B));
    d.conf.resize(size_t(B));
    d.q.resize(sampling ? size_t(B) : 0);
    for (int j = 0; j < B; ++j)
      d.tok[size_t(j)] = pick(ctx, logits.data() + size_t(1 + j) * V, sampling ? &d.q[size_t(j)] : nullptr, &d.conf[size_t(j)]);
    const std::vector<int> draft_shown = d.tok;
    const std::vector<float> conf_shown = d.conf;
    int forwards = 1 + (B > 1 ? refine(ctx, seq, a1, d) : 0);
    const double draft_ms = now_ms() - t0;

    // a_1 is exact: commit it now (d_1 is replaced by it).
    std::vector<int> committed{a1}, verify{a1};
    int accepted = d.tok[0] == a1 ? 1 : 0;
    seq.commit({{a1, d.tok[0] == a1 ? TokenSource::Accepted : TokenSource::Corrected, d.conf[0], a1_prob, 0}}, round,
               ctx.sink);
    double verify_ms = 0;
    if (!seq.done() && !ctx.cancel.load()) {
      // Verify forward [a_1, d_2..d_B], causal: row i predicts a_{i+2}.
      t0 = now_ms();
      const int S = L + 1;
      std::vector<Row> vrows;
      for (int j = 0; j < B; ++j) vrows.push_back({j == 0 ? a1 : d.tok[size_t(j)], S + j, S + j + 1});
      logits = seq.forward(vrows);
      ++forwards;
      std::vector<Commit> out;
      int checked = 0, matched = 0;
      for (int i = 0; i < B; ++i) {
        const float* row = logits.data() + size_t(i) * V;
        verify.push_back(argmax(row, V));
        if (i == B - 1) {  // every draft token matched: the verifier's next token is a bonus
          float pr;
          out.push_back({pick(ctx, row, nullptr, &pr), TokenSource::Bonus, -1.0f, pr, i});
          break;
        }
        const int dj = d.tok[size_t(i + 1)];
        const float qj = d.conf[size_t(i + 1)];
        ++checked;
        bool ok;
        float pr;
        if (!sampling) {
          ok = verify.back() == dj;
          pr = softmax_prob(row, V, ok ? dj : verify.back());
        } else {
          std::vector<float> p = distribution(row, V, ctx.opts.temperature, ctx.opts.top_p);
          const std::vector<float>& q = d.q[size_t(i + 1)];
          ok = ctx.rng.uniform() < std::min(1.0, double(p[size_t(dj)]) / double(q[size_t(dj)]));
          if (!ok) {  // resample from norm(max(0, p - q))
            std::vector<float> r(p.size());
            double s = 0;
            for (size_t k = 0; k < p.size(); ++k) s += r[k] = std::max(0.0f, p[k] - q[k]);
            if (s > 0) {
              for (float& v : r) v = float(v / s);
              verify.back() = sample(r, ctx.rng);
            } else {
              verify.back() = sample(p, ctx.rng);
            }
          }
          pr = p[size_t(ok ? dj : verify.back())];
        }
        if (ok) {
          ++matched;
          out.push_back({dj, TokenSource::Accepted, qj, pr, i});
        } else {
          out.push_back({verify.back(), TokenSource::Corrected, qj, pr, i});
          break;
        }
      }
      verify_ms = now_ms() - t0;
      accepted += matched;
      if (sizer) sizer->observe(checked, matched);
      const int n = seq.commit(out, round, ctx.sink);
      for (int k = 0; k < n; ++k) committed.push_back(out[size_t(k)].id);
      // Verified KV is kept for every committed token except the last, which becomes the next c.
      seq.cache().len = S + n;
      seq.end_step(n > 0 ? out[size_t(n - 1)].row : -1);
    }
    ++seq.stats().rounds;
    Event e{};
    e.type = Event::Type::Round;
    e.region_id = seq.id();
    e.round = round;
    e.block_size = B;
    e.draft = draft_shown;
    e.draft_conf = conf_shown;
    e.verify = verify;
    e.accepted = accepted;
    e.committed = committed;
    e.forwards = forwards;
    e.draft_ms = draft_ms;
    e.verify_ms = verify_ms;
    ctx.sink.emit(std::move(e));
  }
  seq.stats().decode_ms += now_ms() - t_start;
}

}  // namespace saccade
