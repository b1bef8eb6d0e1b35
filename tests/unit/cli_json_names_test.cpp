// tico-circle inspect/verify --json on a model whose tensor names are not valid UTF-8 (tracker
// issue 11): the JSON is printed with U+FFFD for the bad bytes instead of the JSON library's
// exception ending the command with exit code 3 and no output.
#include "cli_test_support.h"

#include <string>

namespace tico::cli_test {
namespace {

const std::string kModel = "graph @main {\n  input %abcdefgh: f32[2, 3]\n"
                           "  %r: f32[2, 3] = aten::relu.default(%abcdefgh)\n  return %r\n}\n";

TEST(CliJsonNames, InvalidUtf8NamesAreReplacedNotFatal) {
  ScratchDir dir;
  writeAll(dir / "m.tir", kModel);
  const ToolResult made = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "-o", "m.circle"}, dir.path());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  // Same length, so the FlatBuffer stays valid: only the name's bytes change.
  std::string bytes = readAll(dir / "m.circle");
  std::size_t replaced = 0;
  for (std::size_t at = bytes.find("abcdefgh"); at != std::string::npos; at = bytes.find("abcdefgh", at + 8)) {
    bytes.replace(at, 8, "ab\xff\xfe" "cdef");
    ++replaced;
  }
  ASSERT_GT(replaced, 0u);
  writeAll(dir / "bad.circle", bytes);

  const ToolResult inspect = runTool(TICO_CIRCLE_PATH, {"inspect", "bad.circle", "--json", "--tensors"}, dir.path());
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("ab\xef\xbf\xbd\xef\xbf\xbd" "cdef"), std::string::npos) << inspect.output;

  const ToolResult verify = runTool(TICO_CIRCLE_PATH, {"verify", "bad.circle", "--json"}, dir.path());
  EXPECT_NE(verify.exit_code, 3) << verify.output;
  EXPECT_NE(verify.output.find("\"diagnostics\""), std::string::npos) << verify.output;
}

} // namespace
} // namespace tico::cli_test
