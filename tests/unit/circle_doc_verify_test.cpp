// The Circle verifier: one deliberately broken model per rule, each reported with its rule code,
// both in memory and (where a file can carry the breakage) after a write/read round trip.
#include "circle_doc_test_support.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <set>

namespace tico {
namespace {

using namespace circle_doc_test;

std::shared_ptr<const Storage> bytesOf(const std::vector<uint8_t> &bytes) {
  std::vector<std::byte> copy(bytes.size());
  std::memcpy(copy.data(), bytes.data(), bytes.size());
  return Storage::fromBytes(std::move(copy));
}

std::string listing(const std::vector<CircleDiagnostic> &diagnostics) {
  std::string out;
  for (const auto &d : diagnostics)
    out += d.str() + "\n";
  return out;
}

bool hasRule(const std::vector<CircleDiagnostic> &diagnostics, const std::string &rule) {
  for (const auto &d : diagnostics)
    if (d.rule == rule)
      return true;
  return false;
}

const CircleVerifierRule &ruleNamed(const std::string &code) {
  for (const auto &rule : circleVerifierRules())
    if (rule.code == code)
      return rule;
  throw Error("no rule " + code);
}

TEST(CircleDocVerify, SampleModelsAreClean) {
  for (const CircleModel &model :
       {circle_doc_test::linearModel(), circle_doc_test::controlFlowModel(), circle_doc_test::quantizedModel()}) {
    const auto diagnostics = verifyCircleModel(model);
    EXPECT_TRUE(diagnostics.empty()) << listing(diagnostics);
  }
}

TEST(CircleDocVerify, EveryRuleHasABrokenModel) {
  const auto cases = brokenModelCases();
  std::set<std::string> catalogue;
  for (const auto &rule : circleVerifierRules())
    catalogue.insert(rule.code);
  std::set<std::string> covered;
  for (const auto &[rule, _] : cases)
    covered.insert(rule);
  EXPECT_EQ(catalogue, covered);
}

class CircleDocVerifyRule : public ::testing::TestWithParam<std::string> {};

TEST_P(CircleDocVerifyRule, InMemory) {
  const std::string rule = GetParam();
  const CircleModel model = brokenModelCases().at(rule).make();
  const auto diagnostics = verifyCircleModel(model);
  ASSERT_TRUE(hasRule(diagnostics, rule)) << "expected [" << rule << "] in:\n" << listing(diagnostics);
  for (const auto &d : diagnostics)
    if (d.rule == rule) {
      EXPECT_EQ(d.severity, ruleNamed(rule).severity);
      EXPECT_EQ(d.str().rfind(std::string(d.severity == CircleSeverity::Error ? "ERROR" : "WARNING") + " [" + rule +
                                  "] model.",
                              0),
                0u)
          << d.str();
    }
  if (ruleNamed(rule).severity == CircleSeverity::Error)
    EXPECT_THROW(checkCircleModel(model, "test"), Error);
  CircleVerifyOptions no_warnings;
  no_warnings.warnings = false;
  EXPECT_EQ(hasRule(verifyCircleModel(model, no_warnings), rule), ruleNamed(rule).severity == CircleSeverity::Error);
}

class CircleDocVerifyFileRule : public ::testing::TestWithParam<std::string> {};

TEST_P(CircleDocVerifyFileRule, ThroughAFile) {
  const std::string rule = GetParam();
  CircleReadOptions options;
  options.check_indices = false;
  const CircleModel model =
      readCircleBytes(bytesOf(packUnchecked(brokenModelCases().at(rule).make())), rule + ".circle", options);
  const auto diagnostics = verifyCircleModel(model);
  EXPECT_TRUE(hasRule(diagnostics, rule)) << "expected [" << rule << "] in:\n" << listing(diagnostics);
}

std::vector<std::string> ruleCodes() {
  std::vector<std::string> out;
  for (const auto &rule : circleVerifierRules())
    out.push_back(rule.code);
  return out;
}

// Rules whose breakage a file can carry (the others the reader refuses or repairs itself, see
// BadPayloadInAFileIsAReadError).
std::vector<std::string> fileRuleCodes() {
  std::vector<std::string> out;
  for (const auto &[rule, broken] : brokenModelCases())
    if (broken.representable_in_file)
      out.push_back(rule);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Rules, CircleDocVerifyRule, ::testing::ValuesIn(ruleCodes()),
                         [](const auto &info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Rules, CircleDocVerifyFileRule, ::testing::ValuesIn(fileRuleCodes()),
                         [](const auto &info) { return info.param; });

TEST(CircleDocVerify, IndexRulesAreWhatTheReaderEnforces) {
  for (const char *rule : {"OPCODE_INDEX", "TENSOR_INDEX", "BUFFER_INDEX", "SUBGRAPH_INDEX", "MISSING_OPERATOR_CODES"}) {
    const auto bytes = packUnchecked(brokenModelCases().at(rule).make());
    try {
      readCircleBytes(bytesOf(bytes), "broken.circle");
      ADD_FAILURE() << rule << ": the reader accepted a model with bad indices";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("broken.circle: model."), std::string::npos) << e.what();
    }
  }
}

TEST(CircleDocVerify, BadPayloadInAFileIsAReadError) {
  // A constant payload that lies outside the file: the reader refuses it with the element path.
  circle::ModelT model;
  circle::GetModel(packUnchecked(linearModel()).data())->UnPackTo(&model);
  model.buffers[1]->data.clear();
  model.buffers[1]->offset = 1 << 20;
  model.buffers[1]->size = 16;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(circle::Model::Pack(builder, &model), "CIR0");
  const std::vector<uint8_t> bytes(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  try {
    readCircleBytes(bytesOf(bytes), "far.circle");
    FAIL() << "accepted a payload outside the file";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("model.buffers[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("outside the file"), std::string::npos) << e.what();
  }
}

TEST(CircleDocVerify, CheckCircleModelListsEveryError) {
  CircleModel model = linearModel();
  model.subgraphs[0].operators[1].inputs[1] = 42;
  model.subgraphs[0].operators[0].opcode_index = 9;
  try {
    checkCircleModel(model, "my-tool");
    FAIL() << "no error";
  } catch (const Error &e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("my-tool: the model fails verification with 2 errors", 0), 0u) << what;
    EXPECT_NE(what.find("ERROR [TENSOR_INDEX] model.subgraphs[0].operators[1].inputs[1]"), std::string::npos) << what;
    EXPECT_NE(what.find("ERROR [OPCODE_INDEX] model.subgraphs[0].operators[0].opcode_index"), std::string::npos)
        << what;
  }
}

TEST(CircleDocVerify, OptionalInputsMayBeOmitted) {
  CircleModel model = linearModel();
  model.subgraphs[0].operators[0].inputs.push_back(-1);
  EXPECT_TRUE(verifyCircleModel(model).empty());
  model.subgraphs[0].outputs.push_back(-1); // but not elsewhere
  EXPECT_TRUE(hasRule(verifyCircleModel(model), "TENSOR_INDEX"));
}

TEST(CircleDocVerify, IndicesOnlyRunsJustTheIndexRules) {
  CircleModel model = brokenModelCases().at("MULTIPLE_PRODUCERS").make();
  CircleVerifyOptions options;
  options.indices_only = true;
  EXPECT_TRUE(verifyCircleModel(model, options).empty());
  model.subgraphs[0].operators[0].opcode_index = 99;
  EXPECT_TRUE(hasRule(verifyCircleModel(model, options), "OPCODE_INDEX"));
}

TEST(CircleDocVerify, IndicesOnlyCatchesOperatorsWithoutCodes) {
  // Code that subscripts operator_codes with an operator's opcode_index must be safe after the
  // index rules pass, also when the list is empty.
  const CircleModel model = brokenModelCases().at("MISSING_OPERATOR_CODES").make();
  CircleVerifyOptions options;
  options.indices_only = true;
  EXPECT_FALSE(verifyCircleModel(model, options).empty());
}

} // namespace
} // namespace tico
