// tico/support/file.h: input type checks, output-target checks and the safe writer.
#include "tico/support/error.h"
#include "tico/support/file.h"

#include "cli_test_support.h"

#include <filesystem>
#include <sys/stat.h>

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

namespace tico {
namespace {

namespace fs = std::filesystem;
using cli_test::modeOf;
using cli_test::readAll;
using cli_test::ScratchDir;
using cli_test::writeAll;

std::string errorOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

void writeText(const std::string &path, const std::string &text) {
  writeFileSafely(path, "test file", [&](int fd) { ASSERT_EQ(::write(fd, text.data(), text.size()), (ssize_t)text.size()); });
}

TEST(SupportFile, DescribesFileTypes) {
  EXPECT_EQ(describeFileType(S_IFIFO), "a FIFO");
  EXPECT_EQ(describeFileType(S_IFDIR | 0755), "a directory");
  EXPECT_EQ(describeFileType(S_IFCHR), "a character device");
  EXPECT_EQ(describeFileType(S_IFREG | 0644), "a regular file");
}

TEST(SupportFile, RequireRegularFileNamesTheRoleAndType) {
  ScratchDir dir;
  ASSERT_EQ(::mkfifo((dir / "f").c_str(), 0644), 0);
  EXPECT_EQ(errorOf([&] { requireRegularFile(dir / "f", "model"); }),
            "model '" + (dir / "f") + "' is a FIFO, not a regular file");
  EXPECT_EQ(errorOf([&] { requireRegularFile(dir.path(), "model"); }),
            "model '" + dir.path() + "' is a directory, not a regular file");
  EXPECT_EQ(errorOf([&] { requireRegularFile(dir / "missing", "model"); }),
            "cannot read model '" + (dir / "missing") + "': No such file or directory");
}

TEST(SupportFile, ReadRegularFileEnforcesTheLimit) {
  ScratchDir dir;
  writeAll(dir / "t", "12345");
  EXPECT_EQ(readRegularFile(dir / "t", "text", 5), "12345");
  EXPECT_NE(errorOf([&] { readRegularFile(dir / "t", "text", 4); }).find("is larger than"), std::string::npos);
}

TEST(SupportFile, ReplacedFileKeepsItsMode) {
  ScratchDir dir;
  writeAll(dir / "out", "old");
  fs::permissions(dir / "out", fs::perms(0604));
  writeText(dir / "out", "new");
  EXPECT_EQ(readAll(dir / "out"), "new");
  EXPECT_EQ(modeOf(dir / "out"), 0604u);
}

TEST(SupportFile, FailedWriteLeavesTheTargetAlone) {
  ScratchDir dir;
  writeAll(dir / "out", "old");
  EXPECT_EQ(errorOf([&] { writeFileSafely(dir / "out", "test file", [](int) { throw Error("boom"); }); }), "boom");
  EXPECT_EQ(readAll(dir / "out"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// /dev/zero stands for /dev/null: it discards writes too, and some containers replace
// /dev/null with a regular file.
TEST(SupportFile, DevicesAreWrittenInPlace) {
  ScratchDir dir;
  fs::create_symlink("/dev/zero", dir / "null");
  writeText(dir / "null", "discarded");
  writeText("/dev/zero", "discarded");
  EXPECT_TRUE(fs::is_symlink(dir / "null"));
  EXPECT_TRUE(fs::is_character_file("/dev/zero"));
}

TEST(SupportFile, CheckOutputTarget) {
  ScratchDir dir;
  writeAll(dir / "in", "x");
  fs::create_hard_link(dir / "in", dir / "hard");
  EXPECT_EQ(errorOf([&] { checkOutputTarget(dir / "hard", {"", dir / "in"}, false); }),
            "output '" + (dir / "hard") + "' is the same file as the input '" + (dir / "in") +
                "'; refusing to overwrite an input (nothing was written)");
  checkOutputTarget(dir / "new", {dir / "in"}, false); // a missing target is fine
  writeAll(dir / "ro", "x");
  fs::permissions(dir / "ro", fs::perms(0400));
  EXPECT_EQ(errorOf([&] { checkOutputTarget(dir / "ro", {}, false); }),
            "output '" + (dir / "ro") + "' is read-only (mode 0400); use --force to replace it");
  checkOutputTarget(dir / "ro", {}, true);
  checkOutputTarget("/dev/zero", {dir / "in"}, false);
}

// A link is written through (the link stays, the file it names is replaced); a dangling link
// or a loop is refused before anything is written (issue 31: -o through a link replaced it).
TEST(SupportFile, SymbolicLinksAreWrittenThrough) {
  ScratchDir dir;
  writeAll(dir / "real", "old");
  fs::create_symlink("real", dir / "link");
  writeText(dir / "link", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(readAll(dir / "real"), "new");
  fs::create_symlink("missing", dir / "dangling");
  EXPECT_HAS(errorOf([&] { writeText(dir / "dangling", "x"); }), "it is a symbolic link to 'missing', which does not exist");
  EXPECT_HAS(errorOf([&] { checkOutputTarget(dir / "dangling", {}, false); }), "which does not exist");
  EXPECT_FALSE(fs::exists(dir / "missing"));
  fs::create_symlink("loop-b", dir / "loop-a");
  fs::create_symlink("loop-a", dir / "loop-b");
  EXPECT_HAS(errorOf([&] { writeText(dir / "loop-a", "x"); }), "it is a symbolic link loop");
  EXPECT_HAS(errorOf([&] { checkOutputTarget(dir / "loop-a", {}, false); }), "it is a symbolic link loop");
  EXPECT_TRUE(fs::is_symlink(dir / "loop-a"));
}

TEST(SupportFile, OutputBatchWritesAllOrNone) {
  ScratchDir dir;
  writeAll(dir / "a", "old a");
  {
    OutputBatch batch;
    batch.addText(dir / "a", "test file", "new a");
    EXPECT_HAS(errorOf([&] { batch.addText(dir / "no-such-dir/b", "test file", "b"); }), "cannot create a temporary file");
  } // destroyed before commit: nothing replaced, no temporary left
  EXPECT_EQ(readAll(dir / "a"), "old a");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  OutputBatch batch;
  batch.addText(dir / "a", "test file", "new a");
  batch.addText(dir / "b", "test file", "new b");
  EXPECT_EQ(readAll(dir / "a"), "old a"); // staged until commit
  batch.commit();
  EXPECT_EQ(readAll(dir / "a"), "new a");
  EXPECT_EQ(readAll(dir / "b"), "new b");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
}

TEST(SupportFile, OutputsInsideAnInputFolderAndCollidingOutputs) {
  ScratchDir dir;
  fs::create_directories(dir / "cal/sub");
  writeAll(dir / "cal/0.npy", "x");
  fs::create_symlink("cal", dir / "cal-link");
  for (const std::string out : {dir / "cal/0.npy", dir / "cal/new.circle", dir / "cal/sub/deeper/x", dir / "cal-link/y"})
    EXPECT_HAS(errorOf([&] { checkOutputOutside(out, dir / "cal", "calibration data folder"); }),
               "is inside the calibration data folder");
  checkOutputOutside(dir / "calx", dir / "cal", "calibration data folder"); // a sibling sharing the prefix
  checkOutputOutside(dir / "out.circle", dir / "cal", "calibration data folder");
  checkOutputOutside(dir / "out.circle", dir / "cal/0.npy", "calibration data folder"); // a file: no folder

  EXPECT_EQ(errorOf([&] { checkDistinctOutputs({{"-o", "m.circle"}, {"--encodings", "./m.circle"}}); }),
            "-o 'm.circle' and --encodings './m.circle' name the same file; one output would replace the other "
            "(nothing was written)");
  writeAll(dir / "a", "x");
  fs::create_hard_link(dir / "a", dir / "hard");
  EXPECT_HAS(errorOf([&] { checkDistinctOutputs({{"-o", dir / "a"}, {"--encodings", dir / "hard"}}); }),
             "name the same file");
  checkDistinctOutputs({{"-o", dir / "a"}, {"--encodings", dir / "b"}, {"--other", ""}});
}

} // namespace
} // namespace tico
