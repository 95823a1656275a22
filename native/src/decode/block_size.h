#pragma once
// Hardware-aware block size: measured seconds per forward by width, and the block size per round that
// maximises expected committed tokens per second under the running acceptance rate.
#include <vector>

#include "model/model.h"

namespace saccade {

struct ForwardCosts {
  std::vector<int> widths;       // ascending
  std::vector<double> seconds;   // per forward at that width
  int context = 0;               // cached tokens the forwards attended to
  double at(int width) const;    // linear interpolation, clamped at the ends
};

// Times decoder forwards of each width over a synthetic cache of `context` tokens (best of `repeats`, made
// non-decreasing in width).
ForwardCosts measure_forward_costs(Model& m, const std::vector<int>& widths, int context, int repeats);

class BlockSizer {
 public:
  BlockSizer(ForwardCosts costs, int max_block);
  int choose() const;
  // After a verify: `checked` drafted tokens were compared, `accepted` of them matched.
  void observe(int checked, int accepted);
  // Per-token acceptance probability (geometric model, prior 0.8).
  double alpha() const;
  // Expected committed tokens per second for block size B.
  double rate(int B) const;

 private:
  ForwardCosts costs_;
  int max_block_;
  double accepted_ = 4, rejected_ = 1;  // prior pseudo-counts
};

}  // namespace saccade
