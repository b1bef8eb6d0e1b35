// One dynamic program, several static signatures: binding export-time symbols
// (tico/ir/specialize.h), merging lowered parts into one model with a SignatureDef each and every
// buffer stored once (tico/circle/signatures.h), and tico-run --signature end to end.
#include "cli_test_support.h"

#include "tico/circle/reader.h"
#include "tico/circle/signatures.h"
#include "tico/ir/specialize.h"
#include "tico/ir/text.h"
#include "tico/pipeline/driver.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tico {
namespace {

constexpr const char *kDynamic = R"(graph @main {
  symbol s0 in [1, 8] hint 4
  input %x: f32[1, s0, 4]
  input %y: f32[2, 3]
  %n: sym_int(s0) = aten::sym_size.int(%x, 1)
  %m: sym_int(2*s0) = _operator::mul(%n, 2)
  %v: f32[2*s0, 2] = aten::view.default(%x, [%m, 2])
  %f: f32[2*s0] = aten::full.default([%m], 1.5)
  return %v, %f
})";

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Specialize, BindingASymbolMakesShapesAndSizeArgumentsStatic) {
  auto g = parseGraph(kDynamic);
  const auto bindings = bindingsForInputSizes(*g, {parseInputDimSize("x.1=3")});
  EXPECT_EQ(bindings, (std::map<std::string, int64_t>{{"s0", 3}}));
  specializeSymbols(*g, bindings);
  g->verify();
  const std::string text = printGraph(*g);
  EXPECT_NE(text.find("input %x: f32[1, 3, 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("%v: f32[6, 2] = aten::view.default(%x, [6, 2])"), std::string::npos) << text;
  EXPECT_NE(text.find("%f: f32[6] = aten::full.default([6], 1.5)"), std::string::npos) << text;
  // The nodes that only computed sizes are gone.
  EXPECT_EQ(text.find("sym_size"), std::string::npos) << text;
  EXPECT_EQ(text.find("_operator::mul"), std::string::npos) << text;
}

TEST(Specialize, TwoSpecializationsOfOneGraphShareItsConstants) {
  auto g = parseGraph(R"(graph @main {
  symbol s0 in [1, 8] hint 2
  input %x: f32[s0, 3]
  param %w: f32[2, 3] "w" = dense<[1, 2, 3, 4, 5, 6]>
  %y: f32[s0, 2] = aten::linear.default(%x, %w)
  return %y
})");
  auto a = g->clone(), b = g->clone();
  specializeSymbols(*a, {{"s0", 1}});
  specializeSymbols(*b, {{"s0", 8}});
  EXPECT_EQ(a->findValue("w")->constant()->storage, b->findValue("w")->constant()->storage);
  EXPECT_EQ(a->findValue("y")->shape(), (Shape{1, 2}));
  EXPECT_EQ(b->findValue("y")->shape(), (Shape{8, 2}));
}

TEST(Specialize, RequestsThatCannotBeBoundAreErrors) {
  auto g = parseGraph(kDynamic);
  auto bind = [&](const std::string &request) {
    return errorOf([&] { bindingsForInputSizes(*g, {parseInputDimSize(request)}); });
  };
  EXPECT_EQ(bind("z.1=2"), "no user input 'z' (user inputs: 'x', 'y')");
  EXPECT_EQ(bind("x.1=9"), "input 'x' dimension 1 (s0) = 9 is outside the exported range [1, 8]");
  EXPECT_EQ(bind("x.0=2"), "input 'x' dimension 0 is static (1), not 2");
  EXPECT_EQ(bind("y.0=2"), "(no error)"); // static and equal: nothing to bind
  EXPECT_EQ(bind("x.3=2"), "input 'x' dimension 3: the input has rank 3");
  EXPECT_EQ(errorOf([&] { bindingsForInputSizes(*g, {parseInputDimSize("x.1=2"), parseInputDimSize("x.1=3")}); }),
            "input 'x' dimension 1 is s0, already given the size 2, not 3");
  auto expr = parseGraph(R"(graph @main {
  symbol s0 in [1, 8] hint 4
  input %x: f32[2*s0]
  return %x
})");
  EXPECT_EQ(errorOf([&] { bindingsForInputSizes(*expr, {parseInputDimSize("x.0=4")}); }),
            "input 'x' dimension 0 is '2*s0', an expression; only a dimension that is one symbol can be given a size");
  for (const char *bad : {"x1=2", "x.=2", "x.1=", ".1=2", "x.a=2", "x.1=-2"})
    EXPECT_NE(errorOf([&] { parseInputDimSize(bad); }).find("is not INPUT.DIM=SIZE"), std::string::npos) << bad;
  EXPECT_NE(errorOf([&] { parseSignatureRequest("input_ids.1=4"); }).find("is not NAME:INPUT.DIM=SIZE"),
            std::string::npos);
  const SignatureRequest request = parseSignatureRequest("decode:input_ids.1=1,positions.1=1");
  EXPECT_EQ(request.name, "decode");
  ASSERT_EQ(request.sizes.size(), 2u);
  EXPECT_EQ(request.sizes[1].input, "positions");
}

