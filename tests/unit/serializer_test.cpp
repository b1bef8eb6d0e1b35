// The Graph -> CircleModel serializer: coverage report, interface, tensors and determinism.
// Most tests use small lowerings defined here, so they test the serializer alone.
#include "pt2/torch_op_table.h"
#include "lowering_test_support.h"

#include "tico/circle/writer.h"

namespace tico {
namespace {

using test::parse;

class TestUnary final : public OpLowering {
public:
  explicit TestUnary(circle::BuiltinOperator op) : op_(op) {}
  std::string unsupportedReason(const Node &node) const override {
    return node.input(0)->dtype() == DType::Float32 ? "" : "the test lowering covers float32 only";
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    int32_t in = emit.tensor(node.input(0));
    emit.addOperator(op_, {in}, {emit.tensor(node.output())});
  }

private:
  circle::BuiltinOperator op_;
};

class TestAdd final : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> inputs = {emit.tensor(node.input(0)), emit.tensor(node.input(1))};
    emit.addOperator(circle::BuiltinOperator::ADD, inputs, {emit.tensor(node.output())});
  }
};

class Throwing final : public OpLowering {
public:
  void lower(const Node &, CircleEmitter &) const override { throw Error("boom"); }
};

class EmitsNothing final : public OpLowering {
public:
  void lower(const Node &, CircleEmitter &) const override {}
};

class SerializerTest : public ::testing::Test {
protected:
  void SetUp() override {
    add("aten::relu.default", std::make_shared<TestUnary>(circle::BuiltinOperator::RELU));
    add("aten::tanh.default", std::make_shared<TestUnary>(circle::BuiltinOperator::TANH));
    add("aten::add.Tensor", std::make_shared<TestAdd>());
  }
  void add(const std::string &op, std::shared_ptr<const OpLowering> lowering, int priority = 0) {
    registry.addLowering(LoweringSpec{OpKey::parseOrThrow(op), "test", priority, std::move(lowering)},
                         Provenance{"serializer-test", "1", "<test>"});
  }
  CircleModel serialize(const Graph &g) { return serializeGraph(g, registry, lower_options); }

  Registry registry;
  LowerOptions lower_options;
};

TEST_F(SerializerTest, ReportsEveryUnsupportedOpAtOnceWithCounts) {
  auto g = parse(R"(graph @main {
  input %x: f32[4]
  input %i: i32[4]
  %f1: c64[4] = aten::fft_fft.default(%x)
  %r: i32[4] = aten::relu.default(%i)
  %f2: c64[4] = aten::fft_fft.default(%x)
  %t: f32[4] = aten::tanh.default(%x)
  return %f1, %r, %f2, %t
})");
  auto missing = findUnsupportedOps(*g, registry);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].op.str(), "aten::fft_fft.default");
  EXPECT_EQ(missing[0].count, 2u);
  EXPECT_EQ(missing[0].node_names, (std::vector<std::string>{"f1", "f2"}));
  EXPECT_EQ(missing[0].reason, "no lowering registered");
  EXPECT_EQ(missing[1].op.str(), "aten::relu.default");
  EXPECT_EQ(missing[1].count, 1u);
  EXPECT_EQ(missing[1].reason, "the test lowering covers float32 only");

  try {
    serialize(*g);
    FAIL() << "expected UnsupportedOpsError";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_EQ(e.ops().size(), 2u);
    EXPECT_EQ(std::string(e.what()), "3 operators have no Circle lowering:\n"
                                     "  aten::fft_fft.default x2 (f1, f2): no lowering registered\n"
                                     "  aten::relu.default x1 (r): the test lowering covers float32 only");
  }
}

TEST_F(SerializerTest, ListsOnlyTheFirstNodeNamesOfAFrequentOp) {
  std::string text = "graph @main {\n  input %x: f32[4]\n";
  for (int i = 0; i < 5; ++i)
    text += "  %f" + std::to_string(i) + ": c64[4] = aten::fft_fft.default(%x)\n";
  text += "  return %f0\n}\n";
  auto g = parse(text);
  try {
    serialize(*g);
    FAIL() << "expected UnsupportedOpsError";
  } catch (const UnsupportedOpsError &e) {
    EXPECT_NE(std::string(e.what()).find("aten::fft_fft.default x5 (f0, f1, f2, ...)"), std::string::npos) << e.what();
  }
}

TEST_F(SerializerTest, HigherPriorityLoweringThatSupportsTheNodeWins) {
  add("aten::relu.default", std::make_shared<TestUnary>(circle::BuiltinOperator::RELU6), 10);
  auto g = parse(R"(graph @main {
  input %x: f32[4]
  %r: f32[4] = aten::relu.default(%x)
  return %r
})");
  EXPECT_EQ(test::opNames(serialize(*g)), (std::vector<std::string>{"RELU6"}));
}

