#include "tico/ir/graph.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace tico {

Graph::Graph() : schemas_(&OpSchemaRegistry::empty()) {}
Graph::Graph(const OpSchemaRegistry *schemas) : schemas_(schemas ? schemas : &OpSchemaRegistry::empty()) {}
Graph::~Graph() = default;

// ---- values --------------------------------------------------------------------------------

namespace {

// `base`, or `base_N` with the smallest N not taken that is at least the last N handed out for
// this base. Resuming from the last suffix keeps naming O(1) amortised: a rewrite creating
// thousands of values from one hint no longer probes every earlier name (names freed by
// erased values are not reused, which keeps printed graphs stable across rewrites).
template <typename Taken>
std::string freshName(const std::string &base, std::unordered_map<std::string, std::size_t> &next, Taken taken) {
  if (!taken(base))
    return base;
  std::size_t &i = next[base];
  for (;;) {
    std::string candidate = base + "_" + std::to_string(++i);
    if (!taken(candidate))
      return candidate;
  }
}

} // namespace

std::string Graph::uniqueName(const std::string &hint) const {
  std::string base = hint.empty() ? "v" : hint;
  return freshName(base, next_value_suffix_, [&](const std::string &n) { return by_name_.count(n) != 0; });
}

Value *Graph::newValue(const std::string &name_hint, ValueKind kind, DType dtype, Shape shape) {
  std::unique_ptr<Value> v(new Value());
  v->name_ = uniqueName(name_hint);
  v->kind_ = kind;
  v->dtype_ = dtype;
  v->shape_ = std::move(shape);
  Value *raw = v.get();
  by_name_[raw->name_] = raw;
  values_.push_back(std::move(v));
  return raw;
}

void Graph::killValue(Value *value) {
  by_name_.erase(value->name_);
  value->constant_.reset();
  value->producer_ = nullptr;
  value->users_.clear();
}

Value *Graph::findValue(const std::string &name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Node *Graph::findNode(const std::string &name) const {
  auto it = nodes_by_name_.find(name);
  return it == nodes_by_name_.end() ? nullptr : it->second;
}

std::string Graph::uniqueNodeName(const std::string &hint) const {
  std::string base = hint.empty() ? "node" : hint;
  return freshName(base, next_node_suffix_, [&](const std::string &n) { return nodes_by_name_.count(n) != 0; });
}

Value *Graph::addInput(InputKind kind, const std::string &name, DType dtype, Shape shape,
                       std::string target, std::shared_ptr<const TensorData> data, bool persistent) {
  if (kind == InputKind::ConstantInput)
    throw Error("use addConstantInput for constant inputs");
  if (by_name_.count(name))
    throw Error("graph already has a value named '" + clipped(name) + "'");
  Value *v = newValue(name, ValueKind::Tensor, dtype, std::move(shape));
  v->constant_ = std::move(data);
  GraphInput in;
  in.kind = kind;
  in.value = v;
  in.target = std::move(target);
  in.persistent = persistent;
  inputs_.push_back(std::move(in));
  return v;
}

Value *Graph::addSymInput(const std::string &name, ValueKind kind, std::string expr, int64_t hint) {
  if (by_name_.count(name))
    throw Error("graph already has a value named '" + clipped(name) + "'");
  Value *v = newValue(name, kind, kind == ValueKind::SymFloat ? DType::Float64
                                  : kind == ValueKind::SymBool ? DType::Bool
                                                               : DType::Int64,
                      {});
  v->setSym(std::move(expr), hint);
  GraphInput in;
  in.kind = InputKind::User;
  in.value = v;
  inputs_.push_back(std::move(in));
  return v;
}

void Graph::addConstantInput(std::string name, Argument value) {
  if (!value.referencedValues().empty())
    throw Error("a constant input cannot refer to graph values");
  GraphInput in;
  in.kind = InputKind::ConstantInput;
  in.name = std::move(name);
  in.constant_value = std::move(value);
  inputs_.push_back(std::move(in));
}

std::vector<Value *> Graph::userInputs() const {
  std::vector<Value *> out;
  for (const auto &in : inputs_)
    if (in.kind == InputKind::User && in.value)
      out.push_back(in.value);
  return out;
}

void Graph::addOutput(GraphOutput output) {
  for (Value *v : output.value.referencedValues())
    if (findValue(v->name()) != v)
      throw Error("graph output refers to a value that is not in this graph");
  outputs_.push_back(std::move(output));
}

void Graph::setOutputValue(std::size_t index, Argument value) {
  outputs_.at(index).value = std::move(value);
}

void Graph::setOutputKind(std::size_t index, OutputKind kind) { outputs_.at(index).kind = kind; }

void Graph::eraseOutput(std::size_t index) {
  if (index >= outputs_.size())
    throw Error("eraseOutput: no output " + std::to_string(index));
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(index));
}

