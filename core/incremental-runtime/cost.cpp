#include "cost.h"

#include <algorithm>

namespace tico::incremental::runtime {

CostModel::CostModel(std::vector<uint64_t> est_macs, double alpha, double cold_penalty, bool observe)
    : macs_(std::move(est_macs)), ewma_(macs_.size(), 0.0), runs_(macs_.size(), 0), alpha_(alpha),
      cold_penalty_(cold_penalty), observe_(observe) {}

void CostModel::record(std::size_t callable, double seconds) {
  ewma_[callable] = runs_[callable] == 0 ? seconds : alpha_ * seconds + (1 - alpha_) * ewma_[callable];
  ++runs_[callable];
}

double CostModel::predict(const std::vector<std::size_t> &callables) const {
  // Seconds per MAC over the observed callables: prices the unobserved ones in seconds too.
  double seconds = 0, macs = 0;
  if (observe_)
    for (std::size_t c = 0; c < macs_.size(); ++c)
      if (runs_[c]) {
        seconds += ewma_[c];
        macs += static_cast<double>(std::max<uint64_t>(macs_[c], 1));
      }
  const double rate = macs > 0 ? seconds / macs : 1.0;
  double total = 0;
  for (std::size_t c : callables) {
    if (macs > 0 && runs_[c])
      total += ewma_[c];
    else
      total += static_cast<double>(std::max<uint64_t>(macs_[c], 1)) * rate * (runs_[c] ? 1.0 : 1.0 + cold_penalty_);
  }
  return total;
}

} // namespace tico::incremental::runtime
