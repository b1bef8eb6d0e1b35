// Quantized values through the serializer and the writer, read back with the Circle reader:
// QuantizationParameters per tensor and per channel (min/max included), tensor types of every
// quantized dtype, 4-bit packing, tied weights, and what Circle cannot express. Test lowerings
// (defined here) use the values' tensors as they are, so only the serializer is under test.
#include "pt2/torch_op_table.h"
#include "lowering_test_support.h"

#include "tico/circle/quantization.h"
#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"

namespace tico {
namespace {

using test::parse;

// FULLY_CONNECTED(input, weight, bias) on the values' own tensors.
class TestLinear final : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> inputs = {emit.tensor(node.input(0)), emit.tensor(node.input(1)), emit.tensor(node.input(2))};
    circle::BuiltinOptionsUnion options;
    options.Set(circle::FullyConnectedOptionsT{});
    emit.addOperator(circle::BuiltinOperator::FULLY_CONNECTED, inputs, {emit.tensor(node.output())}, options);
  }
};

class TestAdd final : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    std::vector<int32_t> inputs = {emit.tensor(node.input(0)), emit.tensor(node.input(1))};
    emit.addOperator(circle::BuiltinOperator::ADD, inputs, {emit.tensor(node.output())});
  }
};

// A no-op: the output is the input's tensor.
class TestAlias final : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override { emit.alias(node.output(), emit.tensor(node.input(0))); }
};

// RELU into an intermediate tensor the lowering quantizes itself, then a copy into the output.
class TestQuantizedIntermediate final : public OpLowering {
public:
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int32_t mid = emit.newTensor(in->dtype(), in->shape(), node.name() + "_mid");
    QuantParams q;
    q.scale = {0.5f};
    q.zero_point = {3};
    emit.setQuantization(mid, q);
    emit.addOperator(circle::BuiltinOperator::RELU, {emit.tensor(in)}, {mid});
    emit.addOperator(circle::BuiltinOperator::RELU, {mid}, {emit.tensor(node.output())});
  }
};

class SerializerQuantTest : public ::testing::Test {
protected:
  void SetUp() override {
    add("aten::linear.default", std::make_shared<TestLinear>());
    add("aten::add.Tensor", std::make_shared<TestAdd>());
    add("aten::clone.default", std::make_shared<TestAlias>());
    add("aten::relu.default", std::make_shared<TestQuantizedIntermediate>());
  }
  void add(const std::string &op, std::shared_ptr<const OpLowering> lowering) {
    registry.addLowering(LoweringSpec{OpKey::parseOrThrow(op), "test", 0, std::move(lowering)},
                         Provenance{"serializer-quant-test", "1", "<test>"});
  }
  // Serialized, written to bytes and read back: what a file holds.
  CircleModel roundTrip(const Graph &g) {
    const std::vector<uint8_t> bytes = serializeCircle(serializeGraph(g, registry));
    std::vector<std::byte> copy(bytes.size());
    std::memcpy(copy.data(), bytes.data(), bytes.size());
    return readCircleBytes(Storage::fromBytes(std::move(copy)), "quantized.circle");
  }
  std::string serializeError(const Graph &g) {
    try {
      serializeGraph(g, registry);
    } catch (const Error &e) {
      return e.what();
    }
    ADD_FAILURE() << "expected a serialization error";
    return {};
  }

  Registry registry;
};

const CircleTensor &named(const CircleModel &m, const std::string &name) {
  for (const auto &t : m.subgraphs.at(0).tensors)
    if (t.name == name)
      return t;
  throw Error("no tensor '" + name + "'");
}

std::vector<uint8_t> payload(const CircleModel &m, const CircleTensor &t) {
  const auto bytes = m.buffers.at(t.buffer).data->contiguousBytes();
  std::vector<uint8_t> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

const char *kLinear = R"(graph @main {
  input %x: u8[1, 3] {q: scale=[0.5], zp=[128]}
  param %w: i4[3, 3] {q: scale=[0.25, 0.125, 0.0625], zp=[0, -1, 2], axis=0} "fc.weight" = dense<[-8, -1, 0, 1, 7, 3, -4, 5, 2]>
  param %b: i32[3] {q: scale=[0.125, 0.0625, 0.03125], zp=[0, 0, 0], axis=0} "fc.bias" = dense<[10, -20, 30]>
  %y: u8[1, 3] {q: scale=[0.75], zp=[100], min=[-75.0], max=[116.25]} = aten::linear.default(%x, %w, %b)
  return %y
})";

