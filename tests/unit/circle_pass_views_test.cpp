// Golden tests of the layout and view passes: simplify-view-ops (redundant TRANSPOSE/RESHAPE
// removal and composition), canonicalize-equivalent-ops and
// eliminate-transpose-bounded-layout-region. Structure is checked after each run, and the
// interpreter checks that the outputs did not change.
#include "circle_pass_test_support.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;

int32_t addTranspose(ModelBuilder &b, int32_t x, const std::vector<int32_t> &perm, std::vector<int32_t> out_shape,
                     const std::string &name) {
  int32_t p = b.constant(name + "/perm", i32({static_cast<int64_t>(perm.size())}, perm));
  int32_t y = b.tensor(name, DType::Float32, std::move(out_shape));
  b.op(BuiltinOperator::TRANSPOSE, {x, p}, {y}, transposeOptions());
  return y;
}

int32_t addReshape(ModelBuilder &b, int32_t x, std::vector<int32_t> shape, const std::string &name) {
  int32_t s = b.constant(name + "/shape", i32({static_cast<int64_t>(shape.size())}, shape));
  int32_t y = b.tensor(name, DType::Float32, shape);
  b.op(BuiltinOperator::RESHAPE, {x, s}, {y}, reshapeOptions(shape));
  return y;
}

TEST(CirclePassSimplifyViews, InverseTransposesCancel) {
  // NCHW -> NHWC -> NCHW around nothing, then an ABS so the chain is internal.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2, 3, 4});
  int32_t t1 = addTranspose(b, x, {0, 2, 3, 1}, {1, 3, 4, 2}, "nhwc");
  int32_t t2 = addTranspose(b, t1, {0, 3, 1, 2}, {1, 2, 3, 4}, "nchw");
  int32_t y = b.tensor("y", DType::Float32, {1, 2, 3, 4});
  b.op(BuiltinOperator::ABS, {t2}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-view-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::ABS});
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassSimplifyViews, TwoTransposesCompose) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3, 4});
  int32_t t1 = addTranspose(b, x, {1, 0, 2}, {3, 2, 4}, "t1");
  int32_t t2 = addTranspose(b, t1, {0, 2, 1}, {3, 4, 2}, "t2");
  b.output(t2);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-view-ops"));
    runCirclePass(model, "dce");
  });
  ASSERT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::TRANSPOSE});
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassSimplifyViews, ReshapeChainBecomesOneReshapeAndNoOpReshapeGoes) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 6});
  int32_t r1 = addReshape(b, x, {3, 4}, "r1");
  int32_t r2 = addReshape(b, r1, {4, 3}, "r2");
  int32_t r3 = addReshape(b, r2, {4, 3}, "r3"); // to the shape it already has
  int32_t y = b.tensor("y", DType::Float32, {4, 3});
  b.op(BuiltinOperator::NEG, {r3}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "simplify-view-ops"));
    runCirclePass(model, "dce");
  });
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::RESHAPE, BuiltinOperator::NEG}));
  EXPECT_EQ(m.subgraphs[0].operators[0].inputs[0], x);
}

TEST(CirclePassSimplifyViews, NonInverseTransposeOfInputStays) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t t = addTranspose(b, x, {1, 0}, {3, 2}, "t");
  b.output(t);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "simplify-view-ops"));
  EXPECT_EQ(opCodes(m), std::vector<BuiltinOperator>{BuiltinOperator::TRANSPOSE});
}

TEST(CirclePassCanonicalize, ExpandDimsAndUnitTransposeBecomeReshape) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {3, 4});
  int32_t axis = b.constant("axis", i32({}, {0}));
  int32_t e = b.tensor("e", DType::Float32, {1, 3, 4});
  b.op(BuiltinOperator::EXPAND_DIMS, {x, axis}, {e}, ModelBuilder::options(circle::ExpandDimsOptionsT{}));
  // [1,3,4] -> perm [1,0,2] -> [3,1,4]: only the unit dim moves, element order is unchanged.
  int32_t t = addTranspose(b, e, {1, 0, 2}, {3, 1, 4}, "t");
  int32_t y = b.tensor("y", DType::Float32, {3, 1, 4});
  b.op(BuiltinOperator::EXP, {t}, {y});
  b.output(y);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "canonicalize-equivalent-ops")); });
  EXPECT_EQ(opCodes(m),
            (std::vector<BuiltinOperator>{BuiltinOperator::RESHAPE, BuiltinOperator::RESHAPE, BuiltinOperator::EXP}));
}

