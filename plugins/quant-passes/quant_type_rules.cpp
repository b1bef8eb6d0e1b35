// Result types of the quantization ops. quantize_* produce the storage dtype their `dtype`
// argument names, dequantize_* float32 (or their `out_dtype`), fake_quantize_* the input's type;
// every one keeps the input's shape. The cachemask forms add a bool mask of the same shape.
#include "quant_passes.h"

#include "tico/ir/graph.h"
#include "tico/rewrite/type_rule.h"

#include <string>
#include <vector>

namespace tico::quant_passes {
namespace {

using Types = std::vector<TensorTypeSpec>;

TensorTypeSpec tensorType(DType dtype, Shape shape) {
  TensorTypeSpec t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

// The tensor the op quantizes (its first argument, `input` or `self`).
const Value *quantizedInput(const Node &node, std::string *why) {
  if (node.numArgs() == 0 || !node.arg(0).isValue() || !node.arg(0).asValue()->isTensor()) {
    *why = node.op().str() + ": the first argument is not a tensor";
    return nullptr;
  }
  return node.arg(0).asValue();
}

std::optional<Types> quantizeRule(const Node &node, std::string *why) {
  const Value *x = quantizedInput(node, why);
  if (x == nullptr)
    return std::nullopt;
  const Argument *dtype = node.findArg("dtype");
  if (dtype == nullptr || dtype->kind() != Argument::Kind::ScalarType) {
    *why = node.op().str() + ": the 'dtype' argument is missing or not a dtype";
    return std::nullopt;
  }
  return Types{tensorType(dtype->asScalarType(), x->shape())};
}

std::optional<Types> dequantizeRule(const Node &node, std::string *why) {
  const Value *x = quantizedInput(node, why);
  if (x == nullptr)
    return std::nullopt;
  DType out = DType::Float32; // the ops' default when out_dtype is None
  if (const Argument *out_dtype = node.findArg("out_dtype"); out_dtype != nullptr && !out_dtype->isNone()) {
    if (out_dtype->kind() != Argument::Kind::ScalarType) {
      *why = node.op().str() + ": 'out_dtype' is not a dtype";
      return std::nullopt;
    }
    out = out_dtype->asScalarType();
  }
  return Types{tensorType(out, x->shape())};
}

std::optional<Types> fakeQuantizeRule(const Node &node, std::string *why) {
  const Value *x = quantizedInput(node, why);
  if (x == nullptr)
    return std::nullopt;
  return Types{tensorType(x->dtype(), x->shape())};
}

std::optional<Types> fakeQuantizeCachemaskRule(const Node &node, std::string *why) {
  const Value *x = quantizedInput(node, why);
  if (x == nullptr)
    return std::nullopt;
  return Types{tensorType(x->dtype(), x->shape()), tensorType(DType::Bool, x->shape())};
}

} // namespace

void registerQuantTypeRules(Registrar &r) {
  // Every overload (.default, .tensor, .tensor2) shares its family's rule.
  r.addTypeRule("quantized_decomposed::quantize_per_tensor", quantizeRule);
  r.addTypeRule("quantized_decomposed::quantize_per_channel", quantizeRule);
  r.addTypeRule("quantized_decomposed::dequantize_per_tensor", dequantizeRule);
  r.addTypeRule("quantized_decomposed::dequantize_per_channel", dequantizeRule);
  r.addTypeRule("aten::fake_quantize_per_tensor_affine", fakeQuantizeRule);
  r.addTypeRule("aten::fake_quantize_per_channel_affine", fakeQuantizeRule);
  r.addTypeRule("aten::fake_quantize_per_tensor_affine_cachemask", fakeQuantizeCachemaskRule);
  r.addTypeRule("aten::fake_quantize_per_channel_affine_cachemask", fakeQuantizeCachemaskRule);
  r.addTypeRule("aten::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams", fakeQuantizeCachemaskRule);
}

} // namespace tico::quant_passes
