#pragma once
// Decoding strategies over the same model. AR and self-spec advance a batch of regions in lockstep, one
// shared forward per step (rows stay independent, so batching changes no token); each region stops on its
// own (EOS, budget) and all stop on cancel.
#include <vector>

#include "decode/block_size.h"
#include "decode/sequence.h"

namespace saccade {

// Plain autoregressive decoding, greedy or sampled.
void decode_ar(DecodeContext& ctx, const std::vector<Sequence*>& seqs);

// Self-speculative decoding (docs/decisions/0002, 0016): each round is one forward that verifies the guesses
// the previous block drafted and drafts the next block. The sizer picks every round's block size for the
// whole batch; without one, the fixed block size from the options. Greedy output equals
// decode_ar's; with sampling the speculative rejection rule keeps the AR distribution.
void decode_self_spec(DecodeContext& ctx, const std::vector<Sequence*>& seqs, BlockSizer* sizer);

// Speculation with the checkpoint's MTP head (docs/decisions/0018): each round one trunk forward verifies
// [c, d_1..d_k] causally, then the head reads the committed rows' hidden states and drafts the next k,
// chained on its own output. The sizer picks k per round (0: an AR step, the head idle); without one, k is
// opts.block_size. Greedy output equals decode_ar's; with sampling the speculative rejection rule keeps the
// AR distribution.
constexpr int kMtpDrafts = 3;  // the chain depth train_mtp.py trains: the most drafts the sizer considers
class MtpSizer;
void decode_mtp(DecodeContext& ctx, const std::vector<Sequence*>& seqs, MtpSizer* sizer);

// Pure block diffusion, one region at a time: each step fills every masked slot whose probability exceeds
// tau_c, or the single most confident one.
void decode_diffusion(DecodeContext& ctx, Sequence& seq);

}  // namespace saccade
