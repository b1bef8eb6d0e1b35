// Messages that name the cause: negative strides, views past int64, trailing bytes after
// .npy data, unterminated YAML quotes, the errno of a plugin that cannot be opened.
#include "plugin/elf_probe.h"
#include "tico/io/npy.h"
#include "tico/ir/sym_expr.h"
#include "tico/ir/tensor_data.h"
#include "tico/ir/text.h"
#include "tico/pipeline/manifest.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"
#include "tico/support/clipped.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <unistd.h>

namespace tico {
namespace {

namespace fs = std::filesystem;

std::string messageOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

fs::path scratch(const std::string &name) {
  return fs::temp_directory_path() / ("tico-messages-" + std::to_string(::getpid()) + "-" + name);
}

TEST(ErrorMessageUnits, NegativeStrideIsNamed) {
  TensorData t = TensorData::fromVector<float>(DType::Float32, {4}, {1, 2, 3, 4});
  t.strides = {-1};
  EXPECT_EQ(messageOf([&] { t.checkBounds(); }),
            "tensor view has a negative stride (-1 in dimension 0 of sizes [4]) that reaches before the start of "
            "its storage (offset 0, first element -3)");
  // A negative stride that stays inside the storage is a valid view (a flip).
  t.storage_offset = 3;
  EXPECT_NO_THROW(t.checkBounds());
}

TEST(ErrorMessageUnits, ViewExtentOverflowIsNamed) {
  TensorData t = TensorData::fromVector<float>(DType::Float32, {4}, {1, 2, 3, 4});
  t.sizes = {3, 2};
  t.strides = {std::numeric_limits<int64_t>::max() / 2 + 1, 1};
  EXPECT_EQ(messageOf([&] { t.checkBounds(); }),
            "tensor view (offset 0, sizes [3, 2], strides [4611686018427387904, 1]) reaches further than int64 can "
            "count");
}

TEST(ErrorMessageUnits, TensorDataSizeOverflowIsNamed) {
  TensorData t;
  t.dtype = DType::Float32;
  t.sizes = {std::numeric_limits<int64_t>::max() / 2, 1};
  EXPECT_EQ(t.numel(), std::numeric_limits<int64_t>::max() / 2);
  t.sizes = {std::numeric_limits<int64_t>::max(), 3};
  EXPECT_EQ(messageOf([&] { (void)t.numel(); }),
            "tensor data: shape [9223372036854775807, 3] has an element count that overflows int64");
}

// A version 1.0 .npy file of float32 [2] holding `data`.
std::string npyFloat2(const std::string &data) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header + data;
}

TEST(ErrorMessageUnits, NpyWithTrailingBytesIsRefused) {
  const fs::path path = scratch("trailing.npy");
  std::ofstream(path, std::ios::binary) << npyFloat2(std::string(8, '\0') + "xyz");
  EXPECT_EQ(messageOf([&] { readNpy(path.string()); }),
            "'" + path.string() + "': 3 unexpected bytes after the .npy data (the header's shape and dtype need 8 "
            "bytes, the file holds 11 after its header)");
  std::ofstream(path, std::ios::binary) << npyFloat2(std::string(8, '\0'));
  EXPECT_EQ(readNpy(path.string())->numel(), 2);
  fs::remove(path);
}

TEST(ErrorMessageUnits, NpyShapeOverflowIsNamed) {
  const fs::path path = scratch("huge.npy");
  // Each dimension fits (the header parser refuses more than 18 digits); their product does not.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999999, 999999999999999999), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::ofstream(path, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) +
                                               '\0' + header;
  EXPECT_EQ(messageOf([&] { readNpy(path.string()); }),
            "'" + path.string() + "': shape [999999999999999999, 999999999999999999] has an element count that "
                                  "overflows int64");
  fs::remove(path);
}

std::string manifestError(const std::string &text) {
  return messageOf([&] { Manifest::parse(text, "p.yaml"); });
}

TEST(ErrorMessageUnits, UnterminatedYamlQuotes) {
  EXPECT_EQ(manifestError("schema: \"tico.pipeline/v1\nstages: []\n"),
            "p.yaml:1:9: error: invalid YAML: unterminated double-quoted string (no closing \" before the end of "
            "the file)");
  EXPECT_EQ(manifestError("schema: tico.pipeline/v1\nstages:\n  - name: 'a\n    passes: [remove-nop]\n"),
            "p.yaml:3:11: error: invalid YAML: unterminated single-quoted string (no closing ' before the end of "
            "the file)");
  // Quotes that are closed, escaped quotes inside them and quotes inside plain scalars or
  // comments are fine.
  EXPECT_EQ(manifestError("schema: \"tico.pipeline/v1\" # it's \"here\nstages:\n  - name: 'it''s'\n"
                          "    passes: [remove-nop]\n  - name: \"say \\\"hi\\\"\"\n    passes: ['remove-nop']\n"),
            "(no error)");
}

TEST(ErrorMessageUnits, UnopenablePluginGivesTheReason) {
  const detail::ElfProbe missing = detail::probeElfSymbol("/nonexistent/libtico-x.so", "tico", "tico_plugin_info");
  EXPECT_EQ(missing.result, detail::ElfProbeResult::Unreadable);
  EXPECT_EQ(missing.detail, "cannot open the file: No such file or directory");
}

TEST(ErrorMessageUnits, UnreadablePluginGivesTheReason) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root reads files without read permission";
  const fs::path path = scratch("libtico-unreadable.so");
  std::ofstream(path, std::ios::binary) << "\x7f" "ELF";
  fs::permissions(path, fs::perms::none);
  Registry registry;
  PluginSet plugins;
  EXPECT_EQ(messageOf([&] { plugins.load(path.string(), registry); }),
            "cannot load plugin '" + path.string() + "': cannot open the file: Permission denied");
  fs::remove(path);
}

