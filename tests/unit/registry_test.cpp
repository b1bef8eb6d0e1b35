// Registry: lookups, duplicate detection naming both providers, lowering priorities, schemas,
// and the all-or-nothing merge the loader relies on.
#include "tico/circle/circle_pass.h"
#include "tico/lowering/lowering.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace tico {
namespace {

const Provenance kStd{"tico-std", "0.1.0", "/path/a.so"};
const Provenance kAcme{"acme", "1.0", "/path/b.so"};

class KeepGraphPass : public Pass {
public:
  bool run(Graph &, PassContext &) override { return false; }
};

class KeepModelPass : public CirclePass {
public:
  bool run(CircleModel &, PassContext &) override { return false; }
};

class NoOpQuantizer : public Quantizer {
public:
  void prepare(const Graph &, CalibrationPlan &, QuantizeContext &) override {}
  bool convert(Graph &, QuantizeContext &) override { return false; }
};

class AliasLowering : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    emit.alias(node.output(0), emit.tensor(node.input(0)));
  }
};

PassSpec passSpec(const std::string &name, std::vector<OptionSpec> options = {}) {
  return {name, "test pass", std::move(options),
          [](const Options &) { return std::make_unique<KeepGraphPass>(); }};
}

CirclePassSpec circlePassSpec(const std::string &name) {
  return {name, "test Circle pass", {},
          [](const Options &) { return std::make_unique<KeepModelPass>(); }};
}

QuantizerSpec quantizerSpec(const std::string &name) {
  return {name, "test quantizer", {},
          [](const Options &) { return std::make_unique<NoOpQuantizer>(); }};
}

FrontendSpec frontendSpec(const std::string &name) {
  return {name, "test frontend", {".x"}, nullptr, []() -> std::unique_ptr<Frontend> {
            return nullptr;
          }};
}

EvaluatorSpec evaluatorSpec(const std::string &name) {
  return {name, "test evaluator", []() -> std::shared_ptr<const Evaluator> { return nullptr; }};
}

LoweringSpec loweringSpec(const OpKey &op, int priority, const std::string &summary = "lowering") {
  return {op, summary, priority, std::make_shared<AliasLowering>()};
}

std::string errorOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ProvenanceTest, StrNamesPluginVersionAndPath) {
  EXPECT_EQ(kStd.str(), "tico-std 0.1.0 (/path/a.so)");
  EXPECT_EQ((Provenance{"builtin", "", "<builtin>"}).str(), "builtin (<builtin>)");
  EXPECT_EQ((Provenance{"x", "2", ""}).str(), "x 2");
}

TEST(RegistryTest, FindsWhatWasAddedWithProvenance) {
  Registry registry;
  registry.addPass(passSpec("remove-nop"), kStd);
  registry.addCirclePass(circlePassSpec("remove-dead-tensors"), kStd);
  registry.addQuantizer(quantizerSpec("minmax-ptq"), kAcme);
  registry.addFrontend(frontendSpec("pt2"), kStd);

  ASSERT_NE(registry.findPass("remove-nop"), nullptr);
  EXPECT_EQ(registry.findPass("remove-nop")->from.str(), kStd.str());
  EXPECT_EQ(registry.findPass("remove-nop")->spec.summary, "test pass");
  EXPECT_EQ(registry.findPass("remove-no"), nullptr);
  ASSERT_NE(registry.findCirclePass("remove-dead-tensors"), nullptr);
  EXPECT_EQ(registry.findCirclePass("remove-nop"), nullptr);
  ASSERT_NE(registry.findQuantizer("minmax-ptq"), nullptr);
  EXPECT_EQ(registry.findQuantizer("minmax-ptq")->from.plugin, "acme");
  ASSERT_NE(registry.findFrontend("pt2"), nullptr);
  EXPECT_EQ(registry.findFrontend("pt2")->spec.extensions, std::vector<std::string>{".x"});
}

