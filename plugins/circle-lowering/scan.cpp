// cumsum -> CUMSUM along the normalised dim (int32 axis operand).
//
// The input is cast to the result dtype first: PyTorch accumulates integers (and bools) in
// int64, and a dtype argument chooses the accumulation type.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Cumsum final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    DType out = node.output()->dtype();
    if (out != DType::Float32 && out != DType::Int32 && out != DType::Int64)
      return "CUMSUM producing " + std::string(torchDTypeName(out)) + " is not supported";
    if (!isNumericDType(in->dtype()))
      return "cumsum of " + std::string(torchDTypeName(in->dtype())) + " tensors is not supported";
    normalizeDim(node.arg("dim").asInt(), in->rank());
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    int32_t x = castedTensor(emit, in, out->dtype(), node.name() + "_input");
    if (in->rank() == 0) {
      emitIdentity(emit, x, 0, emit.tensor(out), node.name());
      return;
    }
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    int32_t axis = emit.constant(
        std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {}, {toInt32(dim, "dim")})),
        node.name() + "_axis");
    emitOp(emit, circle::BuiltinOperator::CUMSUM, {x, axis}, out, options(circle::CumsumOptionsT{}));
  }
};

} // namespace

void registerScan(Registrar &r) {
  registerFor(r, {ops::aten::cumsum_default}, "CUMSUM (input cast to the accumulation dtype)",
              std::make_shared<Cumsum>());
}

} // namespace tico::lowering
