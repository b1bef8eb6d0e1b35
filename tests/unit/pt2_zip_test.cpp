// The zip layer of the .pt2 frontend: hand-built and byte-patched archives, each rejected
// with an error that names the file and the problem.
#include "pt2_test_support.h"

using namespace pt2test;

namespace {

std::string errorOf(const BuiltZip &zip, const std::string &name = "bad.pt2") {
  std::string path = writeScratch(name, zip.bytes);
  std::string message = loadError(path);
  EXPECT_STARTS_WITH(message, path + ": ") << "the message must name the file";
  return message;
}

} // namespace

TEST(Pt2Zip, MinimalArchiveLoads) {
  for (bool zip64 : {true, false})
    for (bool descriptor : {true, false}) {
      ZipOptions opt;
      opt.zip64 = zip64;
      opt.data_descriptor = descriptor;
      auto graph = load(writeScratch("ok.pt2", buildZip(minimalEntries(), opt).bytes));
      EXPECT_EQ(graph->numNodes(), 0u);
      EXPECT_TRUE(graph->inputs().empty());
    }
}

TEST(Pt2Zip, EntriesAreViewsIntoTheMapping) {
  auto entries = minimalEntries();
  entries.push_back({"m/data/weights/weight_0", std::string(100, '\x07')});
  std::string path = writeScratch("views.pt2", buildZip(entries).bytes);
  auto file = tico::MappedFile::open(path);
  tico::pt2::ZipReader zip(file);
  ASSERT_EQ(zip.entries().size(), entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto &e = zip.entries()[i];
    EXPECT_EQ(e.name, entries[i].name);
    EXPECT_EQ(zip.bytes(e), entries[i].data);
    EXPECT_EQ(e.offset % 64, 0u) << "the writer aligns data like torch does";
    EXPECT_EQ(zip.bytes(e).data(), reinterpret_cast<const char *>(file->data()) + e.offset);
  }
}

TEST(Pt2Zip, EmptyFile) {
  std::string path = writeScratch("empty.pt2", "");
  EXPECT_EQ(loadError(path), path + ": empty file (0 bytes); expected a .pt2 zip archive");
}

TEST(Pt2Zip, RandomBytes) {
  std::string noise;
  uint32_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 1103515245u + 12345u;
    noise += static_cast<char>(x >> 16);
  }
  EXPECT_CONTAINS(loadError("noise.pt2", noise), "not a zip archive (no end-of-central-directory record)");
  EXPECT_CONTAINS(loadError("short.pt2", "abc"), "not a zip archive");
}

TEST(Pt2Zip, TruncatedAtSeveralPoints) {
  BuiltZip zip = buildZip(minimalEntries());
  for (uint64_t cut : {uint64_t{4}, uint64_t{31}, zip.local_headers[2], zip.directory_offset,
                       zip.directory_offset + 10, zip.zip64_end_offset, zip.end_offset, zip.bytes.size() - 1}) {
    SCOPED_TRACE(cut);
    EXPECT_CONTAINS(loadError("cut.pt2", zip.bytes.substr(0, cut)),
                    "truncated file (" + std::to_string(cut) +
                        " bytes): it starts like a zip archive but has no end-of-central-directory record");
  }
}

// torch.save writes zip files, and .pt2 archives store some (sample inputs, pickled objects):
// a truncated archive then still ends with such an inner zip's end records, whose offsets
// point anywhere in the outer file. The reader used to follow them ("bad ZIP64
// end-of-central-directory record signature at offset ...").
TEST(Pt2Zip, TruncatedWithAZipInsideAnEntry) {
  auto entries = minimalEntries();
  entries.push_back({"m/data/sample_inputs/inputs.pt", buildZip({{"inner/data.pkl", std::string(50, 'p')}}).bytes});
  entries.push_back({"m/data/weights/weight_0", std::string(300, '\x07')});
  BuiltZip zip = buildZip(entries);
  for (uint64_t cut : {zip.directory_offset, zip.end_offset, zip.bytes.size() - 1}) {
    SCOPED_TRACE(cut);
    const std::string message = loadError("cut.pt2", zip.bytes.substr(0, cut));
    EXPECT_CONTAINS(message, "truncated file (" + std::to_string(cut) + " bytes): it starts like a zip archive but "
                             "does not end with an end-of-central-directory record");
    EXPECT_CONTAINS(message, "it belongs to a zip stored inside an entry");
  }
}

