// The YAML pipeline manifest: parsing (every form a pass entry can take), located errors,
// validation against a registry, canonical printing and round trip, and stage conditions.
#include "tico/circle/circle_pass.h"
#include "tico/ir/graph.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <chrono>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <unistd.h>

namespace tico {
namespace {

Manifest parse(const std::string &text) { return Manifest::parse(text, "p.yaml"); }

std::string parseError(const std::string &text) {
  try {
    parse(text);
  } catch (const LocatedError &e) {
    return e.what();
  } catch (const Error &e) {
    return std::string("<not located> ") + e.what();
  }
  return "<no error>";
}

const std::string kHeader = "schema: tico.pipeline/v1\n";

// ---- parsing --------------------------------------------------------------------------------

const std::string kExample = R"(schema: tico.pipeline/v1
config:
  convert_rhs_const_mm_to_fc: false
  legalize_causal_mask_value: true
verify_each: true
stages:
  - name: legalize
    strategy: until_no_change
    passes:
      - remove-nop
      - name: convert-matmul-to-linear
        options: {lhs_const: false}
  - name: quantized
    when: has-quant-ops
    passes: [fold-quant-ops]
  - name: circle
    kind: circle
    strategy: once
    when: has-op(aten.add.Tensor)
    passes: [remove-dead-tensors]
)";

TEST(ManifestParseTest, ReadsTheDocumentedExample) {
  Manifest m = parse(kExample);
  EXPECT_EQ(m.config.find("convert_rhs_const_mm_to_fc"), std::optional<bool>(false));
  EXPECT_EQ(m.config.find("legalize_causal_mask_value"), std::optional<bool>(true));
  EXPECT_EQ(m.config.find("remove_constant_input"), std::nullopt);
  EXPECT_TRUE(m.verify_each);
  ASSERT_EQ(m.stages.size(), 3u);

  const Stage &legalize = m.stages[0];
  EXPECT_EQ(legalize.name, "legalize");
  EXPECT_EQ(legalize.kind, StageKind::Passes);
  EXPECT_EQ(legalize.strategy, PassStrategy::UntilNoChange);
  EXPECT_EQ(legalize.when.kind, StageCondition::Kind::Always);
  EXPECT_EQ(legalize.where.str(), "p.yaml:7:11");
  ASSERT_EQ(legalize.passes.size(), 2u);
  EXPECT_EQ(legalize.passes[0].name, "remove-nop");
  EXPECT_TRUE(legalize.passes[0].options.empty());
  EXPECT_EQ(legalize.passes[0].where.str(), "p.yaml:10:9");
  EXPECT_EQ(legalize.passes[1].name, "convert-matmul-to-linear");
  EXPECT_EQ(legalize.passes[1].where.str(), "p.yaml:11:15");
  EXPECT_EQ(legalize.passes[1].options.at("lhs_const"), OptionValue(false));
  EXPECT_EQ(legalize.passes[1].option_locations.at("lhs_const").str(), "p.yaml:12:30");

  const Stage &quantized = m.stages[1];
  EXPECT_EQ(quantized.strategy, PassStrategy::Restart);
  EXPECT_EQ(quantized.when.kind, StageCondition::Kind::HasQuantOps);
  ASSERT_EQ(quantized.passes.size(), 1u);
  EXPECT_EQ(quantized.passes[0].name, "fold-quant-ops");

  const Stage &circle = m.stages[2];
  EXPECT_EQ(circle.kind, StageKind::Circle);
  EXPECT_EQ(circle.strategy, PassStrategy::Once);
  EXPECT_EQ(circle.when.kind, StageCondition::Kind::HasOp);
  EXPECT_EQ(circle.when.op, "aten::add.Tensor"); // canonical spelling
  EXPECT_EQ(circle.when.str(), "has-op(aten::add.Tensor)");
}

TEST(ManifestParseTest, Defaults) {
  Manifest m = parse(kHeader + "stages:\n  - name: s\n    passes: [a]\n");
  ASSERT_EQ(m.stages.size(), 1u);
  EXPECT_EQ(m.stages[0].kind, StageKind::Passes);
  EXPECT_EQ(m.stages[0].strategy, PassStrategy::Restart);
  EXPECT_EQ(m.stages[0].when.kind, StageCondition::Kind::Always);
  EXPECT_FALSE(m.verify_each);
  EXPECT_TRUE(m.config.empty());
  EXPECT_TRUE(m.path.empty());

  EXPECT_TRUE(parse(kHeader).stages.empty());
  EXPECT_TRUE(parse(kHeader + "stages:\n  - name: empty\n").stages[0].passes.empty());
}

TEST(ManifestParseTest, CompactFormTypesItsValues) {
  Manifest m = parse(kHeader + R"(stages:
  - name: s
    passes:
      - fold{a=1,b=x y,c=[1,2],d=[a,"b"],e=1.5,f=true,g="12",h=-3,i=[]}
      - remove-nop, fold-constants{ limit = 4 }
)");
  const auto &passes = m.stages[0].passes;
  ASSERT_EQ(passes.size(), 3u);
  const auto &fold = passes[0];
  EXPECT_EQ(fold.name, "fold");
  EXPECT_EQ(fold.options.at("a"), OptionValue(int64_t{1}));
  EXPECT_EQ(fold.options.at("b"), OptionValue(std::string("x y")));
  EXPECT_EQ(fold.options.at("c"), OptionValue(std::vector<int64_t>{1, 2}));
  EXPECT_EQ(fold.options.at("d"), OptionValue(std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fold.options.at("e"), OptionValue(1.5));
  EXPECT_EQ(fold.options.at("f"), OptionValue(true));
  EXPECT_EQ(fold.options.at("g"), OptionValue(std::string("12")));
  EXPECT_EQ(fold.options.at("h"), OptionValue(int64_t{-3}));
  EXPECT_EQ(fold.options.at("i"), OptionValue(std::vector<int64_t>{}));
  EXPECT_EQ(fold.option_locations.at("c").str(), "p.yaml:5:26");
  // Several passes in one entry, each with its own column.
  EXPECT_EQ(passes[1].name, "remove-nop");
  EXPECT_EQ(passes[1].where.str(), "p.yaml:6:9");
  EXPECT_EQ(passes[2].name, "fold-constants");
  EXPECT_EQ(passes[2].where.str(), "p.yaml:6:21");
  EXPECT_EQ(passes[2].options.at("limit"), OptionValue(int64_t{4}));
}

TEST(ManifestParseTest, MapFormWithOptionsAndDisabledEntries) {
  Manifest m = parse(kHeader + R"(stages:
  - name: s
    passes:
      - name: dropped
        enabled: false
        options: {anything: 1}
      - name: kept
        enabled: true
        options:
          n: 3
          s: "3"
          l: [x, 2]
          f: 2.0
          neg: -0.5e-3
          inf: -.inf
)");
  const auto &passes = m.stages[0].passes;
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].name, "kept");
  const auto &options = passes[0].options;
  EXPECT_EQ(options.at("n"), OptionValue(int64_t{3}));
  EXPECT_EQ(options.at("s"), OptionValue(std::string("3")));
  EXPECT_EQ(options.at("l"), OptionValue(std::vector<std::string>{"x", "2"}));
  EXPECT_EQ(options.at("f"), OptionValue(2.0));
  EXPECT_EQ(options.at("neg"), OptionValue(-0.5e-3));
  EXPECT_EQ(options.at("inf"), OptionValue(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(passes[0].option_locations.at("n").str(), "p.yaml:11:14");
}

// ---- structural errors, each with file:line:column --------------------------------------------

TEST(ManifestErrorTest, UnknownKeyInStageWithHint) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: legalize\n    stragegy: once\n"),
            "p.yaml:4:5: error: unknown key 'stragegy' in stage (did you mean 'strategy'?)");
}

