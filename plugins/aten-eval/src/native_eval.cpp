#include "native_eval.h"

#include "constant_views.h"

#include "tico/ir/shape_utils.h"
#include "tico/support/error.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>

namespace tico::aten_eval {
namespace {

// Values held wide: every integer and boolean dtype as int64, float32/64 as double (a float32
// value is always exactly representable, and rounding back is part of each op).
struct Array {
  DType dtype = DType::Int64;
  std::vector<int64_t> sizes;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  bool floating() const { return isFloating(dtype); }
  int64_t numel() const { return static_cast<int64_t>(floating() ? reals.size() : ints.size()); }
  double real(int64_t i) const { return floating() ? reals[i] : static_cast<double>(ints[i]); }
};

// An operand of an element-wise op, with its weight in PyTorch's type promotion.
struct Operand {
  Array array;
  int priority = 2;          // 2 a tensor with dims, 1 a zero-dim tensor, 0 a Python number
  DType promotes_as = DType::Int64;
};

constexpr int64_t kMaxElements = int64_t{1} << 24; // larger folds are LibTorch's

bool covered(DType d) {
  switch (d) {
  case DType::Bool: case DType::UInt8: case DType::Int8: case DType::Int16: case DType::Int32:
  case DType::Int64: case DType::Float32: case DType::Float64:
    return true;
  default:
    return false;
  }
}

int64_t wrapInteger(int64_t v, DType d) {
  switch (d) {
  case DType::Bool: return v != 0;
  case DType::UInt8: return static_cast<uint8_t>(v);
  case DType::Int8: return static_cast<int8_t>(v);
  case DType::Int16: return static_cast<int16_t>(v);
  case DType::Int32: return static_cast<int32_t>(v);
  default: return v;
  }
}

double roundReal(double v, DType d) { return d == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v; }

// A float to integer conversion the way C++ (and so ATen) does it; out of range is refused.
int64_t truncateReal(double v) {
  if (!(std::fabs(v) < 9.2e18))
    throw Error("native evaluation: " + std::to_string(v) + " does not convert to an integer");
  return static_cast<int64_t>(v);
}

Array castTo(const Array &a, DType to) {
  Array out;
  out.dtype = to;
  out.sizes = a.sizes;
  const int64_t n = a.numel();
  if (isFloating(to)) {
    out.reals.resize(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      out.reals[i] = roundReal(a.real(i), to);
  } else {
    out.ints.resize(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      out.ints[i] = to == DType::Bool && a.floating() ? a.reals[i] != 0.0
                                                      : wrapInteger(a.floating() ? truncateReal(a.reals[i]) : a.ints[i], to);
  }
  return out;
}

template <class T> void readAll(const std::byte *p, int64_t n, std::vector<int64_t> &out) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    out[i] = static_cast<int64_t>(v);
  }
}

Array load(const TensorData &t) {
  Array a;
  a.dtype = t.dtype;
  a.sizes = t.sizes;
  const std::vector<std::byte> bytes = t.contiguousBytes();
  const int64_t n = t.numel();
  const std::byte *p = bytes.data();
  if (a.floating()) {
    a.reals.resize(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (t.dtype == DType::Float32) {
        float v;
        std::memcpy(&v, p + i * 4, 4);
        a.reals[i] = v;
      } else {
        std::memcpy(&a.reals[i], p + i * 8, 8);
      }
    }
    return a;
  }
  a.ints.resize(static_cast<std::size_t>(n));
  switch (t.dtype) {
  case DType::Bool: case DType::UInt8: readAll<uint8_t>(p, n, a.ints); break;
  case DType::Int8: readAll<int8_t>(p, n, a.ints); break;
  case DType::Int16: readAll<int16_t>(p, n, a.ints); break;
  case DType::Int32: readAll<int32_t>(p, n, a.ints); break;
  default: readAll<int64_t>(p, n, a.ints); break;
  }
  return a;
}

template <class T, class V> void writeAll(const std::vector<V> &values, std::byte *p) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const T v = static_cast<T>(values[i]);
    std::memcpy(p + i * sizeof(T), &v, sizeof(T));
  }
}

EvalValue store(const Array &a) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(a.numel()) * elementSize(a.dtype));
  std::byte *p = bytes.data();
  switch (a.dtype) {
  case DType::Float32: writeAll<float>(a.reals, p); break;
  case DType::Float64: writeAll<double>(a.reals, p); break;
  case DType::Bool: case DType::UInt8: writeAll<uint8_t>(a.ints, p); break;
  case DType::Int8: writeAll<int8_t>(a.ints, p); break;
  case DType::Int16: writeAll<int16_t>(a.ints, p); break;
  case DType::Int32: writeAll<int32_t>(a.ints, p); break;
  default: writeAll<int64_t>(a.ints, p); break;
  }
  return EvalValue{std::make_shared<TensorData>(TensorData::fromBytes(a.dtype, a.sizes, std::move(bytes))),
                   std::nullopt};
}

