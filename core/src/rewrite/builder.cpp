#include "tico/rewrite/builder.h"

#include "tico/plugin/registry.h"
#include "tico/rewrite/type_rule.h"
#include "tico/support/error.h"

#include <cstring>

namespace tico::rewrite {

Builder::Builder(Graph &graph, const Registry &types, Node *before, std::string prefix)
    : graph_(graph), types_(&types), before_(before), prefix_(std::move(prefix)) {}

Builder::Builder(Graph &graph, Node *before, std::string prefix)
    : graph_(graph), types_(nullptr), before_(before), prefix_(std::move(prefix)) {}

Node *Builder::created(Node *node) {
  if (on_create_)
    on_create_(node);
  return node;
}

Node *Builder::node(const std::string &op_text, std::vector<NamedArg> args, std::size_t num_outputs) {
  OpKey op = OpKey::parseOrThrow(op_text);
  if (types_ == nullptr)
    throw Error("cannot type a new " + op.str() + " node: the builder was made without the registry's type rules");
  const OpSchema *schema = graph_.schemas() ? graph_.schemas()->find(op) : nullptr;
  std::vector<TensorTypeSpec> outputs;
  if (schema != nullptr && num_outputs == 0) {
    for (const SchemaReturn &r : schema->returns) {
      TensorTypeSpec spec;
      if (r.type_text == "SymInt")
        spec.kind = ValueKind::SymInt;
      outputs.push_back(spec);
    }
  } else {
    outputs.resize(num_outputs == 0 ? 1 : num_outputs);
  }
  Node *n = graph_.createNode(op, std::move(args), std::move(outputs), before_, prefix_ + "_" + op.name);
  std::string why;
  if (!applyTypes(*types_, *n, &why)) {
    // Leave the graph as it was before the failed creation.
    graph_.eraseNode(n);
    throw Error("cannot type a new " + op.str() + " node: " + why);
  }
  return created(n);
}

Value *Builder::make(const std::string &op, std::vector<Argument> args) {
  std::vector<NamedArg> named;
  for (auto &a : args)
    named.push_back(NamedArg{"", std::move(a)});
  return make(op, std::move(named));
}

Value *Builder::make(const std::string &op, std::vector<NamedArg> args) { return node(op, std::move(args))->output(); }

Value *Builder::typed(const std::string &op_text, std::vector<NamedArg> args, DType dtype, Shape shape) {
  OpKey op = OpKey::parseOrThrow(op_text);
  TensorTypeSpec out;
  out.dtype = dtype;
  out.shape = std::move(shape);
  return created(graph_.createNode(op, std::move(args), {out}, before_, prefix_ + "_" + op.name))->output();
}

Value *Builder::cast(Value *x, DType dtype) {
  return make("aten::_to_copy.default", std::vector<NamedArg>{{"", A(x)}, kw("dtype", Argument::scalarType(dtype))});
}

Value *Builder::symSize(Value *x, int64_t dim) { return make("aten::sym_size.int", {A(x), A(dim)}); }

std::optional<Argument> Builder::sizes(const Shape &target, const std::vector<Value *> &sources, bool allow_infer) {
  int symbolic = 0;
  for (const Dim &d : target)
    symbolic += d.isSymbolic();
  std::vector<SymIntElem> elems;
  for (const Dim &d : target) {
    if (d.isStatic()) {
      elems.push_back(SymIntElem{d.value(), nullptr});
      continue;
    }
    if (allow_infer && symbolic == 1) {
      elems.push_back(SymIntElem{-1, nullptr});
      continue;
    }
    Value *found = nullptr;
    for (Value *src : sources) {
      for (std::size_t i = 0; i < src->shape().size() && !found; ++i)
        if (src->shape()[i] == d)
          found = symSize(src, static_cast<int64_t>(i));
      if (found)
        break;
    }
    if (!found)
      return std::nullopt;
    elems.push_back(SymIntElem{0, found});
  }
  return Argument::symInts(std::move(elems));
}

Value *Builder::reshape(Value *x, const Shape &target, const std::vector<Value *> &extra_sources) {
  std::vector<Value *> sources{x};
  sources.insert(sources.end(), extra_sources.begin(), extra_sources.end());
  auto s = sizes(target, sources);
  if (!s)
    return nullptr;
  // Typed with the target itself: a -1 stands for exactly the symbolic dim of the target.
  return typed("aten::reshape.default", {{"", A(x)}, {"", std::move(*s)}}, x->dtype(), target);
}

Value *Builder::expand(Value *x, const Shape &target, const std::vector<Value *> &extra_sources) {
  std::vector<SymIntElem> elems;
  std::size_t lead = target.size() - x->shape().size();
  std::vector<Value *> sources{x};
  sources.insert(sources.end(), extra_sources.begin(), extra_sources.end());
  for (std::size_t i = 0; i < target.size(); ++i) {
    const Dim &d = target[i];
    if (i >= lead && x->shape()[i - lead] == d) {
      elems.push_back(SymIntElem{-1, nullptr});
    } else if (d.isStatic()) {
      elems.push_back(SymIntElem{d.value(), nullptr});
    } else {
      auto one = sizes({d}, sources, false);
      if (!one)
        return nullptr;
      elems.push_back(one->kind() == Argument::Kind::SymIntList ? one->asSymInts()[0]
                                                                 : SymIntElem{one->asInts()[0], nullptr});
    }
  }
  return typed("aten::expand.default", {{"", A(x)}, {"", Argument::symInts(std::move(elems))}}, x->dtype(), target);
}

Value *Builder::reshapeTo(Value *x, const Shape &target, const std::string &suffix) {
  std::vector<int64_t> sizes;
  int symbolic = 0;
  for (const Dim &d : target) {
    sizes.push_back(d.isSymbolic() ? -1 : d.value());
    symbolic += d.isSymbolic() ? 1 : 0;
  }
  if (symbolic > 1)
    throw Error("internal: a reshape target with several symbolic dims needs SymInt sizes");
  return value(OpKey("aten", "reshape"), {A(x), Argument::ints(sizes)}, x->dtype(), target, suffix);
}

Value *Builder::castIfNeeded(Value *x, DType dtype, const std::string &suffix) {
  if (x->dtype() == dtype)
    return x;
  TensorTypeSpec out;
  out.dtype = dtype;
  out.shape = x->shape();
  return node(OpKey("aten", "_to_copy"), {NamedArg{"self", A(x)}, NamedArg{"dtype", Argument::scalarType(dtype)}}, {out},
              suffix)
      ->output();
}

Node *Builder::node(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
                    const std::string &suffix) {
  return created(graph_.createNode(op, std::move(args), std::move(outputs), before_, prefix_ + suffix));
}

Node *Builder::node(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape, const std::string &suffix) {
  return created(graph_.createNode(op, std::move(args), dtype, std::move(shape), before_, prefix_ + suffix));
}

Value *Builder::permuteOrView(Value *v, const std::vector<int64_t> &perm, const std::string &suffix) {
  if (v->isConstant())
    return constant(permutedView(*v->constant(), perm), suffix);
  return value(OpKey("aten", "permute"), {A(v), Argument::ints(perm)}, v->dtype(), permuteShape(v->shape(), perm),
               suffix);
}

Value *Builder::sliceOrView(Value *v, int64_t dim, int64_t start, int64_t end, int64_t step, const std::string &suffix) {
  if (v->isConstant())
    return constant(slicedView(*v->constant(), dim, start, end, step), suffix);
  Shape shape = v->shape();
  shape[static_cast<std::size_t>(dim)] = end > start ? (end - start + step - 1) / step : 0;
  return value(OpKey("aten", "slice", "Tensor"), {A(v), A(dim), A(start), A(end), A(step)}, v->dtype(), shape, suffix);
}

Value *Builder::unsqueezeOrView(Value *v, int64_t dim, const std::string &suffix) {
  if (v->isConstant())
    return constant(unsqueezedView(*v->constant(), dim), suffix);
  Shape shape = v->shape();
  shape.insert(shape.begin() + dim, Dim(1));
  return value(OpKey("aten", "unsqueeze"), {A(v), A(dim)}, v->dtype(), shape, suffix);
}

Value *Builder::squeezeOrView(Value *v, int64_t dim, const std::string &suffix) {
  if (v->isConstant())
    return constant(squeezedView(*v->constant(), dim), suffix);
  Shape shape = v->shape();
  shape.erase(shape.begin() + dim);
  return value(OpKey("aten", "squeeze", "dims"), {A(v), Argument::ints({dim})}, v->dtype(), shape, suffix);
}

Value *Builder::constant(std::shared_ptr<const TensorData> data, const std::string &suffix) {
  return graph_.addConstant(prefix_ + suffix, std::move(data));
}

namespace {

// IEEE binary16 / bfloat16 bit patterns of a float, rounded to nearest even.
uint16_t toBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0; // NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t toFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u)
    return sign | 0x7e00u; // NaN
  if (abs >= 0x477ff000u)
    return sign | 0x7c00u; // rounds to infinity
  if (abs < 0x38800000u) {
    // Subnormal (or zero) in half precision: scale into the 10-bit mantissa with rounding.
    float scaled;
    uint32_t a = abs;
    std::memcpy(&scaled, &a, 4);
    scaled *= 16777216.0f; // 2^24: one unit of the smallest subnormal
    auto m = static_cast<uint32_t>(scaled);
    float rest = scaled - static_cast<float>(m);
    if (rest > 0.5f || (rest == 0.5f && (m & 1u)))
      ++m;
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t exp = ((abs >> 23) - 112u) << 10;
  uint32_t mant = abs & 0x7fffffu;
  uint32_t half = exp | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;
  return static_cast<uint16_t>(sign | half);
}

} // namespace

Value *Builder::scalarConstant(DType dtype, double value, const std::string &suffix) {
  std::vector<std::byte> bytes(elementSize(dtype));
  auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
  switch (dtype) {
  case DType::Float16:
    put(toFloat16(static_cast<float>(value)));
    break;
  case DType::BFloat16:
    put(toBFloat16(static_cast<float>(value)));
    break;
  case DType::Int8:
    put(static_cast<int8_t>(value));
    break;
  case DType::UInt8:
    put(static_cast<uint8_t>(value));
    break;
  case DType::Int16:
    put(static_cast<int16_t>(value));
    break;
  case DType::Float32:
    put(static_cast<float>(value));
    break;
  case DType::Float64:
    put(value);
    break;
  case DType::Int32:
    put(static_cast<int32_t>(value));
    break;
  case DType::Int64:
    put(static_cast<int64_t>(value));
    break;
  case DType::Bool:
    put(static_cast<uint8_t>(value != 0.0));
    break;
  default:
    throw Error("scalarConstant: unsupported dtype " + std::string(dtypeName(dtype)));
  }
  return constant(std::make_shared<TensorData>(TensorData::fromBytes(dtype, {}, std::move(bytes))), suffix);
}

// ---- constant views ----------------------------------------------------------------------------

std::shared_ptr<const TensorData> permutedView(const TensorData &data, const std::vector<int64_t> &perm) {
  auto view = std::make_shared<TensorData>(data);
  view->sizes.clear();
  view->strides.clear();
  for (int64_t p : perm) {
    view->sizes.push_back(data.sizes.at(static_cast<std::size_t>(p)));
    view->strides.push_back(data.strides.at(static_cast<std::size_t>(p)));
  }
  return view;
}

std::shared_ptr<const TensorData> slicedView(const TensorData &data, int64_t dim, int64_t start, int64_t end,
                                             int64_t step) {
  auto view = std::make_shared<TensorData>(data);
  auto d = static_cast<std::size_t>(dim);
  view->storage_offset += start * data.strides.at(d);
  view->sizes[d] = end > start ? (end - start + step - 1) / step : 0;
  view->strides[d] = data.strides[d] * step;
  return view;
}

std::shared_ptr<const TensorData> unsqueezedView(const TensorData &data, int64_t dim) {
  auto view = std::make_shared<TensorData>(data);
  auto d = static_cast<std::size_t>(dim);
  // The stride of a size-1 dim never matters; use the one a contiguous tensor would have.
  int64_t stride = d < data.sizes.size() ? data.strides[d] * data.sizes[d] : 1;
  view->sizes.insert(view->sizes.begin() + dim, 1);
  view->strides.insert(view->strides.begin() + dim, stride);
  return view;
}

std::shared_ptr<const TensorData> squeezedView(const TensorData &data, int64_t dim) {
  auto view = std::make_shared<TensorData>(data);
  view->sizes.erase(view->sizes.begin() + dim);
  view->strides.erase(view->strides.begin() + dim);
  return view;
}

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm) {
  Shape out;
  for (int64_t p : perm)
    out.push_back(shape.at(static_cast<std::size_t>(p)));
  return out;
}

std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm) {
  std::vector<int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

} // namespace tico::rewrite
