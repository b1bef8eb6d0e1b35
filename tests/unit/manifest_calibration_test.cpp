// The manifest's calibration block and quantization recipes (tico-run --quant): parsing with
// located errors, printing round trip, memory sizes, merging, and where recipe stages go.
#include "tico/pipeline/manifest.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tico {
namespace {

Manifest parse(const std::string &text) { return Manifest::parse(text, "p.yaml"); }

std::string parseError(const std::string &text) {
  try {
    parse(text);
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

const std::string kHeader = "schema: tico.pipeline/v1\n";

TEST(ManifestCalibrationTest, ReadsEveryKey) {
  Manifest m = parse(kHeader + R"(calibration:
  source: npy
  path: calib
  batches: 16
  seed: 7
  dims: {s0: 128, s1: 4}
  memory_budget: 4GiB
  offload_dir: /var/tmp
)");
  EXPECT_EQ(m.calibration.source, "npy");
  EXPECT_EQ(m.calibration.path, "calib");
  EXPECT_EQ(m.calibration.batches, std::optional<std::size_t>(16));
  EXPECT_EQ(m.calibration.seed, std::optional<uint64_t>(7));
  EXPECT_EQ(m.calibration.dims, (std::map<std::string, int64_t>{{"s0", 128}, {"s1", 4}}));
  EXPECT_EQ(m.calibration.memory_budget, std::optional<uint64_t>(4ull << 30));
  EXPECT_EQ(m.calibration.offload_dir, "/var/tmp");
  EXPECT_EQ(m.calibration.where.line, 3); // the block's first key
}

TEST(ManifestCalibrationTest, PrintRoundTrips) {
  Manifest m = parse(kHeader + "calibration: {path: 'a b', batches: 3, memory_budget: 1536MiB, dims: {s0: 2}}\n");
  Manifest again = parse(m.print());
  EXPECT_EQ(again.calibration, m.calibration);
  EXPECT_NE(m.print().find("memory_budget: \"1536MiB\""), std::string::npos) << m.print();
  // No block, nothing printed.
  EXPECT_EQ(parse(kHeader).print().find("calibration"), std::string::npos);
}

TEST(ManifestCalibrationTest, ErrorsAreLocated) {
  EXPECT_EQ(parseError(kHeader + "calibration:\n  batchs: 3\n"),
            "p.yaml:3:3: error: unknown key 'batchs' in calibration (did you mean 'batches'?)");
  EXPECT_EQ(parseError(kHeader + "calibration:\n  batches: 0\n"),
            "p.yaml:3:12: error: 'calibration.batches' must be between 1 and 1000000, not 0");
  // Issue 31: 2^32 batches ended in std::bad_alloc.
  EXPECT_EQ(parseError(kHeader + "calibration:\n  batches: 4294967296\n"),
            "p.yaml:3:12: error: 'calibration.batches' must be between 1 and 1000000, not 4294967296");
  EXPECT_EQ(parseError(kHeader + "calibration:\n  seed: -1\n"),
            "p.yaml:3:9: error: 'calibration.seed' must be a non-negative integer, got '-1'");
  EXPECT_NE(parseError(kHeader + "calibration:\n  memory_budget: lots\n").find("p.yaml:3:18: error: memory size 'lots' is not a size"),
            std::string::npos);
  EXPECT_EQ(parseError(kHeader + "calibration: [1]\n").rfind("p.yaml:2:14: error: 'calibration' must be a map", 0), 0u);
  EXPECT_EQ(parseError(kHeader + "calibration:\n  dims: [1]\n").rfind("p.yaml:3:9: error: 'calibration.dims' must be a map", 0),
            0u);
}

TEST(ManifestCalibrationTest, ByteSizes) {
  EXPECT_EQ(parseByteSize("4GiB"), 4ull << 30);
  EXPECT_EQ(parseByteSize("512MiB"), 512ull << 20);
  EXPECT_EQ(parseByteSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parseByteSize("2GB"), 2000000000ull);
  EXPECT_EQ(parseByteSize("64KiB"), 65536ull);
  EXPECT_EQ(parseByteSize("123"), 123ull);
  EXPECT_EQ(parseByteSize("10 MiB"), 10ull << 20);
  for (const char *bad : {"", "GiB", "-1GiB", "1e3", "four", "0", "1.2.3MiB"})
    EXPECT_THROW(parseByteSize(bad), Error) << bad;
  EXPECT_EQ(byteSizeText(4ull << 30), "4GiB");
  EXPECT_EQ(byteSizeText(1536ull << 20), "1536MiB");
  EXPECT_EQ(byteSizeText(1000), "1000");
  for (uint64_t bytes : {1ull, 1024ull, 3ull << 29, 12345678ull})
    EXPECT_EQ(parseByteSize(byteSizeText(bytes)), bytes);
}

TEST(ManifestCalibrationTest, MergeLetsTheLaterBlockWin) {
  CalibrationConfig base = parse(kHeader + "calibration: {source: npy, path: a, batches: 4, seed: 1}\n").calibration;
  CalibrationConfig cli;
  cli.path = "random";
  cli.batches = 2;
  base.merge(cli);
  EXPECT_EQ(base.path, "random");
  EXPECT_EQ(base.source, ""); // a new path drops the old source: the new one is detected
  EXPECT_EQ(base.batches, std::optional<std::size_t>(2));
  EXPECT_EQ(base.seed, std::optional<uint64_t>(1));
}

const std::string kPipeline = kHeader + R"(stages:
  - name: legalize
    passes: [remove-nop]
  - name: quantize
    when: has-quant-ops
    passes: [fold-quant-ops]
  - name: circle
    kind: circle
    passes: [remove-dead-tensors]
)";

TEST(ManifestCalibrationTest, RecipeStagesGoBeforeTheQuantizeStage) {
  Manifest pipeline = parse(kPipeline);
  Manifest recipe = parse(kHeader + R"(calibration: {batches: 8}
stages:
  - name: quantizers
    kind: quantize
    strategy: once
    passes: [gptq, ptq]
)");
  pipeline.insertQuantization(recipe);
  ASSERT_EQ(pipeline.stages.size(), 4u);
  EXPECT_EQ(pipeline.stages[1].name, "quantizers");
  EXPECT_EQ(pipeline.stages[2].name, "quantize");
  EXPECT_EQ(pipeline.calibration.batches, std::optional<std::size_t>(8));

  // Without a stage called quantize: right before lowering.
  Manifest plain = parse(kHeader + "stages:\n  - {name: a, passes: [remove-nop]}\n  - {name: c, kind: circle, passes: []}\n");
  plain.insertQuantization(recipe);
  ASSERT_EQ(plain.stages.size(), 3u);
  EXPECT_EQ(plain.stages[1].name, "quantizers");
}

TEST(ManifestCalibrationTest, RecipeWithOtherStagesIsAnError) {
  Manifest pipeline = parse(kPipeline);
  Manifest recipe = parse(kHeader + "stages:\n  - {name: extra, passes: [remove-nop]}\n");
  try {
    pipeline.insertQuantization(recipe);
    FAIL() << "no error";
  } catch (const LocatedError &e) {
    EXPECT_NE(std::string(e.what()).find("stage 'extra' of quantization recipe '' is of kind passes; a recipe holds "
                                         "quantize stages only"),
              std::string::npos)
        << e.what();
  }
  Manifest clash = parse(kHeader + "stages:\n  - {name: legalize, kind: quantize, passes: [ptq]}\n");
  EXPECT_THROW(pipeline.insertQuantization(clash), LocatedError);
}

TEST(ManifestCalibrationTest, LoadTakesAnExistingRelativePathFromTheManifestsDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("tico-calib-load-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "calib");
  std::ofstream(dir / "with-folder.yaml") << kHeader << "calibration: {path: calib}\n";
  std::ofstream(dir / "with-word.yaml") << kHeader << "calibration: {path: random}\n";
  EXPECT_EQ(Manifest::load((dir / "with-folder.yaml").string()).calibration.path, (dir / "calib").string());
  EXPECT_EQ(Manifest::load((dir / "with-word.yaml").string()).calibration.path, "random"); // names no file
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace tico
