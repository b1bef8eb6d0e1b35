#include "fold_on_runtime.h"

#include "tico/support/error.h"

#include <map>

namespace tico::circle_passes {
namespace {

// The operator alone: its constant inputs keep their buffers (shared TensorData), its outputs
// keep their declared type, shape and quantization, and the subgraph returns them.
std::shared_ptr<CircleModel> oneOperatorModel(const SubgraphEditor &e, int op) {
  const CircleModel &source = e.model();
  const CircleOperator &original = e.op(op);
  auto model = std::make_shared<CircleModel>();
  model->operator_codes.push_back(source.operator_codes.at(original.opcode_index));
  CircleSubGraph &g = model->subgraphs.emplace_back();
  g.name = "fold";
  std::map<int32_t, int32_t> renumbered;
  auto tensorFor = [&](int32_t t, bool with_data) {
    auto [it, added] = renumbered.emplace(t, static_cast<int32_t>(g.tensors.size()));
    if (!added)
      return it->second;
    CircleTensor copy = e.tensor(t);
    copy.buffer = with_data ? model->addBuffer(source.buffers.at(copy.buffer).data) : 0;
    g.tensors.push_back(std::move(copy));
    return it->second;
  };
  CircleOperator &copy = g.operators.emplace_back();
  copy.opcode_index = 0;
  copy.builtin_options = original.builtin_options;
  copy.custom_options = original.custom_options;
  for (int32_t t : original.inputs)
    copy.inputs.push_back(t < 0 ? t : tensorFor(t, true));
  for (int32_t t : original.outputs)
    copy.outputs.push_back(tensorFor(t, false));
  g.outputs = copy.outputs;
  return model;
}

} // namespace

std::optional<std::vector<std::shared_ptr<const TensorData>>> evaluateOnRuntime(Runtime &runtime,
                                                                               const SubgraphEditor &e, int op) {
  try {
    auto results = runtime.prepare(oneOperatorModel(e, op))->run({});
    const auto &outputs = e.op(op).outputs;
    if (results.size() != outputs.size())
      return std::nullopt;
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const CircleTensor &declared = e.tensor(outputs[k]);
      const std::vector<int64_t> shape(declared.shape.begin(), declared.shape.end());
      if (!results[k] || results[k]->sizes != shape || toCircleType(results[k]->dtype) != declared.type)
        return std::nullopt;
    }
    return results;
  } catch (const Error &) {
    return std::nullopt; // not supported, or fails on these values: it stays a run-time operator
  }
}

} // namespace tico::circle_passes
