#pragma once
// A text's CTC forward variables over one line's columns: what the reading prior scores next tokens by
// (decode/reading_prior.h) and where the reading draft finds the output's place (decode/reading_draft.h).
#include <memory>
#include <vector>

namespace saccade {

struct Model;

// One line's CTC distribution over the tokens a reading can show, shared by every prefix over the line.
struct CtcColumns {
  int T = 0;                  // columns
  std::vector<int> live;      // [L] the tokens a reading can show (never eos)
  std::vector<double> y;      // [T, L] their probability per column
  std::vector<double> blank;  // [T]
  std::vector<int> slot;      // per token id, its index in live (-1: never shown)

  // live, y and blank as above, over a vocabulary of `vocab` tokens; eos is never shown.
  static std::shared_ptr<const CtcColumns> make(std::vector<int> live, std::vector<double> y,
                                                std::vector<double> blank, int vocab, int eos);
  // A line model's columns, from its CTC distribution folded onto the model's classes, host [T, vocab + 2]
  // (blank at vocab): each shown token reads its shown class's column (LineVision::shown_tokens).
  static std::shared_ptr<const CtcColumns> for_line(const Model& m, const std::vector<float>& ctc, int T);
};

// For every column t, the probability that columns 0..t read as exactly the text, split into the paths that
// end in its last token (rn) and in blank (rb); rescaled after every token so that the probability of
// reading the text as a prefix is 1. Copies are cheap (the columns are shared).
class CtcPrefix {
 public:
  explicit CtcPrefix(std::shared_ptr<const CtcColumns> columns);
  // Appends a token; `optional`: the text read with or without it (a token the line may show in no column
  // of its own).
  void extend(int token, bool optional = false);
  // rn[t] + rb[t] (t = -1: no columns, which read as the empty text only; t past the last column: the last).
  double read_by(int t) const;
  int last() const { return last_; }
  const std::vector<double>& rn() const { return rn_; }
  const std::vector<double>& rb() const { return rb_; }
  const CtcColumns& columns() const { return *cols_; }

 private:
  std::shared_ptr<const CtcColumns> cols_;
  int last_ = -1;
  std::vector<double> rn_, rb_;
  std::vector<double> next_rn_, next_rb_;  // extend's scratch for the next forward variables
};

}  // namespace saccade
