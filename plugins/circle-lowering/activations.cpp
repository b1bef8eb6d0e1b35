// Activations and unary math: one Circle operator each, plus the few that need two
// (silu = x * sigmoid(x), a general clamp = MINIMUM(MAXIMUM(x, lo), hi)).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

#include <functional>
#include <limits>

namespace tico::lowering {
namespace {

// Float32OrQuantized: float32, or codes of one quantized type in and out (LOGISTIC and TANH
// have quantized kernels; the other float-only operators do not).
enum class DTypes { Float32, Float32OrQuantized, SameNumeric };

// y = OP(x) with an operator that has no attributes (or fixed ones given by `make_options`).
class Unary final : public CheckedLowering {
public:
  Unary(circle::BuiltinOperator op, DTypes dtypes, std::function<circle::BuiltinOptionsUnion()> make_options = {})
      : op_(op), dtypes_(dtypes), make_options_(std::move(make_options)) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const char *name = circle::EnumNameBuiltinOperator(op_);
    if (dtypes_ == DTypes::Float32OrQuantized && anyQuantized({in, out}))
      return quantizedSameType({in, out}, name);
    if (in->dtype() != out->dtype())
      return std::string(name) + " keeps the element type; this node turns " +
             std::string(torchDTypeName(in->dtype())) + " into " + std::string(torchDTypeName(out->dtype()));
    if (dtypes_ == DTypes::Float32 || dtypes_ == DTypes::Float32OrQuantized)
      return requireFloat(in, name);
    if (in->dtype() == DType::Bool || !isNumericDType(in->dtype()))
      return std::string(name) + " does not take " + std::string(torchDTypeName(in->dtype())) + " tensors";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, op_, {emit.tensor(node.input(0))}, node.output(),
           make_options_ ? make_options_() : circle::BuiltinOptionsUnion{});
  }

private:
  circle::BuiltinOperator op_;
  DTypes dtypes_;
  std::function<circle::BuiltinOptionsUnion()> make_options_;
};

class Gelu final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const std::string &approximate = node.arg("approximate").asString();
    if (approximate != "none" && approximate != "tanh")
      return "unknown gelu approximation '" + approximate + "'";
    return requireFloat(node.input(0), "GELU");
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    circle::GeluOptionsT gelu;
    gelu.approximate = node.arg("approximate").asString() == "tanh";
    emitOp(emit, circle::BuiltinOperator::GELU, {emit.tensor(node.input(0))}, node.output(),
           options(std::move(gelu)));
  }
};

class LeakyRelu final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (!numberOf(node.arg(1)))
      return "negative_slope must be a number";
    return requireFloat(node.input(0), "LEAKY_RELU");
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    circle::LeakyReluOptionsT leaky;
    leaky.alpha = static_cast<float>(node.arg(1).asDouble());
    emitOp(emit, circle::BuiltinOperator::LEAKY_RELU, {emit.tensor(node.input(0))}, node.output(),
           options(std::move(leaky)));
  }
};

// Circle's ELU is PyTorch's elu with alpha = scale = input_scale = 1.
class Elu final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    for (const char *name : {"alpha", "scale", "input_scale"}) {
      auto v = numberOf(node.arg(name));
      if (!v || *v != 1.0)
        return std::string("ELU has no ") + name + " parameter; only elu with " + name + "=1 is supported";
    }
    return requireFloat(node.input(0), "ELU");
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, circle::BuiltinOperator::ELU, {emit.tensor(node.input(0))}, node.output());
  }
};

// silu(x) = x * sigmoid(x).
class Silu final : public CheckedLowering {
public:
  std::string check(const Node &node) const override { return requireFloat(node.input(0), "silu"); }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int32_t x = emit.tensor(in);
    int32_t sig = emit.newTensor(in->dtype(), in->shape(), node.name() + "_sigmoid");
    emit.addOperator(circle::BuiltinOperator::LOGISTIC, {x}, {sig});
    emitOp(emit, circle::BuiltinOperator::MUL, {x, sig}, node.output(),
           options(circle::MulOptionsT{}));
  }
};

