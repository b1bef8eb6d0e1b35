#include "ivalue_conversion.h"

#include "node_inputs.h"

#include <ATen/ScalarOps.h>

#include <array>
#include <utility>

namespace tico::aten_eval {
namespace {

constexpr std::array<std::pair<DType, c10::ScalarType>, 15> kScalarTypes = {{
    {DType::Bool, c10::ScalarType::Bool},
    {DType::UInt8, c10::ScalarType::Byte},
    {DType::Int8, c10::ScalarType::Char},
    {DType::Int16, c10::ScalarType::Short},
    {DType::Int32, c10::ScalarType::Int},
    {DType::Int64, c10::ScalarType::Long},
    {DType::UInt16, c10::ScalarType::UInt16},
    {DType::UInt32, c10::ScalarType::UInt32},
    {DType::UInt64, c10::ScalarType::UInt64},
    {DType::Float16, c10::ScalarType::Half},
    {DType::BFloat16, c10::ScalarType::BFloat16},
    {DType::Float32, c10::ScalarType::Float},
    {DType::Float64, c10::ScalarType::Double},
    {DType::Complex64, c10::ScalarType::ComplexFloat},
    {DType::Complex128, c10::ScalarType::ComplexDouble},
}};

c10::Layout toLayout(const Node &node, Layout layout) {
  switch (layout) {
  case Layout::Strided:
    return c10::kStrided;
  case Layout::SparseCoo:
    return c10::kSparse;
  case Layout::SparseCsr:
    return c10::kSparseCsr;
  case Layout::SparseCsc:
    return c10::kSparseCsc;
  case Layout::SparseBsr:
    return c10::kSparseBsr;
  case Layout::SparseBsc:
    return c10::kSparseBsc;
  case Layout::Mkldnn:
    return c10::kMkldnn;
  case Layout::Unknown:
    break;
  }
  throw nodeError(node, "unknown tensor layout");
}

c10::MemoryFormat toMemoryFormat(const Node &node, MemoryFormat format) {
  switch (format) {
  case MemoryFormat::Contiguous:
    return c10::MemoryFormat::Contiguous;
  case MemoryFormat::ChannelsLast:
    return c10::MemoryFormat::ChannelsLast;
  case MemoryFormat::ChannelsLast3d:
    return c10::MemoryFormat::ChannelsLast3d;
  case MemoryFormat::Preserve:
    return c10::MemoryFormat::Preserve;
  case MemoryFormat::Unknown:
    break;
  }
  throw nodeError(node, "unknown memory format");
}

c10::TypePtr unwrapOptional(const c10::TypePtr &type) {
  if (auto opt = type->cast<c10::OptionalType>())
    return opt->getElementType();
  return type;
}

bool isTensorType(const c10::TypePtr &type) { return type->kind() == c10::TypeKind::TensorType; }

bool isIntLike(c10::TypeKind k) { return k == c10::TypeKind::IntType || k == c10::TypeKind::SymIntType; }
bool isFloatLike(c10::TypeKind k) { return k == c10::TypeKind::FloatType || k == c10::TypeKind::SymFloatType; }
bool isBoolLike(c10::TypeKind k) { return k == c10::TypeKind::BoolType || k == c10::TypeKind::SymBoolType; }

std::string describe(const c10::Argument &schema_arg) {
  return "argument '" + schema_arg.name() + "' (" + schema_arg.real_type()->str() + ")";
}

Error mismatch(const Node &node, const Argument &arg, const c10::Argument &schema_arg) {
  // kindName carries its own article ("a value", "an int list", "None").
  return nodeError(node, describe(schema_arg) + " cannot take " + Argument::kindName(arg.kind()));
}

at::Tensor tensorArg(const Node &node, const Value *value, const EvalEnv &env, InputStorages &storages) {
  if (value == nullptr)
    throw nodeError(node, "a tensor argument is missing");
  return toTensor(*lookupTensor(node, value, env), storages);
}

// A symbolic scalar as the IValue its kind calls for.
c10::IValue symScalar(const Node &node, const Value *value, const EvalEnv &env) {
  double x = lookupScalar(node, value, env);
  switch (value->kind()) {
  case ValueKind::SymInt:
    return static_cast<int64_t>(x);
  case ValueKind::SymFloat:
    return x;
  case ValueKind::SymBool:
    return x != 0;
  case ValueKind::Tensor:
    break;
  }
  throw nodeError(node, "'" + value->name() + "' is a tensor where a scalar is expected");
}

// A one-element tensor where the schema wants a Scalar: the value it holds, as eager PyTorch's
// argument parser takes a 0-dim tensor for a Scalar. Passes that materialise Python numbers as
// rank-0 constants (the relaxed stage's dtype passes, for instance) leave these in .Scalar
// overloads, e.g. aten::ne.Scalar(x, <int32 constant 2>).
c10::IValue tensorAsScalar(const Node &node, const Argument &arg, const c10::Argument &schema_arg,
                           const EvalEnv &env, InputStorages &storages) {
  at::Tensor t = tensorArg(node, arg.asValue(), env, storages);
  if (t.numel() != 1)
    throw nodeError(node, describe(schema_arg) + " takes a scalar, but '" + arg.asValue()->name() + "' has " +
                              std::to_string(t.numel()) + " elements");
  return t.item();
}

std::vector<int64_t> intList(const Node &node, const Argument &arg, const c10::Argument &schema_arg,
                             const EvalEnv &env) {
  switch (arg.kind()) {
  case Argument::Kind::IntList:
    return arg.asInts();
  case Argument::Kind::SymIntList: {
    std::vector<int64_t> out;
    for (const SymIntElem &e : arg.asSymInts())
      out.push_back(e.sym ? static_cast<int64_t>(lookupScalar(node, e.sym, env)) : e.value);
    return out;
  }
  case Argument::Kind::Int: // int[N] written as a single int broadcasts to N elements
    return std::vector<int64_t>(schema_arg.N().value_or(1), arg.asInt());
  case Argument::Kind::Value:
    if (schema_arg.N() && !arg.asValue()->isTensor())
      return std::vector<int64_t>(*schema_arg.N(), static_cast<int64_t>(lookupScalar(node, arg.asValue(), env)));
    break;
  default:
    break;
  }
  throw mismatch(node, arg, schema_arg);
}

c10::IValue listArg(const Node &node, const Argument &arg, const c10::Argument &schema_arg,
                    const c10::TypePtr &elem, const EvalEnv &env, InputStorages &storages) {
  const c10::TypePtr inner = unwrapOptional(elem);
  const bool optional_elems = inner != elem;
  if (isTensorType(inner)) {
    if (arg.kind() != Argument::Kind::ValueList && arg.kind() != Argument::Kind::OptionalValueList)
      throw mismatch(node, arg, schema_arg);
    if (optional_elems) {
      c10::List<std::optional<at::Tensor>> list;
      for (const Value *v : arg.asValues())
        list.push_back(v ? std::optional<at::Tensor>(tensorArg(node, v, env, storages)) : std::nullopt);
      return list;
    }
    c10::List<at::Tensor> list;
    for (const Value *v : arg.asValues())
      list.push_back(tensorArg(node, v, env, storages));
    return list;
  }
  const c10::TypeKind k = inner->kind();
  if (isIntLike(k))
    return intList(node, arg, schema_arg, env);
  if (isFloatLike(k)) {
    if (arg.kind() == Argument::Kind::FloatList)
      return arg.asDoubles();
    if (arg.kind() == Argument::Kind::IntList) {
      const auto &ints = arg.asInts();
      return std::vector<double>(ints.begin(), ints.end());
    }
    throw mismatch(node, arg, schema_arg);
  }
  if (isBoolLike(k)) {
    if (arg.kind() == Argument::Kind::BoolList) {
      c10::List<bool> list;
      for (bool b : arg.asBools())
        list.push_back(b);
      return list;
    }
    if (arg.kind() == Argument::Kind::Bool) { // bool[N] written as a single bool
      c10::List<bool> list;
      for (int i = 0; i < schema_arg.N().value_or(1); ++i)
        list.push_back(arg.asBool());
      return list;
    }
    throw mismatch(node, arg, schema_arg);
  }
  if (k == c10::TypeKind::StringType && arg.kind() == Argument::Kind::StringList) {
    c10::List<std::string> list;
    for (const std::string &s : arg.asStrings())
      list.push_back(s);
    return list;
  }
  throw mismatch(node, arg, schema_arg);
}

} // namespace

c10::ScalarType toScalarType(DType dtype) {
  for (const auto &[ours, theirs] : kScalarTypes)
    if (ours == dtype)
      return theirs;
  throw Error("element type '" + std::string(dtypeName(dtype)) + "' has no LibTorch counterpart");
}

std::optional<DType> fromScalarType(c10::ScalarType type) {
  for (const auto &[ours, theirs] : kScalarTypes)
    if (theirs == type)
      return ours;
  return std::nullopt;
}

at::Tensor toTensor(const TensorData &data, InputStorages &storages) {
  const auto options = at::TensorOptions().dtype(toScalarType(data.dtype)).device(c10::kCPU);
  if (data.numel() == 0 || !data.storage || data.storage->size() == 0)
    return at::empty_strided(data.sizes, data.strides, options);
  data.checkBounds();
  storages.emplace(data.storage->data(), data.storage);
  // LibTorch wants a mutable pointer; the evaluator never runs ops that write their inputs,
  // and memory-mapped weights are mapped read-only, so a stray write would fault, not corrupt.
  void *base = const_cast<std::byte *>(data.storage->data());
  std::shared_ptr<const Storage> keep = data.storage;
  return at::for_blob(base, data.sizes)
      .strides(data.strides)
      .storage_offset(data.storage_offset)
      .deleter([keep](void *) mutable { keep.reset(); })
      .options(options)
      .make_tensor();
}

std::shared_ptr<const TensorData> fromTensor(const at::Tensor &result, const InputStorages &storages) {
  at::Tensor t = result;
  if (t.layout() != c10::kStrided || !t.device().is_cpu())
    throw Error("result is not a dense CPU tensor (layout " + c10::str(t.layout()) + ", device " +
                t.device().str() + ")");
  if (t.is_conj())
    t = t.resolve_conj();
  if (t.is_neg())
    t = t.resolve_neg();
  auto dtype = fromScalarType(t.scalar_type());
  if (!dtype)
    throw Error(std::string("result element type ") + c10::toString(t.scalar_type()) +
                " has no tico counterpart");
  auto data = std::make_shared<TensorData>();
  data->dtype = *dtype;
  data->sizes = t.sizes().vec();
  data->strides = t.strides().vec();
  data->storage_offset = t.storage_offset();
  const c10::Storage &storage = t.storage();
  const auto *base = static_cast<const std::byte *>(storage.data());
  if (auto it = storages.find(base); it != storages.end() && it->second->size() >= storage.nbytes()) {
    data->storage = it->second; // a view of an input: share its tico Storage
  } else {
    // Keep LibTorch's buffer alive instead of copying it out.
    auto keep = std::make_shared<const c10::Storage>(storage);
    data->storage = Storage::fromExternal(base, storage.nbytes(), std::move(keep));
  }
  return data;
}

bool supportsArgumentType(const c10::TypePtr &type) {
  const c10::TypePtr t = unwrapOptional(type);
  switch (t->kind()) {
  case c10::TypeKind::TensorType:
  case c10::TypeKind::IntType:
  case c10::TypeKind::SymIntType:
  case c10::TypeKind::FloatType:
  case c10::TypeKind::SymFloatType:
  case c10::TypeKind::BoolType:
  case c10::TypeKind::SymBoolType:
  case c10::TypeKind::NumberType:
  case c10::TypeKind::StringType:
  case c10::TypeKind::ScalarTypeType:
  case c10::TypeKind::LayoutType:
  case c10::TypeKind::MemoryFormatType:
  case c10::TypeKind::DeviceObjType:
  case c10::TypeKind::GeneratorType: // only ever None: random ops get no generator object
    return true;
  case c10::TypeKind::ListType: {
    const c10::TypePtr elem = unwrapOptional(t->castRaw<c10::ListType>()->getElementType());
    const c10::TypeKind k = elem->kind();
    return isTensorType(elem) || isIntLike(k) || isFloatLike(k) || isBoolLike(k) ||
           k == c10::TypeKind::StringType;
  }
  default:
    return false;
  }
}

bool supportsReturnType(const c10::TypePtr &type) {
  const c10::TypePtr t = unwrapOptional(type);
  switch (t->kind()) {
  case c10::TypeKind::TensorType:
  case c10::TypeKind::IntType:
  case c10::TypeKind::SymIntType:
  case c10::TypeKind::FloatType:
  case c10::TypeKind::SymFloatType:
  case c10::TypeKind::BoolType:
  case c10::TypeKind::SymBoolType:
  case c10::TypeKind::NumberType:
    return true;
  case c10::TypeKind::ListType:
    return isTensorType(t->castRaw<c10::ListType>()->getElementType());
  default:
    return false;
  }
}

c10::IValue toIValue(const Node &node, const Argument &arg, const c10::Argument &schema_arg,
                     const EvalEnv &env, InputStorages &storages) {
  if (arg.isNone()) {
    if (schema_arg.real_type()->kind() != c10::TypeKind::OptionalType)
      throw nodeError(node, describe(schema_arg) + " is not optional but the node gives None");
    return {};
  }
  const c10::TypePtr type = unwrapOptional(schema_arg.real_type());
  const c10::TypeKind k = type->kind();
  const Argument::Kind a = arg.kind();
  if (k == c10::TypeKind::ListType)
    return listArg(node, arg, schema_arg, type->castRaw<c10::ListType>()->getElementType(), env, storages);
  if (k == c10::TypeKind::TensorType) {
    // torch.export keeps Python numbers in Tensor slots (x + 2.5); eager PyTorch turns them
    // into wrapped-number tensors, which take part in type promotion like scalars.
    if (a == Argument::Kind::Int)
      return at::native::wrapped_scalar_tensor(c10::Scalar(arg.asInt()));
    if (a == Argument::Kind::Float)
      return at::native::wrapped_scalar_tensor(c10::Scalar(arg.asDouble()));
    if (a == Argument::Kind::Bool)
      return at::native::wrapped_scalar_tensor(c10::Scalar(arg.asBool()));
    if (a != Argument::Kind::Value)
      throw mismatch(node, arg, schema_arg);
    // A symbolic scalar in a Tensor slot (x * x.shape[0]) is a Python number to eager PyTorch
    // too: a wrapped number, so an int never promotes a float tensor to int64 and vice versa.
    if (!arg.asValue()->isTensor())
      return at::native::wrapped_scalar_tensor(symScalar(node, arg.asValue(), env).toScalar());
    return tensorArg(node, arg.asValue(), env, storages);
  }
  if (k == c10::TypeKind::NumberType && a == Argument::Kind::Value && arg.asValue()->isTensor())
    return tensorAsScalar(node, arg, schema_arg, env, storages);
  // Scalars of any flavour may come as a symbolic value computed earlier in the graph.
  if (a == Argument::Kind::Value && !arg.asValue()->isTensor()) {
    c10::IValue v = symScalar(node, arg.asValue(), env);
    if (isFloatLike(k) && v.isInt())
      return static_cast<double>(v.toInt());
    return v;
  }
  if (isIntLike(k) && (a == Argument::Kind::Int || a == Argument::Kind::Bool))
    return arg.asInt();
  if (isFloatLike(k) && arg.isNumber())
    return arg.asDouble();
  if (isBoolLike(k) && (a == Argument::Kind::Bool || a == Argument::Kind::Int))
    return arg.asBool();
  if (k == c10::TypeKind::NumberType) {
    if (a == Argument::Kind::Int)
      return arg.asInt();
    if (a == Argument::Kind::Float)
      return arg.asDouble();
    if (a == Argument::Kind::Bool)
      return arg.asBool();
  }
  if (k == c10::TypeKind::StringType && a == Argument::Kind::String)
    return arg.asString();
  if (k == c10::TypeKind::ScalarTypeType && a == Argument::Kind::ScalarType)
    return toScalarType(arg.asScalarType());
  if (k == c10::TypeKind::LayoutType && a == Argument::Kind::Layout)
    return toLayout(node, arg.asLayout());
  if (k == c10::TypeKind::MemoryFormatType && a == Argument::Kind::MemoryFormat)
    return toMemoryFormat(node, arg.asMemoryFormat());
  // Evaluation happens on the CPU whatever device the program was exported for.
  if (k == c10::TypeKind::DeviceObjType && a == Argument::Kind::Device)
    return c10::Device(c10::kCPU);
  throw mismatch(node, arg, schema_arg);
}

void appendResults(const Node &node, const c10::IValue &result, const InputStorages &storages,
                   std::vector<EvalValue> &out) {
  try {
    if (result.isTensor()) {
      out.push_back({fromTensor(result.toTensor(), storages), std::nullopt});
    } else if (result.isTensorList()) {
      for (const at::Tensor &t : result.toTensorVector())
        out.push_back({fromTensor(t, storages), std::nullopt});
    } else if (result.isInt()) {
      out.push_back({nullptr, static_cast<double>(result.toInt())});
    } else if (result.isDouble()) {
      out.push_back({nullptr, result.toDouble()});
    } else if (result.isBool()) {
      out.push_back({nullptr, result.toBool() ? 1.0 : 0.0});
    } else if (result.isSymInt()) {
      out.push_back({nullptr, static_cast<double>(result.toSymInt().guard_int(__FILE__, __LINE__))});
    } else if (result.isNone()) {
      out.push_back({});
    } else {
      throw Error("result of type " + result.tagKind() + " is not supported");
    }
  } catch (const c10::Error &e) {
    throw nodeError(node, e.what_without_backtrace());
  } catch (const Error &e) {
    throw nodeError(node, e.what());
  }
}

} // namespace tico::aten_eval
