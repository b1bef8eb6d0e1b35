#include "support.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

namespace tico::lowering {

void registerFor(Registrar &registrar, OpRefs ops, const std::string &summary,
                 std::shared_ptr<const OpLowering> lowering, int priority) {
  for (const OpRef &op : ops) {
    LoweringSpec spec;
    spec.op = op.key();
    spec.summary = summary;
    spec.priority = priority;
    spec.lowering = lowering;
    registrar.addLowering(std::move(spec));
  }
}

// ---- argument decoding ----------------------------------------------------------------------

std::vector<int64_t> intList(const Argument &arg, std::size_t n, std::string_view what) {
  if (arg.isInt())
    return std::vector<int64_t>(n, arg.asInt());
  if (arg.kind() == Argument::Kind::SymIntList)
    throw Error(std::string(what) + " is symbolic");
  const auto &v = arg.asInts();
  if (v.size() == n)
    return v;
  if (v.size() == 1)
    return std::vector<int64_t>(n, v[0]);
  throw Error(std::string(what) + " has " + std::to_string(v.size()) + " elements, expected " + std::to_string(n));
}

int32_t toInt32(int64_t value, std::string_view what) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max())
    throw Error(std::string(what) + " value " + std::to_string(value) + " does not fit the int32 Circle operand");
  return static_cast<int32_t>(value);
}

std::vector<int32_t> toInt32(const std::vector<int64_t> &values, std::string_view what) {
  std::vector<int32_t> out;
  out.reserve(values.size());
  for (int64_t v : values)
    out.push_back(toInt32(v, what));
  return out;
}

std::optional<double> numberOf(const Argument &arg) {
  if (arg.isNumber())
    return arg.asDouble();
  return std::nullopt;
}

// ---- shapes -----------------------------------------------------------------------------------

int countSymbolic(const Shape &shape) {
  int n = 0;
  for (const Dim &d : shape)
    n += d.isSymbolic() ? 1 : 0;
  return n;
}

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm) {
  Shape out;
  out.reserve(perm.size());
  for (int64_t p : perm)
    out.push_back(shape.at(static_cast<std::size_t>(p)));
  return out;
}

