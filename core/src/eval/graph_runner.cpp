// Whole-graph evaluation one node at a time (graph_runner.h).
#include "eval/graph_runner.h"

#include "tico/support/error.h"

#include <cstring>

namespace tico::eval {
namespace {

std::string typeString(DType dtype, const std::vector<int64_t> &sizes) {
  return std::string(dtypeName(dtype)) + shapeString(staticShape(sizes));
}

// The single element of a one-element tensor, for scalar (SymInt/SymFloat/SymBool) inputs.
double scalarOf(const TensorData &t, const std::string &what) {
  if (t.numel() != 1)
    throw Error(what + ": a scalar input needs a one-element tensor, got " + typeString(t.dtype, t.sizes));
  t.checkBounds();
  const std::byte *p = t.data();
  auto read = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (t.dtype) {
  case DType::Bool:
    return static_cast<uint8_t>(*p) != 0 ? 1.0 : 0.0;
  case DType::UInt8:
    return read(uint8_t{});
  case DType::Int8:
    return read(int8_t{});
  case DType::Int16:
    return read(int16_t{});
  case DType::Int32:
    return read(int32_t{});
  case DType::Int64:
    return read(int64_t{});
  case DType::Float32:
    return read(float{});
  case DType::Float64:
    return read(double{});
  default:
    throw Error(what + ": a scalar input cannot be read from a " + std::string(dtypeName(t.dtype)) + " tensor");
  }
}

} // namespace

std::string describeNode(const Node &node) { return "node '" + node.name() + "' (" + node.op().str() + ")"; }

GraphLiveness::GraphLiveness(const Graph &graph, bool keep_outputs) {
  for (const auto &node : graph.nodes())
    for (const NamedArg &arg : node->args())
      for (const Value *v : arg.value.referencedValues())
        last_use[v] = node.get();
  if (keep_outputs)
    for (const Value *v : graph.userOutputs())
      keep.insert(v);
}

GraphRunner::GraphRunner(const Graph &graph, const Evaluator &evaluator, std::shared_ptr<const GraphLiveness> liveness)
    : graph_(graph), evaluator_(evaluator), liveness_(std::move(liveness)) {}

void GraphRunner::bind(const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  bindUserInputs(inputs);
  bindConstants();
}

const SymExpr &GraphRunner::expr(const std::string &text) {
  auto it = exprs_.find(text);
  if (it == exprs_.end())
    it = exprs_.emplace(text, SymExpr::parse(text)).first;
  return it->second;
}

void GraphRunner::matchDim(const std::string &text, int64_t actual, const std::string &what) {
  const SymExpr &e = expr(text);
  if (e.isSymbol() && !bindings_.count(e.str())) {
    bindings_[e.str()] = actual;
    bound_by_[e.str()] = what;
    return;
  }
  auto expected = e.evaluate(bindings_);
  if (!expected)
    return;
  if (*expected != actual) {
    std::string why =
        what + " is " + std::to_string(actual) + " but the graph says " + text + " = " + std::to_string(*expected);
    for (const std::string &s : e.symbols())
      if (bound_by_.count(s))
        why += " (" + s + " = " + std::to_string(bindings_.at(s)) + " from " + bound_by_.at(s) + ")";
    throw Error(why);
  }
}

void GraphRunner::checkTensor(const Value *v, const TensorData &t, const std::string &what) {
  if (t.dtype != v->dtype())
    throw Error(what + ": expected " + std::string(dtypeName(v->dtype())) + ", got " + std::string(dtypeName(t.dtype)));
  if (t.sizes.size() != v->shape().size())
    throw Error(what + ": expected rank " + std::to_string(v->shape().size()) + " " + shapeString(v->shape()) +
                ", got " + typeString(t.dtype, t.sizes));
  for (std::size_t d = 0; d < t.sizes.size(); ++d) {
    const Dim &dim = v->shape()[d];
    const std::string dim_what = what + " dimension " + std::to_string(d);
    if (dim.isStatic()) {
      if (dim.value() != t.sizes[d])
        throw Error(dim_what + " is " + std::to_string(t.sizes[d]) + ", expected " + std::to_string(dim.value()) +
                    " (declared " + shapeString(v->shape()) + ", got " + typeString(t.dtype, t.sizes) + ")");
    } else {
      matchDim(dim.expr(), t.sizes[d], dim_what);
    }
  }
}

void GraphRunner::bindUserInputs(const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  const std::vector<Value *> user = graph_.userInputs();
  if (inputs.size() != user.size()) {
    std::string names;
    for (const Value *v : user)
      names += (names.empty() ? "" : ", ") + v->name();
    throw Error("graph '" + graph_.name + "' takes " + std::to_string(user.size()) + " user inputs (" + names +
                "), got " + std::to_string(inputs.size()));
  }
  // Two rounds: bare symbols ("s0") bind from whichever input shows them first; then every
  // dimension written as an expression ("2*s0") is checked against the bindings.
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < user.size(); ++i) {
      const Value *v = user[i];
      const std::string what = "input " + std::to_string(i) + " ('" + v->name() + "')";
      if (!inputs[i])
        throw Error(what + " is missing");
      if (v->isTensor()) {
        if (round == 0) {
          try {
            inputs[i]->checkBounds();
          } catch (const Error &e) {
            throw Error(what + ": " + e.what());
          }
        }
        checkTensor(v, *inputs[i], what);
        env_[v] = EvalValue{inputs[i], std::nullopt};
      } else if (round == 0) {
        double x = scalarOf(*inputs[i], what);
        env_[v] = EvalValue{nullptr, x};
        if (v->kind() == ValueKind::SymInt && !v->symExpr().empty())
          matchDim(v->symExpr(), static_cast<int64_t>(x), what);
      }
    }
  }
  for (const auto &[symbol, value] : bindings_) {
    auto range = graph_.symbols().find(symbol);
    if (range == graph_.symbols().end())
      continue;
    if (value < range->second.min || (range->second.max && value > *range->second.max))
      throw Error("symbol " + symbol + " = " + std::to_string(value) + " (from " + bound_by_[symbol] +
                  ") is outside the range the graph was exported for: [" + std::to_string(range->second.min) + ", " +
                  (range->second.max ? std::to_string(*range->second.max) : std::string("inf")) + "]");
  }
}

