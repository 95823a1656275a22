#include <algorithm>
#include <utility>

#include "decode/strategies.h"
#include "decode/verify.h"

namespace saccade {

namespace {

// Drafted tokens waiting for their verification: slot j guesses the token j + 1 places after the pending
// token c, whatever the tokens between turn out to be.
struct Guesses {
  std::vector<int> ids;
  std::vector<float> conf;             // the draft's probability of each
  std::vector<std::vector<float>> q;   // draft distributions (sampling only)

  int size() const { return int(ids.size()); }
  void clear() { *this = Guesses{}; }
  // Keeps the slots [from, from + n).
  void keep(int from, int n) {
    auto cut = [&](auto& v) {
      if (v.empty()) return;
      v.erase(v.begin() + from + n, v.end());
      v.erase(v.begin(), v.begin() + from);
    };
    cut(ids);
    cut(conf);
    cut(q);
  }
};

// One sequence's part of a round: the forward [c, g_1..g_k, MASK x B].
struct RoundState {
  Sequence* seq;
  Guesses checked;  // g_1..g_k, verified this round
  Guesses* next;    // what it leaves for the next round (empty until then)
  int L = 0, k = 0, B = 0, forwards = 1, accepted = 0;
  bool reading = false;  // the guesses came from the encoder's reading, not from masks
  Guesses block;  // d_1..d_B drafted by the masks (d_1 sits where the verifier's own token goes)
  std::vector<int> verify, committed;
  double refine_ms = 0;
};

// Extra denoising steps of a block whose first slot is the pending token: re-mask drafted slots (j >= 1)
// below tau_c and predict them again, the block attending bidirectionally. Returns the forwards spent.
int refine(DecodeContext& ctx, Sequence& seq, Guesses& block) {
  const int V = ctx.model.cfg.text.vocab_size, mask = ctx.model.cfg.mask_token_id;
  const int B = block.size(), first = seq.cache().len;
  int forwards = 0;
  for (int step = 0; step < ctx.opts.refine_steps && !ctx.cancel.load(); ++step) {
    std::vector<int> masked;
    for (int j = 1; j < B; ++j)
      if (block.conf[size_t(j)] < ctx.opts.tau_c) masked.push_back(j);
    if (masked.empty()) break;
    std::vector<Row> rows;
    for (int j = 0; j < B; ++j) rows.push_back({j == 0 ? seq.pending() : block.ids[size_t(j)], first + j, first + B});
    for (int j : masked) rows[size_t(j)].token = mask;
    const std::vector<float> logits = seq.forward(rows);
    seq.end_step(-1);
    ++forwards;
    for (int j : masked) {
      std::vector<float>* qd = ctx.opts.temperature > 0 ? &block.q[size_t(j)] : nullptr;
      block.ids[size_t(j)] = pick(ctx, logits.data() + size_t(j) * V, qd, &block.conf[size_t(j)]);
    }
  }
  return forwards;
}

// The forward's output: row i (i <= k) is the verifier at the slot of g_{i+1} (or, for i = k, of d_1); rows
// k + 1.. are the masks. Commits the verified run of guesses, then the verifier's token at the first
// mismatch or after the last guess, and leaves the next round's guesses: the new block's d_2..d_B when every
// guess held (the masks drafted from a prefix that turned out true), else none (docs/decisions/0016 measured
// keeping the guesses after a mismatch: worse).
void take_round(DecodeContext& ctx, RoundState& r, const std::vector<float>& logits, int round,
                BlockSizer* sizer) {
  const int V = ctx.model.cfg.text.vocab_size;
  const bool sampling = ctx.opts.temperature > 0;
  Sequence& seq = *r.seq;
  const Guesses& g = r.checked;
  r.block.ids.resize(size_t(r.B));
  r.block.conf.resize(size_t(r.B));
  r.block.q.resize(sampling ? size_t(r.B) : 0);
  for (int j = 0; j < r.B; ++j)
    r.block.ids[size_t(j)] = pick(ctx, logits.data() + size_t(1 + r.k + j) * V,
                                  sampling ? &r.block.q[size_t(j)] : nullptr, &r.block.conf[size_t(j)]);
  std::vector<Commit> out;
  int matched = 0;
  for (int i = 0; i < r.k; ++i) {
    bool ok;
    float pr;
    const int id = check_guess(ctx, seq, logits.data() + size_t(i) * V, g.ids[size_t(i)],
                               sampling ? &g.q[size_t(i)] : nullptr, &ok, &pr);
    r.verify.push_back(id);
    out.push_back({id, ok ? TokenSource::Accepted : TokenSource::Corrected, g.conf[size_t(i)], pr, i});
    if (!ok) break;
    ++matched;
  }
  if (matched == r.k) {  // every guess held: the verifier's own next token, set against the draft's d_1
    float pr;
    const int id = verifier_pick(ctx, seq, logits.data() + size_t(r.k) * V, &pr);
    r.verify.push_back(id);
    if (r.B == 0) {
      out.push_back({id, TokenSource::AR, -1.0f, pr, r.k});
    } else {
      const bool same = r.block.ids[0] == id;
      out.push_back({id, same ? TokenSource::Accepted : TokenSource::Corrected, r.block.conf[0], pr, r.k});
    }
  }
  r.accepted = matched;
  const int checked = int(out.size()) - (matched == r.k ? 1 : 0);
  if (sizer && r.reading)
    sizer->observe_reading(checked, matched);
  else if (sizer && r.k > 0)
    sizer->observe(checked, matched);
  const int n = seq.commit(out, round, ctx.sink);
  for (int i = 0; i < n; ++i) r.committed.push_back(out[size_t(i)].id);
  // c and the committed guesses keep their KV; the last committed token becomes the next c.
  seq.cache().len = r.L + n;
  seq.end_step(n > 0 ? out[size_t(n - 1)].row : -1);
  if (seq.done() || matched < r.k) return;
  if (ReadingPrior* prior = seq.reading_prior()) {
    // The next round's guesses drafted as the verifier will choose, each given the drafts before it, on a
    // scratch copy of the prior: more of them hold.
    ReadingPrior scratch = *prior;
    for (int j = 1; j < r.B; ++j)
      r.block.ids[size_t(j)] = scratch.take(logits.data() + size_t(1 + r.k + j) * V, &r.block.conf[size_t(j)]);
  }
  Guesses& next = *r.next;
  next = r.block;
  if (next.size() > 1 && ctx.opts.refine_steps > 0) {
    const double t0 = now_ms();
    r.forwards += refine(ctx, seq, next);
    r.refine_ms = now_ms() - t0;
  }
  // Guesses past the end of text would be checked for nothing: the next round stops at the drafted EOS.
  const std::vector<int>& eos = ctx.model.cfg.eos_token_ids;
  const auto end = std::find_first_of(next.ids.begin(), next.ids.end(), eos.begin(), eos.end());
  next.keep(1, std::max(0, int(end == next.ids.end() ? next.ids.size() - 1 : end - next.ids.begin())));
}

void emit_round(DecodeContext& ctx, const RoundState& r, int round, double forward_ms, double round_ms, int sharing) {
  ++r.seq->stats().rounds;
  r.seq->stats().decode_ms += round_ms;
  r.seq->stats().decode_share_ms += round_ms / double(sharing);
  Event e{};
  e.type = Event::Type::Round;
  e.region_id = r.seq->id();
  e.round = round;
  e.block_size = r.B;
  e.draft = r.checked.ids;
  e.draft_conf = r.checked.conf;
  e.draft.insert(e.draft.end(), r.block.ids.begin(), r.block.ids.end());
  e.draft_conf.insert(e.draft_conf.end(), r.block.conf.begin(), r.block.conf.end());
  e.verify = r.verify;
  e.accepted = r.accepted;
  e.committed = r.committed;
  e.forwards = r.forwards;
  e.draft_ms = r.refine_ms;
  e.verify_ms = forward_ms;
  ctx.sink.emit(std::move(e));
}

}  // namespace

void decode_self_spec(DecodeContext& ctx, const std::vector<Sequence*>& seqs, BlockSizer* sizer) {
  const ModelConfig& c = ctx.model.cfg;
  std::vector<Guesses> carried(seqs.size());
  for (int round = 0; !ctx.cancel.load(); ++round) {
    const int running =
        int(std::count_if(seqs.begin(), seqs.end(), [](const Sequence* s) { return !s->done(); }));
    if (running == 0) break;
    // The batch's longest likely rest, unknown if any sequence's is.
    int left = 0;
    for (const Sequence* s : seqs) {
      if (s->done()) continue;
      const int l = s->likely_tokens_left();
      left = l < 0 || left < 0 ? -1 : std::max(left, l);
    }
    const int chosen = sizer ? sizer->next(running, left) : std::max(1, ctx.opts.block_size);
    std::vector<RoundState> st;
    for (size_t i = 0; i < seqs.size(); ++i) {
      Sequence* s = seqs[i];
      if (s->done()) continue;
      RoundState r;
      r.seq = s;
      r.checked = std::exchange(carried[i], Guesses{});
      r.next = &carried[i];
      r.L = s->cache().len;
      // A block of B drafts guesses for B - 1 tokens; as many carried guesses are verified alongside. An AR
      // step (B = 0) verifies none. Without carried guesses, the reading's are verified where they pay.
      r.k = std::min({r.checked.size(), std::max(0, chosen - 1), s->budget() - 1});
      if (ReadingDraft* reading = s->reading_draft(); reading && r.checked.size() == 0) {
        Guesses g;
        reading->guesses(&g.ids, &g.conf);
        const bool ends_text = g.size() > 0 && g.ids.back() == c.eos_token_id;
        const int n = std::min(sizer ? sizer->reading_guesses(g.size(), ends_text, running) : g.size(),
                               s->budget() - 1);
        if (n > 0) {
          // The reading is a draft with no doubt in it: sampling accepts a guess with the verifier's own
          // probability of it, and on a rejection draws from the rest.
          if (ctx.opts.temperature > 0)
            for (int id : g.ids) {
              g.q.emplace_back(size_t(c.text.vocab_size), 0.0f);
              g.q.back()[size_t(id)] = 1.0f;
            }
          r.checked = std::move(g);
          r.k = n;
          r.reading = true;
        }
      }
      r.checked.keep(0, r.k);
      // The reading drafts the next round too: masks after its guesses would only be checked instead of it.
      r.B = r.reading ? 0 : std::min(chosen, s->budget() - r.k);
      // Masks draft what follows the guesses: nothing when they end the text, and no further than the text
      // is likely to run.
      const std::vector<int>& eos = c.eos_token_ids;
      const int left = s->likely_tokens_left();
      if (r.k > 0 && std::find(eos.begin(), eos.end(), r.checked.ids.back()) != eos.end())
        r.B = 0;
      else if (r.B > 0 && left >= 0)
        r.B = std::min(r.B, std::max(1, left - r.k));
      st.push_back(std::move(r));
    }
    const double round_t0 = now_ms();

    // One forward [c, g_1..g_k, MASK x B]: c and the guesses causal (the verifier), the masks see the prefix,
    // c, the guesses and the whole block (the draft of the next tokens, were every guess right).
    std::vector<Sequence*> active;
    std::vector<std::vector<Row>> rows;
    int width = 0;
    for (RoundState& r : st) {
      std::vector<Row> rr{{r.seq->pending(), r.L, r.L + 1}};
      for (int j = 1; j <= r.k; ++j) rr.push_back({r.checked.ids[size_t(j - 1)], r.L + j, r.L + j + 1});
      const int first = r.L + 1 + r.k;
      for (int j = 0; j < r.B; ++j) rr.push_back({c.mask_token_id, first + j, first + r.B});
      width += int(rr.size());
      active.push_back(r.seq);
      rows.push_back(std::move(rr));
    }
    const double t0 = now_ms();
    const std::vector<std::vector<float>> logits = forward_batch(ctx.decoder, active, rows);
    const double forward_ms = now_ms() - t0;
    for (size_t i = 0; i < st.size(); ++i) take_round(ctx, st[i], logits[i], round, sizer);

    // The whole round's wall time, sampling and commits included, is what the block size trades against.
    const double round_ms = now_ms() - round_t0;
    double refine_ms = 0;
    for (const RoundState& r : st) refine_ms = std::max(refine_ms, r.refine_ms);
    count_verify_time(ctx, active, width, round_ms - refine_ms);
    int committed = 0;
    for (size_t i = 0; i < st.size(); ++i) {
      committed += int(st[i].committed.size());
      emit_round(ctx, st[i], round, forward_ms, round_ms, int(st.size()));
    }
    // What a round of the chosen block costs and commits, measured on rounds of that block alone: a round
    // that verified the reading's guesses is wide and long, and would make narrow rounds look cheap. Rounds
    // of the reading alone are timed apart; a round mixing both kinds teaches neither.
    const auto read = std::count_if(st.begin(), st.end(), [](const RoundState& r) { return r.reading; });
    if (sizer && read == 0) sizer->observe_time(chosen, width, round_ms / 1000, committed);
    if (sizer && read == int(st.size())) sizer->observe_reading_time(width, round_ms / 1000);
  }
}

}  // namespace saccade
