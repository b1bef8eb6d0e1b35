// A bounded, approximately uniform sample of the values seen over many batches: from each
// batch at most `per_batch` values on a regular grid whose phase moves between batches (no
// permutation of a large activation), each given a random priority; the `max_samples` values
// of highest priority are kept. Memory stays bounded however much calibration data flows
// (the scheme of the original's percentile observer).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace tico::ptq {

class Reservoir {
public:
  Reservoir(int64_t max_samples, int64_t per_batch, uint64_t seed);
  void add(std::span<const float> values);
  const std::vector<float> &samples() const { return values_; }

private:
  int64_t max_samples_;
  int64_t per_batch_;
  int64_t calls_ = 0;
  std::mt19937_64 rng_;
  std::vector<float> values_;
  std::vector<double> priorities_;
};

// torch.quantile's linear interpolation over ascending `sorted` values, q in [0, 1].
double quantile(const std::vector<double> &sorted, double q);

} // namespace tico::ptq