// The same on a real archive: every cut that keeps the inner zip of its sample inputs but loses
// the archive's own end records.
TEST(Pt2Zip, TruncatedRealArchiveSaysTruncated) {
  PT2_REQUIRE_FIXTURES();
  const std::string bytes = readFile(fixture("linear"));
  for (std::size_t cut : {bytes.size() - 1, bytes.size() - 22, bytes.size() - 100, bytes.size() / 2}) {
    SCOPED_TRACE(cut);
    EXPECT_CONTAINS(loadError("cut.pt2", bytes.substr(0, cut)), "truncated file (" + std::to_string(cut) + " bytes)");
  }
}

TEST(Pt2Zip, TrailingBytesAfterTheEndRecord) {
  BuiltZip zip = buildZip(minimalEntries());
  const std::string message = loadError("trailing.pt2", zip.bytes + "junk");
  EXPECT_CONTAINS(message, "is followed by 4 bytes that are not its comment");
}

TEST(Pt2Zip, DirectoryOutsideTheFile) {
  BuiltZip zip = buildZip(minimalEntries());
  put64(zip.bytes, zip.zip64_end_offset + 48, zip.bytes.size() + 100);
  EXPECT_CONTAINS(errorOf(zip), ") lies outside the file (" + std::to_string(zip.bytes.size()) + " bytes)");

  BuiltZip plain = buildZip(minimalEntries(), ZipOptions{.zip64 = false});
  put32(plain.bytes, plain.end_offset + 12, 0x7fffffff); // directory size
  EXPECT_CONTAINS(errorOf(plain), "central directory (offset");
  EXPECT_CONTAINS(errorOf(plain), "lies outside the file");
}

TEST(Pt2Zip, DirectoryOffsetPointingElsewhere) {
  BuiltZip zip = buildZip(minimalEntries());
  put64(zip.bytes, zip.zip64_end_offset + 48, 0);
  EXPECT_CONTAINS(errorOf(zip), "central directory entry 0 (offset 0) has a bad signature");
}

TEST(Pt2Zip, DirectoryOverlappingEndRecord) {
  BuiltZip zip = buildZip(minimalEntries());
  put64(zip.bytes, zip.zip64_end_offset + 40, zip.directory_size + 30);
  EXPECT_CONTAINS(errorOf(zip), "overlaps the end-of-central-directory record");
}

TEST(Pt2Zip, BadLocalHeader) {
  BuiltZip zip = buildZip(minimalEntries());
  put32(zip.bytes, zip.local_headers[1], 0x12345678);
  EXPECT_CONTAINS(errorOf(zip), "entry 'm/archive_format' has a bad local header signature at offset " +
                                      std::to_string(zip.local_headers[1]));

  BuiltZip renamed = buildZip(minimalEntries());
  renamed.bytes[renamed.local_headers[1] + 30] = 'x';
  EXPECT_CONTAINS(errorOf(renamed), "local header of entry 'm/archive_format' (offset " +
                                          std::to_string(renamed.local_headers[1]) + ") names a different entry");

  BuiltZip long_extra = buildZip(minimalEntries());
  put16(long_extra.bytes, long_extra.local_headers.back() + 28, 0xffff);
  EXPECT_CONTAINS(errorOf(long_extra), "runs past the end of the file");

  BuiltZip outside = buildZip(minimalEntries());
  put32(outside.bytes, outside.central_headers[2] + 42, 0x7fffffff);
  EXPECT_CONTAINS(errorOf(outside), "local header of entry 'm/archive_version' (offset 2147483647) lies outside the file");
}

