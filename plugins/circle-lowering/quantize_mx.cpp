// circle_custom::quantize_mx -> QUANTIZE (float -> MX, or MX -> MX).
//
// fold-mx-quant-ops (stage `quantize`, docs/quantization.md "MX") folds most quantize_mx /
// dequantize_mx pairs into MX-quantized tensors; a quantize_mx it keeps (its input is also read
// unquantized, is returned, is a constant or is MX-quantized another way) carries the MX
// parameters on its result, and Circle computes it as QUANTIZE into an MXINT8 / MXFP4 tensor,
// as the original does. Without the stage the node has no parameters and is reported.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/circle_ops.h"

namespace tico::lowering {
namespace {

class QuantizeMx final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    if (!out->isMxQuantized())
      return "result '" + out->name() + "' has no MX quantization (the quantize stage's fold-mx-quant-ops gives it)";
    if (in->dtype() != DType::Float32 || in->isQuantized())
      return "QUANTIZE to MX reads a float32 tensor; '" + in->name() + "' is " +
             std::string(torchDTypeName(in->dtype())) + (in->isQuantized() ? " (affine-quantized)" : "");
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, circle::BuiltinOperator::QUANTIZE, {emit.tensor(node.input(0))}, node.output(),
           circle::BuiltinOptionsUnion{});
  }
};

} // namespace

void registerQuantizeMx(Registrar &r) {
  registerFor(r, {ops::circle_custom::quantize_mx_default}, "QUANTIZE (float -> MX, MX -> MX)",
              std::make_shared<QuantizeMx>());
}

} // namespace tico::lowering