void GraphRunner::bindConstants() {
  for (const GraphInput &in : graph_.inputs()) {
    if (!in.value || env_.count(in.value))
      continue;
    if (in.value->isConstant()) {
      env_[in.value] = EvalValue{in.value->constant(), std::nullopt};
    } else if (!in.value->isTensor() && !in.value->symExpr().empty()) {
      // A symbolic input outside the user signature: its value follows from the bindings.
      if (auto x = expr(in.value->symExpr()).evaluate(bindings_))
        env_[in.value] = EvalValue{nullptr, static_cast<double>(*x)};
    }
  }
  for (const Value *c : graph_.constants())
    env_[c] = EvalValue{c->constant(), std::nullopt};
}

void GraphRunner::checkResult(const Node &node, const Value *out, const EvalValue &result) {
  const std::string what = describeNode(node) + " output '" + out->name() + "'";
  if (!out->isTensor()) {
    if (!result.scalar)
      throw Error(what + ": the evaluator returned no scalar for a symbolic value");
    if (out->kind() == ValueKind::SymInt && !out->symExpr().empty())
      matchDim(out->symExpr(), static_cast<int64_t>(*result.scalar), what);
    return;
  }
  if (!result.tensor)
    throw Error(what + ": the evaluator returned no tensor");
  const TensorData &t = *result.tensor;
  if (t.dtype != out->dtype() || t.sizes.size() != out->shape().size())
    throw Error(what + " is " + typeString(t.dtype, t.sizes) + " but the graph records " +
                std::string(dtypeName(out->dtype())) + shapeString(out->shape()));
  checkTensor(out, t, what);
}

void GraphRunner::runNode(const Node &node) {
  if (!evaluator_.canEvaluate(node)) {
    // The evaluator has value semantics: a write needs the functionalize pass first.
    if (node.schema() != nullptr && !node.schema()->mutatedArguments().empty())
      throw Error(describeNode(node) + ": the evaluator cannot run an op that writes its arguments in place; "
                                       "run the functionalize pass first (the default pipeline's first stage)");
    throw Error(describeNode(node) + ": the evaluator cannot run this op");
  }
  std::vector<EvalValue> results;
  try {
    results = evaluator_.evaluate(node, env_);
  } catch (const Error &e) {
    const std::string message = e.what();
    // Evaluators name the node themselves; add it only when they did not.
    if (message.find("'" + node.name() + "'") != std::string::npos)
      throw;
    throw Error(describeNode(node) + ": " + message);
  }
  if (results.size() != node.numOutputs())
    throw Error(describeNode(node) + ": the evaluator returned " + std::to_string(results.size()) + " values for " +
                std::to_string(node.numOutputs()) + " outputs");
  for (std::size_t i = 0; i < results.size(); ++i) {
    checkResult(node, node.output(i), results[i]);
    env_[node.output(i)] = std::move(results[i]);
  }
}

std::vector<const Value *> GraphRunner::release(const Node &node) {
  std::vector<const Value *> dropped;
  for (const NamedArg &arg : node.args())
    for (const Value *v : arg.value.referencedValues()) {
      auto last = liveness_->last_use.find(v);
      if (last != liveness_->last_use.end() && last->second == &node && !liveness_->keep.count(v) &&
          !v->isConstant() && env_.erase(v) > 0)
        dropped.push_back(v);
    }
  return dropped;
}

std::vector<EvalValue> GraphRunner::userOutputs() const {
  std::vector<EvalValue> out;
  for (const GraphOutput &o : graph_.outputs()) {
    if (o.kind != OutputKind::User)
      continue;
    const Argument &a = o.value;
    if (a.isValue()) {
      auto it = env_.find(a.asValue());
      if (it == env_.end())
        throw Error("graph output '" + a.asValue()->name() + "' has no value");
      out.push_back(it->second);
    } else if (a.isNone()) {
      out.push_back({});
    } else if (a.isNumber()) {
      out.push_back({nullptr, a.asDouble()});
    } else {
      throw Error(std::string("graph output of kind ") + Argument::kindName(a.kind()) + " cannot be evaluated");
    }
  }
  return out;
}

} // namespace tico::eval