// A one-operator model whose weight is `weight` (a view of shared storage, or a fresh copy).
CircleModel part(std::shared_ptr<const TensorData> weight, const std::string &input_name) {
  CircleModel m;
  m.buffers.push_back({std::move(weight)});
  CircleSubGraph g;
  g.tensors.push_back({{1, 2}, {}, circle::TensorType::FLOAT32, 0, input_name});
  g.tensors.push_back({{2, 2}, {}, circle::TensorType::FLOAT32, 1, "w"});
  g.tensors.push_back({{1, 2}, {}, circle::TensorType::FLOAT32, 0, "y"});
  CircleOperator op;
  op.opcode_index = m.operatorCodeIndex(circle::BuiltinOperator::FULLY_CONNECTED);
  op.inputs = {0, 1, -1};
  op.outputs = {2};
  g.operators.push_back(op);
  g.inputs = {0};
  g.outputs = {2};
  m.subgraphs.push_back(std::move(g));
  return m;
}

TEST(MergeSignatures, EveryBufferIsStoredOnceAndEachPartGetsASignature) {
  auto weight = std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {2, 2}, std::vector<float>{1, 2, 3, 4}));
  auto equal_copy = std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {2, 2}, std::vector<float>{1, 2, 3, 4}));
  auto other = std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {2, 2}, std::vector<float>{1, 2, 3, 5}));
  std::vector<SignaturePart> parts;
  parts.push_back({"prefill", part(weight, "x")});
  parts.push_back({"decode", part(weight, "x")});     // the same view
  parts.push_back({"copy", part(equal_copy, "x")});   // equal bytes elsewhere
  parts.push_back({"other", part(other, "x")});       // different bytes
  CircleModel merged = mergeAsSignatures(std::move(parts));
  ASSERT_EQ(merged.subgraphs.size(), 4u);
  EXPECT_EQ(merged.buffers.size(), 3u); // sentinel, the shared weight, the different one
  EXPECT_EQ(merged.subgraphs[0].tensors[1].buffer, merged.subgraphs[1].tensors[1].buffer);
  EXPECT_EQ(merged.subgraphs[0].tensors[1].buffer, merged.subgraphs[2].tensors[1].buffer);
  EXPECT_NE(merged.subgraphs[0].tensors[1].buffer, merged.subgraphs[3].tensors[1].buffer);
  EXPECT_EQ(merged.operator_codes.size(), 1u);
  ASSERT_EQ(merged.signatures.size(), 4u);
  EXPECT_EQ(merged.signatures[1].key, "decode");
  EXPECT_EQ(merged.signatures[1].subgraph_index, 1u);
  EXPECT_EQ(merged.subgraphs[1].name, "decode");
  ASSERT_EQ(merged.signatures[1].inputs.size(), 1u);
  EXPECT_EQ(merged.signatures[1].inputs[0].name, "x");
  EXPECT_EQ(merged.signatures[1].outputs[0].tensor_index, 2u);
}