// hardtanh(min, max), clamp(min?, max?), clamp.Tensor and clamp_min / clamp_max. Number bounds
// (0, 6) and (-1, 1) are Circle's RELU6 and RELU_N1_TO_1; anything else is MAXIMUM with the
// lower bound, then MINIMUM with the upper one (tensor bounds broadcast as in PyTorch).
class Clamp final : public CheckedLowering {
public:
  // Which arguments hold the bounds: clamp_min / clamp_max have only one.
  enum class Bounds { Both, MinOnly, MaxOnly };
  explicit Clamp(Bounds bounds = Bounds::Both) : bounds_(bounds) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->dtype() != node.output()->dtype())
      return "clamping that changes the element type is not supported";
    if (in->dtype() == DType::Bool || !isNumericDType(in->dtype()))
      return "clamp of " + std::string(torchDTypeName(in->dtype())) + " tensors is not supported";
    for (const Argument *bound : {lowerBound(node), upperBound(node)})
      if (bound && !bound->isNone() && !bound->isNumber() && !bound->isValue())
        return "clamp bounds must be numbers or tensors";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Argument *lo = lowerBound(node);
    const Argument *hi = upperBound(node);
    bool has_lo = lo && !lo->isNone();
    bool has_hi = hi && !hi->isNone();
    int32_t x = emit.tensor(in);
    int32_t out = emit.tensor(node.output());
    if (in->dtype() == DType::Float32 && has_lo && has_hi && lo->isNumber() && hi->isNumber()) {
      if (lo->asDouble() == 0.0 && hi->asDouble() == 6.0)
        return emit.addOperator(circle::BuiltinOperator::RELU6, {x}, {out});
      if (lo->asDouble() == -1.0 && hi->asDouble() == 1.0)
        return emit.addOperator(circle::BuiltinOperator::RELU_N1_TO_1, {x}, {out});
    }
    if (!has_lo && !has_hi)
      return emitIdentity(emit, x, in->rank(), out, node.name());
    auto bound = [&](const Argument &b, const std::string &hint) {
      return b.isValue() ? castedTensor(emit, b.asValue(), in->dtype(), hint)
                         : scalarConstant(emit, in->dtype(), b.asDouble(), hint);
    };
    int32_t current = x;
    if (has_lo) {
      int32_t target = has_hi ? emit.newTensor(in->dtype(), node.output()->shape(), node.name() + "_lower") : out;
      emit.addOperator(circle::BuiltinOperator::MAXIMUM, {current, bound(*lo, node.name() + "_min")}, {target},
                       options(circle::MaximumMinimumOptionsT{}));
      current = target;
    }
    if (has_hi)
      emit.addOperator(circle::BuiltinOperator::MINIMUM, {current, bound(*hi, node.name() + "_max")}, {out},
                       options(circle::MaximumMinimumOptionsT{}));
  }

private:
  const Argument *lowerBound(const Node &node) const { return bounds_ == Bounds::MaxOnly ? nullptr : &node.arg(1); }
  const Argument *upperBound(const Node &node) const {
    if (bounds_ == Bounds::MinOnly)
      return nullptr;
    return &node.arg(bounds_ == Bounds::MaxOnly ? 1 : 2);
  }
  Bounds bounds_;
};

// prelu(x, w): PyTorch applies w along dim 1; Circle's PRELU broadcasts alpha from the right,
// so a per-channel w becomes alpha of shape [C, 1, ..., 1] (a zero-copy view for a constant).
// circle::prelu already has its alpha laid out for right-aligned broadcasting.
class Prelu final : public CheckedLowering {
public:
  explicit Prelu(bool channels_last) : channels_last_(channels_last) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    const Value *w = node.input(1);
    if (auto r = requireFloat(in, "PRELU"); !r.empty())
      return r;
    if (auto r = requireFloat(w, "PRELU"); !r.empty())
      return r;
    if (channels_last_)
      return w->rank() <= std::max<int64_t>(in->rank(), 1) ? "" : "the alpha has a higher rank than the input";
    if (w->rank() != 1)
      return "prelu needs a 1-D weight";
    if (w->shape()[0].isSymbolic())
      return "the prelu weight size must be static";
    int64_t n = w->shape()[0].value();
    if (n != 1 && (in->rank() < 2 || in->shape()[1].isSymbolic() || in->shape()[1].value() != n))
      return "the prelu weight must have one value or one per channel (dim 1)";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *w = node.input(1);
    int32_t alpha = emit.tensor(w);
    int64_t n = w->rank() == 1 ? w->shape()[0].value() : 1;
    if (!channels_last_ && n != 1 && in->rank() > 2) {
      // [C] -> [C, 1, ..., 1]: dim 1 of the input is the rank-1'th dim from the right.
      Shape target{n};
      for (int64_t i = 2; i < in->rank(); ++i)
        target.push_back(1);
      if (w->isConstant()) {
        auto view = std::make_shared<TensorData>(*w->constant());
        view->sizes = hintSizes(target);
        view->strides.assign(target.size(), 0);
        view->strides[0] = w->constant()->strides.at(0);
        alpha = emit.constant(view, w->name() + "_per_channel");
      } else {
        alpha = emit.newTensor(w->dtype(), target, node.name() + "_alpha");
        emitReshapeInto(emit, emit.tensor(w), target, nullptr, nullptr, alpha, node.name() + "_alpha");
      }
    }
    emitOp(emit, circle::BuiltinOperator::PRELU, {emit.tensor(in), alpha}, node.output());
  }

