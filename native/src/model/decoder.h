#pragma once
// Text decoder forward over one or more sequences at once (rows of all segments share every GEMM; attention
// runs per segment against that segment's KV cache).
//
// Attention forms, all expressed per row by key_limit (row i sees cache slots [0, key_limit[i])):
//   causal                slot i sees [0, slot_i + 1)
//   block-bidirectional   every row of a draft block sees up to the end of the block (docs/decisions/0002)
//   gathered sparse       image slots limited to a per-row selection (AttentionHook, decode/fixation.cc)
#include <vector>

#include "backend/backend.h"
#include "model/model.h"
#include "model/rope.h"

namespace saccade {

// Per-sequence KV cache. Slots [0, len) are committed; a forward writes its rows at slots >= len and only
// an explicit commit (len += n) keeps them, so a draft never touches the committed cache.
struct KvCache {
  std::vector<Buffer> k, v;  // per layer [cap, Hkv * head_dim]
  int cap = 0;
  int len = 0;
};

// layers: the trunk's by default; the MTP head keeps a one-layer cache of its own.
KvCache make_kv_cache(Model& m, int cap, int layers = -1);

// Lets a caller shape and observe attention per layer (visual fixation).
class AttentionHook {
 public:
  virtual ~AttentionHook() = default;
  virtual void before_attention(int layer, AttentionArgs& a) = 0;
  virtual void after_attention(int layer, const AttentionArgs& a) = 0;
};

struct Segment {
  KvCache* cache = nullptr;
  int first_slot = 0;           // rows write slots first_slot .. first_slot + n - 1
  std::vector<int> tokens;      // n token ids
  std::vector<Pos3> pos;        // n positions
  std::vector<int> key_limit;   // n
  const float* image_embeds = nullptr;  // device rows that replace tokens == image_token_id, in order
  int img_begin = 0, img_end = 0;       // image slots of this sequence
  AttentionHook* hook = nullptr;
  bool last_row_logits_only = false;
  // When set, wall time of this segment's attention (fixation hooks included) is added here, so the benchmark
  // can compare pruned and full attention directly rather than through whole-forward times.
  double* attention_ms = nullptr;
  // When set, receives every row's last hidden state before the final norm (after it for a GLM-OCR trunk,
  // MtpHead::after_final_norm), host [n, hidden] (the trunk's from forward, the head's from forward_mtp): what
  // the MTP head continues from.
  std::vector<float>* hidden_out = nullptr;
  // forward_mtp only: per row, the hidden state the head continues from (host [n, hidden]); tokens are then
  // the tokens that follow each row (image_token_id rows take the next image embedding, as in forward).
  const float* mtp_hidden = nullptr;
};

class Decoder {
 public:
  explicit Decoder(Model& m) : m_(m) {}
  // Returns host logits, per segment n rows (or 1 with last_row_logits_only) of vocab_size, concatenated.
  std::vector<float> forward(std::vector<Segment>& segs);
  // The MTP head over rows (docs/decisions/0018); each segment's cache is the head's one-layer cache. Returns
  // the head's logits like forward.
  std::vector<float> forward_mtp(std::vector<Segment>& segs);

 private:
  void reserve(int rows);
  // Validates the segments and embeds their tokens into x_; returns the row count.
  int embed_rows(std::vector<Segment>& segs, std::vector<Pos3>* pos);
  // x_ += layer(x_) for every row, attending against cache layer `cache_layer`; hooks see `hook_layer`.
  void run_layer(const DecoderLayer& L, int cache_layer, int hook_layer, std::vector<Segment>& segs, int T,
                 const float* rope);
  // hidden_out (after `norm` when normed_hidden), then norm and LM head on the rows whose logits are wanted.
  std::vector<float> read_out(std::vector<Segment>& segs, const Buffer& norm, bool normed_hidden);
  // The rotary table of the rows' positions, as the model's family computes it.
  std::vector<float> rope_table(const std::vector<Pos3>& pos) const;
  Model& m_;
  int cap_rows_ = 0;
  Buffer x_, h_, e_, q_, k_, v_, att_, g_, u_, logits_;
};

}  // namespace saccade
