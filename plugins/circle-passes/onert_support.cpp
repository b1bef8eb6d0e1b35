#include "onert_support.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace tico::circle_passes {
namespace {

using T = circle::TensorType;

struct Row {
  BuiltinOperator op;
  std::initializer_list<T> types; // the types onert computes the operator in
};

// The ✓ cells of docs/onert.md, per operator (float16 and int16 are absent throughout: onert
// 0.2 computes nothing in them and crashes on int16 tensors).
constexpr Row kRows[] = {
    {BuiltinOperator::ADD, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::SUB, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::MUL, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::DIV, {T::FLOAT32}},
    {BuiltinOperator::FLOOR_DIV, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::FLOOR_MOD, {T::FLOAT32, T::INT64}},
    {BuiltinOperator::MAXIMUM, {T::FLOAT32, T::UINT8}},
    {BuiltinOperator::MINIMUM, {T::FLOAT32, T::INT32, T::UINT8}},
    {BuiltinOperator::ABS, {T::FLOAT32}},
    {BuiltinOperator::CEIL, {}},
    {BuiltinOperator::HARD_SWISH, {}},
    {BuiltinOperator::RELU_N1_TO_1, {}},
    {BuiltinOperator::EQUAL, {T::FLOAT32, T::INT64, T::INT32, T::BOOL}},
    {BuiltinOperator::NOT_EQUAL, {T::FLOAT32, T::INT64, T::INT32, T::BOOL}},
    {BuiltinOperator::LESS, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::LESS_EQUAL, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::GREATER, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::GREATER_EQUAL, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::LOGICAL_AND, {T::BOOL}},
    {BuiltinOperator::LOGICAL_OR, {T::BOOL}},
    {BuiltinOperator::LOGICAL_NOT, {T::BOOL}},
    {BuiltinOperator::SELECT_V2, {T::FLOAT32}},
    {BuiltinOperator::SUM, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::MEAN, {T::FLOAT32}},
    {BuiltinOperator::REDUCE_MAX, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::REDUCE_MIN, {}},
    {BuiltinOperator::REDUCE_PROD, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::ARG_MAX, {T::FLOAT32, T::INT32, T::UINT8}},
    {BuiltinOperator::ARG_MIN, {T::FLOAT32, T::INT32, T::UINT8}},
    {BuiltinOperator::RESHAPE, {T::FLOAT32, T::INT64, T::INT32, T::INT8, T::UINT8, T::BOOL}},
    {BuiltinOperator::EXPAND_DIMS, {T::FLOAT32, T::INT64, T::INT32, T::INT8, T::UINT8, T::BOOL}},
    {BuiltinOperator::SQUEEZE, {T::FLOAT32, T::INT64, T::INT32, T::INT8, T::UINT8, T::BOOL}},
    {BuiltinOperator::TRANSPOSE, {T::FLOAT32, T::INT32, T::UINT8}},
    {BuiltinOperator::SLICE, {T::FLOAT32, T::UINT8}},
    {BuiltinOperator::STRIDED_SLICE, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::CONCATENATION, {T::FLOAT32, T::INT64, T::INT32, T::INT8, T::UINT8}},
    {BuiltinOperator::PACK, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::UNPACK, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::SPLIT, {T::FLOAT32, T::INT64, T::INT32, T::UINT8}},
    {BuiltinOperator::SPLIT_V, {}}, // runs, but writes zeros
    {BuiltinOperator::TILE, {T::FLOAT32}},
    {BuiltinOperator::BROADCAST_TO, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::REVERSE_V2, {T::FLOAT32}},
    {BuiltinOperator::PAD, {T::FLOAT32, T::INT8, T::UINT8}},
    {BuiltinOperator::PADV2, {T::FLOAT32, T::INT8, T::UINT8}},
    {BuiltinOperator::MIRROR_PAD, {}},
    {BuiltinOperator::ZEROS_LIKE, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::FILL, {T::FLOAT32, T::INT64, T::INT32}},
    {BuiltinOperator::GATHER, {T::FLOAT32, T::INT32, T::UINT8, T::BOOL}},
    {BuiltinOperator::GATHER_ND, {}},
    {BuiltinOperator::SCATTER_ND, {}},
    {BuiltinOperator::CUMSUM, {}},
    {BuiltinOperator::RANGE, {T::FLOAT32, T::INT32}},
    {BuiltinOperator::PRELU, {}},
    {BuiltinOperator::INSTANCE_NORM, {}},
    {BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, {}},
};

constexpr T kCastTypes[] = {T::FLOAT32, T::INT64, T::INT32, T::UINT8, T::BOOL};

} // namespace

bool onertSupports(BuiltinOperator op, circle::TensorType type) {
  for (const Row &row : kRows)
    if (row.op == op)
      return std::find(row.types.begin(), row.types.end(), type) != row.types.end();
  return true;
}

bool onertCasts(circle::TensorType from, circle::TensorType to) {
  auto castable = [](T t) { return std::find(std::begin(kCastTypes), std::end(kCastTypes), t) != std::end(kCastTypes); };
  return castable(from) && castable(to);
}

} // namespace tico::circle_passes
