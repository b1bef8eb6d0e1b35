// Consistency checks of the .pt2 frontend: parts of an exported program that state the same
// facts twice must agree, zip entries must not share bytes, the aten operator set must be the
// one PyTorch 2.13 writes, and JSON entries have a size limit. Each case edits a real archive.
#include "pt2_test_support.h"

#include "pt2/json_schema.h"

using namespace pt2test;

namespace {

Json &graphOf(Json &program) { return program["graph_module"]["graph"]; }
Json &signatureOf(Json &program) { return program["graph_module"]["signature"]; }

template <typename Edit> std::string editedLinear(Edit edit) {
  return editedFixture("linear", "models/model.json", edit);
}

// Index of the user input in the linear fixture's input specs (parameters come first).
std::size_t userInputIndex(Json &program) {
  Json &specs = signatureOf(program)["input_specs"];
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].contains("user_input"))
      return i;
  throw std::runtime_error("no user input");
}

} // namespace

// The case: the input's sizes rewritten to [1]*9 (a rank-9 tensor) while the graph's
// strides still describe its [2, 4] layout.
TEST(Pt2Consistency, InputSizesThatDisagreeWithTheGraph) {
  PT2_REQUIRE_FIXTURES();
  std::size_t index = 0;
  const std::string path = editedLinear([&](Json &p) {
    index = userInputIndex(p);
    graphOf(p)["tensor_values"]["x"]["sizes"] = Json::array();
    for (int i = 0; i < 9; ++i)
      graphOf(p)["tensor_values"]["x"]["sizes"].push_back({{"as_int", 1}});
  });
  EXPECT_EQ(loadError(path), path + ": input " + std::to_string(index) +
                                 " 'x': graph.tensor_values gives sizes [1, 1, 1, 1, 1, 1, 1, 1, 1] (rank 9) but "
                                 "strides [4, 1] (rank 2); one of them was changed after export");
}

TEST(Pt2Consistency, OutputTensorMetadataToo) {
  PT2_REQUIRE_FIXTURES();
  const std::string path = editedLinear([](Json &p) { graphOf(p)["tensor_values"]["linear"]["strides"] = {{{"as_int", 1}}}; });
  EXPECT_EQ(loadError(path), path + ": output 0 'linear': graph.tensor_values gives sizes [2, 3] (rank 2) but "
                                    "strides [1] (rank 1); one of them was changed after export");
}

TEST(Pt2Consistency, GraphInputsMustMatchTheSignature) {
  PT2_REQUIRE_FIXTURES();
  std::size_t index = 0;
  std::string path = editedLinear([&](Json &p) {
    index = userInputIndex(p);
    graphOf(p)["inputs"][index]["as_tensor"]["name"] = "y";
  });
  EXPECT_EQ(loadError(path), path + ": input " + std::to_string(index) + ": signature.input_specs[" +
                                 std::to_string(index) + "] names 'x' but graph.inputs[" + std::to_string(index) +
                                 "] is 'y'");
  path = editedLinear([](Json &p) { graphOf(p)["inputs"].erase(0); });
  EXPECT_EQ(loadError(path), path + ": graph.inputs has 2 inputs but signature.input_specs describes 3");
}

