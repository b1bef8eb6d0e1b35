// The exported-program JSON: version policy, enum codes, argument variants, signature kinds.
// Each case edits one field of a real archive exported by torch.
#include "pt2_test_support.h"

using namespace pt2test;

namespace {

Json &graphOf(Json &program) { return program["graph_module"]["graph"]; }
Json &nodeNamed(Json &program, const std::string &name) {
  for (Json &n : graphOf(program)["nodes"])
    if (n["name"] == name)
      return n;
  throw std::runtime_error("no node " + name);
}
Json &inputNamed(Json &node, const std::string &name) {
  for (Json &i : node["inputs"])
    if (i["name"] == name)
      return i;
  throw std::runtime_error("no input " + name);
}

template <typename Edit> std::string editedLinear(Edit edit) {
  return editedFixture("linear", "models/model.json", edit);
}

} // namespace

TEST(Pt2Program, SchemaMajorVersion) {
  PT2_REQUIRE_FIXTURES();
  std::string path = editedLinear([](Json &p) { p["schema_version"] = {{"major", 9}, {"minor", 1}}; });
  EXPECT_EQ(loadError(path), path + ": models/model.json was written with export schema 9.1; this tico reads "
                                    "schema 8 (PyTorch 2.13 writes 8.20)");
  // A newer minor loads (with a warning); unknown additions are rejected where they appear.
  EXPECT_NO_THROW(load(editedLinear([](Json &p) { p["schema_version"]["minor"] = 99; })));
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { p.erase("schema_version"); })),
              "exported program: missing field 'schema_version'");
}

TEST(Pt2Program, UnknownDtypeCode) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { graphOf(p)["tensor_values"]["linear"]["dtype"] = 99; })),
              "node 'linear' output 0: tensor 'linear': unknown dtype code 99 (export schema 8.20 "
                        "defines 0-13 and 28-35)");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { graphOf(p)["tensor_values"]["x"]["dtype"] = 14; })),
              "tensor 'x': unknown dtype code 14");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { graphOf(p)["tensor_values"]["linear"]["dtype"] = 29; })),
              "tensor 'linear': dtype FLOAT8E4M3FN (schema code 29) is not supported by tico");
}

TEST(Pt2Program, DtypeCodesMapByName) {
  PT2_REQUIRE_FIXTURES();
  // Schema numbers are not c10 numbers: BFLOAT16 is 13 (c10 15), UINT16 28 (c10 27).
  const std::vector<std::pair<int, tico::DType>> cases = {
      {1, tico::DType::UInt8},   {2, tico::DType::Int8},     {3, tico::DType::Int16},
      {4, tico::DType::Int32},   {5, tico::DType::Int64},    {6, tico::DType::Float16},
      {7, tico::DType::Float32}, {8, tico::DType::Float64},  {10, tico::DType::Complex64},
      {11, tico::DType::Complex128}, {12, tico::DType::Bool}, {13, tico::DType::BFloat16},
      {28, tico::DType::UInt16}, {34, tico::DType::UInt32},  {35, tico::DType::UInt64},
  };
  for (auto [code, dtype] : cases) {
    SCOPED_TRACE(code);
    auto graph = load(editedLinear([code = code](Json &p) { graphOf(p)["tensor_values"]["x"]["dtype"] = code; }));
    EXPECT_EQ(graph->findValue("x")->dtype(), dtype);
  }
}

TEST(Pt2Program, ArgumentVariants) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                inputNamed(nodeNamed(p, "linear"), "input")["arg"] = {{"as_foo", 1}};
              })),
              "node 'linear' argument 'input': unknown argument variant 'as_foo' (not in export schema 8.20)");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                inputNamed(nodeNamed(p, "linear"), "input")["arg"] = {{"as_graph", {{"name", "g"}}}};
              })),
              "node 'linear' argument 'input': argument variant 'as_graph' (a higher-order op subgraph) is "
                        "not supported");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                inputNamed(nodeNamed(p, "linear"), "input")["arg"] = {{"as_tensor", {{"name", "x"}}}, {"as_int", 1}};
              })),
              "node 'linear' argument 'input': expected a union (an object with one member), found 2 members");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                inputNamed(nodeNamed(p, "linear"), "input")["arg"] = {{"as_tensor", {{"name", "nowhere"}}}};
              })),
              "node 'linear' argument 'input': refers to 'nowhere', which is not defined before this point");
  // The schema checks kinds: a string where linear wants a tensor. (Numbers are accepted in
  // Tensor slots: torch.export records x + 2.5 as add.Tensor(x, 2.5).)
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                inputNamed(nodeNamed(p, "linear"), "input")["arg"] = {{"as_string", "x"}};
              })),
              "node 'linear': ");
}

