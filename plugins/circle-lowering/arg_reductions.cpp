// max.dim / min.dim -> REDUCE_MAX / REDUCE_MIN for the values and ARG_MAX / ARG_MIN (INT64) for
// the indices (each emitted only when used); argmax / argmin -> ARG_MAX / ARG_MIN.
//
// ARG_MAX / ARG_MIN drop the reduced dim; keepdim restores it with EXPAND_DIMS. argmax without
// a dim reduces the flattened tensor. Both PyTorch and Circle return the first of several
// equal extremes.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

bool used(const Node &node, std::size_t output) {
  if (output >= node.numOutputs())
    return false;
  const Value *v = node.output(output);
  return v->hasUsers() || node.graph()->isGraphOutput(v);
}

// ARG_MAX / ARG_MIN of `x` (shape `shape`) over `axis`, written to `output` (`out_shape`),
// with the reduced dim kept as size 1 when `keepdim`.
void emitArg(CircleEmitter &emit, bool max, int32_t x, const Shape &shape, int64_t axis, bool keepdim,
             int32_t output, const std::string &base) {
  circle::BuiltinOptionsUnion opts;
  if (max) {
    circle::ArgMaxOptionsT o;
    o.output_type = circle::TensorType::INT64;
    opts = options(std::move(o));
  } else {
    circle::ArgMinOptionsT o;
    o.output_type = circle::TensorType::INT64;
    opts = options(std::move(o));
  }
  auto op = max ? circle::BuiltinOperator::ARG_MAX : circle::BuiltinOperator::ARG_MIN;
  int32_t axis_t = emit.constInt32({toInt32(axis, "dim")}, base + "_axis");
  if (!keepdim) {
    emit.addOperator(op, {x, axis_t}, {output}, std::move(opts));
    return;
  }
  Shape reduced = shape;
  reduced.erase(reduced.begin() + axis);
  int32_t r = emit.newTensor(DType::Int64, reduced, base + "_reduced");
  emit.addOperator(op, {x, axis_t}, {r}, std::move(opts));
  emit.addOperator(circle::BuiltinOperator::EXPAND_DIMS, {r, emit.constInt32({toInt32(axis, "dim")}, base + "_kept")},
                   {output}, options(circle::ExpandDimsOptionsT{}));
}

std::string checkInput(const Value *in) {
  if (in->dtype() == DType::Bool || !isNumericDType(in->dtype()) || in->dtype() == DType::Float64)
    return "arg reductions of " + std::string(torchDTypeName(in->dtype())) + " tensors are not supported";
  return {};
}

// max.dim / min.dim: (values, indices).
class ExtremeAlongDim final : public CheckedLowering {
public:
  explicit ExtremeAlongDim(bool max) : max_(max) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "max/min along a dim of a 0-D tensor";
    normalizeDim(node.arg("dim").asInt(), in->rank());
    return checkInput(in);
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    bool keepdim = node.arg("keepdim").asBool();
    int32_t x = emit.tensor(in);
    if (used(node, 0))
      emitReduceInto(emit, max_ ? circle::BuiltinOperator::REDUCE_MAX : circle::BuiltinOperator::REDUCE_MIN, x,
                     in->dtype(), in->shape(), {dim}, keepdim, emit.tensor(node.output(0)), node.name() + "_values");
    if (used(node, 1))
      emitArg(emit, max_, x, in->shape(), dim, keepdim, emit.tensor(node.output(1)), node.name() + "_indices");
  }

private:
  bool max_;
};

// argmax / argmin (self, dim=None, keepdim).
class ArgExtreme final : public CheckedLowering {
public:
  explicit ArgExtreme(bool max) : max_(max) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    const Argument &dim = node.arg("dim");
    if (!dim.isNone())
      normalizeDim(dim.asInt(), in->rank());
    else if (countSymbolic(in->shape()) > 0 && node.arg("keepdim").asBool())
      return "argmax/argmin over all dims with keepdim of a symbolic shape is not supported";
    return checkInput(in);
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    const Argument &dim = node.arg("dim");
    if (!dim.isNone() && in->rank() > 0) {
      emitArg(emit, max_, emit.tensor(in), in->shape(), normalizeDim(dim.asInt(), in->rank()),
              node.arg("keepdim").asBool(), emit.tensor(out), base);
      return;
    }
    // Over every dim: flatten, reduce dim 0 (a rank-0 index), then reshape to the result.
    Shape flat{numElementsHint(in->shape())};
    if (countSymbolic(in->shape()) > 0)
      flat = {Dim::symbolic("numel(" + in->name() + ")", numElementsHint(in->shape()))};
    int32_t x = emit.newTensor(in->dtype(), flat, base + "_flat");
    emitReshapeInto(emit, emit.tensor(in), flat, nullptr, nullptr, x, base + "_flat");
    if (out->rank() == 0) {
      emitArg(emit, max_, x, flat, 0, false, emit.tensor(out), base);
      return;
    }
    int32_t index = emit.newTensor(DType::Int64, Shape{}, base + "_index");
    emitArg(emit, max_, x, flat, 0, false, index, base);
    emitReshapeInto(emit, index, out->shape(), nullptr, nullptr, emit.tensor(out), base);
  }

private:
  bool max_;
};

} // namespace

void registerArgReductions(Registrar &r) {
  registerFor(r, {ops::aten::max_dim}, "REDUCE_MAX (values) and ARG_MAX (indices, INT64)",
              std::make_shared<ExtremeAlongDim>(true));
  registerFor(r, {ops::aten::min_dim}, "REDUCE_MIN (values) and ARG_MIN (indices, INT64)",
              std::make_shared<ExtremeAlongDim>(false));
  registerFor(r, {ops::aten::argmax_default}, "ARG_MAX (INT64; flattened when dim is None)",
              std::make_shared<ArgExtreme>(true));
  registerFor(r, {ops::aten::argmin_default}, "ARG_MIN (INT64; flattened when dim is None)",
              std::make_shared<ArgExtreme>(false));
}

} // namespace tico::lowering
