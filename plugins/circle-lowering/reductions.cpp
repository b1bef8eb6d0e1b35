// mean / sum / prod / amax / amin / max / min (whole-tensor) -> MEAN / SUM / REDUCE_PROD /
// REDUCE_MAX / REDUCE_MIN, any / all -> REDUCE_ANY / REDUCE_ALL, all with int32 axes.
//
// A dtype argument (or sum's promotion of integers to int64) is honoured by casting the input
// to the result dtype first; an empty or absent dim list reduces every dim. any/all of a
// non-bool tensor first compares it with zero.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {

std::vector<int64_t> reductionAxes(const Node &node) {
  int64_t rank = node.input(0)->rank();
  const Argument *dim = node.findArg("dim");
  std::vector<int64_t> requested;
  if (dim && !dim->isNone())
    requested = dim->isInt() ? std::vector<int64_t>{dim->asInt()} : dim->asInts();
  if (requested.empty())
    requested = identityPermutation(rank);
  std::vector<int64_t> out;
  for (int64_t d : requested) {
    if (rank == 0)
      continue; // reducing a scalar over "its" dim is the scalar itself
    int64_t n = normalizeDim(d, rank);
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw Error("dim " + std::to_string(d) + " appears twice");
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void emitReduceInto(CircleEmitter &emit, circle::BuiltinOperator op, int32_t input, DType dtype, const Shape &in_shape,
                    const std::vector<int64_t> &axes, bool keepdim, int32_t output, const std::string &hint,
                    const QuantParams *quant) {
  circle::ReducerOptionsT reducer;
  reducer.keep_dims = keepdim;
  int32_t axes_t = emit.constInt32(toInt32(axes, "dim"), hint + "_axes");
  int64_t rank = static_cast<int64_t>(in_shape.size());
  if (axes.empty()) {
    emitIdentity(emit, input, rank, output, hint); // nothing to reduce (a 0-D input)
    return;
  }
  if (keepdim || !(rank == 4 && rank - static_cast<int64_t>(axes.size()) == 2)) {
    emit.addOperator(op, {input, axes_t}, {output}, options(std::move(reducer)));
    return;
  }
  // onert's shape check reads a rank-4 -> rank-2 reduction as NHWC global pooling (it
  // requires the last input dim to survive), so reduce with keep_dims and squeeze after.
  reducer.keep_dims = true;
  Shape kept = in_shape;
  for (int64_t d : axes)
    kept[static_cast<std::size_t>(d)] = 1;
  int32_t reduced = emit.newTensor(dtype, kept, hint + "_kept");
  if (quant != nullptr)
    emit.setQuantization(reduced, *quant); // the quantized result before the SQUEEZE
  emit.addOperator(op, {input, axes_t}, {reduced}, options(std::move(reducer)));
  circle::SqueezeOptionsT squeeze;
  squeeze.squeeze_dims = toInt32(axes, "dim");
  emit.addOperator(circle::BuiltinOperator::SQUEEZE, {reduced}, {output}, options(std::move(squeeze)));
}

namespace {

bool keepdimOf(const Node &node) {
  const Argument *keepdim = node.findArg("keepdim");
  return keepdim && keepdim->asBool();
}

class Reduce final : public CheckedLowering {
public:
  Reduce(circle::BuiltinOperator op, bool float_only) : op_(op), float_only_(float_only) {}

  std::string check(const Node &node) const override {
    const Value *out = node.output();
    if (op_ == circle::BuiltinOperator::MEAN && anyQuantized({node.input(0), out})) {
      if (auto r = quantizedSameType({node.input(0), out}, "MEAN"); !r.empty())
        return r;
      reductionAxes(node);
      return {};
    }
    if (float_only_ && out->dtype() != DType::Float32)
      return std::string(circle::EnumNameBuiltinOperator(op_)) + " is computed in float32 here; the result is " +
             std::string(torchDTypeName(out->dtype()));
    if (out->dtype() == DType::Bool || !isNumericDType(out->dtype()))
      return "reduction to " + std::string(torchDTypeName(out->dtype())) + " is not supported";
    reductionAxes(node);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    int32_t x = castedTensor(emit, in, out->dtype(), node.name() + "_input");
    emitReduceInto(emit, op_, x, out->dtype(), in->shape(), reductionAxes(node), keepdimOf(node), emit.tensor(out),
                   node.name(), out->quant());
  }

private:
  circle::BuiltinOperator op_;
  bool float_only_;
};

// any / all: bool reductions; other dtypes are compared with zero first.
class LogicalReduce final : public CheckedLowering {
public:
  explicit LogicalReduce(circle::BuiltinOperator op) : op_(op) {}

  std::string check(const Node &node) const override {
    if (node.output()->dtype() != DType::Bool)
      return "any/all with a non-bool result (uint8 input) is not supported";
    if (!isNumericDType(node.input(0)->dtype()))
      return "any/all of " + std::string(torchDTypeName(node.input(0)->dtype())) + " tensors is not supported";
    reductionAxes(node);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int32_t x = emit.tensor(in);
    if (in->dtype() != DType::Bool) {
      int32_t nonzero = emit.newTensor(DType::Bool, in->shape(), node.name() + "_nonzero");
      emit.addOperator(circle::BuiltinOperator::NOT_EQUAL,
                       {x, scalarConstant(emit, in->dtype(), 0.0, node.name() + "_zero")}, {nonzero},
                       options(circle::NotEqualOptionsT{}));
      x = nonzero;
    }
    emitReduceInto(emit, op_, x, DType::Bool, in->shape(), reductionAxes(node), keepdimOf(node),
                   emit.tensor(node.output()), node.name());
  }

private:
  circle::BuiltinOperator op_;
};

} // namespace

void registerReductions(Registrar &r) {
  using Op = circle::BuiltinOperator;
  registerFor(r, {ops::aten::mean_dim, ops::aten::mean_default}, "MEAN (int32 axes, keep_dims)",
              std::make_shared<Reduce>(Op::MEAN, true));
  registerFor(r, {ops::aten::sum_dim_IntList, ops::aten::sum_default}, "SUM (int32 axes, keep_dims)",
              std::make_shared<Reduce>(Op::SUM, false));
  registerFor(r, {ops::aten::prod_dim_int, ops::aten::prod_default}, "REDUCE_PROD (int32 axes, keep_dims)",
              std::make_shared<Reduce>(Op::REDUCE_PROD, false));
  registerFor(r, {ops::aten::amax_default, ops::aten::max_default}, "REDUCE_MAX",
              std::make_shared<Reduce>(Op::REDUCE_MAX, false));
  registerFor(r, {ops::aten::amin_default, ops::aten::min_default}, "REDUCE_MIN",
              std::make_shared<Reduce>(Op::REDUCE_MIN, false));
  registerFor(r, {ops::aten::any_default, ops::aten::any_dim, ops::aten::any_dims},
              "REDUCE_ANY (NOT_EQUAL 0 first for non-bool input)", std::make_shared<LogicalReduce>(Op::REDUCE_ANY));
  registerFor(r, {ops::aten::all_default, ops::aten::all_dim, ops::aten::all_dims},
              "REDUCE_ALL (NOT_EQUAL 0 first for non-bool input)", std::make_shared<LogicalReduce>(Op::REDUCE_ALL));
}

} // namespace tico::lowering