std::vector<int64_t> identityPermutation(int64_t rank) {
  std::vector<int64_t> perm(static_cast<std::size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

std::vector<int64_t> swapWithLast(int64_t dim, int64_t rank) {
  auto perm = identityPermutation(rank);
  std::swap(perm[static_cast<std::size_t>(dim)], perm.back());
  return perm;
}

// ---- constant data ----------------------------------------------------------------------------

std::shared_ptr<const TensorData> permutedView(const std::shared_ptr<const TensorData> &data,
                                               const std::vector<int64_t> &perm) {
  if (perm.size() != data->sizes.size())
    throw Error("permutation of rank " + std::to_string(perm.size()) + " applied to a constant of rank " +
                std::to_string(data->sizes.size()));
  auto view = std::make_shared<TensorData>();
  view->storage = data->storage;
  view->dtype = data->dtype;
  view->storage_offset = data->storage_offset;
  for (int64_t p : perm) {
    view->sizes.push_back(data->sizes.at(static_cast<std::size_t>(p)));
    view->strides.push_back(data->strides.at(static_cast<std::size_t>(p)));
  }
  return view;
}

std::shared_ptr<const TensorData> zeros(DType dtype, std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  std::vector<std::byte> bytes(static_cast<std::size_t>(n) * elementSize(dtype), std::byte{0});
  return std::make_shared<TensorData>(TensorData::fromBytes(dtype, std::move(sizes), std::move(bytes)));
}

bool isNumericDType(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::UInt8:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Float32:
  case DType::Float64:
    return true;
  default:
    return false;
  }
}

bool isConstantDType(DType dtype) {
  return isNumericDType(dtype) || dtype == DType::Float16 || dtype == DType::BFloat16;
}

namespace {

// IEEE binary16 bits of `value`, rounded to nearest even (overflow to inf, NaN kept).
uint16_t toHalfBits(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t exponent = (f >> 23) & 0xffu;
  uint32_t mantissa = f & 0x7fffffu;
  if (exponent == 0xffu) // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
  if (e >= 31)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) { // subnormal or zero
    if (e < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; // may carry into the exponent, which is still correct rounding
  return static_cast<uint16_t>(sign | half);
}

// bfloat16 bits of `value`: the high half of the float32, rounded to nearest even.
uint16_t toBFloat16Bits(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu))
    return static_cast<uint16_t>((f >> 16) | 0x40u); // quiet NaN
  uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

template <typename T> std::shared_ptr<const TensorData> scalarOf(DType dtype, T value) {
  return std::make_shared<TensorData>(TensorData::fromVector<T>(dtype, {}, {value}));
}

template <typename T> T integral(double value) {
  // PyTorch truncates a float scalar toward zero when the tensor is integral.
  double t = std::trunc(value);
  if (!(t >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
        t <= static_cast<double>(std::numeric_limits<T>::max())))
    throw Error("scalar " + std::to_string(value) + " does not fit the tensor's integer type");
  return static_cast<T>(t);
}

} // namespace

std::shared_ptr<const TensorData> scalarData(DType dtype, double value) {
  switch (dtype) {
  case DType::Bool:
    return scalarOf<uint8_t>(dtype, value != 0.0 ? 1 : 0);
  case DType::UInt8:
    return scalarOf<uint8_t>(dtype, integral<uint8_t>(value));
  case DType::Int8:
    return scalarOf<int8_t>(dtype, integral<int8_t>(value));
  case DType::Int16:
    return scalarOf<int16_t>(dtype, integral<int16_t>(value));
  case DType::Int32:
    return scalarOf<int32_t>(dtype, integral<int32_t>(value));
  case DType::Int64:
    return scalarOf<int64_t>(dtype, integral<int64_t>(value));
  case DType::Float32:
    return scalarOf<float>(dtype, static_cast<float>(value));
  case DType::Float64:
    return scalarOf<double>(dtype, value);
  case DType::Float16:
    return scalarOf<uint16_t>(dtype, toHalfBits(static_cast<float>(value)));
  case DType::BFloat16:
    return scalarOf<uint16_t>(dtype, toBFloat16Bits(static_cast<float>(value)));
  default:
    throw Error("cannot build a " + std::string(dtypeName(dtype)) + " scalar constant");
  }
}

std::shared_ptr<const TensorData> lowestScalar(DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return scalarOf<float>(dtype, -std::numeric_limits<float>::infinity());
  case DType::Float64:
    return scalarOf<double>(dtype, -std::numeric_limits<double>::infinity());
  case DType::UInt8:
    return scalarOf<uint8_t>(dtype, 0);
  case DType::Int8:
    return scalarOf<int8_t>(dtype, std::numeric_limits<int8_t>::lowest());
  case DType::Int16:
    return scalarOf<int16_t>(dtype, std::numeric_limits<int16_t>::lowest());
  case DType::Int32:
    return scalarOf<int32_t>(dtype, std::numeric_limits<int32_t>::lowest());
  case DType::Int64:
    return scalarOf<int64_t>(dtype, std::numeric_limits<int64_t>::lowest());
  default:
    throw Error("no lowest value for " + std::string(dtypeName(dtype)));
  }
}

// ---- emission -----------------------------------------------------------------------------

void emitOp(CircleEmitter &emit, circle::BuiltinOperator op, std::vector<int32_t> inputs, const Value *output,
            circle::BuiltinOptionsUnion options) {
  int32_t out = emit.tensor(output);
  emit.addOperator(op, std::move(inputs), {out}, std::move(options));
}

void emitTransposeInto(CircleEmitter &emit, int32_t input, const std::vector<int64_t> &perm, int32_t output,
                       const std::string &hint) {
  int32_t perm_tensor = emit.constInt32(toInt32(perm, "permutation"), hint + "_perm");
  emit.addOperator(circle::BuiltinOperator::TRANSPOSE, {input, perm_tensor}, {output},
                   options(circle::TransposeOptionsT{}));
}

