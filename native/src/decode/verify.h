#pragma once
// Token choice and draft verification shared by the speculative strategies (self_spec.cc, mtp_spec.cc).
#include <vector>

#include "decode/sequence.h"

namespace saccade {

// Picks a token from one row of logits: argmax when greedy, else a sample from the processed distribution
// (kept in *dist_out when given: a draft's q for the rejection rule). *prob: the chosen token's probability.
int pick(DecodeContext& ctx, const float* logits, std::vector<float>* dist_out, float* prob);

// Verifies one guess against the verifier's row for its slot: greedy, a match; sampling, the speculative
// rejection rule (accept with min(1, p/q), else resample from norm(max(0, p - q))), which keeps the AR
// distribution. Returns the token committed there; *ok tells whether it is the guess.
int check_guess(DecodeContext& ctx, const float* row, int guess, const std::vector<float>* q, bool* ok,
                float* prob);

}  // namespace saccade
