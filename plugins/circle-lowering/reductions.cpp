// mean / sum / amax / amin -> MEAN / SUM / REDUCE_MAX / REDUCE_MIN with int32 axes.
//
// A dtype argument (or sum's promotion of integers to int64) is honoured by casting the input
// to the result dtype first; an empty or absent dim list reduces every dim.
#include "lowerings.h"
#include "support.h"

namespace tico::lowering {
namespace {

class Reduce final : public CheckedLowering {
public:
  Reduce(circle::BuiltinOperator op, bool float_only) : op_(op), float_only_(float_only) {}

  std::string check(const Node &node) const override {
    const Value *out = node.output();
    if (float_only_ && out->dtype() != DType::Float32)
      return std::string(circle::EnumNameBuiltinOperator(op_)) + " is computed in float32 here; the result is " +
             std::string(torchDTypeName(out->dtype()));
    if (out->dtype() == DType::Bool || !isNumericDType(out->dtype()))
      return "reduction to " + std::string(torchDTypeName(out->dtype())) + " is not supported";
    axes(node);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    int32_t x = castedTensor(emit, in, out->dtype(), node.name() + "_input");
    circle::ReducerOptionsT reducer;
    const Argument *keepdim = node.findArg("keepdim");
    reducer.keep_dims = keepdim && keepdim->asBool();
    auto dims = axes(node);
    int32_t axes_t = emit.constInt32(toInt32(dims, "dim"), node.name() + "_axes");
    if (reducer.keep_dims || !(in->rank() == 4 && out->rank() == 2)) {
      emit.addOperator(op_, {x, axes_t}, {emit.tensor(out)}, options(std::move(reducer)));
      return;
    }
    // onert's shape check reads a rank-4 -> rank-2 reduction as NHWC global pooling (it
    // requires the last input dim to survive), so reduce with keep_dims and squeeze after.
    reducer.keep_dims = true;
    Shape kept = in->shape();
    for (int64_t d : dims)
      kept[static_cast<std::size_t>(d)] = 1;
    int32_t reduced = emit.newTensor(out->dtype(), kept, node.name() + "_kept");
    emit.addOperator(op_, {x, axes_t}, {reduced}, options(std::move(reducer)));
    circle::SqueezeOptionsT squeeze;
    squeeze.squeeze_dims = toInt32(dims, "dim");
    emit.addOperator(circle::BuiltinOperator::SQUEEZE, {reduced}, {emit.tensor(out)}, options(std::move(squeeze)));
  }

private:
  static std::vector<int64_t> axes(const Node &node) {
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

  circle::BuiltinOperator op_;
  bool float_only_;
};

} // namespace

void registerReductions(Registrar &r) {
  using Op = circle::BuiltinOperator;
  registerFor(r, {"aten::mean.dim", "aten::mean.default"}, "MEAN (int32 axes, keep_dims)",
              std::make_shared<Reduce>(Op::MEAN, true));
  registerFor(r, {"aten::sum.dim_IntList", "aten::sum.default"}, "SUM (int32 axes, keep_dims)",
              std::make_shared<Reduce>(Op::SUM, false));
  registerFor(r, {"aten::amax.default"}, "REDUCE_MAX", std::make_shared<Reduce>(Op::REDUCE_MAX, false));
  registerFor(r, {"aten::amin.default"}, "REDUCE_MIN", std::make_shared<Reduce>(Op::REDUCE_MIN, false));
}

} // namespace tico::lowering
