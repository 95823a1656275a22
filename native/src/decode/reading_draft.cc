#include "decode/reading_draft.h"

#include <utility>

namespace saccade {

ReadingDraft::ReadingDraft(std::vector<int> tokens, std::vector<float> conf, std::vector<int> columns,
                           std::shared_ptr<const CtcColumns> ctc, int eos, int space)
    : tokens_(std::move(tokens)), conf_(std::move(conf)), columns_(std::move(columns)), output_(std::move(ctc)),
      eos_(eos), space_(space) {
  conf_.resize(tokens_.size(), 0.0f);
  columns_.resize(tokens_.size(), 0);
}

void ReadingDraft::extend(int token) {
  if (token == eos_) return;
  output_.extend(token, token == space_ || output_.columns().slot[size_t(token)] < 0);
}

int ReadingDraft::place() const {
  // Token j comes next when the columns before its first read as the output; the end of the line when all
  // of them do.
  const int n = int(tokens_.size());
  // Right after a space the columns read about as well with it as without, and the reading's space (it has
  // no other) would be offered again.
  const bool spaced = space_ >= 0 && output_.last() == space_;
  int best = -1;
  double best_p = 0.0;
  for (int j = 0; j <= n; ++j) {
    if (spaced && j < n && tokens_[size_t(j)] == space_) continue;
    const double p = output_.read_by((j < n ? columns_[size_t(j)] : output_.columns().T) - 1);
    if (p > best_p) {
      best = j;
      best_p = p;
    }
  }
  return best;
}

void ReadingDraft::guesses(std::vector<int>* ids, std::vector<float>* conf) const {
  ids->clear();
  conf->clear();
  const int n = int(tokens_.size());
  int i = place();
  if (i < 0) return;
  for (; i < n && tokens_[size_t(i)] >= 0; ++i) {
    ids->push_back(tokens_[size_t(i)]);
    conf->push_back(conf_[size_t(i)]);
  }
  if (i == n) {
    ids->push_back(eos_);
    conf->push_back(1.0f);
  }
}

}  // namespace saccade