TEST(ErrorMessageUnits, LongNamesAreClipped) {
  EXPECT_EQ(clipped("short"), "short");
  EXPECT_EQ(clipped(std::string(200, 'a')), std::string(200, 'a'));
  EXPECT_EQ(clipped(std::string(201, 'a')), std::string(200, 'a') + "... (201 bytes)");
  // A cut never splits a UTF-8 character: "é" is two bytes, the 200th byte would be its first.
  EXPECT_EQ(clipped(std::string(199, 'a') + "\xc3\xa9"), std::string(199, 'a') + "... (201 bytes)");
}

TEST(ErrorMessageUnits, MegabyteLongPassNameIsClippedInTheMessage) {
  const std::string name(10 << 20, 'p');
  Registry registry;
  const Manifest manifest = Manifest::parse("schema: tico.pipeline/v1\nstages:\n  - name: s\n    passes: [" + name + "]\n",
                                            "p.yaml");
  const std::string message = messageOf([&] { manifest.validate(registry); });
  EXPECT_NE(message.find("unknown pass '" + std::string(200, 'p') + "... (10485760 bytes)' in stage 's'"),
            std::string::npos)
      << message.substr(0, 400);
  EXPECT_LT(message.size(), 1000u);
}

// Names in a textual-IR file are echoed clipped: a 10 MB value, type or operator name gives a
// message of a few hundred bytes that still shows how the name starts and how long it was.
TEST(ErrorMessageUnits, TextIrLongNamesAreClippedInMessages) {
  const std::string name(10 << 20, 'n');
  const std::string shown = std::string(200, 'n') + "... (10485760 bytes)";
  const std::string header = "graph @main {\n  input %x: f32[4]\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header + "  return %" + name + "\n}\n", "use of undefined value '%" + shown + "'"},
      {"graph @main {\n  input %x: " + name + "[4]\n  return %x\n}\n", "unknown element type '" + shown + "'"},
      {header + "  input %" + name + ": f32[4]\n  input %" + name + ": f32[4]\n  return %x\n}\n",
       "redefinition of '%" + shown + "'"},
      {header + "  %y: f32[4] = " + name + "(%x)\n  return %y\n}\n", "'" + shown + "' is not an operator name"},
      {header + "  %y: f32[4] = aten::to.dtype(%x, dtype(" + name + "))\n  return %y\n}\n",
       "unknown dtype '" + shown + "'"},
      {header + "  %y: f32[4] = aten::clone(%x, memory_format=memory_format(" + name + "))\n  return %y\n}\n",
       "unknown memory format '" + shown + "'"},
      {header + "  %c = const " + name + "[1] = dense<1>\n  return %x\n}\n", "unknown element type '" + shown + "'"},
  };
  for (const auto &[text, expected] : cases) {
    const std::string message = messageOf([&] { parseGraph(text); });
    EXPECT_NE(message.find(expected), std::string::npos) << message.substr(0, 400);
    EXPECT_LT(message.size(), 500u) << message.substr(0, 400);
  }
}

// Found by the text-ir fuzzer: an integer literal past int64 escaped as std::out_of_range.
TEST(ErrorMessageUnits, TextIrIntegerOutOfRange) {
  const std::string graph = "graph @main {\n  input %x: f32[4, 3]\n"
                            "  %s: f32[4, 3] = aten::slice.Tensor(%x, 0, 0, 9223372063854775807)\n  return %s\n}\n";
  EXPECT_EQ(messageOf([&] { parseGraph(graph); }),
            "<input>:3:48: error: integer 9223372063854775807 does not fit in 64 bits");
  EXPECT_EQ(messageOf([&] { parseGraph("graph @main {\n  input %x: f32[99999999999999999999]\n  return %x\n}\n"); }),
            "<input>:2:17: error: integer 99999999999999999999 does not fit in 64 bits");
}

// Found by the text-ir fuzzer: a long integer in a symbolic dimension overflowed (UBSan).
TEST(ErrorMessageUnits, SymbolicDimIntegerOutOfRange) {
  const std::string message =
      messageOf([] { parseGraph("graph @main {\n  input %x: f32[s0 + 77777777777777777777]\n  return %x\n}\n"); });
  EXPECT_NE(message.find("integer 77777777777777777777 does not fit in 64 bits"), std::string::npos) << message;
  // A product past int64 has no value: the dimension gets the default hint instead of a
  // wrapped number (it was signed overflow).
  EXPECT_EQ(SymExpr::parse("777777777777777777*7777777777").evaluate({}), std::nullopt);
  EXPECT_EQ(SymExpr::parse("9223372036854775807 + 1").evaluate({}), std::nullopt);
  EXPECT_EQ(SymExpr::parse("6*7").evaluate({}), 42);
}

} // namespace
} // namespace tico
