// The symmetric pipeline: the lower stage and the stage order rules (from YAML and from code),
// the builder API the tools use instead of YAML text, and the config block as an alias for
// pass options (Manifest::resolved).
#include "tico/circle/serializer.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>

namespace tico {
namespace {

Manifest parse(const std::string &text) { return Manifest::parse(text, "p.yaml"); }

const std::string kHeader = "schema: tico.pipeline/v1\n";

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

std::string parseError(const std::string &text) {
  return errorOf([&] { parse(text); });
}

std::vector<std::string> stageNames(const Manifest &m) {
  std::vector<std::string> out;
  for (const auto &stage : m.stages)
    out.push_back(stage.name);
  return out;
}

const Stage &stageNamed(const Manifest &m, const std::string &name) {
  for (const auto &stage : m.stages)
    if (stage.name == name)
      return stage;
  throw Error("no stage '" + name + "'");
}

// ---- the lower stage in YAML ---------------------------------------------------------------

TEST(LowerStageTest, ParsesWithOptionsAndLocations) {
  Manifest m = parse(kHeader + R"(stages:
  - name: legalize
    passes: [remove-nop]
  - name: to-circle
    kind: lower
    options: {remove_constant_input: true}
  - name: circle
    kind: circle
    passes: [dce]
)");
  ASSERT_EQ(m.stages.size(), 3u);
  const Stage &lower = m.stages[1];
  EXPECT_EQ(lower.kind, StageKind::Lower);
  EXPECT_TRUE(lower.passes.empty());
  EXPECT_EQ(lower.options.at("remove_constant_input"), OptionValue(true));
  EXPECT_EQ(lower.option_locations.at("remove_constant_input").str(), "p.yaml:7:38");
  EXPECT_EQ(m.lowerStage(), &lower);
}

TEST(LowerStageTest, TakesOnlyNameKindAndOptions) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: l\n    kind: lower\n    passes: [a]\n"),
            "p.yaml:5:5: error: unknown key 'passes' in lower stage");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: l\n    kind: lower\n    strategy: once\n"),
            "p.yaml:5:5: error: unknown key 'strategy' in lower stage");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: s\n    options: {a: 1}\n"),
            "p.yaml:4:5: error: unknown key 'options' in stage");
}

TEST(StageOrderTest, CircleStageBeforeLowerIsAnError) {
  EXPECT_EQ(parseError(kHeader + R"(stages:
  - name: early
    kind: circle
  - name: lower
    kind: lower
)"),
            "p.yaml:3:11: error: Circle stage 'early' comes before the lower stage 'lower' (at p.yaml:5:11); "
            "Circle stages work on the lowered model, so they must follow it");
}

TEST(StageOrderTest, AtenStageAfterLowerIsAnError) {
  EXPECT_EQ(parseError(kHeader + R"(stages:
  - name: lower
    kind: lower
  - name: late
    passes: [remove-nop]
)"),
            "p.yaml:5:11: error: ATen-level stage 'late' comes after the lower stage 'lower' (at p.yaml:3:11); "
            "stages that rewrite the graph must come before it");
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: lower\n    kind: lower\n  - name: q\n    kind: quantize\n"),
            "p.yaml:5:11: error: ATen-level stage 'q' comes after the lower stage 'lower' (at p.yaml:3:11); "
            "stages that rewrite the graph must come before it");
}

TEST(StageOrderTest, TwoLowerStagesAreAnError) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: a\n    kind: lower\n  - name: b\n    kind: lower\n"),
            "p.yaml:5:11: error: second lower stage 'b'; a manifest lowers once (lower stage 'a' at p.yaml:3:11)");
}

TEST(StageOrderTest, WithoutLowerAtenStagesMustPrecedeCircleStages) {
  EXPECT_EQ(parseError(kHeader + "stages:\n  - name: c\n    kind: circle\n  - name: late\n"),
            "p.yaml:5:11: error: ATen-level stage 'late' comes after Circle stage 'c' (at p.yaml:3:11); without "
            "a lower stage the model is lowered right before the first Circle stage, so stages that rewrite "
            "the graph must come before it");
  // The old form, Circle stages last and no lower stage, keeps working.
  EXPECT_NO_THROW(parse(kHeader + "stages:\n  - name: a\n  - name: c\n    kind: circle\n  - name: d\n    kind: circle\n"));
}

