#include "decode/reading_draft.h"

#include <algorithm>
#include <utility>

namespace saccade {

ReadingDraft::ReadingDraft(std::vector<int> tokens, std::vector<float> conf, int eos, int space)
    : tokens_(std::move(tokens)), conf_(std::move(conf)), eos_(eos), space_(space) {
  conf_.resize(tokens_.size(), 0.0f);
}

void ReadingDraft::guesses(std::vector<int>* ids, std::vector<float>* conf) const {
  ids->clear();
  conf->clear();
  const int n = int(tokens_.size());
  if (at_ > n) return;
  int i = at_;
  for (; i < n && tokens_[size_t(i)] >= 0; ++i) {
    ids->push_back(tokens_[size_t(i)]);
    conf->push_back(conf_[size_t(i)]);
  }
  if (i == n) {
    ids->push_back(eos_);
    conf->push_back(1.0f);
  }
}

void ReadingDraft::advance(int offered, int matched, int next) {
  const int n = int(tokens_.size());
  const int wrong = at_ + matched;  // the reading's index of the first character the output did not confirm
  if (matched >= offered && (wrong >= n || tokens_[size_t(wrong)] < 0 || next == tokens_[size_t(wrong)])) {
    // Every guess held, and the verifier's own token wrote the character the model lacks, ended the text,
    // or is the reading's next character.
    at_ = wrong + 1;
    return;
  }
  if (wrong + 1 < n && next == tokens_[size_t(wrong + 1)])
    at_ = wrong + 2;
  else if (next == space_ && (wrong >= n || tokens_[size_t(wrong)] != space_))
    at_ = wrong;
  else
    at_ = wrong + 1;
}

}  // namespace saccade
