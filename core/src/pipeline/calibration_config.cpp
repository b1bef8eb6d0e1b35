// The manifest's calibration block: merging and the byte sizes of memory_budget.
#include "tico/pipeline/manifest.h"

#include <cmath>
#include <cstdlib>
#include <utility>

namespace tico {

void CalibrationConfig::merge(const CalibrationConfig &other) {
  if (!other.path.empty() || !other.source.empty()) {
    // A path names its own source (or none, to be detected): an older source must not stick.
    source = other.source;
    path = other.path;
  }
  if (other.batches)
    batches = other.batches;
  if (other.seed)
    seed = other.seed;
  for (const auto &[symbol, size] : other.dims)
    dims[symbol] = size;
  if (other.memory_budget)
    memory_budget = other.memory_budget;
  if (!other.offload_dir.empty())
    offload_dir = other.offload_dir;
  if (!other.empty())
    where = other.where;
}

namespace {

struct Unit {
  const char *suffix;
  uint64_t factor;
};

// Longest suffixes first so "GiB" is not read as "B" after a number ending in "Gi".
constexpr Unit kUnits[] = {{"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10},
                           {"GB", 1000000000ull}, {"MB", 1000000ull},   {"KB", 1000ull},
                           {"B", 1}};

} // namespace

uint64_t parseByteSize(const std::string &text) {
  const std::string what = "memory size '" + text + "'";
  std::string number = text;
  uint64_t factor = 1;
  for (const Unit &unit : kUnits) {
    const std::string suffix = unit.suffix;
    if (number.size() > suffix.size() && number.compare(number.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number.resize(number.size() - suffix.size());
      factor = unit.factor;
      break;
    }
  }
  while (!number.empty() && number.back() == ' ')
    number.pop_back();
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos)
    throw Error(what + " is not a size; write a number of bytes or one with a unit: 4GiB, 512MiB, 64KiB, 2GB");
  char *end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value))
    throw Error(what + " is not a size; write a number of bytes or one with a unit: 4GiB, 512MiB, 64KiB, 2GB");
  const double bytes = value * static_cast<double>(factor);
  if (bytes < 1.0 || bytes > 1.8e19)
    throw Error(what + " is out of range (at least 1 byte)");
  return static_cast<uint64_t>(std::llround(bytes));
}

std::string byteSizeText(uint64_t bytes) {
  for (const Unit &unit : kUnits)
    if (unit.factor > 1 && unit.suffix[1] == 'i' && bytes % unit.factor == 0)
      return std::to_string(bytes / unit.factor) + unit.suffix;
  return std::to_string(bytes);
}

} // namespace tico