TEST_F(SerializerTest, InterfaceFollowsTheSignature) {
  auto g = parse(R"(graph @main {
  input %b: f32[2]
  input %a: f32[2]
  %s: f32[2] = aten::add.Tensor(%a, %b)
  %t: f32[2] = aten::tanh.default(%s)
  return %t, %s
})");
  CircleModel m = serialize(*g);
  const auto &sg = m.subgraphs.at(0);
  EXPECT_EQ(sg.name, "main");
  ASSERT_EQ(sg.inputs.size(), 2u);
  EXPECT_EQ(test::tensorAt(m, sg.inputs[0]).name, "b");
  EXPECT_EQ(test::tensorAt(m, sg.inputs[1]).name, "a");
  ASSERT_EQ(sg.outputs.size(), 2u);
  EXPECT_EQ(test::tensorAt(m, sg.outputs[0]).name, "t");
  EXPECT_EQ(test::tensorAt(m, sg.outputs[1]).name, "s");
  EXPECT_EQ(test::opNames(m), (std::vector<std::string>{"ADD", "TANH"}));
  // Computed tensors use the sentinel buffer.
  EXPECT_EQ(test::tensorAt(m, sg.outputs[0]).buffer, 0u);
  EXPECT_EQ(m.buffers.size(), 1u);
  EXPECT_TRUE(m.signatures.empty());
}

TEST_F(SerializerTest, TiedConstantsShareOneTensorAndBuffer) {
  auto g = std::make_unique<Graph>(&tico::pt2::torchOpSchemas());
  auto data = test::f32Data({2}, {1.0f, 2.0f});
  // Same storage, same view, two different TensorData objects: shared weights.
  auto tied = std::make_shared<TensorData>(*data);
  Value *x = g->addInput(InputKind::User, "x", DType::Float32, {2});
  Value *w1 = g->addInput(InputKind::Parameter, "w1", DType::Float32, {2}, "m.w1", data);
  Value *w2 = g->addInput(InputKind::Parameter, "w2", DType::Float32, {2}, "m.w2", tied);
  Node *a = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(x), Argument::value(w1)},
                          DType::Float32, {2});
  Node *b = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(a->output()), Argument::value(w2)},
                          DType::Float32, {2});
  g->addOutput(GraphOutput{OutputKind::User, Argument::value(b->output()), {}});

  CircleModel m = serialize(*g);
  const auto &ops = m.subgraphs.at(0).operators;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].inputs[1], ops[1].inputs[1]);
  EXPECT_EQ(test::tensorAt(m, ops[0].inputs[1]).name, "w1");
  EXPECT_EQ(m.buffers.size(), 2u); // sentinel + one weight
  EXPECT_EQ(m.buffers[1].data->storage, data->storage) << "the weight must not be copied";
}

TEST_F(SerializerTest, EqualContentsWithoutSharedStorageStayDistinct) {
  auto g = std::make_unique<Graph>(&tico::pt2::torchOpSchemas());
  Value *x = g->addInput(InputKind::User, "x", DType::Float32, {2});
  Value *w1 = g->addInput(InputKind::Parameter, "w1", DType::Float32, {2}, "m.w1", test::f32Data({2}, {1, 2}));
  Value *w2 = g->addInput(InputKind::Parameter, "w2", DType::Float32, {2}, "m.w2", test::f32Data({2}, {1, 2}));
  Node *a = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(x), Argument::value(w1)},
                          DType::Float32, {2});
  Node *b = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(a->output()), Argument::value(w2)},
                          DType::Float32, {2});
  g->addOutput(GraphOutput{OutputKind::User, Argument::value(b->output()), {}});

  CircleModel m = serialize(*g);
  const auto &ops = m.subgraphs.at(0).operators;
  EXPECT_NE(ops[0].inputs[1], ops[1].inputs[1]);
  EXPECT_EQ(m.buffers.size(), 3u);
}

TEST_F(SerializerTest, DifferentViewsOfOneStorageAreDifferentTensors) {
  auto g = std::make_unique<Graph>(&tico::pt2::torchOpSchemas());
  auto whole = test::f32Data({4}, {1, 2, 3, 4});
  auto head = std::make_shared<TensorData>(*whole);
  head->sizes = {2};
  head->strides = {1};
  auto tail = std::make_shared<TensorData>(*head);
  tail->storage_offset = 2;
  Value *x = g->addInput(InputKind::User, "x", DType::Float32, {2});
  Value *w1 = g->addInput(InputKind::Constant, "c1", DType::Float32, {2}, "c1", head);
  Value *w2 = g->addInput(InputKind::Constant, "c2", DType::Float32, {2}, "c2", tail);
  Node *a = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(x), Argument::value(w1)},
                          DType::Float32, {2});
  Node *b = g->createNode(OpKey::parseOrThrow("aten::add.Tensor"), {Argument::value(a->output()), Argument::value(w2)},
                          DType::Float32, {2});
  g->addOutput(GraphOutput{OutputKind::User, Argument::value(b->output()), {}});

  CircleModel m = serialize(*g);
  const auto &ops = m.subgraphs.at(0).operators;
  EXPECT_NE(ops[0].inputs[1], ops[1].inputs[1]);
  EXPECT_EQ(test::constantValues<float>(m, ops[1].inputs[1]), (std::vector<float>{3, 4}));
}