TEST(ManifestErrorTest, UnknownKeysElsewhere) {
  EXPECT_EQ(parseError(kHeader + "stage: []\n"),
            "p.yaml:2:1: error: unknown key 'stage' in manifest (did you mean 'stages'?)");
  EXPECT_EQ(parseError(kHeader + "config:\n  convert_rhs_const_mm_to_f: true\n"),
            "p.yaml:3:3: error: unknown key 'convert_rhs_const_mm_to_f' in config (did you mean "
            "'convert_rhs_const_mm_to_fc'?)");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    passes:\n      - name: a\n        optons: {}\n"),
            "p.yaml:6:9: error: unknown key 'optons' in pass entry (did you mean 'options'?)");
  EXPECT_EQ(parseError(kHeader + "verify_each: true\nverify_each: false\n"),
            "p.yaml:3:1: error: duplicate key 'verify_each' in manifest");
}

TEST(ManifestErrorTest, SchemaIsRequiredAndVersioned) {
  EXPECT_EQ(parseError("stages: []\n"),
            "p.yaml:1:1: error: missing required key 'schema' (expected 'schema: tico.pipeline/v1')");
  EXPECT_EQ(parseError("schema: tico.pipeline/v2\n"),
            "p.yaml:1:9: error: unsupported manifest schema 'tico.pipeline/v2'; this tico reads "
            "'tico.pipeline/v1'");
  EXPECT_EQ(parseError(""),
            "p.yaml:1:1: error: the manifest is empty; it needs at least 'schema: tico.pipeline/v1'");
  EXPECT_EQ(parseError("- a\n- b\n"),
            "p.yaml:1:1: error: a pipeline manifest must be a YAML map with the keys schema, "
            "config, calibration, verify_each and stages");
}