int32_t emitTranspose(CircleEmitter &emit, int32_t input, DType dtype, const Shape &shape,
                      const std::vector<int64_t> &perm, const std::string &hint) {
  int32_t out = emit.newTensor(dtype, permuteShape(shape, perm), hint);
  emitTransposeInto(emit, input, perm, out, hint);
  return out;
}

void emitIdentity(CircleEmitter &emit, int32_t input, int64_t rank, int32_t output, const std::string &hint) {
  if (rank == 0) {
    emit.addOperator(circle::BuiltinOperator::RESHAPE, {input, emit.constInt32({}, hint + "_shape")}, {output},
                     options(circle::ReshapeOptionsT{}));
    return;
  }
  emitTransposeInto(emit, input, identityPermutation(rank), output, hint);
}

namespace {

// The element type a value has in Circle: symbolic integers are int32 tensors.
DType circleDTypeOf(const Value *value) { return value->isTensor() ? value->dtype() : DType::Int32; }

Shape circleShapeOf(const Value *value) { return value->isTensor() ? value->shape() : Shape{1}; }

} // namespace

void emitCastInto(CircleEmitter &emit, int32_t input, DType from, DType to, int32_t output) {
  circle::CastOptionsT cast;
  cast.in_data_type = toCircleType(from);
  cast.out_data_type = toCircleType(to);
  emit.addOperator(circle::BuiltinOperator::CAST, {input}, {output}, options(std::move(cast)));
}

int32_t castedTensor(CircleEmitter &emit, const Value *value, DType dtype, const std::string &hint) {
  int32_t t = emit.tensor(value);
  DType from = circleDTypeOf(value);
  if (from == dtype)
    return t;
  int32_t out = emit.newTensor(dtype, circleShapeOf(value), hint);
  emitCastInto(emit, t, from, dtype, out);
  return out;
}

int32_t scalarConstant(CircleEmitter &emit, DType dtype, double value, const std::string &hint) {
  return emit.constant(scalarData(dtype, value), hint);
}

std::optional<std::vector<VectorPiece>> shapePieces(const Shape &target, const Argument *sizes,
                                                    const Value *reference, bool allow_minus_one) {
  const std::vector<SymIntElem> *elems = nullptr;
  if (sizes && sizes->kind() == Argument::Kind::SymIntList && sizes->asSymInts().size() == target.size())
    elems = &sizes->asSymInts();
  std::vector<VectorPiece> pieces(target.size());
  std::vector<std::size_t> unresolved;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const Dim &d = target[i];
    VectorPiece &p = pieces[i];
    if (d.isStatic()) {
      p.value = d.value();
      continue;
    }
    if (elems && (*elems)[i].sym) {
      p.kind = VectorPiece::Kind::Symbol;
      p.symbol = (*elems)[i].sym;
      continue;
    }
    if (reference && reference->isTensor()) {
      const Shape &ref = reference->shape();
      std::optional<std::size_t> found;
      // Right-aligned position first (broadcasting), then any dim with the same expression.
      std::size_t offset = target.size() >= ref.size() ? target.size() - ref.size() : 0;
      if (i >= offset && i - offset < ref.size() && ref[i - offset].isSymbolic() && ref[i - offset].expr() == d.expr())
        found = i - offset;
      for (std::size_t j = 0; !found && j < ref.size(); ++j)
        if (ref[j].isSymbolic() && ref[j].expr() == d.expr())
          found = j;
      if (found) {
        p.kind = VectorPiece::Kind::InputDim;
        p.input = reference;
        p.value = static_cast<int64_t>(*found);
        continue;
      }
    }
    unresolved.push_back(i);
  }
  if (unresolved.empty())
    return pieces;
  if (unresolved.size() == 1 && allow_minus_one) {
    pieces[unresolved.front()].value = -1;
    return pieces;
  }
  return std::nullopt;
}

bool allConstant(const std::vector<VectorPiece> &pieces) {
  for (const auto &p : pieces)
    if (p.kind != VectorPiece::Kind::Constant)
      return false;
  return true;
}

std::vector<int32_t> constantValues(const std::vector<VectorPiece> &pieces, std::string_view what) {
  std::vector<int32_t> out;
  for (const auto &p : pieces)
    out.push_back(toInt32(p.value, what));
  return out;
}