TEST_F(SerializerTest, SymbolicDimsBecomeOneWithASignature) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 4]
  input %y: f32[2, 4]
  %r: f32[s0, 4] = aten::relu.default(%x)
  %t: f32[2, 4] = aten::tanh.default(%y)
  return %r, %t
})");
  CircleModel m = serialize(*g);
  const auto &sg = m.subgraphs.at(0);
  const CircleTensor &x = test::tensorAt(m, sg.inputs[0]);
  EXPECT_EQ(x.shape, (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(x.shape_signature, (std::vector<int32_t>{-1, 4}));
  EXPECT_EQ(test::tensorAt(m, sg.outputs[0]).shape_signature, (std::vector<int32_t>{-1, 4}));
  const CircleTensor &y = test::tensorAt(m, sg.inputs[1]);
  EXPECT_EQ(y.shape, (std::vector<int32_t>{2, 4}));
  EXPECT_TRUE(y.shape_signature.empty()) << "a static tensor must not carry a signature";
}

TEST_F(SerializerTest, SymbolsWithASingleValueRangeAreStatic) {
  auto g = parse(R"(graph @main {
  symbol s0 in [4, 4] hint 4
  symbol s1 in [1, 8] hint 2
  input %x: f32[s0, s1]
  %r: f32[s0, s1] = aten::relu.default(%x)
  return %r
})");
  CircleModel m = serialize(*g);
  const CircleTensor &x = test::tensorAt(m, m.subgraphs[0].inputs[0]);
  EXPECT_EQ(x.shape, (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(x.shape_signature, (std::vector<int32_t>{4, -1})) << "s0 can only be 4";
}

TEST_F(SerializerTest, ConstantInputsAreKeptUnlessConfiguredAway) {
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  constant_input "scale" = 3
  constant_input "unused" = None
  %r: f32[2] = aten::relu.default(%x)
  return %r
})");
  CircleModel kept = serialize(*g);
  ASSERT_EQ(kept.subgraphs[0].inputs.size(), 2u) << "None inputs are dropped, numbers kept";
  const CircleTensor &scale = test::tensorAt(kept, kept.subgraphs[0].inputs[1]);
  EXPECT_EQ(scale.name, "scale");
  EXPECT_EQ(scale.type, circle::TensorType::INT64);
  EXPECT_EQ(test::constantValues<int64_t>(kept, kept.subgraphs[0].inputs[1]), (std::vector<int64_t>{3}));

  lower_options.remove_constant_input = true;
  CircleModel dropped = serialize(*g);
  EXPECT_EQ(dropped.subgraphs[0].inputs.size(), 1u);
}

TEST_F(SerializerTest, OutputsThatAreInputsConstantsOrRepeatsGetTheirOwnTensor) {
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  %c = const f32[2] dense<[1.0, 2.0]>
  %r: f32[2] = aten::relu.default(%x)
  return %x, %c, %r, %r, 7
})");
  CircleModel m = serialize(*g);
  const auto &sg = m.subgraphs.at(0);
  ASSERT_EQ(sg.outputs.size(), 5u);
  std::set<int32_t> distinct(sg.outputs.begin(), sg.outputs.end());
  EXPECT_EQ(distinct.size(), 5u);
  EXPECT_NE(sg.outputs[0], sg.inputs[0]);
  for (int32_t out : sg.outputs)
    EXPECT_EQ(test::tensorAt(m, out).buffer, 0u) << "an output must be computed, not constant";
  // RELU, then identity copies for x, c, the repeated r and the number 7 (rank 0: RESHAPE).
  EXPECT_EQ(test::opNames(m),
            (std::vector<std::string>{"RELU", "TRANSPOSE", "TRANSPOSE", "TRANSPOSE", "RESHAPE"}));
  EXPECT_EQ(test::tensorAt(m, sg.outputs[4]).type, circle::TensorType::INT64);
}

