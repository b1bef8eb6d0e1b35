#include "pass_support.h"
#include "sweep_with_options.h"

#include "tico/rewrite/driver.h"

#include "tico/support/error.h"

#include <algorithm>

namespace tico::passes {

PassSpec sweepPass(std::string name, std::string summary, std::span<const std::string_view> ops,
                   rewrite::RewriteFn fn) {
  return rewrite::patternPassSpec(std::move(name), std::move(summary), rewrite::opKeys(ops), std::move(fn),
                                  {rewrite::Traversal::Sweep});
}

PassSpec sweepPass(std::string name, std::string summary, std::vector<OptionSpec> options,
                   std::span<const std::string_view> ops, RewriteMaker make) {
  return rewrite::patternPassSpec(
      std::move(name), std::move(summary), std::move(options),
      [roots = rewrite::opKeys(ops), make = std::move(make)](const Options &o) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(rewrite::makePattern(roots, make(o)));
        return patterns;
      },
      {rewrite::Traversal::Sweep});
}

void replaceAndErase(Graph &graph, Node *node, Value *replacement) {
  graph.replaceAllUsesWith(node->output(), replacement);
  graph.eraseNode(node);
}

bool eraseIfDead(Graph &graph, Node *node) {
  if (node->numOutputs() == 0)
    return false; // an assertion or another node kept for its effect
  for (const Value *out : node->outputs())
    if (out->hasUsers() || graph.isGraphOutput(out))
      return false;
  graph.eraseNode(node);
  return true;
}

void eraseDeadChain(Graph &graph, Value *value) {
  std::vector<Value *> work{value};
  while (!work.empty()) {
    Value *v = work.back();
    work.pop_back();
    Node *producer = v->producer();
    if (producer == nullptr)
      continue;
    std::vector<Value *> inputs;
    for (const NamedArg &a : producer->args())
      for (Value *in : a.value.referencedValues())
        inputs.push_back(in);
    if (!eraseIfDead(graph, producer))
      continue;
    // A value read twice by the erased node is visited twice; the second visit finds its
    // producer already gone or still used, which is harmless.
    std::sort(inputs.begin(), inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    work.insert(work.end(), inputs.begin(), inputs.end());
  }
}

std::optional<int64_t> staticInt(const Argument &arg) {
  if (arg.isInt())
    return arg.asInt();
  return std::nullopt;
}

std::optional<double> numberOf(const Argument &arg) {
  if (arg.isNumber())
    return arg.asDouble();
  return std::nullopt;
}

bool hasSingleUse(const Graph &graph, const Value *value) {
  return value->users().size() == 1 && !graph.isGraphOutput(value);
}

Node *producerIf(const Value *value, std::span<const std::string_view> ops) {
  Node *p = value->producer();
  return p != nullptr && isOp(*p, ops) ? p : nullptr;
}

Node *nodeAfter(const Graph &graph, const Node *node) {
  const auto &nodes = graph.nodes();
  for (auto it = nodes.begin(); it != nodes.end(); ++it)
    if (it->get() == node) {
      ++it;
      return it == nodes.end() ? nullptr : it->get();
    }
  throw Error("nodeAfter: node '" + node->name() + "' is not in the graph");
}

void replaceUsesExceptReader(Graph &graph, Value *from, Value *to, Node *reader) {
  graph.replaceAllUsesWith(from, to);
  reader->replaceInput(to, from);
}

} // namespace tico::passes
