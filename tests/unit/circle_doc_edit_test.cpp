// Editing a CircleModel: removals renumber every reference (operators, subgraph I/O,
// signatures, control flow), refused edits leave the model unchanged, compaction, and edited
// models survive a save/load round trip.
#include "circle_doc_test_support.h"

#include "tico/circle/edit.h"
#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

namespace tico {
namespace {

using namespace circle_doc_test;

std::shared_ptr<const Storage> bytesOf(const std::vector<uint8_t> &bytes) {
  std::vector<std::byte> copy(bytes.size());
  std::memcpy(copy.data(), bytes.data(), bytes.size());
  return Storage::fromBytes(std::move(copy));
}

CircleModel roundTrip(const CircleModel &model) { return readCircleBytes(bytesOf(serializeCircle(model)), "rt"); }

TEST(CircleDocEdit, ProducersAndConsumers) {
  const CircleModel model = linearModel();
  EXPECT_EQ(tensorProducers(model.subgraphs[0]), (std::vector<int32_t>{-1, -1, 0, 1, 2}));
  const auto consumers = tensorConsumers(model.subgraphs[0]);
  EXPECT_EQ(consumers[0], (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(consumers[2], (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(consumers[4].empty());
  EXPECT_TRUE(isConstantTensor(model, model.subgraphs[0].tensors[1]));
  EXPECT_FALSE(isConstantTensor(model, model.subgraphs[0].tensors[0]));
}

TEST(CircleDocEdit, RemoveTensorsRenumbersEveryReference) {
  CircleModel model = linearModel();
  // Bypass the multiplication: z = t + t, then y (tensor 3) and the MUL are dead.
  EXPECT_EQ(replaceTensorUses(model, 0, 3, 2), 1u);
  removeOperators(model, 0, {1});
  model.subgraphs[0].tensors.insert(model.subgraphs[0].tensors.begin(), tensor("unused", {1}));
  // Shift every index by one by hand, then remove the new tensor 0 again through the API.
  for (auto &op : model.subgraphs[0].operators)
    for (auto *list : {&op.inputs, &op.outputs})
      for (int32_t &t : *list)
        ++t;
  for (auto *list : {&model.subgraphs[0].inputs, &model.subgraphs[0].outputs})
    for (int32_t &t : *list)
      ++t;
  for (auto &m : model.signatures[0].inputs)
    ++m.tensor_index;
  for (auto &m : model.signatures[0].outputs)
    ++m.tensor_index;
  const IndexMap map = removeTensors(model, 0, {0, 4});
  EXPECT_EQ(map, (IndexMap{-1, 0, 1, 2, -1, 3}));
  const CircleSubGraph &sg = model.subgraphs[0];
  ASSERT_EQ(sg.tensors.size(), 4u);
  EXPECT_EQ(sg.tensors[3].name, "z");
  EXPECT_EQ(sg.operators[0].inputs, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(sg.operators[1].inputs, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(sg.operators[1].outputs, (std::vector<int32_t>{3}));
  EXPECT_EQ(sg.inputs, (std::vector<int32_t>{0}));
  EXPECT_EQ(sg.outputs, (std::vector<int32_t>{3}));
  EXPECT_EQ(model.signatures[0].outputs[0].tensor_index, 3u);
  // The MUL code is unused now; compaction drops it and leaves nothing else to tidy.
  const CompactResult compacted = compact(model);
  EXPECT_EQ(compacted.operator_codes, 1u);
  EXPECT_EQ(compacted.tensors + compacted.buffers, 0u);
  EXPECT_TRUE(verifyCircleModel(model).empty());
  // Compaction that drops nothing of a kind leaves those elements intact (weights included).
  ASSERT_TRUE(model.buffers[1].data);
  EXPECT_EQ(model.buffers[1].data->nbytes(), 16u);
}

TEST(CircleDocEdit, RefusedRemovalLeavesTheModelUnchanged) {
  CircleModel model = linearModel();
  const auto before = serializeCircle(model);
  EXPECT_THROW(removeTensors(model, 0, {2}), Error); // operators 1 and 2 read t
  EXPECT_THROW(removeTensors(model, 0, {9}), Error); // out of range
  EXPECT_THROW(removeOperators(model, 3, {0}), Error);
  EXPECT_EQ(serializeCircle(model), before);
}

TEST(CircleDocEdit, RemoveSubgraphsRenumbersControlFlowAndSignatures) {
  CircleModel model = controlFlowModel();
  // An unused subgraph between main and the branches.
  CircleSubGraph spare;
  spare.name = "spare";
  spare.tensors = {tensor("s", {1})};
  spare.inputs = spare.outputs = {0};
  model.subgraphs.insert(model.subgraphs.begin() + 1, spare);
  auto *options = model.subgraphs[0].operators[0].builtin_options.AsIfOptions();
  options->then_subgraph_index = 2;
  options->else_subgraph_index = 3;
  model.signatures.push_back({"spare", 1, {{"s", 0}}, {{"s", 0}}});
  model.signatures.push_back({"main", 0, {{"c", 0}, {"x", 1}}, {{"y", 2}}});

  EXPECT_THROW(removeSubgraphs(model, {3}), Error); // IF still calls it
  const IndexMap map = removeSubgraphs(model, {1});
  EXPECT_EQ(map, (IndexMap{0, -1, 1, 2}));
  options = model.subgraphs[0].operators[0].builtin_options.AsIfOptions();
  EXPECT_EQ(options->then_subgraph_index, 1);
  EXPECT_EQ(options->else_subgraph_index, 2);
  ASSERT_EQ(model.signatures.size(), 1u); // the spare's signature went with it
  EXPECT_EQ(model.signatures[0].key, "main");
  EXPECT_TRUE(verifyCircleModel(model).empty());
  const CircleModel read = roundTrip(model);
  EXPECT_EQ(read.subgraphs[1].name, "then");
  EXPECT_EQ(read.subgraphs[0].operators[0].builtin_options.AsIfOptions()->else_subgraph_index, 2);
}

TEST(CircleDocEdit, CompactDropsWhatNothingUses) {
  CircleModel model = linearModel();
  model.operator_codes.insert(model.operator_codes.begin(), {static_cast<int32_t>(circle::BuiltinOperator::SUB)});
  for (auto &op : model.subgraphs[0].operators)
    ++op.opcode_index;
  model.subgraphs[0].tensors.push_back(tensor("orphan", {2}, model.addBuffer(floatData({2}, {1.0f, 2.0f}))));
  model.addBuffer(floatData({1}, {3.0f}));
  ASSERT_FALSE(verifyCircleModel(model).empty()); // unused warnings

  const CompactResult result = compact(model);
  EXPECT_EQ(result.tensors, 1u);
  EXPECT_EQ(result.buffers, 2u);
  EXPECT_EQ(result.operator_codes, 1u);
  EXPECT_TRUE(result.changed());
  EXPECT_EQ(model.operator_codes.size(), 2u);
  EXPECT_EQ(model.buffers.size(), 2u);
  EXPECT_EQ(model.subgraphs[0].operators[1].opcode_index, 1u);
  EXPECT_TRUE(verifyCircleModel(model).empty());
  EXPECT_FALSE(compact(model).changed());
}

TEST(CircleDocEdit, CompactSubgraphsKeepsWhatIsReachable) {
  CircleModel model = controlFlowModel();
  CircleSubGraph spare;
  spare.tensors = {tensor("s", {1})};
  spare.inputs = spare.outputs = {0};
  model.subgraphs.push_back(spare);
  CompactOptions options;
  options.subgraphs = true;
  EXPECT_EQ(compact(model, options).subgraphs, 1u);
  EXPECT_EQ(model.subgraphs.size(), 3u);
  // A signature makes a subgraph reachable.
  model.subgraphs.push_back(spare);
  model.signatures.push_back({"spare", 3, {{"s", 0}}, {{"s", 0}}});
  EXPECT_EQ(compact(model, options).subgraphs, 0u);
  EXPECT_EQ(model.subgraphs.size(), 4u);
}

TEST(CircleDocEdit, AddedTensorsAndSubgraphsSurviveARoundTrip) {
  CircleModel model = linearModel();
  // Append a second output: z2 = z * w.
  const uint32_t z2 = addTensor(model, 0, tensor("z2", {1, 4}));
  model.subgraphs[0].operators.push_back(mulOp(1, {4, 1}, {static_cast<int32_t>(z2)}));
  model.subgraphs[0].outputs.push_back(static_cast<int32_t>(z2));
  CircleSubGraph extra;
  extra.name = "extra";
  extra.tensors = {tensor("e", {1})};
  extra.inputs = extra.outputs = {0};
  EXPECT_EQ(addSubgraph(model, extra), 1u);
  model.signatures.push_back({"extra", 1, {{"e", 0}}, {{"e", 0}}});
  ASSERT_TRUE(verifyCircleModel(model).empty());

  const CircleModel read = roundTrip(model);
  ASSERT_EQ(read.subgraphs.size(), 2u);
  EXPECT_EQ(read.subgraphs[0].outputs, (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(read.subgraphs[0].operators[3].inputs, (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(read.signatures[1].key, "extra");
  EXPECT_TRUE(verifyCircleModel(read).empty());
}

TEST(CircleDocEdit, ReplaceUsesCanSpareOutputsAndPickOperators) {
  CircleModel model = linearModel();
  ReplaceUsesOptions options;
  options.subgraph_outputs = false;
  options.only_operators = {2};
  EXPECT_EQ(replaceTensorUses(model, 0, 2, 0, options), 1u);
  EXPECT_EQ(model.subgraphs[0].operators[1].inputs[0], 2); // not selected
  EXPECT_EQ(model.subgraphs[0].operators[2].inputs[1], 0);
  EXPECT_EQ(replaceTensorUses(model, 0, 4, 3), 2u); // subgraph output and signature output
  EXPECT_EQ(model.subgraphs[0].outputs[0], 3);
  EXPECT_EQ(model.signatures[0].outputs[0].tensor_index, 3u);
}

TEST(CircleDocEdit, CalledSubgraphsOfControlFlowOperators) {
  const CircleModel model = controlFlowModel();
  EXPECT_EQ(calledSubgraphs(model.subgraphs[0].operators[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(calledSubgraphs(model.subgraphs[1].operators[0]).empty());
}

} // namespace
} // namespace tico
