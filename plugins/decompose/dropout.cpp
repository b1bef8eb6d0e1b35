// The dropout family is the identity in eval mode (train=False, or p=0), the form
// torch.export records for a model in eval(). In training mode it draws random masks, which a
// converted inference model cannot do: that is an error naming the op and the node, instead of
// a silently different model.
#include "decomposition.h"

#include "tico/support/error.h"

namespace tico::decompose {

namespace {

Replacement identityUnlessTraining(Builder &b, Node &n) {
  const Argument &train = n.arg("train");
  const bool training = train.isNone() || train.asBool(); // native_dropout: None means training
  if (training && numberArg(n, "p", 0.0) != 0.0)
    throw Error(n.op().str() + " at node '" + n.name() +
                "' is in training mode (train=True); tico converts inference graphs: call model.eval() "
                "before torch.export");
  if (n.numOutputs() > 1 && !onlyFirstOutputUsed(b.graph(), n))
    return std::nullopt; // native_dropout's mask is read: leave it to a lowering
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = n.input("input");
  return out;
}

} // namespace

std::vector<Rule> dropoutRules() {
  std::vector<Rule> rules;
  for (const char *op : {"aten::dropout.default", "aten::feature_dropout.default", "aten::alpha_dropout.default",
                         "aten::feature_alpha_dropout.default", "aten::native_dropout.default"})
    rules.push_back({op, identityUnlessTraining});
  return rules;
}

} // namespace tico::decompose
