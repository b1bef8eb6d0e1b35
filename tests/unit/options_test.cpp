// Typed options (resolution, type checks, error texts) and the compile configuration fields.
#include "tico/pass/options.h"
#include "tico/pipeline/compile_config.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace tico {
namespace {

const std::vector<OptionSpec> kMatmulOptions = {
    {"lhs_const", OptionType::Bool, false, "convert when the lhs is constant"},
    {"rhs_const", OptionType::Bool, true, "convert when the rhs is constant"},
};

const std::vector<OptionSpec> kMixedOptions = {
    {"bits", OptionType::Int, int64_t{8}, ""},
    {"eps", OptionType::Float, 1e-5, ""},
    {"mode", OptionType::String, std::string("minmax"), ""},
    {"dims", OptionType::IntList, std::vector<int64_t>{0, 1}, ""},
    {"skip", OptionType::StringList, std::vector<std::string>{}, ""},
};

std::string errorOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

TEST(OptionsTest, ResolveFillsDefaults) {
  Options options = Options::resolve("convert-matmul-to-linear", kMatmulOptions, {});
  EXPECT_FALSE(options.getBool("lhs_const"));
  EXPECT_TRUE(options.getBool("rhs_const"));
  EXPECT_EQ(options.values().size(), 2u);
}

TEST(OptionsTest, GivenValuesOverrideDefaults) {
  Options options = Options::resolve("q", kMixedOptions,
                                     {{"bits", int64_t{4}},
                                      {"mode", std::string("percentile")},
                                      {"dims", std::vector<int64_t>{2}},
                                      {"skip", std::vector<std::string>{"head"}}});
  EXPECT_EQ(options.getInt("bits"), 4);
  EXPECT_DOUBLE_EQ(options.getFloat("eps"), 1e-5);
  EXPECT_EQ(options.getString("mode"), "percentile");
  EXPECT_EQ(options.getIntList("dims"), std::vector<int64_t>{2});
  EXPECT_EQ(options.getStringList("skip"), std::vector<std::string>{"head"});
  EXPECT_TRUE(options.has("eps"));
  EXPECT_FALSE(options.has("nope"));
}

TEST(OptionsTest, IntIsWidenedForFloatOptions) {
  Options options = Options::resolve("q", kMixedOptions, {{"eps", int64_t{2}}});
  EXPECT_TRUE(std::holds_alternative<double>(options.values().at("eps")));
  EXPECT_DOUBLE_EQ(options.getFloat("eps"), 2.0);
}

TEST(OptionsTest, EmptyListFitsEitherListType) {
  Options options = Options::resolve("q", kMixedOptions,
                                     {{"skip", std::vector<int64_t>{}}, {"dims", std::vector<std::string>{}}});
  EXPECT_TRUE(options.getStringList("skip").empty());
  EXPECT_TRUE(options.getIntList("dims").empty());
}

TEST(OptionsTest, UnknownOptionListsTheValidOnes) {
  EXPECT_EQ(errorOf([] {
              Options::resolve("convert-matmul-to-linear", kMatmulOptions, {{"lhs", true}});
            }),
            "pass 'convert-matmul-to-linear' has no option 'lhs'; valid: lhs_const (bool, "
            "default false), rhs_const (bool, default true)");
  EXPECT_EQ(errorOf([] { Options::resolve("remove-nop", {}, {{"x", int64_t{1}}}); }),
            "pass 'remove-nop' has no option 'x'; it takes no options");
}

TEST(OptionsTest, WrongTypeNamesExpectedAndGiven) {
  std::string message =
      errorOf([] { Options::resolve("convert-matmul-to-linear", kMatmulOptions, {{"lhs_const", int64_t{3}}}); });
  EXPECT_NE(message.find("pass 'convert-matmul-to-linear' option 'lhs_const' must be bool, got int 3"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("valid: lhs_const (bool, default false), rhs_const (bool, default true)"),
            std::string::npos)
      << message;

  message = errorOf([] { Options::resolve("q", kMixedOptions, {{"bits", 1.5}}); });
  EXPECT_NE(message.find("option 'bits' must be int, got float 1.5"), std::string::npos) << message;
  message = errorOf([] { Options::resolve("q", kMixedOptions, {{"mode", int64_t{12}}}); });
  EXPECT_NE(message.find("option 'mode' must be string, got int 12"), std::string::npos) << message;
  message = errorOf([] {
    Options::resolve("q", kMixedOptions, {{"dims", std::vector<std::string>{"a"}}});
  });
  EXPECT_NE(message.find("option 'dims' must be int list, got string list [\"a\"]"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("mode (string, default \"minmax\")"), std::string::npos) << message;
}

TEST(OptionsTest, OwnerWithItsOwnKindIsUsedVerbatim) {
  std::string message =
      errorOf([] { Options::resolve("quantizer 'gptq'", kMixedOptions, {{"group", int64_t{1}}}); });
  EXPECT_EQ(message.rfind("quantizer 'gptq' has no option 'group'; valid: bits (int, default 8)", 0),
            0u)
      << message;
}

TEST(OptionsTest, GettersCheckTypeAndName) {
  Options options = Options::resolve("q", kMixedOptions, {});
  EXPECT_EQ(errorOf([&] { options.getBool("bits"); }), "option 'bits' is int, not bool");
  EXPECT_EQ(errorOf([&] { options.getString("dims"); }), "option 'dims' is int list, not string");
  EXPECT_EQ(errorOf([&] { options.getInt("missing"); }), "option 'missing' is not declared");
}

TEST(OptionsTest, GetFloatAcceptsAnIntegerBuiltByHand) {
  Options options(std::map<std::string, OptionValue>{{"eps", int64_t{3}}});
  EXPECT_DOUBLE_EQ(options.getFloat("eps"), 3.0);
}

TEST(OptionsTest, TypeNames) {
  EXPECT_STREQ(optionTypeName(OptionType::Bool), "bool");
  EXPECT_STREQ(optionTypeName(OptionType::Int), "int");
  EXPECT_STREQ(optionTypeName(OptionType::Float), "float");
  EXPECT_STREQ(optionTypeName(OptionType::String), "string");
  EXPECT_STREQ(optionTypeName(OptionType::IntList), "int list");
  EXPECT_STREQ(optionTypeName(OptionType::StringList), "string list");
}

TEST(OptionsTest, ValueStrings) {
  EXPECT_EQ(optionValueString(true), "true");
  EXPECT_EQ(optionValueString(int64_t{-7}), "-7");
  // Floats always read back as floats: never a bare integer.
  EXPECT_EQ(optionValueString(1.0), "1.0");
  EXPECT_EQ(optionValueString(0.25), "0.25");
  EXPECT_EQ(optionValueString(1e-5), "1e-05");
  EXPECT_EQ(optionValueString(std::numeric_limits<double>::infinity()), ".inf");
  EXPECT_EQ(optionValueString(-std::numeric_limits<double>::infinity()), "-.inf");
  EXPECT_EQ(optionValueString(std::nan("")), ".nan");
  EXPECT_EQ(optionValueString(std::string("a \"b\"")), "\"a \\\"b\\\"\"");
  EXPECT_EQ(optionValueString(std::vector<int64_t>{1, 2, 3}), "[1, 2, 3]");
  EXPECT_EQ(optionValueString(std::vector<int64_t>{}), "[]");
  EXPECT_EQ(optionValueString(std::vector<std::string>{"x", "y"}), "[\"x\", \"y\"]");
}

TEST(CompileConfigTest, FieldNamesInDeclarationOrder) {
  EXPECT_EQ(CompileConfig::fieldNames(),
            (std::vector<std::string>{"legalize_causal_mask_value", "remove_constant_input",
                                      "convert_lhs_const_mm_to_fc", "convert_rhs_const_mm_to_fc",
                                      "convert_single_batch_lhs_const_bmm_to_fc",
                                      "convert_expand_to_slice_cat", "eliminate_rank_round_trip",
                                      "float16_weights"}));
}

TEST(CompileConfigTest, DefaultsAreTheOriginals) {
  CompileConfig config;
  EXPECT_TRUE(config.empty());
  EXPECT_TRUE(config.get("convert_rhs_const_mm_to_fc"));
  EXPECT_TRUE(config.get("float16_weights")); // tico's own field: half-precision weights stay 16-bit
  for (const auto &field : CompileConfig::fieldNames()) {
    EXPECT_EQ(config.find(field), std::nullopt) << field << " is not set";
    if (field != "convert_rhs_const_mm_to_fc" && field != "float16_weights")
      EXPECT_FALSE(config.get(field)) << field;
  }
}

TEST(CompileConfigTest, SetAndGetEveryField) {
  for (const auto &field : CompileConfig::fieldNames()) {
    CompileConfig config;
    bool before = config.get(field);
    EXPECT_TRUE(config.set(field, !before));
    EXPECT_EQ(config.get(field), !before) << field;
    EXPECT_EQ(config.find(field), std::optional<bool>(!before)) << field;
    // Only that field is set.
    for (const auto &other : CompileConfig::fieldNames())
      if (other != field)
        EXPECT_EQ(config.find(other), std::nullopt) << field << " / " << other;
  }
}

TEST(CompileConfigTest, MergeTakesTheOthersFields) {
  CompileConfig mine, theirs;
  mine.set("remove_constant_input", true);
  mine.set("convert_lhs_const_mm_to_fc", true);
  theirs.set("convert_lhs_const_mm_to_fc", false);
  mine.merge(theirs);
  EXPECT_EQ(mine.find("remove_constant_input"), std::optional<bool>(true));
  EXPECT_EQ(mine.find("convert_lhs_const_mm_to_fc"), std::optional<bool>(false));
}

TEST(CompileConfigTest, EveryFieldIsAnAliasWithTargets) {
  ASSERT_EQ(configAliases().size(), CompileConfig::fieldNames().size());
  for (const auto &alias : configAliases())
    EXPECT_FALSE(alias.targets.empty()) << alias.field;
}

TEST(CompileConfigTest, UnknownField) {
  CompileConfig config;
  EXPECT_FALSE(config.set("convert_rhs_const_mm_to_f", true));
  EXPECT_EQ(errorOf([&] { config.get("remove_constant_inputs"); }),
            "unknown compile config field 'remove_constant_inputs' (did you mean "
            "'remove_constant_input'?)");
}

} // namespace
} // namespace tico
