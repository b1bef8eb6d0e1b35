#include "fold_rules.h"

#include "constants.h"
#include "rewrite_utils.h"
#include "tico/ir/shape_utils.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace tico::circle_passes {
namespace {

using T = circle::TensorType;
using AF = circle::ActivationFunctionType;

// TANH is left out: its rounding is the runtime library's, not something to freeze into a file.
bool plainActivation(AF a) { return a == AF::NONE || a == AF::RELU || a == AF::RELU6 || a == AF::RELU_N1_TO_1; }

bool isFloatType(T t) { return t == T::FLOAT32 || t == T::FLOAT64 || t == T::FLOAT16 || t == T::BFLOAT16; }
bool isHalfType(T t) { return t == T::FLOAT16 || t == T::BFLOAT16; }

// The values an integer (or bool) type holds, as doubles.
std::optional<std::pair<double, double>> intRange(T t) {
  switch (t) {
  case T::BOOL: return std::pair{0.0, 1.0};
  case T::INT8: return std::pair{-128.0, 127.0};
  case T::UINT8: return std::pair{0.0, 255.0};
  case T::INT16: return std::pair{-32768.0, 32767.0};
  case T::UINT16: return std::pair{0.0, 65535.0};
  case T::INT32: return std::pair{-2147483648.0, 2147483647.0};
  case T::UINT32: return std::pair{0.0, 4294967295.0};
  case T::INT64: return std::pair{-9223372036854775808.0, 9223372036854774784.0};
  default: return std::nullopt;
  }
}

// NumPy broadcast of two Circle shapes (the shared rule, tico/ir/shape_utils.h), or nullopt.
std::optional<std::vector<int32_t>> broadcastShape(const std::vector<int32_t> &a, const std::vector<int32_t> &b) {
  const auto sizes = broadcastSizes({{a.begin(), a.end()}, {b.begin(), b.end()}});
  if (!sizes)
    return std::nullopt;
  return std::vector<int32_t>(sizes->begin(), sizes->end());
}

// Element offsets into a tensor of shape `in` for every element of the broadcast shape `out`.
std::vector<int64_t> broadcastOffsets(const std::vector<int32_t> &in, const std::vector<int32_t> &out) {
  const std::size_t rank = out.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t natural = 1;
  for (std::size_t i = in.size(); i-- > 0;) {
    strides[rank - in.size() + i] = in[i] == 1 ? 0 : natural;
    natural *= in[i];
  }
  std::vector<int64_t> offsets(static_cast<std::size_t>(elementCount(out)));
  std::vector<int32_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t &o : offsets) {
    o = offset;
    for (std::size_t i = rank; i-- > 0;) {
      offset += strides[i];
      if (++index[i] < out[i])
        break;
      offset -= strides[i] * index[i];
      index[i] = 0;
    }
  }
  return offsets;
}

class Rules {
public:
  Rules(const SubgraphEditor &e, int op, FoldProfile profile)
      : e_(e), op_(e.op(op)), code_(e.code(op)), heavy_(profile == FoldProfile::Heavy) {}

  bool allow() const {
    if (!inputsReady())
      return false;
    switch (code_) {
    case BuiltinOperator::ADD:
    case BuiltinOperator::SUB:
    case BuiltinOperator::MUL:
    case BuiltinOperator::DIV:
    case BuiltinOperator::MAXIMUM:
    case BuiltinOperator::MINIMUM: return binary();
    case BuiltinOperator::NEG:
    case BuiltinOperator::ABS:
    case BuiltinOperator::SQRT:
    case BuiltinOperator::RSQRT:
    case BuiltinOperator::EXP:
    case BuiltinOperator::LOG: return unary();
    case BuiltinOperator::CAST: return cast();
    case BuiltinOperator::RESHAPE:
    case BuiltinOperator::SQUEEZE:
    case BuiltinOperator::EXPAND_DIMS: return view();
    case BuiltinOperator::SHAPE: return shape();
    case BuiltinOperator::GATHER: return gather();
    case BuiltinOperator::TRANSPOSE: return transpose();
    case BuiltinOperator::CONCATENATION: return concatenation();
    case BuiltinOperator::PACK: return pack();
    case BuiltinOperator::SLICE: return slice();
    case BuiltinOperator::FILL: return fill();
    case BuiltinOperator::FULLY_CONNECTED: return heavy_ && fullyConnected();
    case BuiltinOperator::DEQUANTIZE: return heavy_ && dequantize();
    case BuiltinOperator::DEPTHWISE_CONV_2D: return heavy_ && depthwise();
    default: return false;
    }
  }

private:
  std::size_t arity() const { return op_.inputs.size(); }
  bool present(std::size_t slot) const { return slot < arity() && op_.inputs[slot] >= 0; }
  const CircleTensor &in(std::size_t slot) const { return e_.tensor(op_.inputs[slot]); }
  const CircleTensor &out() const { return e_.tensor(op_.outputs[0]); }
  bool oneOutput() const { return op_.outputs.size() == 1; }

