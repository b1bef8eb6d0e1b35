// ema: an exponential moving average of each batch's min and max (the original's EMAObserver):
// the first batch sets them, every later one moves them by
//   min <- momentum * min + (1 - momentum) * batch_min   (max alike),
// each product and the sum rounded to float32 as the original's tensor arithmetic does.
#include "range_estimator.h"

#include "tico/support/error.h"

namespace tico::ptq {
namespace {

class Ema final : public RangeEstimator {
public:
  explicit Ema(double momentum)
      : keep_(static_cast<float>(momentum)), take_(static_cast<float>(1.0 - momentum)) {
    if (!(momentum > 0.0 && momentum < 1.0))
      throw Error("range estimator 'ema': momentum " + std::to_string(momentum) + " is not inside (0, 1)");
  }

  void update(const TileRows &rows) override {
    if (min_.empty()) {
      for (int64_t r = 0; r < rows.rows; ++r) {
        auto [lo, hi] = RowMinMax::of(rows.row(r));
        min_.push_back(lo);
        max_.push_back(hi);
      }
      return;
    }
    checkRows(min_.size(), rows, "ema");
    for (int64_t r = 0; r < rows.rows; ++r) {
      auto [lo, hi] = RowMinMax::of(rows.row(r));
      min_[r] = blend(min_[r], lo);
      max_[r] = blend(max_[r], hi);
    }
  }

  std::vector<Range> ranges() const override {
    if (min_.empty())
      throw Error("range estimator 'ema' saw no data");
    std::vector<Range> out(min_.size());
    for (std::size_t r = 0; r < out.size(); ++r)
      out[r] = {min_[r], max_[r]};
    return out;
  }

private:
  float blend(float old, float batch) const {
    const float a = keep_ * old;
    const float b = take_ * batch;
    return a + b;
  }

  float keep_, take_;
  std::vector<float> min_, max_;
};

const EstimatorRegistration kEma({"ema", "moving average of batch min/max (option momentum, default 0.9)", false,
                                  [](const EstimatorSettings &s) { return std::make_unique<Ema>(s.momentum); }});

} // namespace
} // namespace tico::ptq
