#include "legalize_support.h"

#include <algorithm>

namespace tico::legalize {

std::optional<std::vector<int64_t>> staticInts(const Argument &arg, std::size_t n) {
  if (arg.isInt())
    return std::vector<int64_t>(n, arg.asInt());
  if (!arg.isIntList())
    return std::nullopt;
  const auto &v = arg.asInts();
  if (v.size() == n)
    return v;
  if (v.size() == 1)
    return std::vector<int64_t>(n, v[0]);
  return std::nullopt;
}

void replaceAndErase(Graph &graph, Node *node, Value *from, Value *to) {
  graph.replaceAllUsesWith(from, to);
  bool dead = true;
  for (const Value *out : node->outputs())
    dead = dead && !isUsed(graph, out);
  if (dead)
    graph.eraseNode(node);
}

void replaceAndErase(rewrite::Rewriter &rewriter, Node *node, Value *from, Value *to) {
  rewriter.replaceAllUsesWith(from, to);
  rewriter.eraseIfDead(node);
}

PassSpec sweepPass(std::string name, std::string summary, std::vector<SweepRule> rules) {
  return rewrite::patternPassSpec(
      std::move(name), std::move(summary), {},
      [rules = std::move(rules)](const Options &) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        for (const SweepRule &rule : rules)
          patterns.push_back(rewrite::makePattern(rewrite::opKeys(rule.roots), rule.rewrite));
        return patterns;
      },
      {rewrite::Traversal::Sweep});
}

bool FusionPass::run(Graph &graph, PassContext &context) {
  const bool changed =
      rewrite::applyPatterns(graph, &context.registry(), {pattern_.get()}, {rewrite::Traversal::Sweep});
  if (changed)
    graph.removeDeadNodes();
  return changed;
}

} // namespace tico::legalize