std::vector<Value *> Graph::userOutputs() const {
  std::vector<Value *> out;
  for (const auto &o : outputs_)
    if (o.kind == OutputKind::User && o.value.isValue())
      out.push_back(o.value.asValue());
  return out;
}

bool Graph::isGraphOutput(const Value *value) const {
  for (const auto &o : outputs_)
    for (Value *v : o.value.referencedValues())
      if (v == value)
        return true;
  return false;
}

Value *Graph::addConstant(const std::string &name_hint, std::shared_ptr<const TensorData> data) {
  if (!data)
    throw Error("addConstant: no data");
  Shape shape = staticShape(data->sizes);
  Value *v = newValue(name_hint.empty() ? "const" : name_hint, ValueKind::Tensor, data->dtype,
                      std::move(shape));
  v->constant_ = std::move(data);
  constants_.push_back(v);
  return v;
}

std::size_t Graph::removeUnusedConstants() {
  std::size_t removed = 0;
  std::vector<Value *> kept;
  for (Value *c : constants_) {
    if (c->hasUsers() || isGraphOutput(c)) {
      kept.push_back(c);
      continue;
    }
    killValue(c);
    ++removed;
  }
  constants_ = std::move(kept);
  return removed;
}

// ---- nodes ---------------------------------------------------------------------------------

namespace {

std::string validArgumentList(const OpSchema &schema) {
  std::string out;
  for (const auto &a : schema.arguments)
    out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

// Turns a given argument into the canonical form for its schema slot.
Argument normalize(const SchemaArgument &sa, Argument value) {
  using K = Argument::Kind;
  if (sa.type == ArgType::IntList && value.kind() == K::Int)
    return Argument::ints(std::vector<int64_t>(std::max(sa.fixed_length, 1), value.asInt()));
  if (sa.type == ArgType::IntList && value.kind() == K::IntList && sa.fixed_length > 1 &&
      value.asInts().size() == 1)
    return Argument::ints(std::vector<int64_t>(sa.fixed_length, value.asInts()[0]));
  if (sa.type == ArgType::Float && value.kind() == K::Int)
    return Argument::real(static_cast<double>(value.asInt()));
  if (sa.type == ArgType::FloatList && value.kind() == K::IntList) {
    std::vector<double> d(value.asInts().begin(), value.asInts().end());
    return Argument::reals(std::move(d));
  }
  if (sa.type == ArgType::OptionalTensorList && value.kind() == K::ValueList)
    return Argument::optionalValues(value.asValues());
  return value;
}

} // namespace

Node *Graph::createNode(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
                        Node *before, const std::string &name_hint) {
  const OpSchema *schema = schemas_ ? schemas_->find(op) : nullptr;
  std::vector<NamedArg> final_args;
  if (schema != nullptr) {
    const auto &params = schema->arguments;
    std::vector<std::optional<Argument>> slots(params.size());
    std::size_t next_positional = 0;
    for (auto &given : args) {
      std::size_t index;
      if (given.name.empty()) {
        while (next_positional < params.size() && slots[next_positional])
          ++next_positional;
        if (next_positional >= params.size() || params[next_positional].kwarg_only)
          throw Error(op.str() + ": too many positional arguments (schema: " + schema->str() + ")");
        index = next_positional++;
      } else {
        int found = schema->argumentIndex(given.name);
        if (found < 0)
          throw Error(op.str() + " has no argument '" + given.name + "' (arguments: " +
                      validArgumentList(*schema) + ")");
        index = static_cast<std::size_t>(found);
        if (slots[index])
          throw Error(op.str() + ": argument '" + given.name + "' given twice");
      }
      Argument value = normalize(params[index], std::move(given.value));
      if (!params[index].accepts(value))
        throw Error(op.str() + ": argument '" + params[index].name + "' (" + params[index].type_text +
                    ") cannot be " + Argument::kindName(value.kind()));
      slots[index] = std::move(value);
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!slots[i]) {
        if (!params[i].hasDefault())
          throw Error(op.str() + ": missing required argument '" + params[i].name + "'");
        slots[i] = params[i].defaultValue();
      }
      final_args.push_back(NamedArg{params[i].name, std::move(*slots[i])});
    }
  } else {
    final_args = std::move(args);
    for (std::size_t i = 0; i < final_args.size(); ++i)
      if (final_args[i].name.empty())
        final_args[i].name = "arg" + std::to_string(i);
  }
  for (const auto &a : final_args)
    for (Value *v : a.value.referencedValues())
      if (v == nullptr || findValue(v->name()) != v)
        throw Error(op.str() + ": argument '" + a.name + "' refers to a value that is not in this graph");

