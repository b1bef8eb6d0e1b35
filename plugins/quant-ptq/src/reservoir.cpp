// Bounded sampling (reservoir.h).
#include "reservoir.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tico::ptq {

Reservoir::Reservoir(int64_t max_samples, int64_t per_batch, uint64_t seed)
    : max_samples_(max_samples), per_batch_(per_batch), rng_(seed) {
  if (max_samples <= 0 || per_batch <= 0)
    throw Error("sampling needs positive max_samples and samples_per_batch (got " + std::to_string(max_samples) +
                " and " + std::to_string(per_batch) + ")");
}

void Reservoir::add(std::span<const float> values) {
  const auto n = static_cast<int64_t>(values.size());
  if (n == 0)
    return;
  const int64_t count = std::min(n, per_batch_);
  std::vector<float> picked;
  picked.reserve(static_cast<std::size_t>(count));
  if (count == n) {
    picked.assign(values.begin(), values.end());
  } else {
    // The golden-ratio phase shifts the grid between batches, so repeated batches do not
    // always sample the same positions.
    const double phase = std::fmod(static_cast<double>(calls_) * 0.6180339887498949, 1.0);
    for (int64_t k = 0; k < count; ++k) {
      const double position = (static_cast<double>(k) + phase) / static_cast<double>(count);
      const auto index = static_cast<int64_t>(std::floor(position * static_cast<double>(n)));
      picked.push_back(values[static_cast<std::size_t>(std::min(index, n - 1))]);
    }
  }
  ++calls_;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const bool full = static_cast<int64_t>(values_.size()) >= max_samples_;
  const double threshold = full ? *std::min_element(priorities_.begin(), priorities_.end()) : 0.0;
  for (float v : picked) {
    const double p = uniform(rng_);
    if (full && !(p > threshold))
      continue;
    values_.push_back(v);
    priorities_.push_back(p);
  }
  if (static_cast<int64_t>(values_.size()) <= max_samples_)
    return;
  std::vector<std::size_t> order(values_.size());
  std::iota(order.begin(), order.end(), 0);
  std::nth_element(order.begin(), order.begin() + max_samples_, order.end(),
                   [&](std::size_t a, std::size_t b) { return priorities_[a] > priorities_[b]; });
  order.resize(static_cast<std::size_t>(max_samples_));
  std::sort(order.begin(), order.end()); // keep arrival order (deterministic, cache friendly)
  std::vector<float> kept_values;
  std::vector<double> kept_priorities;
  for (std::size_t i : order) {
    kept_values.push_back(values_[i]);
    kept_priorities.push_back(priorities_[i]);
  }
  values_ = std::move(kept_values);
  priorities_ = std::move(kept_priorities);
}

double quantile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    throw Error("quantile of no values");
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const double below = std::floor(rank);
  const double above = std::ceil(rank);
  const double lo = sorted[static_cast<std::size_t>(below)];
  const double hi = sorted[static_cast<std::size_t>(above)];
  const double w = rank - below;
  // torch.lerp's two-sided form (exact at both ends).
  return w < 0.5 ? lo + w * (hi - lo) : hi - (hi - lo) * (1.0 - w);
}

} // namespace tico::ptq
