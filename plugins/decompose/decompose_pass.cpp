// The pass that applies a set of decomposition rules, honouring the `preserve` option.
#include "decomposition.h"

#include "tico/ir/op_key.h"
#include "tico/ir/op_ref.h"
#include "tico/pass/pass.h"
#include "tico/support/error.h"

#include <unordered_map>
#include <unordered_set>

namespace tico::decompose {
namespace {

// Several families may hold a rule for the same op, each for its own cases (a rule returns
// nullopt for nodes it does not handle): they are tried in registration order and the first
// that applies wins, so adding a family can never silently replace another one's rule. Keyed by
// interned op id: the pass looks up every node, and only lookups touch the table (never an
// iteration, whose order would depend on the ids).
using RuleTable = std::unordered_map<OpId, std::vector<Rewrite>>;

class DecomposePass final : public Pass {
public:
  DecomposePass(std::shared_ptr<const RuleTable> rules, std::unordered_set<OpId> preserve)
      : rules_(std::move(rules)), preserve_(std::move(preserve)) {}

  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : passes::snapshot(graph)) {
      auto rules = rules_->find(node->opId());
      if (rules == rules_->end() || preserve_.count(node->opId()))
        continue;
      const std::string key = node->op().str();
      Builder builder(graph, node, node->name());
      Replacement replacement;
      for (const Rewrite &rewrite : rules->second)
        if ((replacement = rewrite(builder, *node)))
          break;
      if (!replacement)
        continue;
      if (replacement->size() != node->numOutputs())
        throw Error("decomposition of " + key + " returned " + std::to_string(replacement->size()) +
                    " values for " + std::to_string(node->numOutputs()) + " outputs");
      for (std::size_t i = 0; i < node->numOutputs(); ++i) {
        Value *out = node->output(i);
        Value *with = (*replacement)[i];
        if (with == nullptr) {
          if (out->hasUsers() || graph.isGraphOutput(out))
            throw Error("decomposition of " + key + " ('" + node->name() + "') cannot replace its used output " +
                        std::to_string(i));
          continue;
        }
        graph.replaceAllUsesWith(out, with);
      }
      graph.eraseNode(node);
      changed = true;
    }
    return changed;
  }

private:
  std::shared_ptr<const RuleTable> rules_;
  std::unordered_set<OpId> preserve_;
};

// Accepts any spelling of an op key (aten.layer_norm.default, aten::layer_norm).
OpId preservedOp(const std::string &text) {
  std::optional<OpKey> key = OpKey::parse(text);
  if (!key)
    throw Error("decompose: '" + text + "' in option 'preserve' is not an op key (expected e.g. aten::layer_norm.default)");
  return OpId::of(*key);
}

// Rule keys are written canonically: the table used to be looked up by the node's canonical
// text, so a key in another spelling never fired, and accepting it now would change output.
OpId ruleOp(const std::string &text) {
  OpKey key = OpKey::parseOrThrow(text);
  if (key.str() != text)
    throw Error("decomposition rule key '" + text + "' is not canonical (write '" + key.str() + "')");
  return OpId::of(key);
}

} // namespace

void registerDecomposePass(Registrar &registrar, std::string name, std::string summary, std::vector<Rule> rules) {
  auto table = std::make_shared<RuleTable>();
  for (Rule &rule : rules) {
    OpId op = ruleOp(rule.op);
    registrar.addOpReference(op.key(), "a decomposition rule of pass '" + name + "'");
    (*table)[op].push_back(std::move(rule.rewrite));
  }
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.options = {OptionSpec{"preserve", OptionType::StringList, std::vector<std::string>{},
                             "op keys to leave undecomposed (e.g. [aten::layer_norm.default])"}};
  spec.create = [table](const Options &options) -> std::unique_ptr<Pass> {
    std::unordered_set<OpId> preserve;
    for (const std::string &text : options.getStringList("preserve"))
      preserve.insert(preservedOp(text));
    return std::make_unique<DecomposePass>(table, std::move(preserve));
  };
  registrar.addPass(std::move(spec));
}

double numberArg(const Node &node, std::string_view name, double fallback) {
  const Argument *arg = node.findArg(name);
  if (arg == nullptr || arg->isNone())
    return fallback;
  return arg->asDouble();
}

Value *optionalValue(const Node &node, std::string_view name) {
  const Argument *arg = node.findArg(name);
  if (arg == nullptr || arg->isNone())
    return nullptr;
  return arg->asValue();
}

bool onlyFirstOutputUsed(const Graph &graph, const Node &node) {
  for (std::size_t i = 1; i < node.numOutputs(); ++i)
    if (node.output(i)->hasUsers() || graph.isGraphOutput(node.output(i)))
      return false;
  return true;
}

} // namespace tico::decompose