  std::unique_ptr<Node> node(new Node());
  Node *raw = node.get();
  raw->graph_ = this;
  raw->op_ = op;
  raw->op_id_ = OpId::of(op);
  raw->schema_ = schema;
  raw->args_ = std::move(final_args);
  std::string base = name_hint.empty() ? op.name : name_hint;
  if (!outputs.empty() && !outputs[0].name.empty() && name_hint.empty())
    base = outputs[0].name;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto &spec = outputs[i];
    std::string vname = !spec.name.empty() ? spec.name : (i == 0 ? base : base + "_" + std::to_string(i));
    Value *v = newValue(vname, spec.kind, spec.dtype, std::move(spec.shape));
    v->quant_ = std::move(spec.quant);
    v->producer_ = raw;
    v->producer_output_ = static_cast<int>(i);
    raw->outputs_.push_back(v);
  }
  // Node names follow the first output's name unless a name was asked for (the .pt2 names
  // multi-output nodes apart from their outputs).
  raw->name_ = uniqueNodeName(name_hint.empty() && !raw->outputs_.empty() ? raw->outputs_[0]->name() : base);
  nodes_by_name_[raw->name_] = raw;
  raw->attachArgs();
  auto pos = before ? before->self_ : nodes_.end();
  raw->self_ = nodes_.insert(pos, std::move(node));
  return raw;
}

Node *Graph::createNode(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape,
                        Node *before, const std::string &name_hint) {
  std::vector<NamedArg> named;
  named.reserve(args.size());
  for (auto &a : args)
    named.push_back(NamedArg{"", std::move(a)});
  TensorTypeSpec out;
  out.dtype = dtype;
  out.shape = std::move(shape);
  return createNode(op, std::move(named), {std::move(out)}, before, name_hint);
}

void Graph::eraseNode(Node *node) {
  for (Value *out : node->outputs_) {
    if (out->hasUsers())
      throw Error("cannot erase node '" + node->name() + "': its output '" + out->name() + "' is used by '" +
                  out->users().front()->name() + "'");
    if (isGraphOutput(out))
      throw Error("cannot erase node '" + node->name() + "': its output '" + out->name() +
                  "' is a graph output");
  }
  node->detachArgs();
  for (Value *out : node->outputs_)
    killValue(out);
  nodes_by_name_.erase(node->name_);
  nodes_.erase(node->self_);
}

