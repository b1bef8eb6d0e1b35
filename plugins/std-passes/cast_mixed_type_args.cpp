// cast-mixed-type-args (CastMixedTypeArgs): a binary elementwise op whose two operands have
// different dtypes gets the operand that is not of PyTorch's promoted dtype cast to it, so
// the Circle operator sees one dtype (PyTorch computes in the promoted dtype too, so nothing
// changes numerically):
//   tensor operand -> _to_copy(x, dtype=promoted) before the op
//   number operand -> the number of the promoted kind (2 -> 2.0 for a float op) when the
//                     promoted dtype is float32/int64/bool, which a plain number stands for;
//                     otherwise (e.g. int32, float16) a rank-0 constant of the promoted dtype,
//                     only when preserve_ep_invariant is false (the relaxed-invariant stage)
// Ops: add, sub, mul, div (.Tensor), minimum, pow.Tensor_Scalar, eq/ne/gt/ge/le (.Tensor,
// .Scalar) as in the original converter, plus lt, which the original leaves out.
#include "pass_support.h"
#include "sweep_with_options.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

const std::string_view kOps[] = {
    "aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor",  "aten::div.Tensor",
    "aten::minimum.default", "aten::pow.Tensor_Scalar", "aten::eq.Scalar", "aten::eq.Tensor",
    "aten::ne.Scalar", "aten::ne.Tensor", "aten::gt.Scalar", "aten::gt.Tensor",
    "aten::ge.Scalar", "aten::ge.Tensor", "aten::le.Scalar", "aten::le.Tensor",
    "aten::lt.Scalar", "aten::lt.Tensor"};

std::optional<DType> operandDType(const Argument &a) {
  if (a.isNumber())
    return numberDType(a);
  if (isTensorValue(a))
    return a.asValue()->dtype();
  return std::nullopt;
}

// The rewrite of one binary op; `preserve` is the option preserve_ep_invariant.
bool castMixedArgs(Node &node, rewrite::Rewriter &rewriter, bool preserve) {
  if (node.numArgs() < 2)
    return false;
  auto lhs = operandDType(node.arg(0)), rhs = operandDType(node.arg(1));
  if (!lhs || !rhs || *lhs == *rhs)
    return false;
  const DType promoted = resultType({&node.arg(0), &node.arg(1)});
  if (promoted == DType::Unknown)
    return false;
  bool changed = false;
  for (std::size_t i = 0; i < 2; ++i) {
    const Argument arg = node.arg(i);
    if (*operandDType(arg) == promoted)
      continue;
    if (arg.isValue()) {
      Builder b = rewriter.builderFor(node);
      rewriter.setArg(&node, i, A(b.cast(arg.asValue(), promoted)));
      changed = true;
      continue;
    }
    const double v = arg.asDouble();
    if (promoted == DType::Float32) {
      rewriter.setArg(&node, i, Argument::real(v));
    } else if (promoted == DType::Int64) {
      if (arg.isFloat())
        continue; // a float never promotes to an integer; nothing sensible to do
      rewriter.setArg(&node, i, Argument::integer(arg.asInt()));
    } else if (promoted == DType::Bool) {
      rewriter.setArg(&node, i, Argument::boolean(v != 0.0));
    } else if (!preserve) {
      Builder b = rewriter.builderFor(node);
      rewriter.setArg(&node, i, A(b.scalarConstant(promoted, v, "_scalar")));
    } else {
      continue;
    }
    changed = true;
  }
  return changed;
}

} // namespace

void registerCastMixedTypeArgs(Registrar &r) {
  r.addPass(sweepPass(
      "cast-mixed-type-args", "Cast the operand of a mixed-dtype binary op to PyTorch's promoted dtype",
      {OptionSpec{"preserve_ep_invariant", OptionType::Bool, true,
                  "keep number operands numbers: do not turn them into rank-0 constants of dtypes a "
                  "number cannot stand for (int32, float16, ...)"}},
      kOps, [](const Options &o) -> rewrite::RewriteFn {
        return [preserve = o.getBool("preserve_ep_invariant")](Node &node, rewrite::Rewriter &rewriter) {
          return castMixedArgs(node, rewriter, preserve);
        };
      }));
}

} // namespace tico::passes