int32_t emitIntVector(CircleEmitter &emit, const std::vector<VectorPiece> &pieces, const std::string &hint) {
  if (allConstant(pieces))
    return emit.constInt32(constantValues(pieces, hint), hint);
  std::vector<int32_t> parts;
  std::vector<int32_t> run;
  std::map<const Value *, int32_t> shapes; // one SHAPE per input tensor
  auto flush = [&] {
    if (run.empty())
      return;
    parts.push_back(emit.constInt32(run, hint + "_part"));
    run.clear();
  };
  for (const auto &p : pieces) {
    switch (p.kind) {
    case VectorPiece::Kind::Constant:
      run.push_back(toInt32(p.value, hint));
      break;
    case VectorPiece::Kind::Symbol:
      flush();
      parts.push_back(castedTensor(emit, p.symbol, DType::Int32, hint + "_sym"));
      break;
    case VectorPiece::Kind::InputDim: {
      flush();
      auto it = shapes.find(p.input);
      if (it == shapes.end()) {
        int32_t shape = emit.newTensor(DType::Int32, Shape{p.input->rank()}, hint + "_shape");
        circle::ShapeOptionsT shape_options;
        shape_options.out_type = circle::TensorType::INT32;
        emit.addOperator(circle::BuiltinOperator::SHAPE, {emit.tensor(p.input)}, {shape},
                         options(std::move(shape_options)));
        it = shapes.emplace(p.input, shape).first;
      }
      int32_t dim = emit.newTensor(DType::Int32, Shape{1}, hint + "_dim");
      emit.addOperator(circle::BuiltinOperator::GATHER,
                       {it->second, emit.constInt32({toInt32(p.value, "dim")}, hint + "_index")}, {dim},
                       options(circle::GatherOptionsT{}));
      parts.push_back(dim);
      break;
    }
    }
  }
  flush();
  if (parts.size() == 1)
    return parts.front();
  int32_t out = emit.newTensor(DType::Int32, Shape{static_cast<int64_t>(pieces.size())}, hint);
  circle::ConcatenationOptionsT concat;
  concat.axis = 0;
  emit.addOperator(circle::BuiltinOperator::CONCATENATION, parts, {out}, options(std::move(concat)));
  return out;
}

std::string reshapeUnsupported(const Shape &target, const Argument *sizes, const Value *reference) {
  if (countSymbolic(target) <= 1)
    return {};
  if (shapePieces(target, sizes, reference, true))
    return {};
  return "the target shape " + shapeString(target) +
         " has several symbolic dims and the node does not say how to compute them at runtime";
}

namespace {

// A reshape that only inserts or removes static unit dims (the other dims equal one by one,
// symbolic ones by expression) as SQUEEZE + EXPAND_DIMS, whose result shapes follow from the
// input's: a RESHAPE to a shape computed at run time (several symbolic dims) makes onert's
// static shape inference give up on everything downstream. False when it does not apply.
bool emitUnitDimReshape(CircleEmitter &emit, int32_t input, const Value *reference, const Shape &target, int32_t output,
                        const std::string &hint) {
  if (!reference || !reference->isTensor())
    return false;
  const Shape &from = reference->shape();
  auto unit = [](const Dim &d) { return d.isStatic() && d.value() == 1; };
  Shape core;
  std::vector<int32_t> squeeze;
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (unit(from[i]))
      squeeze.push_back(static_cast<int32_t>(i));
    else
      core.push_back(from[i]);
  }
  Shape target_core;
  std::vector<std::size_t> expand;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (unit(target[i]))
      expand.push_back(i);
    else
      target_core.push_back(target[i]);
  }
  if (core != target_core || (squeeze.empty() && expand.empty()))
    return false;
  const DType dtype = reference->dtype();
  const std::size_t steps = (squeeze.empty() ? 0 : 1) + expand.size();
  std::size_t step = 0;
  int32_t current = input;
  Shape shape = core;
  auto next = [&](const Shape &s, const std::string &suffix) {
    return ++step == steps ? output : emit.newTensor(dtype, s, hint + suffix);
  };
  if (!squeeze.empty()) {
    circle::SqueezeOptionsT options_table;
    options_table.squeeze_dims = squeeze;
    int32_t out = next(shape, "_squeezed");
    emit.addOperator(circle::BuiltinOperator::SQUEEZE, {current}, {out}, options(std::move(options_table)));
    current = out;
  }
  for (std::size_t position : expand) {
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(position), Dim(1));
    int32_t out = next(shape, "_unsqueezed" + std::to_string(position));
    emit.addOperator(circle::BuiltinOperator::EXPAND_DIMS,
                     {current, emit.constInt32({static_cast<int32_t>(position)}, hint + "_axis" + std::to_string(position))},
                     {out}, options(circle::ExpandDimsOptionsT{}));
    current = out;
  }
  return true;
}