TEST(RegistryTest, NameListsAreSorted) {
  Registry registry;
  registry.addPass(passSpec("b-pass"), kStd);
  registry.addPass(passSpec("a-pass"), kStd);
  registry.addCirclePass(circlePassSpec("z"), kStd);
  registry.addQuantizer(quantizerSpec("gptq"), kStd);
  EXPECT_EQ(registry.passNames(), (std::vector<std::string>{"a-pass", "b-pass"}));
  EXPECT_EQ(registry.circlePassNames(), std::vector<std::string>{"z"});
  EXPECT_EQ(registry.quantizerNames(), std::vector<std::string>{"gptq"});
}

TEST(RegistryTest, DuplicatePassNamesBothProviders) {
  Registry registry;
  registry.addPass(passSpec("remove-nop"), kStd);
  EXPECT_EQ(errorOf([&] { registry.addPass(passSpec("remove-nop"), kAcme); }),
            "pass 'remove-nop' is registered by 'tico-std 0.1.0 (/path/a.so)' and "
            "'acme 1.0 (/path/b.so)'");
  EXPECT_EQ(registry.findPass("remove-nop")->from.plugin, "tico-std");
}

TEST(RegistryTest, DuplicatesOfEveryKindAreErrors) {
  Registry registry;
  registry.addCirclePass(circlePassSpec("fold"), kStd);
  registry.addQuantizer(quantizerSpec("gptq"), kStd);
  registry.addFrontend(frontendSpec("pt2"), kStd);
  registry.addEvaluator(evaluatorSpec("libtorch"), kStd);
  EXPECT_EQ(errorOf([&] { registry.addCirclePass(circlePassSpec("fold"), kAcme); }),
            "Circle pass 'fold' is registered by '" + kStd.str() + "' and '" + kAcme.str() + "'");
  EXPECT_EQ(errorOf([&] { registry.addQuantizer(quantizerSpec("gptq"), kAcme); }),
            "quantizer 'gptq' is registered by '" + kStd.str() + "' and '" + kAcme.str() + "'");
  EXPECT_EQ(errorOf([&] { registry.addFrontend(frontendSpec("pt2"), kAcme); }),
            "frontend 'pt2' is registered by '" + kStd.str() + "' and '" + kAcme.str() + "'");
  EXPECT_EQ(errorOf([&] { registry.addEvaluator(evaluatorSpec("libtorch"), kAcme); }),
            "evaluator 'libtorch' is registered by '" + kStd.str() + "' and '" + kAcme.str() + "'");
}

TEST(RegistryTest, PassAndCirclePassMayShareAName) {
  Registry registry;
  registry.addPass(passSpec("fold-constants"), kStd);
  EXPECT_NO_THROW(registry.addCirclePass(circlePassSpec("fold-constants"), kStd));
}

TEST(RegistryTest, RejectsIncompleteSpecs) {
  Registry registry;
  PassSpec no_factory = passSpec("no-factory");
  no_factory.create = nullptr;
  EXPECT_NE(errorOf([&] { registry.addPass(no_factory, kStd); }).find("has no factory function"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { registry.addPass(passSpec(""), kStd); }).find("without a name"),
            std::string::npos);
  LoweringSpec empty{OpKey("aten", "relu"), "x", 0, nullptr};
  EXPECT_NE(errorOf([&] { registry.addLowering(empty, kStd); }).find("has no implementation"),
            std::string::npos);
}

TEST(RegistryTest, NamesUsedInManifestsMustBeWritableThere) {
  Registry registry;
  EXPECT_EQ(errorOf([&] { registry.addPass(passSpec("fold constants"), kStd); }),
            "pass name 'fold constants' (from 'tico-std 0.1.0 (/path/a.so)') is invalid: use "
            "letters, digits, '-', '_' and '.'");
  EXPECT_THROW(registry.addQuantizer(quantizerSpec("gptq{4}"), kStd), Error);
  EXPECT_THROW(registry.addCirclePass(circlePassSpec("a,b"), kStd), Error);
  EXPECT_NO_THROW(registry.addPass(passSpec("acme.tile_for-npu2"), kStd));
}

