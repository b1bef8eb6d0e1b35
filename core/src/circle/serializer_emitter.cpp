#include "circle/serializer_emitter.h"

#include "tico/circle/quantization.h"
#include "tico/circle/serializer.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <limits>
#include <optional>
#include <numeric>

namespace tico::circle_serializer {
namespace {

int32_t dimToInt32(int64_t dim, const std::string &tensor_name) {
  if (dim < 0 || dim > std::numeric_limits<int32_t>::max())
    throw Error("tensor '" + tensor_name + "' has dimension " + std::to_string(dim) +
                ", which a Circle shape (int32) cannot hold");
  return static_cast<int32_t>(dim);
}

// Circle's dynamic-shape convention: a symbolic dim is 1 in `shape` and -1 in
// `shape_signature`; the signature stays empty (absent in the file) when every dim is static,
// because the ONE runtime prefers a present signature over the shape. A symbolic dim whose
// symbols all have single-value ranges is that value: static.
void fillShape(CircleTensor &tensor, const Shape &shape, const FixedSymbols &fixed) {
  std::vector<std::optional<int64_t>> dims;
  bool dynamic = false;
  for (const Dim &d : shape) {
    std::optional<int64_t> v = d.isStatic() ? std::optional<int64_t>(d.value()) : fixed.valueOf(d.expr());
    dynamic = dynamic || !v;
    dims.push_back(v);
    tensor.shape.push_back(v ? dimToInt32(*v, tensor.name) : 1);
  }
  if (!dynamic)
    return;
  for (const auto &v : dims)
    tensor.shape_signature.push_back(v ? dimToInt32(*v, tensor.name) : -1);
}

circle::TensorType circleTypeOf(DType dtype, const std::string &what) {
  try {
    return toCircleType(dtype);
  } catch (const Error &e) {
    throw Error(what + ": " + e.what());
  }
}

bool isSymbolicKind(const Value *value) { return value->kind() != ValueKind::Tensor; }

} // namespace

FixedSymbols::FixedSymbols(const Graph &graph) {
  for (const auto &[name, range] : graph.symbols())
    if (range.max && *range.max == range.min)
      values_[name] = range.min;
}

std::optional<int64_t> FixedSymbols::valueOf(const std::string &expr) const {
  if (values_.empty())
    return std::nullopt;
  auto it = parsed_.find(expr);
  if (it == parsed_.end()) {
    try {
      it = parsed_.emplace(expr, SymExpr::parse(expr)).first;
    } catch (const Error &) {
      return std::nullopt; // not an expression we can evaluate: stays symbolic
    }
  }
  return it->second.evaluate(values_);
}

namespace {

std::string nodeLabel(const Node &node) {
  std::string label = "node '" + node.name() + "' (" + node.op().str() + ")";
  std::string hint = node.sourceHint();
  if (!hint.empty())
    label += " from " + hint;
  return label;
}

} // namespace

std::unordered_set<const Node *> deferredNodes(const Graph &graph) {
  std::unordered_set<const Node *> deferred;
  // Users follow their producers, so walking backwards sees every user first.
  for (auto it = graph.nodes().rbegin(); it != graph.nodes().rend(); ++it) {
    const Node &node = **it;
    bool all_symbolic = true;
    bool feeds_deferred_only = node.numOutputs() > 0;
    for (const Value *out : node.outputs()) {
      all_symbolic = all_symbolic && isSymbolicKind(out);
      // A tensor nobody reads is lowered as before; only results consumed exclusively by
      // deferred nodes wait for them.
      if (!out->hasUsers() || graph.isGraphOutput(out))
        feeds_deferred_only = false;
      for (const Node *user : out->users())
        feeds_deferred_only = feeds_deferred_only && deferred.count(user);
    }
    if (node.numOutputs() == 0 || all_symbolic || feeds_deferred_only)
      deferred.insert(&node);
  }
  return deferred;
}

GraphEmitter::GraphEmitter(const Graph &graph, const Registry &registry,
                           const std::unordered_set<const Node *> &deferred)
    : graph_(graph), registry_(registry), deferred_(deferred), fixed_(graph) {
  // The Circle subgraph is called "main", after the exported program's entry point.
  model_.subgraphs.emplace_back();
  model_.subgraphs.front().name = "main";
  for (const GraphInput &in : graph.inputs())
    if (in.value)
      names_.insert(in.value->name());
  for (const Value *c : graph.constants())
    names_.insert(c->name());
  for (const auto &node : graph.nodes())
    for (const Value *out : node->outputs())
      names_.insert(out->name());
}

std::string GraphEmitter::uniqueName(const std::string &hint) {
  std::string base = hint.empty() ? "tensor" : hint;
  if (names_.insert(base).second)
    return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (names_.insert(candidate).second)
      return candidate;
  }
}

