// tico-circle compare: running a model so that every intermediate tensor comes back.
//
// The interpreter returns only a subgraph's outputs and has no per-operator hook, so the tool
// runs a copy of the model whose subgraph output list is extended with every non-constant
// operator output (or those matching --tensors). The copy shares the original's buffers (weights
// are never copied). A subgraph that another one calls (an IF branch, a WHILE body) cannot change
// its interface without breaking its caller; then the extended subgraph is appended as a new,
// uncalled subgraph and that one runs.
#include "compare.h"

#include "tico/circle/edit.h"
#include "tico/circle/query.h"
#include "tico/circle/verify.h"
#include "tico/interpreter/interpreter.h"
#include "tico/support/error.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

namespace tico::circle_tool::compare {
namespace {

bool calledByAnotherOperator(const CircleModel &model, uint32_t subgraph) {
  for (const CircleSubGraph &graph : model.subgraphs)
    for (const CircleOperator &op : graph.operators)
      for (int64_t callee : calledSubgraphs(op))
        if (callee == static_cast<int64_t>(subgraph))
          return true;
  return false;
}

// Float data given for a quantized model input (the usual case when B is a fully integer model
// and the .npy files hold the float model's inputs): q = round(x / scale) + zero_point, clamped.
std::shared_ptr<const TensorData> quantizeInput(const CircleTensor &tensor, const TensorData &value,
                                                const std::string &label) {
  const auto &q = *tensor.quantization;
  if (q.scale.size() != 1)
    throw Error(label + ": input '" + tensor.name +
                "' is quantized per channel; give its integer codes instead of float data");
  const DType dtype = fromCircleType(tensor.type);
  const double scale = q.scale[0];
  const int64_t zero = q.zero_point.empty() ? 0 : q.zero_point[0];
  const int64_t lo = qmin(dtype), hi = qmax(dtype);
  std::vector<float> x(static_cast<std::size_t>(value.numel()));
  value.copyContiguousTo(reinterpret_cast<std::byte *>(x.data()));
  std::vector<std::byte> bytes(x.size() * elementSize(dtype));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int64_t code = std::clamp<int64_t>(std::llround(x[i] / scale) + zero, lo, hi);
    switch (dtype) {
    case DType::UInt8: bytes[i] = static_cast<std::byte>(static_cast<uint8_t>(code)); break;
    case DType::Int8: bytes[i] = static_cast<std::byte>(static_cast<int8_t>(code)); break;
    case DType::Int16: {
      const auto v = static_cast<int16_t>(code);
      std::memcpy(&bytes[i * 2], &v, 2);
      break;
    }
    default: throw Error(label + ": input '" + tensor.name + "' has a quantized type the tool cannot fill from floats");
    }
  }
  return std::make_shared<const TensorData>(TensorData::fromBytes(dtype, value.sizes, std::move(bytes)));
}

} // namespace

bool matchesAnyGlob(const std::string &name, const std::vector<std::string> &globs) {
  if (globs.empty())
    return true;
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string &glob) { return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0; });
}

CaptureResult captureTensors(const CircleModel &model, uint32_t subgraph,
                             const std::vector<std::shared_ptr<const TensorData>> &inputs,
                             const std::vector<std::string> &globs, const std::string &label) {
  // The interpreter relies on a consistent model; a broken one is refused with the findings.
  checkCircleModel(model, label);
  if (subgraph >= model.subgraphs.size())
    throw Error(label + ": --subgraph " + std::to_string(subgraph) + " out of range (the model has " +
                std::to_string(model.subgraphs.size()) + " subgraphs)");
  auto copy = std::make_shared<CircleModel>(model);
  uint32_t run_subgraph = subgraph;
  if (calledByAnotherOperator(model, subgraph)) {
    CircleSubGraph extended = model.subgraphs[subgraph];
    extended.name += "_compare";
    run_subgraph = addSubgraph(*copy, std::move(extended));
  }
  CircleSubGraph &graph = copy->subgraphs[run_subgraph];

  CaptureResult result;
  const std::set<int32_t> inputs_set(graph.inputs.begin(), graph.inputs.end());
  std::set<int32_t> outputs_set(graph.outputs.begin(), graph.outputs.end());
  std::vector<CapturedTensor> wanted; // operator outputs to capture, in execution order
  for (std::size_t o = 0; o < graph.operators.size(); ++o)
    for (int32_t t : graph.operators[o].outputs) {
      if (t < 0)
        continue;
      const CircleTensor &tensor = graph.tensors[static_cast<std::size_t>(t)];
      if (isConstantTensor(*copy, tensor) || tensor.is_variable || inputs_set.count(t))
        continue;
      if (!matchesAnyGlob(tensor.name, globs))
        continue;
      wanted.push_back({static_cast<uint32_t>(t), static_cast<int32_t>(o), nullptr});
      if (outputs_set.insert(t).second)
        graph.outputs.push_back(t);
    }

  // Unsupported operators are listed by the interpreter; the label says which model has them.
  std::optional<CircleInterpreter> interpreter;
  try {
    interpreter.emplace(copy);
  } catch (const Error &e) {
    throw Error(label + ": " + e.what());
  }
  const auto expected = interpreter->inputs(run_subgraph);
  if (inputs.size() != expected.size())
    throw Error(label + " takes " + std::to_string(expected.size()) + " inputs but " + std::to_string(inputs.size()) +
                " were given");
  std::vector<std::shared_ptr<const TensorData>> given = inputs;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const CircleTensor &tensor = graph.tensors[static_cast<std::size_t>(graph.inputs[i])];
    if (given[i]->dtype == DType::Float32 && tensor.type != circle::TensorType::FLOAT32 && tensor.quantization &&
        !tensor.quantization->scale.empty())
      given[i] = quantizeInput(tensor, *given[i], label);
  }
  std::vector<std::shared_ptr<const TensorData>> outputs;
  try {
    outputs = interpreter->run(given, run_subgraph);
  } catch (const Error &e) {
    throw Error(label + ": " + e.what());
  }

  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const auto t = static_cast<uint32_t>(graph.inputs[i]);
    if (matchesAnyGlob(graph.tensors[t].name, globs))
      result.tensors.push_back({t, -1, given[i]});
  }
  for (CapturedTensor &c : wanted) {
    const auto position = std::find(graph.outputs.begin(), graph.outputs.end(), static_cast<int32_t>(c.tensor));
    c.value = outputs[static_cast<std::size_t>(position - graph.outputs.begin())];
    result.tensors.push_back(std::move(c));
  }
  return result;
}

} // namespace tico::circle_tool::compare