// Splits or merges the last static dim next to a shared prefix of dims (the symbolic ones by
// expression): [b, s, h*d] <-> [b, s, h, d], attention's head split and merge. With batch and
// sequence both dynamic a RESHAPE needs a shape computed at run time, which onert 0.2 cannot
// infer; SPLIT + PACK (UNPACK + CONCATENATION to merge) give the same row-major order with
// result shapes that follow from the input's. False when it does not apply.
bool emitHeadReshape(CircleEmitter &emit, int32_t input, const Value *reference, const Shape &target, int32_t output,
                     const std::string &hint) {
  constexpr int64_t kMaxPieces = 256; // one operator output per head
  if (!reference || !reference->isTensor())
    return false;
  const Shape &from = reference->shape();
  const bool split = target.size() == from.size() + 1;
  if (!split && from.size() != target.size() + 1)
    return false;
  const std::size_t prefix = std::min(from.size(), target.size()) - 1;
  for (std::size_t i = 0; i < prefix; ++i)
    if (!(from[i] == target[i]))
      return false;
  const Shape &wide = split ? target : from; // the side with [h, d]
  const Shape &narrow = split ? from : target;
  const Dim &h = wide[prefix], &d = wide[prefix + 1], &c = narrow[prefix];
  if (!h.isStatic() || !d.isStatic() || !c.isStatic() || h.value() * d.value() != c.value() || h.value() < 2 ||
      h.value() > kMaxPieces)
    return false;
  const DType dtype = reference->dtype();
  const auto axis = static_cast<int32_t>(prefix);
  Shape piece(narrow.begin(), narrow.begin() + static_cast<std::ptrdiff_t>(prefix));
  piece.push_back(d);
  std::vector<int32_t> pieces;
  for (int64_t i = 0; i < h.value(); ++i)
    pieces.push_back(emit.newTensor(dtype, piece, hint + "_head" + std::to_string(i)));
  if (split) {
    circle::SplitOptionsT split_options;
    split_options.num_splits = static_cast<int32_t>(h.value());
    emit.addOperator(circle::BuiltinOperator::SPLIT, {emit.constInt32({axis}, hint + "_axis"), input}, pieces,
                     options(std::move(split_options)));
    circle::PackOptionsT pack;
    pack.values_count = static_cast<int32_t>(h.value());
    pack.axis = axis;
    emit.addOperator(circle::BuiltinOperator::PACK, pieces, {output}, options(std::move(pack)));
  } else {
    circle::UnpackOptionsT unpack;
    unpack.num = static_cast<int32_t>(h.value());
    unpack.axis = axis;
    emit.addOperator(circle::BuiltinOperator::UNPACK, {input}, pieces, options(std::move(unpack)));
    circle::ConcatenationOptionsT concat;
    concat.axis = axis;
    emit.addOperator(circle::BuiltinOperator::CONCATENATION, pieces, {output}, options(std::move(concat)));
  }
  return true;
}

} // namespace