  // Every input is a constant (SHAPE: a static tensor) or an omitted optional input.
  bool inputsReady() const {
    for (int32_t t : op_.outputs)
      if (!e_.validTensor(t))
        return false;
    for (int32_t t : op_.inputs) {
      if (t < 0)
        continue;
      if (!e_.validTensor(t))
        return false;
      if (code_ == BuiltinOperator::SHAPE ? isDynamic(e_.tensor(t)) : !e_.isConstantTensor(t))
        return false;
    }
    return present(0) && oneOutput();
  }

  // The values of an int32/int64 input (nullopt for other types).
  std::optional<std::vector<int64_t>> ints(std::size_t slot) const {
    if (!present(slot) || (in(slot).type != T::INT32 && in(slot).type != T::INT64))
      return std::nullopt;
    return constantAsInts(e_.model(), in(slot));
  }

  bool binary() const {
    if (arity() != 2 || !present(0) || !present(1) || in(0).type != in(1).type)
      return false;
    const auto shape = broadcastShape(in(0).shape, in(1).shape);
    const AF act = fusedActivationOf(op_).value_or(AF::NONE);
    if (!shape || !plainActivation(act) || isQuantized(in(0)) || isQuantized(in(1)))
      return false;
    if (in(0).type == T::FLOAT32)
      return true;
    if ((in(0).type != T::INT32 && in(0).type != T::INT64) || act != AF::NONE || code_ == BuiltinOperator::DIV)
      return false;
    const auto x = ints(0), y = ints(1);
    return x && y && integerResultsFit(*x, *y, *shape);
  }

  // Runtimes wrap integer overflow; a wrapped value is not what the model means, so such an
  // operator stays computed at run time.
  bool integerResultsFit(const std::vector<int64_t> &x, const std::vector<int64_t> &y,
                         const std::vector<int32_t> &shape) const {
    const bool narrow = in(0).type == T::INT32;
    const int64_t lo = narrow ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const int64_t hi = narrow ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    const auto ox = broadcastOffsets(in(0).shape, shape), oy = broadcastOffsets(in(1).shape, shape);
    for (std::size_t n = 0; n < ox.size(); ++n) {
      const int64_t u = x[ox[n]], v = y[oy[n]];
      int64_t w = 0;
      bool overflow = false;
      switch (code_) {
      case BuiltinOperator::ADD: overflow = __builtin_add_overflow(u, v, &w); break;
      case BuiltinOperator::SUB: overflow = __builtin_sub_overflow(u, v, &w); break;
      case BuiltinOperator::MUL: overflow = __builtin_mul_overflow(u, v, &w); break;
      default: continue; // MAXIMUM, MINIMUM pick an input
      }
      if (overflow || w < lo || w > hi)
        return false;
    }
    return true;
  }

  bool unary() const {
    if (arity() != 1 || isQuantized(in(0)))
      return false;
    if (in(0).type == T::FLOAT32)
      return true;
    if ((in(0).type != T::INT32 && in(0).type != T::INT64) ||
        (code_ != BuiltinOperator::NEG && code_ != BuiltinOperator::ABS))
      return false;
    // -min does not exist in the type (the runtime would wrap).
    const int64_t lo = in(0).type == T::INT32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const auto x = ints(0);
    return x && std::find(x->begin(), x->end(), lo) == x->end();
  }