TEST(Pt2Consistency, GraphOutputsMustMatchTheSignature) {
  PT2_REQUIRE_FIXTURES();
  std::string path = editedLinear([](Json &p) { graphOf(p)["outputs"].push_back(graphOf(p)["outputs"][0]); });
  EXPECT_EQ(loadError(path), path + ": graph.outputs has 2 outputs but signature.output_specs describes 1");
  path = editedLinear([](Json &p) { signatureOf(p)["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] = "x"; });
  EXPECT_EQ(loadError(path), path + ": output 0: signature.output_specs[0] names 'x' but graph.outputs[0] is 'linear'");
}

TEST(Pt2Consistency, OpsetPolicy) {
  PT2_REQUIRE_FIXTURES();
  std::string path = editedLinear([](Json &p) { p["opset_version"]["aten"] = 999; });
  EXPECT_EQ(loadError(path), path + ": the program uses aten operator set 999; this tico reads aten operator set 10 "
                                    "(written by PyTorch 2.13), whose operators may differ (re-export the model "
                                    "with PyTorch 2.13)");
  path = editedLinear([](Json &p) { p["opset_version"]["aten"] = 9; });
  EXPECT_CONTAINS(loadError(path), "the program uses aten operator set 9;");
  path = editedLinear([](Json &p) { p["opset_version"]["mylib"] = -1; });
  EXPECT_EQ(loadError(path), path + ": opset_version 'mylib' is -1, not a version number");
  path = editedLinear([](Json &p) { p["opset_version"]["aten"] = "ten"; });
  EXPECT_CONTAINS(loadError(path), "opset_version 'aten'");
  // Other operator sets (custom op libraries) are read; so is a program without the field.
  EXPECT_NO_THROW(load(editedLinear([](Json &p) { p["opset_version"]["mylib"] = 3; })));
  EXPECT_NO_THROW(load(editedLinear([](Json &p) { p.erase("opset_version"); })));
}

TEST(Pt2Consistency, OverlappingEntriesAreRefused) {
  auto entries = minimalEntries();
  entries.push_back({"m/data/weights/weight_0", std::string(128, '\x07')});
  const std::size_t format = 1;
  ASSERT_EQ(entries[format].name, "m/archive_format");
  // archive_format's central record claims 300 bytes: its data now runs over the local header
  // and data of archive_version, which follows it.
  BuiltZip zip = buildZip(entries);
  put32(zip.bytes, zip.central_headers[format] + 20, 300); // compressed size
  put32(zip.bytes, zip.central_headers[format] + 24, 300); // size
  const std::string path = writeScratch("overlap.pt2", zip.bytes);
  const std::string message = loadError(path);
  EXPECT_STARTS_WITH(message, path + ": entries 'm/archive_format' (bytes " + std::to_string(zip.local_headers[format]) +
                                  " to ");
  EXPECT_CONTAINS(message, ") and 'm/archive_version' (bytes " + std::to_string(zip.local_headers[format + 1]) + " to ");
  EXPECT_CONTAINS(message, ") overlap");
}

TEST(Pt2Consistency, JsonSizeLimit) {
  EXPECT_NO_THROW(tico::pt2::parseJson("[1, 2, 3]", "x.json", 9));
  try {
    tico::pt2::parseJson("[1, 2, 3]", "models/model.json", 8);
    ADD_FAILURE() << "no error";
  } catch (const tico::Error &e) {
    EXPECT_STREQ(e.what(), "models/model.json holds 9 bytes of JSON; the limit is 0 MiB (8 bytes)");
  }
  EXPECT_EQ(tico::pt2::kMaxJsonBytes, std::size_t{1} << 30);
}

TEST(Pt2Consistency, LongNamesAreClippedInMessages) {
  PT2_REQUIRE_FIXTURES();
  const std::string target(1 << 20, 't');
  const std::string path = editedLinear([&](Json &p) { graphOf(p)["nodes"][0]["target"] = target; });
  const std::string message = loadError(path);
  EXPECT_CONTAINS(message, "target '" + std::string(200, 't') + "... (1048576 bytes)' is not an operator name");
  EXPECT_LT(message.size(), 1000u);
}

TEST(Pt2Consistency, NegativeStridesInSavedTensorsAreRefused) {
  PT2_REQUIRE_FIXTURES();
  const std::string path = editedFixture("linear", "model_weights_config.json", [](Json &c) {
    for (auto &[fqn, meta] : c["config"].items())
      if (fqn == "fc.weight")
        meta["tensor_meta"]["strides"][1] = {{"as_int", -1}};
  });
  EXPECT_CONTAINS(loadError(path), "parameter 'fc.weight' (data/weights/model_weights_config.json): negative stride -1 "
                                   "in dimension 1 (PyTorch tensors never have negative strides)");
}

// Tracker issue 31: an input recorded as [2, 5] (sizes and strides edited together, so each
// tensor is self-consistent) fed into the fixture's Linear of 4 inputs converted, verified and
// failed only when run. The contraction is where the record meets the weight.
TEST(Pt2Consistency, RecordedShapesThatNoComputationProducesAreRefused) {
  PT2_REQUIRE_FIXTURES();
  const std::string path = editedLinear([](Json &p) {
    graphOf(p)["tensor_values"]["x"]["sizes"] = {{{"as_int", 2}}, {{"as_int", 5}}};
    graphOf(p)["tensor_values"]["x"]["strides"] = {{{"as_int", 5}}, {{"as_int", 1}}};
  });
  const std::string error = loadError(path);
  EXPECT_STARTS_WITH(error, path + ": node 'linear' (aten::linear.default) has shapes that do not fit: input features "
                            "against the weight's: 5 against 4 ('x' is [2, 5], '");
  EXPECT_CONTAINS(error, "' is [3, 4]); the program's recorded shapes are damaged or were edited");
  // The output's recorded features too.
  const std::string out = editedLinear([](Json &p) {
    graphOf(p)["tensor_values"]["linear"]["sizes"] = {{{"as_int", 2}}, {{"as_int", 7}}};
    graphOf(p)["tensor_values"]["linear"]["strides"] = {{{"as_int", 7}}, {{"as_int", 1}}};
  });
  EXPECT_CONTAINS(loadError(out), "output features against the weight's rows: 7 against 3");
}

namespace {

// The "shapes" fixture (permute, cat, reshape, a broadcast add, expand) with the recorded sizes
// of `value` replaced by `sizes` (contiguous strides to match).
std::string editedShapes(const std::string &value, const std::vector<int64_t> &sizes) {
  return editedFixture("shapes", "models/model.json", [&](Json &p) {
    Json s = Json::array(), st = Json::array();
    int64_t stride = 1;
    std::vector<int64_t> strides(sizes.size());
    for (std::size_t i = sizes.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= sizes[i];
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      s.push_back({{"as_int", sizes[i]}});
      st.push_back({{"as_int", strides[i]}});
    }
    graphOf(p)["tensor_values"][value]["sizes"] = s;
    graphOf(p)["tensor_values"][value]["strides"] = st;
  });
}

} // namespace

// Beyond the contracting ops: a record that its producer's inputs cannot give is refused at
// import, naming the node, the rule and both shapes.
TEST(Pt2Consistency, RecordedShapesOfViewsConcatenationsAndBroadcastsAreChecked) {
  PT2_REQUIRE_FIXTURES();
  std::string error = loadError(editedShapes("permute", {2, 3, 4}));
  EXPECT_CONTAINS(error, "node 'permute' (aten::permute.default) has shapes that do not fit: output dimension 1 "
                         "against input dimension 2: 3 against 4 ('permute' is [2, 3, 4], 'x' is [2, 3, 4])");
  error = loadError(editedShapes("cat", {2, 9, 3}));
  EXPECT_CONTAINS(error, "node 'cat' (aten::cat.default) has shapes that do not fit: the parts' dimension 1 adds up "
                         "to 8, the output's is 9");
  error = loadError(editedShapes("reshape", {2, 25}));
  EXPECT_CONTAINS(error, "node 'reshape' (aten::reshape.default) has shapes that do not fit: a reshape from 48 "
                         "elements to 50 ('cat' is [2, 8, 3], 'reshape' is [2, 25])");
  error = loadError(editedShapes("add", {2, 23}));
  EXPECT_CONTAINS(error, "node 'add' (aten::add.Tensor) has shapes that do not fit: dimension 1 of an operand (24) "
                         "neither is 1 nor matches the output's (23)");
  error = loadError(editedShapes("add", {3, 2, 24}));
  EXPECT_CONTAINS(error, "output dimension 0 is 3 but every operand has 1 or nothing there");
  error = loadError(editedShapes("slice_1", {2, 2, 4}));
  EXPECT_CONTAINS(error, "node 'expand' (aten::expand.default) has shapes that do not fit: dimension 1 of an operand "
                         "(2) neither is 1 nor matches the output's (5)");
  EXPECT_CONTAINS(error, "the program's recorded shapes are damaged or were edited");
}
