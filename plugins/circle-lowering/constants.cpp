// Constant producers: arange, full / zeros / ones / empty, the *_like and new_* variants,
// fill.Scalar and scalar_tensor.
//
// With a static result they are constants: a filled tensor is a stride-0 view of one element
// (no buffer of N copies is built; the writer expands it), an arange is computed. A symbolic
// result shape is built from the dims of existing tensors when its symbolic dims are such dims
// (static_shapes.cpp: shapes stay inferable from the inputs' shapes), else FILL over a
// runtime shape vector; arange(n) of a tensor dim n is likewise a value-free iota, other
// symbolic aranges RANGE over int32 scalars.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

#include <cmath>
#include <cstring>

namespace tico::lowering {
namespace {

// The fill value of the node, or nullopt for the ones that hold no value argument.
double fillValueOf(const Node &node) {
  const std::string &name = node.op().name;
  if (name == "zeros" || name == "zeros_like" || name == "new_zeros" || name == "empty" || name == "empty_like" ||
      name == "new_empty")
    return 0.0; // empty tensors hold arbitrary values; zeros are as good as any
  if (name == "ones" || name == "ones_like" || name == "new_ones")
    return 1.0;
  for (const char *arg : {"fill_value", "value", "s"})
    if (const Argument *v = node.findArg(arg))
      return v->asDouble();
  throw Error("no fill value");
}

// The SymInt[] size argument, when the op has one.
const Argument *sizeArgument(const Node &node) {
  if (const Argument *size = node.findArg("size"))
    return size;
  return nullptr;
}

// The tensor whose shape a *_like / new_* / fill result can be read from.
const Value *shapeReference(const Node &node) {
  if (const Argument *self = node.findArg("self"); self && self->isValue())
    return self->asValue();
  return nullptr;
}

std::shared_ptr<const TensorData> filled(DType dtype, const std::vector<int64_t> &sizes, double value) {
  auto one = scalarData(dtype, value);
  auto view = std::make_shared<TensorData>(*one);
  view->sizes = sizes;
  view->strides.assign(sizes.size(), 0);
  return view;
}

class Fill final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *out = node.output();
    if (!isConstantDType(out->dtype()))
      return "filled tensors of " + std::string(torchDTypeName(out->dtype())) + " are not supported";
    if (const Argument *layout = node.findArg("layout"); layout && !layout->isNone() &&
                                                          layout->asLayout() != Layout::Strided)
      return "non-strided layouts are not supported";
    fillValueOf(node);
    if (countSymbolic(out->shape()) > 0 && !shapePieces(out->shape(), sizeArgument(node), shapeReference(node), false))
      return "the symbolic result shape " + shapeString(out->shape()) + " cannot be computed at runtime";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    double value = fillValueOf(node);
    if (countSymbolic(out->shape()) == 0) {
      emit.alias(out, emit.constant(filled(out->dtype(), hintSizes(out->shape()), value), node.name()));
      return;
    }
    auto pieces = shapePieces(out->shape(), sizeArgument(node), shapeReference(node), false);
    if (canBuildStatically(*pieces, out->dtype())) {
      // Shape-preserving form, so runtimes keep the result's shape static (static_shapes.cpp).
      int32_t zeros = emitZerosOfShape(emit, *pieces, out->shape(), out->dtype(), node.name());
      emitOp(emit, circle::BuiltinOperator::ADD,
             {zeros, scalarConstant(emit, out->dtype(), value, node.name() + "_value")}, out,
             options(circle::AddOptionsT{}));
      return;
    }
    if (out->dtype() == DType::Bool && canBuildStatically(*pieces, DType::Int32)) {
      // bool has no ADD: the same form in int32 (0 or 1), cast back (a causal mask's ones).
      int32_t zeros = emitZerosOfShape(emit, *pieces, out->shape(), DType::Int32, node.name());
      int32_t flags = emit.newTensor(DType::Int32, out->shape(), node.name() + "_int32");
      emit.addOperator(circle::BuiltinOperator::ADD,
                       {zeros, scalarConstant(emit, DType::Int32, value != 0.0 ? 1.0 : 0.0, node.name() + "_value")},
                       {flags}, options(circle::AddOptionsT{}));
      emitCastInto(emit, flags, DType::Int32, DType::Bool, emit.tensor(out));
      return;
    }
    int32_t dims = emitIntVector(emit, *pieces, node.name() + "_dims");
    emitOp(emit, circle::BuiltinOperator::FILL, {dims, scalarConstant(emit, out->dtype(), value, node.name() + "_value")},
           out, options(circle::FillOptionsT{}));
  }
};