int32_t GraphEmitter::addTensor(CircleTensor tensor) {
  auto &tensors = subgraph().tensors;
  if (tensors.size() >= static_cast<std::size_t>(std::numeric_limits<int32_t>::max()))
    throw Error("the model has more tensors than Circle can index");
  tensors.push_back(std::move(tensor));
  return static_cast<int32_t>(tensors.size() - 1);
}

int32_t GraphEmitter::tensor(const Value *value) {
  if (!value)
    throw Error("a lowering asked for the tensor of a missing value");
  if (auto it = value_tensors_.find(value); it != value_tensors_.end())
    return it->second;
  // A symbolic scalar (or a tensor behind one) computed by a node not lowered yet: lower its
  // producer now, so its operators precede the operator that consumes it.
  // (A node asking for its own output is being lowered already: its tensor is created below.)
  if ((isSymbolicKind(value) || deferred_.count(value->producer())) && value->producer() &&
      !lowered_.count(value->producer()) && !lowering_.count(value->producer())) {
    lowerNode(*value->producer());
    if (auto it = value_tensors_.find(value); it != value_tensors_.end())
      return it->second;
    throw Error("the lowering of " + nodeLabel(*value->producer()) + " produced no tensor for '" +
                value->name() + "'");
  }
  int32_t index = tensorForValue(value);
  value_tensors_.emplace(value, index);
  return index;
}

int32_t GraphEmitter::tensorForValue(const Value *value) {
  if (value->isConstant()) {
    // The tensor takes the value's own name (reserved for it) unless it shares an earlier tensor.
    return constantTensor(value->constant(), value->name(), true, value);
  }
  CircleTensor t;
  t.name = value->name();
  if (isSymbolicKind(value)) {
    // Symbolic integers live at runtime as int32 vectors of one element, so shape
    // arithmetic and CONCATENATION of shape pieces need no extra reshapes.
    if (value->kind() != ValueKind::SymInt)
      throw Error("symbolic value '" + value->name() + "' is not an integer; Circle shape arithmetic "
                  "only covers SymInt values");
    t.type = circle::TensorType::INT32;
    t.shape = {1};
  } else {
    t.type = circleTypeOf(value->dtype(), "value '" + value->name() + "'");
    fillShape(t, value->shape(), fixed_);
    t.quantization = quantizationOf(value, t.name);
    // An MX value (f32 in the IR) is an MXINT8 / MXFP4 tensor in Circle.
    if (value->isMxQuantized())
      t.type = circleMxType(*value->quant()->mx);
  }
  return addTensor(std::move(t));
}

std::shared_ptr<const circle::QuantizationParametersT> GraphEmitter::quantizationOf(const Value *value,
                                                                                   const std::string &tensor_name) const {
  const QuantParams *q = value ? value->quant() : nullptr;
  if (q == nullptr)
    return nullptr;
  // The graph verifier checks the same rules; a pipeline run without it must not write them.
  if (auto why = describeQuantParamsProblems(*q, value->dtype(), value->shape(), value->name()); !why.empty())
    throw Error(why);
  return toCircleQuantization(*q, tensor_name);
}

void GraphEmitter::alias(const Value *value, int32_t tensor) {
  checkTensorIndex(tensor, false, "alias");
  if (value_tensors_.count(value))
    throw Error("value '" + value->name() + "' already has a Circle tensor; it cannot alias another");
  // A value and the tensor standing for it must mean the same numbers.
  const CircleTensor &target = subgraph().tensors[static_cast<std::size_t>(tensor)];
  if (!sameCircleQuantization(quantizationOf(value, target.name).get(), target.quantization.get()))
    throw Error("value '" + value->name() + "' cannot alias tensor '" + target.name +
                "': their quantization parameters differ");
  value_tensors_.emplace(value, tensor);
}

