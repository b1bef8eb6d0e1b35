// Textual IR: printing, parsing, round trips and located errors.
#include "pt2/torch_op_table.h"
#include "tico/ir/text.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;

namespace {

const char *kExample = R"(graph @main {
  symbol s0 in [1, 64] hint 2
  input %x: f32[s0, 4]
  param %w: f32[2, 4] "fc.weight" = dense<[0.5, -1.0, 2.25, 3.0, 1e-08, -0.0, 7.0, 8.5]>
  buffer %b: f32[2] "fc.bias" nonpersistent = dense<[0.25, 0.75]>
  constant_input "flag" = true
  %c = const i64[3] dense<[1, -2, 9223372036854775807]>
  %linear: f32[s0, 2] = aten::linear.default(%x, %w, %b)
  %sz: sym_int = aten::sym_size.int(%x, 0)
  %v: f32[s0, 2] = aten::view.default(%linear, [%sz, 2])
  %g: f32[s0, 2] = aten::gelu.default(%v, approximate="tanh")
  %vals: f32[s0], %idx: i64[s0] = @max_1 aten::max.dim(%g, 1)
  %cat: f32[s0, 4] = aten::cat.default([%g, %g], 1)
  %half: f32[s0, 4] = aten::mul.Tensor(%cat, 0.5)
  return %half, %idx, buffer_mutation "fc.bias" %b, None
}
)";

// The graphs here use aten ops: parse them against the PyTorch table (the plugin's, linked in).
std::unique_ptr<Graph> parseTorch(std::string_view text, ParseOptions options = {}) {
  if (options.schemas == nullptr)
    options.schemas = &tico::pt2::torchOpSchemas();
  return parseGraph(text, options);
}

} // namespace

TEST(TextIR, PrintIsAFixedPointOfParse) {
  auto g = parseTorch(kExample);
  g->verify();
  PrintOptions no_elide;
  no_elide.elide_constants_above = -1;
  std::string printed = printGraph(*g, no_elide);
  EXPECT_EQ(printed, kExample);
  auto again = parseTorch(printed);
  EXPECT_EQ(printGraph(*again, no_elide), printed);
}

TEST(TextIR, ParsedGraphHasTheRightStructure) {
  auto g = parseTorch(kExample);
  ASSERT_EQ(g->inputs().size(), 4u);
  EXPECT_EQ(g->inputs()[1].kind, InputKind::Parameter);
  EXPECT_EQ(g->inputs()[1].target, "fc.weight");
  EXPECT_FALSE(g->inputs()[2].persistent);
  EXPECT_EQ(g->inputs()[3].kind, InputKind::ConstantInput);
  Value *x = g->findValue("x");
  EXPECT_EQ(x->shape()[0].expr(), "s0");
  EXPECT_EQ(x->shape()[0].value(), 2); // from the symbol's hint
  EXPECT_EQ(g->symbols().at("s0").max, 64);
  Node *gelu = g->findNode("g");
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->arg("approximate").asString(), "tanh");
  Node *view = g->findNode("v");
  ASSERT_EQ(view->arg("size").kind(), Argument::Kind::SymIntList);
  EXPECT_EQ(view->arg("size").asSymInts()[0].sym, g->findValue("sz"));
  Node *max = g->findNode("max_1");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->numOutputs(), 2u);
  EXPECT_EQ(max->output(1)->dtype(), DType::Int64);
  const float *w = reinterpret_cast<const float *>(g->findValue("w")->constant()->data());
  EXPECT_EQ(w[4], 1e-08f);
  EXPECT_EQ(g->outputs()[2].kind, OutputKind::BufferMutation);
  EXPECT_TRUE(g->outputs()[3].value.isNone());
}

TEST(TextIR, DefaultsAreOmittedAndNamedAfterAGap) {
  auto g = parseTorch(R"(graph @m {
  input %x: f32[1, 3, 8, 8]
  param %w: f32[4, 3, 3, 3] "w" = elided<432 bytes>
  %y: f32[1, 4, 8, 8] = aten::conv2d.default(%x, %w, None, [1, 1], [1, 1])
  %z: f32[1, 4, 8, 8] = aten::conv2d.default(%x, %w, groups=1, padding=[1, 1])
  return %y, %z
}
)",
                      ParseOptions{"t.tir", true, nullptr});
  std::string text = printGraph(*g);
  EXPECT_NE(text.find("aten::conv2d.default(%x, %w, padding=[1, 1])"), std::string::npos) << text;
  EXPECT_NE(text.find("param %w: f32[4, 3, 3, 3] \"w\" = elided<432 bytes>"), std::string::npos) << text;
}

TEST(TextIR, ElidedPayloadsNeedExplicitPermission) {
  const char *text = "graph @m {\n  param %w: f32[2] \"w\" = elided<8 bytes>\n  return %w\n}\n";
  EXPECT_THROW(parseTorch(text), LocatedError);
  ParseOptions allow;
  allow.allow_elided = true;
  EXPECT_NO_THROW(parseTorch(text, allow));
}