TEST(MergeSignatures, NamesMustBeGivenOnceAndPartsHaveOneSubgraph) {
  auto weight = std::make_shared<const TensorData>(TensorData::fromVector(DType::Float32, {2, 2}, std::vector<float>{1, 2, 3, 4}));
  auto twice = [&] {
    std::vector<SignaturePart> parts;
    parts.push_back({"a", part(weight, "x")});
    parts.push_back({"a", part(weight, "x")});
    mergeAsSignatures(std::move(parts));
  };
  EXPECT_EQ(errorOf(twice), "signature 'a' is given twice");
  auto two_subgraphs = [&] {
    std::vector<SignaturePart> parts;
    parts.push_back({"a", part(weight, "x")});
    parts.back().model.subgraphs.push_back(parts.back().model.subgraphs.front());
    mergeAsSignatures(std::move(parts));
  };
  EXPECT_EQ(errorOf(two_subgraphs),
            "signature 'a' lowers to 2 subgraphs; only one-subgraph models (no control flow) are merged into signatures");
  EXPECT_EQ(errorOf([] { mergeAsSignatures({}); }), "no signatures to merge");
}

class CliSignatures : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tico-signatures-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "dyn.tir") << R"(graph @main {
  symbol s0 in [1, 8] hint 4
  input %x: f32[1, s0]
  param %w: f32[3, 1] "w" = dense<[1, 2, 3]>
  %t: f32[s0, 1] = aten::permute.default(%x, [1, 0])
  %y: f32[s0, 3] = aten::linear.default(%t, %w)
  return %y
})";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  cli_test::ToolResult run(std::vector<std::string> args) { return cli_test::runTool(TICO_RUN_PATH, args, dir_.string()); }
  std::filesystem::path dir_;
};

TEST_F(CliSignatures, OneFileWithASubgraphAndSignaturePerRequest) {
  const auto r = run({"dyn.tir", "-o", "m.circle", "--signature", "long:x.1=8", "--signature", "one:x.1=1",
                      "--signature-output-names", "y"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const CircleModel m = readCircleFile((dir_ / "m.circle").string());
  ASSERT_EQ(m.signatures.size(), 2u);
  EXPECT_EQ(m.signatures[0].key, "long");
  EXPECT_EQ(m.signatures[1].key, "one");
  EXPECT_EQ(m.signatures[1].outputs.at(0).name, "y");
  const auto &one = m.subgraphs[m.signatures[1].subgraph_index];
  EXPECT_EQ(one.tensors[static_cast<std::size_t>(one.inputs[0])].shape, (std::vector<int32_t>{1, 1}));
  EXPECT_TRUE(one.tensors[static_cast<std::size_t>(one.inputs[0])].shape_signature.empty()) << "static";
  const auto &big = m.subgraphs[m.signatures[0].subgraph_index];
  EXPECT_EQ(big.tensors[static_cast<std::size_t>(big.outputs[0])].shape, (std::vector<int32_t>{8, 3}));
}

TEST_F(CliSignatures, ABadRequestIsAnErrorAndWritesNothing) {
  auto r = run({"dyn.tir", "-o", "m.circle", "--signature", "big:x.1=9"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("tico-run: error: signature 'big': input 'x' dimension 1 (s0) = 9 is outside the exported "
                          "range [1, 8]"),
            std::string::npos)
      << r.output;
  r = run({"dyn.tir", "-o", "m.circle", "--signature", "x.1=2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is not NAME:INPUT.DIM=SIZE"), std::string::npos) << r.output;
  r = run({"dyn.tir", "-o", "m.circle", "--signature", "a:x.1=2", "--signature-output-names", "p,q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("2 output names given for signature 'a', which has 1 outputs"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "m.circle"));
}

} // namespace
} // namespace tico