int32_t GraphEmitter::newTensor(DType dtype, const Shape &shape, const std::string &name_hint) {
  CircleTensor t;
  t.name = uniqueName(name_hint);
  t.type = circleTypeOf(dtype, "tensor '" + t.name + "'");
  fillShape(t, shape, fixed_);
  return addTensor(std::move(t));
}

int32_t GraphEmitter::constant(std::shared_ptr<const TensorData> data, const std::string &name_hint) {
  return constantTensor(std::move(data), name_hint, false);
}

int32_t GraphEmitter::constantTensor(std::shared_ptr<const TensorData> data, const std::string &name,
                                     bool reserved_name, const Value *owner) {
  const std::string &name_hint = name;
  if (!data)
    throw Error("constant '" + name_hint + "' has no data");
  auto &candidates = views_[data->storage.get()];
  for (const auto &view : candidates)
    if (view.data->sameView(*data)) {
      // Tied weights share one tensor, so they must share its quantization too.
      const CircleTensor &shared = subgraph().tensors[static_cast<std::size_t>(view.tensor)];
      if (!sameCircleQuantization(quantizationOf(owner, shared.name).get(), shared.quantization.get()))
        throw Error("constants '" + view.first_user + "' and '" + name_hint +
                    "' share one weight but have different quantization parameters");
      return view.tensor;
    }
  try {
    data->checkBounds();
  } catch (const Error &e) {
    throw Error("constant '" + name_hint + "': " + e.what());
  }
  if (owner != nullptr && owner->isMxQuantized())
    throw Error("constant '" + name_hint + "' is " + std::string(mxFormatName(*owner->quant()->mx)) +
                "-quantized; Circle MX constants need packed blocks and shared exponents, which the serializer "
                "does not write (quantize it at run time: keep its quantize_mx node)");
  CircleTensor t;
  t.name = reserved_name ? name : uniqueName(name_hint);
  t.type = circleTypeOf(data->dtype, "constant '" + t.name + "'");
  for (int64_t size : data->sizes)
    t.shape.push_back(dimToInt32(size, t.name));
  t.quantization = quantizationOf(owner, t.name);
  if (bitWidth(data->dtype) == 4) {
    // Circle stores 4-bit elements two per byte; the IR keeps one per byte.
    t.buffer = model_.addBuffer(std::make_shared<const TensorData>(
        TensorData::fromBytes(DType::UInt8, {static_cast<int64_t>(packedInt4Bytes(static_cast<std::size_t>(data->numel())))},
                              packInt4(*data, t.name))));
  } else {
    t.buffer = model_.addBuffer(data);
  }
  std::string first_user = t.name;
  int32_t index = addTensor(std::move(t));
  candidates.push_back(ConstantView{std::move(data), index, std::move(first_user)});
  return index;
}

void GraphEmitter::checkTensorIndex(int32_t index, bool allow_absent, const char *what) const {
  if (allow_absent && index == -1)
    return;
  if (index < 0 || static_cast<std::size_t>(index) >= model_.subgraphs.front().tensors.size())
    throw Error(std::string(what) + " refers to tensor " + std::to_string(index) + ", which does not exist");
}

void GraphEmitter::addOperator(circle::BuiltinOperator op, std::vector<int32_t> inputs,
                               std::vector<int32_t> outputs, circle::BuiltinOptionsUnion options) {
  const char *name = circle::EnumNameBuiltinOperator(op);
  std::string what = std::string("operator ") + (name && *name ? name : "?");
  for (int32_t in : inputs)
    checkTensorIndex(in, true, (what + " input").c_str());
  for (int32_t out : outputs)
    checkTensorIndex(out, false, (what + " output").c_str());
  CircleOperator o;
  o.opcode_index = model_.operatorCodeIndex(op);
  o.inputs = std::move(inputs);
  o.outputs = std::move(outputs);
  o.builtin_options = std::move(options);
  subgraph().operators.push_back(std::move(o));
}

