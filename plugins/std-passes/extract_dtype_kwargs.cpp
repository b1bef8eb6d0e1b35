// extract-dtype-kwargs (ExtractDtypeKwargsPass): full_like(x, v, dtype=D) with D different from
// x's dtype becomes _to_copy(full_like(x, v), dtype=D), so every op but the cast keeps its
// input's dtype (what the Circle lowerings expect: e.g. full_like(x, 0, dtype=bool) for masks).
//
// The original converter rewrites every such full_like; that changes the result when the
// fill value does not survive x's dtype (full_like(int_x, 0.5, dtype=float) would become 0.0).
// Here the rewrite only happens when v is exactly representable in x's dtype, so the result
// is always the same as PyTorch's.
#include "pass_support.h"
#include "passes.h"

#include <cmath>
#include <limits>

namespace tico::passes {
namespace {

bool representable(double v, DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return std::isnan(v) || static_cast<double>(static_cast<float>(v)) == v;
  case DType::Float64:
    return true;
  case DType::Bool:
    return v == 0.0 || v == 1.0;
  case DType::UInt8:
    return v == std::floor(v) && v >= 0 && v <= 255;
  case DType::Int8:
    return v == std::floor(v) && v >= -128 && v <= 127;
  case DType::Int16:
    return v == std::floor(v) && v >= -32768 && v <= 32767;
  case DType::Int32:
    return v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
  case DType::Int64:
    return v == std::floor(v) && std::abs(v) <= 9007199254740992.0; // exact in the double we hold
  default:
    return false; // 16-bit floats and the rest: not worth the risk
  }
}

bool extractDtype(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  Graph &graph = rewriter.graph();
  const Argument &dtype_arg = node->arg("dtype");
  Value *x = node->input(0);
  if (dtype_arg.isNone() || dtype_arg.asScalarType() == x->dtype())
    return false;
  auto fill = numberOf(node->arg("fill_value"));
  if (!fill || !representable(*fill, x->dtype()))
    return false;
  const DType target = dtype_arg.asScalarType();
  Value *out = node->output();
  node->setArg("dtype", Argument::none());
  out->setType(x->dtype(), out->shape());
  Builder b = rewriter.builder(nodeAfter(graph, node), node->name());
  Value *cast = b.cast(out, target);
  replaceUsesExceptReader(graph, out, cast, cast->producer());
  return true;
}

} // namespace

void registerExtractDtypeKwargs(Registrar &r) {
  r.addPass(sweepPass("extract-dtype-kwargs", "Move the dtype= of full_like into a following _to_copy (when exact)",
                      {"aten::full_like.default"}, extractDtype));
}

} // namespace tico::passes
