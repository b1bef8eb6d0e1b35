// minmax: the running minimum and maximum of each row over every batch (the original's
// MinMaxObserver, its default).
#include "range_estimator.h"

#include "tico/support/error.h"

namespace tico::ptq {
namespace {

class MinMax final : public RangeEstimator {
public:
  void update(const TileRows &rows) override { stats_.update(rows); }
  std::vector<Range> ranges() const override {
    if (stats_.empty())
      throw Error("range estimator 'minmax' saw no data");
    std::vector<Range> out(stats_.min().size());
    for (std::size_t r = 0; r < out.size(); ++r)
      out[r] = {stats_.min()[r], stats_.max()[r]};
    return out;
  }

private:
  RowMinMax stats_;
};

const EstimatorRegistration kMinMax({"minmax", "running min/max over all batches (default)", false,
                                     [](const EstimatorSettings &) { return std::make_unique<MinMax>(); }});

} // namespace
} // namespace tico::ptq