TEST(Pt2Program, MalformedStructure) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { graphOf(p)["nodes"] = "none"; })),
              "graph.nodes: expected a list, found string");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { p.erase("graph_module"); })),
              "exported program: missing field 'graph_module'");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { nodeNamed(p, "linear")["target"] = "not an op"; })),
              "node 'linear': target 'not an op' is not an operator name");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { graphOf(p)["tensor_values"].erase("linear"); })),
              "tensor 'linear' has no entry in graph.tensor_values");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                nodeNamed(p, "linear")["outputs"][0] = {{"as_tensor", {{"name", "x"}}}};
              })),
              "node 'linear': value 'x' is defined twice");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                graphOf(p)["tensor_values"]["x"]["sizes"][0] = {{"as_expr", {{"expr_str", "Bogus(("}}}};
              })),
              "cannot read symbolic expression \"Bogus((\"");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) { p["range_constraints"] = {{"s0", {{"min_val", 5}, {"max_val", 2}}}}; })),
              "range_constraints 's0': max_val 2 is below min_val 5");
}

TEST(Pt2Program, SignatureKinds) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                auto &specs = p["graph_module"]["signature"]["input_specs"];
                specs.push_back({{"token", {{"arg", {{"name", "token_1"}}}}}});
              })),
              "(token): the program threads an effect token (ops with side effects); effect tokens are not "
                        "supported");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                auto &specs = p["graph_module"]["signature"]["input_specs"];
                specs.push_back({{"custom_obj",
                                  {{"arg", {{"name", "obj"}, {"class_fqn", "__torch__.Foo"}}}, {"custom_obj_name", "foo"}}}});
              })),
              "(custom_obj): the program takes a TorchBind custom object ('foo'); custom objects are not "
                        "supported");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                p["graph_module"]["signature"]["input_specs"].push_back({{"mystery", Json::object()}});
              })),
              "unknown input spec kind 'mystery'");
  EXPECT_CONTAINS(loadError(editedLinear([](Json &p) {
                p["graph_module"]["signature"]["output_specs"].push_back(
                    {{"loss_output", {{"arg", {{"name", "linear"}}}}}});
              })),
              "(loss_output): training (joint forward-backward) programs are not supported");

  // Constant inputs and mutation outputs are kept. Each spec has its graph input or output,
  // as torch writes them (the frontend checks that the two lists agree).
  auto graph = load(editedLinear([](Json &p) {
    auto &sig = p["graph_module"]["signature"];
    sig["input_specs"].push_back({{"constant_input", {{"name", "flag"}, {"value", {{"as_bool", true}}}}}});
    p["graph_module"]["graph"]["inputs"].push_back({{"as_bool", true}});
    sig["output_specs"].push_back({{"user_input_mutation", {{"arg", {{"name", "linear"}}}, {"user_input_name", "x"}}}});
    p["graph_module"]["graph"]["outputs"].push_back({{"as_tensor", {{"name", "linear"}}}});
  }));
  const auto &in = graph->inputs().back();
  EXPECT_EQ(in.kind, tico::InputKind::ConstantInput);
  EXPECT_EQ(in.name, "flag");
  EXPECT_EQ(in.constant_value, tico::Argument::boolean(true));
  const auto &out = graph->outputs().back();
  EXPECT_EQ(out.kind, tico::OutputKind::UserInputMutation);
  EXPECT_EQ(out.target, "x");
  EXPECT_EQ(out.value.asValue(), graph->findValue("linear"));
}

TEST(Pt2Program, OpsWithoutSchemaImportAsWritten) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(editedLinear([](Json &p) {
    Json &node = nodeNamed(p, "linear");
    node["target"] = "torch.ops.mylib.fancy.default";
    node["inputs"].push_back({{"name", "alpha"}, {"arg", {{"as_float", "-Infinity"}}}, {"kind", 2}});
  }));
  const tico::Node *node = graph->findValue("linear")->producer();
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->op(), tico::OpKey("mylib", "fancy", "default"));
  EXPECT_EQ(node->schema(), nullptr);
  ASSERT_EQ(node->numArgs(), 4u);
  EXPECT_EQ(node->arg("input").asValue(), graph->findValue("x"));
  EXPECT_EQ(node->arg("alpha").asDouble(), -std::numeric_limits<double>::infinity());
}
