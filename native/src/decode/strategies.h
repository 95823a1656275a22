#pragma once
// Decoding strategies over the same model. Each runs one region to completion (EOS, budget or cancel).
#include "decode/block_size.h"
#include "decode/sequence.h"

namespace saccade {

// Plain autoregressive decoding, greedy or sampled.
void decode_ar(DecodeContext& ctx, Sequence& seq);

// Self-speculative decoding (docs/decisions/0002): diffusion draft, AR verify. sizer == nullptr: the fixed
// block size from the options. Greedy output equals decode_ar's; with sampling the speculative rejection rule
// keeps the AR distribution.
void decode_self_spec(DecodeContext& ctx, Sequence& seq, BlockSizer* sizer);

// Pure block diffusion: each step fills every masked slot whose probability exceeds tau_c, or the single most
// confident one.
void decode_diffusion(DecodeContext& ctx, Sequence& seq);

}  // namespace saccade