TEST(ManifestErrorTest, BadStrategyKindAndCondition) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    strategy: fastest\n"),
            "p.yaml:4:15: error: unknown strategy 'fastest'; expected restart, until_no_change "
            "or once");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    strategy: restar\n"),
            "p.yaml:4:15: error: unknown strategy 'restar'; expected restart, until_no_change "
            "or once (did you mean 'restart'?)");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    kind: circel\n"),
            "p.yaml:4:11: error: unknown stage kind 'circel'; expected passes, quantize, lower or circle "
            "(did you mean 'circle'?)");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    when: has-quant-op\n"),
            "p.yaml:4:11: error: unknown condition 'has-quant-op'; expected always, has-quant-ops "
            "or has-op(<op key>) (did you mean 'has-quant-ops'?)");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    when: sometimes\n"),
            "p.yaml:4:11: error: unknown condition 'sometimes'; expected always, has-quant-ops or "
            "has-op(<op key>)");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    when: has-op(relu)\n"),
            "p.yaml:4:11: error: 'relu' in condition 'has-op(relu)' is not an op name (expected "
            "e.g. has-op(aten::add.Tensor))");
}

TEST(ManifestErrorTest, DuplicateStageName) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: a\n  - name: b\n  - name: a\n"),
            "p.yaml:5:11: error: duplicate stage name 'a' (first defined at p.yaml:3:11)");
}

TEST(ManifestErrorTest, StageShape) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - kind: circle\n"),
            "p.yaml:3:5: error: stage has no 'name'");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    passes: remove-nop\n"),
            "p.yaml:4:13: error: 'passes' of stage 's' must be a list");
  EXPECT_EQ(parseError(kHeader + "stages: legalize\n"),
            "p.yaml:2:9: error: 'stages' must be a list of stages");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - just-a-name\n"),
            "p.yaml:3:5: error: a stage must be a map with a 'name' and a list of 'passes'");
}

TEST(ManifestErrorTest, BooleansMustBeTrueOrFalse) {
  EXPECT_EQ(parseError(kHeader + "config:\n  remove_constant_input: yes\n"),
            "p.yaml:3:26: error: 'remove_constant_input' must be true or false, got 'yes'");
  EXPECT_EQ(parseError(kHeader + "verify_each: \"true\"\n"),
            "p.yaml:2:14: error: 'verify_each' must be true or false, got 'true'");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    passes:\n      - name: a\n        enabled: 1\n"),
            "p.yaml:6:18: error: 'enabled' must be true or false, got '1'");
}