TEST_F(SerializerQuantTest, PerTensorAndPerChannelRecordsReachTheFile) {
  auto g = parse(kLinear);
  g->verify();
  CircleModel m = roundTrip(*g);

  const CircleTensor &x = named(m, "x");
  EXPECT_EQ(x.type, circle::TensorType::UINT8);
  ASSERT_TRUE(x.quantization);
  EXPECT_EQ(x.quantization->scale, std::vector<float>{0.5f});
  EXPECT_EQ(x.quantization->zero_point, std::vector<int64_t>{128});
  EXPECT_EQ(x.quantization->quantized_dimension, 0);
  EXPECT_TRUE(x.quantization->min.empty());
  EXPECT_TRUE(x.quantization->max.empty());
  EXPECT_EQ(x.quantization->details.type, circle::QuantizationDetails::NONE);

  const CircleTensor &w = named(m, "w");
  EXPECT_EQ(w.type, circle::TensorType::INT4);
  EXPECT_EQ(w.shape, (std::vector<int32_t>{3, 3}));
  ASSERT_TRUE(w.quantization);
  EXPECT_EQ(w.quantization->scale, (std::vector<float>{0.25f, 0.125f, 0.0625f}));
  EXPECT_EQ(w.quantization->zero_point, (std::vector<int64_t>{0, -1, 2}));
  EXPECT_EQ(w.quantization->quantized_dimension, 0);
  // Nine int4 values, two per byte, element 2k in the low nibble, the odd tail padded with 0.
  EXPECT_EQ(payload(m, w), (std::vector<uint8_t>{0xF8, 0x10, 0x37, 0x5C, 0x02}));

  const CircleTensor &b = named(m, "b");
  EXPECT_EQ(b.type, circle::TensorType::INT32);
  EXPECT_EQ(b.quantization->scale, (std::vector<float>{0.125f, 0.0625f, 0.03125f}));
  EXPECT_EQ(payload(m, b).size(), 12u);

  const CircleTensor &y = named(m, "y");
  EXPECT_EQ(y.type, circle::TensorType::UINT8);
  EXPECT_EQ(y.quantization->scale, std::vector<float>{0.75f});
  EXPECT_EQ(y.quantization->zero_point, std::vector<int64_t>{100});
  EXPECT_EQ(y.quantization->min, std::vector<float>{-75.0f});
  EXPECT_EQ(y.quantization->max, std::vector<float>{116.25f});

  const auto diagnostics = verifyCircleModel(m);
  EXPECT_TRUE(diagnostics.empty()) << (diagnostics.empty() ? "" : diagnostics.front().str());
  // The IR record comes back from the Circle one.
  auto back = fromCircleQuantization(*w.quantization, w.name);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, *g->findValue("w")->quant());
  EXPECT_EQ(*fromCircleQuantization(*x.quantization, x.name), *g->findValue("x")->quant());
}

TEST_F(SerializerQuantTest, EveryQuantizedDTypeHasItsTensorType) {
  const std::vector<std::pair<std::string, circle::TensorType>> cases = {
      {"u8", circle::TensorType::UINT8}, {"i8", circle::TensorType::INT8},   {"i16", circle::TensorType::INT16},
      {"i32", circle::TensorType::INT32}, {"i64", circle::TensorType::INT64}, {"u4", circle::TensorType::UINT4},
      {"i4", circle::TensorType::INT4}};
  for (const auto &[dtype, type] : cases) {
    auto g = parse("graph @main {\n  input %a: " + dtype + "[2] {q: scale=[0.5], zp=[0]}\n  input %b: " + dtype +
                   "[2] {q: scale=[0.5], zp=[0]}\n  %s: " + dtype +
                   "[2] {q: scale=[1.0], zp=[0]} = aten::add.Tensor(%a, %b)\n  return %s\n}\n");
    CircleModel m = roundTrip(*g);
    EXPECT_EQ(named(m, "s").type, type) << dtype;
    EXPECT_EQ(named(m, "s").quantization->scale, std::vector<float>{1.0f}) << dtype;
  }
}