TEST(Pt2Zip, CompressedEntry) {
  BuiltZip zip = buildZip(minimalEntries(), ZipOptions{.method = 8});
  EXPECT_CONTAINS(errorOf(zip),
              "entry 'm/models/model.json' is compressed (method 8); .pt2 archives store entries uncompressed");

  // A local header that disagrees with a stored central record is rejected too.
  BuiltZip local_only = buildZip(minimalEntries());
  put16(local_only.bytes, local_only.local_headers[0] + 8, 8);
  EXPECT_CONTAINS(errorOf(local_only), "entry 'm/models/model.json' is compressed (method 8) in its local header");
}

TEST(Pt2Zip, EncryptedEntry) {
  BuiltZip zip = buildZip(minimalEntries(), ZipOptions{.extra_flags = 1});
  EXPECT_CONTAINS(errorOf(zip), "entry 'm/models/model.json' is encrypted");
}

TEST(Pt2Zip, UnsafeNames) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"m/../x", "entry 'm/../x' has a '..' path component"},
      {"../x", "entry '../x' has a '..' path component"},
      {"m/data/..", "entry 'm/data/..' has a '..' path component"},
      {"/m/x", "entry '/m/x' has an absolute path"},
      {"C:/m/x", "entry 'C:/m/x' has an absolute path"},
      {"m\\x", "entry 'm\\x' has a backslash in its name"},
      {std::string("m/a\0b", 5), "entry 'm/a\\x00b' has a NUL byte in its name"},
  };
  for (const auto &[name, expected] : cases) {
    SCOPED_TRACE(name);
    auto entries = minimalEntries();
    entries.push_back({name, "x"});
    EXPECT_CONTAINS(errorOf(buildZip(entries)), expected);
  }
  // Names that only look similar are fine.
  auto entries = minimalEntries();
  entries.push_back({"m/extra/..hidden", "x"});
  entries.push_back({"m/extra/a..b", "x"});
  EXPECT_NO_THROW(load(writeScratch("names.pt2", buildZip(entries).bytes)));
}

TEST(Pt2Zip, HugeDeclaredSizes) {
  BuiltZip zip = buildZip(minimalEntries());
  put32(zip.bytes, zip.central_headers[1] + 20, 0xfffffff0);
  put32(zip.bytes, zip.central_headers[1] + 24, 0xfffffff0);
  EXPECT_CONTAINS(errorOf(zip), "data of entry 'm/archive_format' (offset");
  EXPECT_CONTAINS(errorOf(zip), "4294967280 bytes) lies outside the file");

  BuiltZip saturated = buildZip(minimalEntries());
  put32(saturated.bytes, saturated.central_headers[1] + 24, 0xffffffff);
  EXPECT_CONTAINS(errorOf(saturated), "entry 'm/archive_format' lacks the ZIP64 extra field its sizes require");

  BuiltZip mismatch = buildZip(minimalEntries());
  put32(mismatch.bytes, mismatch.central_headers[1] + 20, 2);
  EXPECT_CONTAINS(errorOf(mismatch), "is stored but its compressed size (2) differs from its size (3)");
}

