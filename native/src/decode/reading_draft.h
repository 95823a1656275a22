#pragma once
// The line encoder's greedy CTC reading as guesses of the decoder's output (docs/decisions/0023). The
// encoder reads every line before the decoder writes a token, so its reading is a draft of the whole line
// that costs nothing to make: a round can verify it at once instead of first spending a forward on drafting
// masks. The verifier decides every token as ever, so the output stays AR's byte for byte; a wrong guess
// costs only the rows after it.
#include <vector>

namespace saccade {

class ReadingDraft {
 public:
  ReadingDraft() = default;
  // tokens: the reading (-1 for a character the model lacks), conf: each one's probability; eos: the end
  // of text; space: the space token (-1: none).
  ReadingDraft(std::vector<int> tokens, std::vector<float> conf, int eos, int space);

  // Characters the encoder read on the whole line.
  int characters() const { return int(tokens_.size()); }
  // The guesses it offers for the next output tokens: the reading from where the output stands up to the
  // next character the model lacks, then EOS when the reading ends first. Empty once that is spent.
  void guesses(std::vector<int>* ids, std::vector<float>* conf) const;
  // After the first `offered` guesses from guesses() were checked and `matched` held, and the verifier
  // wrote `next` after the matched ones: where the output now stands in the reading. Where `next` is not the
  // reading's next character it says how the reading went wrong: it is the character after that one (the
  // reading had one too many), a space the reading left out, or else one character read as another.
  void advance(int offered, int matched, int next);
  // The output moved on by other guesses or steps: the reading offers nothing more.
  void lose_place() { at_ = int(tokens_.size()) + 1; }

 private:
  std::vector<int> tokens_;
  std::vector<float> conf_;
  int eos_ = -1, space_ = -1;
  int at_ = 0;  // the reading's index of the next output token
};

}  // namespace saccade
