// The registry of everything plugins provide, with provenance on every entry.
//
// Lowerings, Circle passes and runtimes appear here only through their registration records;
// include tico/lowering/lowering.h, tico/circle/circle_pass.h or tico/runtime/runtime.h to
// implement (or use) one.
#pragma once

#include "tico/circle/circle_pass_spec.h"
#include "tico/eval/evaluator.h"
#include "tico/frontend/frontend.h"
#include "tico/ir/op_schema.h"
#include "tico/lowering/lowering_spec.h"
#include "tico/pass/pass.h"
#include "tico/quant/calibration.h"
#include "tico/quant/quantizer.h"
#include "tico/runtime/runtime_spec.h"
#include "tico/rewrite/type_rule.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
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
  const Registered<RuntimeSpec> *findRuntime(const std::string &name) const;
  const Registered<CalibrationSourceSpec> *findCalibrationSource(const std::string &name) const;
  // The runtime `name`; throws tico::Error listing the registered runtimes (with a "did you
  // mean" hint) when there is none, so every tool that selects a runtime says the same.
  const Registered<RuntimeSpec> &requireRuntime(const std::string &name) const;
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
  const std::map<std::string, Registered<RuntimeSpec>> &runtimes() const { return runtimes_; }
  const std::map<std::string, Registered<CalibrationSourceSpec>> &calibrationSources() const {
    return calibration_sources_;
  }
  const std::map<OpKey, std::vector<Registered<LoweringSpec>>> &lowerings() const { return lowerings_; }
  const std::vector<Registered<EvaluatorSpec>> &evaluators() const { return evaluators_; }
  const std::map<std::string, Registered<TypeRuleSpec>> &typeRules() const { return type_rules_; }

  std::vector<std::string> passNames() const;
  std::vector<std::string> circlePassNames() const;
  std::vector<std::string> quantizerNames() const;
  std::vector<std::string> runtimeNames() const;
  std::vector<std::string> calibrationSourceNames() const;

  // The schemas plugins registered: the .pt2 frontend's PyTorch table plus plugins' own ops.
  // Empty until a plugin registers some (the core bundles no op table).
  const OpSchemaRegistry &schemas() const { return schemas_; }
  // True when `op` is known: it has a schema, or a plugin declared it schema-less.
  bool knowsOp(const OpKey &op) const;

  // Registration (plugins go through Registrar, which fills the provenance). Each throws
  // tico::Error on a duplicate name, naming both providers.
  void addPass(PassSpec spec, const Provenance &from);
  void addCirclePass(CirclePassSpec spec, const Provenance &from);
  void addQuantizer(QuantizerSpec spec, const Provenance &from);
  void addFrontend(FrontendSpec spec, const Provenance &from);
  void addRuntime(RuntimeSpec spec, const Provenance &from);
  void addCalibrationSource(CalibrationSourceSpec spec, const Provenance &from);
  // Two lowerings of the same key with the same priority are a conflict.
  void addLowering(LoweringSpec spec, const Provenance &from);
  void addEvaluator(EvaluatorSpec spec, const Provenance &from);
  void addOpSchema(const std::string &schema_text, const Provenance &from);
  // A whole table of schemas (the PyTorch table of the .pt2 frontend plugin). Its entries are
  // a base layer: a plugin may redefine one with addOpSchema, and the table never replaces a
  // schema a plugin defined, whichever of the two loads first. Texts that do not parse (syntax
  // the IR does not model) leave their op known but without a schema.
  void addOpSchemaTable(const std::string_view *texts, std::size_t count, const Provenance &from);
  // Declares an op that exists without a schema (torch.export's Python operators such as
  // `_operator::add` on symbolic ints), so naming it is not an unknown-op error.
  void addSchemalessOp(const OpKey &op, const Provenance &from);
  // Records that a plugin names `op` in a table of its own (`what`: "decomposition rule",
  // "type rule", "pattern", ...). Lowerings are recorded by addLowering.
  void addOpReference(const OpKey &op, const std::string &what, const Provenance &from);
  // The same for a table keyed by "ns::name" for every overload (type rules): some overload
  // must be known.
  void addOpFamilyReference(const std::string &ns, const std::string &name, const std::string &what,
                            const Provenance &from);

  // Checks that every op a plugin names (lowerings, addOpReference) is known (knowsOp).
  // Throws tico::Error listing each unknown key with the plugin that names it and a "did you
  // mean" hint. Hosts call it once all plugins are loaded: the PyTorch schemas come from a
  // plugin, so a key cannot be judged while plugins are still loading (PluginSet::discover
  // calls it at its end).
  void checkOpReferences() const;
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
  std::map<std::string, Registered<RuntimeSpec>> runtimes_;
  std::map<std::string, Registered<CalibrationSourceSpec>> calibration_sources_;
  std::map<OpKey, std::vector<Registered<LoweringSpec>>> lowerings_;
  std::vector<Registered<EvaluatorSpec>> evaluators_;
  std::map<std::string, Registered<TypeRuleSpec>> type_rules_;
  OpSchemaRegistry schemas_;
  // Who defined each schema outside a table; table schemas have no entry here.
  std::map<OpKey, Provenance> schema_providers_;
  // Keys this registry's tables provided (merge adds them under plugins' own definitions).
  std::set<OpKey> table_schemas_;
  std::map<OpKey, Provenance> schemaless_ops_;
  struct OpReference {
    OpKey op; // overload empty: any overload of op.ns::op.name
    std::string what;
    Provenance from;
  };
  std::vector<OpReference> op_references_;
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
  void addRuntime(RuntimeSpec spec) { registry_.addRuntime(std::move(spec), from_); }
  void addCalibrationSource(CalibrationSourceSpec spec) { registry_.addCalibrationSource(std::move(spec), from_); }
  void addLowering(LoweringSpec spec) { registry_.addLowering(std::move(spec), from_); }
  void addEvaluator(EvaluatorSpec spec) { registry_.addEvaluator(std::move(spec), from_); }
  void addOpSchema(const std::string &schema_text) { registry_.addOpSchema(schema_text, from_); }
  void addOpSchemaTable(const std::string_view *texts, std::size_t count) {
    registry_.addOpSchemaTable(texts, count, from_);
  }
  void addSchemalessOp(const OpKey &op) { registry_.addSchemalessOp(op, from_); }
  // Declares an op key the plugin uses outside a lowering (see Registry::addOpReference), so a
  // misspelt key is a load error instead of a rule that never fires.
  void addOpReference(const OpKey &op, const std::string &what) { registry_.addOpReference(op, what, from_); }
  void addOpFamilyReference(const std::string &ns, const std::string &name, const std::string &what) {
    registry_.addOpFamilyReference(ns, name, what, from_);
  }
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
