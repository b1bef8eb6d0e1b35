// The registry of everything plugins provide, with provenance on every entry.
//
// Lowerings and Circle passes appear here only through their registration records; include
// tico/lowering/lowering.h or tico/circle/circle_pass.h to implement one.
#pragma once

#include "tico/circle/circle_pass_spec.h"
#include "tico/eval/evaluator.h"
#include "tico/frontend/frontend.h"
#include "tico/ir/op_schema.h"
#include "tico/lowering/lowering_spec.h"
#include "tico/pass/pass.h"
#include "tico/quant/quantizer.h"
#include "tico/rewrite/type_rule.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico {

// Which plugin registered an entry.
struct Provenance {
  std::string plugin;  // plugin name
  std::string version; // plugin version
  std::string path;    // shared library path ("<builtin>" for linked-in code)
  std::string str() const; // "name version (path)"
};

template <typename Spec> struct Registered {
  Spec spec;
  Provenance from;
};

class Registry {
public:
  Registry();

  // Lookups. Names are exact; use the *Names() lists for hints.
  const Registered<PassSpec> *findPass(const std::string &name) const;
  const Registered<CirclePassSpec> *findCirclePass(const std::string &name) const;
  const Registered<QuantizerSpec> *findQuantizer(const std::string &name) const;
  const Registered<FrontendSpec> *findFrontend(const std::string &name) const;
  // Lowerings registered for `op`, highest priority first.
  std::vector<const Registered<LoweringSpec> *> findLowerings(const OpKey &op) const;
  // The first evaluator registered (null when no evaluator plugin is loaded).
  const Registered<EvaluatorSpec> *evaluator() const;
  // The type rule for `op`: its exact overload's, else its op name's; null when none.
  const Registered<TypeRuleSpec> *findTypeRule(const OpKey &op) const;

  const std::map<std::string, Registered<PassSpec>> &passes() const { return passes_; }
  const std::map<std::string, Registered<CirclePassSpec>> &circlePasses() const { return circle_passes_; }
  const std::map<std::string, Registered<QuantizerSpec>> &quantizers() const { return quantizers_; }
  const std::map<std::string, Registered<FrontendSpec>> &frontends() const { return frontends_; }
  const std::map<OpKey, std::vector<Registered<LoweringSpec>>> &lowerings() const { return lowerings_; }
  const std::vector<Registered<EvaluatorSpec>> &evaluators() const { return evaluators_; }
  const std::map<std::string, Registered<TypeRuleSpec>> &typeRules() const { return type_rules_; }

  std::vector<std::string> passNames() const;
  std::vector<std::string> circlePassNames() const;
  std::vector<std::string> quantizerNames() const;

  // Builtin schemas plus those plugins added.
  const OpSchemaRegistry &schemas() const { return schemas_; }

  // Registration (plugins go through Registrar, which fills the provenance). Each throws
  // tico::Error on a duplicate name, naming both providers.
  void addPass(PassSpec spec, const Provenance &from);
  void addCirclePass(CirclePassSpec spec, const Provenance &from);
  void addQuantizer(QuantizerSpec spec, const Provenance &from);
  void addFrontend(FrontendSpec spec, const Provenance &from);
  // Two lowerings of the same key with the same priority are a conflict.
  void addLowering(LoweringSpec spec, const Provenance &from);
  void addEvaluator(EvaluatorSpec spec, const Provenance &from);
  void addOpSchema(const std::string &schema_text, const Provenance &from);
  // `spec.op` is "ns::name" (every overload) or "ns::name.overload"; one rule per key.
  void addTypeRule(TypeRuleSpec spec, const Provenance &from);

  // Adds every entry of `staged` (a registry one plugin registered into) to this one. Checks
  // all entries first: on any conflict it throws tico::Error listing every conflict, one per
  // line, and leaves this registry unchanged. This is what makes plugin loading all-or-nothing.
  void merge(const Registry &staged);

private:
  std::map<std::string, Registered<PassSpec>> passes_;
  std::map<std::string, Registered<CirclePassSpec>> circle_passes_;
  std::map<std::string, Registered<QuantizerSpec>> quantizers_;
  std::map<std::string, Registered<FrontendSpec>> frontends_;
  std::map<OpKey, std::vector<Registered<LoweringSpec>>> lowerings_;
  std::vector<Registered<EvaluatorSpec>> evaluators_;
  std::map<std::string, Registered<TypeRuleSpec>> type_rules_;
  OpSchemaRegistry schemas_;
  std::map<OpKey, Provenance> schema_providers_;
};

// The view of the registry a plugin gets while it registers. It stamps every entry with the
// plugin's provenance and only exists for the duration of the plugin's register call, which
// is what keeps registration out of static constructors.
class Registrar {
public:
  Registrar(Registry &registry, Provenance from) : registry_(registry), from_(std::move(from)) {}

  void addPass(PassSpec spec) { registry_.addPass(std::move(spec), from_); }
  void addCirclePass(CirclePassSpec spec) { registry_.addCirclePass(std::move(spec), from_); }
  void addQuantizer(QuantizerSpec spec) { registry_.addQuantizer(std::move(spec), from_); }
  void addFrontend(FrontendSpec spec) { registry_.addFrontend(std::move(spec), from_); }
  void addLowering(LoweringSpec spec) { registry_.addLowering(std::move(spec), from_); }
  void addEvaluator(EvaluatorSpec spec) { registry_.addEvaluator(std::move(spec), from_); }
  void addOpSchema(const std::string &schema_text) { registry_.addOpSchema(schema_text, from_); }
  void addTypeRule(std::string op, TypeRule rule) { registry_.addTypeRule({std::move(op), std::move(rule)}, from_); }

  const Provenance &provenance() const { return from_; }
  // Set by the plugin entry trampoline when registration throws.
  void setError(std::string message) { error_ = std::move(message); }
  const std::string &error() const { return error_; }

private:
  Registry &registry_;
  Provenance from_;
  std::string error_;
};

} // namespace tico
