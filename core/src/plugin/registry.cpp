#include "tico/plugin/registry.h"

#include "tico/rewrite/driver.h"

#include "tico/support/error.h"
#include "tico/support/log.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace tico {

std::string Provenance::str() const {
  std::string out = plugin;
  if (!version.empty())
    out += " " + version;
  if (!path.empty())
    out += " (" + path + ")";
  return out;
}

namespace {

std::string conflict(const std::string &what, const Provenance &first, const Provenance &second) {
  return what + " is registered by '" + first.str() + "' and '" + second.str() + "'";
}

std::string loweringWhat(const LoweringSpec &spec) {
  return "lowering of '" + spec.op.str() + "' at priority " + std::to_string(spec.priority);
}

// Plugin bugs in option declarations surface at registration, naming the plugin, rather than
// as a confusing type error when a manifest sets the option.
void checkOptionSpecs(const std::string &owner, const std::vector<OptionSpec> &options,
                      const Provenance &from) {
  std::set<std::string> seen;
  for (const auto &option : options) {
    if (option.name.empty())
      throw Error(owner + " (from '" + from.str() + "') declares an option without a name");
    if (!seen.insert(option.name).second)
      throw Error(owner + " (from '" + from.str() + "') declares option '" + option.name +
                  "' twice");
    bool widened_int = option.type == OptionType::Float &&
                       std::holds_alternative<int64_t>(option.default_value);
    if (option.default_value.index() != static_cast<std::size_t>(option.type) && !widened_int)
      throw Error(owner + " (from '" + from.str() + "') declares option '" + option.name +
                  "' as " + optionTypeName(option.type) + " but its default is " +
                  optionValueString(option.default_value));
  }
}

void checkNamed(const std::string &kind, const std::string &name, bool has_factory,
                const Provenance &from) {
  if (name.empty())
    throw Error("'" + from.str() + "' registers a " + kind + " without a name");
  if (!has_factory)
    throw Error(kind + " '" + name + "' (from '" + from.str() + "') has no factory function");
}

// Names a manifest refers to must be writable there (plain and compact pass entries).
void checkManifestName(const std::string &kind, const std::string &name, const Provenance &from) {
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      throw Error(kind + " name '" + name + "' (from '" + from.str() +
                  "') is invalid: use letters, digits, '-', '_' and '.'");
}

template <typename Spec>
void addNamed(std::map<std::string, Registered<Spec>> &table, const std::string &kind, Spec spec,
              const Provenance &from) {
  auto it = table.find(spec.name);
  if (it != table.end())
    throw Error(conflict(kind + " '" + spec.name + "'", it->second.from, from));
  std::string name = spec.name;
  table.emplace(std::move(name), Registered<Spec>{std::move(spec), from});
}

template <typename Spec>
void collectNamedConflicts(const std::map<std::string, Registered<Spec>> &existing,
                           const std::map<std::string, Registered<Spec>> &staged,
                           const std::string &kind, std::vector<std::string> &out) {
  for (const auto &[name, entry] : staged) {
    auto it = existing.find(name);
    if (it != existing.end())
      out.push_back(conflict(kind + " '" + name + "'", it->second.from, entry.from));
  }
}

template <typename T> std::vector<std::string> keysOf(const std::map<std::string, T> &table) {
  std::vector<std::string> out;
  out.reserve(table.size());
  for (const auto &entry : table)
    out.push_back(entry.first);
  return out;
}

void insertLowering(std::vector<Registered<LoweringSpec>> &candidates,
                    Registered<LoweringSpec> entry) {
  // Kept sorted by descending priority, so lookups return candidates in the order tried.
  auto position = std::find_if(candidates.begin(), candidates.end(), [&](const auto &other) {
    return other.spec.priority < entry.spec.priority;
  });
  candidates.insert(position, std::move(entry));
}

} // namespace

Registry::Registry() = default;

