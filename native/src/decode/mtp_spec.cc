#include <algorithm>
#include <utility>

#include "decode/mtp_sizer.h"
#include "decode/strategies.h"
#include "decode/verify.h"

namespace saccade {

namespace {

// One sequence's MTP head: its own one-layer cache, whose slot s reads the trunk's hidden state at slot s and
// the token at s + 1 (kept for committed slots; the chain's slots after them are scratch), and the drafts
// waiting for the next verification.
struct Head {
  KvCache cache;
  // Slots committed since the cache's end, waiting for the head's pass: their trunk hidden states and the
  // tokens after them. The pass runs when the next round drafts; while AR steps run, they pile up.
  std::vector<float> lag_hidden;
  std::vector<int> lag_tokens;
  std::vector<int> ids;
  std::vector<float> conf;
  std::vector<std::vector<float>> q;  // draft distributions (sampling only)
  std::vector<float> last;            // the head's output at the newest slot, where the chain goes on
  void clear_drafts() { ids.clear(), conf.clear(), q.clear(); }
};

Segment head_rows(Sequence& seq, Head& h, int first_slot, std::vector<int> next_tokens, const float* hidden,
                  std::vector<float>* hidden_out) {
  Segment s;
  s.cache = &h.cache;
  s.first_slot = first_slot;
  for (int i = 0; i < int(next_tokens.size()); ++i) {
    s.pos.push_back(seq.pos_of(first_slot + i));
    s.key_limit.push_back(first_slot + i + 1);
  }
  s.tokens = std::move(next_tokens);
  s.mtp_hidden = hidden;
  s.hidden_out = hidden_out;
  s.last_row_logits_only = true;
  return s;
}

// Takes each segment's last-row logits as the next draft of heads[i] and keeps its output for the chain.
void take_drafts(DecodeContext& ctx, const std::vector<Head*>& heads, const std::vector<float>& logits,
                 std::vector<std::vector<float>>& outs) {
  const int V = ctx.model.cfg.text.vocab_size, D = ctx.model.cfg.text.hidden_size;
  const bool sampling = ctx.opts.temperature > 0;
  for (size_t i = 0; i < heads.size(); ++i) {
    Head& h = *heads[i];
    float conf;
    std::vector<float> q;
    h.ids.push_back(pick(ctx, logits.data() + i * size_t(V), sampling ? &q : nullptr, &conf));
    h.conf.push_back(conf);
    if (sampling) h.q.push_back(std::move(q));
    h.last.assign(outs[i].end() - D, outs[i].end());
  }
}

// Drafts up to `k` tokens per sequence: the head catches up on the slots committed since its last pass (the
// trunk's hidden states there and the tokens after them), which gives d_1, then goes on from its own output and
// its own guess one scratch slot at a time. Returns the passes run.
int draft(DecodeContext& ctx, const std::vector<Sequence*>& seqs, const std::vector<Head*>& heads, int k) {
  std::vector<std::vector<float>> outs(seqs.size());
  std::vector<Segment> segs;
  for (size_t i = 0; i < seqs.size(); ++i) {
    Head& h = *heads[i];
    segs.push_back(head_rows(*seqs[i], h, h.cache.len, h.lag_tokens, h.lag_hidden.data(), &outs[i]));
    if (h.cache.len == 0) segs.back().image_embeds = seqs[i]->image_embeds();  // the prefix's next tokens
  }
  take_drafts(ctx, heads, ctx.decoder.forward_mtp(segs), outs);
  int passes = 1;
  for (Head* h : heads) {
    h->cache.len += int(h->lag_tokens.size());
    h->lag_tokens.clear();
    h->lag_hidden.clear();
  }
  for (int j = 1; j < k && !ctx.cancel.load(); ++j) {
    std::vector<Sequence*> more;
    std::vector<Head*> more_heads;
    for (size_t i = 0; i < seqs.size(); ++i)
      if (heads[i]->ids.size() < size_t(std::min(k, seqs[i]->budget() - 1))) {
        more.push_back(seqs[i]);
        more_heads.push_back(heads[i]);
      }
    if (more.empty()) break;
    segs.clear();
    outs.assign(more.size(), {});
    for (size_t i = 0; i < more.size(); ++i) {
      Head& h = *more_heads[i];
      segs.push_back(head_rows(*more[i], h, h.cache.len + j - 1, {h.ids.back()}, h.last.data(), &outs[i]));
    }
    take_drafts(ctx, more_heads, ctx.decoder.forward_mtp(segs), outs);
    ++passes;
  }
  return passes;
}

}  // namespace

void decode_mtp(DecodeContext& ctx, const std::vector<Sequence*>& seqs, MtpSizer* sizer) {
  const ModelConfig& c = ctx.model.cfg;
  const int V = c.text.vocab_size, D = c.text.hidden_size;
  const bool sampling = ctx.opts.temperature > 0;
  const int fixed = ctx.opts.block_size > 0 ? ctx.opts.block_size : kMtpDrafts;
  // The head's cache starts with the prefix: slot s reads h_s and the next slot's embedding (an image's where
  // that slot is an image token). Its pass waits, with the slots the first rounds commit, for the first round
  // that drafts.
  std::vector<Head> heads(seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) {
    Sequence& seq = *seqs[i];
    heads[i].cache = make_kv_cache(ctx.model, seq.cache_capacity(), 1);
    heads[i].lag_hidden = seq.prefill_hidden();
    heads[i].lag_tokens.assign(seq.prefill_tokens().begin() + 1, seq.prefill_tokens().end());
    heads[i].lag_tokens.push_back(seq.pending());
  }

  for (int round = 0; !ctx.cancel.load(); ++round) {
    std::vector<Sequence*> active;
    std::vector<Head*> active_heads;
    for (size_t i = 0; i < seqs.size(); ++i)
      if (!seqs[i]->done()) {
        active.push_back(seqs[i]);
        active_heads.push_back(&heads[i]);
      }
    if (active.empty()) break;
    const double round_t0 = now_ms();

    // Verify [c, d_1..d_k], causal: row i is the trunk's next token after c, d_1..d_i.
    std::vector<std::vector<Row>> rows;
    std::vector<int> L;
    int width = 0;
    for (size_t i = 0; i < active.size(); ++i) {
      Sequence& seq = *active[i];
      Head& h = *active_heads[i];
      const int k = std::min(int(h.ids.size()), seq.budget() - 1);
      L.push_back(seq.cache().len);
      std::vector<Row> rr{{seq.pending(), L[i], L[i] + 1}};
      for (int j = 0; j < k; ++j) rr.push_back({h.ids[size_t(j)], L[i] + 1 + j, L[i] + 2 + j});
      width += int(rr.size());
      rows.push_back(std::move(rr));
    }
    std::vector<std::vector<float>> hidden;
    const double t0 = now_ms();
    const std::vector<std::vector<float>> logits = forward_batch(ctx.decoder, active, rows, &hidden);
    const double forward_ms = now_ms() - t0;
    if (sizer) sizer->observe_trunk(width, forward_ms / 1000);

    std::vector<Event> events(active.size());
    std::vector<Sequence*> drafting;
    std::vector<Head*> drafting_heads;
    for (size_t i = 0; i < active.size(); ++i) {
      Sequence& seq = *active[i];
      Head& h = *active_heads[i];
      const int k = int(rows[i].size()) - 1;
      Event& e = events[i];
      e.draft.assign(h.ids.begin(), h.ids.begin() + k);
      e.draft_conf.assign(h.conf.begin(), h.conf.begin() + k);
      std::vector<Commit> out;
      int matched = 0;
      for (int j = 0; j < k; ++j) {
        bool ok;
        float pr;
        const int id = check_guess(ctx, seq, logits[i].data() + size_t(j) * V, h.ids[size_t(j)],
                                   sampling ? &h.q[size_t(j)] : nullptr, &ok, &pr);
        e.verify.push_back(id);
        out.push_back({id, ok ? TokenSource::Accepted : TokenSource::Corrected, h.conf[size_t(j)], pr, j});
        if (!ok) break;
        ++matched;
      }
      if (matched == k) {  // every draft held: the trunk's own next token, which nothing drafted
        float pr;
        const int id = verifier_pick(ctx, seq, logits[i].data() + size_t(k) * V, &pr);
        e.verify.push_back(id);
        out.push_back({id, TokenSource::AR, -1.0f, pr, k});
      }
      e.accepted = matched;
      if (sizer && k > 0) sizer->observe(k, matched);
      const int n = seq.commit(out, round, ctx.sink);
      for (int j = 0; j < n; ++j) e.committed.push_back(out[size_t(j)].id);
      seq.cache().len = L[i] + n;
      seq.end_step(n > 0 ? out[size_t(n - 1)].row : -1);
      h.clear_drafts();
      if (seq.done()) continue;
      // The committed slots join the head's backlog: c and the accepted drafts, each with the token after it.
      h.lag_hidden.insert(h.lag_hidden.end(), hidden[i].begin(), hidden[i].begin() + long(n) * D);
      h.lag_tokens.insert(h.lag_tokens.end(), e.committed.begin(), e.committed.end());
      drafting.push_back(&seq);
      drafting_heads.push_back(&h);
    }
    const int k_next = sizer ? sizer->next(int(drafting.size())) : fixed;
    const double draft_t0 = now_ms();
    if (!drafting.empty() && k_next > 0) {
      const int passes = draft(ctx, drafting, drafting_heads, k_next);
      if (sizer) sizer->observe_head((now_ms() - draft_t0) / 1000 / passes);
    }
    for (size_t i = 0; i < drafting.size(); ++i) {  // d_1 comes with the head's pass, wanted or not
      Head& h = *drafting_heads[i];
      const size_t keep = size_t(std::max(0, drafting[i]->budget() - 1));
      if (h.ids.size() > keep) {
        h.ids.resize(keep);
        h.conf.resize(keep);
        if (sampling) h.q.resize(keep);
      }
    }
    const double draft_ms = now_ms() - draft_t0;

    const double round_ms = now_ms() - round_t0;
    count_verify_time(ctx, active, width, round_ms - draft_ms);
    for (size_t i = 0; i < active.size(); ++i) {
      Sequence& seq = *active[i];
      const Head& h = *active_heads[i];
      ++seq.stats().rounds;
      seq.stats().decode_ms += round_ms;
      seq.stats().decode_share_ms += round_ms / double(active.size());
      Event& e = events[i];
      e.type = Event::Type::Round;
      e.region_id = seq.id();
      e.round = round;
      e.block_size = int(h.ids.size());  // the drafts made for the next round follow the checked ones
      e.mtp_drafts = true;
      e.draft.insert(e.draft.end(), h.ids.begin(), h.ids.end());
      e.draft_conf.insert(e.draft_conf.end(), h.conf.begin(), h.conf.end());
      e.forwards = 1;
      e.draft_ms = draft_ms;
      e.verify_ms = forward_ms;
      ctx.sink.emit(std::move(e));
    }
  }
}

}  // namespace saccade
