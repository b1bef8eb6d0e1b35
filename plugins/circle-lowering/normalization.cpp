// Circle's normalisation and transformer extension operators:
//   instance_norm (NCHW, batch statistics) -> TRANSPOSE -> INSTANCE_NORM -> TRANSPOSE;
//   circle::instance_norm (channels last) -> INSTANCE_NORM;
//   rms_norm over the last dim, circle::rms_norm, circle_custom::rms_norm -> RMS_NORM;
//   circle::rope -> ROPE; circle::attention, circle_custom::attention -> ATTENTION.
//
// RMS_NORM kernels take rank-3 or rank-4 input; other ranks are reshaped to [1, rows, D] and
// back. An absent weight is a constant of ones, an absent bias of INSTANCE_NORM zeros.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

#include <limits>

namespace tico::lowering {
namespace {

int32_t vectorOrFill(CircleEmitter &emit, const Argument &arg, DType dtype, int64_t n, double fill,
                     const std::string &hint) {
  if (!arg.isNone())
    return castedTensor(emit, arg.asValue(), dtype, hint);
  std::vector<float> values(static_cast<std::size_t>(n), static_cast<float>(fill));
  return emit.constFloat(values, {n}, hint);
}

std::string checkVector(const Argument &arg, int64_t n, const char *what) {
  if (arg.isNone())
    return {};
  const Value *v = arg.asValue();
  if (v->rank() != 1 || v->shape()[0].isSymbolic() || v->shape()[0].value() != n)
    return std::string(what) + " must be a vector of " + std::to_string(n) + " values";
  return requireFloat(v, what);
}

// A quantized gamma: a vector of n codes, per tensor or per channel along its only axis.
std::string checkQuantizedVector(const Argument &arg, int64_t n, const char *what) {
  const Value *v = arg.asValue();
  if (v->rank() != 1 || v->shape()[0].isSymbolic() || v->shape()[0].value() != n)
    return std::string(what) + " must be a vector of " + std::to_string(n) + " values";
  if (v->quant()->isPerBlock() || (v->quant()->axis && *v->quant()->axis != 0))
    return std::string(what) + " must be quantized per tensor or per channel along its axis";
  return {};
}

class InstanceNorm final : public CheckedLowering {
public:
  explicit InstanceNorm(bool channels_last) : channels_last_(channels_last) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (auto r = requireFloat(in, "INSTANCE_NORM"); !r.empty())
      return r;
    if (in->rank() != 4)
      return "INSTANCE_NORM is supported for rank-4 input (rank " + std::to_string(in->rank()) + ")";
    if (!channels_last_) {
      if (!node.arg("use_input_stats").asBool())
        return "instance_norm with use_input_stats=False normalises with running statistics; it is not supported";
    }
    const Dim &c = in->shape()[channels_last_ ? 3 : 1];
    if (c.isSymbolic())
      return "the channel count must be static";
    if (auto r = checkVector(node.arg("weight"), c.value(), "the weight"); !r.empty())
      return r;
    return checkVector(node.arg("bias"), c.value(), "the bias");
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    int64_t c = in->shape()[channels_last_ ? 3 : 1].value();
    int32_t gamma = vectorOrFill(emit, node.arg("weight"), in->dtype(), c, 1.0, base + "_gamma");
    int32_t beta = vectorOrFill(emit, node.arg("bias"), in->dtype(), c, 0.0, base + "_beta");
    circle::InstanceNormOptionsT norm;
    norm.epsilon = static_cast<float>(node.arg("eps").asDouble());
    if (channels_last_) {
      emitOp(emit, circle::BuiltinOperator::INSTANCE_NORM, {emit.tensor(in), gamma, beta}, out,
             options(std::move(norm)));
      return;
    }
    int32_t x = emitTranspose(emit, emit.tensor(in), in->dtype(), in->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
    int32_t y = emit.newTensor(out->dtype(), permuteShape(out->shape(), {0, 2, 3, 1}), base + "_nhwc");
    emit.addOperator(circle::BuiltinOperator::INSTANCE_NORM, {x, gamma, beta}, {y}, options(std::move(norm)));
    emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
  }

private:
  bool channels_last_;
};

enum class RmsForm { Aten, Circle };

class RmsNorm final : public CheckedLowering {
public:
  explicit RmsNorm(RmsForm form) : form_(form) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (auto r = requireFloatOrQuantized(in, "RMS_NORM"); !r.empty())
      return r;
    if (in->isQuantized() != node.output()->isQuantized())
      return "RMS_NORM reads and writes quantized tensors or neither ('" + in->name() + "' and '" +
             node.output()->name() + "' differ)";
    if (in->rank() < 1)
      return "RMS_NORM of a 0-D tensor";
    if (form_ == RmsForm::Aten) {
      const Argument &shape = node.arg("normalized_shape");
      if (shape.kind() == Argument::Kind::SymIntList || shape.asInts().size() != 1)
        return "RMS_NORM normalises over the last dim only; normalized_shape must have one element";
    }
    const Dim &d = in->shape().back();
    if (d.isSymbolic())
      return "the normalised dim must be static";
    if (in->isQuantized() && weight(node).isValue() && weight(node).asValue()->isQuantized())
      return checkQuantizedVector(weight(node), d.value(), "the weight");
    return checkVector(weight(node), d.value(), "the weight");
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    int64_t d = in->shape().back().value();
    // The quantized kernel reads gamma as codes or as float32, as it is (no cast to the input's type).
    const bool quantized_gamma = in->isQuantized() && weight(node).isValue();
    int32_t gamma = quantized_gamma ? emit.tensor(weight(node).asValue())
                                    : vectorOrFill(emit, weight(node), in->isQuantized() ? DType::Float32 : in->dtype(),
                                                   d, 1.0, base + "_gamma");
    circle::RmsNormOptionsT norm;
    norm.epsilon = static_cast<float>(epsilon(node));
    if (in->rank() == 3 || in->rank() == 4) {
      emitOp(emit, circle::BuiltinOperator::RMS_NORM, {emit.tensor(in), gamma}, out, options(std::move(norm)));
      return;
    }
    // [..., D] -> [1, rows, D] -> RMS_NORM -> [..., D]
    Shape leading(in->shape().begin(), in->shape().end() - 1);
    Dim rows = countSymbolic(leading) == 0 ? Dim(numElementsHint(leading))
                                           : Dim::symbolic("rows(" + in->name() + ")", numElementsHint(leading));
    Shape three = {1, rows, d};
    int32_t x = emit.newTensor(in->dtype(), three, base + "_rows");
    int32_t y = emit.newTensor(out->dtype(), three, base + "_normalised");
    if (in->isQuantized()) { // the reshapes move codes: the views keep the parameters
      emit.setQuantization(x, *in->quant());
      emit.setQuantization(y, *out->quant());
    }
    emitReshapeInto(emit, emit.tensor(in), three, nullptr, nullptr, x, base + "_rows");
    emit.addOperator(circle::BuiltinOperator::RMS_NORM, {x, gamma}, {y}, options(std::move(norm)));
    emitReshapeInto(emit, y, out->shape(), nullptr, in, emit.tensor(out), base);
  }

private:
  const Argument &weight(const Node &node) const { return node.arg(1 + (form_ == RmsForm::Aten ? 1 : 0)); }
  double epsilon(const Node &node) const {
    const Argument &eps = node.arg(form_ == RmsForm::Aten ? 3 : 2);
    // PyTorch's default is the machine epsilon of the input's dtype.
    return eps.isNone() ? static_cast<double>(std::numeric_limits<float>::epsilon()) : eps.asDouble();
  }
  RmsForm form_;
};

class Rope final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() != 4)
      return "ROPE takes a rank-4 input";
    if (auto r = requireFloat(in, "ROPE"); !r.empty())
      return r;
    const Dim &d = in->shape().back();
    if (d.isSymbolic() || d.value() % 2 != 0)
      return "ROPE needs a static, even last dim";
    if (node.arg("mode").asInt() != 0)
      return "only ROPE mode 0 (GPT-NeoX, rotate_half) is supported by the Circle runtimes";
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
      const Value *table = node.input(i);
      if (auto r = requireFloat(table, "ROPE"); !r.empty())
        return r;
      if (countSymbolic(table->shape()) != 0 || table->rank() < 1 || table->shape().back().value() != d.value() ||
          numElementsHint(table->shape()) != d.value())
        return "ROPE's sin/cos tables must hold one row of " + std::to_string(d.value()) +
               " values (every leading dim 1): the kernels apply the same row to every position";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const std::string base = node.name();
    auto table = [&](std::size_t i, const char *hint) {
      const Value *t = node.input(i);
      if (t->rank() == 4)
        return emit.tensor(t);
      Shape four = {1, 1, 1, t->shape().back()};
      int32_t r = emit.newTensor(t->dtype(), four, base + hint);
      emitReshapeInto(emit, emit.tensor(t), four, nullptr, nullptr, r, base + hint);
      return r;
    };
    int32_t sin = table(1, "_sin");
    int32_t cos = table(2, "_cos");
    circle::RoPEOptionsT rope;
    rope.mode = circle::RoPEMode::GPT_NEOX;
    emitOp(emit, circle::BuiltinOperator::ROPE, {emit.tensor(node.input(0)), sin, cos}, node.output(),
           options(std::move(rope)));
  }
};