TEST(LowerStageTest, ValidationChecksItsOptions) {
  Registry registry;
  Manifest m = parse(kHeader + R"(stages:
  - name: lower
    kind: lower
    options: {remove_constant_inputs: true}
)");
  EXPECT_EQ(errorOf([&] { m.validate(registry); }),
            "p.yaml:5:39: error: lower stage 'lower' has no option 'remove_constant_inputs'; valid: "
            "remove_constant_input (bool, default false)");
  Manifest typed = parse(kHeader + "stages:\n  - name: lower\n    kind: lower\n    options: {remove_constant_input: 1}\n");
  EXPECT_NE(errorOf([&] { typed.validate(registry); }).find("p.yaml:5:38: error: lower stage 'lower' option "
                                                             "'remove_constant_input' must be bool, got int 1"),
            std::string::npos);
  EXPECT_NO_THROW(parse(kHeader + "stages:\n  - name: lower\n    kind: lower\n").validate(registry));
}

TEST(LowerStageTest, PrintsAndRoundTrips) {
  Manifest m = parse(kHeader + R"(config:
  convert_lhs_const_mm_to_fc: true
stages:
  - name: s
    passes: [remove-nop]
  - name: lower
    kind: lower
    options: {remove_constant_input: true}
  - name: c
    kind: circle
    passes: [dce]
)");
  const std::string printed = m.print();
  EXPECT_EQ(printed, R"(schema: tico.pipeline/v1
config:
  convert_lhs_const_mm_to_fc: true
verify_each: false
stages:
  - name: s
    kind: passes
    strategy: restart
    when: always
    passes:
      - remove-nop
  - name: lower
    kind: lower
    options:
      remove_constant_input: true
  - name: c
    kind: circle
    strategy: restart
    when: always
    passes:
      - dce
)");
  Manifest back = parse(printed);
  EXPECT_EQ(back.print(), printed);
  EXPECT_EQ(back.config, m.config);
  ASSERT_EQ(back.stages.size(), 3u);
  EXPECT_EQ(back.stages[1].kind, StageKind::Lower);
  EXPECT_EQ(back.stages[1].options, m.stages[1].options);

  // A lower stage without options prints an empty map, which reads back the same.
  Manifest bare = parse(kHeader + "stages:\n  - name: lower\n    kind: lower\n");
  EXPECT_NE(bare.print().find("  - name: lower\n    kind: lower\n    options: {}\n"), std::string::npos) << bare.print();
  EXPECT_EQ(parse(bare.print()).print(), bare.print());
}

// ---- the config block as an alias ----------------------------------------------------------

const std::string kAliased = kHeader + R"(config:
  convert_lhs_const_mm_to_fc: true
  legalize_causal_mask_value: true
  remove_constant_input: true
stages:
  - name: legalize
    passes:
      - convert-matmul-to-linear
      - name: legalize-causal-mask-value
        options: {enabled: false}
  - name: later
    passes:
      - convert-matmul-to-linear{lhs_const=false}
      - convert-expand-to-slice-cat
  - name: c
    kind: circle
    passes: [convert-matmul-to-linear]
)";

TEST(ConfigAliasTest, FieldsBecomeOptionsWhereTheManifestSetsNone) {
  Manifest r = parse(kAliased).resolved();
  EXPECT_TRUE(r.config.empty()) << "the aliases are spent";
  const Stage &legalize = stageNamed(r, "legalize");
  EXPECT_EQ(legalize.passes[0].options, (std::map<std::string, OptionValue>{{"lhs_const", true}}));
  EXPECT_EQ(legalize.passes[1].options, (std::map<std::string, OptionValue>{{"enabled", false}}))
      << "an explicit option wins over the alias";
  const Stage &later = stageNamed(r, "later");
  EXPECT_EQ(later.passes[0].options, (std::map<std::string, OptionValue>{{"lhs_const", false}}));
  EXPECT_TRUE(later.passes[1].options.empty()) << "convert_expand_to_slice_cat is not set";
  EXPECT_TRUE(stageNamed(r, "c").passes[0].options.empty())
      << "an alias of an ATen-level pass does not reach a Circle pass of that name";
  EXPECT_EQ(stageNamed(r, "lower").options, (std::map<std::string, OptionValue>{{"remove_constant_input", true}}));
}

