// Error messages of the command-line tools that must name the file the user gave and the real
// cause: a failed write names the output (never the temporary file it goes through), a symlink
// loop is reported as one, an unterminated YAML quote as a YAML syntax error.
#include "cli_test_support.h"

#include <filesystem>

namespace tico::cli_test {
namespace {

namespace fs = std::filesystem;

// 64 x 64 float32: the .npy output (16 KiB) is larger than the file-size limit set below,
// the tool's error message is not.
const std::string kModel = "graph @main {\n  input %x: f32[64, 64]\n  %r: f32[64, 64] = aten::relu.default(%x)\n"
                           "  return %r\n}\n";

std::string npyOfZeros() {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 64), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
         std::string(64 * 64 * 4, '\0');
}

bool contains(const std::string &text, const std::string &needle) { return text.find(needle) != std::string::npos; }

class ErrorMessages : public ::testing::Test {
protected:
  void SetUp() override {
    writeAll(dir / "m.tir", kModel);
    writeAll(dir / "x.npy", npyOfZeros());
    const ToolResult made = runTool(TICO_RUN_PATH, {"m.tir", "--passes", "remove-nop", "-o", "m.circle"}, dir.path());
    ASSERT_EQ(made.exit_code, 0) << made.output;
  }

  // Runs `tool args` through the shell with the file-size limit set to 1 block and SIGXFSZ
  // ignored, so every write past 512 bytes into a regular file fails with EFBIG: a disk that
  // fills up, injected into the write path of the temporary file.
  ToolResult runWithFileSizeLimit(const std::string &tool, const std::string &args) {
    return runTool("/bin/sh", {"-c", "ulimit -f 1 && trap '' XFSZ && exec " + tool + " " + args}, dir.path());
  }

  ScratchDir dir;
};

TEST_F(ErrorMessages, CircleRunNamesTheOutputWhenTheDeviceIsFull) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  fs::create_directory(dir / "out");
  fs::create_symlink("/dev/full", dir / "out/out0.npy");
  const ToolResult r = runTool(TICO_CIRCLE_PATH, {"run", "m.circle", "--input", "x.npy", "--output-dir", "out"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot write 'out/out0.npy': No space left on device")) << r.output;
}

TEST_F(ErrorMessages, CircleRunNamesTheOutputNotItsTemporaryFile) {
  const ToolResult r = runWithFileSizeLimit(TICO_CIRCLE_PATH, "run m.circle --input x.npy --output-dir out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot write 'out/out0.npy': File too large")) << r.output;
  EXPECT_FALSE(contains(r.output, ".tmp.")) << r.output;
  EXPECT_TRUE(fs::is_empty(dir / "out")) << "a failed write leaves nothing behind";
}

TEST_F(ErrorMessages, TicoRunNamesTheOutputNotItsTemporaryFile) {
  // A 256-element constant makes the Circle file larger than the limit.
  std::string values;
  for (int i = 0; i < 256; ++i)
    values += (i ? ", " : "") + std::to_string(i) + ".0";
  writeAll(dir / "c.tir", "graph @main {\n  input %x: f32[256]\n  %c = const f32[256] dense<[" + values +
                              "]>\n  %r: f32[256] = aten::mul.Tensor(%x, %c)\n  return %r\n}\n");
  const ToolResult r = runWithFileSizeLimit(TICO_RUN_PATH, "c.tir --passes remove-nop -o big.circle");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot write Circle file 'big.circle'")) << r.output;
  EXPECT_TRUE(contains(r.output, "File too large")) << r.output;
  EXPECT_FALSE(contains(r.output, ".tmp.")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "big.circle"));
}

TEST_F(ErrorMessages, SymlinkLoopIsReportedAsOne) {
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  const ToolResult model = runTool(TICO_RUN_PATH, {"loop-a", "-o", "x.circle"}, dir.path());
  EXPECT_TRUE(contains(model.output, "'loop-a': Too many levels of symbolic links")) << model.output;
  const ToolResult pipeline = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "loop-a", "-o", "x.circle"}, dir.path());
  EXPECT_TRUE(contains(pipeline.output, "'loop-a': Too many levels of symbolic links")) << pipeline.output;
  const ToolResult plugin = runTool(TICO_RUN_PATH, {"--plugin", "loop-a", "--list-plugins"}, dir.path());
  EXPECT_EQ(plugin.exit_code, 1) << plugin.output;
  EXPECT_TRUE(contains(plugin.output, "cannot load plugin 'loop-a': Too many levels of symbolic links")) << plugin.output;
  EXPECT_FALSE(contains(plugin.output, "does not exist")) << plugin.output;
}

TEST_F(ErrorMessages, DirectoryAsPipelineIsReportedAsOne) {
  fs::create_directory(dir / "pipes");
  const ToolResult r = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "pipes", "-o", "x.circle"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "pipeline manifest 'pipes' is a directory")) << r.output;
  EXPECT_FALSE(contains(r.output, "empty")) << r.output;
}

TEST_F(ErrorMessages, UnterminatedQuoteIsAYamlSyntaxError) {
  writeAll(dir / "p.yaml", "schema: \"tico.pipeline/v1\nstages: []\n");
  const ToolResult r = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "p.yaml", "-o", "x.circle"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "p.yaml:1:9: error: invalid YAML: unterminated double-quoted string")) << r.output;
  EXPECT_FALSE(contains(r.output, "unsupported manifest schema")) << r.output;
}

} // namespace
} // namespace tico::cli_test
