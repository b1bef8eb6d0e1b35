// Operator schemas: parsing PyTorch schema strings, defaults, and the bundled table.
#include "pt2/torch_op_table.h"
#include "tico/ir/op_schema.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;

TEST(OpSchemaTest, ParsesArgumentsDefaultsAndReturns) {
  OpSchema s = OpSchema::parse("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(s.key, OpKey("aten", "max", "dim"));
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[1].type, ArgType::Int);
  EXPECT_FALSE(s.arguments[1].hasDefault());
  EXPECT_EQ(s.arguments[2].defaultValue(), Argument::boolean(false));
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[1].name, "indices");
}

TEST(OpSchemaTest, ParsesAliasAnnotationsKwargsAndOptionalTypes) {
  OpSchema s = OpSchema::parse(
      "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)");
  EXPECT_EQ(s.arguments[2].type, ArgType::Int);
  EXPECT_TRUE(s.arguments[2].optional);
  EXPECT_TRUE(s.arguments[2].is_symbolic);
  EXPECT_TRUE(s.arguments[2].defaultValue().isNone());
  OpSchema g = OpSchema::parse("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");
  EXPECT_TRUE(g.arguments[1].kwarg_only);
  EXPECT_EQ(g.arguments[1].defaultValue(), Argument::string("none"));
  OpSchema idx = OpSchema::parse("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  EXPECT_EQ(idx.arguments[1].type, ArgType::OptionalTensorList);
  OpSchema mut = OpSchema::parse("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_TRUE(mut.arguments[0].is_mutable);
  EXPECT_EQ(mut.arguments[2].defaultValue(), Argument::integer(1));
}

TEST(OpSchemaTest, AliasSetsTellViewsAndMutations) {
  OpSchema slice = OpSchema::parse(
      "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)");
  EXPECT_EQ(slice.arguments[0].alias_set, "a");
  EXPECT_EQ(slice.returns[0].alias_set, "a");
  EXPECT_TRUE(slice.isView());
  EXPECT_TRUE(slice.mutatedArguments().empty());

  OpSchema add_ = OpSchema::parse("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_FALSE(add_.isView());
  EXPECT_EQ(add_.mutatedArguments(), std::vector<std::size_t>{0});
  EXPECT_TRUE(add_.returns[0].is_mutable);

  OpSchema out = OpSchema::parse(
      "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
      "-> (Tensor(a!) values, Tensor(b!) indices)");
  EXPECT_EQ(out.mutatedArguments(), (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(out.returns[1].alias_set, "b");

  OpSchema split = OpSchema::parse("aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_EQ(split.arguments[0].alias_set, "a");
  EXPECT_TRUE(split.isView());

  EXPECT_FALSE(OpSchema::parse("aten::relu(Tensor self) -> Tensor").isView());
}

TEST(OpSchemaTest, FixedLengthListDefaultsBroadcast) {
  OpSchema s = OpSchema::parse("aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                               "int[2] dilation=1, bool ceil_mode=False) -> Tensor");
  EXPECT_EQ(s.arguments[2].defaultValue(), Argument::ints({}));
  EXPECT_EQ(s.arguments[3].defaultValue(), Argument::ints({0, 0}));
  EXPECT_EQ(s.arguments[4].defaultValue(), Argument::ints({1, 1}));
  OpSchema e = OpSchema::parse("aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
                               "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)");
  EXPECT_EQ(e.returns.size(), 3u);
  EXPECT_EQ(e.arguments[4].type, ArgType::Float);
}

TEST(OpSchemaTest, RoundTripsThroughStr) {
  const char *text = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  EXPECT_EQ(OpSchema::parse(text).str(), text);
}

TEST(OpSchemaTest, RejectsMalformedText) {
  EXPECT_THROW(OpSchema::parse("aten::add.Tensor(Tensor self"), Error);
  EXPECT_THROW(OpSchema::parse("add(Tensor self) -> Tensor"), Error);
  EXPECT_THROW(OpSchema::parse("aten::add(Tensor) -> Tensor"), Error);
}

TEST(OpSchemaTest, BuiltinTableCoversTheConverterOps) {
  const auto &r = tico::pt2::torchOpSchemas();
  EXPECT_GT(r.size(), 2000u);
  for (const char *op : {"aten::add.Tensor", "aten::linear", "aten::conv2d", "aten::convolution",
                         "aten::max_pool2d_with_indices", "aten::_softmax", "aten::embedding", "aten::slice.Tensor",
                         "aten::sym_size.int", "aten::scaled_dot_product_attention", "prims::convert_element_type",
                         "quantized_decomposed::quantize_per_tensor"}) {
    EXPECT_NE(r.find(OpKey::parseOrThrow(op)), nullptr) << op;
  }
  // out= variants are in the table: a plain torch.export program may call them, and
  // functionalize reads what they write from their annotations.
  const OpSchema *add_out = r.find(OpKey("aten", "add", "out"));
  ASSERT_NE(add_out, nullptr);
  EXPECT_EQ(add_out->mutatedArguments().size(), 1u);
  EXPECT_EQ(add_out->arguments[add_out->mutatedArguments()[0]].name, "out");
  auto overloads = r.overloadsOf("aten", "add");
  EXPECT_NE(std::find(overloads.begin(), overloads.end(), "Tensor"), overloads.end());
}