  // Exact casts only: no value out of the target's range, no non-finite float to an integer.
  bool cast() const {
    if (arity() != 1 || isQuantized(in(0)) || isQuantized(out()))
      return false;
    const T from = in(0).type, to = out().type;
    if (!heavy_ && (isHalfType(from) || isHalfType(to)))
      return false; // half-precision casts belong to the heavy profile
    if (circleElementSize(to) == 0)
      return false;
    if (isFloatType(to))
      return isFloatType(from) ? constantAsDoubles(e_.model(), in(0)).has_value()
                               : constantAsInts(e_.model(), in(0)).has_value();
    const auto limits = intRange(to);
    if (!limits)
      return false;
    if (isFloatType(from)) {
      const auto values = constantAsDoubles(e_.model(), in(0));
      if (!values)
        return false;
      if (to == T::BOOL)
        return true;
      return std::all_of(values->begin(), values->end(), [&](double v) {
        return std::isfinite(v) && std::trunc(v) >= limits->first && std::trunc(v) <= limits->second;
      });
    }
    const auto values = constantAsInts(e_.model(), in(0));
    if (!values)
      return false;
    return to == T::BOOL || std::all_of(values->begin(), values->end(), [&](int64_t v) {
             return static_cast<double>(v) >= limits->first && static_cast<double>(v) <= limits->second;
           });
  }

  // RESHAPE / SQUEEZE / EXPAND_DIMS keep the bytes under the declared output shape.
  bool view() const {
    return elementCount(out().shape) == elementCount(in(0).shape) && out().type == in(0).type &&
           sameQuantization(in(0), out());
  }

  bool shape() const {
    const auto *o = op_.builtin_options.AsShapeOptions();
    const T type = o ? o->out_type : T::INT32;
    return type == T::INT32 || type == T::INT64;
  }

  bool gather() const {
    const auto *o = op_.builtin_options.AsGatherOptions();
    if (arity() != 2 || (o && o->batch_dims != 0))
      return false;
    const auto indices = ints(1);
    const CircleTensor &params = in(0);
    if (!indices || circleElementSize(params.type) == 0 || params.shape.empty() || !sameQuantization(params, out()))
      return false;
    const auto axis = normalizeAxis(o ? o->axis : 0, static_cast<int64_t>(params.shape.size()));
    if (!axis)
      return false;
    // Negative indices count from the end in some runtimes and are errors in others.
    const int64_t extent = params.shape[*axis];
    return std::all_of(indices->begin(), indices->end(), [&](int64_t i) { return i >= 0 && i < extent; });
  }

  bool transpose() const {
    const auto perm = ints(1);
    return perm && perm->size() == in(0).shape.size() && isPermutation(*perm) && sameQuantization(in(0), out());
  }

  // Parts of CONCATENATION / PACK: present, one type and rank, the output's quantization.
  bool sameParts() const {
    for (std::size_t k = 0; k < arity(); ++k)
      if (!present(k) || in(k).type != in(0).type || in(k).shape.size() != in(0).shape.size() ||
          !sameQuantization(in(k), out()))
        return false;
    return true;
  }

  bool concatenation() const {
    const auto *o = op_.builtin_options.AsConcatenationOptions();
    return o && o->fused_activation_function == AF::NONE && sameParts() &&
           normalizeAxis(o->axis, static_cast<int64_t>(in(0).shape.size())).has_value();
  }

  bool pack() const {
    const auto *o = op_.builtin_options.AsPackOptions();
    return o && sameParts() && normalizeAxis(o->axis, static_cast<int64_t>(in(0).shape.size()) + 1).has_value();
  }

  bool slice() const {
    const auto begin = ints(1), size = ints(2);
    const std::size_t rank = in(0).shape.size();
    if (!begin || !size || begin->size() != rank || size->size() != rank || circleElementSize(in(0).type) == 0 ||
        !sameQuantization(in(0), out()))
      return false;
    for (std::size_t d = 0; d < rank; ++d) {
      const int64_t b = (*begin)[d], s = (*size)[d] == -1 ? in(0).shape[d] - b : (*size)[d];
      if (b < 0 || s < 0 || b + s > in(0).shape[d])
        return false;
    }
    return true;
  }