const Registered<PassSpec> *Registry::findPass(const std::string &name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

const Registered<CirclePassSpec> *Registry::findCirclePass(const std::string &name) const {
  auto it = circle_passes_.find(name);
  return it == circle_passes_.end() ? nullptr : &it->second;
}

const Registered<QuantizerSpec> *Registry::findQuantizer(const std::string &name) const {
  auto it = quantizers_.find(name);
  return it == quantizers_.end() ? nullptr : &it->second;
}

const Registered<FrontendSpec> *Registry::findFrontend(const std::string &name) const {
  auto it = frontends_.find(name);
  return it == frontends_.end() ? nullptr : &it->second;
}

const Registered<RuntimeSpec> *Registry::findRuntime(const std::string &name) const {
  auto it = runtimes_.find(name);
  return it == runtimes_.end() ? nullptr : &it->second;
}

const Registered<CalibrationSourceSpec> *Registry::findCalibrationSource(const std::string &name) const {
  auto it = calibration_sources_.find(name);
  return it == calibration_sources_.end() ? nullptr : &it->second;
}

const Registered<RuntimeSpec> &Registry::requireRuntime(const std::string &name) const {
  if (const auto *found = findRuntime(name))
    return *found;
  std::string known;
  for (const auto &[runtime, entry] : runtimes_)
    known += (known.empty() ? "" : ", ") + runtime;
  throw Error("unknown runtime '" + name + "'" + didYouMean(name, runtimeNames()) + "; " +
              (known.empty() ? std::string("no runtime plugin is loaded (the bundled one is builtin-runtime)")
                             : "loaded runtimes: " + known));
}

std::vector<const Registered<LoweringSpec> *> Registry::findLowerings(const OpKey &op) const {
  std::vector<const Registered<LoweringSpec> *> out;
  auto it = lowerings_.find(op);
  if (it == lowerings_.end())
    return out;
  for (const auto &entry : it->second)
    out.push_back(&entry);
  return out;
}

const Registered<EvaluatorSpec> *Registry::evaluator() const {
  return evaluators_.empty() ? nullptr : &evaluators_.front();
}

const Registered<TypeRuleSpec> *Registry::findTypeRule(const OpKey &op) const {
  auto it = type_rules_.find(op.str());
  if (it == type_rules_.end())
    it = type_rules_.find(op.qualifiedName());
  return it == type_rules_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::passNames() const { return keysOf(passes_); }
std::vector<std::string> Registry::circlePassNames() const { return keysOf(circle_passes_); }
std::vector<std::string> Registry::quantizerNames() const { return keysOf(quantizers_); }
std::vector<std::string> Registry::runtimeNames() const { return keysOf(runtimes_); }
std::vector<std::string> Registry::calibrationSourceNames() const { return keysOf(calibration_sources_); }

void Registry::addPass(PassSpec spec, const Provenance &from) {
  checkNamed("pass", spec.name, static_cast<bool>(spec.create), from);
  checkManifestName("pass", spec.name, from);
  checkOptionSpecs("pass '" + spec.name + "'", spec.options, from);
  // The roots of a pass made by rewrite::patternPassSpec are op references like a rule
  // table's keys; recorded once the pass is in.
  std::vector<OpKey> roots;
  if (const rewrite::PatternPassFactory *factory = rewrite::PatternPassFactory::of(spec))
    roots = factory->roots();
  const std::string what = "a pattern of pass '" + spec.name + "'";
  addNamed(passes_, "pass", std::move(spec), from);
  for (const OpKey &root : roots)
    addOpReference(root, what, from);
}

void Registry::addCirclePass(CirclePassSpec spec, const Provenance &from) {
  checkNamed("Circle pass", spec.name, static_cast<bool>(spec.create), from);
  checkManifestName("Circle pass", spec.name, from);
  checkOptionSpecs("Circle pass '" + spec.name + "'", spec.options, from);
  addNamed(circle_passes_, "Circle pass", std::move(spec), from);
}

void Registry::addQuantizer(QuantizerSpec spec, const Provenance &from) {
  checkNamed("quantizer", spec.name, static_cast<bool>(spec.create), from);
  checkManifestName("quantizer", spec.name, from);
  checkOptionSpecs("quantizer '" + spec.name + "'", spec.options, from);
  addNamed(quantizers_, "quantizer", std::move(spec), from);
}

void Registry::addFrontend(FrontendSpec spec, const Provenance &from) {
  checkNamed("frontend", spec.name, static_cast<bool>(spec.create), from);
  addNamed(frontends_, "frontend", std::move(spec), from);
}

void Registry::addRuntime(RuntimeSpec spec, const Provenance &from) {
  checkNamed("runtime", spec.name, static_cast<bool>(spec.create), from);
  checkManifestName("runtime", spec.name, from); // fold-constants names it in manifests
  checkOptionSpecs("runtime '" + spec.name + "'", spec.options, from);
  addNamed(runtimes_, "runtime", std::move(spec), from);
}

void Registry::addCalibrationSource(CalibrationSourceSpec spec, const Provenance &from) {
  checkNamed("calibration source", spec.name, static_cast<bool>(spec.create), from);
  checkManifestName("calibration source", spec.name, from); // named in manifests and on the CLI
  if (!spec.accepts)
    throw Error("calibration source '" + spec.name + "' from " + from.str() + " has no accepts() function");
  addNamed(calibration_sources_, "calibration source", std::move(spec), from);
}

void Registry::addLowering(LoweringSpec spec, const Provenance &from) {
  if (!spec.lowering)
    throw Error("lowering of '" + spec.op.str() + "' (from '" + from.str() +
                "') has no implementation");
  auto &candidates = lowerings_[spec.op];
  for (const auto &existing : candidates)
    if (existing.spec.priority == spec.priority)
      throw Error(conflict(loweringWhat(spec), existing.from, from));
  insertLowering(candidates, Registered<LoweringSpec>{std::move(spec), from});
}

void Registry::addEvaluator(EvaluatorSpec spec, const Provenance &from) {
  checkNamed("evaluator", spec.name, static_cast<bool>(spec.create), from);
  for (const auto &existing : evaluators_)
    if (existing.spec.name == spec.name)
      throw Error(conflict("evaluator '" + spec.name + "'", existing.from, from));
  evaluators_.push_back(Registered<EvaluatorSpec>{std::move(spec), from});
}

void Registry::addOpSchema(const std::string &schema_text, const Provenance &from) {
  OpSchema schema;
  try {
    schema = OpSchema::parse(schema_text);
  } catch (const Error &e) {
    throw Error("invalid op schema from '" + from.str() + "': " + e.what());
  }
  auto provider = schema_providers_.find(schema.key);
  if (provider != schema_providers_.end()) {
    // Two plugins may both declare a custom op they share; only a different definition is
    // a conflict.
    const OpSchema *existing = schemas_.find(schema.key);
    if (existing != nullptr && existing->str() == schema.str())
      return;
    throw Error(conflict("schema of '" + schema.key.str() + "'", provider->second, from));
  }
  if (table_schemas_.erase(schema.key) != 0) {
    TICO_DEBUG << "'" << from.str() << "' replaces the table schema of '" << schema.key.str()
               << "'";
  }
  OpKey key = schema.key;
  schemas_.add(std::move(schema));
  schema_providers_.emplace(std::move(key), from);
}

void Registry::addOpSchemaTable(const std::string_view *texts, std::size_t count, const Provenance &from) {
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::shared_ptr<const OpSchema> schema;
    try {
      schema = std::make_shared<const OpSchema>(OpSchema::parse(texts[i]));
    } catch (const Error &) {
      // The op exists, only its schema uses syntax the IR does not model: it stays known
      // (naming it is no error) and its nodes keep their arguments as written.
      ++skipped;
      std::string_view head = texts[i].substr(0, texts[i].find('('));
      if (std::optional<OpKey> key = OpKey::parse(head))
        schemaless_ops_.emplace(*key, from);
      continue;
    }
    if (schema_providers_.count(schema->key) != 0)
      continue; // a plugin's own definition wins
    // Within tables the later text wins, as PyTorch lists a few keys twice.
    table_schemas_.insert(schema->key);
    schemas_.add(std::move(schema));
  }
  if (skipped != 0)
    TICO_DEBUG << "'" << from.str() << "': " << skipped << " of " << count
               << " table schemas use syntax the IR does not model; those ops have no schema";
}

void Registry::addSchemalessOp(const OpKey &op, const Provenance &from) { schemaless_ops_.emplace(op, from); }

void Registry::addOpReference(const OpKey &op, const std::string &what, const Provenance &from) {
  op_references_.push_back(OpReference{op, what, from});
}

void Registry::addOpFamilyReference(const std::string &ns, const std::string &name, const std::string &what,
                                    const Provenance &from) {
  op_references_.push_back(OpReference{OpKey(ns, name, ""), what, from});
}

bool Registry::knowsOp(const OpKey &op) const {
  return schemas_.find(op) != nullptr || schemaless_ops_.count(op) != 0;
}

void Registry::checkOpReferences() const {
  std::vector<std::string> problems;
  std::set<std::string> seen;
  std::vector<std::string> known; // filled on the first problem: only errors pay for hints
  auto knownFamily = [&](const OpKey &op) {
    if (!schemas_.overloadsOf(op.ns, op.name).empty())
      return true;
    auto schemaless = schemaless_ops_.lower_bound(OpKey(op.ns, op.name, ""));
    return schemaless != schemaless_ops_.end() && schemaless->first.ns == op.ns && schemaless->first.name == op.name;
  };
  auto check = [&](const OpKey &op, const std::string &what, const Provenance &from) {
    bool family = op.overload.empty();
    if (family ? knownFamily(op) : knowsOp(op))
      return;
    if (known.empty()) {
      for (const OpKey &key : schemas_.keys())
        known.push_back(key.str());
      for (const auto &entry : schemaless_ops_)
        known.push_back(entry.first.str());
    }
    std::vector<std::string> families;
    if (family)
      for (const auto &key : known)
        families.push_back(key.substr(0, key.rfind('.')));
    std::string text = family ? op.qualifiedName() : op.str();
    std::string line = "plugin '" + from.str() + "' names unknown op '" + text + "' in " + what +
                       didYouMean(text, family ? families : known);
    if (seen.insert(line).second)
      problems.push_back(std::move(line));
  };
  for (const auto &[op, candidates] : lowerings_)
    for (const auto &entry : candidates)
      check(op, "a lowering", entry.from);
  for (const auto &reference : op_references_)
    check(reference.op, reference.what, reference.from);
  for (const auto &[key, entry] : type_rules_) {
    // "ns::name" (every overload: some overload must be known) or "ns::name.overload".
    const std::size_t colons = key.find("::");
    const std::size_t dot = key.find('.', colons + 2);
    if (dot == std::string::npos)
      check(OpKey(key.substr(0, colons), key.substr(colons + 2), ""), "a type rule", entry.from);
    else if (std::optional<OpKey> op = OpKey::parse(key))
      check(*op, "a type rule", entry.from);
  }
  if (problems.empty())
    return;
  std::string message = "unknown op keys (no loaded plugin registers a schema for them):";
  for (const auto &line : problems)
    message += "\n  " + line;
  if (schemas_.size() == 0)
    message += "\nnote: no op schemas are registered at all; the PyTorch table comes from the "
               ".pt2 frontend plugin (libtico-pt2), which is not loaded";
  throw Error(message);
}

void Registry::addTypeRule(TypeRuleSpec spec, const Provenance &from) {
  const std::size_t colons = spec.op.find("::");
  const std::size_t dot = spec.op.find('.', colons == std::string::npos ? 0 : colons + 2);
  if (colons == std::string::npos || colons == 0 || colons + 2 >= spec.op.size() || dot == colons + 2 ||
      (dot != std::string::npos && dot + 1 == spec.op.size()))
    throw Error("type rule key '" + spec.op + "' (from '" + from.str() +
                "') is not an op name: expected 'ns::name' or 'ns::name.overload'");
  if (!spec.rule)
    throw Error("type rule of '" + spec.op + "' (from '" + from.str() + "') has no function");
  auto it = type_rules_.find(spec.op);
  if (it != type_rules_.end())
    throw Error(conflict("type rule '" + spec.op + "'", it->second.from, from));
  std::string key = spec.op;
  type_rules_.emplace(std::move(key), Registered<TypeRuleSpec>{std::move(spec), from});
}

void Registry::merge(const Registry &staged) {
  std::vector<std::string> conflicts;
  collectNamedConflicts(passes_, staged.passes_, "pass", conflicts);
  collectNamedConflicts(circle_passes_, staged.circle_passes_, "Circle pass", conflicts);
  collectNamedConflicts(quantizers_, staged.quantizers_, "quantizer", conflicts);
  collectNamedConflicts(frontends_, staged.frontends_, "frontend", conflicts);
  collectNamedConflicts(runtimes_, staged.runtimes_, "runtime", conflicts);
  collectNamedConflicts(calibration_sources_, staged.calibration_sources_, "calibration source", conflicts);
  collectNamedConflicts(type_rules_, staged.type_rules_, "type rule", conflicts);
  for (const auto &[op, candidates] : staged.lowerings_) {
    auto existing = lowerings_.find(op);
    if (existing == lowerings_.end())
      continue;
    for (const auto &entry : candidates)
      for (const auto &other : existing->second)
        if (other.spec.priority == entry.spec.priority)
          conflicts.push_back(conflict(loweringWhat(entry.spec), other.from, entry.from));
  }
  for (const auto &entry : staged.evaluators_)
    for (const auto &other : evaluators_)
      if (other.spec.name == entry.spec.name)
        conflicts.push_back(conflict("evaluator '" + entry.spec.name + "'", other.from, entry.from));
  std::vector<OpKey> new_schemas;
  for (const auto &[key, from] : staged.schema_providers_) {
    auto provider = schema_providers_.find(key);
    if (provider == schema_providers_.end()) {
      new_schemas.push_back(key);
      continue;
    }
    if (schemas_.find(key)->str() != staged.schemas_.find(key)->str())
      conflicts.push_back(conflict("schema of '" + key.str() + "'", provider->second, from));
  }
  if (!conflicts.empty()) {
    std::string message;
    for (const auto &line : conflicts)
      message += (message.empty() ? "" : "\n") + line;
    throw Error(message);
  }

  for (const auto &[name, entry] : staged.passes_)
    passes_.emplace(name, entry);
  for (const auto &[name, entry] : staged.circle_passes_)
    circle_passes_.emplace(name, entry);
  for (const auto &[name, entry] : staged.quantizers_)
    quantizers_.emplace(name, entry);
  for (const auto &[name, entry] : staged.frontends_)
    frontends_.emplace(name, entry);
  for (const auto &[name, entry] : staged.runtimes_)
    runtimes_.emplace(name, entry);
  for (const auto &[name, entry] : staged.calibration_sources_)
    calibration_sources_.emplace(name, entry);
  for (const auto &[op, candidates] : staged.lowerings_)
    for (const auto &entry : candidates)
      insertLowering(lowerings_[op], entry);
  for (const auto &entry : staged.evaluators_)
    evaluators_.push_back(entry);
  for (const auto &[op, entry] : staged.type_rules_)
    type_rules_.emplace(op, entry);
  for (const auto &key : new_schemas) {
    table_schemas_.erase(key); // a plugin's definition replaces a table entry
    schemas_.add(staged.schemas_.findShared(key));
    schema_providers_.emplace(key, staged.schema_providers_.at(key));
  }
  for (const auto &key : staged.table_schemas_) {
    if (schema_providers_.count(key) != 0)
      continue; // a plugin's own definition wins
    schemas_.add(staged.schemas_.findShared(key));
    table_schemas_.insert(key);
  }
  for (const auto &entry : staged.schemaless_ops_)
    schemaless_ops_.insert(entry);
  op_references_.insert(op_references_.end(), staged.op_references_.begin(), staged.op_references_.end());
}

} // namespace tico
