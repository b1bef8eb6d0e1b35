// percentile: clipping at a percentile of a bounded sample (the original's PercentileObserver):
// the central `percentile` % of the values are kept — for non-negative data [0, q(p)], for
// non-positive data [q(1 - p), 0], for signed data equal tails [q((1 - p) / 2), q(1 - (1 - p) / 2)],
// for a symmetric grid [-q(p) of |x|, +q(p) of |x|]; 100 is the exact min/max. The exact
// min/max are tracked beside the sample; the range always contains 0. Per-tensor only, as the
// original (a sample per channel would change the memory bound).
#include "range_estimator.h"
#include "reservoir.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>

namespace tico::ptq {
namespace {

class Percentile final : public RangeEstimator {
public:
  explicit Percentile(const EstimatorSettings &s)
      : settings_(s), sample_(s.max_samples, s.samples_per_batch, s.seed) {
    if (!(s.percentile > 0.0 && s.percentile <= 100.0))
      throw Error("range estimator 'percentile': percentile " + std::to_string(s.percentile) +
                  " is not inside (0, 100]");
  }

  void update(const TileRows &rows) override {
    if (rows.rows != 1)
      throw Error("range estimator 'percentile' works per tensor only (got " + std::to_string(rows.rows) +
                  " tiles); use minmax, ema or mse for per-channel tensors");
    stats_.update(rows);
    sample_.add(rows.row(0));
  }

  std::vector<Range> ranges() const override {
    if (stats_.empty() || sample_.samples().empty())
      throw Error("range estimator 'percentile' saw no data");
    const double observed_min = stats_.min()[0];
    const double observed_max = stats_.max()[0];
    const double p = settings_.percentile;
    std::vector<double> sorted(sample_.samples().begin(), sample_.samples().end());
    double lo = 0.0, hi = 0.0;
    if (settings_.grid.symmetric) {
      double t = std::max(std::fabs(observed_min), std::fabs(observed_max));
      if (p != 100.0) {
        for (double &v : sorted)
          v = std::fabs(v);
        std::sort(sorted.begin(), sorted.end());
        t = quantile(sorted, p / 100.0);
      }
      lo = -t;
      hi = t;
    } else {
      std::sort(sorted.begin(), sorted.end());
      if (p == 100.0) {
        lo = observed_min;
        hi = observed_max;
      } else if (observed_min >= 0.0) {
        lo = 0.0;
        hi = quantile(sorted, p / 100.0);
      } else if (observed_max <= 0.0) {
        lo = quantile(sorted, 1.0 - p / 100.0);
        hi = 0.0;
      } else {
        const double tail = (1.0 - p / 100.0) / 2.0;
        lo = quantile(sorted, tail);
        hi = quantile(sorted, 1.0 - tail);
      }
    }
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
    return {Range{static_cast<float>(lo), static_cast<float>(hi)}};
  }

private:
  EstimatorSettings settings_;
  RowMinMax stats_;
  Reservoir sample_;
};

const EstimatorRegistration kPercentile(
    {"percentile", "clip at a percentile of a bounded sample (options percentile 99.99, max_samples, samples_per_batch)",
     true, [](const EstimatorSettings &s) { return std::make_unique<Percentile>(s); }});

} // namespace
} // namespace tico::ptq
