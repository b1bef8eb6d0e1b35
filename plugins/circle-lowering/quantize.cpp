// quantized_decomposed quantize / dequantize -> QUANTIZE / DEQUANTIZE.
//
// After the quantization bundle (stage `quantize` of the default pipeline, docs/quantization.md)
// the quantize/dequantize nodes left in a graph are the ones Circle computes: a quantize of a
// float model input (float -> quantized), a requantize between two sets of parameters (quantized
// -> quantized), and a dequantize before a graph output or a float op (quantized -> float). The
// quantized tensors carry their parameters (Value::quant), which the serializer writes; a node
// whose quantized side has none (the bundle did not run, or the qparams are run-time tensors)
// is reported, not lowered.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Quantize final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    if (!out->isQuantized())
      return "result '" + out->name() + "' has no quantization parameters (the quantization stage of the pipeline "
             "gives them; run-time qparams cannot be converted)";
    if (in->dtype() != DType::Float32 && !in->isQuantized())
      return "QUANTIZE reads float32 or a quantized tensor; '" + in->name() + "' is " +
             std::string(torchDTypeName(in->dtype())) + " without quantization parameters";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, circle::BuiltinOperator::QUANTIZE, {emit.tensor(node.input(0))}, node.output(),
           circle::BuiltinOptionsUnion{});
  }
};

class Dequantize final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (!in->isQuantized())
      return "input '" + in->name() + "' has no quantization parameters (the quantization stage of the pipeline "
             "gives them; run-time qparams cannot be converted)";
    if (node.output()->dtype() != DType::Float32)
      return "DEQUANTIZE produces float32 here; the result is " + std::string(torchDTypeName(node.output()->dtype()));
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, circle::BuiltinOperator::DEQUANTIZE, {emit.tensor(node.input(0))}, node.output(),
           circle::BuiltinOptionsUnion{});
  }
};

} // namespace

void registerQuantize(Registrar &r) {
  namespace qd = ops::quantized_decomposed;
  registerFor(r, {qd::quantize_per_tensor_default, qd::quantize_per_channel_default},
              "QUANTIZE (float -> quantized, or requantize)", std::make_shared<Quantize>());
  registerFor(r, {qd::dequantize_per_tensor_default, qd::dequantize_per_channel_default}, "DEQUANTIZE",
              std::make_shared<Dequantize>());
}

} // namespace tico::lowering
