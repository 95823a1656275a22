#pragma once
// The line encoder's CTC reading as a prior on the verifier's greedy choices (docs/decisions/0022). Each token
// is picked by (1 - w) log p_decoder(c | prefix) + w log psi(prefix + c) / psi(prefix), psi being the CTC
// probability that the line's reading starts with that text (joint CTC/attention decoding). The reference,
// the same computation in the same order, is training/saccade/reading_prior.py; its module note says why.
#include <memory>
#include <vector>

#include "decode/ctc_prefix.h"

namespace saccade {

// Copies are cheap (the columns are shared): a copy is a scratch prior to draft along.
class ReadingPrior {
 public:
  // live: the tokens the reading can show (never eos); y: [T, live], their CTC probability per column; blank:
  // [T]. Every other token has probability 0 everywhere. The prefix starts empty.
  ReadingPrior(std::vector<int> live, std::vector<double> y, std::vector<double> blank, int vocab, int eos,
               double weight);
  // Over a line's columns (CtcColumns::for_line), with the model's vocabulary and weight.
  ReadingPrior(std::shared_ptr<const CtcColumns> columns, int vocab, int eos, double weight);

  // The joint choice for one row of decoder logits [V]; the prior then reads on from it, so the caller must
  // commit what it returns. *prob: its probability under the joint scores normalised over the vocabulary
  // (the CTC ratios of all tokens sum to 1, so this is the geometric mixture of the two distributions).
  int take(const float* logits, float* prob);
  // psi(prefix + c) / psi(prefix) for every token c (end of text: the reading is exactly the prefix).
  const std::vector<double>& scores();
  // Of the i-th token take() returned: the CTC head's probability of it after the tokens before it (its score
  // ratio), and the decoder's own softmax probability of it. The two readers' separate votes; -1 for a token
  // it did not give.
  float read_prob(int i) const { return i >= 0 && size_t(i) < read_.size() ? read_[size_t(i)] : -1.0f; }
  float decoder_prob(int i) const { return i >= 0 && size_t(i) < decoder_.size() ? decoder_[size_t(i)] : -1.0f; }

 private:
  int V_, eos_;
  double weight_;
  CtcPrefix prefix_;               // the committed prefix's forward variables
  std::vector<double> part_;       // per live token, its score ratio
  std::vector<double> psi_, lp_;   // per token: the score ratio, the decoder's log-probability (then joint score)
  std::vector<float> read_, decoder_;  // per token taken: its score ratio, its decoder probability
};

}  // namespace saccade
