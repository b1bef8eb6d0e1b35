// Graph -> CircleModel: checks coverage, sets up the interface, lowers node by node.
#include "tico/circle/serializer.h"

#include "circle/serializer_emitter.h"
#include "tico/plugin/registry.h"
#include "tico/support/log.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace tico {
namespace {

// How many node names of one op the report shows.
constexpr std::size_t kNamesShown = 3;
// How many different reasons of one op the report shows.
constexpr std::size_t kReasonsShown = 3;

std::string describe(const std::vector<UnsupportedOp> &ops) {
  std::size_t total = 0;
  for (const auto &op : ops)
    total += op.count;
  std::ostringstream out;
  out << total << (total == 1 ? " operator has" : " operators have") << " no Circle lowering:";
  for (const auto &op : ops) {
    out << "\n  " << op.op.str() << " x" << op.count << " (";
    for (std::size_t i = 0; i < op.node_names.size(); ++i)
      out << (i ? ", " : "") << op.node_names[i];
    if (op.count > op.node_names.size())
      out << ", ...";
    out << "): " << op.reason;
  }
  return out.str();
}

// Deferred nodes (symbolic scalars, nodes without outputs, their shape computations; see
// deferredNodes) are lowered only when something lowered reads them, so those nobody needs
// cannot block a conversion: a comparison feeding only a runtime assertion, say.
class NeedAnalysis {
public:
  NeedAnalysis(const Graph &graph, const std::unordered_set<const Node *> &deferred)
      : graph_(graph), deferred_(deferred) {}

  bool neverLowered(const Node &node) {
    if (!deferred_.count(&node))
      return false;
    for (const Value *out : node.outputs())
      if (needed(out))
        return false;
    return true;
  }

private:
  bool needed(const Value *value) {
    if (auto it = memo_.find(value); it != memo_.end())
      return it->second;
    memo_[value] = false; // a cycle cannot make a value needed
    bool result = graph_.isGraphOutput(value);
    for (const Node *user : value->users())
      result = result || !neverLowered(*user);
    memo_[value] = result;
    return result;
  }

  const Graph &graph_;
  const std::unordered_set<const Node *> &deferred_;
  std::map<const Value *, bool> memo_;
};

} // namespace

UnsupportedOpsError::UnsupportedOpsError(std::vector<UnsupportedOp> ops)
    : Error(describe(ops)), ops_(std::move(ops)) {}

std::vector<UnsupportedOp> findUnsupportedOps(const Graph &graph, const Registry &registry) {
  std::map<OpKey, UnsupportedOp> missing;
  std::map<OpKey, std::vector<std::string>> reasons;
  auto deferred = circle_serializer::deferredNodes(graph);
  NeedAnalysis analysis(graph, deferred);
  for (const auto &node : graph.nodes()) {
    if (analysis.neverLowered(*node))
      continue;
    auto candidates = registry.findLowerings(node->op());
    std::string reason = "no lowering registered";
    bool supported = false;
    for (const auto *entry : candidates) {
      std::string why = entry->spec.lowering->unsupportedReason(*node);
      if (why.empty()) {
        supported = true;
        break;
      }
      // The highest-priority lowering explains best what would be needed.
      if (entry == candidates.front())
        reason = why;
    }
    if (supported)
      continue;
    auto &entry = missing[node->op()];
    entry.op = node->op();
    ++entry.count;
    if (entry.node_names.size() < kNamesShown)
      entry.node_names.push_back(node->name());
    auto &seen = reasons[node->op()];
    if (seen.size() < kReasonsShown && std::find(seen.begin(), seen.end(), reason) == seen.end())
      seen.push_back(reason);
  }
  std::vector<UnsupportedOp> out;
  for (auto &[key, op] : missing) {
    for (const auto &reason : reasons[key])
      op.reason += (op.reason.empty() ? "" : "; ") + reason;
    out.push_back(std::move(op));
  }
  return out;
}

const std::vector<OptionSpec> &LowerOptions::specs() {
  static const std::vector<OptionSpec> specs = {
      OptionSpec{"remove_constant_input", OptionType::Bool, false,
                 "leave user inputs that torch.export specialised to constants out of the Circle inputs"},
  };
  return specs;
}

LowerOptions LowerOptions::from(const Options &options) {
  LowerOptions out;
  out.remove_constant_input = options.getBool("remove_constant_input");
  return out;
}

CircleModel serializeGraph(const Graph &graph, const Registry &registry, const LowerOptions &options) {
  if (auto missing = findUnsupportedOps(graph, registry); !missing.empty())
    throw UnsupportedOpsError(std::move(missing));

  auto deferred = circle_serializer::deferredNodes(graph);
  circle_serializer::GraphEmitter emit(graph, registry, deferred);
  auto &sg = emit.subgraph();

  // Inputs: user inputs in signature order. Inputs torch.export specialised to a constant
  // are kept as constant tensors (as the original converter does) unless the lower stage's
  // remove_constant_input drops them; None inputs have no tensor at all.
  for (const GraphInput &in : graph.inputs()) {
    if (in.kind == InputKind::User && in.value) {
      sg.inputs.push_back(emit.tensor(in.value));
      continue;
    }
    if (in.kind != InputKind::ConstantInput || in.constant_value.isNone() || options.remove_constant_input)
      continue;
    sg.inputs.push_back(emit.constantInput(in.name, in.constant_value));
  }

  for (const auto &node : graph.nodes()) {
    if (deferred.count(node.get())) {
      if (node->numOutputs() == 0)
        TICO_DEBUG << "serializer: node '" << node->name() << "' (" << node->op().str()
                   << ") has no outputs and emits nothing";
      continue;
    }
    emit.lowerNode(*node);
  }

  // Outputs: every non-None user output. A Circle output must be written by an operator and
  // listed once, so an output that is an input, a constant or a repeat of an earlier output
  // gets its own identity copy.
  std::set<int32_t> seen_outputs;
  std::set<int32_t> inputs(sg.inputs.begin(), sg.inputs.end());
  std::size_t position = 0;
  for (const GraphOutput &out : graph.outputs()) {
    if (out.kind != OutputKind::User)
      continue;
    ++position;
    if (out.value.isNone())
      continue;
    int32_t t = -1;
    std::string name;
    if (out.value.isValue()) {
      t = emit.tensor(out.value.asValue());
      name = out.value.asValue()->name();
    } else {
      name = "output_" + std::to_string(position - 1);
      t = emit.numberConstant(out.value, name);
    }
    if (inputs.count(t) || emit.isConstantTensor(t) || seen_outputs.count(t))
      t = emit.identityCopy(t, name + "_out");
    seen_outputs.insert(t);
    sg.outputs.push_back(t);
  }
  return emit.release();
}

} // namespace tico
