// Golden tests of the portability passes: forms that runtimes with known quirks compute
// correctly (isolate-activated-outputs: onert 0.2 fuses an activation into the producer of a
// returned tensor).
#include "circle_pass_test_support.h"

namespace tico::test {
namespace {

using circle::BuiltinOperator;

TEST(CirclePassIsolateActivatedOutputs, ReturnedTensorAnActivationReadsGetsItsOwnCopy) {
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {2, 3});
  int32_t w = b.constant("w", f32({3, 3}, {1, -2, 0.5f, 0, 1, -1, 2, 0, 1}));
  int32_t y = b.tensor("y", DType::Float32, {2, 3});
  int32_t r = b.tensor("r", DType::Float32, {2, 3});
  int32_t z = b.tensor("z", DType::Float32, {2, 3});
  circle::FullyConnectedOptionsT fc;
  fc.keep_num_dims = true;
  b.op(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {y}, ModelBuilder::options(fc));
  b.op(BuiltinOperator::RELU, {y}, {r});
  b.op(BuiltinOperator::ADD, {r, r}, {z});
  b.output(y);
  b.output(z);
  CircleModel m = b.model();
  expectSameOutputs(m, [](CircleModel &model) { EXPECT_TRUE(runCirclePass(model, "isolate-activated-outputs")); });
  const auto &g = m.subgraphs[0];
  // The first output is now written by an identity TRANSPOSE of the FULLY_CONNECTED result,
  // which therefore has two readers, and keeps the name "y".
  EXPECT_EQ(opCodes(m), (std::vector<BuiltinOperator>{BuiltinOperator::FULLY_CONNECTED, BuiltinOperator::RELU,
                                                      BuiltinOperator::ADD, BuiltinOperator::TRANSPOSE}));
  EXPECT_NE(g.outputs[0], y);
  EXPECT_EQ(g.tensors[g.outputs[0]].name, "y");
  EXPECT_EQ(g.outputs[1], z);
  EXPECT_FALSE(runCirclePass(m, "isolate-activated-outputs")) << "already isolated: the activation reads y, "
                                                                  "the output is the copy";
}

TEST(CirclePassIsolateActivatedOutputs, LeavesOutputsNoActivationReads) {
  // y is returned and read by an ADD (no fusion candidate); r is returned and is the RELU's
  // own output (onert does not fuse then); an input that is an output is not touched.
  ModelBuilder b;
  int32_t x = b.input("x", DType::Float32, {4});
  int32_t y = b.tensor("y", DType::Float32, {4});
  int32_t r = b.tensor("r", DType::Float32, {4});
  int32_t s = b.tensor("s", DType::Float32, {4});
  b.op(BuiltinOperator::NEG, {x}, {y});
  b.op(BuiltinOperator::ADD, {y, y}, {s});
  b.op(BuiltinOperator::RELU, {s}, {r});
  b.output(y);
  b.output(r);
  b.output(x);
  CircleModel m = b.model();
  EXPECT_FALSE(runCirclePass(m, "isolate-activated-outputs"));
  EXPECT_EQ(countOps(m, BuiltinOperator::TRANSPOSE), 0u);
}

} // namespace
} // namespace tico::test
