// Value-free construction of tensors whose shape has symbolic dims.
//
// onert 0.2 infers shapes statically from the input shapes it is given; an operator whose
// result shape comes from tensor *values* (FILL, RANGE, BROADCAST_TO, RESHAPE over a SHAPE
// computation) makes its result dynamic, and a graph output that depends on one fails at run
// time ("num_elements() cannot calculate when any dimension is unspecified"). When every
// symbolic dim of a result is a dim of a tensor the model already has, the result can be
// built with shape-preserving operators only: that dim is sliced out of the tensor as a 1-D
// vector (STRIDED_SLICE with shrink_axis_mask), turned into zeros (ZEROS_LIKE), reshaped to
// [1, .., n, .., 1] (a constant shape with one -1) and broadcast-added with the others. Every
// step's shape follows from its inputs' shapes, so onert keeps the graph static.
#include "support.h"

namespace tico::lowering {

std::optional<VectorPiece> resolveSymbol(const Value *symbol) {
  const Node *n = symbol->producer();
  if (!n)
    return std::nullopt;
  auto dimOf = [](const Value *tensor, int64_t dim) -> std::optional<VectorPiece> {
    if (!tensor->isTensor() || dim < -tensor->rank() || dim >= tensor->rank())
      return std::nullopt;
    VectorPiece p;
    p.kind = VectorPiece::Kind::InputDim;
    p.input = tensor;
    p.value = dim < 0 ? dim + tensor->rank() : dim;
    return p;
  };
  if (n->op() == OpKey("aten", "sym_size", "int") && n->arg(1).isInt())
    return dimOf(n->input(0), n->arg(1).asInt());
  // convert-sym-size-to-circle-shape: _local_scalar_dense(slice(circle::shape(t), 0, d, d + 1)).
  if (n->op() == OpKey("aten", "_local_scalar_dense")) {
    const Node *slice = n->input(0)->producer();
    if (!slice || slice->op() != OpKey("aten", "slice", "Tensor") || !slice->arg("start").isInt())
      return std::nullopt;
    const Node *shape = slice->input(0)->producer();
    if (!shape || shape->op() != OpKey("circle", "shape"))
      return std::nullopt;
    return dimOf(shape->input(0), slice->arg("start").asInt());
  }
  return std::nullopt;
}

namespace {

// The pieces with SymInts replaced by the tensor dims they read, when they all resolve.
std::optional<std::vector<VectorPiece>> tensorDims(const std::vector<VectorPiece> &pieces) {
  std::vector<VectorPiece> out = pieces;
  for (VectorPiece &p : out) {
    if (p.kind != VectorPiece::Kind::Symbol)
      continue;
    auto resolved = resolveSymbol(p.symbol);
    if (!resolved)
      return std::nullopt;
    p = *resolved;
  }
  return out;
}

// dim `d` of `t` as a 1-D tensor of zeros of `dtype`, shaped [1, .., n, .., 1] (rank `rank`,
// n at `position`).
int32_t dimCarrier(CircleEmitter &emit, const Value *t, int64_t d, DType dtype, std::size_t rank,
                   std::size_t position, const std::string &hint) {
  const Dim &n = t->shape()[static_cast<std::size_t>(d)];
  std::vector<int32_t> begin(static_cast<std::size_t>(t->rank()), 0), end(static_cast<std::size_t>(t->rank()), 1),
      strides(static_cast<std::size_t>(t->rank()), 1);
  circle::StridedSliceOptionsT slice;
  slice.begin_mask = 1 << d;
  slice.end_mask = 1 << d;
  slice.shrink_axis_mask = ((1 << t->rank()) - 1) & ~(1 << d);
  int32_t vector = emit.newTensor(t->dtype(), Shape{n}, hint + "_extent");
  emit.addOperator(circle::BuiltinOperator::STRIDED_SLICE,
                   {emit.tensor(t), emit.constInt32(begin, hint + "_begin"), emit.constInt32(end, hint + "_end"),
                    emit.constInt32(strides, hint + "_strides")},
                   {vector}, options(std::move(slice)));
  // ZEROS_LIKE in float32 or int32, which every runtime takes (onert has no int64 or bool
  // ZEROS_LIKE): in the tensor's own type when it is one of them, else in the one closest to
  // `dtype`; the zeros are cast to `dtype` after.
  const bool native = t->dtype() == DType::Float32 || t->dtype() == DType::Int32;
  const DType compute = native ? t->dtype() : isFloating(dtype) ? DType::Float32 : DType::Int32;
  if (t->dtype() != compute) {
    int32_t cast = emit.newTensor(compute, Shape{n}, hint + "_cast");
    emitCastInto(emit, vector, t->dtype(), compute, cast);
    vector = cast;
  }
  int32_t zeros = emit.newTensor(compute, Shape{n}, hint + "_zeros");
  emit.addOperator(circle::BuiltinOperator::ZEROS_LIKE, {vector}, {zeros}, options(circle::ZerosLikeOptionsT{}));
  if (compute != dtype) {
    int32_t cast = emit.newTensor(dtype, Shape{n}, hint + "_zeros_cast");
    emitCastInto(emit, zeros, compute, dtype, cast);
    zeros = cast;
  }
  if (rank == 1)
    return zeros;
  Shape placed(rank, Dim(1));
  placed[position] = n;
  int32_t out = emit.newTensor(dtype, placed, hint + "_placed");
  emitReshapeInto(emit, zeros, placed, nullptr, nullptr, out, hint + "_placed");
  return out;
}

} // namespace

bool canBuildStatically(const std::vector<VectorPiece> &pieces, DType dtype) {
  if (dtype == DType::Bool || !isNumericDType(dtype))
    return false;
  return tensorDims(pieces).has_value();
}

int32_t emitZerosOfShape(CircleEmitter &emit, const std::vector<VectorPiece> &pieces, const Shape &shape, DType dtype,
                         const std::string &hint) {
  auto dims = tensorDims(pieces);
  if (!dims)
    throw Error("internal: emitZerosOfShape needs every symbolic dim to be a tensor dim");
  std::size_t rank = shape.size();
  // Static dims: one constant of zeros with 1 in the symbolic positions.
  std::vector<int64_t> base_sizes;
  bool any_static = false;
  for (const VectorPiece &p : *dims) {
    base_sizes.push_back(p.kind == VectorPiece::Kind::Constant ? p.value : 1);
    any_static = any_static || (p.kind == VectorPiece::Kind::Constant && p.value != 1);
  }
  int32_t current = -1;
  Shape current_shape;
  if (any_static) {
    current = emit.constant(zeros(dtype, base_sizes), hint + "_static_zeros");
    current_shape = staticShape(base_sizes);
  }
  for (std::size_t i = 0; i < rank; ++i) {
    const VectorPiece &p = (*dims)[i];
    if (p.kind != VectorPiece::Kind::InputDim)
      continue;
    int32_t carrier = dimCarrier(emit, p.input, p.value, dtype, rank, i, hint + "_dim" + std::to_string(i));
    Shape carrier_shape(rank, Dim(1));
    carrier_shape[i] = shape[i];
    if (current < 0) {
      current = carrier;
      current_shape = carrier_shape;
      continue;
    }
    Shape sum_shape = current_shape;
    for (std::size_t k = 0; k < rank; ++k)
      if (carrier_shape[k] != Dim(1))
        sum_shape[k] = carrier_shape[k];
    int32_t sum = emit.newTensor(dtype, sum_shape, hint + "_broadcast");
    emit.addOperator(circle::BuiltinOperator::ADD, {current, carrier}, {sum}, options(circle::AddOptionsT{}));
    current = sum;
    current_shape = sum_shape;
  }
  if (current < 0) // every dim static (only 1s): a constant
    current = emit.constant(zeros(dtype, base_sizes), hint + "_static_zeros");
  return current;
}

std::optional<int64_t> upperBound(const Graph &graph, const Dim &dim) {
  if (dim.isStatic())
    return dim.value();
  auto range = graph.symbols().find(dim.expr());
  if (range == graph.symbols().end() || !range->second.max)
    return std::nullopt;
  return *range->second.max;
}

namespace {

// The RANGE form: value-dependent (onert makes the result dynamic), for unbounded sizes.
int32_t emitRangeOfDim(CircleEmitter &emit, const Value *t, int64_t d, const Dim &n, const std::string &hint) {
  VectorPiece piece;
  piece.kind = VectorPiece::Kind::InputDim;
  piece.value = d;
  piece.input = t;
  int32_t size = emitIntVector(emit, {piece}, hint + "_size");
  int32_t limit = emit.newTensor(DType::Int32, Shape{}, hint + "_limit");
  emit.addOperator(circle::BuiltinOperator::RESHAPE, {size, emit.constInt32({}, hint + "_scalar_shape")}, {limit},
                   options(circle::ReshapeOptionsT{}));
  int32_t iota = emit.newTensor(DType::Float32, Shape{n}, hint + "_iota");
  int32_t limit_f = emit.newTensor(DType::Float32, Shape{}, hint + "_limit_f32");
  emitCastInto(emit, limit, DType::Int32, DType::Float32, limit_f);
  emit.addOperator(circle::BuiltinOperator::RANGE,
                   {emit.scalarFloat(0.0f, hint + "_start"), limit_f, emit.scalarFloat(1.0f, hint + "_delta")}, {iota},
                   options(circle::RangeOptionsT{}));
  return iota;
}

} // namespace

int32_t emitIotaOfDim(CircleEmitter &emit, const Value *t, int64_t d, DType dtype, std::optional<int64_t> bound,
                      const std::string &hint) {
  const Dim &n = t->shape()[static_cast<std::size_t>(d)];
  int32_t iota = -1;
  if (bound && *bound >= 1 && *bound <= kMaxConvolvedIota) {
    // Counting with a convolution: ones(n) after M - 1 zeros, convolved (VALID) with M ones,
    // give j + 1 at position j for n <= M. Every shape follows from the input's.
    const int64_t m = *bound;
    int32_t zeros = dimCarrier(emit, t, d, DType::Float32, 4, 2, hint);
    Shape line{1, 1, n, 1};
    int32_t ones = emit.newTensor(DType::Float32, line, hint + "_ones");
    emit.addOperator(circle::BuiltinOperator::ADD, {zeros, emit.scalarFloat(1.0f, hint + "_one")}, {ones},
                     options(circle::AddOptionsT{}));
    Shape padded_shape{1, 1, n.isStatic() ? Dim(n.value() + m - 1) : Dim::symbolic(n.expr() + " + " + std::to_string(m - 1), n.value() + m - 1), 1};
    int32_t padded = emit.newTensor(DType::Float32, padded_shape, hint + "_padded");
    emit.addOperator(circle::BuiltinOperator::PAD,
                     {ones, emit.constant(std::make_shared<TensorData>(TensorData::fromVector<int32_t>(
                                              DType::Int32, {4, 2}, {0, 0, 0, 0, static_cast<int32_t>(m - 1), 0, 0, 0})),
                                          hint + "_paddings")},
                     {padded}, options(circle::PadOptionsT{}));
    int32_t filter = emit.constFloat(std::vector<float>(static_cast<std::size_t>(m), 1.0f), {1, 1, m, 1}, hint + "_window");
    int32_t bias = emit.constFloat({0.0f}, {1}, hint + "_bias");
    int32_t counts = emit.newTensor(DType::Float32, line, hint + "_counts");
    circle::Conv2DOptionsT conv;
    conv.padding = circle::Padding::VALID;
    conv.stride_h = conv.stride_w = 1;
    conv.dilation_h_factor = conv.dilation_w_factor = 1;
    emit.addOperator(circle::BuiltinOperator::CONV_2D, {padded, filter, bias}, {counts}, options(std::move(conv)));
    int32_t flat = emit.newTensor(DType::Float32, Shape{n}, hint + "_flat");
    emitReshapeInto(emit, counts, Shape{n}, nullptr, nullptr, flat, hint + "_flat");
    iota = emit.newTensor(DType::Float32, Shape{n}, hint + "_iota");
    emit.addOperator(circle::BuiltinOperator::SUB, {flat, emit.scalarFloat(1.0f, hint + "_one")}, {iota},
                     options(circle::SubOptionsT{}));
  } else {
    iota = emitRangeOfDim(emit, t, d, n, hint);
  }
  if (dtype == DType::Float32)
    return iota;
  int32_t cast = emit.newTensor(dtype, Shape{n}, hint + "_cast");
  emitCastInto(emit, iota, DType::Float32, dtype, cast);
  return cast;
}

} // namespace tico::lowering