class Attention final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.numArgs() != 11)
      return "ATTENTION takes 11 operands";
    for (std::size_t i = 0; i < 11; ++i)
      if (!node.arg(i).isValue())
        return "every ATTENTION operand must be a tensor";
    if (auto r = requireFloat(node.input(0), "ATTENTION"); !r.empty())
      return r;
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> inputs;
    for (std::size_t i = 0; i < 11; ++i)
      inputs.push_back(emit.tensor(node.input(i)));
    emitOp(emit, circle::BuiltinOperator::ATTENTION, inputs, node.output(), options(circle::AttentionOptionsT{}));
  }
};

} // namespace

void registerNormalization(Registrar &r) {
  registerFor(r, {ops::aten::instance_norm_default}, "TRANSPOSE -> INSTANCE_NORM -> TRANSPOSE (batch statistics)",
              std::make_shared<InstanceNorm>(false));
  registerFor(r, {ops::circle::instance_norm_default}, "INSTANCE_NORM, channels last",
              std::make_shared<InstanceNorm>(true));
  registerFor(r, {ops::aten::rms_norm_default}, "RMS_NORM over the last dim", std::make_shared<RmsNorm>(RmsForm::Aten));
  registerFor(r, {ops::circle::rms_norm_default, ops::circle_custom::rms_norm_default}, "RMS_NORM over the last dim",
              std::make_shared<RmsNorm>(RmsForm::Circle));
  registerFor(r, {ops::circle::rope_default}, "ROPE (GPT-NeoX)", std::make_shared<Rope>());
  registerFor(r, {ops::circle::attention_default, ops::circle_custom::attention_default}, "ATTENTION (onert decoder op)",
              std::make_shared<Attention>());
}

} // namespace tico::lowering
