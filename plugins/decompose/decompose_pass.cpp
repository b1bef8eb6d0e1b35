// The pass that applies a set of decomposition rules, honouring the `preserve` option: each op's
// rules form one rewrite pattern, applied by the SDK's rewrite driver.
#include "decomposition.h"

#include "tico/ir/op_key.h"
#include "tico/ir/op_ref.h"
#include "tico/pass/pass.h"
#include "tico/rewrite/driver.h"
#include "tico/support/error.h"

#include <map>
#include <set>

namespace tico::decompose {
namespace {

// The rules of one op as a rewrite pattern. Several families may hold a rule for the same op,
// each for its own cases (a rule returns nullopt for nodes it does not handle): they are tried
// in registration order and the first that applies wins, so adding a family can never silently
// replace another one's rule.
class RulePattern final : public rewrite::Pattern {
public:
  RulePattern(OpKey op, std::vector<Rewrite> rules) : op_(std::move(op)), rules_(std::move(rules)) {}

  std::vector<OpKey> roots() const override { return {op_}; }

  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    Builder builder = rewriter.builderFor(node);
    Replacement replacement;
    for (const Rewrite &rewrite : rules_)
      if ((replacement = rewrite(builder, node)))
        break;
    if (!replacement)
      return false;
    const std::string key = node.op().str();
    if (replacement->size() != node.numOutputs())
      throw Error("decomposition of " + key + " returned " + std::to_string(replacement->size()) + " values for " +
                  std::to_string(node.numOutputs()) + " outputs");
    for (std::size_t i = 0; i < node.numOutputs(); ++i)
      if ((*replacement)[i] == nullptr && rewrite::isUsed(rewriter.graph(), node.output(i)))
        throw Error("decomposition of " + key + " ('" + node.name() + "') cannot replace its used output " +
                    std::to_string(i));
    rewriter.replaceNode(&node, *replacement);
    return true;
  }

private:
  OpKey op_;
  std::vector<Rewrite> rules_;
};

using RuleTable = std::map<OpKey, std::vector<Rewrite>>;

// One walk over the graph as it was when the pass started (a sweep): what a decomposition
// creates is decomposed by the next run of the pass, which the pipeline's fixed-point stages
// provide; the order of the rewrites, and so the output, stays that of the walk.
std::unique_ptr<Pass> decomposePass(const RuleTable &table, const std::set<OpKey> &preserve) {
  std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
  for (const auto &[op, rules] : table)
    if (!preserve.count(op))
      patterns.push_back(std::make_unique<RulePattern>(op, rules));
  return rewrite::patternPass(std::move(patterns), {rewrite::Traversal::Sweep});
}

// Accepts any spelling of an op key (aten.layer_norm.default, aten::layer_norm), so `preserve`
// entries compare equal to node keys.
OpKey canonicalKey(const std::string &text) {
  std::optional<OpKey> key = OpKey::parse(text);
  if (!key)
    throw Error("decompose: '" + text + "' in option 'preserve' is not an op key (expected e.g. aten::layer_norm.default)");
  return *key;
}

// Rule keys are written canonically: the table used to be looked up by the node's canonical
// text, so a key in another spelling never fired, and accepting it now would change output.
OpKey ruleOp(const std::string &text) {
  OpKey key = OpKey::parseOrThrow(text);
  if (key.str() != text)
    throw Error("decomposition rule key '" + text + "' is not canonical (write '" + key.str() + "')");
  return key;
}

} // namespace

void registerDecomposePass(Registrar &registrar, std::string name, std::string summary, std::vector<Rule> rules) {
  auto table = std::make_shared<RuleTable>();
  for (Rule &rule : rules) {
    OpKey op = ruleOp(rule.op);
    registrar.addOpReference(op, "a decomposition rule of pass '" + name + "'");
    (*table)[op].push_back(std::move(rule.rewrite));
  }
  PassSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.options = {OptionSpec{"preserve", OptionType::StringList, std::vector<std::string>{},
                             "op keys to leave undecomposed (e.g. [aten::layer_norm.default])"}};
  spec.create = [table](const Options &options) -> std::unique_ptr<Pass> {
    std::set<OpKey> preserve;
    for (const std::string &text : options.getStringList("preserve"))
      preserve.insert(canonicalKey(text));
    return decomposePass(*table, preserve);
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
