#include "fold_kernels.h"

#include "constants.h"
#include "rewrite_utils.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tico::circle_passes {
namespace {

using T = circle::TensorType;
using AF = circle::ActivationFunctionType;

struct Input {
  bool present = false;
  circle::TensorType type = T::FLOAT32;
  std::vector<int32_t> shape;
  std::vector<std::byte> bytes;
  const CircleTensor *tensor = nullptr;
};

template <typename V> std::vector<V> typed(const std::vector<std::byte> &bytes) {
  std::vector<V> out(bytes.size() / sizeof(V));
  if (!out.empty())
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(V));
  return out;
}

template <typename V> std::vector<std::byte> raw(const std::vector<V> &values) {
  std::vector<std::byte> out(values.size() * sizeof(V));
  if (!out.empty())
    std::memcpy(out.data(), values.data(), out.size());
  return out;
}

int64_t count(const std::vector<int32_t> &shape) { return elementCount(shape); }

std::vector<int64_t> stridesOf(const std::vector<int32_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

// NumPy broadcast of two shapes, or nullopt.
std::optional<std::vector<int32_t>> broadcastShape(const std::vector<int32_t> &a, const std::vector<int32_t> &b) {
  std::size_t rank = std::max(a.size(), b.size());
  std::vector<int32_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element offsets into a tensor of `in` shape for every element of the broadcast `out` shape.
std::vector<int64_t> broadcastOffsets(const std::vector<int32_t> &in, const std::vector<int32_t> &out) {
  const std::size_t rank = out.size();
  std::vector<int64_t> in_strides(rank, 0);
  std::vector<int64_t> natural = stridesOf(in);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::size_t o = rank - in.size() + i;
    in_strides[o] = in[i] == 1 ? 0 : natural[i];
  }
  std::vector<int64_t> offsets(count(out));
  std::vector<int32_t> index(rank, 0);
  int64_t offset = 0;
  for (std::size_t n = 0; n < offsets.size(); ++n) {
    offsets[n] = offset;
    for (std::size_t i = rank; i-- > 0;) {
      offset += in_strides[i];
      if (++index[i] < out[i])
        break;
      offset -= in_strides[i] * index[i];
      index[i] = 0;
    }
  }
  return offsets;
}

float activate(float v, AF a) {
  switch (a) {
  case AF::RELU: return std::max(v, 0.0f);
  case AF::RELU6: return std::min(std::max(v, 0.0f), 6.0f);
  case AF::RELU_N1_TO_1: return std::min(std::max(v, -1.0f), 1.0f);
  case AF::TANH: return std::tanh(v);
  default: return v;
  }
}

bool supportedActivation(AF a) { return a == AF::NONE || a == AF::RELU || a == AF::RELU6 || a == AF::RELU_N1_TO_1; }

class Evaluator {
public:
  Evaluator(const SubgraphEditor &e, int op, FoldProfile profile) : e_(e), op_(e.op(op)), code_(e.code(op)), profile_(profile) {}

  std::optional<std::vector<ConstValue>> run() {
    if (!loadInputs())
      return std::nullopt;
    for (int32_t t : op_.outputs)
      if (!e_.validTensor(t))
        return std::nullopt;
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
    case BuiltinOperator::FULLY_CONNECTED: return heavy() ? fullyConnected() : std::nullopt;
    case BuiltinOperator::DEQUANTIZE: return heavy() ? dequantize() : std::nullopt;
    case BuiltinOperator::DEPTHWISE_CONV_2D: return heavy() ? depthwise() : std::nullopt;
    default: return std::nullopt;
    }
  }

private:
  bool heavy() const { return profile_ == FoldProfile::Heavy; }
  const CircleTensor &out(std::size_t k = 0) const { return e_.tensor(op_.outputs[k]); }

  bool loadInputs() {
    for (std::size_t s = 0; s < op_.inputs.size(); ++s) {
      Input in;
      const int32_t t = op_.inputs[s];
      if (t < 0) {
        inputs_.push_back(std::move(in));
        continue;
      }
      if (!e_.validTensor(t))
        return false;
      in.tensor = &e_.tensor(t);
      in.type = in.tensor->type;
      in.shape = in.tensor->shape;
      if (code_ == BuiltinOperator::SHAPE) {
        if (isDynamic(*in.tensor))
          return false;
      } else {
        if (!e_.isConstantTensor(t))
          return false;
        in.bytes = *constantBytes(e_.model(), *in.tensor);
      }
      in.present = true;
      inputs_.push_back(std::move(in));
    }
    return !inputs_.empty();
  }

  std::optional<std::vector<ConstValue>> single(circle::TensorType type, std::vector<int32_t> shape,
                                                std::vector<std::byte> bytes) const {
    // The result must be exactly what the model declares for the output.
    if (op_.outputs.size() != 1 || out().type != type || out().shape != shape)
      return std::nullopt;
    return std::vector<ConstValue>{ConstValue{type, std::move(shape), std::move(bytes)}};
  }

  std::optional<int64_t> intScalar(std::size_t slot) const {
    if (slot >= inputs_.size() || !inputs_[slot].present)
      return std::nullopt;
    auto v = ints(slot);
    if (!v || v->size() != 1)
      return std::nullopt;
    return (*v)[0];
  }

  std::optional<std::vector<int64_t>> ints(std::size_t slot) const {
    const Input &in = inputs_[slot];
    if (in.type == T::INT32) {
      auto v = typed<int32_t>(in.bytes);
      return std::vector<int64_t>(v.begin(), v.end());
    }
    if (in.type == T::INT64)
      return typed<int64_t>(in.bytes);
    return std::nullopt;
  }

  std::optional<std::vector<ConstValue>> binary() {
    if (inputs_.size() != 2 || !inputs_[0].present || !inputs_[1].present || inputs_[0].type != inputs_[1].type)
      return std::nullopt;
    const Input &a = inputs_[0], &b = inputs_[1];
    auto shape = broadcastShape(a.shape, b.shape);
    if (!shape)
      return std::nullopt;
    AF act = fusedActivationOf(op_).value_or(AF::NONE);
    if (!supportedActivation(act) || isQuantized(*a.tensor) || isQuantized(*b.tensor))
      return std::nullopt;
    auto oa = broadcastOffsets(a.shape, *shape), ob = broadcastOffsets(b.shape, *shape);
    if (a.type == T::FLOAT32) {
      auto x = typed<float>(a.bytes), y = typed<float>(b.bytes);
      std::vector<float> r(oa.size());
      for (std::size_t n = 0; n < r.size(); ++n) {
        float u = x[oa[n]], v = y[ob[n]], w;
        switch (code_) {
        case BuiltinOperator::ADD: w = u + v; break;
        case BuiltinOperator::SUB: w = u - v; break;
        case BuiltinOperator::MUL: w = u * v; break;
        case BuiltinOperator::DIV: w = u / v; break;
        case BuiltinOperator::MAXIMUM: w = std::max(u, v); break;
        default: w = std::min(u, v); break;
        }
        r[n] = activate(w, act);
      }
      return single(T::FLOAT32, *shape, raw(r));
    }
    if ((a.type == T::INT32 || a.type == T::INT64) && act == AF::NONE && code_ != BuiltinOperator::DIV) {
      auto x = *ints(0), y = *ints(1);
      const int64_t lo = a.type == T::INT32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
      const int64_t hi = a.type == T::INT32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
      std::vector<int64_t> r(oa.size());
      for (std::size_t n = 0; n < r.size(); ++n) {
        int64_t u = x[oa[n]], v = y[ob[n]], w;
        bool overflow = false;
        switch (code_) {
        case BuiltinOperator::ADD: overflow = __builtin_add_overflow(u, v, &w); break;
        case BuiltinOperator::SUB: overflow = __builtin_sub_overflow(u, v, &w); break;
        case BuiltinOperator::MUL: overflow = __builtin_mul_overflow(u, v, &w); break;
        case BuiltinOperator::MAXIMUM: w = std::max(u, v); break;
        default: w = std::min(u, v); break;
        }
        if (overflow || w < lo || w > hi)
          return std::nullopt; // the runtime would wrap; keep the operator
        r[n] = w;
      }
      return single(a.type, *shape, payloadFromInts(a.type, *shape, r)->contiguousBytes());
    }
    return std::nullopt;
  }

  std::optional<std::vector<ConstValue>> unary() {
    if (inputs_.size() != 1 || isQuantized(*inputs_[0].tensor))
      return std::nullopt;
    const Input &a = inputs_[0];
    if (a.type == T::FLOAT32) {
      auto x = typed<float>(a.bytes);
      for (float &v : x) {
        switch (code_) {
        case BuiltinOperator::NEG: v = -v; break;
        case BuiltinOperator::ABS: v = std::fabs(v); break;
        case BuiltinOperator::SQRT: v = std::sqrt(v); break;
        case BuiltinOperator::RSQRT: v = 1.0f / std::sqrt(v); break;
        case BuiltinOperator::EXP: v = std::exp(v); break;
        default: v = std::log(v); break;
        }
      }
      return single(T::FLOAT32, a.shape, raw(x));
    }
    if ((a.type == T::INT32 || a.type == T::INT64) &&
        (code_ == BuiltinOperator::NEG || code_ == BuiltinOperator::ABS)) {
      auto x = *ints(0);
      const int64_t lo = a.type == T::INT32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
      for (int64_t &v : x) {
        if (v == lo)
          return std::nullopt;
        v = code_ == BuiltinOperator::NEG ? -v : std::llabs(v);
      }
      return single(a.type, a.shape, payloadFromInts(a.type, a.shape, x)->contiguousBytes());
    }
    return std::nullopt;
  }

  std::optional<std::vector<ConstValue>> cast() {
    if (inputs_.size() != 1 || isQuantized(*inputs_[0].tensor) || isQuantized(out()))
      return std::nullopt;
    const Input &a = inputs_[0];
    const circle::TensorType to = out().type;
    auto isFloat = [](circle::TensorType t) {
      return t == T::FLOAT32 || t == T::FLOAT64 || t == T::FLOAT16 || t == T::BFLOAT16;
    };
    if (!heavy() && (a.type == T::FLOAT16 || a.type == T::BFLOAT16 || to == T::FLOAT16 || to == T::BFLOAT16))
      return std::nullopt; // half-precision casts belong to the heavy profile
    if (isFloat(a.type)) {
      auto values = constantAsDoubles(e_.model(), *a.tensor);
      if (!values || circleElementSize(to) == 0)
        return std::nullopt;
      if (!isFloat(to)) {
        for (double &v : *values) {
          if (to == T::BOOL) {
            v = v != 0.0;
            continue;
          }
          if (!std::isfinite(v))
            return std::nullopt;
          v = std::trunc(v);
        }
        auto limits = intRange(to);
        if (!limits)
          return std::nullopt;
        for (double v : *values)
          if (to != T::BOOL && (v < limits->first || v > limits->second))
            return std::nullopt;
      }
      return single(to, a.shape, payloadFromDoubles(to, a.shape, *values)->contiguousBytes());
    }
    auto values = constantAsInts(e_.model(), *a.tensor);
    if (!values || circleElementSize(to) == 0)
      return std::nullopt;
    if (isFloat(to)) {
      std::vector<double> d(values->begin(), values->end());
      return single(to, a.shape, payloadFromDoubles(to, a.shape, d)->contiguousBytes());
    }
    auto limits = intRange(to);
    if (!limits)
      return std::nullopt;
    if (to != T::BOOL)
      for (int64_t v : *values)
        if (static_cast<double>(v) < limits->first || static_cast<double>(v) > limits->second)
          return std::nullopt;
    return single(to, a.shape, payloadFromInts(to, a.shape, *values)->contiguousBytes());
  }

  static std::optional<std::pair<double, double>> intRange(circle::TensorType t) {
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

  // RESHAPE / SQUEEZE / EXPAND_DIMS keep the bytes; the output shape is the declared one.
  std::optional<std::vector<ConstValue>> view() {
    const Input &a = inputs_[0];
    if (op_.outputs.size() != 1 || isDynamic(out()) || count(out().shape) != count(a.shape) || out().type != a.type ||
        !sameQuantization(*a.tensor, out()))
      return std::nullopt;
    return single(a.type, out().shape, a.bytes);
  }

  std::optional<std::vector<ConstValue>> shape() {
    const auto *o = op_.builtin_options.AsShapeOptions();
    circle::TensorType type = o ? o->out_type : T::INT32;
    if (type != T::INT32 && type != T::INT64)
      return std::nullopt;
    const auto &s = inputs_[0].shape;
    std::vector<int64_t> values(s.begin(), s.end());
    std::vector<int32_t> shape{static_cast<int32_t>(values.size())};
    return single(type, shape, payloadFromInts(type, shape, values)->contiguousBytes());
  }

  std::optional<std::vector<ConstValue>> gather() {
    const auto *o = op_.builtin_options.AsGatherOptions();
    if (inputs_.size() != 2 || (o && o->batch_dims != 0))
      return std::nullopt;
    const Input &params = inputs_[0];
    auto indices = ints(1);
    const std::size_t element = circleElementSize(params.type);
    if (!indices || element == 0 || params.shape.empty() || !sameQuantization(*params.tensor, out()))
      return std::nullopt;
    auto axis = normalizeAxis(o ? o->axis : 0, static_cast<int64_t>(params.shape.size()));
    if (!axis)
      return std::nullopt;
    std::vector<int32_t> shape(params.shape.begin(), params.shape.begin() + *axis);
    shape.insert(shape.end(), inputs_[1].shape.begin(), inputs_[1].shape.end());
    shape.insert(shape.end(), params.shape.begin() + *axis + 1, params.shape.end());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < *axis; ++d)
      outer *= params.shape[d];
    for (std::size_t d = *axis + 1; d < params.shape.size(); ++d)
      inner *= params.shape[d];
    const int64_t extent = params.shape[*axis];
    std::vector<std::byte> bytes;
    bytes.reserve(static_cast<std::size_t>(outer) * indices->size() * inner * element);
    for (int64_t o_ = 0; o_ < outer; ++o_)
      for (int64_t index : *indices) {
        if (index < 0 || index >= extent)
          return std::nullopt;
        const std::byte *src = params.bytes.data() + ((o_ * extent + index) * inner) * element;
        bytes.insert(bytes.end(), src, src + inner * element);
      }
    return single(params.type, shape, std::move(bytes));
  }

  std::optional<std::vector<ConstValue>> transpose() {
    const Input &a = inputs_[0];
    auto perm = ints(1);
    if (!perm || perm->size() != a.shape.size() || !isPermutation(*perm) || !sameQuantization(*a.tensor, out()))
      return std::nullopt;
    std::vector<int64_t> shape64(a.shape.begin(), a.shape.end());
    return single(a.type, permuted(a.shape, *perm), permuteBytes(a.bytes, shape64, *perm, circleElementSize(a.type)));
  }

  // Joins `parts` (same type, same rank) along `axis`.
  std::optional<std::vector<ConstValue>> join(const std::vector<const Input *> &parts,
                                              const std::vector<std::vector<int32_t>> &shapes, int64_t axis) {
    const circle::TensorType type = parts[0]->type;
    const std::size_t element = circleElementSize(type);
    std::vector<int32_t> shape = shapes[0];
    shape[axis] = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (parts[k]->type != type || shapes[k].size() != shape.size() || !sameQuantization(*parts[k]->tensor, out()))
        return std::nullopt;
      for (std::size_t d = 0; d < shape.size(); ++d)
        if (static_cast<int64_t>(d) != axis && shapes[k][d] != shapes[0][d])
          return std::nullopt;
      shape[axis] += shapes[k][axis];
    }
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    std::vector<std::byte> bytes;
    for (int64_t o = 0; o < outer; ++o)
      for (std::size_t k = 0; k < parts.size(); ++k) {
        int64_t chunk = count(shapes[k]) / std::max<int64_t>(outer, 1) * element;
        if (outer == 0)
          break;
        const std::byte *src = parts[k]->bytes.data() + o * chunk;
        bytes.insert(bytes.end(), src, src + chunk);
      }
    return single(type, shape, std::move(bytes));
  }

  std::optional<std::vector<ConstValue>> concatenation() {
    const auto *o = op_.builtin_options.AsConcatenationOptions();
    if (!o || o->fused_activation_function != AF::NONE)
      return std::nullopt;
    std::vector<const Input *> parts;
    std::vector<std::vector<int32_t>> shapes;
    for (const Input &in : inputs_) {
      if (!in.present)
        return std::nullopt;
      parts.push_back(&in);
      shapes.push_back(in.shape);
    }
    auto axis = normalizeAxis(o->axis, static_cast<int64_t>(shapes[0].size()));
    if (!axis)
      return std::nullopt;
    return join(parts, shapes, *axis);
  }

  std::optional<std::vector<ConstValue>> pack() {
    const auto *o = op_.builtin_options.AsPackOptions();
    if (!o)
      return std::nullopt;
    auto axis = normalizeAxis(o->axis, static_cast<int64_t>(inputs_[0].shape.size()) + 1);
    if (!axis)
      return std::nullopt;
    std::vector<const Input *> parts;
    std::vector<std::vector<int32_t>> shapes;
    for (const Input &in : inputs_) {
      if (!in.present)
        return std::nullopt;
      std::vector<int32_t> s = in.shape;
      s.insert(s.begin() + *axis, 1);
      parts.push_back(&in);
      shapes.push_back(std::move(s));
    }
    return join(parts, shapes, *axis);
  }

  std::optional<std::vector<ConstValue>> slice() {
    const Input &a = inputs_[0];
    auto begin = ints(1), size = ints(2);
    const std::size_t rank = a.shape.size(), element = circleElementSize(a.type);
    if (!begin || !size || begin->size() != rank || size->size() != rank || element == 0 ||
        !sameQuantization(*a.tensor, out()))
      return std::nullopt;
    std::vector<int32_t> shape(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      int64_t b = (*begin)[d], s = (*size)[d] == -1 ? a.shape[d] - b : (*size)[d];
      if (b < 0 || s < 0 || b + s > a.shape[d])
        return std::nullopt;
      shape[d] = static_cast<int32_t>(s);
    }
    std::vector<int64_t> strides = stridesOf(a.shape);
    std::vector<std::byte> bytes(count(shape) * element);
    std::vector<int32_t> index(rank, 0);
    for (int64_t n = 0; n < count(shape); ++n) {
      int64_t src = 0;
      for (std::size_t d = 0; d < rank; ++d)
        src += ((*begin)[d] + index[d]) * strides[d];
      std::memcpy(bytes.data() + n * element, a.bytes.data() + src * element, element);
      for (std::size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
    return single(a.type, shape, std::move(bytes));
  }

  std::optional<std::vector<ConstValue>> fill() {
    auto dims = ints(0);
    const Input &value = inputs_[1];
    const std::size_t element = circleElementSize(value.type);
    if (!dims || element == 0 || value.bytes.size() != element)
      return std::nullopt;
    std::vector<int32_t> shape;
    for (int64_t d : *dims) {
      if (d < 0 || d > std::numeric_limits<int32_t>::max())
        return std::nullopt;
      shape.push_back(static_cast<int32_t>(d));
    }
    std::vector<std::byte> bytes;
    bytes.reserve(count(shape) * element);
    for (int64_t n = 0; n < count(shape); ++n)
      bytes.insert(bytes.end(), value.bytes.begin(), value.bytes.end());
    return single(value.type, shape, std::move(bytes));
  }

  std::optional<std::vector<ConstValue>> fullyConnected() {
    const auto *o = op_.builtin_options.AsFullyConnectedOptions();
    if (!o || inputs_.size() < 2 || o->weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT ||
        !supportedActivation(o->fused_activation_function))
      return std::nullopt;
    const Input &x = inputs_[0], &w = inputs_[1];
    if (x.type != T::FLOAT32 || w.type != T::FLOAT32 || w.shape.size() != 2 || x.shape.empty() ||
        isQuantized(*x.tensor) || isQuantized(*w.tensor))
      return std::nullopt;
    const int64_t units = w.shape[0], depth = w.shape[1];
    if (depth == 0 || count(x.shape) % depth != 0)
      return std::nullopt;
    const int64_t rows = count(x.shape) / depth;
    std::vector<float> bias(units, 0.0f);
    if (inputs_.size() > 2 && inputs_[2].present) {
      if (inputs_[2].type != T::FLOAT32 || count(inputs_[2].shape) != units)
        return std::nullopt;
      bias = typed<float>(inputs_[2].bytes);
    }
    auto xv = typed<float>(x.bytes), wv = typed<float>(w.bytes);
    std::vector<float> r(rows * units);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t u = 0; u < units; ++u) {
        float acc = 0.0f;
        for (int64_t k = 0; k < depth; ++k)
          acc += xv[i * depth + k] * wv[u * depth + k];
        r[i * units + u] = activate(acc + bias[u], o->fused_activation_function);
      }
    std::vector<int32_t> shape;
    if (o->keep_num_dims) {
      shape = x.shape;
      shape.back() = static_cast<int32_t>(units);
    } else {
      shape = {static_cast<int32_t>(rows), static_cast<int32_t>(units)};
    }
    return single(T::FLOAT32, shape, raw(r));
  }

  std::optional<std::vector<ConstValue>> dequantize() {
    const Input &a = inputs_[0];
    if (out().type != T::FLOAT32)
      return std::nullopt;
    if (a.type == T::FLOAT16) {
      auto values = constantAsDoubles(e_.model(), *a.tensor);
      return single(T::FLOAT32, a.shape, payloadFromDoubles(T::FLOAT32, a.shape, *values)->contiguousBytes());
    }
    const auto *q = a.tensor->quantization.get();
    if (!q || q->scale.empty() || (a.type != T::INT8 && a.type != T::UINT8 && a.type != T::INT16))
      return std::nullopt;
    auto values = *constantAsInts(e_.model(), *a.tensor);
    const std::size_t channels = q->scale.size();
    int64_t inner = 1, axis = q->quantized_dimension;
    if (channels > 1) {
      if (axis < 0 || axis >= static_cast<int64_t>(a.shape.size()) || a.shape[axis] != static_cast<int64_t>(channels))
        return std::nullopt;
      for (std::size_t d = axis + 1; d < a.shape.size(); ++d)
        inner *= a.shape[d];
    }
    std::vector<float> r(values.size());
    for (std::size_t n = 0; n < values.size(); ++n) {
      std::size_t c = channels > 1 ? (n / inner) % channels : 0;
      int64_t zero = q->zero_point.size() > c ? q->zero_point[c] : 0;
      r[n] = static_cast<float>(values[n] - zero) * q->scale[c];
    }
    return single(T::FLOAT32, a.shape, raw(r));
  }

  std::optional<std::vector<ConstValue>> depthwise() {
    const auto *o = op_.builtin_options.AsDepthwiseConv2DOptions();
    if (!o || inputs_.size() < 2 || !supportedActivation(o->fused_activation_function))
      return std::nullopt;
    const Input &x = inputs_[0], &w = inputs_[1];
    if (x.type != T::FLOAT32 || w.type != T::FLOAT32 || x.shape.size() != 4 || w.shape.size() != 4 || w.shape[0] != 1 ||
        isQuantized(*x.tensor) || isQuantized(*w.tensor))
      return std::nullopt;
    const int64_t n = x.shape[0], h = x.shape[1], wd = x.shape[2], c = x.shape[3];
    const int64_t kh = w.shape[1], kw = w.shape[2], oc = w.shape[3];
    if (c == 0 || oc % c != 0 || o->stride_h <= 0 || o->stride_w <= 0 || o->dilation_h_factor <= 0 ||
        o->dilation_w_factor <= 0)
      return std::nullopt;
    const int64_t m = oc / c;
    auto outSize = [&](int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t &pad) {
      const int64_t eff = (k - 1) * dil + 1;
      int64_t size = o->padding == circle::Padding::SAME ? (in + stride - 1) / stride : (in - eff + stride) / stride;
      int64_t total = std::max<int64_t>((size - 1) * stride + eff - in, 0);
      pad = o->padding == circle::Padding::SAME ? total / 2 : 0;
      return size;
    };
    int64_t pad_h, pad_w;
    const int64_t oh = outSize(h, kh, o->stride_h, o->dilation_h_factor, pad_h);
    const int64_t ow = outSize(wd, kw, o->stride_w, o->dilation_w_factor, pad_w);
    if (oh <= 0 || ow <= 0)
      return std::nullopt;
    std::vector<float> bias(oc, 0.0f);
    if (inputs_.size() > 2 && inputs_[2].present) {
      if (inputs_[2].type != T::FLOAT32 || count(inputs_[2].shape) != oc)
        return std::nullopt;
      bias = typed<float>(inputs_[2].bytes);
    }
    auto xv = typed<float>(x.bytes), wv = typed<float>(w.bytes);
    std::vector<float> r(n * oh * ow * oc);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo)
          for (int64_t ch = 0; ch < oc; ++ch) {
            float acc = 0.0f;
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t iy = y * o->stride_h - pad_h + i * o->dilation_h_factor;
                int64_t ix = xo * o->stride_w - pad_w + j * o->dilation_w_factor;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                  continue;
                acc += xv[((b * h + iy) * wd + ix) * c + ch / m] * wv[(i * kw + j) * oc + ch];
              }
            r[((b * oh + y) * ow + xo) * oc + ch] = activate(acc + bias[ch], o->fused_activation_function);
          }
    return single(T::FLOAT32,
                  {static_cast<int32_t>(n), static_cast<int32_t>(oh), static_cast<int32_t>(ow), static_cast<int32_t>(oc)},
                  raw(r));
  }

  const SubgraphEditor &e_;
  const CircleOperator &op_;
  BuiltinOperator code_;
  FoldProfile profile_;
  std::vector<Input> inputs_;
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

std::optional<std::vector<ConstValue>> evaluateOperator(const SubgraphEditor &editor, int op, FoldProfile profile) {
  return Evaluator(editor, op, profile).run();
}

} // namespace tico::circle_passes
