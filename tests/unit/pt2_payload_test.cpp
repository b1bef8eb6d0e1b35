// Weights and constants: views into mapped payload files, and every way they can be wrong.
#include "pt2_test_support.h"

using namespace pt2test;

namespace {

template <typename Edit> std::string editedWeights(Edit edit) {
  return editedFixture("linear", "data/weights/model_weights_config.json", edit);
}

// The linear fixture with the payload file of fc.weight replaced by `bytes`.
std::string linearWithWeightFile(const std::string &bytes) {
  auto entries = readEntries(fixture("linear"));
  Json config = Json::parse(findEntry(entries, "data/weights/model_weights_config.json")->data);
  std::string file = config["config"]["fc.weight"]["path_name"];
  findEntry(entries, "data/weights/" + file)->data = bytes;
  return writeScratch("linear.pt2", buildZip(entries).bytes);
}

} // namespace

TEST(Pt2Payload, ViewOutOfBounds) {
  PT2_REQUIRE_FIXTURES();
  std::string path = editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"]["storage_offset"] = {{"as_int", 100}}; });
  std::string message = loadError(path);
  EXPECT_CONTAINS(message, path + ": parameter 'fc.weight' (data/weights/model_weights_config.json): tensor view "
                                        "(offset 100, last element 111) reaches outside its storage of 12 elements");

  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) {
                c["config"]["fc.weight"]["tensor_meta"]["strides"] = {{{"as_int", 4611686018427387904}}, {{"as_int", 1}}};
              })),
              "parameter 'fc.weight' (data/weights/model_weights_config.json): tensor view (offset 0) reaches "
                        "outside its storage");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"]["storage_offset"] = {{"as_int", -1}}; })),
              "reaches outside its storage");
}

TEST(Pt2Payload, PickledTensorSubclass) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["use_pickle"] = true; })),
              "tensor subclass 'fc.weight' is pickled; not supported");
}

TEST(Pt2Payload, SizeNotAMultipleOfTheElementSize) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(linearWithWeightFile(std::string(47, '\0'))),
              "has 47 bytes, not a multiple of the 4-byte element size of torch.float32");
}

TEST(Pt2Payload, ShorterFileThanTheView) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(linearWithWeightFile(std::string(40, '\0'))),
              "reaches outside its storage of 10 elements");
}

TEST(Pt2Payload, EmptyFileMeansZeros) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(linearWithWeightFile(""));
  const auto &data = graph->findValue("p_fc_weight")->constant();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->sizes, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(data->storage->file(), nullptr) << "zeros are owned, not mapped";
  auto bytes = data->contiguousBytes();
  EXPECT_EQ(bytes, std::vector<std::byte>(48, std::byte{0}));
}

TEST(Pt2Payload, MissingEntries) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["path_name"] = "weight_77"; })),
              "parameter 'fc.weight' (data/weights/model_weights_config.json): payload file "
                        "data/weights/weight_77 is missing from the archive");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["path_name"] = "../../x"; })),
              "invalid payload file name '../../x'");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"].erase("fc.bias"); })),
              "parameter 'fc.bias' is not in data/weights/model_weights_config.json");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"] = nullptr; })),
              "no tensor_meta (not a tensor)");
}

TEST(Pt2Payload, MetadataMustAgreeWithTheGraph) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) {
                auto &meta = c["config"]["fc.weight"]["tensor_meta"];
                meta["sizes"] = {{{"as_int", 4}}, {{"as_int", 3}}};
                meta["strides"] = {{{"as_int", 3}}, {{"as_int", 1}}};
              })),
              "parameter 'fc.weight': the saved tensor is f32[4, 3] but the graph declares 'p_fc_weight' as "
                        "f32[3, 4]");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"]["dtype"] = 99; })),
              "unknown dtype code 99");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"]["layout"] = 1; })),
              "only strided (dense) tensors are supported");
  EXPECT_CONTAINS(loadError(editedWeights([](Json &c) {
                c["config"]["fc.weight"]["tensor_meta"]["sizes"][0] = {
                    {"as_expr", {{"expr_str", "Symbol('s0', integer=True)"}, {"hint", {{"as_int", 3}}}}}};
              })),
              "expected a concrete integer, found the symbolic expression");
}

TEST(Pt2Payload, CudaDeviceReadsAsCpu) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(editedWeights([](Json &c) { c["config"]["fc.weight"]["tensor_meta"]["device"] = {{"type", "cuda"}, {"index", 0}}; }));
  EXPECT_NE(graph->findValue("p_fc_weight")->constant(), nullptr);
}

TEST(Pt2Payload, CustomObjectConstantsAreNotLoadedUnlessUsed) {
  PT2_REQUIRE_FIXTURES();
  // A TorchBind object in the constants config (tensor_meta null, pickled) is harmless until a
  // signature entry asks for it.
  auto entries = readEntries(fixture("buffers"));
  Entry *config = findEntry(entries, "data/constants/model_constants_config.json");
  Json j = Json::parse(config->data);
  j["config"]["obj"] = {{"path_name", "custom_obj_0"}, {"is_param", false}, {"use_pickle", true}, {"tensor_meta", nullptr}};
  config->data = j.dump();
  entries.push_back({entries.front().name.substr(0, entries.front().name.find('/')) + "/data/constants/custom_obj_0", "pickle"});
  EXPECT_NO_THROW(load(writeScratch("buffers.pt2", buildZip(entries).bytes)));
}
