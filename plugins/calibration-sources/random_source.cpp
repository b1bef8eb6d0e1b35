// `random`: seeded data made from the graph's declared input types, for smoke tests and for
// quantizers that only need ranges of plausible magnitude.
//
//   random                      8 batches (or calibration.batches), integers in [0, 100)
//   random:int_high=32000       integers in [0, 32000) (e.g. a vocabulary size)
//
// Floating-point inputs are standard normal N(0, 1), bool inputs fair coin flips, integer inputs
// uniform in [0, int_high). Symbolic dimensions take their sizes from calibration.dims (the host
// resolves them). The data depends only on the seed and the batch index: the bits come from
// std::mt19937_64 (its output is fixed by the C++ standard) and the distributions are done here
// by hand, since the standard library's are not specified bit for bit. Integers and bools are
// therefore identical everywhere; normal floats also go through log/cos/sin of the C library,
// whose last bit may differ between C libraries.
#include "batch_support.h"
#include "sources.h"

#include <tico/support/error.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace tico::calib {
namespace {

constexpr std::size_t kDefaultBatches = 8;
constexpr int64_t kDefaultIntHigh = 100;

// Decorrelates (seed, batch) pairs into generator seeds (the splitmix64 finalizer).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform double in (0, 1]: the top 53 bits, shifted off zero so log() below stays finite.
double unitOpen(std::mt19937_64 &rng) { return (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53; }

class RandomSource : public CalibrationSource {
public:
  explicit RandomSource(const CalibrationRequest &request) : inputs_(request.inputs), seed_(request.seed) {
    LocationOptions where = splitLocationOptions(request.location, {"int_high"});
    if (!where.path.empty() && where.path != "random")
      throw Error("random calibration data takes options only (random:int_high=N), not '" + where.path + "'");
    int_high_ = where.options.count("int_high") ? where.options.at("int_high") : kDefaultIntHigh;
    if (int_high_ < 1)
      throw Error("random calibration data: int_high must be at least 1, got " + std::to_string(int_high_));
    batches_ = request.batches.value_or(kDefaultBatches);
    if (batches_ == 0)
      throw Error("random calibration data: calibration.batches is 0");

    // The host gives a symbolic dimension as -1 unless calibration.dims sizes it.
    std::vector<std::string> unsized;
    for (const CalibrationInput &in : inputs_) {
      for (std::size_t d = 0; d < in.shape.size(); ++d)
        if (in.shape[d] < 0)
          unsized.push_back("input '" + in.name + "' dimension " + std::to_string(d));
      if (!in.is_scalar && !isFloating(in.dtype) && !isInteger(in.dtype) && in.dtype != DType::Bool)
        throw Error("random calibration data cannot make " + std::string(torchDTypeName(in.dtype)) + " data for input '" +
                    in.name + "'");
      if (isInteger(in.dtype) && static_cast<uint64_t>(int_high_ - 1) > integerMax(in.dtype))
        throw Error("random calibration data: int_high=" + std::to_string(int_high_) + " exceeds what input '" +
                    in.name + "' (" + std::string(torchDTypeName(in.dtype)) + ") holds");
    }
    if (!unsized.empty()) {
      std::string list;
      for (const std::string &s : unsized)
        list += (list.empty() ? "" : ", ") + s;
      throw Error("random calibration data needs a size for every symbolic dimension, and calibration.dims does not "
                  "size " + list + "; give each symbol's size in the manifest's calibration block (dims: {s0: 128}; "
                  "tico-run --emit tir shows the inputs' symbolic shapes)");
    }
  }

  std::size_t size() const override { return batches_; }

  CalibrationBatch batch(std::size_t index) override {
    std::mt19937_64 rng(mix(seed_ ^ mix(index)));
    CalibrationBatch batch;
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const CalibrationInput &in = inputs_[i];
      if (in.is_scalar) {
        batch.push_back(scalar(in, rng));
        continue;
      }
      int64_t numel = 1;
      for (int64_t d : in.shape)
        numel *= d;
      const auto n = static_cast<std::size_t>(numel);
      std::vector<std::byte> bytes(n * elementSize(in.dtype));
      std::vector<int64_t> sizes = in.shape;
      if (isFloating(in.dtype)) {
        // Box-Muller: two uniforms give two independent standard normals.
        for (std::size_t e = 0; e < n; e += 2) {
          const double r = std::sqrt(-2.0 * std::log(unitOpen(rng)));
          const double theta = 2.0 * std::numbers::pi * unitOpen(rng);
          storeFloat(in.dtype, bytes.data(), e, r * std::cos(theta));
          if (e + 1 < n)
            storeFloat(in.dtype, bytes.data(), e + 1, r * std::sin(theta));
        }
      } else if (in.dtype == DType::Bool) {
        for (std::size_t e = 0; e < n; ++e)
          storeInteger(in.dtype, bytes.data(), e, static_cast<int64_t>(rng() >> 63));
      } else {
        // Modulo of 64 random bits: the bias is at most int_high / 2^64, far below anything
        // calibration could notice.
        for (std::size_t e = 0; e < n; ++e)
          storeInteger(in.dtype, bytes.data(), e, static_cast<int64_t>(rng() % static_cast<uint64_t>(int_high_)));
      }
      batch.push_back(std::make_shared<const TensorData>(TensorData::fromBytes(in.dtype, std::move(sizes), std::move(bytes))));
    }
    return batch;
  }

  std::string describe() const override {
    return "random data (seed " + std::to_string(seed_) + ", " + std::to_string(batches_) + " batch" +
           (batches_ == 1 ? "" : "es") + ")";
  }

private:
  // A SymInt/SymFloat input: one value drawn like a tensor element.
  std::shared_ptr<const TensorData> scalar(const CalibrationInput &in, std::mt19937_64 &rng) const {
    const DType dt = in.dtype == DType::Unknown ? DType::Int64 : in.dtype;
    std::vector<std::byte> bytes(elementSize(dt));
    if (isFloating(dt))
      storeFloat(dt, bytes.data(), 0, unitOpen(rng));
    else
      storeInteger(dt, bytes.data(), 0, static_cast<int64_t>(rng() % static_cast<uint64_t>(int_high_)));
    return std::make_shared<const TensorData>(TensorData::fromBytes(dt, {}, std::move(bytes)));
  }

  std::vector<CalibrationInput> inputs_;
  uint64_t seed_;
  int64_t int_high_ = kDefaultIntHigh;
  std::size_t batches_ = kDefaultBatches;
};

bool acceptsRandom(const std::string &location) {
  if (location == "random")
    return true;
  try {
    return splitLocationOptions(location, {"int_high"}).path == "random";
  } catch (const Error &) {
    return false;
  }
}

} // namespace

CalibrationSourceSpec randomSource() {
  return {"random",
          "seeded data from the graph's input types: N(0,1) floats, coin-flip bools, integers in [0, int_high) "
          "(random:int_high=N, default 100); symbolic sizes from calibration.dims; 8 batches unless given",
          acceptsRandom, [](const CalibrationRequest &request) { return std::make_unique<RandomSource>(request); }};
}

} // namespace tico::calib