TEST(CirclePassCanonicalize, RealTransposeStays) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t t = addTranspose(b, x, {1, 0}, {3, 2}, "t");
  int32_t y = b.tensor("y", DType::Float32, {3, 2});
  b.op(BuiltinOperator::EXP, {t}, {y});
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "canonicalize-equivalent-ops"));
  EXPECT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 1u);
}

// The converter's layout sandwich: NCHW x -> TRANSPOSE to NHWC -> CONV -> TRANSPOSE back ->
// elementwise (ADD of a per-channel constant, RELU) -> TRANSPOSE to NHWC -> CONV -> back.
CircleModel convSandwich() {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2, 3, 3});
  int32_t in1 = addTranspose(b, x, {0, 2, 3, 1}, {1, 3, 3, 2}, "in1");
  int32_t w1 = b.constant("w1", f32({2, 1, 1, 2}, randomFloats(4, 11)));
  int32_t b1 = b.constant("b1", f32({2}, {0.1f, 0.2f}));
  int32_t c1 = b.tensor("c1", DType::Float32, {1, 3, 3, 2});
  b.op(BuiltinOperator::CONV_2D, {in1, w1, b1}, {c1}, conv2dOptions());
  int32_t out1 = addTranspose(b, c1, {0, 3, 1, 2}, {1, 2, 3, 3}, "out1");
  int32_t k = b.constant("k", f32({1, 2, 1, 1}, {0.5f, -0.25f}));
  int32_t a = b.tensor("a", DType::Float32, {1, 2, 3, 3});
  b.op(BuiltinOperator::ADD, {out1, k}, {a}, addOptions());
  int32_t r = b.tensor("r", DType::Float32, {1, 2, 3, 3});
  b.op(BuiltinOperator::RELU, {a}, {r});
  int32_t in2 = addTranspose(b, r, {0, 2, 3, 1}, {1, 3, 3, 2}, "in2");
  int32_t w2 = b.constant("w2", f32({2, 1, 1, 2}, randomFloats(4, 12)));
  int32_t b2 = b.constant("b2", f32({2}, {0.0f, 0.3f}));
  int32_t c2 = b.tensor("c2", DType::Float32, {1, 3, 3, 2});
  b.op(BuiltinOperator::CONV_2D, {in2, w2, b2}, {c2}, conv2dOptions());
  int32_t y = addTranspose(b, c2, {0, 3, 1, 2}, {1, 2, 3, 3}, "y");
  b.output(y);
  return b.model();
}

TEST(CirclePassLayoutRegion, ElementwiseRegionBetweenConvolutionsLosesItsTransposes) {
  CircleModel m = convSandwich();
  ASSERT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 4u);
  expectSameOutputs(m, [](CircleModel &model) {
    EXPECT_TRUE(runCirclePass(model, "eliminate-transpose-bounded-layout-region"));
    runCirclePass(model, "dce");
  });
  // Only the model's own entry and exit transposes remain.
  EXPECT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 2u);
  EXPECT_EQ(countOps(m, BuiltinOperator::CONV_2D), 2u);
  EXPECT_EQ(countOps(m, BuiltinOperator::ADD), 1u);
}

TEST(CirclePassLayoutRegion, RegionWhoseResultIsAlsoNeededInNchwStaysWhenNothingIsGained) {
  // TRANSPOSE(x) -> ABS -> output: removing the transpose needs one at the exit; no gain.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {1, 2, 3, 3});
  int32_t t = addTranspose(b, x, {0, 2, 3, 1}, {1, 3, 3, 2}, "t");
  int32_t y = b.tensor("y", DType::Float32, {1, 3, 3, 2});
  b.op(BuiltinOperator::ABS, {t}, {y});
  b.output(y);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "eliminate-transpose-bounded-layout-region"));
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::TRANSPOSE, BuiltinOperator::ABS}));
}

} // namespace
} // namespace tico::test