  bool fill() const {
    const auto dims = ints(0);
    if (!dims || !present(1) || circleElementSize(in(1).type) == 0 || elementCount(in(1).shape) != 1)
      return false;
    return std::all_of(dims->begin(), dims->end(),
                       [](int64_t d) { return d >= 0 && d <= std::numeric_limits<int32_t>::max(); });
  }

  bool floatBias(std::size_t slot, int64_t count) const {
    return !present(slot) || (in(slot).type == T::FLOAT32 && elementCount(in(slot).shape) == count);
  }

  bool fullyConnected() const {
    const auto *o = op_.builtin_options.AsFullyConnectedOptions();
    if (!o || !present(1) || o->weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT ||
        !plainActivation(o->fused_activation_function))
      return false;
    const CircleTensor &x = in(0), &w = in(1);
    if (x.type != T::FLOAT32 || w.type != T::FLOAT32 || w.shape.size() != 2 || x.shape.empty() || isQuantized(x) ||
        isQuantized(w))
      return false;
    const int64_t depth = w.shape[1];
    return depth != 0 && elementCount(x.shape) % depth == 0 && floatBias(2, w.shape[0]);
  }

  bool dequantize() const {
    if (out().type != T::FLOAT32)
      return false;
    const CircleTensor &a = in(0);
    if (a.type == T::FLOAT16)
      return true;
    const auto *q = a.quantization.get();
    if (!q || q->scale.empty() || (a.type != T::INT8 && a.type != T::UINT8 && a.type != T::INT16))
      return false;
    const int64_t channels = static_cast<int64_t>(q->scale.size()), axis = q->quantized_dimension;
    return channels == 1 || (axis >= 0 && axis < static_cast<int64_t>(a.shape.size()) && a.shape[axis] == channels);
  }

  bool depthwise() const {
    const auto *o = op_.builtin_options.AsDepthwiseConv2DOptions();
    if (!o || !present(1) || !plainActivation(o->fused_activation_function))
      return false;
    const CircleTensor &x = in(0), &w = in(1);
    if (x.type != T::FLOAT32 || w.type != T::FLOAT32 || x.shape.size() != 4 || w.shape.size() != 4 ||
        w.shape[0] != 1 || isQuantized(x) || isQuantized(w))
      return false;
    const int64_t channels = x.shape[3], out_channels = w.shape[3];
    return channels != 0 && out_channels % channels == 0 && o->stride_h > 0 && o->stride_w > 0 &&
           o->dilation_h_factor > 0 && o->dilation_w_factor > 0 && floatBias(2, out_channels);
  }

  const SubgraphEditor &e_;
  const CircleOperator &op_;
  BuiltinOperator code_;
  bool heavy_;
};

} // namespace

std::vector<BuiltinOperator> foldableOperators(FoldProfile profile) {
  std::vector<BuiltinOperator> ops = {
      BuiltinOperator::ADD,     BuiltinOperator::SUB,     BuiltinOperator::MUL,         BuiltinOperator::DIV,
      BuiltinOperator::MAXIMUM, BuiltinOperator::MINIMUM, BuiltinOperator::NEG,         BuiltinOperator::ABS,
      BuiltinOperator::SQRT,    BuiltinOperator::RSQRT,   BuiltinOperator::EXP,         BuiltinOperator::LOG,
      BuiltinOperator::CAST,    BuiltinOperator::RESHAPE, BuiltinOperator::SQUEEZE,     BuiltinOperator::EXPAND_DIMS,
      BuiltinOperator::SHAPE,   BuiltinOperator::GATHER,  BuiltinOperator::TRANSPOSE,   BuiltinOperator::CONCATENATION,
      BuiltinOperator::PACK,    BuiltinOperator::SLICE,   BuiltinOperator::FILL};
  if (profile == FoldProfile::Heavy)
    ops.insert(ops.end(), {BuiltinOperator::FULLY_CONNECTED, BuiltinOperator::DEQUANTIZE,
                           BuiltinOperator::DEPTHWISE_CONV_2D});
  return ops;
}

bool mayFold(const SubgraphEditor &editor, int op, FoldProfile profile) { return Rules(editor, op, profile).allow(); }

} // namespace tico::circle_passes