TEST(ManifestErrorTest, BadOptionValues) {
  const std::string prefix = kHeader + "stages:\n  - name: s\n    passes:\n      - name: a\n        options:\n";
  EXPECT_EQ(parseError(prefix + "          x:\n"), "p.yaml:7:11: error: option 'x' has no value");
  EXPECT_EQ(parseError(prefix + "          x: {y: 1}\n"),
            "p.yaml:7:14: error: option 'x' must be a value or a list, not a map");
  EXPECT_EQ(parseError(prefix + "          x: [[1]]\n"),
            "p.yaml:7:15: error: elements of option 'x' must be single values");
  EXPECT_EQ(parseError(prefix + "          x: 1\n          x: 2\n"),
            "p.yaml:8:11: error: duplicate option 'x' in pass 'a'");
}

TEST(ManifestErrorTest, CompactFormSyntax) {
  const std::string prefix = kHeader + "stages:\n  - name: s\n    passes:\n      - ";
  EXPECT_EQ(parseError(prefix + "fold{a=}\n"),
            "p.yaml:5:16: error: option 'a' has no value in 'fold{a=}'");
  EXPECT_EQ(parseError(prefix + "fold{a}\n"),
            "p.yaml:5:15: error: expected '=' after option 'a' in 'fold{a}'");
  EXPECT_EQ(parseError(prefix + "fold{a=1\n"),
            "p.yaml:5:17: error: expected ',' or '}' after option 'a' in 'fold{a=1'");
  EXPECT_EQ(parseError(prefix + "fold{a=1,a=2}\n"),
            "p.yaml:5:18: error: option 'a' is given twice in 'fold{a=1,a=2}'");
  EXPECT_EQ(parseError(prefix + "fold x\n"),
            "p.yaml:5:14: error: unexpected 'x' after pass 'fold' (expected ',' or '{') in 'fold x'");
  EXPECT_EQ(parseError(prefix + "a,,b\n"), "p.yaml:5:11: error: expected a pass name in 'a,,b'");
}

TEST(ManifestErrorTest, InvalidYamlIsLocated) {
  std::string message = parseError(kHeader + "stages: [a,\n");
  EXPECT_EQ(message.rfind("p.yaml:", 0), 0u) << message;
  EXPECT_NE(message.find("error: invalid YAML: "), std::string::npos) << message;
}

// Issue 31: a 466-byte "billion laughs" (nine levels of ten aliases) took > 20 s per level as a
// --pipeline or --quant; it is refused at once, and a manifest with a few aliases still reads.
TEST(ManifestErrorTest, AliasExpansionIsBounded) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 9; ++level) {
    const std::string prev = "*a" + std::to_string(level - 1);
    bomb += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [" + prev;
    for (int i = 1; i < 10; ++i)
      bomb += ", " + prev;
    bomb += "]\n";
  }
  const auto started = std::chrono::steady_clock::now();
  const std::string message = parseError(kHeader + bomb + "stages: []\n");
  EXPECT_NE(message.find("p.yaml:1:1: error: the document expands to more than 100000 YAML nodes"), std::string::npos)
      << message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  const Manifest m = Manifest::parse(kHeader + "stages:\n  - &s {name: a, passes: [remove-nop]}\n"
                                               "  - {name: b, passes: [remove-nop]}\n", "p.yaml");
  EXPECT_EQ(m.stages.size(), 2u);
}

// ---- validation against a registry --------------------------------------------------------------

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

