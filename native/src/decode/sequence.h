#pragma once
// One region being decoded: its image, KV cache, committed output and statistics. The strategies (ar.cc,
// self_spec.cc, diffusion.cc) drive it through forward() and commit().
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/block_size.h"
#include "decode/events.h"
#include "decode/fixation.h"
#include "decode/options.h"
#include "decode/reading_draft.h"
#include "decode/reading_prior.h"
#include "decode/repeat_guard.h"
#include "decode/sampling.h"
#include "model/decoder.h"
#include "model/model.h"

namespace saccade {

struct RegionInput {
  std::string id;
  std::string kind;  // text | table | formula
  int width = 0, height = 0;
  int channels = 1;             // 1: grey; 3: RGB, which only GLM-OCR reads
  std::vector<uint8_t> pixels;  // [height, width, channels]
};

// One row of a decoder forward: token, cache slot and the end (exclusive) of the slots it attends to.
struct Row {
  int token, slot, key_limit;
};

// A committed token with its provenance.
struct Commit {
  int id;
  TokenSource source;
  float draft_conf;  // -1: no draft
  float ar_prob;
  int row;           // row of the last forward whose logits produced it (-1: none), for its fixation
};

class Sequence {
 public:
  // Preprocesses and encodes the image and prefills the prompt but for its last token, which becomes pending():
  // [BOS, IMG x N] and the prompt token for the saccade formats, the chat template's rows for GLM-OCR.
  // lookahead: the most slots a forward writes past the committed text (its cache and positions are kept free).
  // image_share: fixation's per-layer image-attention shares learnt on an earlier region (nullptr: none).
  Sequence(Model& m, Decoder& dec, const RegionInput& in, const DecodeOptions& o, int lookahead,
           const std::vector<double>* image_share = nullptr);

  const std::string& id() const { return id_; }
  const std::string& kind() const { return kind_; }
  int grid_rows() const { return rows_; }
  int grid_cols() const { return cols_; }
  int image_tokens() const { return rows_ * cols_; }
  KvCache& cache() { return cache_; }
  int pending() const { return pending_; }
  bool done() const { return done_; }
  const std::vector<int>& output() const { return output_; }
  // The region's text: the output's, or the encoder's reading's.
  std::string text() const;
  // A line the decoder cannot write (LineReading::encoder): it is written from the encoder's reading, done
  // from the start, and never reaches a strategy.
  bool read_by_encoder() const { return !encoder_.text.empty(); }
  // Emits the encoder's reading as the region's tokens (source "encoder", id -1, one per character).
  void commit_encoder_reading(EventSink& sink);
  RegionStats& stats() { return stats_; }
  FixationController* fixation() { return fix_.get(); }
  // The line encoder's reading that the verifier's greedy choices weigh (nullptr: the decoder alone).
  ReadingPrior* reading_prior() { return prior_.get(); }
  // MTP mode: the trunk's last hidden states of the prefill rows (host [rows, hidden]), their tokens and the
  // image embeddings, which the MTP head's own cache starts from.
  const std::vector<float>& prefill_hidden() const { return prefill_hidden_; }
  const std::vector<int>& prefill_tokens() const { return prefill_tokens_; }
  const float* image_embeds() const { return image_embeds_.data(); }
  int cache_capacity() const { return cache_.cap; }
  // Tokens still allowed before max_new_tokens (or the position limit).
  int budget() const;
  // How many more tokens (EOS included) the line's text is likely to take, judged by the length of the
  // encoder's greedy reading with a margin for what it leaves out (spaces); -1 without a reading, or once
  // the output has outrun it.
  int likely_tokens_left() const;
  // The encoder's greedy reading as guesses of the output (nullptr: a model without a line reading).
  ReadingDraft* reading_draft() { return reading_.get(); }

  Pos3 pos_of(int slot) const;
  // Runs one forward over rows (slots >= cache().len). Returns logits [rows, vocab].
  std::vector<float> forward(const std::vector<Row>& rows);
  // The decoder segment for rows, counted as one forward of this sequence (forward_batch uses it).
  Segment segment(const std::vector<Row>& rows);
  // Tells the fixation controller which row's selection to carry into the next step.
  void end_step(int carry_row);

  // Commits tokens in order, emitting token events; stops after EOS, when the budget is spent, or when the
  // repetition guard finds a loop (then the loop's later copies are taken back with a retract event and the
  // region ends). The caller then sets the cache length. Returns how many were committed.
  int commit(const std::vector<Commit>& toks, int round, EventSink& sink);

 private:
  Model& m_;
  Decoder& dec_;
  std::string id_, kind_;
  int rows_ = 0, cols_ = 0, n_img_ = 0, img_begin_ = 0, text_slot_ = 0, text_pos_ = 0;
  std::vector<int> prefill_tokens_;
  std::vector<Pos3> prefill_pos_;
  int max_new_ = 0, max_text_slots_ = 0;
  Buffer image_embeds_;
  std::vector<float> prefill_hidden_;
  KvCache cache_;
  int pending_ = 0;
  std::unique_ptr<ReadingDraft> reading_;
  EncoderChars encoder_;
  bool done_ = false;
  std::vector<int> output_;
  std::string held_text_;  // committed bytes that do not yet end a character, for the next token event
  RegionStats stats_;
  std::unique_ptr<FixationController> fix_;
  std::unique_ptr<RepeatGuard> guard_;
  std::unique_ptr<ReadingPrior> prior_;
};

// Shared by the strategies.
struct DecodeContext {
  Model& model;
  Decoder& decoder;
  const DecodeOptions& opts;
  EventSink& sink;
  const std::atomic<bool>& cancel;
  Rng rng;
  // The model's measured forward costs, where the mode verifies (the AR estimate models its rounds with them).
  const ForwardCosts* costs = nullptr;
};

// A verifying round took `verify_ms` (all but drafting) over forwards `width` tokens wide in all: what its
// sequences' AR estimate is calibrated with (RegionStats::verify_ms, modelled_ms).
void count_verify_time(const DecodeContext& ctx, const std::vector<Sequence*>& seqs, int width, double verify_ms);

double now_ms();

// One decoder forward over several sequences (rows of all of them share every GEMM). rows[i] belongs to
// seqs[i]; returns each sequence's logits [rows, vocab]. Rows stay independent, so results equal
// per-sequence forwards bit for bit. hidden, when given, receives each sequence's last hidden states.
std::vector<std::vector<float>> forward_batch(Decoder& dec, const std::vector<Sequence*>& seqs,
                                              const std::vector<std::vector<Row>>& rows,
                                              std::vector<std::vector<float>>* hidden = nullptr);

}  // namespace saccade
