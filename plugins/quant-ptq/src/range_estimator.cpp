// The estimator table and shared row statistics (range_estimator.h).
#include "range_estimator.h"

#include "tico/support/error.h"

#include <algorithm>
#include <limits>

namespace tico::ptq {
namespace {

std::map<std::string, EstimatorEntry> &table() {
  static std::map<std::string, EstimatorEntry> entries; // built before main, read-only afterwards
  return entries;
}

} // namespace

const std::map<std::string, EstimatorEntry> &estimators() { return table(); }

const EstimatorEntry &findEstimator(const std::string &name) {
  auto it = table().find(name);
  if (it == table().end()) {
    std::string known;
    for (const auto &[n, e] : table())
      known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown range estimator '" + name + "' (known: " + known + ")");
  }
  return it->second;
}

EstimatorRegistration::EstimatorRegistration(EstimatorEntry entry) {
  std::string name = entry.name;
  table().emplace(std::move(name), std::move(entry));
}

std::pair<float, float> RowMinMax::of(std::span<const float> row) {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  for (float x : row) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return {lo, hi};
}

void RowMinMax::update(const TileRows &rows) {
  if (min_.empty()) {
    min_.assign(static_cast<std::size_t>(rows.rows), std::numeric_limits<float>::infinity());
    max_.assign(static_cast<std::size_t>(rows.rows), -std::numeric_limits<float>::infinity());
  }
  checkRows(min_.size(), rows, "min/max");
  for (int64_t r = 0; r < rows.rows; ++r) {
    auto [lo, hi] = of(rows.row(r));
    min_[r] = std::min(min_[r], lo);
    max_[r] = std::max(max_[r], hi);
  }
}

void checkRows(std::size_t expected, const TileRows &rows, const char *estimator) {
  if (static_cast<std::size_t>(rows.rows) != expected)
    throw Error(std::string("range estimator '") + estimator + "' got " + std::to_string(rows.rows) +
                " rows after " + std::to_string(expected) + " (the tensor's tiling changed between batches)");
}

} // namespace tico::ptq