TEST(ConfigAliasTest, EveryFieldMapsToItsDocumentedOption) {
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"legalize_causal_mask_value", {"legalize-causal-mask-value", "enabled"}},
      {"remove_constant_input", {"", "remove_constant_input"}},
      {"convert_lhs_const_mm_to_fc", {"convert-matmul-to-linear", "lhs_const"}},
      {"convert_rhs_const_mm_to_fc", {"convert-matmul-to-linear", "rhs_const"}},
      {"convert_single_batch_lhs_const_bmm_to_fc", {"convert-matmul-to-linear", "single_batch_lhs_const_bmm"}},
      {"convert_expand_to_slice_cat", {"convert-expand-to-slice-cat", "enabled"}},
      {"eliminate_rank_round_trip", {"eliminate-rank-round-trip-region", "enabled"}},
      {"float16_weights", {"store-float16-weights", "enabled"}},
  };
  const std::set<std::string> circle_passes = {"store-float16-weights"};
  for (const auto &[field, target] : expected) {
    const auto &[pass, option] = target;
    // Both values travel, so a field can switch an option on and off.
    for (bool value : {true, false}) {
      Manifest m;
      m.config.set(field, value);
      if (!pass.empty())
        m.addStage(Stage::fromPassList("s", circle_passes.count(pass) ? StageKind::Circle : StageKind::Passes, pass,
                                       "test"));
      Manifest r = m.resolved();
      const std::map<std::string, OptionValue> &options =
          pass.empty() ? stageNamed(r, "lower").options : stageNamed(r, "s").passes[0].options;
      EXPECT_EQ(options, (std::map<std::string, OptionValue>{{option, value}})) << field;
    }
  }
}

TEST(ConfigAliasTest, ACircleFieldReachesCirclePassesOnly) {
  Manifest m = parse(kHeader + R"(config: {float16_weights: false}
stages:
  - name: a
    passes: [store-float16-weights]
  - name: c
    kind: circle
    passes: [store-float16-weights, dce]
)");
  Manifest r = m.resolved();
  EXPECT_TRUE(stageNamed(r, "a").passes[0].options.empty()) << "an ATen-level entry of that name is not the target";
  EXPECT_EQ(stageNamed(r, "c").passes[0].options, (std::map<std::string, OptionValue>{{"enabled", false}}));
  EXPECT_TRUE(stageNamed(r, "c").passes[1].options.empty());
}

TEST(ConfigAliasTest, LowerStageOptionWinsOverTheAlias) {
  Manifest m = parse(kHeader + R"(config: {remove_constant_input: true}
stages:
  - name: lower
    kind: lower
    options: {remove_constant_input: false}
)");
  EXPECT_EQ(m.resolved().stages[0].options.at("remove_constant_input"), OptionValue(false));
}

TEST(ConfigAliasTest, ImplicitLowerStandsBeforeTheFirstCircleStageOrAtTheEnd) {
  Manifest with_circle = parse(kHeader + "stages:\n  - name: a\n  - name: c\n    kind: circle\n").resolved();
  EXPECT_EQ(stageNames(with_circle), (std::vector<std::string>{"a", "lower", "c"}));
  EXPECT_EQ(with_circle.stages[1].kind, StageKind::Lower);
  Manifest aten_only = parse(kHeader + "stages:\n  - name: a\n").resolved();
  EXPECT_EQ(stageNames(aten_only), (std::vector<std::string>{"a", "lower"}));
  EXPECT_EQ(stageNames(Manifest().resolved()), (std::vector<std::string>{"lower"}));
  // An explicit lower stage is not doubled.
  Manifest explicit_lower = parse(kHeader + "stages:\n  - name: to-circle\n    kind: lower\n").resolved();
  EXPECT_EQ(stageNames(explicit_lower), (std::vector<std::string>{"to-circle"}));
}

// ---- the builder API -----------------------------------------------------------------------

TEST(ManifestBuilderTest, StageFromPassList) {
  Stage stage = Stage::fromPassList("adhoc", StageKind::Circle, "dce, fold-constants{profile=heavy}", "--passes",
                                    PassStrategy::Once);
  EXPECT_EQ(stage.name, "adhoc");
  EXPECT_EQ(stage.kind, StageKind::Circle);
  EXPECT_EQ(stage.strategy, PassStrategy::Once);
  ASSERT_EQ(stage.passes.size(), 2u);
  EXPECT_EQ(stage.passes[0].name, "dce");
  EXPECT_EQ(stage.passes[1].name, "fold-constants");
  EXPECT_EQ(stage.passes[1].options.at("profile"), OptionValue(std::string("heavy")));
  EXPECT_EQ(stage.passes[1].where.str(), "--passes:1:6");
  EXPECT_EQ(errorOf([] { Stage::fromPassList("s", StageKind::Passes, "a{b}", "--passes"); }),
            "--passes:1:4: error: expected '=' after option 'b' in 'a{b}'");
  EXPECT_EQ(errorOf([] { Stage::fromPassList("s", StageKind::Lower, "a", "--passes"); }),
            "--passes:1:1: error: a lower stage runs no passes; set its options instead");
}

