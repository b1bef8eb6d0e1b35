// cse: common subexpression elimination.
//
// Two operators compute the same values when they have the same operator code (builtin,
// custom code and version), the same input tensors in the same order, the same options and
// custom options, and outputs with the same contracts (type, shape, signature, quantization).
// The later one is removed and its readers use the earlier one's outputs. Operators with
// effects are never merged (see hasSideEffects), nor is an operator one of whose outputs is a
// subgraph output: the interface keeps its tensors. Run `deduplicate-constants` first so
// that equal constant operands are the same tensor, and `dce`/`compact` after.
#include "model_query.h"
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

#include <cstring>
#include <map>

namespace tico::circle_passes {
namespace {

template <typename T> void append(std::string &key, const T &value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof(T));
}

void appendVector(std::string &key, const void *data, std::size_t bytes) {
  append(key, static_cast<uint64_t>(bytes));
  key.append(static_cast<const char *>(data), bytes);
}

void appendContract(std::string &key, const CircleTensor &t) {
  append(key, static_cast<int32_t>(t.type));
  appendVector(key, t.shape.data(), t.shape.size() * sizeof(int32_t));
  appendVector(key, t.shape_signature.data(), t.shape_signature.size() * sizeof(int32_t));
  const auto *q = t.quantization.get();
  if (q && isQuantized(t)) {
    appendVector(key, q->scale.data(), q->scale.size() * sizeof(float));
    appendVector(key, q->zero_point.data(), q->zero_point.size() * sizeof(int64_t));
    append(key, q->quantized_dimension);
    append(key, reinterpret_cast<uintptr_t>(q->details.type == circle::QuantizationDetails::NONE ? nullptr : q));
  }
}

std::string expressionKey(const SubgraphEditor &editor, int i) {
  const CircleOperator &op = editor.op(i);
  const CircleModel &model = editor.model();
  std::string key;
  append(key, static_cast<int32_t>(builtinOf(model, op)));
  const std::string &custom = customCodeOf(model, op);
  appendVector(key, custom.data(), custom.size());
  append(key, versionOf(model, op));
  appendVector(key, op.inputs.data(), op.inputs.size() * sizeof(int32_t));
  std::vector<uint8_t> options = optionsBytes(op.builtin_options);
  appendVector(key, options.data(), options.size());
  appendVector(key, op.custom_options.data(), op.custom_options.size());
  append(key, static_cast<uint64_t>(op.outputs.size()));
  for (int32_t t : op.outputs) {
    append(key, t >= 0);
    if (editor.validTensor(t))
      appendContract(key, editor.tensor(t));
  }
  return key;
}

void eliminate(SubgraphEditor &editor) {
  std::map<std::string, int> seen;
  for (int i = 0; i < editor.operatorCount(); ++i) {
    if (!editor.alive(i) || editor.sideEffects(i) || editor.op(i).outputs.empty())
      continue;
    bool interface = false, valid = true;
    for (int32_t t : editor.op(i).outputs) {
      valid &= editor.validTensor(t);
      interface |= editor.isGraphOutput(t);
    }
    if (!valid)
      continue;
    std::string key = expressionKey(editor, i);
    auto [it, inserted] = seen.emplace(std::move(key), i);
    if (inserted || interface)
      continue;
    const std::vector<int32_t> keep = editor.op(it->second).outputs;
    const std::vector<int32_t> drop = editor.op(i).outputs;
    for (std::size_t k = 0; k < drop.size(); ++k)
      editor.replaceUses(drop[k], keep[k]);
    editor.removeOp(i);
  }
}

class CommonSubexpressionElimination final : public CirclePass {
public:
  explicit CommonSubexpressionElimination(const Options &) {}

  bool run(CircleModel &model, PassContext &) override { return forEachSubgraph(model, eliminate); }
};

} // namespace

void registerCse(Registrar &r) {
  registerCirclePass<CommonSubexpressionElimination>(
      r, "cse", "merge operators that compute the same values from the same inputs (pure operators only)");
}

} // namespace tico::circle_passes
