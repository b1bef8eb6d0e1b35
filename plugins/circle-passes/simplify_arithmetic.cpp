// simplify-arithmetic: shortens float32 arithmetic with scalar constants.
//
//   (x * a) * b, (x * a) / b, (x / a) * b      -> x * k      (k computed once)
//   (x / a) / b                                -> x / (a*b)
//   (x + a) + b, (x + a) - b, (x - a) + b      -> x + s
//   (x - a) - b                                -> x - (a+b)
//   x / SQRT(y)                                -> x * RSQRT(y)
// a and b are one-element constants (the folded constant is rank 0, so it never widens the
// result); the inner operator must have no other reader and no fused activation; the outer
// operator's activation is kept. 1 / SQRT(y) is left to fuse-composite-ops (-> RSQRT(y)).
// Reassociation changes results by float rounding only.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <cmath>

namespace tico::circle_passes {
namespace {

bool mulFamily(BuiltinOperator c) { return c == BuiltinOperator::MUL || c == BuiltinOperator::DIV; }
bool addFamily(BuiltinOperator c) { return c == BuiltinOperator::ADD || c == BuiltinOperator::SUB; }

// (operand, scalar) of a binary op with one scalar float constant; the constant must be on
// the right for DIV and SUB.
std::optional<std::pair<int32_t, double>> scalarForm(const SubgraphEditor &e, int op) {
  const CircleOperator &o = e.op(op);
  if (o.inputs.size() != 2 || o.outputs.size() != 1)
    return std::nullopt;
  const bool commutative = e.code(op) == BuiltinOperator::MUL || e.code(op) == BuiltinOperator::ADD;
  for (int k = 1; k >= (commutative ? 0 : 1); --k) {
    const int32_t c = o.inputs[k], x = o.inputs[1 - k];
    if (!e.validTensor(x) || !isPlainFloat32(e.tensor(x)) || !e.isConstantTensor(c) ||
        e.tensor(c).type != circle::TensorType::FLOAT32 || isQuantized(e.tensor(c)) ||
        e.tensor(c).shape.size() > e.tensor(x).shape.size())
      continue;
    auto v = constantScalar(e, c);
    if (v)
      return std::pair{x, *v};
  }
  return std::nullopt;
}

template <typename Options> circle::BuiltinOptionsUnion withActivation(circle::ActivationFunctionType a) {
  Options o;
  o.fused_activation_function = a;
  return makeOptions(std::move(o));
}

circle::BuiltinOptionsUnion optionsFor(BuiltinOperator code, circle::ActivationFunctionType a) {
  switch (code) {
  case BuiltinOperator::MUL: return withActivation<circle::MulOptionsT>(a);
  case BuiltinOperator::DIV: return withActivation<circle::DivOptionsT>(a);
  case BuiltinOperator::ADD: return withActivation<circle::AddOptionsT>(a);
  default: return withActivation<circle::SubOptionsT>(a);
  }
}

bool combineChain(SubgraphEditor &e, int outer) {
  const BuiltinOperator oc = e.code(outer);
  auto o = scalarForm(e, outer);
  if (!o)
    return false;
  const auto [mid, b] = *o;
  const int inner = e.producer(mid);
  if (inner < 0 || !e.onlyUseIs(mid, outer) || !hasNoFusedActivation(e.op(inner)))
    return false;
  const BuiltinOperator ic = e.code(inner);
  if (!(mulFamily(oc) && mulFamily(ic)) && !(addFamily(oc) && addFamily(ic)))
    return false;
  auto in = scalarForm(e, inner);
  if (!in)
    return false;
  const auto [x, a] = *in;
  const int32_t out = e.op(outer).outputs[0];
  if (!sameContract(e.tensor(x), e.tensor(out)))
    return false;
  BuiltinOperator code;
  double k;
  if (mulFamily(oc)) {
    if (ic == BuiltinOperator::DIV && oc == BuiltinOperator::DIV) {
      code = BuiltinOperator::DIV, k = a * b;
    } else {
      code = BuiltinOperator::MUL;
      k = (ic == BuiltinOperator::MUL ? a : 1.0 / a) * (oc == BuiltinOperator::MUL ? b : 1.0 / b);
    }
  } else if (ic == BuiltinOperator::SUB && oc == BuiltinOperator::SUB) {
    code = BuiltinOperator::SUB, k = a + b;
  } else {
    code = BuiltinOperator::ADD;
    k = (ic == BuiltinOperator::ADD ? a : -a) + (oc == BuiltinOperator::ADD ? b : -b);
  }
  if (!std::isfinite(k))
    return false;
  int32_t constant = e.addConstant(circle::TensorType::FLOAT32, {}, payloadFromFloats({}, {static_cast<float>(k)}),
                                   derivedName(e, out, "scalar"));
  auto activation = fusedActivationOf(e.op(outer)).value_or(circle::ActivationFunctionType::NONE);
  replaceOp(e, outer, code, {x, constant}, optionsFor(code, activation));
  return true;
}

bool sqrtDivisor(SubgraphEditor &e, int i) {
  const CircleOperator &div = e.op(i);
  if (div.inputs.size() != 2 || div.outputs.size() != 1)
    return false;
  const int32_t x = div.inputs[0], root = div.inputs[1];
  if (!e.validTensor(x) || !e.validTensor(root) || !isPlainFloat32(e.tensor(root)) ||
      (e.isConstantTensor(x) && constantIsSplat(e.model(), e.tensor(x), 1.0)))
    return false;
  const int sqrt = e.producer(root);
  if (sqrt < 0 || e.code(sqrt) != BuiltinOperator::SQRT || e.op(sqrt).inputs.size() != 1 || !e.onlyUseIs(root, i))
    return false;
  const int32_t y = e.op(sqrt).inputs[0];
  int32_t inverse = e.addTensorLike(root, e.tensor(root).shape, derivedName(e, root, "rsqrt"));
  e.tensor(inverse).shape_signature = e.tensor(root).shape_signature;
  e.addOp(BuiltinOperator::RSQRT, {y}, {inverse}, circle::BuiltinOptionsUnion{}, i);
  auto activation = fusedActivationOf(e.op(i)).value_or(circle::ActivationFunctionType::NONE);
  replaceOp(e, i, BuiltinOperator::MUL, {x, inverse}, optionsFor(BuiltinOperator::MUL, activation));
  e.removeOp(sqrt);
  return true;
}

class SimplifyArithmetic final : public CirclePass {
public:
  explicit SimplifyArithmetic(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      switch (e.code(i)) {
      case BuiltinOperator::DIV: return sqrtDivisor(e, i) || combineChain(e, i);
      case BuiltinOperator::MUL:
      case BuiltinOperator::ADD:
      case BuiltinOperator::SUB: return combineChain(e, i);
      default: return false;
      }
    });
  }
};

} // namespace

void registerSimplifyArithmetic(Registrar &r) {
  registerCirclePass<SimplifyArithmetic>(
      r, "simplify-arithmetic",
      "combine chains of scalar MUL/DIV and ADD/SUB into one operator; x / SQRT(y) -> x * RSQRT(y)");
}

} // namespace tico::circle_passes