Array filled(DType d, std::vector<int64_t> sizes, double value) {
  Array a;
  a.dtype = d;
  a.sizes = std::move(sizes);
  const auto n = static_cast<std::size_t>(checkedProduct(a.sizes));
  if (isFloating(d))
    a.reals.assign(n, roundReal(value, d));
  else
    a.ints.assign(n, wrapInteger(d == DType::Bool ? value != 0.0 : truncateReal(value), d));
  return a;
}

// ---------------------------------------------------------------------------------------------
// Arguments.

const Array &tensorOf(const Value *v, const EvalEnv &env, std::unordered_map<const Value *, Array> &cache) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  const EvalValue &e = env.at(v);
  if (!e.tensor)
    throw Error("native evaluation: '" + v->name() + "' has no tensor data");
  return cache.emplace(v, load(*e.tensor)).first->second;
}

std::vector<int64_t> outSizes(const Node &node, std::size_t i = 0) { return hintSizes(node.output(i)->shape()); }

DType outDType(const Node &node) { return node.output()->dtype(); }

// The scalar or tensor operand behind `arg`, with its promotion weight.
Operand operandOf(const Argument &arg, const EvalEnv &env, std::unordered_map<const Value *, Array> &cache) {
  Operand o;
  if (arg.isValue()) {
    o.array = tensorOf(arg.asValue(), env, cache);
    o.priority = o.array.sizes.empty() ? 1 : 2;
    o.promotes_as = o.array.dtype;
    return o;
  }
  o.priority = 0;
  if (arg.isFloat()) {
    o.array = filled(DType::Float64, {}, arg.asDouble());
    o.promotes_as = DType::Float32; // a Python float counts as the default dtype
  } else {
    o.array = filled(arg.isBool() ? DType::Bool : DType::Int64, {}, static_cast<double>(arg.asInt()));
    o.promotes_as = o.array.dtype;
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Type promotion (c10's promoteTypes restricted to the covered dtypes, and at::result_type's
// three priority levels).

int rankOf(DType d) {
  switch (d) {
  case DType::Bool: return 0;
  case DType::UInt8: return 1;
  case DType::Int8: return 2;
  case DType::Int16: return 3;
  case DType::Int32: return 4;
  case DType::Int64: return 5;
  case DType::Float32: return 6;
  default: return 7;
  }
}

DType promote(DType a, DType b) {
  if (a == DType::Unknown)
    return b;
  if (b == DType::Unknown)
    return a;
  if ((a == DType::UInt8 && b == DType::Int8) || (a == DType::Int8 && b == DType::UInt8))
    return DType::Int16;
  return rankOf(a) >= rankOf(b) ? a : b;
}

DType combineCategories(DType higher, DType lower) {
  if (isFloating(higher))
    return higher;
  if (higher == DType::Bool || isFloating(lower))
    return promote(higher, lower);
  return higher != DType::Unknown ? higher : lower;
}

DType resultType(const std::vector<const Operand *> &operands) {
  DType level[3] = {DType::Unknown, DType::Unknown, DType::Unknown};
  for (const Operand *o : operands)
    level[o->priority] = promote(level[o->priority], o->promotes_as);
  return combineCategories(level[2], combineCategories(level[1], level[0]));
}

// ---------------------------------------------------------------------------------------------
// Element-wise machinery.

std::vector<int64_t> broadcastStridesTo(const std::vector<int64_t> &sizes, const std::vector<int64_t> &out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const std::size_t d = sizes.size() - 1 - k, o = out.size() - 1 - k;
    strides[o] = sizes[d] == 1 ? 0 : stride;
    stride *= sizes[d];
  }
  return strides;
}

std::vector<int64_t> broadcastAll(const std::vector<const Array *> &arrays) {
  std::vector<std::vector<int64_t>> shapes;
  for (const Array *a : arrays)
    shapes.push_back(a->sizes);
  std::optional<std::vector<int64_t>> out = broadcastSizes(shapes);
  if (!out)
    throw Error("native evaluation: shapes do not broadcast");
  return *out;
}

// Calls f(out_index, offsets...) over the broadcast of `arrays`.
void forEachBroadcast(const std::vector<int64_t> &out, const std::vector<const Array *> &arrays,
                      const std::function<void(int64_t, const std::vector<int64_t> &)> &f) {
  std::vector<std::vector<int64_t>> strides;
  for (const Array *a : arrays)
    strides.push_back(broadcastStridesTo(a->sizes, out));
  const int64_t n = checkedProduct(out);
  std::vector<int64_t> index(out.size(), 0), offsets(arrays.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(i, offsets);
    for (std::size_t d = out.size(); d-- > 0;) {
      ++index[d];
      for (std::size_t a = 0; a < arrays.size(); ++a)
        offsets[a] += strides[a][d];
      if (index[d] < out[d])
        break;
      for (std::size_t a = 0; a < arrays.size(); ++a)
        offsets[a] -= strides[a][d] * out[d];
      index[d] = 0;
    }
  }
}

enum class Arith { Add, Sub, Mul, Div, And, Or, Xor };
enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

Array binaryArith(Arith op, const Operand &a, const Operand &b, DType out_dtype, int64_t alpha) {
  // Computed in the result dtype, as ATen does after promoting both operands.
  const DType compute = out_dtype;
  const Array x = castTo(a.array, compute), y = castTo(b.array, compute);
  Array r;
  r.dtype = out_dtype;
  r.sizes = broadcastAll({&x, &y});
  const int64_t n = checkedProduct(r.sizes);
  if (isFloating(compute)) {
    r.reals.resize(static_cast<std::size_t>(n));
    forEachBroadcast(r.sizes, {&x, &y}, [&](int64_t i, const std::vector<int64_t> &o) {
      const double u = x.reals[o[0]], v = y.reals[o[1]];
      double w = 0;
      switch (op) {
      case Arith::Add: w = u + v; break;
      case Arith::Sub: w = u - v; break;
      case Arith::Mul: w = u * v; break;
      case Arith::Div: w = u / v; break;
      default: throw Error("native evaluation: bitwise op on floats");
      }
      r.reals[i] = roundReal(w, out_dtype);
    });
    return r;
  }
  r.ints.resize(static_cast<std::size_t>(n));
  forEachBroadcast(r.sizes, {&x, &y}, [&](int64_t i, const std::vector<int64_t> &o) {
    const auto u = static_cast<uint64_t>(x.ints[o[0]]), v = static_cast<uint64_t>(y.ints[o[1]]);
    const auto s = static_cast<uint64_t>(alpha) * v; // two's complement wrap, as C++ unsigned math
    uint64_t w = 0;
    switch (op) {
    case Arith::Add: w = u + s; break;
    case Arith::Sub: w = u - s; break;
    case Arith::Mul: w = u * v; break;
    case Arith::And: w = u & v; break;
    case Arith::Or: w = u | v; break;
    case Arith::Xor: w = u ^ v; break;
    default: throw Error("native evaluation: integer division");
    }
    r.ints[i] = out_dtype == DType::Bool && (op == Arith::Add || op == Arith::Mul)
                    ? static_cast<int64_t>(w != 0)
                    : wrapInteger(static_cast<int64_t>(w), out_dtype);
  });
  return r;
}

Array binaryCompare(Compare op, const Operand &a, const Operand &b) {
  const DType compute = resultType({&a, &b});
  const Array x = castTo(a.array, compute), y = castTo(b.array, compute);
  Array r;
  r.dtype = DType::Bool;
  r.sizes = broadcastAll({&x, &y});
  r.ints.resize(static_cast<std::size_t>(checkedProduct(r.sizes)));
  const bool real = isFloating(compute);
  forEachBroadcast(r.sizes, {&x, &y}, [&](int64_t i, const std::vector<int64_t> &o) {
    auto test = [op](auto u, auto v) {
      switch (op) {
      case Compare::Eq: return u == v;
      case Compare::Ne: return u != v;
      case Compare::Lt: return u < v;
      case Compare::Le: return u <= v;
      case Compare::Gt: return u > v;
      default: return u >= v;
      }
    };
    r.ints[i] = real ? test(x.reals[o[0]], y.reals[o[1]]) : test(x.ints[o[0]], y.ints[o[1]]);
  });
  return r;
}

// ---------------------------------------------------------------------------------------------
// Layout ops.

Array withSizes(Array a, std::vector<int64_t> sizes) {
  if (checkedProduct(sizes) != a.numel())
    throw Error("native evaluation: reshape changes the element count");
  a.sizes = std::move(sizes);
  return a;
}

std::optional<int64_t> optionalInt(const Node &node, const char *name) {
  const Argument *a = node.findArg(name);
  if (a == nullptr || a->isNone())
    return std::nullopt;
  return a->asInt();
}

// expand is a view in PyTorch (stride 0 along the broadcast dims); it is loaded as a copy here,
// so that the max_bytes check of fold-constants sees what it stores.
Array expanded(const TensorData &data, const std::vector<int64_t> &sizes) {
  TensorData view = data;
  view.sizes = sizes;
  view.strides.assign(sizes.size(), 0);
  const std::size_t lead = sizes.size() - data.sizes.size();
  for (std::size_t d = 0; d < data.sizes.size(); ++d)
    view.strides[lead + d] = data.sizes[d] == 1 ? 0 : data.strides[d];
  return load(view);
}

Array cat(const std::vector<Array> &parts, int64_t dim, DType out_dtype) {
  std::vector<const Array *> kept;
  for (const Array &p : parts)
    if (!(p.sizes.size() == 1 && p.sizes[0] == 0)) // legacy rule: 1-D empty tensors are skipped
      kept.push_back(&p);
  if (kept.empty())
    return filled(out_dtype, {0}, 0);
  std::vector<int64_t> sizes = kept.front()->sizes;
  const auto d = static_cast<std::size_t>(normalizeDim(dim, static_cast<int64_t>(sizes.size())));
  sizes[d] = 0;
  for (const Array *p : kept)
    sizes[d] += p->sizes[d];
  const int64_t outer = checkedProduct(std::vector<int64_t>(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(d)));
  Array r = filled(out_dtype, sizes, 0);
  const int64_t row = checkedProduct(std::vector<int64_t>(sizes.begin() + static_cast<std::ptrdiff_t>(d), sizes.end()));
  int64_t at = 0;
  for (const Array *p : kept) {
    const Array c = castTo(*p, out_dtype);
    const int64_t block = c.numel() / std::max<int64_t>(outer, 1);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < block; ++i) {
        if (r.floating())
          r.reals[o * row + at + i] = c.reals[o * block + i];
        else
          r.ints[o * row + at + i] = c.ints[o * block + i];
      }
    at += block;
  }
  return r;
}

// self[i0, i1, ..., ik-1] with the k leading dims indexed by broadcast integer tensors.
Array indexLeading(const Array &self, const std::vector<const Array *> &indices) {
  const std::size_t k = indices.size();
  const std::vector<int64_t> index_sizes = broadcastAll(indices);
  std::vector<int64_t> sizes = index_sizes;
  sizes.insert(sizes.end(), self.sizes.begin() + static_cast<std::ptrdiff_t>(k), self.sizes.end());
  const std::vector<int64_t> strides = TensorData::contiguousStrides(self.sizes);
  const int64_t block = k < self.sizes.size() ? strides[k - 1] : 1;
  Array r;
  r.dtype = self.dtype;
  r.sizes = sizes;
  if (self.floating())
    r.reals.resize(static_cast<std::size_t>(checkedProduct(sizes)));
  else
    r.ints.resize(static_cast<std::size_t>(checkedProduct(sizes)));
  forEachBroadcast(index_sizes, indices, [&](int64_t i, const std::vector<int64_t> &o) {
    int64_t offset = 0;
    for (std::size_t d = 0; d < k; ++d) {
      int64_t at = indices[d]->ints[o[d]];
      const int64_t n = self.sizes[d];
      if (at < -n || at >= n)
        throw Error("native evaluation: index " + std::to_string(at) + " is out of bounds for size " +
                    std::to_string(n));
      offset += (at < 0 ? at + n : at) * strides[d];
    }
    for (int64_t j = 0; j < block; ++j) {
      if (self.floating())
        r.reals[i * block + j] = self.reals[offset + j];
      else
        r.ints[i * block + j] = self.ints[offset + j];
    }
  });
  return r;
}

Array matmul(Array a, Array b, DType out_dtype) {
  a = castTo(a, out_dtype);
  b = castTo(b, out_dtype);
  const bool a_vector = a.sizes.size() == 1, b_vector = b.sizes.size() == 1;
  if (a_vector)
    a.sizes.insert(a.sizes.begin(), 1);
  if (b_vector)
    b.sizes.push_back(1);
  const int64_t m = a.sizes[a.sizes.size() - 2], k = a.sizes.back(), n = b.sizes.back();
  if (b.sizes[b.sizes.size() - 2] != k)
    throw Error("native evaluation: matmul inner dims differ");
  Array batch_a, batch_b;
  batch_a.sizes.assign(a.sizes.begin(), a.sizes.end() - 2);
  batch_b.sizes.assign(b.sizes.begin(), b.sizes.end() - 2);
  const std::vector<int64_t> batch = broadcastAll({&batch_a, &batch_b});
  std::vector<int64_t> sizes = batch;
  sizes.push_back(m);
  sizes.push_back(n);
  Array r = filled(out_dtype, sizes, 0);
  forEachBroadcast(batch, {&batch_a, &batch_b}, [&](int64_t bi, const std::vector<int64_t> &o) {
    const int64_t ao = o[0] * m * k, bo = o[1] * k * n, ro = bi * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (r.floating()) {
          double sum = 0;
          for (int64_t t = 0; t < k; ++t)
            sum += a.reals[ao + i * k + t] * b.reals[bo + t * n + j];
          r.reals[ro + i * n + j] = roundReal(sum, out_dtype);
        } else {
          uint64_t sum = 0;
          for (int64_t t = 0; t < k; ++t)
            sum += static_cast<uint64_t>(a.ints[ao + i * k + t]) * static_cast<uint64_t>(b.ints[bo + t * n + j]);
          r.ints[ro + i * n + j] = wrapInteger(static_cast<int64_t>(sum), out_dtype);
        }
      }
  });
  if (a_vector)
    sizes.erase(sizes.end() - 2);
  if (b_vector)
    sizes.pop_back();
  return withSizes(std::move(r), sizes);
}

