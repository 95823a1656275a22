#pragma once
// The line encoder's CTC reading as a prior on the verifier's greedy choices (docs/decisions/0022). Each token
// is picked by (1 - w) log p_decoder(c | prefix) + w log psi(prefix + c) / psi(prefix), psi being the CTC
// probability that the line's reading starts with that text (joint CTC/attention decoding). The reference,
// the same computation in the same order, is training/saccade/reading_prior.py; its module note says why.
#include <memory>
#include <vector>

namespace saccade {

struct Model;

// Copies are cheap (the tables are shared): a copy is a scratch prior to draft along.
class ReadingPrior {
 public:
  // live: the tokens the reading can show (never eos); y: [T, live], their CTC probability per column; blank:
  // [T]. Every other token has probability 0 everywhere. The prefix starts empty.
  ReadingPrior(std::vector<int> live, std::vector<double> y, std::vector<double> blank, int vocab, int eos,
               double weight);
  // A line model's prior over one region, from its CTC distribution folded onto the model's classes, host
  // [T, vocab + 2] (blank at vocab): each of the model's shown tokens reads its shown class's column
  // (LineVision::shown_tokens); every other token (specials, tags, commands) is never shown.
  static std::unique_ptr<ReadingPrior> for_line(const Model& m, const std::vector<float>& ctc, int T);

  // The joint choice for one row of decoder logits [V]; the prior then reads on from it, so the caller must
  // commit what it returns. *prob: its probability under the joint scores normalised over the vocabulary
  // (the CTC ratios of all tokens sum to 1, so this is the geometric mixture of the two distributions).
  int take(const float* logits, float* prob);
  // psi(prefix + c) / psi(prefix) for every token c (end of text: the reading is exactly the prefix).
  const std::vector<double>& scores();
  // The probability that columns 0..t of the line read as exactly the committed prefix, relative to psi(prefix)
  // (t = -1: no columns, which read as the empty prefix only).
  double read_by(int t) const;
  // The line's columns.
  int columns() const { return T_; }

 private:
  void commit(int c);

  int T_, V_, L_, eos_, last_ = -1;
  double weight_;
  std::shared_ptr<const std::vector<int>> live_;      // [L]
  std::shared_ptr<const std::vector<double>> y_;      // [T, L]
  std::shared_ptr<const std::vector<double>> blank_;  // [T]
  std::shared_ptr<const std::vector<int>> slot_;      // per token, its index in live (-1: never shown)
  std::vector<double> rn_, rb_;    // the prefix's paths ending in its last character / in blank, per column
  std::vector<double> part_;       // per live token, its score ratio
  std::vector<double> psi_, lp_;   // per token: the score ratio, the decoder's log-probability (then joint score)
  std::vector<double> next_rn_, next_rb_;  // commit's scratch for the next forward variables
};

}  // namespace saccade
