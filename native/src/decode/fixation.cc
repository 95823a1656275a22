#include "decode/fixation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace saccade {

namespace {
constexpr int kMaxReported = 32;  // indices per token event: enough for a heatmap, small on the wire

// Indices of the k largest values (ties: lower index first), strongest first.
std::vector<int> top_k(const float* v, int n, int k) {
  std::vector<int> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min(k, n);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  idx.resize(size_t(k));
  return idx;
}
}  // namespace

FixationController::FixationController(const FixationOptions& o, int num_layers, int img_begin, int img_end,
                                       const std::vector<double>* learnt_share, bool carry)
    : o_(o), layers_(num_layers), ib_(img_begin), ie_(img_end), n_img_(img_end - img_begin),
      keep_k_(std::max(1, int(std::ceil(double(o.keep_ratio) * (img_end - img_begin))))),
      carry_(carry), share_(size_t(num_layers), 0.0), is_focal_(size_t(num_layers), 0) {
  if (learnt_share && learnt_share->size() == share_.size() && n_img_ > 0) {
    share_ = *learnt_share;
    learnt_ = true;
    select_focal_layers();
  }
}

void FixationController::begin_forward(int rows) {
  rows_ = rows;
  if (!pruning_ && n_img_ > 0) {
    const int full_layers = layers_ - std::min(o_.focal_layers, layers_);
    frac_sum_ += double(rows) * full_layers;
    frac_n_ += long(rows) * full_layers;
  }
  keep_.assign(size_t(rows), carry_ ? carried_ : std::vector<int>{});
  keep_ptr_.assign(size_t(rows), nullptr);
  keep_n_.assign(size_t(rows), 0);
  row_scores_.assign(size_t(rows), {});
  deepest_.assign(size_t(rows), {});
  mass_.assign(size_t(rows), 0.0f);
  scores_.assign(pruning_ ? size_t(rows) * n_img_ : 0, 0.0f);
}

bool FixationController::begin_prefill(int rows) {
  if (!pruning_ || !selects() || n_img_ <= 0 || rows < 1) return false;
  seeding_ = true;
  rows_ = rows;
  scores_.assign(size_t(rows) * n_img_, 0.0f);
  return true;
}

void FixationController::before_attention(int layer, AttentionArgs& a) {
  if (n_img_ <= 0) return;
  if (seeding_) {
    if (is_focal_[size_t(layer)]) a.image_scores = scores_.data();
    return;
  }
  if (!pruning_) {
    a.image_mass = mass_.data();
    return;
  }
  if (is_focal_[size_t(layer)]) {
    a.image_scores = scores_.data();
    return;
  }
  if (!selects()) {  // nothing is pruned: the plain full attention, not a gather of every token
    frac_sum_ += rows_;
    frac_n_ += rows_;
    return;
  }
  for (int r = 0; r < rows_; ++r) {
    const bool has = !keep_[size_t(r)].empty();
    keep_ptr_[size_t(r)] = has ? keep_[size_t(r)].data() : nullptr;
    keep_n_[size_t(r)] = int(keep_[size_t(r)].size());
    frac_sum_ += has ? double(keep_[size_t(r)].size()) / n_img_ : 1.0;
    ++frac_n_;
  }
  a.img_keep = keep_ptr_.data();
  a.img_keep_n = keep_n_.data();
}

void FixationController::after_attention(int layer, const AttentionArgs& a) {
  if (n_img_ <= 0) return;
  if (seeding_) {
    if (layer != focal_.back()) return;
    std::vector<int> sel = top_k(a.image_scores + size_t(rows_ - 1) * n_img_, n_img_, keep_k_);
    for (int& i : sel) i += ib_;
    std::sort(sel.begin(), sel.end());
    carried_ = std::move(sel);
    return;
  }
  if (!pruning_) {
    for (int r = 0; r < rows_; ++r) share_[size_t(layer)] += a.image_mass[r];
    return;
  }
  if (!is_focal_[size_t(layer)]) return;
  for (int r = 0; r < rows_; ++r) {
    const float* s = a.image_scores + size_t(r) * n_img_;
    auto& acc = row_scores_[size_t(r)];
    if (acc.empty()) acc.assign(size_t(n_img_), 0.0f);
    for (int i = 0; i < n_img_; ++i) acc[size_t(i)] += s[i];
    if (!selects()) continue;
    std::vector<int> sel = top_k(s, n_img_, keep_k_);
    for (int& i : sel) i += ib_;
    std::sort(sel.begin(), sel.end());
    keep_[size_t(r)] = sel;
    if (layer == focal_.back()) deepest_[size_t(r)] = std::move(sel);
  }
}

void FixationController::end_forward(int carry_row) {
  ++steps_;
  if (pruning_) {
    if (carry_row >= 0 && carry_row < rows_ && !deepest_[size_t(carry_row)].empty())
      carried_ = deepest_[size_t(carry_row)];
  } else if (steps_ >= o_.warmup_steps && n_img_ > 0) {
    select_focal_layers();
  }
}

void FixationController::select_focal_layers() {
  std::vector<float> share(share_.begin(), share_.end());
  focal_ = top_k(share.data(), layers_, std::min(o_.focal_layers, layers_));
  std::sort(focal_.begin(), focal_.end());
  for (int l : focal_) is_focal_[size_t(l)] = 1;
  pruning_ = true;
}

bool FixationController::row_fixation(int row, Fixation* out) const {
  if (row < 0 || row >= int(row_scores_.size()) || row_scores_[size_t(row)].empty()) return false;
  const auto& s = row_scores_[size_t(row)];
  std::vector<int> top = top_k(s.data(), n_img_, std::min(keep_k_, kMaxReported));
  double total = 0;
  for (int i : top) total += s[size_t(i)];
  out->indices = top;
  out->weights.clear();
  for (int i : top) out->weights.push_back(total > 0 ? float(s[size_t(i)] / total) : 1.0f / float(top.size()));
  return true;
}

}  // namespace saccade