TEST(Pt2Zip, Zip64ExtraFields) {
  BuiltZip zip = buildZip(minimalEntries(), ZipOptions{.central_zip64_extra = true});
  EXPECT_NO_THROW(load(writeScratch("zip64.pt2", zip.bytes)));

  // The extra field of entry 1 starts after its 46-byte record and name; its fields are
  // size, compressed size, local header offset.
  const uint64_t extra = zip.central_headers[1] + 46 + std::string("m/archive_format").size();
  BuiltZip huge = zip;
  put64(huge.bytes, extra + 4, uint64_t{1} << 63);
  put64(huge.bytes, extra + 12, uint64_t{1} << 63);
  EXPECT_CONTAINS(errorOf(huge), "data of entry 'm/archive_format' (offset");
  EXPECT_CONTAINS(errorOf(huge), "9223372036854775808 bytes) lies outside the file");

  BuiltZip far = zip;
  put64(far.bytes, extra + 20, ~uint64_t{0});
  EXPECT_CONTAINS(errorOf(far), "local header of entry 'm/archive_format' (offset 18446744073709551615) lies outside");

  BuiltZip short_field = zip;
  put16(short_field.bytes, extra + 2, 8); // claims 8 bytes where 24 are needed
  EXPECT_CONTAINS(errorOf(short_field), "entry 'm/archive_format' has a malformed ZIP64 extra field");

  BuiltZip overlong = zip;
  put16(overlong.bytes, extra + 2, 200); // runs past the record's extra area
  EXPECT_CONTAINS(errorOf(overlong), "entry 'm/archive_format' has a malformed extra field");
}

TEST(Pt2Zip, EntryDataOverlappingTheDirectory) {
  BuiltZip zip = buildZip(minimalEntries());
  const std::size_t last = zip.central_headers.size() - 1;
  // Stretch the last entry so its data runs into the central directory (still inside the file).
  uint64_t data_start = zip.local_headers[last] + 64 - zip.local_headers[last] % 64;
  if (data_start - zip.local_headers[last] < 30 + std::string("m/byteorder").size() + 4)
    data_start += 64;
  uint32_t size = static_cast<uint32_t>(zip.directory_offset - data_start + 8);
  put32(zip.bytes, zip.central_headers[last] + 20, size);
  put32(zip.bytes, zip.central_headers[last] + 24, size);
  EXPECT_CONTAINS(errorOf(zip), "entry 'm/byteorder' (offset " + std::to_string(zip.local_headers[last]) +
                                      ") overlaps the central directory");
}

TEST(Pt2Zip, DuplicateNames) {
  auto entries = minimalEntries();
  entries.push_back({"m/archive_format", "pt2"});
  EXPECT_CONTAINS(errorOf(buildZip(entries)), "duplicate entry 'm/archive_format'");
}

TEST(Pt2Zip, TooManyEntries) {
  BuiltZip zip = buildZip(minimalEntries());
  put64(zip.bytes, zip.zip64_end_offset + 24, 2'000'000);
  put64(zip.bytes, zip.zip64_end_offset + 32, 2'000'000);
  EXPECT_CONTAINS(errorOf(zip), "the central directory claims 2000000 entries (the limit is 1000000)");

  BuiltZip more = buildZip(minimalEntries());
  put64(more.bytes, more.zip64_end_offset + 24, 1000);
  put64(more.bytes, more.zip64_end_offset + 32, 1000);
  EXPECT_CONTAINS(errorOf(more), "cannot hold the 1000 entries it claims");
}

TEST(Pt2Zip, MultiVolume) {
  BuiltZip zip = buildZip(minimalEntries());
  put32(zip.bytes, zip.zip64_end_offset + 16, 1);
  EXPECT_CONTAINS(errorOf(zip), "multi-volume zip archives are not supported");
}

TEST(Pt2Zip, RootFolder) {
  auto entries = minimalEntries("m");
  entries.push_back({"n/extra", "x"});
  EXPECT_CONTAINS(errorOf(buildZip(entries)), "entries are not under one root folder ('m/' and 'n/')");

  auto flat = minimalEntries("m");
  flat.push_back({"stray", "x"});
  EXPECT_CONTAINS(errorOf(buildZip(flat)), "entry 'stray' is not inside a root folder");

  // Any root name works: it is the file name torch saw, not a fixed string.
  auto graph = load(writeScratch("renamed.pt2", buildZip(minimalEntries("archive")).bytes));
  EXPECT_EQ(graph->numNodes(), 0u);
}