TEST(ManifestBuilderTest, AddStageKeepsTheOrderRules) {
  Manifest m;
  m.addStage(Stage::fromPassList("a", StageKind::Passes, "remove-nop", "code"));
  m.addStage(Stage::fromPassList("c", StageKind::Circle, "dce", "code"));
  EXPECT_EQ(errorOf([&] { m.addStage(Stage::fromPassList("late", StageKind::Passes, "remove-nop", "late")); }),
            "late:1:1: error: ATen-level stage 'late' comes after Circle stage 'c' (at code:1:1); without a lower "
            "stage the model is lowered right before the first Circle stage, so stages that rewrite the graph "
            "must come before it");
  EXPECT_EQ(errorOf([&] { m.addStage(Stage::fromPassList("a", StageKind::Circle, "dce", "again")); }),
            "again:1:1: error: duplicate stage name 'a' (first defined at code:1:1)");
  Stage lower;
  lower.name = "lower";
  lower.kind = StageKind::Lower;
  lower.where = SourceLocation{"code", 9, 1};
  EXPECT_EQ(errorOf([&] { m.addStage(lower); }),
            "code:1:1: error: Circle stage 'c' comes before the lower stage 'lower' (at code:9:1); Circle stages "
            "work on the lowered model, so they must follow it");
  EXPECT_EQ(stageNames(m), (std::vector<std::string>{"a", "c"})) << "a refused stage is not added";
}

TEST(ManifestBuilderTest, AppendPlacesStagesAroundLowering) {
  Manifest base = parse(kHeader + R"(config: {convert_lhs_const_mm_to_fc: true, remove_constant_input: true}
stages:
  - name: legalize
  - name: lower
    kind: lower
  - name: portability
    kind: circle
)");
  Manifest more = Manifest::parse(kHeader + R"(config: {remove_constant_input: false}
verify_each: true
stages:
  - name: extra-aten
  - name: lower
    kind: lower
    options: {remove_constant_input: true}
  - name: circle-optimize
    kind: circle
)", "more.yaml");
  base.append(more);
  EXPECT_EQ(stageNames(base), (std::vector<std::string>{"legalize", "extra-aten", "lower", "portability",
                                                        "circle-optimize"}));
  EXPECT_EQ(base.lowerStage()->options.at("remove_constant_input"), OptionValue(true));
  EXPECT_EQ(base.lowerStage()->option_locations.at("remove_constant_input").file, "more.yaml");
  EXPECT_EQ(base.config.find("remove_constant_input"), std::optional<bool>(false)) << "the appended config wins";
  EXPECT_EQ(base.config.find("convert_lhs_const_mm_to_fc"), std::optional<bool>(true));
  EXPECT_TRUE(base.verify_each);
  // The result is a manifest the parser would accept.
  EXPECT_EQ(parse(base.print()).print(), base.print());

  EXPECT_EQ(errorOf([&] { base.append(more); }),
            "more.yaml:5:11: error: duplicate stage name 'extra-aten' (first defined at more.yaml:5:11)");
}

TEST(ManifestBuilderTest, AppendWithoutLowerStages) {
  // The old default.yaml form (no lower stage) plus a Circle-only manifest.
  Manifest base = parse(kHeader + "stages:\n  - name: a\n  - name: c1\n    kind: circle\n");
  base.append(parse(kHeader + "stages:\n  - name: b\n  - name: c2\n    kind: circle\n"));
  EXPECT_EQ(stageNames(base), (std::vector<std::string>{"a", "b", "c1", "c2"}));
  EXPECT_EQ(base.lowerStage(), nullptr);
  // An appended manifest with a lower stage gives this one its lower stage, at its place.
  base.append(parse(kHeader + "stages:\n  - name: lower\n    kind: lower\n"));
  EXPECT_EQ(stageNames(base), (std::vector<std::string>{"a", "b", "lower", "c1", "c2"}));
}

TEST(ManifestBuilderTest, SetPassAndLowerOptions) {
  Manifest m = parse(kAliased);
  EXPECT_EQ(m.setPassOption(StageKind::Passes, "convert-matmul-to-linear", "lhs_const", false), 2u);
  EXPECT_EQ(m.setPassOption(StageKind::Circle, "convert-matmul-to-linear", "x", int64_t{1}), 1u);
  EXPECT_EQ(m.setPassOption(StageKind::Passes, "absent", "x", true), 0u);
  m.setLowerOption("remove_constant_input", false);
  EXPECT_EQ(stageNames(m), (std::vector<std::string>{"legalize", "later", "lower", "c"}))
      << "the lower stage is created where lowering happens";
  Manifest r = m.resolved();
  EXPECT_EQ(stageNamed(r, "legalize").passes[0].options.at("lhs_const"), OptionValue(false))
      << "an option set in code is explicit: the alias does not override it";
  EXPECT_EQ(stageNamed(r, "lower").options.at("remove_constant_input"), OptionValue(false));
}

} // namespace
} // namespace tico
