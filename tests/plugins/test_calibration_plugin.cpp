// A test-only calibration source for the ptq golden tests (tests/lit), whose expected
// parameters need data that is easy to reason about:
//   test-ramp  deterministic data without files: element i of batch b of a float32 input is
//              ((37 i + 11 b) mod 23) / 11 - 1, of an int64 input (token ids) (i + b) mod 4;
//              `batches` batches (default 2); symbolic dimensions 1.
// It claims no location but its own name.
#include "tico/plugin/plugin.h"
#include "tico/plugin/registry.h"
#include "tico/quant/calibration.h"
#include "tico/support/error.h"


namespace {

class RampSource final : public tico::CalibrationSource {
public:
  explicit RampSource(tico::CalibrationRequest request) : request_(std::move(request)) {}
  std::size_t size() const override { return request_.batches.value_or(2); }
  tico::CalibrationBatch batch(std::size_t index) override {
    tico::CalibrationBatch out;
    for (const tico::CalibrationInput &in : request_.inputs) {
      if (in.dtype != tico::DType::Float32 && in.dtype != tico::DType::Int64)
        throw tico::Error("test-ramp: input '" + in.name + "' is neither float32 nor int64");
      std::vector<int64_t> shape;
      int64_t n = 1;
      for (int64_t d : in.shape) {
        shape.push_back(d < 0 ? 1 : d);
        n *= shape.back();
      }
      const auto b = static_cast<int64_t>(index);
      if (in.dtype == tico::DType::Int64) {
        std::vector<int64_t> ids(static_cast<std::size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          ids[i] = (i + b) % 4;
        out.push_back(std::make_shared<tico::TensorData>(tico::TensorData::fromVector(tico::DType::Int64, shape, ids)));
        continue;
      }
      std::vector<float> v(static_cast<std::size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        v[i] = static_cast<float>((37 * i + 11 * b) % 23) / 11.0f - 1.0f;
      out.push_back(std::make_shared<tico::TensorData>(tico::TensorData::fromVector(tico::DType::Float32, shape, v)));
    }
    return out;
  }
  std::string describe() const override { return "test ramp (" + std::to_string(size()) + " batches)"; }

private:
  tico::CalibrationRequest request_;
};

void registerAll(tico::Registrar &r) {
  r.addCalibrationSource({"test-ramp", "deterministic test data", [](const std::string &l) { return l == "test-ramp"; },
                          [](const tico::CalibrationRequest &q) { return std::make_unique<RampSource>(q); }});
}

} // namespace

TICO_PLUGIN("test-calibration", "0.1.0", "Apache-2.0", registerAll)
