// Output safety of tico-run and tico-circle (tracker issue 11): an output that is one of the
// run's inputs is refused, read-only targets need --force, a replaced file keeps its mode, and
// device targets such as /dev/null are written in place instead of being renamed over.
#include "cli_test_support.h"

#include <filesystem>

namespace tico::cli_test {
namespace {

namespace fs = std::filesystem;

const std::string kModel = "graph @main {\n  input %x: f32[2, 3]\n  %r: f32[2, 3] = aten::relu.default(%x)\n"
                           "  return %r\n}\n";

class OutputSafety : public ::testing::Test {
protected:
  void SetUp() override { writeAll(dir / "m.tir", kModel); }

  // tico-run on m.tir with a one-pass pipeline, plus `extra` arguments.
  ToolResult ticoRun(std::vector<std::string> extra) {
    std::vector<std::string> args{"m.tir", "--passes", "remove-nop"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runTool(TICO_RUN_PATH, args, dir.path());
  }
  ToolResult ticoCircle(std::vector<std::string> args) { return runTool(TICO_CIRCLE_PATH, args, dir.path()); }

  void makeCircle(const std::string &name) {
    const ToolResult made = ticoRun({"-o", name});
    ASSERT_EQ(made.exit_code, 0) << made.output;
  }

  void expectRefusedSameFile(const ToolResult &r, int code, const std::string &output, const std::string &input) {
    EXPECT_EQ(r.exit_code, code) << r.output;
    EXPECT_NE(r.output.find("output '" + output + "' is the same file as the input '" + input + "'"),
              std::string::npos)
        << r.output;
  }

  ScratchDir dir;
};

TEST_F(OutputSafety, TicoRunRefusesTheInputAsOutput) {
  expectRefusedSameFile(ticoRun({"--emit", "tir", "-o", "m.tir"}), 1, "m.tir", "m.tir");
  expectRefusedSameFile(ticoRun({"--emit", "tir", "-o", "./m.tir"}), 1, "./m.tir", "m.tir");
  expectRefusedSameFile(ticoRun({"-o", "m.tir"}), 1, "m.tir", "m.tir");
  EXPECT_EQ(readAll(dir / "m.tir"), kModel);
}

TEST_F(OutputSafety, TicoRunRefusesAnInputReachedThroughLinks) {
  fs::create_symlink("m.tir", dir / "soft.tir");
  fs::create_hard_link(dir / "m.tir", dir / "hard.tir");
  expectRefusedSameFile(ticoRun({"--emit", "tir", "-o", "soft.tir"}), 1, "soft.tir", "m.tir");
  expectRefusedSameFile(ticoRun({"-o", "hard.tir"}), 1, "hard.tir", "m.tir");
  EXPECT_EQ(readAll(dir / "m.tir"), kModel);
  EXPECT_TRUE(fs::is_symlink(dir / "soft.tir"));
}

TEST_F(OutputSafety, TicoRunRefusesTheManifestAsOutput) {
  const std::string manifest = "schema: tico.pipeline/v1\nstages: []\n";
  writeAll(dir / "p.yaml", manifest);
  const ToolResult r = runTool(TICO_RUN_PATH, {"m.tir", "--pipeline", "p.yaml", "-o", "p.yaml"}, dir.path());
  expectRefusedSameFile(r, 1, "p.yaml", "p.yaml");
  EXPECT_EQ(readAll(dir / "p.yaml"), manifest);
}

// /dev/zero stands for /dev/null: it discards writes too, and some containers replace
// /dev/null with a regular file.
TEST_F(OutputSafety, WritesIntoDevicesInPlace) {
  ToolResult r = ticoRun({"-o", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_character_file("/dev/zero"));
  fs::create_symlink("/dev/zero", dir / "zero.circle");
  r = ticoRun({"-o", "zero.circle"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = ticoRun({"--emit", "tir", "-o", "zero.circle"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir / "zero.circle")) << "the symlink to /dev/zero was replaced";
  EXPECT_FALSE(fs::exists(dir / "zero.circle.tmp")) << "no temporary file is left behind";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
}

TEST_F(OutputSafety, RefusesADirectoryTarget) {
  fs::create_directory(dir / "out");
  const ToolResult r = ticoRun({"-o", "out"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("output 'out' is a directory"), std::string::npos) << r.output;
}

TEST_F(OutputSafety, KeepsTheModeOfAReplacedFile) {
  writeAll(dir / "out.tir", "old");
  fs::permissions(dir / "out.tir", fs::perms(0640));
  ToolResult r = ticoRun({"--emit", "tir", "-o", "out.tir"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(modeOf(dir / "out.tir"), 0640u);
  EXPECT_NE(readAll(dir / "out.tir").find("graph @main"), std::string::npos);

  writeAll(dir / "out.circle", "old");
  fs::permissions(dir / "out.circle", fs::perms(0600));
  r = ticoRun({"-o", "out.circle"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(modeOf(dir / "out.circle"), 0600u);
  EXPECT_NE(readAll(dir / "out.circle"), "old");
}

TEST_F(OutputSafety, TicoRunNeedsForceForAReadOnlyTarget) {
  writeAll(dir / "out.circle", "old");
  fs::permissions(dir / "out.circle", fs::perms(0444));
  ToolResult r = ticoRun({"-o", "out.circle"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("output 'out.circle' is read-only (mode 0444); use --force to replace it"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(readAll(dir / "out.circle"), "old");

  r = ticoRun({"-o", "out.circle", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(readAll(dir / "out.circle"), "old");
  EXPECT_EQ(modeOf(dir / "out.circle"), 0444u);
}

TEST_F(OutputSafety, TicoCircleRefusesTheInputAsOutput) {
  makeCircle("m.circle");
  const std::string model = readAll(dir / "m.circle");
  expectRefusedSameFile(ticoCircle({"optimize", "m.circle", "--passes", "remove-dead-operators", "-o", "./m.circle"}),
                        2, "./m.circle", "m.circle");
  expectRefusedSameFile(ticoCircle({"extract", "m.circle", "--ops", "0", "-o", "m.circle"}), 2, "m.circle",
                        "m.circle");
  EXPECT_EQ(readAll(dir / "m.circle"), model);
}

TEST_F(OutputSafety, TicoCircleNeedsForceForAReadOnlyTarget) {
  makeCircle("m.circle");
  writeAll(dir / "out.circle", "old");
  fs::permissions(dir / "out.circle", fs::perms(0444));
  ToolResult r = ticoCircle({"extract", "m.circle", "--ops", "0", "-o", "out.circle"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is read-only (mode 0444); use --force"), std::string::npos) << r.output;
  EXPECT_EQ(readAll(dir / "out.circle"), "old");
  r = ticoCircle({"extract", "m.circle", "--ops", "0", "-o", "out.circle", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(readAll(dir / "out.circle"), "old");
}

TEST_F(OutputSafety, TicoCircleRunRefusesToOverwriteAnInputNpy) {
  makeCircle("m.circle");
  fs::create_directory(dir / "d");
  // A float32[2, 3] .npy file, version 1.0, header padded to 128 bytes in total.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
                    std::string(24, '\0');
  writeAll(dir / "d/out0.npy", npy);
  const ToolResult r = ticoCircle({"run", "m.circle", "--input", "d/out0.npy", "--output-dir", "d"});
  expectRefusedSameFile(r, 2, "d/out0.npy", "d/out0.npy");
  EXPECT_EQ(readAll(dir / "d/out0.npy"), npy);
}

// Issue 31: calibration data is an input (a file or every file of a folder); two outputs of one
// run may not name the same file; --encodings and -o are written both or neither.
TEST_F(OutputSafety, TicoRunProtectsCalibrationDataAndKeepsOutputsApart) {
  writeAll(dir / "c.npz", "calibration bytes");
  fs::create_directories(dir / "cal");
  writeAll(dir / "cal/0.npy", "batch 0");
  auto refused = [&](const ToolResult &r, const std::string &why) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  };
  refused(ticoRun({"-o", "c.npz", "--calibration", "npz:c.npz"}),
          "output 'c.npz' is the same file as the input 'c.npz'");
  refused(ticoRun({"-o", "m.circle", "--encodings", "c.npz", "--calibration", "c.npz"}),
          "output 'c.npz' is the same file as the input 'c.npz'");
  refused(ticoRun({"-o", "cal/0.npy", "--calibration", "cal"}), "output 'cal/0.npy' is inside the calibration data folder 'cal'");
  refused(ticoRun({"-o", "cal/new.circle", "--calibration", "./cal/"}), "is inside the calibration data folder");
  EXPECT_EQ(readAll(dir / "c.npz"), "calibration bytes");
  EXPECT_EQ(readAll(dir / "cal/0.npy"), "batch 0");
  EXPECT_FALSE(fs::exists(dir / "cal/new.circle"));

  refused(ticoRun({"-o", "o.circle", "--encodings", "./o.circle"}),
          "-o 'o.circle' and --encodings './o.circle' name the same file");
  EXPECT_FALSE(fs::exists(dir / "o.circle"));
  // A failing --encodings leaves no Circle file (and an existing one untouched).
  refused(ticoRun({"-o", "o.circle", "--encodings", "no-such-dir/e.json"}), "cannot write encodings file");
  EXPECT_FALSE(fs::exists(dir / "o.circle"));
  writeAll(dir / "o.circle", "previous");
  refused(ticoRun({"-o", "o.circle", "--encodings", "no-such-dir/e.json"}), "cannot write encodings file");
  EXPECT_EQ(readAll(dir / "o.circle"), "previous");
  const ToolResult both = ticoRun({"-o", "o.circle", "--encodings", "e.json"});
  ASSERT_EQ(both.exit_code, 0) << both.output;
  EXPECT_NE(readAll(dir / "o.circle"), "previous");
  EXPECT_TRUE(fs::exists(dir / "e.json"));
}

TEST_F(OutputSafety, TicoRunWritesThroughALinkAndRefusesDanglingOnes) {
  writeAll(dir / "real.circle", "old");
  fs::create_symlink("real.circle", dir / "link.circle");
  const ToolResult r = ticoRun({"-o", "link.circle"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir / "link.circle"));
  EXPECT_NE(readAll(dir / "real.circle"), "old");
  fs::create_symlink("nowhere.circle", dir / "dangling.circle");
  const ToolResult d = ticoRun({"-o", "dangling.circle"});
  EXPECT_EQ(d.exit_code, 1) << d.output;
  EXPECT_NE(d.output.find("it is a symbolic link to 'nowhere.circle', which does not exist"), std::string::npos) << d.output;
  EXPECT_FALSE(fs::exists(dir / "nowhere.circle"));
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.circle"));
}

} // namespace
} // namespace tico::cli_test