TEST_F(SerializerQuantTest, UInt4ConstantsPackLowNibbleFirst) {
  auto g = parse(R"(graph @main {
  input %x: u4[5] {q: scale=[0.5], zp=[8]}
  %c = const u4[5] {q: scale=[0.5], zp=[8]} dense<[1, 2, 15, 0, 9]>
  %s: u4[5] {q: scale=[1.0], zp=[8]} = aten::add.Tensor(%x, %c)
  return %s
})");
  CircleModel m = roundTrip(*g);
  const CircleTensor &c = named(m, "c");
  EXPECT_EQ(c.type, circle::TensorType::UINT4);
  EXPECT_EQ(c.shape, std::vector<int32_t>{5});
  EXPECT_EQ(payload(m, c), (std::vector<uint8_t>{0x21, 0x0F, 0x09}));
  // And unpacked again.
  const auto packed = m.buffers.at(c.buffer).data->contiguousBytes();
  const auto values = unpackInt4(packed.data(), packed.size(), 5, DType::UInt4);
  EXPECT_EQ(static_cast<uint8_t>(values[2]), 15u);
  EXPECT_EQ(static_cast<uint8_t>(values[4]), 9u);
  EXPECT_TRUE(verifyCircleModel(m).empty());
}

TEST_F(SerializerQuantTest, Int4PackingRoundTripsEveryValue) {
  std::vector<int8_t> all;
  for (int v = -8; v <= 7; ++v)
    all.push_back(static_cast<int8_t>(v));
  all.push_back(-3); // odd count
  const auto data = TensorData::fromVector<int8_t>(DType::Int4, {static_cast<int64_t>(all.size())}, all);
  const auto packed = packInt4(data, "t");
  ASSERT_EQ(packed.size(), 9u);
  EXPECT_EQ(static_cast<uint8_t>(packed[0]), 0x98); // -8 low, -7 high
  EXPECT_EQ(static_cast<uint8_t>(packed[8]), 0x0D); // -3 alone in the low nibble
  const auto back = unpackInt4(packed.data(), packed.size(), all.size(), DType::Int4);
  for (std::size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(static_cast<int8_t>(back[i]), all[i]) << i;
  EXPECT_THROW(unpackInt4(packed.data(), 8, all.size(), DType::Int4), Error);
  const auto bad = TensorData::fromVector<int8_t>(DType::Int4, {2}, {3, 8});
  try {
    packInt4(bad, "w4");
    FAIL() << "expected tico::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'w4' (i4) holds 8 at element 1, outside [-8, 7]"), std::string::npos)
        << e.what();
  }
}

TEST_F(SerializerQuantTest, OutOfRangeFourBitConstantIsRefusedByName) {
  auto g = parse(R"(graph @main {
  input %x: u4[2] {q: scale=[0.5], zp=[8]}
  %c = const u8[2] dense<[3, 200]>
  %s: u4[2] {q: scale=[1.0], zp=[8]} = aten::add.Tensor(%x, %c)
  return %s
})");
  // A u4 view of bytes that hold 200: what a pass that retypes a constant wrongly would leave.
  auto retyped = std::make_shared<TensorData>(*g->constants().front()->constant());
  retyped->dtype = DType::UInt4;
  g->constants().front()->setConstant(retyped);
  g->constants().front()->setType(DType::UInt4, {2});
  EXPECT_NE(serializeError(*g).find("tensor 'c' (u4) holds 200 at element 1, outside [0, 15]"), std::string::npos);
}

TEST_F(SerializerQuantTest, FloatGraphsGetNoQuantization) {
  auto g = parse(R"(graph @main {
  input %x: f32[2]
  %c = const f32[2] dense<[1.0, 2.0]>
  %s: f32[2] = aten::add.Tensor(%x, %c)
  return %s
})");
  CircleModel m = serializeGraph(*g, registry);
  for (const auto &t : m.subgraphs[0].tensors)
    EXPECT_FALSE(t.quantization) << t.name;
}

