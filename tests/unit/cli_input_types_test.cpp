// Inputs that are not regular files (tracker issue 11): a FIFO, device or directory given as
// the model, the manifest, a plugin or a tico-circle input is refused by type before it is
// opened (opening a FIFO would block forever), and an oversized manifest is refused.
#include "cli_test_support.h"

#include <filesystem>

namespace tico::cli_test {
namespace {

namespace fs = std::filesystem;

class InputTypes : public ::testing::Test {
protected:
  void SetUp() override {
    writeAll(dir / "m.tir", "graph @main {\n  input %x: f32[2, 3]\n  %r: f32[2, 3] = aten::relu.default(%x)\n"
                            "  return %r\n}\n");
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  }

  ToolResult ticoRun(std::vector<std::string> args) { return runTool(TICO_RUN_PATH, args, dir.path()); }
  ToolResult ticoCircle(std::vector<std::string> args) { return runTool(TICO_CIRCLE_PATH, args, dir.path()); }

  static void expectMessage(const ToolResult &r, int code, const std::string &message) {
    EXPECT_EQ(r.exit_code, code) << (r.exit_code == -1 ? "timed out (blocked on the input?)\n" : "") << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }

  ScratchDir dir;
};

TEST_F(InputTypes, TicoRunRefusesAFifoModel) {
  expectMessage(ticoRun({"fifo", "--passes", "remove-nop", "-o", "out.circle"}), 1,
                "input model 'fifo' is a FIFO, not a regular file");
  EXPECT_FALSE(fs::exists(dir / "out.circle"));
}

TEST_F(InputTypes, TicoRunRefusesAFifoManifest) {
  expectMessage(ticoRun({"m.tir", "--pipeline", "fifo", "--emit", "tir"}), 1,
                "pipeline manifest 'fifo' is a FIFO, not a regular file");
}

TEST_F(InputTypes, TicoRunRefusesADirectoryManifest) {
  fs::create_directory(dir / "pipelines");
  expectMessage(ticoRun({"m.tir", "--pipeline", "pipelines", "--emit", "tir"}), 1,
                "pipeline manifest 'pipelines' is a directory, not a regular file");
}

TEST_F(InputTypes, TicoRunRefusesADeviceManifest) {
  expectMessage(ticoRun({"m.tir", "--pipeline", "/dev/zero", "--emit", "tir"}), 1,
                "pipeline manifest '/dev/zero' is a character device, not a regular file");
}

TEST_F(InputTypes, TicoRunRefusesAnOversizedManifest) {
  {
    std::ofstream big(dir / "big.yaml");
  }
  fs::resize_file(dir / "big.yaml", (std::uintmax_t{16} << 20) + 1); // sparse: no disk used
  expectMessage(ticoRun({"m.tir", "--pipeline", "big.yaml", "--emit", "tir"}), 1,
                "pipeline manifest 'big.yaml' is larger than 16 MiB");
}

TEST_F(InputTypes, TicoRunRefusesAFifoPlugin) {
  expectMessage(ticoRun({"--plugin", "fifo", "--list-plugins"}), 1,
                "cannot load plugin 'fifo': it is a FIFO, not a regular file");
}

TEST_F(InputTypes, TicoCircleRefusesAFifoModel) {
  for (const char *command : {"inspect", "verify"})
    expectMessage(ticoCircle({command, "fifo"}), 2, "Circle file 'fifo' is a FIFO, not a regular file");
  expectMessage(ticoCircle({"run", "fifo", "--output-dir", "out"}), 2,
                "Circle file 'fifo' is a FIFO, not a regular file");
  expectMessage(ticoCircle({"optimize", "fifo", "--passes", "x", "-o", "out.circle"}), 2,
                "Circle file 'fifo' is a FIFO, not a regular file");
  expectMessage(ticoCircle({"inspect", "."}), 2, "Circle file '.' is a directory, not a regular file");
  EXPECT_FALSE(fs::exists(dir / "out.circle"));
}

TEST_F(InputTypes, TicoCircleRunRefusesAFifoNpyInput) {
  const ToolResult made = ticoRun({"m.tir", "--passes", "remove-nop", "-o", "m.circle"});
  ASSERT_EQ(made.exit_code, 0) << made.output;
  expectMessage(ticoCircle({"run", "m.circle", "--input", "fifo", "--output-dir", "out"}), 2,
                "'fifo' is a FIFO, not a regular file");
  EXPECT_FALSE(fs::exists(dir / "out/out0.npy"));
}

TEST_F(InputTypes, TicoCircleOptimizeRefusesAFifoPreset) {
  const ToolResult made = ticoRun({"m.tir", "--passes", "remove-nop", "-o", "m.circle"});
  ASSERT_EQ(made.exit_code, 0) << made.output;
  expectMessage(ticoCircle({"optimize", "m.circle", "-O1", "--pipeline", "fifo", "-o", "out.circle"}), 2,
                "pipeline manifest 'fifo' is a FIFO, not a regular file");
}

} // namespace
} // namespace tico::cli_test
