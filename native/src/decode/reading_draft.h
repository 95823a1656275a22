#pragma once
// The line encoder's greedy CTC reading as guesses of the decoder's output (docs/decisions/0023, 0024). The
// encoder reads every line before the decoder writes a token, so its reading is a draft of the whole line
// that costs nothing to make: a round can verify it at once instead of first spending a forward on drafting
// masks. The verifier decides every token as ever, so the output stays AR's byte for byte; a wrong guess
// costs only the rows after it.
#include <memory>
#include <vector>

#include "decode/ctc_prefix.h"

namespace saccade {

class ReadingDraft {
 public:
  // tokens: the reading (-1 for a character the model lacks), conf: each one's probability, columns: the
  // column each starts in (ascending), all over the line's CTC columns; eos: the end of text; space: the
  // space token (-1: none).
  ReadingDraft(std::vector<int> tokens, std::vector<float> conf, std::vector<int> columns,
               std::shared_ptr<const CtcColumns> ctc, int eos, int space);

  // Characters the encoder read on the whole line.
  int characters() const { return int(tokens_.size()); }
  // The output committed one more token.
  void extend(int token);
  // Where the output stands in the reading: the token whose first column the output most likely reads up
  // to (the first such token; characters() for the end of the line; -1 when the output cannot be read from
  // the line at all). The output is read with its spaces and the tokens the line never shows made optional,
  // since the decoder writes spaces the CTC head merged away. It follows the output through any edit of the
  // reading (a character read as another, one read that is not there, one not read) and after any round,
  // whatever drafted it.
  int place() const;
  // The guesses it offers for the next output tokens: the reading from place() up to the next character the
  // model lacks, then EOS when the reading ends first.
  void guesses(std::vector<int>* ids, std::vector<float>* conf) const;

 private:
  std::vector<int> tokens_;
  std::vector<float> conf_;
  std::vector<int> columns_;
  CtcPrefix output_;  // the committed output over the line's columns
  int eos_, space_;
};

}  // namespace saccade
