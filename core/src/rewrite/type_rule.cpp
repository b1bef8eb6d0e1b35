#include "tico/rewrite/type_rule.h"

#include "tico/plugin/registry.h"
#include "tico/support/error.h"

namespace tico {

std::optional<std::vector<TensorTypeSpec>> inferTypes(const Registry &registry, const Node &node, std::string *why) {
  std::string reason;
  std::optional<std::vector<TensorTypeSpec>> types;
  if (const Registered<TypeRuleSpec> *entry = registry.findTypeRule(node.op())) {
    try {
      types = entry->spec.rule(node, &reason);
    } catch (const Error &e) {
      // A rule that reads a malformed argument reports it as its reason, like an explicit refusal.
      types.reset();
      reason = e.what();
    }
    if (types && types->size() != node.numOutputs() && node.numOutputs() != 0) {
      reason = node.op().str() + " has " + std::to_string(node.numOutputs()) + " outputs; the rule gives " +
               std::to_string(types->size());
      types.reset();
    }
  } else {
    reason = "no type rule for " + node.op().str();
  }
  if (!types && why)
    *why = reason;
  return types;
}

bool applyTypes(const Registry &registry, Node &node, std::string *why) {
  auto types = inferTypes(registry, node, why);
  if (!types)
    return false;
  for (std::size_t i = 0; i < node.numOutputs(); ++i)
    if ((*types)[i].kind != node.output(i)->kind()) {
      if (why)
        *why = "the type rule of " + node.op().str() + " gives output " + std::to_string(i) + " another kind";
      return false;
    }
  for (std::size_t i = 0; i < node.numOutputs(); ++i) {
    Value *out = node.output(i);
    const TensorTypeSpec &t = (*types)[i];
    if (t.kind == ValueKind::SymInt) {
      if (t.shape.size() != 1)
        throw Error("internal: the type rule of " + node.op().str() + " gives a SymInt output without its value");
      const Dim &d = t.shape[0];
      out->setSym(d.isSymbolic() ? d.expr() : std::to_string(d.value()), d.value());
      out->setType(t.dtype, {});
      continue;
    }
    out->setType(t.dtype, t.shape);
  }
  return true;
}

} // namespace tico