TEST(TextIR, ErrorsCarryFileLineAndColumn) {
  ParseOptions opts;
  opts.file_name = "bad.tir";
  try {
    parseTorch("graph @m {\n  input %x: f32[2]\n  %y: f32[2] = aten::relu.default(%nope)\n  return %y\n}\n", opts);
    FAIL();
  } catch (const LocatedError &e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 35);
    EXPECT_NE(std::string(e.what()).find("bad.tir:3:35: error: use of undefined value '%nope'"), std::string::npos)
        << e.what();
  }
  try {
    parseTorch("graph @m {\n  input %x: q9[2]\n}\n", opts);
    FAIL();
  } catch (const LocatedError &e) {
    EXPECT_NE(std::string(e.what()).find("unknown element type 'q9'"), std::string::npos) << e.what();
  }
  try {
    parseTorch("graph @m {\n  input %x: f32[2]\n  %y: f32[2] = aten::relu.default(%x, %x)\n  return %y\n}\n", opts);
    FAIL();
  } catch (const LocatedError &e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(std::string(e.what()).find("too many positional arguments"), std::string::npos) << e.what();
  }
}

TEST(TextIR, SplitsInputFilesAndSkipsCheckComments) {
  auto parts = splitInputFile("// CHECK: a\ngraph @a {\n  return\n}\n// -----\ngraph @b {\n  return\n}\n");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parseTorch(parts[0])->name, "a");
  EXPECT_EQ(parseTorch(parts[1])->name, "b");
}

TEST(TextIR, HalfPrecisionConstantsUseHex) {
  auto g = parseTorch("graph @m {\n  %h = const f16[2] hex<\"003c0040\">\n  return %h\n}\n");
  std::string text = printGraph(*g);
  EXPECT_NE(text.find("hex<\"003c0040\">"), std::string::npos) << text;
}

// A dimension written as an expression without symbols is a fixed size (the text-ir fuzzer found
// "- 0" kept as a symbolic dim printing as "-0", which parsed back as the number 0); a negative
// size is an error at the dimension.
TEST(TextIR, ConstantDimensionExpressionsAreFixedSizes) {
  auto g = parseTorch("graph @m {\n  input %x: f32[2*3, - 0, s0]\n  return %x\n}\n");
  const Shape &shape = g->inputs().front().value->shape();
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_TRUE(shape[0].isStatic());
  EXPECT_EQ(shape[0].value(), 6);
  EXPECT_TRUE(shape[1].isStatic());
  EXPECT_EQ(shape[1].value(), 0);
  EXPECT_TRUE(shape[2].isSymbolic());
  EXPECT_NE(printGraph(*g).find("input %x: f32[6, 0, s0]"), std::string::npos) << printGraph(*g);
  for (const char *dim : {"-2", "1 - 3", "1//0", "9223372036854775807 + 1"}) {
    try {
      parseTorch(std::string("graph @m {\n  input %x: f32[4, ") + dim + "]\n  return %x\n}\n");
      FAIL() << dim;
    } catch (const LocatedError &e) {
      EXPECT_EQ(e.where().line, 2) << dim;
      EXPECT_EQ(e.where().column, 20) << dim << ": " << e.what();
    }
  }
}

// Escapes and payload digits are checked, not handed to std::stoi (which threw std::exception out
// of the parser on "\xZZ", found by the text-ir fuzzer, and read "1g" as 1); an integer element
// outside its type's range is an error instead of a silently wrapped value.
TEST(TextIR, MalformedEscapesPayloadsAndElementsAreLocatedErrors) {
  const std::pair<const char *, const char *> cases[] = {
      {"  param %w: f32[1] \"w\\xZZ\" = dense<[1.0]>\n", "two hex digits"},
      {"  param %w: f32[1] \"w\\x4", "two hex digits"},
      {"  param %w: u8[2] \"w\" = hex<\"1g00\">\n", "not a hex digit"},
      {"  param %w: u8[2] \"w\" = dense<[1, 256]>\n", "bad element '256' for u8"},
      {"  param %w: i8[2] \"w\" = dense<[1, -129]>\n", "bad element '-129' for i8"},
      {"  param %w: i32[1] \"w\" = dense<[1.5]>\n", "bad element '1.5' for i32"},
      {"  param %w: u16[1] \"w\" = dense<[-1]>\n", "bad element '-1' for u16"},
  };
  for (const auto &[line, message] : cases) {
    const std::string text = std::string("graph @m {\n") + line + "  return %w\n}\n";
    try {
      parseTorch(text);
      FAIL() << text;
    } catch (const LocatedError &e) {
      EXPECT_EQ(e.where().line, 2) << text;
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  auto g = parseTorch("graph @m {\n  param %w: u8[2] \"w\\x41\" = hex<\"ff00\">\n  return %w\n}\n");
  EXPECT_EQ(g->inputs().front().target, "wA");
  EXPECT_EQ(static_cast<int>(g->inputs().front().value->constant()->data()[0]), 0xff);
}