Array unaryFloat(const Array &a, DType out_dtype, double (*f64)(double), float (*f32)(float)) {
  Array r = castTo(a, out_dtype);
  for (double &v : r.reals)
    v = out_dtype == DType::Float32 ? static_cast<double>(f32(static_cast<float>(v))) : f64(v);
  return r;
}

// View ops return a view of their input's storage, as in PyTorch: no copy, and the serializer
// stores a table that several folds view (a rotary table per layer) once. Null for other ops
// and for a reshape that strides cannot express.
std::shared_ptr<const TensorData> foldedView(const Node &node, const EvalEnv &env) {
  enum class View { Reshape, Permute, Transpose, Slice, Select };
  static const std::unordered_map<std::string, View> kViews = {
      {"aten::reshape.default", View::Reshape},       {"aten::view.default", View::Reshape},
      {"aten::_unsafe_view.default", View::Reshape},  {"aten::view_copy.default", View::Reshape},
      {"aten::unsqueeze.default", View::Reshape},     {"aten::unsqueeze_copy.default", View::Reshape},
      {"aten::squeeze.default", View::Reshape},       {"aten::squeeze.dim", View::Reshape},
      {"aten::squeeze.dims", View::Reshape},          {"aten::squeeze_copy.default", View::Reshape},
      {"aten::squeeze_copy.dim", View::Reshape},      {"aten::squeeze_copy.dims", View::Reshape},
      {"aten::flatten.using_ints", View::Reshape},    {"aten::alias.default", View::Reshape},
      {"aten::detach.default", View::Reshape},        {"aten::permute.default", View::Permute},
      {"aten::permute_copy.default", View::Permute},  {"aten::transpose.int", View::Transpose},
      {"aten::transpose_copy.int", View::Transpose},  {"aten::t.default", View::Transpose},
      {"aten::slice.Tensor", View::Slice},            {"aten::slice_copy.Tensor", View::Slice},
      {"aten::select.int", View::Select}};
  const auto it = kViews.find(node.op().str());
  if (it == kViews.end())
    return nullptr;
  const EvalValue &e = env.at(node.input(0));
  if (!e.tensor)
    return nullptr;
  const TensorData &data = *e.tensor;
  const auto rank = static_cast<int64_t>(data.sizes.size());
  switch (it->second) {
  case View::Reshape:
    return passes::reshapeView(data, hintSizes(node.output()->shape()));
  case View::Permute: {
    std::vector<int64_t> perm;
    for (int64_t d : node.arg(1).asInts())
      perm.push_back(normalizeDim(d, rank));
    return passes::permuteView(data, perm);
  }
  case View::Transpose: {
    std::vector<int64_t> perm(data.sizes.size());
    for (int64_t i = 0; i < rank; ++i)
      perm[static_cast<std::size_t>(i)] = i;
    if (rank >= 2) {
      const bool t = node.numArgs() < 3;
      std::swap(perm[static_cast<std::size_t>(t ? 0 : normalizeDim(node.arg(1).asInt(), rank))],
                perm[static_cast<std::size_t>(t ? 1 : normalizeDim(node.arg(2).asInt(), rank))]);
    }
    return passes::permuteView(data, perm);
  }
  case View::Slice: {
    const int64_t dim = normalizeDim(optionalInt(node, "dim").value_or(0), rank);
    const int64_t step = optionalInt(node, "step").value_or(1);
    if (step <= 0)
      throw Error("native evaluation: slice step must be positive");
    const int64_t n = data.sizes[static_cast<std::size_t>(dim)];
    auto clamp = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
    const int64_t start = clamp(optionalInt(node, "start").value_or(0));
    const int64_t end = std::max(clamp(optionalInt(node, "end").value_or(std::numeric_limits<int64_t>::max())), start);
    return passes::sliceView(data, dim, start, end, step);
  }
  case View::Select: {
    const int64_t dim = normalizeDim(node.arg(1).asInt(), rank);
    const int64_t n = data.sizes[static_cast<std::size_t>(dim)];
    const int64_t index = node.arg(2).asInt();
    if (index < -n || index >= n)
      throw Error("native evaluation: select index out of range");
    return passes::selectView(data, dim, index < 0 ? index + n : index);
  }
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The op table.

using Cache = std::unordered_map<const Value *, Array>;
using Handler = std::function<Array(const Node &, const EvalEnv &, Cache &)>;

struct Entry {
  Handler run;
  std::function<bool(const Node &)> accepts; // extra conditions beyond dtypes and shapes
};

const Array &self(const Node &node, const EvalEnv &env, Cache &cache) {
  return tensorOf(node.input(0), env, cache);
}

bool alphaIsOneOrInteger(const Node &node) {
  const Argument *alpha = node.findArg("alpha");
  if (alpha == nullptr || alpha->isNone())
    return true;
  if (isFloating(node.output()->dtype()))
    return alpha->isNumber() && alpha->asDouble() == 1.0; // a float alpha is a fused multiply-add in ATen
  return alpha->isInt() || alpha->isBool();
}

int64_t alphaOf(const Node &node) {
  const Argument *alpha = node.findArg("alpha");
  return alpha == nullptr || alpha->isNone() ? 1 : alpha->asInt();
}

Handler arith(Arith op) {
  return [op](const Node &node, const EvalEnv &env, Cache &cache) {
    return binaryArith(op, operandOf(node.arg(0), env, cache), operandOf(node.arg(1), env, cache), outDType(node),
                       alphaOf(node));
  };
}

Handler compare(Compare op) {
  return [op](const Node &node, const EvalEnv &env, Cache &cache) {
    return binaryCompare(op, operandOf(node.arg(0), env, cache), operandOf(node.arg(1), env, cache));
  };
}

Handler sameData() {
  return [](const Node &node, const EvalEnv &env, Cache &cache) { return withSizes(self(node, env, cache), outSizes(node)); };
}

Handler fill(std::optional<double> value) {
  return [value](const Node &node, const EvalEnv &, Cache &) {
    double v = 0;
    if (value)
      v = *value;
    else
      v = node.arg("fill_value").asDouble();
    return filled(outDType(node), outSizes(node), v);
  };
}

Handler unary(double (*f64)(double), float (*f32)(float)) {
  return [f64, f32](const Node &node, const EvalEnv &env, Cache &cache) {
    return unaryFloat(self(node, env, cache), outDType(node), f64, f32);
  };
}

bool floatOutput(const Node &node) { return isFloating(node.output()->dtype()); }

const std::unordered_map<std::string, Entry> &table() {
  static const std::unordered_map<std::string, Entry> kTable = [] {
    std::unordered_map<std::string, Entry> t;
    for (const char *name : {"aten::add.Tensor", "aten::add.Scalar"})
      t[name] = {arith(Arith::Add), alphaIsOneOrInteger};
    for (const char *name : {"aten::sub.Tensor", "aten::sub.Scalar"})
      t[name] = {arith(Arith::Sub), alphaIsOneOrInteger};
    for (const char *name : {"aten::mul.Tensor", "aten::mul.Scalar"})
      t[name] = {arith(Arith::Mul), nullptr};
    for (const char *name : {"aten::div.Tensor", "aten::div.Scalar"})
      t[name] = {arith(Arith::Div), floatOutput}; // true division; rounding modes stay LibTorch's
    for (const char *name : {"aten::__and__.Tensor", "aten::bitwise_and.Tensor", "aten::logical_and.default"})
      t[name] = {arith(Arith::And), [](const Node &n) { return !floatOutput(n); }};
    for (const char *name : {"aten::__or__.Tensor", "aten::bitwise_or.Tensor", "aten::logical_or.default"})
      t[name] = {arith(Arith::Or), [](const Node &n) { return !floatOutput(n); }};
    for (const char *name : {"aten::__xor__.Tensor", "aten::bitwise_xor.Tensor"})
      t[name] = {arith(Arith::Xor), [](const Node &n) { return !floatOutput(n); }};
    // logical_and/or on non-bool operands mean "non-zero"; only their bool forms are native.
    for (const char *name : {"aten::logical_and.default", "aten::logical_or.default"})
      t[name].accepts = [](const Node &n) {
        return n.input(0)->dtype() == DType::Bool && n.input(1)->dtype() == DType::Bool;
      };
    const std::pair<const char *, Compare> comparisons[] = {
        {"eq", Compare::Eq}, {"ne", Compare::Ne}, {"lt", Compare::Lt},
        {"le", Compare::Le}, {"gt", Compare::Gt}, {"ge", Compare::Ge}};
    for (const auto &[name, op] : comparisons)
      for (const char *overload : {".Tensor", ".Scalar"})
        t[std::string("aten::") + name + overload] = {compare(op), nullptr};

    for (const char *name : {"aten::reshape.default", "aten::view.default", "aten::_unsafe_view.default",
                             "aten::view_copy.default", "aten::unsqueeze.default", "aten::unsqueeze_copy.default",
                             "aten::squeeze.default", "aten::squeeze.dim", "aten::squeeze.dims",
                             "aten::squeeze_copy.default", "aten::squeeze_copy.dim", "aten::squeeze_copy.dims",
                             "aten::flatten.using_ints", "aten::clone.default", "aten::alias.default",
                             "aten::detach.default", "aten::lift_fresh_copy.default", "aten::contiguous.default"})
      t[name] = {sameData(), nullptr};
    for (const char *name : {"aten::_to_copy.default", "aten::to.dtype", "aten::to.dtype_layout",
                             "aten::_to_dtype.default", "aten::type_as.default"})
      t[name] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                   return castTo(self(node, env, cache), outDType(node));
                 },
                 nullptr};
    for (const char *name : {"aten::expand.default", "aten::expand_copy.default"})
      t[name] = {[](const Node &node, const EvalEnv &env, Cache &) {
                   return expanded(*env.at(node.input(0)).tensor, outSizes(node));
                 },
                 nullptr};
    // Views: evaluateNatively returns them as views of the input's storage (foldedView, which
    // never fails for these); as an Array they are that view's elements.
    const Handler view = [](const Node &node, const EvalEnv &env, Cache &) {
      const std::shared_ptr<const TensorData> v = foldedView(node, env);
      if (!v)
        throw Error("native evaluation: " + node.op().str() + " has no strided view here");
      return load(*v);
    };
    for (const char *name : {"aten::permute.default", "aten::permute_copy.default", "aten::transpose.int",
                             "aten::transpose_copy.int", "aten::t.default"})
      t[name] = {view, nullptr};
    for (const char *name : {"aten::slice.Tensor", "aten::slice_copy.Tensor", "aten::select.int"})
      t[name] = {view, [](const Node &node) { return node.input(0)->rank() > 0; }};
    t["aten::cat.default"] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                                std::vector<Array> parts;
                                for (const Value *v : node.arg(0).asValues())
                                  parts.push_back(tensorOf(v, env, cache));
                                return cat(parts, optionalInt(node, "dim").value_or(0), outDType(node));
                              },
                              nullptr};
    t["aten::index.Tensor"] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                                 std::vector<const Array *> indices;
                                 for (const Value *v : node.arg(1).asValues())
                                   if (v != nullptr)
                                     indices.push_back(&tensorOf(v, env, cache));
                                 return indexLeading(self(node, env, cache), indices);
                               },
                               [](const Node &node) {
                                 // Integer index tensors on leading dims; masks and gaps are LibTorch's.
                                 bool gap = false;
                                 std::size_t count = 0;
                                 for (const Value *v : node.arg(1).asValues()) {
                                   if (v == nullptr) {
                                     gap = true;
                                     continue;
                                   }
                                   if (gap || (v->dtype() != DType::Int64 && v->dtype() != DType::Int32))
                                     return false;
                                   ++count;
                                 }
                                 return count > 0 && count <= static_cast<std::size_t>(node.input(0)->rank());
                               }};
    for (const char *name : {"aten::matmul.default", "aten::mm.default", "aten::bmm.default"})
      t[name] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                   return matmul(self(node, env, cache), tensorOf(node.input(1), env, cache), outDType(node));
                 },
                 [](const Node &node) { return node.input(0)->rank() >= 1 && node.input(1)->rank() >= 1; }};
    t["aten::where.self"] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                               const Array &c = self(node, env, cache);
                               const Array x = castTo(operandOf(node.arg(1), env, cache).array, outDType(node));
                               const Array y = castTo(operandOf(node.arg(2), env, cache).array, outDType(node));
                               Array r = filled(outDType(node), broadcastAll({&c, &x, &y}), 0);
                               forEachBroadcast(r.sizes, {&c, &x, &y}, [&](int64_t i, const std::vector<int64_t> &o) {
                                 const bool take = c.ints[o[0]] != 0;
                                 if (r.floating())
                                   r.reals[i] = take ? x.reals[o[1]] : y.reals[o[2]];
                                 else
                                   r.ints[i] = take ? x.ints[o[1]] : y.ints[o[2]];
                               });
                               return r;
                             },
                             [](const Node &node) { return node.input(0)->dtype() == DType::Bool; }};
    for (const char *name : {"aten::logical_not.default", "aten::bitwise_not.default"})
      t[name] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                   const bool logical = node.op().str() == "aten::logical_not.default";
                   Array r = castTo(self(node, env, cache), logical ? DType::Bool : outDType(node));
                   for (int64_t &v : r.ints)
                     v = r.dtype == DType::Bool ? !v : wrapInteger(~v, r.dtype);
                   return castTo(r, outDType(node));
                 },
                 [](const Node &node) { return !isFloating(node.input(0)->dtype()); }};
    t["aten::neg.default"] = {[](const Node &node, const EvalEnv &env, Cache &cache) {
                                Array r = castTo(self(node, env, cache), outDType(node));
                                for (double &v : r.reals)
                                  v = -v;
                                for (int64_t &v : r.ints)
                                  v = wrapInteger(static_cast<int64_t>(0 - static_cast<uint64_t>(v)), r.dtype);
                                return r;
                              },
                              [](const Node &node) { return node.output()->dtype() != DType::Bool; }};
    t["aten::cos.default"] = {unary([](double v) { return std::cos(v); }, [](float v) { return std::cos(v); }),
                              floatOutput};
    t["aten::sin.default"] = {unary([](double v) { return std::sin(v); }, [](float v) { return std::sin(v); }),
                              floatOutput};
    t["aten::exp.default"] = {unary([](double v) { return std::exp(v); }, [](float v) { return std::exp(v); }),
                              floatOutput};

    auto arange = [](const Node &node, const EvalEnv &, Cache &) {
      // ATen computes start + step * i in the accumulation type (double for floats).
      double start = 0, step = 1;
      const std::string name = node.op().str();
      if (name != "aten::arange.default")
        start = node.arg(0).asDouble();
      if (name == "aten::arange.start_step")
        step = node.arg(2).asDouble();
      Array r = filled(outDType(node), outSizes(node), 0);
      const int64_t n = r.numel();
      const bool ints = !r.floating() && node.arg(0).isInt() && (name != "aten::arange.start_step" || node.arg(2).isInt());
      for (int64_t i = 0; i < n; ++i) {
        if (r.floating())
          r.reals[i] = roundReal(start + step * static_cast<double>(i), r.dtype);
        else
          r.ints[i] = ints ? wrapInteger(static_cast<int64_t>(start) + static_cast<int64_t>(step) * i, r.dtype)
                           : wrapInteger(truncateReal(start + step * static_cast<double>(i)), r.dtype);
      }
      return r;
    };
    for (const char *name : {"aten::arange.default", "aten::arange.start", "aten::arange.start_step"})
      t[name] = {arange, [](const Node &node) {
                   const std::string n = node.op().str();
                   const std::size_t positional = n == "aten::arange.default" ? 1 : n == "aten::arange.start" ? 2 : 3;
                   for (std::size_t i = 0; i < positional; ++i)
                     if (i >= node.numArgs() || !node.arg(i).isNumber())
                       return false;
                   if (!floatOutput(node))
                     return true;
                   // ATen's vectorised arange rounds base + step * j per SIMD lane, so fractional
                   // ranges depend on the CPU's vector width; integral ones are exact everywhere.
                   const double limit = node.output()->dtype() == DType::Float32 ? 16777216.0 : 9007199254740992.0;
                   for (std::size_t i = 0; i < positional; ++i) {
                     const double x = node.arg(i).asDouble();
                     if (x != std::floor(x) || std::fabs(x) >= limit)
                       return false;
                   }
                   return true;
                 }};
    for (const char *name : {"aten::new_ones.default", "aten::ones.default", "aten::ones_like.default"})
      t[name] = {fill(1.0), nullptr};
    for (const char *name : {"aten::new_zeros.default", "aten::zeros.default", "aten::zeros_like.default"})
      t[name] = {fill(0.0), nullptr};
    for (const char *name : {"aten::new_full.default", "aten::full.default", "aten::full_like.default"})
      t[name] = {fill(std::nullopt), [](const Node &node) { return node.arg("fill_value").isNumber(); }};
    t["aten::scalar_tensor.default"] = {[](const Node &node, const EvalEnv &, Cache &) {
                                          return filled(outDType(node), outSizes(node), node.arg(0).asDouble());
                                        },
                                        [](const Node &node) { return node.arg(0).isNumber(); }};
    return t;
  }();
  return kTable;
}

} // namespace

bool canEvaluateNatively(const Node &node) {
  const auto &t = table();
  const auto it = t.find(node.op().str());
  if (it == t.end() || node.numOutputs() != 1)
    return false;
  const Value *out = node.output();
  if (!out->isTensor() || !covered(out->dtype()) || !isStatic(out->shape()) ||
      numElementsHint(out->shape()) > kMaxElements)
    return false;
  for (std::size_t i = 0; i < node.numArgs(); ++i)
    for (const Value *v : node.arg(i).referencedValues())
      if (v == nullptr || !v->isTensor() || !covered(v->dtype()) || !isStatic(v->shape()) ||
          numElementsHint(v->shape()) > kMaxElements)
        return false;
  return !it->second.accepts || it->second.accepts(node);
}

std::vector<EvalValue> evaluateNatively(const Node &node, const EvalEnv &env) {
  if (std::shared_ptr<const TensorData> view = foldedView(node, env))
    return {EvalValue{std::move(view), std::nullopt}};
  Cache cache;
  // No cast to the graph's dtype here: a disagreement is fold-constants' to catch and report.
  return {store(table().at(node.op().str()).run(node, env, cache))};
}

} // namespace tico::aten_eval
