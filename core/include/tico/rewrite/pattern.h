// Rewrite patterns: the unit a rewrite pass is made of.
//
// A pattern names the ops its match starts from (its roots) and tries to rewrite one node of
// them. The driver (tico/rewrite/driver.h) finds the nodes, offers each to the patterns rooted
// at its op, and keeps the bookkeeping (which nodes to visit again, which were erased, whether
// anything changed), so a pass only says what it matches and what it builds instead.
//
//   class DoubleNegation final : public tico::rewrite::Pattern {
//   public:
//     std::vector<tico::OpKey> roots() const override { return {tico::OpKey("aten", "neg")}; }
//     bool matchAndRewrite(tico::Node &neg, tico::rewrite::Rewriter &rewriter) override {
//       tico::Node *inner = neg.input(0)->producer();
//       if (inner == nullptr || inner->op() != neg.op())
//         return false;                                       // no match: graph untouched
//       rewriter.replaceNode(&neg, inner->input(0));          // users of -(-x) read x
//       return true;
//     }
//   };
#pragma once

#include "tico/ir/graph.h"
#include "tico/rewrite/builder.h"

#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tico {
class Registry;
} // namespace tico

namespace tico::rewrite {

class Rewriter;

class Pattern {
public:
  virtual ~Pattern() = default;
  // The ops (exact keys, overload included) whose nodes the driver offers to matchAndRewrite;
  // empty: every node.
  virtual std::vector<OpKey> roots() const = 0;
  // Rewrites the match rooted at `node` if there is one. Returns true exactly when the graph
  // changed; a pattern that does not match must leave the graph untouched. Nodes are erased
  // and uses replaced through `rewriter` (never Graph::eraseNode directly), so the driver knows
  // which nodes are gone; new nodes come from rewriter.builder().
  virtual bool matchAndRewrite(Node &node, Rewriter &rewriter) = 0;
};

// A pattern from a function, for rules too small for a class of their own.
using RewriteFn = std::function<bool(Node &node, Rewriter &rewriter)>;
std::unique_ptr<Pattern> makePattern(std::vector<OpKey> roots, RewriteFn rewrite);

// Root op keys from their text ("aten::add.Tensor"); throws tico::Error on a malformed key.
std::vector<OpKey> opKeys(std::span<const std::string_view> texts);
inline std::vector<OpKey> opKeys(std::initializer_list<std::string_view> texts) {
  return opKeys(std::span<const std::string_view>(texts.begin(), texts.size()));
}

// What a pattern changes the graph through. It forwards to the Graph and tells the driver what
// happened: erased nodes are never visited, and (in worklist mode) the nodes a change affects
// are visited again.
class Rewriter {
public:
  // The driver's bookkeeping; patterns never see it.
  class Listener {
  public:
    virtual ~Listener() = default;
    virtual void created(Node *node) = 0;  // a node the rewrite built
    virtual void affected(Node *node) = 0; // a node whose inputs or users changed
    // `node` was erased (the pointer is dangling); `producers` made its inputs.
    virtual void erased(Node *node, const std::vector<Node *> &producers) = 0;
  };

  Rewriter(Graph &graph, const Registry *types, Listener &listener)
      : graph_(graph), types_(types), listener_(listener) {}

  Graph &graph() { return graph_; }
  const Graph &graph() const { return graph_; }
  // The registry whose type rules type new nodes; null when the driver was given none.
  const Registry *registry() const { return types_; }

  // A builder inserting before `before` with names prefixed by `prefix`; it types nodes with
  // the registry's type rules when the driver has the registry.
  Builder builder(Node *before, std::string prefix);
  // The usual one: before `node`, named after it.
  Builder builderFor(Node &node) { return builder(&node, node.name()); }

  // Makes every user of `from` read `to` (their nodes are visited again).
  void replaceAllUsesWith(Value *from, Value *to);
  // Replaces the outputs of `node` (one value per output; a null entry only for an unused
  // output), then erases it.
  void replaceNode(Node *node, const std::vector<Value *> &replacements);
  void replaceNode(Node *node, Value *replacement) { replaceNode(node, std::vector<Value *>{replacement}); }
  // Erases `node`, whose outputs must be unused; the producers of its inputs are visited again.
  void eraseNode(Node *node);
  // Erases `node` when its outputs are unused and not graph outputs (a node without outputs,
  // an assertion, is kept); returns whether it did.
  bool eraseIfDead(Node *node);
  // Erases `value`'s producer if it is dead, then the producers of its inputs that became dead
  // in turn (only along the chain that fed `value`).
  void eraseDeadChain(Value *value);
  // Sets argument `index` of `node` (the node is visited again).
  void setArg(Node *node, std::size_t index, Argument value);
  // Asks for `node` to be visited again (after changing it in place).
  void revisit(Node *node) { listener_.affected(node); }

private:
  Graph &graph_;
  const Registry *types_;
  Listener &listener_;
};

} // namespace tico::rewrite
