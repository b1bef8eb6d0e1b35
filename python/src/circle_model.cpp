#include "circle_model.h"

#include "tico/pipeline/incremental.h"

#include "errors.h"
#include "python_keepalive.h"
#include "summary.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <cstring>
#include <optional>
#include <sstream>

namespace nb = nanobind;

namespace tico::python {
namespace {

using nb::dlpack::dtype_code;

struct DTypeCode {
  DType dtype;
  dtype_code code;
  uint8_t bits;
};
constexpr DTypeCode kDTypes[] = {
    {DType::Bool, dtype_code::Bool, 8},       {DType::UInt8, dtype_code::UInt, 8},
    {DType::Int8, dtype_code::Int, 8},        {DType::Int16, dtype_code::Int, 16},
    {DType::Int32, dtype_code::Int, 32},      {DType::Int64, dtype_code::Int, 64},
    {DType::UInt16, dtype_code::UInt, 16},    {DType::UInt32, dtype_code::UInt, 32},
    {DType::UInt64, dtype_code::UInt, 64},    {DType::Float16, dtype_code::Float, 16},
    {DType::BFloat16, dtype_code::Bfloat, 16}, {DType::Float32, dtype_code::Float, 32},
    {DType::Float64, dtype_code::Float, 64},  {DType::Complex64, dtype_code::Complex, 64},
    {DType::Complex128, dtype_code::Complex, 128},
};

std::optional<DType> fromDlpack(nb::dlpack::dtype t) {
  for (const auto &entry : kDTypes)
    if (static_cast<uint8_t>(entry.code) == t.code && entry.bits == t.bits && t.lanes == 1)
      return entry.dtype;
  return std::nullopt;
}

nb::dlpack::dtype toDlpack(DType dtype) {
  for (const auto &entry : kDTypes)
    if (entry.dtype == dtype)
      return nb::dlpack::dtype{static_cast<uint8_t>(entry.code), entry.bits, 1};
  throw Error("the interpreter returned a tensor of type " + std::string(dtypeName(dtype)) +
              ", which has no array type");
}

// "float32", "int64", "bool": torch's names without the "torch." prefix.
std::string shortTorchName(DType dtype) {
  std::string name(torchDTypeName(dtype));
  return name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
}

// Subgraph 0's inputs or outputs as declared (shape_signature when present: -1 = dynamic).
std::vector<TensorInfo> interfaceOf(const CircleModel &model, const std::vector<int32_t> CircleSubGraph::*which) {
  std::vector<TensorInfo> out;
  if (model.subgraphs.empty())
    return out;
  const CircleSubGraph &graph = model.subgraphs.front();
  for (int32_t index : graph.*which) {
    const CircleTensor &tensor = graph.tensors.at(static_cast<std::size_t>(index));
    const auto &shape = tensor.shape_signature.empty() ? tensor.shape : tensor.shape_signature;
    out.emplace_back(tensor.name, shortTorchName(fromCircleType(tensor.type)),
                     std::vector<int64_t>(shape.begin(), shape.end()));
  }
  return out;
}

// A fresh array of the output's shape and type, owning a copy of its elements. Outputs may be
// views of an input or of a constant inside the model bytes, which must not be handed out as
// writable arrays.
template <typename Framework> nb::object freshArray(const TensorData &out) {
  const std::size_t bytes = out.nbytes();
  auto *copy = new std::byte[bytes == 0 ? 1 : bytes];
  if (bytes != 0)
    out.copyContiguousTo(copy);
  nb::capsule owner(copy, [](void *p) noexcept { delete[] static_cast<std::byte *>(p); });
  std::vector<size_t> shape(out.sizes.begin(), out.sizes.end());
  nb::ndarray<Framework> array(copy, shape.size(), shape.data(), owner, nullptr, toDlpack(out.dtype));
  return nb::cast(array);
}

} // namespace

NativeCircleModel::NativeCircleModel(nb::bytes data, std::string name) : name_(std::move(name)) {
  const auto *bytes = reinterpret_cast<const std::byte *>(data.c_str());
  file_bytes_ = data.size();
  auto storage = Storage::fromExternal(bytes, file_bytes_, holdUnderGil(nb::bytes(data)));
  try {
    model_ = std::make_shared<const CircleModel>(readCircleBytes(std::move(storage), name_));
  } catch (const Error &e) {
    throwPython("CircleFormatError", e.what());
  }
}

std::vector<TensorInfo> NativeCircleModel::inputs() const {
  return interfaceOf(*model_, &CircleSubGraph::inputs);
}

std::vector<TensorInfo> NativeCircleModel::outputs() const {
  return interfaceOf(*model_, &CircleSubGraph::outputs);
}

const CircleInterpreter &NativeCircleModel::interpreter() {
  if (!interpreter_) {
    // The interpreter relies on a consistent model; report a broken one with the verifier's
    // findings, as tico-circle run does.
    checkCircleModel(*model_, "'" + name_ + "'");
    interpreter_ = std::make_unique<CircleInterpreter>(model_);
  }
  return *interpreter_;
}

nb::list NativeCircleModel::run(const std::vector<nb::ndarray<nb::device::cpu, nb::c_contig>> &inputs, bool as_torch) {
  std::vector<std::shared_ptr<const TensorData>> tensors;
  tensors.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto &array = inputs[i];
    const std::optional<DType> dtype = fromDlpack(array.dtype());
    if (!dtype)
      throwPython("InterpreterError", "input " + std::to_string(i) + " has an element type the interpreter does not know");
    auto data = std::make_shared<TensorData>();
    data->dtype = *dtype;
    for (std::size_t d = 0; d < array.ndim(); ++d)
      data->sizes.push_back(static_cast<int64_t>(array.shape(d)));
    data->strides = TensorData::contiguousStrides(data->sizes);
    data->storage = Storage::fromExternal(static_cast<const std::byte *>(array.data()), array.nbytes(),
                                          holdUnderGil(array));
    tensors.push_back(std::move(data));
  }

  std::vector<std::shared_ptr<const TensorData>> results;
  std::optional<std::string> failure;
  {
    nb::gil_scoped_release released;
    std::lock_guard lock(run_mutex_);
    try {
      results = interpreter().run(tensors);
    } catch (const Error &e) {
      failure = e.what();
    } catch (const std::exception &e) {
      failure = std::string("internal error: ") + e.what();
    }
  }
  // The inputs' owners are Python references: dropped here, with the GIL held and the lock free.
  tensors.clear();
  if (failure)
    throwPython("InterpreterError", *failure);
  nb::list out;
  for (const auto &result : results)
    out.append(as_torch ? freshArray<nb::pytorch>(*result) : freshArray<nb::numpy>(*result));
  return out;
}

std::string NativeCircleModel::inspect(bool tensors, bool operators, bool buffers, bool verify, bool as_json) const {
  circle_tool::SummaryOptions options;
  options.tensors = tensors;
  options.operators = operators;
  options.buffers = buffers;
  options.verify = verify;
  const auto doc = circle_tool::summarizeModel(*model_, name_, file_bytes_, options);
  if (as_json)
    return doc.dump(2) + "\n";
  std::ostringstream text;
  circle_tool::printSummary(doc, text);
  return text.str();
}

nb::object NativeCircleModel::incrementalManifest() const {
  if (auto text = tico::incrementalManifest(*model_))
    return nb::str(text->c_str(), text->size());
  return nb::none();
}

} // namespace tico::python
