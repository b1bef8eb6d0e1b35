// mse: the range of least quantization error (a min-error grid search, quantization reference
// §4.5). From each row's observed min/max it tries `candidates` shrunken ranges and keeps the
// one whose quantize-dequantize error (sum of squares, on the grid the tensor is quantized to)
// over a bounded sample of the row's values is smallest:
//   symmetric grid         [-t, t] with t = k/N * max|x|,        k = 1..N
//   non-negative data      [0, k/N * max]                        k = 1..N
//   non-positive data      [k/N * min, 0]                        k = 1..N
//   signed data            [i/n * min, j/n * max], n = round(sqrt(N)), i, j = 1..n
// The full range is a candidate, so the result never quantizes the sample worse than minmax;
// ties keep the wider range. Memory: one sample per row (max_samples per tensor, at least 256
// values per row).
#include "range_estimator.h"
#include "reservoir.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tico::ptq {
namespace {

class Mse final : public RangeEstimator {
public:
  explicit Mse(const EstimatorSettings &s) : settings_(s) {
    if (s.candidates < 1)
      throw Error("range estimator 'mse': candidates must be at least 1");
  }

  void update(const TileRows &rows) override {
    stats_.update(rows);
    if (samples_.empty()) {
      const int64_t per_row = std::max<int64_t>(256, settings_.max_samples / std::max<int64_t>(rows.rows, 1));
      const int64_t per_batch = rows.rows == 1 ? settings_.samples_per_batch : per_row;
      for (int64_t r = 0; r < rows.rows; ++r)
        samples_.emplace_back(per_row, per_batch, settings_.seed + static_cast<uint64_t>(r));
    }
    for (int64_t r = 0; r < rows.rows; ++r)
      samples_[static_cast<std::size_t>(r)].add(rows.row(r));
  }

  std::vector<Range> ranges() const override {
    if (stats_.empty())
      throw Error("range estimator 'mse' saw no data");
    std::vector<Range> out;
    for (std::size_t r = 0; r < samples_.size(); ++r)
      out.push_back(search(stats_.min()[r], stats_.max()[r], samples_[r].samples()));
    return out;
  }

private:
  Range search(float mn, float mx, const std::vector<float> &values) const {
    const Range full{mn, mx};
    if (values.empty() || !(mx > mn))
      return full;
    const int64_t n = settings_.candidates;
    const Grid &grid = settings_.grid;
    Range best = full;
    double best_error = std::numeric_limits<double>::infinity();
    const auto consider = [&](Range candidate) {
      const double e = quantizationError(values, computeQParams(candidate, grid, settings_.per_tensor), grid);
      if (e < best_error) {
        best_error = e;
        best = candidate;
      }
    };
    const auto shrink = [](float v, int64_t k, int64_t of) {
      return static_cast<float>(static_cast<double>(v) * static_cast<double>(k) / static_cast<double>(of));
    };
    if (grid.symmetric) {
      const float amax = std::max(std::fabs(mn), std::fabs(mx));
      for (int64_t k = n; k >= 1; --k)
        consider({-shrink(amax, k, n), shrink(amax, k, n)});
    } else if (mn >= 0.0f) {
      for (int64_t k = n; k >= 1; --k)
        consider({0.0f, shrink(mx, k, n)});
    } else if (mx <= 0.0f) {
      for (int64_t k = n; k >= 1; --k)
        consider({shrink(mn, k, n), 0.0f});
    } else {
      const auto side = std::max<int64_t>(1, std::llround(std::sqrt(static_cast<double>(n))));
      for (int64_t i = side; i >= 1; --i)
        for (int64_t j = side; j >= 1; --j)
          consider({shrink(mn, i, side), shrink(mx, j, side)});
    }
    return best;
  }

  EstimatorSettings settings_;
  RowMinMax stats_;
  std::vector<Reservoir> samples_;
};

const EstimatorRegistration kMse({"mse", "least-squares range search over 100 shrunken ranges (option candidates)",
                                  false, [](const EstimatorSettings &s) { return std::make_unique<Mse>(s); }});

} // namespace
} // namespace tico::ptq