void Graph::replaceAllUsesWith(Value *from, Value *to) {
  if (from == to)
    return;
  std::vector<Node *> users = from->users();
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  for (Node *n : users)
    n->replaceInput(from, to);
  for (auto &o : outputs_) {
    auto &data = o.value;
    if (data.isValue() && data.asValue() == from)
      data = Argument::value(to);
  }
}

namespace {
bool hasSideEffects(const Node &node) {
  if (node.numOutputs() == 0)
    return true;
  if (const OpSchema *s = node.schema())
    for (const auto &a : s->arguments)
      if (a.is_mutable)
        return true;
  return false;
}
} // namespace

std::size_t Graph::removeDeadNodes() {
  std::size_t removed = 0;
  for (auto it = nodes_.end(); it != nodes_.begin();) {
    --it;
    Node *n = it->get();
    if (hasSideEffects(*n))
      continue;
    bool dead = true;
    for (Value *out : n->outputs())
      dead &= !out->hasUsers() && !isGraphOutput(out);
    if (!dead)
      continue;
    auto prev = it;
    bool at_begin = it == nodes_.begin();
    if (!at_begin)
      --prev;
    eraseNode(n);
    ++removed;
    if (at_begin)
      break;
    it = std::next(prev);
  }
  return removed;
}

std::map<OpKey, std::size_t> Graph::opCounts() const {
  std::map<OpKey, std::size_t> counts;
  for (const auto &n : nodes_)
    ++counts[n->op()];
  return counts;
}

// ---- verification --------------------------------------------------------------------------

void Graph::verify() const {
  std::vector<std::string> problems;
  std::unordered_set<const Value *> defined;
  std::set<std::string> names;
  auto define = [&](const Value *v, const std::string &what) {
    if (v == nullptr) {
      problems.push_back(what + " has no value");
      return;
    }
    if (const QuantParams *q = v->quant()) {
      if (!v->isTensor())
        problems.push_back("value '" + v->name() + "' is a symbolic scalar with quantization parameters");
      else if (auto why = describeQuantParamsProblems(*q, v->dtype(), v->shape(), v->name()); !why.empty())
        problems.push_back(why);
    }
    if (findValue(v->name()) != v)
      problems.push_back(what + " '" + v->name() + "' is not registered in the graph (erased?)");
    if (!names.insert(v->name()).second)
      problems.push_back("value name '" + v->name() + "' is defined twice");
    defined.insert(v);
  };
  for (const auto &in : inputs_) {
    if (in.kind == InputKind::ConstantInput)
      continue;
    define(in.value, "input");
    bool needs_data = in.kind == InputKind::Parameter || in.kind == InputKind::Buffer ||
                      in.kind == InputKind::Constant;
    if (needs_data && in.value && !in.value->isConstant())
      problems.push_back("input '" + in.value->name() + "' is a parameter/buffer/constant without data");
  }
  for (const Value *c : constants_) {
    define(c, "constant");
    if (!c->isConstant())
      problems.push_back("constant '" + c->name() + "' has no data");
  }
  for (const auto &n : nodes_) {
    std::map<const Value *, std::size_t> uses;
    for (const auto &a : n->args()) {
      for (Value *v : a.value.referencedValues()) {
        ++uses[v];
        if (!defined.count(v))
          problems.push_back("node '" + n->name() + "' (" + n->op().str() + ") uses '" + v->name() +
                             "' before it is defined");
      }
    }
    for (auto &[v, count] : uses) {
      auto c = static_cast<std::size_t>(std::count(v->users().begin(), v->users().end(), n.get()));
      if (c != count)
        problems.push_back("user list of '" + v->name() + "' disagrees with node '" + n->name() + "'");
    }
    if (const OpSchema *s = n->schema()) {
      if (n->numArgs() != s->arguments.size())
        problems.push_back("node '" + n->name() + "' has " + std::to_string(n->numArgs()) +
                           " arguments; its schema has " + std::to_string(s->arguments.size()));
      else
        for (std::size_t i = 0; i < s->arguments.size(); ++i)
          if (!s->arguments[i].accepts(n->arg(i)))
            problems.push_back("node '" + n->name() + "': argument '" + s->arguments[i].name + "' (" +
                               s->arguments[i].type_text + ") is " + Argument::kindName(n->arg(i).kind()));
    }
    for (std::size_t i = 0; i < n->numOutputs(); ++i) {
      const Value *out = n->output(i);
      if (out->producer() != n.get() || out->producerOutput() != static_cast<int>(i))
        problems.push_back("output " + std::to_string(i) + " of '" + n->name() + "' does not point back to it");
      define(out, "node output");
    }
  }
  for (const auto &o : outputs_)
    for (Value *v : o.value.referencedValues())
      if (!defined.count(v))
        problems.push_back("graph output '" + v->name() + "' is not defined");
  for (const auto &v : values_) {
    if (findValue(v->name()) != v.get())
      continue; // erased
    for (Node *u : v->users())
      if (u->graph() != this)
        problems.push_back("value '" + v->name() + "' has a user from another graph");
  }
  if (problems.empty())
    return;
  std::string message = "graph verification failed:";
  for (const auto &p : problems)
    message += "\n  " + p;
  throw Error(message);
}