TEST(RegistryTest, RejectsBadOptionDeclarations) {
  Registry registry;
  std::string wrong_default = errorOf([&] {
    registry.addPass(passSpec("p", {{"flag", OptionType::Int, true, "help"}}), kStd);
  });
  EXPECT_NE(wrong_default.find("declares option 'flag' as int but its default is true"),
            std::string::npos)
      << wrong_default;
  std::string twice = errorOf([&] {
    registry.addPass(passSpec("q", {{"a", OptionType::Bool, false, ""}, {"a", OptionType::Bool, true, ""}}),
                     kStd);
  });
  EXPECT_NE(twice.find("declares option 'a' twice"), std::string::npos) << twice;
  // An integer default for a float option is widened, as values from manifests are.
  EXPECT_NO_THROW(
      registry.addPass(passSpec("r", {{"eps", OptionType::Float, int64_t{1}, ""}}), kStd));
}

TEST(RegistryTest, LoweringsOrderedByPriorityAndConflictOnEqualPriority) {
  Registry registry;
  OpKey relu("aten", "relu");
  registry.addLowering(loweringSpec(relu, 0, "generic"), kStd);
  registry.addLowering(loweringSpec(relu, 10, "fast"), kAcme);
  registry.addLowering(loweringSpec(relu, 5, "medium"), kAcme);
  auto found = registry.findLowerings(relu);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0]->spec.summary, "fast");
  EXPECT_EQ(found[1]->spec.summary, "medium");
  EXPECT_EQ(found[2]->spec.summary, "generic");
  EXPECT_EQ(found[2]->from.plugin, "tico-std");
  EXPECT_TRUE(registry.findLowerings(OpKey("aten", "gelu")).empty());

  EXPECT_EQ(errorOf([&] { registry.addLowering(loweringSpec(relu, 5), kStd); }),
            "lowering of 'aten::relu.default' at priority 5 is registered by "
            "'acme 1.0 (/path/b.so)' and 'tico-std 0.1.0 (/path/a.so)'");
  EXPECT_EQ(registry.findLowerings(relu).size(), 3u);
}

TEST(RegistryTest, EvaluatorIsTheFirstRegistered) {
  Registry registry;
  EXPECT_EQ(registry.evaluator(), nullptr);
  registry.addEvaluator(evaluatorSpec("first"), kStd);
  registry.addEvaluator(evaluatorSpec("second"), kAcme);
  ASSERT_NE(registry.evaluator(), nullptr);
  EXPECT_EQ(registry.evaluator()->spec.name, "first");
  EXPECT_EQ(registry.evaluators().size(), 2u);
}

TEST(RegistryTest, SchemasStartEmpty) {
  // The core bundles no op table: the PyTorch schemas come from the .pt2 frontend plugin.
  Registry registry;
  EXPECT_EQ(registry.schemas().size(), 0u);
  EXPECT_FALSE(registry.knowsOp(OpKey("aten", "add", "Tensor")));
}

TEST(RegistryTest, AddOpSchemaExtendsOnlyThisRegistry) {
  Registry registry;
  OpKey key("acme", "tile", "default");
  registry.addOpSchema("acme::tile(Tensor self, int size=64) -> Tensor", kAcme);
  const OpSchema *schema = registry.schemas().find(key);
  ASSERT_NE(schema, nullptr);
  ASSERT_EQ(schema->arguments.size(), 2u);
  EXPECT_EQ(schema->arguments[1].name, "size");
  EXPECT_EQ(Registry().schemas().find(key), nullptr);
}

TEST(RegistryTest, SchemaOfAnotherPluginCannotBeReplaced) {
  Registry registry;
  registry.addOpSchema("acme::tile(Tensor self, int size=64) -> Tensor", kAcme);
  EXPECT_EQ(errorOf([&] { registry.addOpSchema("acme::tile(Tensor self) -> Tensor", kStd); }),
            "schema of 'acme::tile.default' is registered by 'acme 1.0 (/path/b.so)' and "
            "'tico-std 0.1.0 (/path/a.so)'");
  EXPECT_EQ(registry.schemas().find(OpKey("acme", "tile"))->arguments.size(), 2u);
  // The same definition from a second plugin is not a conflict (both use the op).
  EXPECT_NO_THROW(registry.addOpSchema("acme::tile(Tensor self, int size=64) -> Tensor", kStd));
}