// arange(end) / arange(start, end) / arange(start, end, step).
class Arange final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *out = node.output();
    if (out->dtype() != DType::Float32 && out->dtype() != DType::Int32 && out->dtype() != DType::Int64)
      return "arange producing " + std::string(torchDTypeName(out->dtype())) + " is not supported";
    for (const Argument *a : bounds(node)) {
      if (a->isNumber())
        continue;
      if (a->isValue() && a->asValue()->kind() == ValueKind::SymInt)
        continue;
      return "arange bounds must be numbers or SymInts";
    }
    if (out->shape()[0].isStatic() && !symbolicBounds(node))
      return {};
    if (!symbolicBounds(node))
      return "arange with a symbolic length but number bounds";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    auto b = bounds(node);
    if (!symbolicBounds(node)) {
      double start = b[0]->asDouble(), step = b[2]->asDouble();
      int64_t n = out->shape()[0].value();
      std::vector<std::byte> bytes(static_cast<std::size_t>(n) * elementSize(out->dtype()));
      for (int64_t i = 0; i < n; ++i) {
        auto one = scalarData(out->dtype(), start + static_cast<double>(i) * step);
        std::memcpy(bytes.data() + i * static_cast<int64_t>(elementSize(out->dtype())), one->data(),
                    elementSize(out->dtype()));
      }
      emit.alias(out, emit.constant(std::make_shared<TensorData>(TensorData::fromBytes(out->dtype(), {n}, bytes)),
                                    node.name()));
      return;
    }
    // arange(n) with n a dim of a tensor: the value-free iota (static_shapes.cpp).
    if (b[0]->isNumber() && b[0]->asDouble() == 0.0 && b[2]->isNumber() && b[2]->asDouble() == 1.0 &&
        b[1]->isValue())
      if (auto dim = resolveSymbol(b[1]->asValue())) {
        const Dim &n = dim->input->shape()[static_cast<std::size_t>(dim->value)];
        int32_t iota =
            emitIotaOfDim(emit, dim->input, dim->value, out->dtype(), upperBound(*node.graph(), n), node.name());
        emit.alias(out, iota);
        return;
      }
    // RANGE computes in the dtype of its rank-0 operands; SymInts are int32 [1] tensors.
    DType dtype = out->dtype() == DType::Float32 ? DType::Float32 : DType::Int32;
    std::vector<int32_t> operands;
    const char *names[] = {"_start", "_limit", "_delta"};
    for (std::size_t i = 0; i < 3; ++i) {
      const std::string hint = node.name() + names[i];
      if (b[i]->isNumber()) {
        operands.push_back(scalarConstant(emit, dtype, b[i]->asDouble(), hint));
        continue;
      }
      int32_t t = castedTensor(emit, b[i]->asValue(), dtype, hint);
      int32_t scalar = emit.newTensor(dtype, Shape{}, hint + "_scalar");
      emit.addOperator(circle::BuiltinOperator::RESHAPE, {t, emit.constInt32({}, hint + "_shape")}, {scalar},
                       options(circle::ReshapeOptionsT{}));
      operands.push_back(scalar);
    }
    if (dtype == out->dtype()) {
      emitOp(emit, circle::BuiltinOperator::RANGE, operands, out, options(circle::RangeOptionsT{}));
      return;
    }
    int32_t range = emit.newTensor(dtype, out->shape(), node.name() + "_int32");
    emit.addOperator(circle::BuiltinOperator::RANGE, operands, {range}, options(circle::RangeOptionsT{}));
    emitCastInto(emit, range, dtype, out->dtype(), emit.tensor(out));
  }

private:
  // start, end, step with the defaults of the shorter overloads filled in.
  static std::vector<const Argument *> bounds(const Node &node) {
    static const Argument zero = Argument::integer(0), one = Argument::integer(1);
    const Argument *start = node.findArg("start");
    const Argument *step = node.findArg("step");
    return {start ? start : &zero, &node.arg("end"), step ? step : &one};
  }
  static bool symbolicBounds(const Node &node) {
    for (const Argument *a : bounds(node))
      if (a->isValue())
        return true;
    return false;
  }
};

} // namespace

void registerConstants(Registrar &r) {
  registerFor(r,
              {ops::aten::full_default, ops::aten::zeros_default, ops::aten::ones_default, ops::aten::empty_memory_format,
               ops::aten::full_like_default, ops::aten::zeros_like_default, ops::aten::ones_like_default,
               ops::aten::empty_like_default, ops::aten::new_zeros_default, ops::aten::new_ones_default,
               ops::aten::new_full_default, ops::aten::new_empty_default, ops::aten::fill_Scalar,
               ops::aten::scalar_tensor_default},
              "constant (a stride-0 view) when static, FILL over a runtime shape when symbolic",
              std::make_shared<Fill>());
  registerFor(r, {ops::aten::arange_default, ops::aten::arange_start, ops::aten::arange_start_step},
              "constant when static, RANGE when a bound is symbolic", std::make_shared<Arange>());
}

} // namespace tico::lowering
