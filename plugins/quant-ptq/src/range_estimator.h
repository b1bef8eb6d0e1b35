// Range estimators: what turns the calibration data of one tensor into a range per tile row.
// Each lives in its own file and registers itself under a name (EstimatorRegistration), so
// adding one is adding one file.
#pragma once

#include "qparams.h"
#include "tiling.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::ptq {

struct EstimatorSettings {
  Grid grid;               // the grid the range is for (range search quantizes on it)
  bool per_tensor = true;  // one row: the constant-tensor case of the qparams applies
  double percentile = 99.99;
  double momentum = 0.9;
  int64_t max_samples = 131072;   // bounded memory of sampling estimators, per tensor
  int64_t samples_per_batch = 4096;
  int64_t candidates = 100;       // range search
  uint64_t seed = 0;
};

class RangeEstimator {
public:
  virtual ~RangeEstimator() = default;
  // One batch of the tensor, as tile rows (the same row count every call).
  virtual void update(const TileRows &rows) = 0;
  // One range per row. Throws tico::Error when update() was never called.
  virtual std::vector<Range> ranges() const = 0;
};

struct EstimatorEntry {
  std::string name;
  std::string summary;
  bool per_tensor_only = false;
  std::function<std::unique_ptr<RangeEstimator>(const EstimatorSettings &)> create;
};

// Every registered estimator by name.
const std::map<std::string, EstimatorEntry> &estimators();
// Throws tico::Error naming the unknown estimator and the known ones.
const EstimatorEntry &findEstimator(const std::string &name);

// A static object of this type in an estimator's file registers it.
struct EstimatorRegistration {
  explicit EstimatorRegistration(EstimatorEntry entry);
};

// Running elementwise min/max of each row: the state most estimators start from.
class RowMinMax {
public:
  void update(const TileRows &rows);
  bool empty() const { return min_.empty(); }
  const std::vector<float> &min() const { return min_; }
  const std::vector<float> &max() const { return max_; }
  static std::pair<float, float> of(std::span<const float> row);

private:
  std::vector<float> min_, max_;
};

// Checks the row count against what an estimator saw before.
void checkRows(std::size_t expected, const TileRows &rows, const char *estimator);

} // namespace tico::ptq