TEST_F(SerializerQuantTest, TiedWeightsWithEqualQParamsShareOneTensor) {
  auto g = parse(R"(graph @main {
  input %x: i8[4] {q: scale=[0.5], zp=[0]}
  param %w1: i8[4] {q: scale=[0.25], zp=[1]} "w1" = dense<[1, 2, 3, 4]>
  param %w2: i8[4] {q: scale=[0.25], zp=[1]} "w2" = dense<[1, 2, 3, 4]>
  %a: i8[4] {q: scale=[0.5], zp=[0]} = aten::add.Tensor(%x, %w1)
  %b: i8[4] {q: scale=[0.5], zp=[0]} = aten::add.Tensor(%a, %w2)
  return %b
})");
  // Tie them: the second parameter becomes the same view of the first one's storage.
  g->findValue("w2")->setConstant(g->findValue("w1")->constant());
  CircleModel m = roundTrip(*g);
  const auto &ops = m.subgraphs[0].operators;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].inputs[1], ops[1].inputs[1]);
  EXPECT_EQ(m.buffers.size(), 2u); // the sentinel and one weight

  // Different qparams on one shared weight: an error naming both.
  g->findValue("w2")->setQuant(QuantParams{{0.5f}, {1}, {}, {}, {}, {}});
  const std::string why = serializeError(*g);
  EXPECT_NE(why.find("constants 'w1' and 'w2' share one weight but have different quantization parameters"),
            std::string::npos)
      << why;
}

TEST_F(SerializerQuantTest, PerBlockIsRefusedNamingTheTensor) {
  auto g = parse(R"(graph @main {
  input %x: u8[1, 4] {q: scale=[0.5], zp=[128]}
  param %w: u4[2, 4] {q: scale=[0.5, 0.25, 0.125, 1.0], zp=[8, 8, 8, 8], axis=1, block=2} "fc.weight" = dense<[0, 1, 2, 3, 4, 5, 6, 7]>
  param %b: i32[2] {q: scale=[0.25, 0.125], zp=[0, 0], axis=0} "fc.bias" = dense<[1, 2]>
  %y: u8[1, 2] {q: scale=[0.75], zp=[100]} = aten::linear.default(%x, %w, %b)
  return %y
})");
  g->verify(); // valid IR ...
  const std::string why = serializeError(*g); // ... that Circle cannot hold
  EXPECT_NE(why.find("tensor 'w' is quantized per block (axis 1, block size 2)"), std::string::npos) << why;
}

TEST_F(SerializerQuantTest, InvalidQParamsNeverReachAFile) {
  auto g = parse(R"(graph @main {
  input %x: u8[2] {q: scale=[0.0], zp=[128]}
  input %z: u8[2] {q: scale=[0.5], zp=[128]}
  %s: u8[2] {q: scale=[0.5], zp=[128]} = aten::add.Tensor(%x, %z)
  return %s
})");
  EXPECT_NE(serializeError(*g).find("value 'x': scale[0] is 0.0"), std::string::npos);
}

TEST_F(SerializerQuantTest, AliasKeepsQParamsConsistent) {
  auto same = parse(R"(graph @main {
  input %x: i8[2] {q: scale=[0.5], zp=[0]}
  %c: i8[2] {q: scale=[0.5], zp=[0]} = aten::clone.default(%x)
  %s: i8[2] {q: scale=[0.5], zp=[0]} = aten::add.Tensor(%c, %c)
  return %s
})");
  EXPECT_NO_THROW(serializeGraph(*same, registry));
  auto differ = parse(R"(graph @main {
  input %x: i8[2] {q: scale=[0.5], zp=[0]}
  %c: i8[2] {q: scale=[0.25], zp=[0]} = aten::clone.default(%x)
  %s: i8[2] {q: scale=[0.5], zp=[0]} = aten::add.Tensor(%c, %c)
  return %s
})");
  EXPECT_NE(serializeError(*differ).find("value 'c' cannot alias tensor 'x': their quantization parameters differ"),
            std::string::npos);
}

TEST_F(SerializerQuantTest, LoweringsQuantizeTheirOwnTensors) {
  auto g = parse(R"(graph @main {
  input %x: i8[2] {q: scale=[0.5], zp=[3]}
  %r: i8[2] {q: scale=[0.5], zp=[3]} = aten::relu.default(%x)
  return %r
})");
  CircleModel m = roundTrip(*g);
  const CircleTensor &mid = named(m, "r_mid");
  ASSERT_TRUE(mid.quantization);
  EXPECT_EQ(mid.quantization->scale, std::vector<float>{0.5f});
  EXPECT_EQ(mid.quantization->zero_point, std::vector<int64_t>{3});
}

TEST_F(SerializerQuantTest, QuantizedOutputIsByteIdenticalAcrossRuns) {
  auto first = serializeCircle(serializeGraph(*parse(kLinear), registry));
  auto second = serializeCircle(serializeGraph(*parse(kLinear), registry));
  EXPECT_EQ(first, second);
}

} // namespace
} // namespace tico