Registry testRegistry() {
  Registry registry;
  Provenance from{"tico-std", "0.1.0", "/lib/libtico-std.so"};
  auto pass = [&](const std::string &name, std::vector<OptionSpec> options) {
    registry.addPass({name, "", std::move(options),
                      [](const Options &) { return std::make_unique<KeepGraphPass>(); }},
                     from);
  };
  pass("remove-nop", {});
  pass("convert-matmul-to-linear", {{"lhs_const", OptionType::Bool, false, ""},
                                    {"rhs_const", OptionType::Bool, true, ""}});
  pass("fold-quant-ops", {});
  registry.addCirclePass({"remove-dead-tensors", "", {},
                          [](const Options &) { return std::make_unique<KeepModelPass>(); }},
                         from);
  registry.addQuantizer({"minmax-ptq", "", {{"bits", OptionType::Int, int64_t{8}, ""}},
                         [](const Options &) { return std::make_unique<NoOpQuantizer>(); }},
                        from);
  return registry;
}

TEST(ManifestValidateTest, ValidManifestPasses) {
  EXPECT_NO_THROW(parse(kExample).validate(testRegistry()));
}

TEST(ManifestValidateTest, ReportsEveryProblemAtOnce) {
  Manifest m = parse(kHeader + R"(stages:
  - name: legalize
    passes:
      - remove-nopp
      - name: convert-matmul-to-linear
        options: {lhs_const: 3, lhs: true}
      - remove-dead-tensors
  - name: quant
    kind: quantize
    passes:
      - minmax-ptq{bits=x}
)");
  const std::string valid =
      "valid: lhs_const (bool, default false), rhs_const (bool, default true)";
  try {
    m.validate(testRegistry());
    FAIL() << "expected a validation error";
  } catch (const LocatedError &e) {
    EXPECT_EQ(e.where().str(), "p.yaml:5:9");
    EXPECT_EQ(std::string(e.what()),
              "p.yaml:5:9: error: unknown pass 'remove-nopp' in stage 'legalize' (did you mean "
              "'remove-nop'?)\n"
              "p.yaml:7:38: error: pass 'convert-matmul-to-linear' has no option 'lhs'; " +
                  valid +
                  "\n"
                  "p.yaml:7:30: error: pass 'convert-matmul-to-linear' option 'lhs_const' must be "
                  "bool, got int 3; " +
                  valid +
                  "\n"
                  "p.yaml:8:9: error: 'remove-dead-tensors' is a Circle pass; it cannot run in "
                  "stage 'legalize' (ATen IR); use a stage with 'kind: circle'\n"
                  "p.yaml:12:25: error: quantizer 'minmax-ptq' option 'bits' must be int, got "
                  "string \"x\"; valid: bits (int, default 8)");
  }
}

TEST(ManifestValidateTest, KindMismatchAndUnknownNamesPerKind) {
  Manifest m = parse(kHeader + R"(stages:
  - name: q
    kind: quantize
    passes: [gptq]
  - name: circle
    kind: circle
    passes: [remove-nop, remove-dead-tensor]
)");
  try {
    m.validate(testRegistry());
    FAIL() << "expected a validation error";
  } catch (const LocatedError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'remove-nop' is an ATen pass; it cannot run in stage 'circle' (Circle "
                           "IR); use a stage with 'kind: passes'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("unknown Circle pass 'remove-dead-tensor' in stage 'circle' (did you "
                           "mean 'remove-dead-tensors'?)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("unknown quantizer 'gptq' in stage 'q'"),
              std::string::npos)
        << message;
  }
}

TEST(ManifestValidateTest, IntegerForFloatOptionIsAccepted) {
  Registry registry;
  registry.addPass({"scale", "", {{"factor", OptionType::Float, 1.0, ""}},
                    [](const Options &) { return std::make_unique<KeepGraphPass>(); }},
                   Provenance{"p", "1", "x"});
  EXPECT_NO_THROW(parse(kHeader + "stages:\n  - name: s\n    passes: [\"scale{factor=2}\"]\n")
                      .validate(registry));
}

// ---- printing ----------------------------------------------------------------------------------

void expectEqualManifests(const Manifest &a, const Manifest &b) {
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.verify_each, b.verify_each);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    const Stage &x = a.stages[i], &y = b.stages[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind) << x.name;
    EXPECT_EQ(x.strategy, y.strategy) << x.name;
    EXPECT_EQ(x.when.kind, y.when.kind) << x.name;
    EXPECT_EQ(x.when.op, y.when.op) << x.name;
    EXPECT_EQ(x.options, y.options) << x.name;
    ASSERT_EQ(x.passes.size(), y.passes.size()) << x.name;
    for (std::size_t j = 0; j < x.passes.size(); ++j) {
      EXPECT_EQ(x.passes[j].name, y.passes[j].name);
      EXPECT_EQ(x.passes[j].options, y.passes[j].options) << x.passes[j].name;
    }
  }
}

