// A Circle model held as Python bytes: its interface, a summary, and runs on the built-in
// interpreter (libtico-interpreter).
#pragma once

#include "tico/circle/model.h"
#include "tico/interpreter/interpreter.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace tico::python {

// (name, dtype name as in torch without the prefix, shape with -1 for dynamic dims)
using TensorInfo = std::tuple<std::string, std::string, std::vector<int64_t>>;

class NativeCircleModel {
public:
  // Reads the Circle file in `data` (a bytes object, viewed in place and kept alive); `name`
  // stands for it in messages. Raises CircleFormatError for anything that is not a valid model.
  NativeCircleModel(nanobind::bytes data, std::string name);

  std::vector<TensorInfo> inputs() const;
  std::vector<TensorInfo> outputs() const;

  // Runs subgraph 0. Inputs in the model's input order (C-contiguous CPU arrays or tensors);
  // outputs are fresh arrays (numpy, or torch tensors with as_torch). Raises InterpreterError.
  nanobind::list run(const std::vector<nanobind::ndarray<nanobind::device::cpu, nanobind::c_contig>> &inputs,
                     bool as_torch);

  // The text (or JSON text) `tico-circle inspect` prints for this model.
  std::string inspect(bool tensors, bool operators, bool buffers, bool verify, bool as_json) const;

  // The JSON text of the incremental-strategies manifest (Metadata "incremental.manifest.v1"),
  // or None when the model has none.
  nanobind::object incrementalManifest() const;

private:
  const CircleInterpreter &interpreter();

  std::string name_;
  std::size_t file_bytes_ = 0;
  std::shared_ptr<const CircleModel> model_;
  std::unique_ptr<CircleInterpreter> interpreter_; // built on the first run
  std::mutex run_mutex_; // the interpreter runs one call at a time
};

} // namespace tico::python
