#include "builder.h"

#include "type_rules.h"

#include "tico/support/error.h"

#include <cstring>

namespace tico::passes {

Builder::Builder(Graph &graph, Node *before, std::string prefix)
    : graph_(graph), before_(before), prefix_(std::move(prefix)) {}

Node *Builder::node(const std::string &op_text, std::vector<NamedArg> args, std::size_t num_outputs) {
  OpKey op = OpKey::parseOrThrow(op_text);
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
  if (!inferOutputTypes(*n, &why) || !applyInferredTypes(*n)) {
    // Leave the graph as it was before the failed creation.
    graph_.eraseNode(n);
    throw Error("cannot type a new " + op.str() + " node: " + why);
  }
  return n;
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
  return graph_.createNode(op, std::move(args), {out}, before_, prefix_ + "_" + op.name)->output();
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

Value *Builder::constant(const std::string &suffix, std::shared_ptr<const TensorData> data) {
  return graph_.addConstant(prefix_ + "_" + suffix, std::move(data));
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

Value *Builder::scalarConstant(const std::string &suffix, DType dtype, double value) {
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
  return constant(suffix, std::make_shared<TensorData>(TensorData::fromBytes(dtype, {}, std::move(bytes))));
}

} // namespace tico::passes
