#pragma once
// Token choice and draft verification shared by the strategies (ar.cc, self_spec.cc, mtp_spec.cc).
#include <vector>

#include "decode/sequence.h"

namespace saccade {

// Picks a draft token from one row of logits: argmax when greedy, else a sample from the processed
// distribution (kept in *dist_out when given: a draft's q for the rejection rule). *prob: the chosen token's
// probability.
int pick(DecodeContext& ctx, const float* logits, std::vector<float>* dist_out, float* prob);

// The verifier's token for one row of seq's logits, which the caller commits: greedy with a reading prior,
// its joint choice and joint probability; otherwise pick().
int verifier_pick(DecodeContext& ctx, Sequence& seq, const float* logits, float* prob);

// Verifies one guess against the verifier's row for its slot: greedy, a match with verifier_pick's token;
// sampling, the speculative rejection rule (accept with min(1, p/q), else resample from
// norm(max(0, p - q))), which keeps the AR distribution. Returns the token committed there; *ok tells
// whether it is the guess.
int check_guess(DecodeContext& ctx, Sequence& seq, const float* row, int guess, const std::vector<float>* q,
                bool* ok, float* prob);

}  // namespace saccade
