#pragma once
// Visual fixation (FastOCR, BRIEF section 3) as an attention hook on one sequence.
//
// Warm-up: the first warmup_steps decode forwards run full attention and record, per layer, the share of
// attention mass on image tokens. The focal_layers layers with the largest share become focal. A controller
// given the shares an earlier region of the same kind measured starts with its focal layers instead. After that a
// focal layer attends to the full image KV, and each query row keeps its own top keep_ratio image tokens
// (per-row rule, docs/decisions/0004-fixation-in-blocks.md); the following non-focal layers attend only to
// that row's selection plus all text. Layers before the first focal layer use the selection carried from the
// previous step's deepest focal layer; a region's first step carries the prompt row's, taken in the prefill
// when the focal layers are already known (from an earlier region's shares). The KV cache is never pruned.
#include <vector>

#include "decode/events.h"
#include "decode/options.h"
#include "model/decoder.h"

namespace saccade {

class FixationController final : public AttentionHook {
 public:
  // learnt_share: per layer image-attention shares from an earlier warm-up (nullptr: warm up here). carry:
  // whether the layers before the first focal one attend to the selection carried from the last written
  // token; not for diffusion, whose forwards are blocks of positions that selection does not fit but the
  // first (those layers then attend to the whole image).
  FixationController(const FixationOptions& o, int num_layers, int img_begin, int img_end,
                     const std::vector<double>* learnt_share = nullptr, bool carry = true);

  void begin_forward(int rows);
  // The prefill of `rows` rows, attended in full: with focal layers known, the last row's selection at the
  // deepest one becomes the first step's carried selection. Returns whether the prefill needs the hook.
  bool begin_prefill(int rows);
  void end_prefill() { seeding_ = false; }
  void before_attention(int layer, AttentionArgs& a) override;
  void after_attention(int layer, const AttentionArgs& a) override;
  // Counts a decode step and carries row carry_row's deepest focal selection into the next forward.
  void end_forward(int carry_row);

  // The heatmap of one row of the last forward (false before focal layers exist).
  bool row_fixation(int row, Fixation* out) const;
  bool pruning() const { return pruning_; }
  const std::vector<int>& focal_layers() const { return focal_; }
  // Mean over forwards, rows and non-focal layers of the fraction of image tokens attended to; warm-up
  // forwards count as 1 for as many layers as will not be focal.
  double visual_token_fraction() const { return frac_n_ ? frac_sum_ / double(frac_n_) : 1.0; }
  // The per-layer shares this controller's own warm-up measured (nullptr before its end, or when learnt).
  const std::vector<double>* measured_share() const { return pruning_ && !learnt_ ? &share_ : nullptr; }
  int keep_count() const { return keep_k_; }

 private:
  void select_focal_layers();
  // keep_ratio 1 keeps every image token: the focal layers then only feed the heatmaps.
  bool selects() const { return keep_k_ < n_img_; }

  FixationOptions o_;
  int layers_, ib_, ie_, n_img_, keep_k_;
  int steps_ = 0;
  bool pruning_ = false, learnt_ = false, seeding_ = false, carry_ = true;
  std::vector<double> share_;  // per layer, summed over warm-up rows
  std::vector<int> focal_;     // ascending
  std::vector<char> is_focal_;
  std::vector<int> carried_;   // ascending slots

  int rows_ = 0;
  std::vector<std::vector<int>> keep_;        // per row, ascending slots
  std::vector<const int*> keep_ptr_;
  std::vector<int> keep_n_;
  std::vector<float> mass_, scores_;
  std::vector<std::vector<float>> row_scores_;  // per row, focal-layer attention on each image token
  std::vector<std::vector<int>> deepest_;       // per row, deepest focal layer's selection
  double frac_sum_ = 0;
  long frac_n_ = 0;
};

}  // namespace saccade
