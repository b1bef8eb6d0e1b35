// Row writes shared by the scatter-like lowerings: a one-hot match (onert runs it) or, for
// large operands, SCATTER_ND (see scatter_nd_emit.h).
#include "scatter_nd_emit.h"

namespace tico::lowering {
namespace {

Shape shapeOf(const std::vector<int64_t> &sizes) {
  Shape out;
  for (int64_t s : sizes)
    out.push_back(s);
  return out;
}

// SCATTER_ND of `updates` ([M] + row shape) at the offsets, into zeros of `shape`.
int32_t scatterNd(CircleEmitter &emit, const ScatterRows &s, int32_t updates, DType dtype,
                  const std::vector<int64_t> &shape, const std::string &hint) {
  int32_t indices = reshapeStatic(emit, s.offsets, DType::Int32, {s.count, 1}, hint + "_indices");
  int32_t out = emit.newTensor(dtype, shapeOf(shape), hint);
  emit.addOperator(circle::BuiltinOperator::SCATTER_ND, {indices, updates, int32Vector(emit, shape, hint + "_shape")},
                   {out}, options(circle::ScatterNdOptionsT{}));
  return out;
}

// bool [P, M] (or [P, M, 1] when `trailing_one`): whether offset k names row p.
int32_t rowMatch(CircleEmitter &emit, const ScatterRows &s, bool trailing_one, const std::string &hint) {
  std::vector<int32_t> iota(static_cast<std::size_t>(s.rows));
  for (std::size_t p = 0; p < iota.size(); ++p)
    iota[p] = static_cast<int32_t>(p);
  std::vector<int64_t> iota_shape = {s.rows, 1};
  std::vector<int64_t> offsets_shape = {1, s.count};
  std::vector<int64_t> match_shape = {s.rows, s.count};
  if (trailing_one) {
    iota_shape.push_back(1);
    offsets_shape.push_back(1);
    match_shape.push_back(1);
  }
  int32_t rows = emit.constant(
      std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, iota_shape, iota)), hint + "_rows");
  int32_t offsets = reshapeStatic(emit, s.offsets, DType::Int32, offsets_shape, hint + "_offsets");
  int32_t match = emit.newTensor(DType::Bool, shapeOf(match_shape), hint + "_match");
  emit.addOperator(circle::BuiltinOperator::EQUAL, {rows, offsets}, {match}, options(circle::EqualOptionsT{}));
  return match;
}

int32_t select(CircleEmitter &emit, int32_t condition, int32_t a, int32_t b, DType dtype,
               const std::vector<int64_t> &shape, const std::string &hint) {
  int32_t out = emit.newTensor(dtype, shapeOf(shape), hint);
  emit.addOperator(circle::BuiltinOperator::SELECT_V2, {condition, a, b}, {out}, options(circle::SelectV2OptionsT{}));
  return out;
}

} // namespace

int32_t int32Vector(CircleEmitter &emit, const std::vector<int64_t> &values, const std::string &hint) {
  return emit.constInt32(toInt32(values, hint), hint);
}

int32_t reshapeStatic(CircleEmitter &emit, int32_t input, DType dtype, const std::vector<int64_t> &shape,
                      const std::string &hint) {
  int32_t out = emit.newTensor(dtype, shapeOf(shape), hint);
  circle::ReshapeOptionsT reshape;
  reshape.new_shape = toInt32(shape, hint);
  emit.addOperator(circle::BuiltinOperator::RESHAPE, {input, int32Vector(emit, shape, hint + "_shape")}, {out},
                   options(std::move(reshape)));
  return out;
}

int32_t emitScatterAdd(CircleEmitter &emit, const ScatterRows &s, int32_t updates, const std::string &hint) {
  const std::vector<int64_t> rows_shape = {s.rows, s.row_size};
  int32_t summed = -1;
  if (s.rows * s.count * s.row_size > kOneHotLimit) {
    summed = scatterNd(emit, s, updates, s.dtype, rows_shape, hint + "_scattered");
  } else {
    int32_t match = rowMatch(emit, s, true, hint);
    int32_t spread = reshapeStatic(emit, updates, s.dtype, {1, s.count, s.row_size}, hint + "_updates");
    int32_t picked = select(emit, match, spread, scalarConstant(emit, s.dtype, 0, hint + "_zero"), s.dtype,
                            {s.rows, s.count, s.row_size}, hint + "_picked");
    summed = emit.newTensor(s.dtype, shapeOf(rows_shape), hint + "_summed");
    emitReduceInto(emit, circle::BuiltinOperator::SUM, picked, s.dtype, shapeOf({s.rows, s.count, s.row_size}), {1},
                   false, summed, hint + "_summed");
  }
  int32_t out = emit.newTensor(s.dtype, shapeOf(rows_shape), hint + "_sum");
  emit.addOperator(circle::BuiltinOperator::ADD, {s.data, summed}, {out}, options(circle::AddOptionsT{}));
  return out;
}

