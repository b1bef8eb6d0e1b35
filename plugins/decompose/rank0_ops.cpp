// Ops on a 0-d (one-element) tensor, where the lowering's Circle form would be an operator on
// a rank-0 tensor that a runtime refuses (GATHER, TOPK_V2 and ARG_MAX need an axis) or
// miscomputes (onert 0.2 gives 0 for a rank-0 SOFTMAX, and crashes on some). The one element
// makes each op elementary:
//
//   index_select(x, 0, i), gather(x, 0, i) = x expanded to the result's shape (i can only be 0)
//   max / min(x, 0) = (x, 0)                topk(x, 1) = (x, 0)
//   scatter(x, 0, i, v) = v                 scatter_add(x, 0, i, s) = x + s
//   softmax(x) = exp(x - x), log_softmax(x) = x - x (1 and 0; NaN for an infinite or NaN x, as
//     PyTorch computes it)
//   linalg_vector_norm(x, ord) = |x| (ord != 0), x != 0 (ord = 0)
//   tile(x, ()) = x
//
// And three elementwise ops with no lowering, at any rank:
//   zero(x) = zeros_like(x)                 isreal(x) = ones_like(x, bool) for a real x
//   heaviside(x, v) = v where x == 0, else x > 0 (NaN gives 0, as PyTorch's kernel)
//   prelu(x, w) with a one-element w = where(x > 0, x, w x) (the lowering takes a 1-D w)
#include "decomposition.h"
#include "layout_rules.h"
#include "math_unary.h"

#include "tico/ir/shape_utils.h"
#include "tico/ir/tensor_data.h"

namespace tico::decompose {

using passes::A;
using rewrite::Ints;
using namespace unary;

namespace {

bool isRank0(const Value *x) { return x->isTensor() && x->rank() == 0; }

// x (one element) expanded to `out`'s static shape.
Value *spread(Builder &b, Value *x, const Value *out) {
  if (!isStatic(out->shape()))
    return nullptr;
  if (out->rank() == 0)
    return b.make("aten::alias.default", {A(x)});
  return b.expand(x, out->shape());
}

Replacement selectOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isRank0(x))
    return std::nullopt;
  Value *v = spread(b, x, n.output());
  return v ? Replacement(std::vector<Value *>{v}) : std::nullopt;
}

Value *zeroIndex(Builder &b, const Value *like) {
  return b.scalarConstant(like->dtype(), 0.0, "index");
}

// max.dim / min.dim / topk of a 0-d tensor: the value and index 0.
Replacement extremeOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isRank0(x) || n.numOutputs() != 2)
    return std::nullopt;
  if (const Argument *k = n.findArg("k"); k != nullptr && (!k->isInt() || k->asInt() != 1))
    return std::nullopt;
  if (!isStatic(n.output(0)->shape()) || !isStatic(n.output(1)->shape()))
    return std::nullopt; // checked before any node is built (spread needs static shapes)
  Value *values = spread(b, x, n.output(0));
  Value *index = zeroIndex(b, n.output(1));
  return std::vector<Value *>{values, n.output(1)->rank() == 0 ? index : spread(b, index, n.output(1))};
}

Replacement scatterOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isRank0(x))
    return std::nullopt;
  const Argument &source = n.findArg("src") ? n.arg("src") : n.arg("value");
  Value *written = source.isValue() ? source.asValue() : b.scalarConstant(x->dtype(), source.asDouble(), "value");
  if (written->rank() != 0 || written->dtype() != x->dtype())
    return std::nullopt;
  if (n.op().name == "scatter_add")
    return std::vector<Value *>{b.add(A(x), A(written))};
  return std::vector<Value *>{b.make("aten::alias.default", {A(written)})};
}

Replacement softmaxOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isRank0(x) || !isFloat32(x) || n.output()->dtype() != DType::Float32)
    return std::nullopt;
  Value *zero = b.sub(A(x), A(x)); // 0, or NaN for an infinite or NaN x
  const bool log_form = n.op().name.find("log_softmax") != std::string::npos;
  return std::vector<Value *>{log_form ? zero : exp(b, zero)};
}

Replacement vectorNormOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isRank0(x) || !isFloat32(x) || n.output()->dtype() != DType::Float32)
    return std::nullopt;
  const double ord = numberArg(n, "ord", 2.0);
  if (ord == 0.0)
    return std::vector<Value *>{b.cast(b.make("aten::ne.Scalar", {A(x), A(0.0)}), DType::Float32)};
  return std::vector<Value *>{abs(b, x)};
}

Replacement tileOfRank0(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto dims = staticInts(n.arg("dims"));
  if (!isRank0(x) || !dims || !dims->empty())
    return std::nullopt;
  return std::vector<Value *>{b.make("aten::alias.default", {A(x)})};
}

Replacement zero(Builder &b, Node &n) {
  Value *x = n.input("self");
  return std::vector<Value *>{b.typed("aten::zeros_like.default", {rewrite::kw("self", A(x))}, x->dtype(), x->shape())};
}

Replacement isreal(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->dtype() == DType::Complex64 || x->dtype() == DType::Complex128)
    return std::nullopt;
  return std::vector<Value *>{b.typed("aten::ones_like.default",
                                      {rewrite::kw("self", A(x)), rewrite::kw("dtype", Argument::scalarType(DType::Bool))},
                                      DType::Bool, x->shape())};
}

Replacement heaviside(Builder &b, Node &n) {
  Value *x = n.input("self"), *values = n.input("values");
  if (!isFloat32(x) || !isFloat32(values))
    return std::nullopt;
  Value *step = b.cast(gt(b, x, 0.0), DType::Float32);
  return std::vector<Value *>{where(b, b.make("aten::eq.Scalar", {A(x), A(0.0)}), A(values), A(step))};
}

Replacement preluOfScalarWeight(Builder &b, Node &n) {
  Value *x = n.input("self"), *w = n.input("weight");
  if (!isFloat32(x) || !isFloat32(w) || !isStatic(w->shape()) || checkedProduct(hintSizes(w->shape())) != 1 ||
      w->rank() > 1 || (w->rank() == 1 && x->rank() >= 2))
    return std::nullopt; // a 1-D weight over channels: the lowering's PRELU
  Value *slope = w->rank() == 0 ? w : b.make("aten::reshape.default", {A(w), Ints({})});
  return std::vector<Value *>{where(b, gt(b, x, 0.0), A(x), A(b.mul(A(x), A(slope))))};
}

} // namespace

std::vector<Rule> rank0Rules() {
  return {{"aten::index_select.default", selectOfRank0},
          {"aten::gather.default", selectOfRank0},
          {"aten::max.dim", extremeOfRank0},
          {"aten::min.dim", extremeOfRank0},
          {"aten::topk.default", extremeOfRank0},
          {"aten::scatter.value", scatterOfRank0},
          {"aten::scatter.src", scatterOfRank0},
          {"aten::scatter_add.default", scatterOfRank0},
          {"aten::_softmax.default", softmaxOfRank0},
          {"aten::softmax.int", softmaxOfRank0},
          {"aten::_log_softmax.default", softmaxOfRank0},
          {"aten::log_softmax.int", softmaxOfRank0},
          {"aten::linalg_vector_norm.default", vectorNormOfRank0},
          {"aten::tile.default", tileOfRank0},
          {"aten::zero.default", zero},
          {"aten::isreal.default", isreal},
          {"aten::heaviside.default", heaviside},
          {"aten::prelu.default", preluOfScalarWeight}};
}

} // namespace tico::decompose