private:
  bool channels_last_;
};

} // namespace

void registerActivations(Registrar &r) {
  using Op = circle::BuiltinOperator;
  auto unary = [&](OpRefs keys, Op op, DTypes dtypes, const std::string &summary,
                   std::function<circle::BuiltinOptionsUnion()> make_options = {}) {
    registerFor(r, keys, summary, std::make_shared<Unary>(op, dtypes, std::move(make_options)));
  };
  unary({ops::aten::relu_default}, Op::RELU, DTypes::Float32, "RELU");
  unary({ops::aten::relu6_default}, Op::RELU6, DTypes::Float32, "RELU6");
  unary({ops::aten::sigmoid_default}, Op::LOGISTIC, DTypes::Float32OrQuantized, "LOGISTIC");
  unary({ops::aten::tanh_default}, Op::TANH, DTypes::Float32OrQuantized, "TANH");
  unary({ops::aten::exp_default}, Op::EXP, DTypes::Float32, "EXP", [] { return options(circle::ExpOptionsT{}); });
  unary({ops::aten::log_default}, Op::LOG, DTypes::Float32, "LOG");
  unary({ops::aten::sqrt_default}, Op::SQRT, DTypes::Float32, "SQRT");
  unary({ops::aten::rsqrt_default}, Op::RSQRT, DTypes::Float32, "RSQRT");
  unary({ops::aten::sin_default}, Op::SIN, DTypes::Float32, "SIN");
  unary({ops::aten::cos_default}, Op::COS, DTypes::Float32, "COS", [] { return options(circle::CosOptionsT{}); });
  unary({ops::aten::hardswish_default}, Op::HARD_SWISH, DTypes::Float32, "HARD_SWISH",
        [] { return options(circle::HardSwishOptionsT{}); });
  unary({ops::aten::neg_default}, Op::NEG, DTypes::SameNumeric, "NEG", [] { return options(circle::NegOptionsT{}); });
  unary({ops::aten::abs_default}, Op::ABS, DTypes::SameNumeric, "ABS", [] { return options(circle::AbsOptionsT{}); });
  registerFor(r, {ops::aten::gelu_default}, "GELU (approximate='tanh' sets GeluOptions.approximate)",
              std::make_shared<Gelu>());
  registerFor(r, {ops::aten::leaky_relu_default}, "LEAKY_RELU", std::make_shared<LeakyRelu>());
  registerFor(r, {ops::aten::elu_default}, "ELU (alpha = scale = input_scale = 1 only)", std::make_shared<Elu>());
  registerFor(r, {ops::aten::silu_default}, "LOGISTIC + MUL", std::make_shared<Silu>());
  registerFor(r, {ops::aten::hardtanh_default}, "RELU6 / RELU_N1_TO_1, else MAXIMUM + MINIMUM",
              std::make_shared<Clamp>());
  registerFor(r, {ops::aten::clamp_default, ops::aten::clamp_Tensor},
              "RELU6 / RELU_N1_TO_1, else MAXIMUM and/or MINIMUM (number or tensor bounds)",
              std::make_shared<Clamp>());
  registerFor(r, {ops::aten::clamp_min_default, ops::aten::clamp_min_Tensor}, "MAXIMUM",
              std::make_shared<Clamp>(Clamp::Bounds::MinOnly));
  registerFor(r, {ops::aten::clamp_max_default, ops::aten::clamp_max_Tensor}, "MINIMUM",
              std::make_shared<Clamp>(Clamp::Bounds::MaxOnly));
  registerFor(r, {ops::aten::prelu_default, ops::aten::_prelu_kernel_default},
              "PRELU with a per-channel alpha viewed as [C, 1, ..., 1]", std::make_shared<Prelu>(false));
  registerFor(r, {ops::circle::prelu_default}, "PRELU (alpha broadcast from the right)", std::make_shared<Prelu>(true));
}

} // namespace tico::lowering