// ---- clone ---------------------------------------------------------------------------------

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  g->name = name;
  g->schemas_ = schemas_;
  g->symbols_ = symbols_;
  std::unordered_map<const Value *, Value *> map;
  auto remap = [&](const Argument &a) -> Argument {
    using K = Argument::Kind;
    switch (a.kind()) {
    case K::Value:
      return Argument::value(map.at(a.asValue()));
    case K::ValueList:
    case K::OptionalValueList: {
      std::vector<Value *> vs;
      for (Value *v : a.asValues())
        vs.push_back(v ? map.at(v) : nullptr);
      return a.kind() == K::ValueList ? Argument::values(vs) : Argument::optionalValues(vs);
    }
    case K::SymIntList: {
      std::vector<SymIntElem> es = a.asSymInts();
      for (auto &e : es)
        if (e.sym)
          e.sym = map.at(e.sym);
      return Argument::symInts(es);
    }
    default:
      return a;
    }
  };
  for (const auto &in : inputs_) {
    if (in.kind == InputKind::ConstantInput) {
      g->addConstantInput(in.name, in.constant_value);
      continue;
    }
    Value *v;
    if (in.value->kind() != ValueKind::Tensor) {
      v = g->addSymInput(in.value->name(), in.value->kind(), in.value->symExpr(), in.value->symHint());
      g->inputs_.back().kind = in.kind;
    } else {
      v = g->addInput(in.kind, in.value->name(), in.value->dtype(), in.value->shape(), in.target,
                      in.value->constant(), in.persistent);
    }
    g->inputs_.back().persistent = in.persistent;
    g->inputs_.back().name = in.name;
    v->setQuant(in.value->quantShared());
    map[in.value] = v;
  }
  for (const Value *c : constants_) {
    Value *v = g->addConstant(c->name(), c->constant());
    v->setType(c->dtype(), c->shape());
    v->setQuant(c->quantShared());
    map[c] = v;
  }
  for (const auto &n : nodes_) {
    std::vector<NamedArg> args;
    for (const auto &a : n->args())
      args.push_back(NamedArg{a.name, remap(a.value)});
    std::vector<TensorTypeSpec> outs;
    for (const Value *o : n->outputs())
      outs.push_back(TensorTypeSpec{o->kind(), o->dtype(), o->shape(), o->name(), o->quantShared()});
    Node *copy = g->createNode(n->op(), std::move(args), std::move(outs), nullptr, n->name());
    copy->meta() = n->meta();
    for (std::size_t i = 0; i < n->numOutputs(); ++i) {
      copy->output(i)->setSym(n->output(i)->symExpr(), n->output(i)->symHint());
      copy->output(i)->setConstant(n->output(i)->constant());
      map[n->output(i)] = copy->output(i);
    }
  }
  for (const auto &o : outputs_) {
    GraphOutput copy = o;
    copy.value = remap(o.value);
    g->outputs_.push_back(std::move(copy));
  }
  return g;
}

} // namespace tico
