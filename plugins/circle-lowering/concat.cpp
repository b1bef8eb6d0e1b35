// cat -> CONCATENATION along the normalised dim. Inputs of another dtype are CAST to the
// result's (PyTorch promotes); the legacy empty 1-D inputs PyTorch ignores are skipped.
// stack -> PACK (a new dim), with the same casts.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

bool isLegacyEmpty(const Value *v) {
  return v->rank() == 1 && v->shape()[0].isStatic() && v->shape()[0].value() == 0;
}

std::vector<const Value *> effectiveInputs(const Node &node) {
  std::vector<const Value *> inputs;
  for (const Value *v : node.arg(0).asValues())
    if (!(isLegacyEmpty(v) && node.output()->rank() != 1))
      inputs.push_back(v);
  return inputs;
}

class Concat final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    auto inputs = effectiveInputs(node);
    if (inputs.empty())
      return "cat of no (non-empty) tensors";
    normalizeDim(node.arg(1).asInt(), node.output()->rank());
    inputs.push_back(node.output());
    // Quantized CONCATENATION requantizes inputs with other parameters than the output's, but
    // reads and writes one type.
    if (anyQuantized(inputs))
      return quantizedSameType(inputs, "CONCATENATION");
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    auto inputs = effectiveInputs(node);
    std::vector<int32_t> tensors;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      tensors.push_back(castedTensor(emit, inputs[i], out->dtype(), node.name() + "_input" + std::to_string(i)));
    if (tensors.size() == 1) {
      emitIdentity(emit, tensors.front(), out->rank(), emit.tensor(out), node.name());
      return;
    }
    circle::ConcatenationOptionsT concat;
    concat.axis = toInt32(normalizeDim(node.arg(1).asInt(), out->rank()), "dim");
    emit.addOperator(circle::BuiltinOperator::CONCATENATION, tensors, {emit.tensor(out)}, options(std::move(concat)));
  }
};

class Stack final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.arg(0).asValues().empty())
      return "stack of no tensors";
    normalizeDim(node.arg(1).asInt(), node.output()->rank());
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    const auto &inputs = node.arg(0).asValues();
    int64_t dim = normalizeDim(node.arg(1).asInt(), out->rank());
    std::vector<int32_t> tensors;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      tensors.push_back(castedTensor(emit, inputs[i], out->dtype(), node.name() + "_input" + std::to_string(i)));
    circle::PackOptionsT pack;
    pack.values_count = static_cast<int32_t>(tensors.size());
    pack.axis = toInt32(dim, "dim");
    emit.addOperator(circle::BuiltinOperator::PACK, tensors, {emit.tensor(out)}, options(std::move(pack)));
  }
};

} // namespace

void registerConcat(Registrar &r) {
  registerFor(r, {ops::aten::cat_default}, "CONCATENATION", std::make_shared<Concat>());
  registerFor(r, {ops::aten::stack_default}, "PACK", std::make_shared<Stack>());
}

} // namespace tico::lowering