void GraphEmitter::lowerNode(const Node &node) {
  if (lowered_.count(&node))
    return;
  if (!lowering_.insert(&node).second)
    throw Error(nodeLabel(node) + " depends on itself while being lowered");
  const OpLowering *chosen = nullptr;
  std::string reason = "no lowering registered";
  auto candidates = registry_.findLowerings(node.op());
  for (const auto *entry : candidates) {
    std::string why = entry->spec.lowering->unsupportedReason(node);
    if (why.empty()) {
      chosen = entry->spec.lowering.get();
      break;
    }
    if (entry == candidates.front())
      reason = why;
  }
  if (!chosen) {
    UnsupportedOp missing;
    missing.op = node.op();
    missing.count = 1;
    missing.node_names = {node.name()};
    missing.reason = reason;
    throw UnsupportedOpsError({missing});
  }
  try {
    chosen->lower(node, *this);
  } catch (const UnsupportedOpsError &) {
    throw;
  } catch (const std::exception &e) {
    throw Error("cannot lower " + nodeLabel(node) + ": " + e.what());
  }
  lowering_.erase(&node);
  lowered_.insert(&node);
  for (const Value *out : node.outputs()) {
    bool needed = out->hasUsers() || graph_.isGraphOutput(out);
    if (needed && !value_tensors_.count(out))
      throw Error("the lowering of " + nodeLabel(node) + " produced no tensor for its output '" +
                  out->name() + "'");
  }
}

int32_t GraphEmitter::numberConstant(const Argument &value, const std::string &name_hint) {
  std::shared_ptr<TensorData> data;
  switch (value.kind()) {
  case Argument::Kind::Int:
    data = std::make_shared<TensorData>(TensorData::fromVector<int64_t>(DType::Int64, {}, {value.asInt()}));
    break;
  case Argument::Kind::Float:
    data = std::make_shared<TensorData>(
        TensorData::fromVector<float>(DType::Float32, {}, {static_cast<float>(value.asDouble())}));
    break;
  case Argument::Kind::Bool:
    data = std::make_shared<TensorData>(
        TensorData::fromVector<uint8_t>(DType::Bool, {}, {static_cast<uint8_t>(value.asBool() ? 1 : 0)}));
    break;
  case Argument::Kind::IntList: {
    const auto &v = value.asInts();
    data = std::make_shared<TensorData>(
        TensorData::fromVector<int64_t>(DType::Int64, {static_cast<int64_t>(v.size())}, v));
    break;
  }
  case Argument::Kind::FloatList: {
    std::vector<float> v;
    for (double d : value.asDoubles())
      v.push_back(static_cast<float>(d));
    data = std::make_shared<TensorData>(
        TensorData::fromVector<float>(DType::Float32, {static_cast<int64_t>(v.size())}, v));
    break;
  }
  case Argument::Kind::BoolList: {
    std::vector<uint8_t> v;
    for (bool b : value.asBools())
      v.push_back(b ? 1 : 0);
    data = std::make_shared<TensorData>(
        TensorData::fromVector<uint8_t>(DType::Bool, {static_cast<int64_t>(v.size())}, v));
    break;
  }
  default:
    throw Error("'" + name_hint + "' is a constant (" + std::string(Argument::kindName(value.kind())) + ")" +
                ", which cannot become a Circle tensor");
  }
  return constant(std::move(data), name_hint);
}

int32_t GraphEmitter::constantInput(const std::string &name, const Argument &value) {
  try {
    return numberConstant(value, name);
  } catch (const Error &e) {
    throw Error(std::string(e.what()) + " (set remove_constant_input to drop constant inputs)");
  }
}

bool GraphEmitter::isConstantTensor(int32_t tensor) const {
  return model_.subgraphs.front().tensors.at(static_cast<std::size_t>(tensor)).buffer != 0;
}

int32_t GraphEmitter::identityCopy(int32_t source, const std::string &name_hint) {
  CircleTensor copy = subgraph().tensors.at(static_cast<std::size_t>(source));
  copy.name = uniqueName(name_hint);
  copy.buffer = 0;
  std::size_t rank = copy.shape.size();
  int32_t out = addTensor(std::move(copy));
  if (rank == 0) {
    // A rank-0 RESHAPE target is an empty int32 shape vector.
    circle::BuiltinOptionsUnion options;
    options.Set(circle::ReshapeOptionsT{});
    addOperator(circle::BuiltinOperator::RESHAPE, {source, constInt32({}, name_hint + "_shape")}, {out},
                std::move(options));
    return out;
  }
  // An identity TRANSPOSE works for every dtype and for dynamic shapes.
  std::vector<int32_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  circle::BuiltinOptionsUnion options;
  options.Set(circle::TransposeOptionsT{});
  addOperator(circle::BuiltinOperator::TRANSPOSE, {source, constInt32(perm, name_hint + "_perm")}, {out},
              std::move(options));
  return out;
}

} // namespace tico::circle_serializer