PassInvocation invocation(std::string name, std::map<std::string, OptionValue> options = {}) {
  PassInvocation out;
  out.name = std::move(name);
  out.options = std::move(options);
  return out;
}

Manifest richManifest() {
  Manifest m;
  m.config.set("remove_constant_input", true);
  m.config.set("convert_rhs_const_mm_to_fc", false);
  m.verify_each = true;

  Stage legalize;
  legalize.name = "legalize";
  legalize.strategy = PassStrategy::UntilNoChange;
  legalize.passes.push_back(invocation("remove-nop"));
  legalize.passes.push_back(invocation(
      "convert-matmul-to-linear",
      {{"flag", true},
       {"half", 0.5},
       {"tiny", 1e-7},
       {"whole", 1.0},
       {"inf", std::numeric_limits<double>::infinity()},
       {"neg", int64_t{-3}},
       {"min", std::numeric_limits<int64_t>::min()},
       {"looks_bool", std::string("true")},
       {"looks_int", std::string("12")},
       {"yaml_chars", std::string("a: b # c, {d}")},
       {"empty", std::string("")},
       {"quote", std::string("say \"hi\"\n")},
       {"ints", std::vector<int64_t>{1, -2}},
       {"strings", std::vector<std::string>{"x", "1", ""}},
       {"none", std::vector<int64_t>{}}}));
  m.stages.push_back(legalize);

  Stage quant;
  quant.name = "quant";
  quant.kind = StageKind::Quantize;
  quant.strategy = PassStrategy::Once;
  quant.when.kind = StageCondition::Kind::HasQuantOps;
  quant.passes.push_back(invocation("minmax-ptq", {{"bits", int64_t{4}}}));
  m.stages.push_back(quant);

  Stage odd;
  odd.name = "null"; // would read back as "no value" if printed plainly
  m.stages.push_back(odd);

  Stage lower;
  lower.name = "lower";
  lower.kind = StageKind::Lower;
  lower.options = {{"remove_constant_input", true}};
  m.stages.push_back(lower);

  Stage circle;
  circle.name = "circle";
  circle.kind = StageKind::Circle;
  circle.when.kind = StageCondition::Kind::HasOp;
  circle.when.op = "aten::add.Tensor";
  circle.passes.push_back(invocation("remove-dead-tensors"));
  m.stages.push_back(circle);
  return m;
}

TEST(ManifestPrintTest, ParsePrintRoundTrip) {
  Manifest m = richManifest();
  std::string printed = m.print();
  Manifest back = parse(printed);
  expectEqualManifests(m, back);
  EXPECT_EQ(back.print(), printed);
}

TEST(ManifestPrintTest, ParsedExampleRoundTrips) {
  Manifest m = parse(kExample);
  Manifest back = parse(m.print());
  expectEqualManifests(m, back);
  EXPECT_EQ(back.print(), m.print());
}

TEST(ManifestPrintTest, CanonicalText) {
  Manifest m = parse(kHeader + R"(stages:
  - name: s
    passes:
      - remove-nop
      - fold{z=1,a="x",m=[1,2],f=0.5}
)");
  EXPECT_EQ(m.print(), R"(schema: tico.pipeline/v1
verify_each: false
stages:
  - name: s
    kind: passes
    strategy: restart
    when: always
    passes:
      - remove-nop
      - name: fold
        options:
          a: "x"
          f: 0.5
          m: [1, 2]
          z: 1
)");
  EXPECT_EQ(Manifest().print().find("stages: []"), Manifest().print().size() - 11);
}

