// The merged editing API of the Circle document library: compact() in both orders (the
// circle-passes `compact` pass is its first-use form), SubgraphEditor's live tables and the
// ordering finish() restores, and the shared queries (operator names, typed payloads, side
// effects).
#include "circle_doc_test_support.h"

#include "tico/circle/edit.h"
#include "tico/circle/query.h"
#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace tico {
namespace {

using namespace circle_doc_test;
using Op = circle::BuiltinOperator;

template <typename T> T elementAt(const TensorData &data, std::size_t index) {
  const auto bytes = data.contiguousBytes();
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

std::vector<std::string> tensorNames(const CircleSubGraph &sg) {
  std::vector<std::string> names;
  for (const auto &t : sg.tensors)
    names.push_back(t.name);
  return names;
}

std::vector<std::string> operatorNames(const CircleModel &model, uint32_t subgraph = 0) {
  std::vector<std::string> names;
  for (const auto &op : model.subgraphs[subgraph].operators)
    names.push_back(operatorName(model, op));
  return names;
}

// linearModel() with its tensors stored in reverse (z y t w x), a second constant whose buffer
// comes before w's, and the operator codes swapped (MUL first): every list is out of first-use
// order, nothing is unused.
CircleModel scrambledLinearModel() {
  CircleModel m;
  m.operator_codes = {{static_cast<int32_t>(Op::MUL)}, {static_cast<int32_t>(Op::ADD)}};
  const uint32_t v = m.addBuffer(floatData({4}, {1, 1, 1, 1}));
  const uint32_t w = m.addBuffer(floatData({4}, {0.5f, -1.0f, 2.0f, 0.25f}));
  CircleSubGraph sg;
  sg.tensors = {tensor("z", {1, 4}), tensor("v", {4}, v), tensor("y", {1, 4}), tensor("t", {1, 4}),
                tensor("w", {4}, w), tensor("x", {1, 4})};
  sg.inputs = {5};
  sg.outputs = {0};
  // t = x + w; y = t * v; z = y + t
  sg.operators = {addOp(1, {5, 4}, {3}), mulOp(0, {3, 1}, {2}), addOp(1, {2, 3}, {0})};
  m.subgraphs.push_back(std::move(sg));
  m.signatures.push_back({"serving_default", 0, {{"x", 5}}, {{"z", 0}}});
  return m;
}

TEST(CircleDocCompact, KeepOrderLeavesAFullyUsedModelAlone) {
  CircleModel model = scrambledLinearModel();
  const CompactResult result = compact(model);
  EXPECT_FALSE(result.changed());
  EXPECT_EQ(tensorNames(model.subgraphs[0]), (std::vector<std::string>{"z", "v", "y", "t", "w", "x"}));
}

TEST(CircleDocCompact, FirstUseRenumbersEveryListByUse) {
  CircleModel model = scrambledLinearModel();
  CompactOptions options;
  options.order = CompactOrder::FirstUse;
  const CompactResult result = compact(model, options);
  EXPECT_TRUE(result.reordered);
  EXPECT_TRUE(result.changed());
  EXPECT_EQ(result.tensors + result.buffers + result.operator_codes, 0u);

  const CircleSubGraph &sg = model.subgraphs[0];
  EXPECT_EQ(tensorNames(sg), (std::vector<std::string>{"x", "w", "t", "v", "y", "z"}));
  EXPECT_EQ(sg.inputs, (std::vector<int32_t>{0}));
  EXPECT_EQ(sg.outputs, (std::vector<int32_t>{5}));
  EXPECT_EQ(sg.operators[1].inputs, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(model.signatures[0].inputs[0].tensor_index, 0u);
  EXPECT_EQ(model.signatures[0].outputs[0].tensor_index, 5u);
  // Buffers follow the tensors that use them (w before v); codes follow the operators.
  EXPECT_EQ(sg.tensors[1].buffer, 1u);
  EXPECT_EQ(sg.tensors[3].buffer, 2u);
  EXPECT_FLOAT_EQ(elementAt<float>(*model.buffers[1].data, 0), 0.5f);
  EXPECT_EQ(model.operator_codes[0].builtin_code, static_cast<int32_t>(Op::ADD));
  EXPECT_EQ(operatorNames(model), (std::vector<std::string>{"ADD", "MUL", "ADD"}));
  EXPECT_TRUE(verifyCircleModel(model).empty());

  // A canonical numbering is a fixed point.
  EXPECT_FALSE(compact(model, options).changed());
}

TEST(CircleDocCompact, FirstUseDropsWhatNothingUses) {
  CircleModel model = scrambledLinearModel();
  model.subgraphs[0].tensors.push_back(tensor("orphan", {2}, model.addBuffer(floatData({2}, {1, 2}))));
  model.operator_codes.push_back({static_cast<int32_t>(Op::SUB)});
  CompactOptions options;
  options.order = CompactOrder::FirstUse;
  const CompactResult result = compact(model, options);
  EXPECT_EQ(result.tensors, 1u);
  EXPECT_EQ(result.buffers, 1u);
  EXPECT_EQ(result.operator_codes, 1u);
  EXPECT_EQ(model.subgraphs[0].tensors.size(), 6u);
  EXPECT_EQ(model.buffers.size(), 3u);
  EXPECT_TRUE(verifyCircleModel(model).empty());
}

TEST(CircleDocCompact, UniqueNamesRenameDuplicatesButNotTheInterface) {
  CircleModel model = linearModel(); // x w t y z
  auto &tensors = model.subgraphs[0].tensors;
  tensors[1].name = "x"; // same name as the input
  tensors[2].name = "t";
  tensors[3].name = "t";
  tensors[4].name = "t"; // the output keeps it
  CompactOptions options;
  options.unique_names = true;
  const CompactResult result = compact(model, options);
  EXPECT_EQ(result.renamed, 3u);
  EXPECT_TRUE(result.changed());
  EXPECT_EQ(tensorNames(model.subgraphs[0]), (std::vector<std::string>{"x", "x_1", "t_1", "t_2", "t"}));
  EXPECT_FALSE(compact(model, options).changed());
}

TEST(CircleDocCompact, BlockwiseQuantizationKeepsAndRenumbersItsScales) {
  CircleModel model = scrambledLinearModel();
  auto &sg = model.subgraphs[0];
  // The scales tensor comes first in storage and no operator reads it; w's record names it.
  sg.tensors.insert(sg.tensors.begin(), tensor("w_scales", {2}, model.addBuffer(floatData({2}, {1, 2}))));
  for (auto &op : sg.operators) {
    for (int32_t &t : op.inputs)
      ++t;
    for (int32_t &t : op.outputs)
      ++t;
  }
  for (int32_t &t : sg.inputs)
    ++t;
  for (int32_t &t : sg.outputs)
    ++t;
  for (auto *maps : {&model.signatures[0].inputs, &model.signatures[0].outputs})
    for (auto &m : *maps)
      ++m.tensor_index;
  auto quantization = std::make_shared<circle::QuantizationParametersT>();
  circle::BlockwiseQuantizationT block;
  block.scales = 0;
  block.zero_points = -1;
  block.block_size = 2;
  quantization->details.Set(block);
  sg.tensors[5].quantization = quantization; // w

  for (CompactOrder order : {CompactOrder::Keep, CompactOrder::FirstUse}) {
    CircleModel copy = model;
    CompactOptions options;
    options.order = order;
    EXPECT_EQ(compact(copy, options).tensors, 0u);
    const auto &tensors = copy.subgraphs[0].tensors;
    ASSERT_EQ(tensors.size(), 7u);
    const auto w = std::find_if(tensors.begin(), tensors.end(), [](const CircleTensor &t) { return t.name == "w"; });
    const int32_t scales = w->quantization->details.AsBlockwiseQuantization()->scales;
    ASSERT_GE(scales, 0);
    EXPECT_EQ(tensors[scales].name, "w_scales");
  }
  // First use puts the scales right after everything the operators use.
  CompactOptions first_use;
  first_use.order = CompactOrder::FirstUse;
  compact(model, first_use);
  EXPECT_EQ(model.subgraphs[0].tensors.back().name, "w_scales");
}

// ---- SubgraphEditor ---------------------------------------------------------------------------

TEST(CircleDocSubgraphEditor, TablesFollowEdits) {
  CircleModel model = linearModel(); // t = x + w (op 0); y = t * x (op 1); z = y + t (op 2)
  SubgraphEditor e(model, 0);
  EXPECT_EQ(e.producer(2), 0);
  EXPECT_EQ(e.producer(0), -1);
  EXPECT_EQ(e.consumers(0), (std::vector<int>{0, 1}));
  EXPECT_EQ(e.useCount(4), 1); // the subgraph output
  EXPECT_TRUE(e.isGraphInput(0));
  EXPECT_TRUE(e.isGraphOutput(4));
  EXPECT_TRUE(e.isConstantTensor(1));
  EXPECT_FALSE(e.isConstantTensor(0));
  EXPECT_TRUE(e.onlyUseIs(3, 2));
  EXPECT_EQ(e.code(1), Op::MUL);
  EXPECT_FALSE(e.changed());

  // z = t + t: y and the MUL are dead.
  e.setInput(2, 0, 2);
  EXPECT_EQ(e.useCount(3), 0);
  EXPECT_EQ(e.consumers(2), (std::vector<int>{1, 2}));
  e.removeOp(1);
  EXPECT_FALSE(e.alive(1));
  EXPECT_EQ(e.producer(3), -1);
  EXPECT_EQ(e.consumers(0), (std::vector<int>{0}));
  EXPECT_TRUE(e.onlyUseIs(2, 2));
  EXPECT_TRUE(e.finish());
  EXPECT_EQ(operatorNames(model), (std::vector<std::string>{"ADD", "ADD"}));
  EXPECT_TRUE(compact(model).changed()); // y is left for compact
  EXPECT_TRUE(verifyCircleModel(model).empty());
}

TEST(CircleDocSubgraphEditor, FinishPlacesNewOperatorsBeforeTheirAnchor) {
  CircleModel model = linearModel();
  SubgraphEditor e(model, 0);
  // r = relu(x), anchored before op 1; op 2 then reads r instead of t.
  const int32_t r = e.addTensorLike(0, {1, 4}, "r");
  const int relu = e.addOp(Op::RELU, {0}, {r}, {}, /*anchor=*/1);
  EXPECT_EQ(relu, 3);
  EXPECT_EQ(e.producer(r), relu);
  e.replaceUsesIn(2, 2, r);
  EXPECT_TRUE(e.finish());
  EXPECT_EQ(operatorNames(model), (std::vector<std::string>{"ADD", "RELU", "MUL", "ADD"}));
  EXPECT_EQ(model.subgraphs[0].operators[3].inputs, (std::vector<int32_t>{3, r}));
  EXPECT_TRUE(verifyCircleModel(model, {.warnings = false}).empty());
}

TEST(CircleDocSubgraphEditor, FinishMovesAnOperatorOnlyAsFarAsItsInputsRequire) {
  CircleModel model = linearModel();
  SubgraphEditor e(model, 0);
  // Anchored before op 0, but it reads y (written by op 1): it must follow op 1, and it must
  // not overtake op 2, which it does not depend on, more than needed (stable order).
  const int32_t n = e.addTensorLike(3, {1, 4}, "n");
  e.addOp(Op::NEG, {3}, {n}, {}, /*anchor=*/0);
  // An operator appended at the end stays at the end.
  const int32_t m = e.addTensorLike(0, {1, 4}, "m");
  e.addOp(Op::ABS, {0}, {m}, {}, /*anchor=*/-1);
  EXPECT_TRUE(e.finish());
  EXPECT_EQ(operatorNames(model), (std::vector<std::string>{"ADD", "MUL", "NEG", "ADD", "ABS"}));
}

TEST(CircleDocSubgraphEditor, FinishRefusesADataflowCycle) {
  CircleModel model = linearModel();
  SubgraphEditor e(model, 0);
  e.setInput(0, 0, 4); // t = z + w, but z depends on t
  EXPECT_THROW(e.finish(), Error);
}

TEST(CircleDocSubgraphEditor, NothingChangedMeansNothingToFinish) {
  CircleModel model = linearModel();
  const CircleModel before = model;
  EXPECT_FALSE(forEachSubgraph(model, [](SubgraphEditor &) {}));
  EXPECT_EQ(tensorNames(model.subgraphs[0]), tensorNames(before.subgraphs[0]));
}

TEST(CircleDocSubgraphEditor, NewConstantsHaveTypedPayloads) {
  CircleModel model = linearModel();
  SubgraphEditor e(model, 0);
  const int32_t c = e.addInt32Constant({3, -1}, {2}, "c");
  EXPECT_TRUE(e.isConstantTensor(c));
  EXPECT_EQ(e.tensor(c).type, circle::TensorType::INT32);
  const auto &data = *model.buffers[e.tensor(c).buffer].data;
  EXPECT_EQ(elementAt<int32_t>(data, 1), -1);
  EXPECT_TRUE(hasTypedPayload(model, e.tensor(c)));
}

// ---- Queries -----------------------------------------------------------------------------------

TEST(CircleDocQuery, OneOperatorNameForToolsVerifierAndPasses) {
  CircleModel model = linearModel();
  model.operator_codes.push_back({static_cast<int32_t>(Op::CUSTOM), "MyOp"});
  model.operator_codes.push_back({5000});
  EXPECT_EQ(operatorCodeName(model, 0), "ADD");
  EXPECT_EQ(operatorCodeName(model, 2), "CUSTOM(MyOp)");
  EXPECT_EQ(operatorCodeName(model, 3), "operator code 5000");
  EXPECT_EQ(operatorCodeName(model, 9), "operator code #9");
  EXPECT_EQ(operatorName(model, model.subgraphs[0].operators[1]), "MUL");
  EXPECT_EQ(builtinOf(model, op(9, {}, {})), Op::CUSTOM);
  EXPECT_EQ(customCodeOf(model, op(2, {}, {})), "MyOp");
}

TEST(CircleDocQuery, TypedPayloadNeedsTheExactSize) {
  CircleModel model = linearModel();
  CircleTensor w = model.subgraphs[0].tensors[1]; // float32[4], 16 bytes
  EXPECT_TRUE(hasTypedPayload(model, w));
  EXPECT_TRUE(isConstantTensor(model, w));
  CircleTensor wrong_shape = w;
  wrong_shape.shape = {5};
  EXPECT_FALSE(hasTypedPayload(model, wrong_shape));
  EXPECT_TRUE(isConstantTensor(model, wrong_shape)); // it still has data
  CircleTensor variable = w;
  variable.is_variable = true;
  EXPECT_FALSE(hasTypedPayload(model, variable));
  CircleTensor dynamic = w;
  dynamic.shape_signature = {-1};
  EXPECT_FALSE(hasTypedPayload(model, dynamic));
  CircleTensor huge = w;
  huge.shape = {INT32_MAX, INT32_MAX, INT32_MAX};
  EXPECT_FALSE(hasTypedPayload(model, huge));
  EXPECT_EQ(circleElementSize(circle::TensorType::FLOAT16), 2u);
  EXPECT_EQ(circleElementSize(circle::TensorType::STRING), 0u);
}

TEST(CircleDocQuery, SideEffects) {
  const CircleModel flow = controlFlowModel();
  EXPECT_TRUE(hasSideEffects(flow, flow.subgraphs[0], flow.subgraphs[0].operators[0])); // IF
  EXPECT_FALSE(hasSideEffects(flow, flow.subgraphs[1], flow.subgraphs[1].operators[0])); // ADD
  CircleModel model = linearModel();
  model.subgraphs[0].tensors[1].is_variable = true; // the ADD now reads a variable
  EXPECT_TRUE(hasSideEffects(model, model.subgraphs[0], model.subgraphs[0].operators[0]));
  // Options that call a subgraph count even under another code.
  CircleOperator call = op(1, {}, {}); // ADD
  circle::CallOnceOptionsT once;
  once.init_subgraph_index = 1;
  call.builtin_options.Set(once);
  EXPECT_TRUE(hasSideEffects(flow, flow.subgraphs[0], call));
}

} // namespace
} // namespace tico
