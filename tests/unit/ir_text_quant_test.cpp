// Textual IR of quantized values: qparams print and parse back exactly (floats bit for bit),
// 4-bit constants print as numbers, malformed qparams are located errors.
#include "pt2/torch_op_table.h"
#include "tico/ir/text.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tico {
namespace {

std::unique_ptr<Graph> parseTorch(std::string_view text) {
  ParseOptions options;
  options.file_name = "quant.tir";
  options.schemas = &tico::pt2::torchOpSchemas();
  return parseGraph(text, options);
}

const char *kQuantized = R"(graph @main {
  input %x: u8[1, 4] {q: scale=[0.1], zp=[128]}
  param %w: i4[3, 4] {q: scale=[0.25, 1.1754944e-38, 3.4028235e+38], zp=[0, -8, 7], axis=0} "fc.weight" = dense<[-8, -1, 0, 1, 7, 3, -4, 5, 2, 6, -7, 0]>
  param %b: i32[3] {q: scale=[0.025, 1e-10, 0.5], zp=[0, 0, 0], axis=0} "fc.bias" = dense<[10, -20, 30]>
  param %g: u4[2, 4] {q: scale=[0.5, 0.25, 0.125, 1.0], zp=[8, 15, 0, 3], axis=1, block=2} "gw" = dense<[0, 15, 8, 1, 2, 3, 4, 5]>
  %c = const u4[3] {q: scale=[2.0], zp=[0]} dense<[15, 0, 9]>
  %linear: u8[1, 3] {q: scale=[0.0078125], zp=[100], min=[-0.78125], max=[1.2109375]} = aten::linear.default(%x, %w, %b)
  %r: u8[1, 3] {q: scale=[0.0078125], zp=[100]} = aten::relu.default(%linear)
  return %r, %c, %g
}
)";

TEST(TextIRQuant, PrintIsAFixedPointOfParse) {
  auto g = parseTorch(kQuantized);
  g->verify();
  EXPECT_EQ(printGraph(*g), kQuantized);
  auto again = parseTorch(printGraph(*g));
  EXPECT_EQ(printGraph(*again), kQuantized);
}

TEST(TextIRQuant, ParsedRecordsHoldEveryField) {
  auto g = parseTorch(kQuantized);
  const QuantParams *x = g->findValue("x")->quant();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->scale, std::vector<float>{0.1f});
  EXPECT_EQ(x->zero_point, std::vector<int64_t>{128});
  EXPECT_FALSE(x->axis.has_value());
  EXPECT_TRUE(x->isPerTensor());

  const QuantParams *w = g->findValue("w")->quant();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->axis, 0);
  EXPECT_EQ(w->zero_point, (std::vector<int64_t>{0, -8, 7}));
  EXPECT_EQ(g->findValue("w")->dtype(), DType::Int4);

  const QuantParams *gw = g->findValue("g")->quant();
  ASSERT_NE(gw, nullptr);
  EXPECT_EQ(gw->axis, 1);
  EXPECT_EQ(gw->block_size, 2);
  EXPECT_TRUE(gw->isPerBlock());

  const QuantParams *lin = g->findValue("linear")->quant();
  ASSERT_NE(lin, nullptr);
  EXPECT_EQ(lin->min, std::vector<float>{-0.78125f});
  EXPECT_EQ(lin->max, std::vector<float>{1.2109375f});
  EXPECT_EQ(g->findValue("c")->quant()->scale, std::vector<float>{2.0f});
  EXPECT_EQ(g->findValue("c")->constant()->dtype, DType::UInt4);
}