const std::string_view kTable[] = {
    "aten::relu(Tensor self) -> Tensor",
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::odd(Tensor self -> Tensor", // does not parse: left out
};

TEST(RegistryTest, TableOpWhoseSchemaDoesNotParseIsKnownWithoutSchema) {
  Registry registry;
  registry.addOpSchemaTable(kTable, std::size(kTable), kStd);
  EXPECT_EQ(registry.schemas().size(), 2u);
  EXPECT_TRUE(registry.knowsOp(OpKey("aten", "add", "Tensor")));
  EXPECT_EQ(registry.schemas().find(OpKey("aten", "odd")), nullptr);
  EXPECT_TRUE(registry.knowsOp(OpKey("aten", "odd")));
  EXPECT_FALSE(registry.knowsOp(OpKey("aten", "even")));
}

TEST(RegistryTest, PluginMayRedefineATableSchema) {
  Registry registry;
  OpKey key("aten", "relu", "default");
  registry.addOpSchemaTable(kTable, std::size(kTable), kStd);
  registry.addOpSchema("aten::relu(Tensor self, bool extra=False) -> Tensor", kAcme);
  EXPECT_EQ(registry.schemas().find(key)->arguments.size(), 2u);
}

TEST(RegistryTest, TableNeverReplacesAPluginSchemaWhicheverLoadsFirst) {
  OpKey key("aten", "relu", "default");
  // Plugins load in file-name order, so the table's plugin may come after the redefinition.
  Registry table_last, staged_plugin, staged_table;
  staged_plugin.addOpSchema("aten::relu(Tensor self, bool extra=False) -> Tensor", kAcme);
  staged_table.addOpSchemaTable(kTable, std::size(kTable), kStd);
  table_last.merge(staged_plugin);
  table_last.merge(staged_table);
  EXPECT_EQ(table_last.schemas().find(key)->arguments.size(), 2u);
  EXPECT_NE(table_last.schemas().find(OpKey("aten", "add", "Tensor")), nullptr);

  Registry table_first;
  table_first.merge(staged_table);
  table_first.merge(staged_plugin);
  EXPECT_EQ(table_first.schemas().find(key)->arguments.size(), 2u);
}

TEST(RegistryTest, UnknownOpKeysAreReportedWithPluginAndHint) {
  Registry registry;
  registry.addOpSchemaTable(kTable, std::size(kTable), kStd);
  registry.addSchemalessOp(OpKey("_operator", "add"), kStd);
  registry.addLowering(loweringSpec(OpKey("aten", "relu"), 0), kStd);
  registry.addLowering(loweringSpec(OpKey("_operator", "add"), 0), kStd);
  EXPECT_NO_THROW(registry.checkOpReferences());

  registry.addLowering(loweringSpec(OpKey("aten", "rleu"), 0), kAcme);
  registry.addOpReference(OpKey("aten", "add", "Tensr"), "a decomposition rule", kAcme);
  EXPECT_EQ(errorOf([&] { registry.checkOpReferences(); }),
            "unknown op keys (no loaded plugin registers a schema for them):\n"
            "  plugin 'acme 1.0 (/path/b.so)' names unknown op 'aten::rleu.default' in a lowering "
            "(did you mean 'aten::relu.default'?)\n"
            "  plugin 'acme 1.0 (/path/b.so)' names unknown op 'aten::add.Tensr' in a decomposition rule "
            "(did you mean 'aten::add.Tensor'?)");
}

TEST(RegistryTest, UnknownOpKeysWithoutAnyTableSayWhichPluginIsMissing) {
  Registry registry;
  registry.addLowering(loweringSpec(OpKey("aten", "relu"), 0), kStd);
  std::string message = errorOf([&] { registry.checkOpReferences(); });
  EXPECT_NE(message.find("names unknown op 'aten::relu.default' in a lowering"), std::string::npos) << message;
  EXPECT_NE(message.find("the .pt2 frontend plugin (libtico-pt2), which is not loaded"), std::string::npos)
      << message;
}

TEST(RegistryTest, MalformedSchemaNamesTheProvider) {
  Registry registry;
  std::string message = errorOf([&] { registry.addOpSchema("not a schema ((", kAcme); });
  EXPECT_NE(message.find("invalid op schema from 'acme 1.0 (/path/b.so)'"), std::string::npos)
      << message;
}

TEST(RegistryTest, MergeAddsEverything) {
  Registry registry, staged;
  registry.addLowering(loweringSpec(OpKey("aten", "relu"), 0, "generic"), kStd);
  staged.addPass(passSpec("acme.tile"), kAcme);
  staged.addCirclePass(circlePassSpec("acme.fuse"), kAcme);
  staged.addQuantizer(quantizerSpec("acme-q"), kAcme);
  staged.addFrontend(frontendSpec("acme-fmt"), kAcme);
  staged.addEvaluator(evaluatorSpec("acme-eval"), kAcme);
  staged.addLowering(loweringSpec(OpKey("aten", "relu"), 7, "npu"), kAcme);
  staged.addOpSchema("acme::tile(Tensor self) -> Tensor", kAcme);

  registry.merge(staged);
  EXPECT_NE(registry.findPass("acme.tile"), nullptr);
  EXPECT_NE(registry.findCirclePass("acme.fuse"), nullptr);
  EXPECT_NE(registry.findQuantizer("acme-q"), nullptr);
  EXPECT_NE(registry.findFrontend("acme-fmt"), nullptr);
  ASSERT_NE(registry.evaluator(), nullptr);
  EXPECT_EQ(registry.evaluator()->spec.name, "acme-eval");
  auto lowerings = registry.findLowerings(OpKey("aten", "relu"));
  ASSERT_EQ(lowerings.size(), 2u);
  EXPECT_EQ(lowerings[0]->spec.summary, "npu");
  EXPECT_NE(registry.schemas().find(OpKey("acme", "tile")), nullptr);
  // The merged schema keeps its provider: another plugin cannot replace it afterwards.
  EXPECT_THROW(registry.addOpSchema("acme::tile(Tensor a, Tensor b) -> Tensor", kStd), Error);
}

TEST(RegistryTest, MergeListsEveryConflictAndChangesNothing) {
  Registry registry, staged;
  registry.addPass(passSpec("remove-nop"), kStd);
  registry.addLowering(loweringSpec(OpKey("aten", "relu"), 0), kStd);
  registry.addOpSchema("acme::tile(Tensor self) -> Tensor", kStd);

  staged.addPass(passSpec("acme.only-mine"), kAcme);
  staged.addPass(passSpec("remove-nop"), kAcme);
  staged.addLowering(loweringSpec(OpKey("aten", "relu"), 0), kAcme);
  staged.addOpSchema("acme::tile(Tensor self, int n) -> Tensor", kAcme);

  std::string message = errorOf([&] { registry.merge(staged); });
  EXPECT_NE(message.find("pass 'remove-nop' is registered by '" + kStd.str() + "' and '" +
                         kAcme.str() + "'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("lowering of 'aten::relu.default' at priority 0 is registered by '" +
                         kStd.str() + "' and '" + kAcme.str() + "'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("schema of 'acme::tile.default' is registered by '" + kStd.str() +
                         "' and '" + kAcme.str() + "'"),
            std::string::npos)
      << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2);

  EXPECT_EQ(registry.findPass("acme.only-mine"), nullptr);
  EXPECT_EQ(registry.findPass("remove-nop")->from.plugin, "tico-std");
  EXPECT_EQ(registry.findLowerings(OpKey("aten", "relu")).size(), 1u);
  EXPECT_EQ(registry.schemas().find(OpKey("acme", "tile"))->arguments.size(), 1u);
}

} // namespace
} // namespace tico
