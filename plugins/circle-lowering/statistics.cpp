// var / std (.correction, .dim) and var_mean -> MEAN, SUB, MUL, SUM, MUL by 1/(N - correction)
// (and SQRT for std), all in float32.
//
// N, the number of reduced elements, must be static. The two-pass form (mean first, then the
// squared deviations) is what PyTorch computes too, so results agree to float32 rounding.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

#include <limits>

namespace tico::lowering {
namespace {

double correctionOf(const Node &node) {
  if (const Argument *c = node.findArg("correction"))
    return c->isNone() ? 1.0 : c->asDouble();
  if (const Argument *unbiased = node.findArg("unbiased"))
    return unbiased->asBool() ? 1.0 : 0.0;
  return 1.0;
}

class Variance final : public CheckedLowering {
public:
  enum class Result { Var, Std, VarMean };
  explicit Variance(Result result) : result_(result) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (auto r = requireFloat(in, "variance"); !r.empty())
      return r;
    auto axes = reductionAxes(node);
    for (int64_t d : axes)
      if (in->shape()[static_cast<std::size_t>(d)].isSymbolic())
        return "variance over a symbolic dim (the element count must be static)";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    auto axes = reductionAxes(node);
    bool keepdim = node.findArg("keepdim") && node.arg("keepdim").asBool();
    double n = 1;
    for (int64_t d : axes)
      n *= static_cast<double>(in->shape()[static_cast<std::size_t>(d)].value());
    double divisor = std::max(n - correctionOf(node), 0.0); // PyTorch gives inf/nan for <= 0

    Shape kept = in->shape();
    for (int64_t d : axes)
      kept[static_cast<std::size_t>(d)] = 1;
    int32_t x = emit.tensor(in);
    int32_t mean = emit.newTensor(DType::Float32, kept, base + "_mean");
    emitReduceInto(emit, circle::BuiltinOperator::MEAN, x, DType::Float32, in->shape(), axes, true, mean, base + "_mean");
    int32_t diff = emit.newTensor(DType::Float32, in->shape(), base + "_deviation");
    emit.addOperator(circle::BuiltinOperator::SUB, {x, mean}, {diff}, options(circle::SubOptionsT{}));
    int32_t square = emit.newTensor(DType::Float32, in->shape(), base + "_square");
    emit.addOperator(circle::BuiltinOperator::MUL, {diff, diff}, {square}, options(circle::MulOptionsT{}));

    const Value *var_out = node.output(0);
    Shape var_shape = var_out->shape();
    int32_t sum = emit.newTensor(DType::Float32, var_shape, base + "_sum");
    emitReduceInto(emit, circle::BuiltinOperator::SUM, square, DType::Float32, in->shape(), axes, keepdim, sum,
                   base + "_sum");
    float scale = divisor == 0.0 ? std::numeric_limits<float>::infinity() : static_cast<float>(1.0 / divisor);
    int32_t var = result_ == Result::Std ? emit.newTensor(DType::Float32, var_shape, base + "_variance")
                                         : emit.tensor(var_out);
    emit.addOperator(circle::BuiltinOperator::MUL, {sum, emit.scalarFloat(scale, base + "_scale")}, {var},
                     options(circle::MulOptionsT{}));
    if (result_ == Result::Std)
      emit.addOperator(circle::BuiltinOperator::SQRT, {var}, {emit.tensor(var_out)});
    if (result_ == Result::VarMean) {
      // The mean result gets its own MEAN rather than sharing the tensor SUB reads: onert 0.2
      // returns wrong values for a graph output that is also read by a later operator here.
      const Value *mean_out = node.output(1);
      emitReduceInto(emit, circle::BuiltinOperator::MEAN, x, DType::Float32, in->shape(), axes, keepdim,
                     emit.tensor(mean_out), base + "_mean_out");
    }
  }

private:
  Result result_;
};

} // namespace

void registerStatistics(Registrar &r) {
  registerFor(r, {ops::aten::var_correction, ops::aten::var_dim, ops::aten::var_default},
              "MEAN, SUB, MUL, SUM, MUL 1/(N - correction)", std::make_shared<Variance>(Variance::Result::Var));
  registerFor(r, {ops::aten::std_correction, ops::aten::std_dim, ops::aten::std_default}, "variance + SQRT",
              std::make_shared<Variance>(Variance::Result::Std));
  registerFor(r, {ops::aten::var_mean_correction, ops::aten::var_mean_dim}, "variance and the MEAN it uses",
              std::make_shared<Variance>(Variance::Result::VarMean));
}

} // namespace tico::lowering