TEST(TextIRQuant, ScalesRoundTripBitForBit) {
  // Floats whose shortest decimal needs 9 digits, subnormals, the largest float.
  const std::vector<float> scales = {0.1f, 1.0f / 3.0f, 1e-45f, 1.17549435e-38f, 3.40282347e+38f,
                                     0.00392156886f, 16777217.0f, 2.71828175f};
  for (float scale : scales) {
    Graph g;
    Value *x = g.addInput(InputKind::User, "x", DType::Int8, {2});
    QuantParams q;
    q.scale = {scale};
    q.zero_point = {-3};
    q.min = {-scale};
    q.max = {scale * 2};
    x->setQuant(q);
    g.addOutput(GraphOutput{OutputKind::User, Argument::value(x), {}});
    const std::string text = printGraph(g);
    auto back = parseGraph(text);
    const QuantParams *r = back->findValue("x")->quant();
    ASSERT_NE(r, nullptr) << text;
    EXPECT_EQ(std::memcmp(r->scale.data(), q.scale.data(), sizeof(float)), 0) << text;
    EXPECT_EQ(*r, q) << text;
    EXPECT_EQ(printGraph(*back), text);
  }
}

TEST(TextIRQuant, FourBitConstantsPrintAsNumbers) {
  auto g = parseGraph("graph @main {\n  %c = const i4[4] dense<[-8, -1, 0, 7]>\n  return %c\n}\n");
  const auto bytes = g->constants().front()->constant()->contiguousBytes();
  ASSERT_EQ(bytes.size(), 4u); // one value per byte in IR memory
  EXPECT_EQ(static_cast<int8_t>(bytes[0]), -8);
  EXPECT_EQ(static_cast<int8_t>(bytes[3]), 7);
  EXPECT_NE(printGraph(*g).find("dense<[-8, -1, 0, 7]>"), std::string::npos) << printGraph(*g);
}

void expectParseError(const std::string &text, const std::string &needle) {
  try {
    parseTorch(text);
    FAIL() << "expected a parse error containing '" << needle << "' for:\n" << text;
  } catch (const LocatedError &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(needle), std::string::npos) << message;
    EXPECT_NE(message.find("quant.tir:"), std::string::npos) << message;
  }
}

TEST(TextIRQuant, MalformedQParamsAreLocatedErrors) {
  expectParseError("graph @main {\n  input %x: u8[2] {q: scale=[0.5], zp=[1], bogus=3}\n  return %x\n}\n",
                   "unknown quantization parameter 'bogus'");
  expectParseError("graph @main {\n  input %x: u8[2] {q: scale=[0.5], zp=[1], zp=[2]}\n  return %x\n}\n",
                   "'zp' is given twice");
  expectParseError("graph @main {\n  input %x: u8[2] {q: scale=[0.5]}\n  return %x\n}\n",
                   "need scale=[...] and zp=[...]");
  expectParseError("graph @main {\n  input %x: u8[2] {scale=[0.5], zp=[1]}\n  return %x\n}\n", "expected 'q'");
  expectParseError("graph @main {\n  input %x: u8[2] {q: scale=[0.5], zp=[1.5]}\n  return %x\n}\n",
                   "expected an integer");
  expectParseError("graph @main {\n  %c = const u4[2] dense<[3, 16]>\n  return %c\n}\n", "bad element '16' for u4");
  expectParseError("graph @main {\n  %c = const i4[2] dense<[-9, 0]>\n  return %c\n}\n", "bad element '-9' for i4");
}

TEST(TextIRQuant, VerifyRejectsWhatParsesButIsWrong) {
  // Syntax is fine; the rules of Graph::verify are not: each names the value.
  auto g = parseTorch("graph @main {\n  input %x: f32[2] {q: scale=[0.5], zp=[0]}\n  input %y: u8[2] {q: scale=[-1.0], "
                      "zp=[300]}\n  return %x, %y\n}\n");
  try {
    g->verify();
    FAIL() << "expected a verification error";
  } catch (const Error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("value 'x': has quantization parameters but its element type 'f32'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("value 'y': scale[0] is -1.0"), std::string::npos) << message;
    EXPECT_NE(message.find("zero_point[0] is 300"), std::string::npos) << message;
  }
}

} // namespace
} // namespace tico