// ---- files -------------------------------------------------------------------------------------

TEST(ManifestLoadTest, LoadSetsPathAndLocationsUseIt) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tico-manifest-test-" + std::to_string(::getpid()) + ".yaml"))
                         .string();
  std::ofstream(path) << kHeader << "stages:\n  - name: s\n    passes: [remove-nop]\n";
  Manifest m = Manifest::load(path);
  EXPECT_EQ(m.path, path);
  EXPECT_EQ(m.stages.at(0).passes.at(0).where.file, path);

  std::ofstream(path) << kHeader << "stages:\n  - name: s\n    stragegy: once\n";
  try {
    Manifest::load(path);
    FAIL() << "expected an error";
  } catch (const LocatedError &e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":4:5: error: unknown key 'stragegy'", 0), 0u)
        << e.what();
  }
  std::filesystem::remove(path);
}

TEST(ManifestLoadTest, MissingFile) {
  try {
    Manifest::load("/nonexistent/pipeline.yaml");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read pipeline manifest '/nonexistent/pipeline.yaml': No such file or "
              "directory");
  }
}

// ---- conditions --------------------------------------------------------------------------------

// input -> op1 -> op2 -> output, in a graph without schemas so any arguments do.
std::unique_ptr<Graph> chainGraph(const OpKey &first, const OpKey &second) {
  auto graph = std::make_unique<Graph>();
  Value *x = graph->addInput(InputKind::User, "x", DType::Float32, staticShape({2}));
  Node *a = graph->createNode(first, std::vector<Argument>{Argument::value(x)}, DType::Float32,
                              staticShape({2}));
  Node *b = graph->createNode(second, std::vector<Argument>{Argument::value(a->output())},
                              DType::Float32, staticShape({2}));
  graph->addOutput(GraphOutput{OutputKind::User, Argument::value(b->output()), ""});
  return graph;
}

StageCondition condition(const std::string &text) {
  Manifest m = parse(kHeader + "stages:\n  - name: s\n    when: " + text + "\n");
  return m.stages.at(0).when;
}

TEST(StageConditionTest, AlwaysHolds) {
  auto graph = chainGraph(OpKey("test_ns", "a"), OpKey("test_ns", "b"));
  EXPECT_TRUE(condition("always").holds(*graph));
  EXPECT_TRUE(StageCondition{}.holds(Graph()));
}

TEST(StageConditionTest, HasQuantOps) {
  StageCondition quant = condition("has-quant-ops");
  EXPECT_FALSE(quant.holds(*chainGraph(OpKey("test_ns", "a"), OpKey("test_ns", "b"))));
  EXPECT_TRUE(quant.holds(*chainGraph(OpKey("test_ns", "a"), OpKey("quantized_decomposed", "other"))));
  EXPECT_TRUE(quant.holds(*chainGraph(OpKey("test_ns", "my_fake_quant_op"), OpKey("test_ns", "b"))));
  EXPECT_TRUE(quant.holds(*chainGraph(OpKey("test_ns", "dequantize_x"), OpKey("test_ns", "b"))));
  EXPECT_FALSE(quant.holds(Graph()));
}

TEST(StageConditionTest, HasOpMatchesTheExactKey) {
  StageCondition has = condition("has-op(test_ns::b.default)");
  EXPECT_TRUE(has.holds(*chainGraph(OpKey("test_ns", "a"), OpKey("test_ns", "b"))));
  EXPECT_FALSE(has.holds(*chainGraph(OpKey("test_ns", "a"), OpKey("test_ns", "b", "other"))));
  EXPECT_FALSE(has.holds(*chainGraph(OpKey("test_ns", "a"), OpKey("test_ns", "c"))));
  EXPECT_EQ(has.str(), "has-op(test_ns::b.default)");
}

} // namespace
} // namespace tico
