// Typed op identities: interned OpIds, the generated OpRef constants, Node::opId(), and the
// Circle-extension constants against the schemas the circle-lowering plugin registers.
#include "pt2/torch_op_table.h"
#include "tico/ir/graph.h"
#include "tico/ir/op_ref.h"
#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/plugin/loader.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <unordered_set>

namespace tico {
namespace {

TEST(OpIdTest, InterningGivesOneIdPerKey) {
  OpId add = OpId::of(OpKey("aten", "add", "Tensor"));
  EXPECT_TRUE(add.valid());
  EXPECT_EQ(add, OpId::of(OpKey::parseOrThrow("aten.add.Tensor")));
  EXPECT_NE(add, OpId::of(OpKey("aten", "add", "Scalar")));
  EXPECT_EQ(add.key().str(), "aten::add.Tensor");
  EXPECT_FALSE(OpId().valid());
  EXPECT_THROW(OpId().key(), Error);
  std::unordered_set<OpId> set{add, OpId::of(OpKey("aten", "add", "Tensor"))};
  EXPECT_EQ(set.size(), 1u);
}

TEST(OpRefTest, ConstantsCarryTheCanonicalKey) {
  const OpRef &add = ops::aten::add_Tensor;
  EXPECT_EQ(add.str(), "aten::add.Tensor");
  EXPECT_EQ(add.ns(), "aten");
  EXPECT_EQ(add.name(), "add");
  EXPECT_EQ(add.overload(), "Tensor");
  EXPECT_EQ(add.key(), OpKey("aten", "add", "Tensor"));
  std::string_view text = ops::aten::relu_default;
  EXPECT_EQ(text, "aten::relu.default");
  EXPECT_EQ(ops::_operator::add_default.key(), OpKey::parseOrThrow("_operator.add"));
  EXPECT_EQ(ops::circle::conv2d_padding.str(), "circle::conv2d.padding");
}

TEST(OpRefTest, IdIsTheInternedIdOfTheKey) {
  EXPECT_EQ(ops::aten::mul_Tensor.id(), OpId::of(OpKey("aten", "mul", "Tensor")));
  EXPECT_EQ(ops::aten::mul_Tensor.id(), ops::aten::mul_Tensor.id()); // cached
  EXPECT_TRUE(OpId::of(OpKey("aten", "mul", "Tensor")) == ops::aten::mul_Tensor);
  EXPECT_FALSE(OpId::of(OpKey("aten", "mul", "Scalar")) == ops::aten::mul_Tensor);
}

TEST(OpRefTest, NodesAnswerTheirOpId) {
  Graph g{&pt2::torchOpSchemas()};
  Value *x = g.addInput(InputKind::User, "x", DType::Float32, staticShape({2}));
  Node *relu = g.createNode(ops::aten::relu_default, {Argument::value(x)}, DType::Float32, staticShape({2}));
  EXPECT_TRUE(relu->opId() == ops::aten::relu_default);
  EXPECT_FALSE(relu->opId() == ops::aten::relu6_default);
  EXPECT_EQ(relu->opId().key(), relu->op());
  auto copy = g.clone();
  EXPECT_TRUE(copy->findNode(relu->name())->opId() == ops::aten::relu_default);
}

// The checked-in Circle constants name exactly the circle::/circle_custom:: ops whose schemas
// the circle-lowering plugin registers (regenerate with
// plugins/circle-lowering/tools/gen_circle_op_constants.py when this fails).
TEST(OpRefTest, CircleConstantsMatchTheRegisteredSchemas) {
  PluginSet plugins;
  Registry registry;
  plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-circle-lowering.so", registry);
  std::set<std::string> registered, constants;
  for (const OpKey &key : registry.schemas().keys())
    if (key.ns == "circle" || key.ns == "circle_custom")
      registered.insert(key.str());
  for (std::string_view key : ops::kCircleExtensionOps)
    constants.insert(std::string(key));
  EXPECT_EQ(registered, constants);
}

} // namespace
} // namespace tico
