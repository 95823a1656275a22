#pragma once
// Events streamed while decoding (common/engine-types.ts EngineEvent), and the sink that receives them.
#include <atomic>
#include <string>
#include <vector>

namespace saccade {

// Encoder: a line the decoder cannot write, read by the line encoder's own CTC head (Sequence::read_by_encoder).
enum class TokenSource { AR, Accepted, Corrected, Diffusion, Encoder };
const char* token_source_name(TokenSource s);

struct Fixation {
  std::vector<int> indices;    // merged-grid image token indices, strongest first
  std::vector<float> weights;  // sum to 1
};

struct RegionStats {
  int tokens = 0, forwards = 0, rounds = 0;
  int committed = 0;  // every token the decoder committed, those the repetition guard took back included
  // decode_ms: the wall time of every step or round this region took part in, the whole step however many
  // sequences shared it; the AR estimate is counted the same way, so the two compare.
  double encode_ms = 0, prefill_ms = 0, decode_ms = 0;
  // This region's share of those steps' wall time (split evenly among the sequences in each): summed over a
  // batch's regions, the time the batch's decoding took.
  double decode_share_ms = 0;
  double attention_ms = 0;  // decoder attention during decoding (prefill excluded)
  double visual_token_fraction = 1;
  int retracted_tokens = 0;  // taken back by the repetition guard
  // The verifying part of this decode's rounds (forward, picks, fixation: all but drafting), as it took and as
  // the measured forward costs model it: their ratio carries what the model leaves out to the AR estimate.
  double verify_ms = 0, modelled_ms = 0;
  // What plain AR decoding would have taken for the same tokens: its forwards by the measured forward costs
  // (ar_time_estimate), scaled by verify_ms / modelled_ms; counted like decode_ms, so the two compare. 0
  // where nothing was verified (pure diffusion).
  double ar_estimate_ms = 0;
};

struct Event {
  enum class Type { RegionStart, Round, Token, Retract, RegionEnd } type;
  std::string region_id;
  // region_start
  std::string kind;
  int grid_rows = 0, grid_cols = 0, image_tokens = 0;
  // round. mtp_drafts: the drafts after the checked ones come from the MTP head and stand after the
  // verifier's token (self-spec's block puts its d_1 in that token's slot).
  int round = 0, block_size = 0, accepted = 0, forwards = 0;
  bool mtp_drafts = false;
  std::vector<int> draft, verify, committed;
  std::vector<float> draft_conf;
  double draft_ms = 0, verify_ms = 0;
  // token (retract: index is the first token taken back; it and every later token are gone)
  int index = 0, id = 0;
  std::string text;  // token text; region_end: the whole text
  TokenSource source = TokenSource::AR;
  float token_draft_conf = -1, ar_prob = 0;
  // The line encoder's CTC probability of the token and the decoder's own, where a reading prior chose it
  // (ReadingPrior::read_prob, decoder_prob); -1 otherwise.
  float read_prob = -1, decoder_prob = -1;
  bool has_fixation = false;
  Fixation fixation;
  // region_end
  RegionStats stats;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(Event&& e) = 0;
};

}  // namespace saccade
