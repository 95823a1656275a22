#include "decode/reading_draft.h"

#include <utility>

#include "decode/reading_prior.h"

namespace saccade {

ReadingDraft::ReadingDraft(std::vector<int> tokens, std::vector<float> conf, std::vector<int> columns, int eos)
    : tokens_(std::move(tokens)), conf_(std::move(conf)), columns_(std::move(columns)), eos_(eos) {
  conf_.resize(tokens_.size(), 0.0f);
  columns_.resize(tokens_.size(), 0);
}

int ReadingDraft::place(const ReadingPrior& prior) const {
  // Token j comes next when the columns before its first read as the prefix; the end of the line when all
  // of them do.
  const int n = int(tokens_.size());
  int best = -1;
  double best_p = 0.0;
  for (int j = 0; j <= n; ++j) {
    const double p = prior.read_by((j < n ? columns_[size_t(j)] : prior.columns()) - 1);
    if (p > best_p) {
      best = j;
      best_p = p;
    }
  }
  return best;
}

void ReadingDraft::guesses(const ReadingPrior& prior, std::vector<int>* ids, std::vector<float>* conf) const {
  ids->clear();
  conf->clear();
  const int n = int(tokens_.size());
  int i = place(prior);
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
