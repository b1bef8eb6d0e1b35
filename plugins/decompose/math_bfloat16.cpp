// Arithmetic on bfloat16 tensors (add / sub / mul / div), which no Circle kernel computes in
// bfloat16: operands are cast to float32, the op runs in float32 and the result is cast back to
// bfloat16. This is what PyTorch's CPU kernels do for bfloat16 (convert to float, compute, round
// once to nearest even), so the result is the same bit for bit; the bfloat16 tensors themselves
// stay (CAST to and from BFLOAT16).
#include "decomposition.h"

namespace tico::decompose {

using passes::A;

namespace {

Replacement inFloat32(Builder &b, Node &n) {
  if (n.output()->dtype() != DType::BFloat16)
    return std::nullopt;
  std::vector<NamedArg> args;
  for (const NamedArg &named : n.args()) {
    Argument arg = named.value;
    if (arg.isValue() && arg.asValue()->isTensor() && arg.asValue()->dtype() != DType::Float32)
      arg = A(b.cast(arg.asValue(), DType::Float32));
    args.push_back(passes::kw(named.name, std::move(arg)));
  }
  // Every tensor operand is float32 now and numbers do not outrank tensors: the op is float32.
  Value *result = b.make(n.op().str(), std::move(args));
  return std::vector<Value *>{b.cast(result, DType::BFloat16)};
}

} // namespace

std::vector<Rule> mathBFloat16Rules() {
  std::vector<Rule> rules;
  for (const char *op : {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor"})
    rules.push_back({op, inFloat32});
  return rules;
}

} // namespace tico::decompose
