#include <algorithm>

#include "decode/strategies.h"

namespace saccade {

namespace {

// One sequence's state within a round.
struct RoundState {
  Sequence* seq;
  int B = 0, L = 0, a1 = 0, forwards = 0, accepted = 0;
  float a1_prob = 0;
  std::vector<int> draft;               // d_1..d_B (after refinement)
  std::vector<float> conf;              // draft probability of each
  std::vector<std::vector<float>> q;    // draft distributions (sampling only)
  std::vector<int> draft_shown, verify, committed;
  std::vector<float> conf_shown;
  double draft_ms = 0, verify_ms = 0;
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
int refine(DecodeContext& ctx, RoundState& r) {
  const int V = ctx.model.cfg.text.vocab_size, mask = ctx.model.cfg.mask_token_id;
  Sequence& seq = *r.seq;
  const int B = r.B, first = seq.cache().len;  // slot of d_1 (= a_1)
  int forwards = 0;
  for (int step = 0; step < ctx.opts.refine_steps && !ctx.cancel.load(); ++step) {
    std::vector<int> masked;
    for (int j = 1; j < B; ++j)
      if (r.conf[size_t(j)] < ctx.opts.tau_c) masked.push_back(j);
    if (masked.empty()) break;
    std::vector<Row> rows;
    for (int j = 0; j < B; ++j) rows.push_back({j == 0 ? r.a1 : r.draft[size_t(j)], first + j, first + B});
    for (int j : masked) rows[size_t(j)].token = mask;
    const std::vector<float> logits = seq.forward(rows);
    seq.end_step(-1);
    ++forwards;
    for (int j : masked) {
      std::vector<float>* qd = ctx.opts.temperature > 0 ? &r.q[size_t(j)] : nullptr;
      r.draft[size_t(j)] = pick(ctx, logits.data() + size_t(j) * V, qd, &r.conf[size_t(j)]);
    }
  }
  return forwards;
}

// Draft forward output -> a_1 (committed at once) and d_1..d_B. With B = 0 the forward was a plain AR step.
void take_draft(DecodeContext& ctx, RoundState& r, const std::vector<float>& logits, int round) {
  const int V = ctx.model.cfg.text.vocab_size;
  const bool sampling = ctx.opts.temperature > 0;
  Sequence& seq = *r.seq;
  seq.cache().len = r.L + 1;  // c's KV is committed; the masks' KV stays scratch
  seq.end_step(0);
  r.a1 = pick(ctx, logits.data(), nullptr, &r.a1_prob);
  r.forwards = 1;
  if (r.B == 0) {
    r.committed = r.verify = {r.a1};
    seq.commit({{r.a1, TokenSource::AR, -1.0f, r.a1_prob, 0}}, round, ctx.sink);
    return;
  }
  r.draft.resize(size_t(r.B));
  r.conf.resize(size_t(r.B));
  r.q.resize(sampling ? size_t(r.B) : 0);
  for (int j = 0; j < r.B; ++j)
    r.draft[size_t(j)] =
        pick(ctx, logits.data() + size_t(1 + j) * V, sampling ? &r.q[size_t(j)] : nullptr, &r.conf[size_t(j)]);
  r.draft_shown = r.draft;
  r.conf_shown = r.conf;
  if (r.B > 1) {
    const double t0 = now_ms();
    r.forwards += refine(ctx, r);
    r.draft_ms += now_ms() - t0;
  }
  // a_1 is exact: commit it now (d_1 is replaced by it).
  const bool match = r.draft[0] == r.a1;
  r.committed = {r.a1};
  r.verify = {r.a1};
  r.accepted = match ? 1 : 0;
  seq.commit({{r.a1, match ? TokenSource::Accepted : TokenSource::Corrected, r.conf[0], r.a1_prob, 0}}, round,
             ctx.sink);
}

// Verify forward output (row i predicts a_{i+2}) -> accepted run + correction or bonus; the sizer (if any)
// learns the acceptance.
void take_verify(DecodeContext& ctx, RoundState& r, const std::vector<float>& logits, int round,
                 BlockSizer* sizer) {
  const int V = ctx.model.cfg.text.vocab_size;
  const bool sampling = ctx.opts.temperature > 0;
  Sequence& seq = *r.seq;
  const int S = r.L + 1;
  std::vector<Commit> out;
  int checked = 0, matched = 0;
  for (int i = 0; i < r.B; ++i) {
    const float* row = logits.data() + size_t(i) * V;
    r.verify.push_back(argmax(row, V));
    if (i == r.B - 1) {  // every draft token matched: the verifier's next token is a bonus
      float pr;
      out.push_back({pick(ctx, row, nullptr, &pr), TokenSource::Bonus, -1.0f, pr, i});
      break;
    }
    const int dj = r.draft[size_t(i + 1)];
    const float qj = r.conf[size_t(i + 1)];
    ++checked;
    bool ok;
    float pr;
    if (!sampling) {
      ok = r.verify.back() == dj;
      pr = softmax_prob(row, V, ok ? dj : r.verify.back());
    } else {
      std::vector<float> p = distribution(row, V, ctx.opts.temperature, ctx.opts.top_p);
      const std::vector<float>& q = r.q[size_t(i + 1)];
      ok = ctx.rng.uniform() < std::min(1.0, double(p[size_t(dj)]) / double(q[size_t(dj)]));
      if (!ok) {  // resample from norm(max(0, p - q))
        std::vector<float> res(p.size());
        double s = 0;
        for (size_t k = 0; k < p.size(); ++k) s += res[k] = std::max(0.0f, p[k] - q[k]);
        if (s > 0) {
          for (float& v : res) v = float(v / s);
          r.verify.back() = sample(res, ctx.rng);
        } else {
          r.verify.back() = sample(p, ctx.rng);
        }
      }
      pr = p[size_t(ok ? dj : r.verify.back())];
    }
    if (ok) {
      ++matched;
      out.push_back({dj, TokenSource::Accepted, qj, pr, i});
    } else {
      out.push_back({r.verify.back(), TokenSource::Corrected, qj, pr, i});
      break;
    }
  }
  r.accepted += matched;
  if (sizer) sizer->observe(checked, matched);
  const int n = seq.commit(out, round, ctx.sink);
  for (int k = 0; k < n; ++k) r.committed.push_back(out[size_t(k)].id);
  // Verified KV is kept for every committed token except the last, which becomes the next c.
  seq.cache().len = S + n;
  seq.end_step(n > 0 ? out[size_t(n - 1)].row : -1);
  ++r.forwards;
}

void emit_round(DecodeContext& ctx, const RoundState& r, int round, double round_ms) {
  ++r.seq->stats().rounds;
  r.seq->stats().decode_ms += round_ms;
  Event e{};
  e.type = Event::Type::Round;
  e.region_id = r.seq->id();
  e.round = round;
  e.block_size = r.B;
  e.draft = r.draft_shown;
  e.draft_conf = r.conf_shown;
  e.verify = r.verify;
  e.accepted = r.accepted;
  e.committed = r.committed;
  e.forwards = r.forwards;
  e.draft_ms = r.draft_ms;
  e.verify_ms = r.verify_ms;
  ctx.sink.emit(std::move(e));
}

}  // namespace

void decode_self_spec(DecodeContext& ctx, const std::vector<Sequence*>& seqs, BlockSizer* sizer) {
  const ModelConfig& c = ctx.model.cfg;
  for (int round = 0; !ctx.cancel.load(); ++round) {
    const int running =
        int(std::count_if(seqs.begin(), seqs.end(), [](const Sequence* s) { return !s->done(); }));
    if (running == 0) break;
    const int chosen = sizer ? sizer->next(running) : std::max(1, ctx.opts.block_size);
    std::vector<RoundState> st;
    for (Sequence* s : seqs) {
      if (s->done()) continue;
      RoundState r;
      r.seq = s;
      r.B = std::min(chosen, s->budget());
      r.L = s->cache().len;
      st.push_back(std::move(r));
    }
    const double round_t0 = now_ms();

    // Draft forward [c, MASK x B]: c causal, the masks see the prefix, c and the whole block.
    std::vector<Sequence*> active;
    std::vector<std::vector<Row>> rows;
    for (RoundState& r : st) {
      std::vector<Row> rr{{r.seq->pending(), r.L, r.L + 1}};
      for (int j = 0; j < r.B; ++j) rr.push_back({c.mask_token_id, r.L + 1 + j, r.L + 1 + r.B});
      active.push_back(r.seq);
      rows.push_back(std::move(rr));
    }
    double t0 = now_ms();
    std::vector<std::vector<float>> logits = forward_batch(ctx.decoder, active, rows);
    const double draft_ms = now_ms() - t0;
    for (size_t i = 0; i < st.size(); ++i) {
      st[i].draft_ms = draft_ms;
      take_draft(ctx, st[i], logits[i], round);
    }

    // Verify forward [a_1, d_2..d_B], causal, for the sequences still running.
    active.clear();
    rows.clear();
    std::vector<RoundState*> verifying;
    for (RoundState& r : st) {
      if (r.B == 0 || r.seq->done() || ctx.cancel.load()) continue;
      const int S = r.L + 1;
      std::vector<Row> rr;
      for (int j = 0; j < r.B; ++j) rr.push_back({j == 0 ? r.a1 : r.draft[size_t(j)], S + j, S + j + 1});
      active.push_back(r.seq);
      rows.push_back(std::move(rr));
      verifying.push_back(&r);
    }
    if (!active.empty()) {
      t0 = now_ms();
      logits = forward_batch(ctx.decoder, active, rows);
      const double verify_ms = now_ms() - t0;
      for (size_t i = 0; i < verifying.size(); ++i) {
        verifying[i]->verify_ms = verify_ms;
        take_verify(ctx, *verifying[i], logits[i], round, sizer);
      }
    }
    // The whole round's wall time, sampling and commits included, is what the block size trades against.
    const double round_ms = now_ms() - round_t0;
    int committed = 0;
    for (const RoundState& r : st) {
      committed += int(r.committed.size());
      emit_round(ctx, r, round, round_ms);
    }
    if (sizer) sizer->observe_time(chosen, round_ms / 1000, committed, running);
  }
}

}  // namespace saccade