void emitReshapeInto(CircleEmitter &emit, int32_t input, const Shape &target, const Argument *sizes,
                     const Value *reference, int32_t output, const std::string &hint) {
  std::vector<VectorPiece> pieces;
  if (countSymbolic(target) > 1 && (emitUnitDimReshape(emit, input, reference, target, output, hint) ||
                                    emitHeadReshape(emit, input, reference, target, output, hint)))
    return;
  if (countSymbolic(target) <= 1) {
    // A constant shape with -1 for the one unknown dim keeps the model free of shape math.
    for (const Dim &d : target) {
      VectorPiece p;
      p.value = d.isSymbolic() ? -1 : d.value();
      pieces.push_back(p);
    }
  } else {
    auto resolved = shapePieces(target, sizes, reference, true);
    if (!resolved)
      throw Error(reshapeUnsupported(target, sizes, reference));
    pieces = std::move(*resolved);
  }
  circle::ReshapeOptionsT reshape;
  // A rank-0 target leaves new_shape out: onert 0.2 crashes on a present but empty one.
  if (allConstant(pieces) && !pieces.empty())
    reshape.new_shape = constantValues(pieces, "reshape size");
  int32_t shape = emitIntVector(emit, pieces, hint + "_shape");
  emit.addOperator(circle::BuiltinOperator::RESHAPE, {input, shape}, {output}, options(std::move(reshape)));
}

// ---- common checks ---------------------------------------------------------------------------

std::string requireFloat(const Value *value, std::string_view what) {
  if (value->dtype() == DType::Float32)
    return {};
  return std::string(what) + " is computed in float32; '" + value->name() + "' is " +
         std::string(torchDTypeName(value->dtype()));
}

std::string requireFloatOrQuantized(const Value *value, std::string_view what) {
  if (value->isQuantized())
    return {};
  return requireFloat(value, what);
}

std::string quantizedOperands(const Node &node, std::string_view what) {
  const Value *input = node.input(0);
  const Value *weight = node.input(1);
  const Value *out = node.output();
  const Argument *bias = node.findArg("bias");
  const Value *b = bias != nullptr && bias->isValue() ? bias->asValue() : nullptr;
  const bool any = input->isQuantized() || weight->isQuantized() || out->isQuantized() || (b && b->isQuantized());
  if (!any)
    return {};
  for (const Value *v : {input, weight, out, b})
    if (v != nullptr && !v->isQuantized())
      return "quantized " + std::string(what) + " needs quantized input, weight, result and bias; '" + v->name() +
             "' has no quantization parameters";
  if (b == nullptr && what != "FULLY_CONNECTED")
    return "quantized " + std::string(what) + " needs a quantized bias (the quantize-bias pass makes one)";
  return {};
}

bool anyQuantized(const std::vector<const Value *> &values) {
  for (const Value *v : values)
    if (v != nullptr && v->isQuantized())
      return true;
  return false;
}

bool anyQuantized(std::initializer_list<const Value *> values) {
  return anyQuantized(std::vector<const Value *>(values));
}

std::string quantizedSameType(const std::vector<const Value *> &values, std::string_view what) {
  const Value *first = nullptr;
  for (const Value *v : values) {
    if (!v->isQuantized())
      return "quantized " + std::string(what) + " needs quantized operands and result; '" + v->name() +
             "' has no quantization parameters";
    if (!v->quant()->isPerTensor())
      return "quantized " + std::string(what) + " takes per-tensor parameters; '" + v->name() +
             "' is quantized per channel";
    if (first == nullptr)
      first = v;
    else if (v->dtype() != first->dtype())
      return "quantized " + std::string(what) + " reads and writes one type; '" + first->name() + "' is " +
             std::string(torchDTypeName(first->dtype())) + " and '" + v->name() + "' is " +
             std::string(torchDTypeName(v->dtype())) + " (insert-quantize-on-dtype-mismatch requantizes them)";
  }
  return {};
}

int32_t biasTensor(CircleEmitter &emit, const Value *bias, const Value *out, DType dtype, const std::string &hint) {
  if (bias->isQuantized() || out->isQuantized())
    return emit.tensor(bias);
  return castedTensor(emit, bias, dtype, hint);
}

IndexTensors adjacentIndexTensors(const std::vector<Value *> &indices) {
  IndexTensors out;
  bool seen = false, ended = false;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i]) {
      ended = seen;
      continue;
    }
    if (ended)
      throw Error("index tensors separated by full slices are not supported");
    if (!seen)
      out.first = i;
    seen = true;
    out.tensors.push_back(indices[i]);
  }
  return out;
}

} // namespace tico::lowering
