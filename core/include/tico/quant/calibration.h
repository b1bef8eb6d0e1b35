// The calibration-source ABI: where the data quantizers calibrate on comes from.
//
// A source turns a location (a folder of .npy files, a .npz archive, a token-id file, the
// model archive's example inputs, or nothing at all for seeded random data) into batches: one
// tensor per user input of the graph, in signature order. The host picks the source
// (`tico-run --calibration [SOURCE:]PATH`, or the manifest's `calibration:` block), asks it
// for batches while it runs the graph, and checks every batch against the graph's inputs, so
// a source only has to read its format well. Sources arrive as plugins like everything else
// (docs/quantizers.md, "Calibration data").
#pragma once

#include "tico/ir/dtype.h"
#include "tico/ir/tensor_data.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tico {

// One user input of the graph being calibrated.
struct CalibrationInput {
  std::string name;           // the graph's name for it (named files match on it)
  DType dtype = DType::Unknown;
  std::vector<int64_t> shape; // -1 where the dimension is symbolic
  bool is_scalar = false;     // a SymInt/SymFloat input: a one-element tensor is expected
};

// One batch: a tensor per user input, in signature order.
using CalibrationBatch = std::vector<std::shared_ptr<const TensorData>>;

class CalibrationSource {
public:
  virtual ~CalibrationSource() = default;
  // Batches this source delivers (the request's `batches` limit applied).
  virtual std::size_t size() const = 0;
  // Batch `index` (< size()), read when the host needs it. Throws tico::Error naming the file
  // and the input on a missing or malformed file.
  virtual CalibrationBatch batch(std::size_t index) = 0;
  // For logs and errors: "npy folder 'calib/' (16 batches)".
  virtual std::string describe() const = 0;
};

// What the host asks a source for.
struct CalibrationRequest {
  std::string location;                // the path after the optional "SOURCE:" prefix
  std::string model_path;              // the model file being converted (example-inputs)
  std::vector<CalibrationInput> inputs; // the graph's user inputs, in signature order
  std::optional<std::size_t> batches;   // at most this many (random: exactly this many)
  uint64_t seed = 0;                    // sources that draw data
  // Sizes for symbolic dimensions, by symbol name (random data needs them; the manifest's
  // calibration.dims).
  std::map<std::string, int64_t> dims;
};

struct CalibrationSourceSpec {
  std::string name;    // "npy", "npz", "token-ids", "example-inputs", "random"
  std::string summary; // one line for --list-plugins
  // True when this source reads `location` without being named (a directory of .npy files for
  // "npy", a ".npz" path for "npz", ...). The host asks the sources in name order and takes the
  // first that accepts; "SOURCE:PATH" skips the question.
  std::function<bool(const std::string &location)> accepts;
  std::function<std::unique_ptr<CalibrationSource>(const CalibrationRequest &)> create;
};

} // namespace tico