int32_t emitScatterReplace(CircleEmitter &emit, const ScatterRows &s, int32_t updates, bool scalar,
                           const std::string &hint) {
  const std::vector<int64_t> rows_shape = {s.rows, s.row_size};
  int32_t written = emit.newTensor(DType::Bool, Shape{s.rows, 1}, hint + "_written");
  int32_t source = updates;
  if (s.rows * s.count > kOneHotLimit) {
    // SCATTER_ND of ones counts the writes of each row; of the updates, their sum.
    auto ones = std::make_shared<TensorData>(TensorData::fromVector<int32_t>(
        DType::Int32, {s.count}, std::vector<int32_t>(static_cast<std::size_t>(s.count), 1)));
    int32_t writes =
        scatterNd(emit, s, emit.constant(ones, hint + "_ones"), DType::Int32, {s.rows}, hint + "_writes");
    int32_t positive = emit.newTensor(DType::Bool, Shape{s.rows}, hint + "_positive");
    emit.addOperator(circle::BuiltinOperator::GREATER, {writes, scalarConstant(emit, DType::Int32, 0, hint + "_zero")},
                     {positive}, options(circle::GreaterOptionsT{}));
    circle::ReshapeOptionsT reshape;
    reshape.new_shape = {toInt32(s.rows, "rows"), 1};
    emit.addOperator(circle::BuiltinOperator::RESHAPE, {positive, int32Vector(emit, {s.rows, 1}, hint + "_written_shape")},
                     {written}, options(std::move(reshape)));
    if (!scalar)
      source = scatterNd(emit, s, updates, s.dtype, rows_shape, hint + "_scattered");
  } else {
    int32_t match = rowMatch(emit, s, false, hint);
    emitReduceInto(emit, circle::BuiltinOperator::REDUCE_ANY, match, DType::Bool, shapeOf({s.rows, s.count}), {1}, true,
                   written, hint + "_written");
    if (!scalar) {
      // The writing update of each row: the last matching k, as PyTorch's sequential CPU kernels
      // leave it, found as ARG_MAX of match * (k + 1) (exact in float32 below 2^24 writes). Rows
      // nobody writes read update 0, which SELECT_V2 then discards.
      int32_t match_f = emit.newTensor(DType::Float32, shapeOf({s.rows, s.count}), hint + "_match_f32");
      emitCastInto(emit, match, DType::Bool, DType::Float32, match_f);
      std::vector<float> order(static_cast<std::size_t>(s.count));
      for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = static_cast<float>(k + 1);
      int32_t ranked = emit.newTensor(DType::Float32, shapeOf({s.rows, s.count}), hint + "_ranked");
      emit.addOperator(circle::BuiltinOperator::MUL,
                       {match_f, emit.constant(std::make_shared<TensorData>(TensorData::fromVector<float>(
                                                   DType::Float32, {1, s.count}, order)),
                                               hint + "_order")},
                       {ranked}, options(circle::MulOptionsT{}));
      int32_t which = emit.newTensor(DType::Int32, Shape{s.rows}, hint + "_which");
      circle::ArgMaxOptionsT argmax;
      argmax.output_type = circle::TensorType::INT32;
      emit.addOperator(circle::BuiltinOperator::ARG_MAX, {ranked, emit.constInt32({1}, hint + "_which_axis")}, {which},
                       options(std::move(argmax)));
      source = emit.newTensor(s.dtype, shapeOf(rows_shape), hint + "_gathered");
      circle::GatherOptionsT gather;
      gather.axis = 0;
      emit.addOperator(circle::BuiltinOperator::GATHER, {updates, which}, {source}, options(std::move(gather)));
    }
  }
  return select(emit, written, source, s.data, s.dtype, rows_shape, hint + "_replaced");
}

} // namespace tico::lowering