TEST_F(SerializerTest, UnusedSymbolicNodesAndAssertionsAreNeverLowered) {
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 4]
  %n: sym_int(s0) = aten::sym_size.int(%x, 0)
  %ge: sym_bool(s0 >= 2) = _operator::ge(%n, 2)
  @check aten::_assert_scalar.default(%ge, "s0 >= 2")
  %r: f32[s0, 4] = aten::relu.default(%x)
  return %r
})");
  // None of sym_size, ge and _assert_scalar has a lowering here; none is needed.
  EXPECT_TRUE(findUnsupportedOps(*g, registry).empty());
  EXPECT_EQ(test::opNames(serialize(*g)), (std::vector<std::string>{"RELU"}));
}

TEST_F(SerializerTest, LoweringErrorsNameTheNode) {
  add("aten::sigmoid.default", std::make_shared<Throwing>());
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  %s: f32[2] = aten::sigmoid.default(%x)
  return %s
})");
  try {
    serialize(*g);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "cannot lower node 's' (aten::sigmoid.default): boom");
  }
}

TEST_F(SerializerTest, ALoweringMustGiveEveryUsedOutputATensor) {
  add("aten::sigmoid.default", std::make_shared<EmitsNothing>());
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  %s: f32[2] = aten::sigmoid.default(%x)
  return %s
})");
  EXPECT_THROW(
      {
        try {
          serialize(*g);
        } catch (const Error &e) {
          EXPECT_NE(std::string(e.what()).find("produced no tensor for its output 's'"), std::string::npos);
          throw;
        }
      },
      Error);
}

TEST_F(SerializerTest, TensorResultsReadOnlyBySymbolicNodesAreLoweredOnDemand) {
  // %d feeds only the SymInt %n, which nothing lowered needs: neither is emitted.
  add("aten::abs.default", std::make_shared<TestUnary>(circle::BuiltinOperator::ABS));
  auto g = parse(R"(graph @main {
  symbol s0 in [1, 64] hint 3
  input %x: f32[s0, 4]
  input %i: i64[1]
  %d: i64[1] = aten::abs.default(%i)
  %n: sym_int(s0) = aten::_local_scalar_dense.default(%d)
  %r: f32[s0, 4] = aten::relu.default(%x)
  return %r
})");
  EXPECT_TRUE(findUnsupportedOps(*g, registry).empty()) << "abs of int64 would be unsupported if it were needed";
  EXPECT_EQ(test::opNames(serialize(*g)), (std::vector<std::string>{"RELU"}));
}

TEST_F(SerializerTest, EveryDtypeReachesTheModelAsItIs) {
  add("aten::abs.default", std::make_shared<TestUnary>(circle::BuiltinOperator::ABS));
  auto g = parse(R"(graph @main {
  input %a: i64[2]
  input %b: i32[2]
  input %c: bool[2]
  input %d: f16[2]
  input %e: bf16[2]
  input %s: f32[]
  %k = const bf16[2] hex<"803f0040">
  %r: f32[] = aten::relu.default(%s)
  return %a, %b, %c, %d, %e, %k, %r
})");
  CircleModel m = serialize(*g);
  const auto &sg = m.subgraphs[0];
  std::vector<circle::TensorType> types;
  for (int32_t in : sg.inputs)
    types.push_back(test::tensorAt(m, in).type);
  EXPECT_EQ(types, (std::vector<circle::TensorType>{circle::TensorType::INT64, circle::TensorType::INT32,
                                                    circle::TensorType::BOOL, circle::TensorType::FLOAT16,
                                                    circle::TensorType::BFLOAT16, circle::TensorType::FLOAT32}));
  EXPECT_EQ(test::tensorAt(m, sg.inputs[5]).shape, (std::vector<int32_t>{})) << "a scalar input is rank 0";
  EXPECT_EQ(test::tensorAt(m, sg.outputs[5]).type, circle::TensorType::BFLOAT16);
  // The bf16 constant goes out through an identity copy of its (bit-exact) tensor.
  const CircleOperator &copy = sg.operators.at(sg.operators.size() - 1);
  EXPECT_EQ(test::constantValues<uint16_t>(m, copy.inputs[0]), (std::vector<uint16_t>{0x3f80, 0x4000}));
}

TEST(SerializerDeterminism, SameGraphGivesSameBytes) {
  auto build = [] {
    return parse(R"(graph @main {
  input %x: f32[1, 2, 4, 4]
  param %w: f32[3, 2, 3, 3] "conv.weight" = )" + test::iota(54) + R"(
  param %b: f32[3] "conv.bias" = dense<[0.5, -0.5, 1.0]>
  %c: f32[1, 3, 4, 4] = aten::conv2d.default(%x, %w, %b, padding=[1, 1])
  %r: f32[1, 3, 4, 4] = aten::relu.default(%c)
  return %r
})");
  };
  auto first = serializeCircle(test::lower(*build()));
  auto second = serializeCircle(test::lower(*build()));
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
}

} // namespace
} // namespace tico
