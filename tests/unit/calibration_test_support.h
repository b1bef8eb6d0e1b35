// Calibration batches held in memory, for tests that drive quantizers and the calibration
// runner without a calibration-source plugin.
#pragma once

#include "tico/quant/calibration.h"

#include <string>
#include <utility>
#include <vector>

namespace tico::testing_support {

class VectorSource : public CalibrationSource {
public:
  explicit VectorSource(std::vector<CalibrationBatch> batches) : batches_(std::move(batches)) {}
  std::size_t size() const override { return batches_.size(); }
  CalibrationBatch batch(std::size_t index) override { return batches_.at(index); }
  std::string describe() const override { return "test batches"; }

private:
  std::vector<CalibrationBatch> batches_;
};

} // namespace tico::testing_support
