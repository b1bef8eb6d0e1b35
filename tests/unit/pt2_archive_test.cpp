// The .pt2 conventions on top of the zip layer: format markers, model selection, legacy
// layouts.
#include "pt2_test_support.h"

#include "pt2/archive.h"

using namespace pt2test;

namespace {

std::string withEntries(const std::string &name, std::vector<Entry> entries) {
  return writeScratch(name, buildZip(entries).bytes);
}

void setEntry(std::vector<Entry> &entries, const std::string &name, const std::string &data) {
  for (auto &e : entries)
    if (e.name == name) {
      e.data = data;
      return;
    }
  entries.push_back({name, data});
}

void dropEntry(std::vector<Entry> &entries, const std::string &name) {
  std::erase_if(entries, [&](const Entry &e) { return e.name == name; });
}

} // namespace

TEST(Pt2Archive, NotATorchExportArchive) {
  std::vector<Entry> entries = {{"x/hello.txt", "hi"}, {"x/data.bin", "1234"}};
  std::string path = withEntries("plain.zip", entries);
  EXPECT_EQ(loadError(path), path + ": not a torch.export archive (no archive_format entry)");
}

TEST(Pt2Archive, EmptyZip) {
  EXPECT_CONTAINS(loadError(withEntries("empty.pt2", {})), "the zip archive is empty; not a torch.export archive");
}

TEST(Pt2Archive, ArchiveFormatAndVersion) {
  auto entries = minimalEntries();
  setEntry(entries, "m/archive_format", "executorch");
  EXPECT_CONTAINS(loadError(withEntries("fmt.pt2", entries)), "archive_format is 'executorch', expected 'pt2'");

  entries = minimalEntries();
  setEntry(entries, "m/archive_version", "1\n");
  EXPECT_CONTAINS(loadError(withEntries("ver.pt2", entries)),
              "archive_version is 1; this tico reads archive version 0 (written by PyTorch 2.13)");

  entries = minimalEntries();
  setEntry(entries, "m/archive_version", "zero");
  EXPECT_CONTAINS(loadError(withEntries("ver.pt2", entries)), "archive_version 'zero' is not a number");

  entries = minimalEntries();
  dropEntry(entries, "m/archive_version");
  EXPECT_CONTAINS(loadError(withEntries("ver.pt2", entries)), "missing archive_version entry");
}

TEST(Pt2Archive, ByteOrder) {
  auto entries = minimalEntries();
  setEntry(entries, "m/byteorder", "big");
  EXPECT_CONTAINS(loadError(withEntries("big.pt2", entries)),
              "byteorder is 'big'; only little-endian archives are supported");

  // Writers before the byteorder entry existed were little-endian in practice.
  entries = minimalEntries();
  dropEntry(entries, "m/byteorder");
  EXPECT_NO_THROW(load(withEntries("noorder.pt2", entries)));
}

TEST(Pt2Archive, ModelSelection) {
  auto entries = minimalEntries();
  dropEntry(entries, "m/models/model.json");
  EXPECT_CONTAINS(loadError(withEntries("nomodel.pt2", entries)),
              "no exported program in the archive (no models/<name>.json entry)");

  // One program under another name is read; several without "model" are ambiguous.
  entries = minimalEntries();
  dropEntry(entries, "m/models/model.json");
  entries.push_back({"m/models/encoder.json", minimalProgram().dump()});
  {
    tico::pt2::Archive archive(withEntries("one.pt2", entries));
    EXPECT_EQ(archive.modelName(), "encoder");
  }
  entries.push_back({"m/models/decoder.json", minimalProgram().dump()});
  EXPECT_CONTAINS(loadError(withEntries("two.pt2", entries)),
              "the archive holds several exported programs (decoder, encoder) and none is called 'model'");

  entries.push_back({"m/models/model.json", minimalProgram().dump()});
  tico::pt2::Archive archive(withEntries("three.pt2", entries));
  EXPECT_EQ(archive.modelName(), "model");
  EXPECT_EQ(archive.root(), "m");
  EXPECT_NE(archive.find("models/decoder.json"), nullptr);
  EXPECT_EQ(archive.find("m/models/decoder.json"), nullptr) << "names are relative to the root folder";
}

// Zip entry names can be 64 KiB long; messages echo them clipped (tico/support/clipped.h).
TEST(Pt2Archive, LongEntryNamesAreClippedInMessages) {
  const std::string name(60000, 'e');
  const std::string shown = std::string(200, 'e') + "... (60000 bytes)";
  auto bounded = [](const std::string &message) {
    EXPECT_LT(message.size(), 1000u) << message.substr(0, 400);
  };

  auto entries = minimalEntries();
  entries.push_back({name, "x"});
  std::string message = loadError(withEntries("noroot.pt2", entries));
  EXPECT_CONTAINS(message, "entry '" + shown + "' is not inside a root folder");
  bounded(message);

  entries = minimalEntries();
  entries.push_back({name + "/x", "x"});
  message = loadError(withEntries("tworoots.pt2", entries));
  EXPECT_CONTAINS(message, "entries are not under one root folder ('m/' and '" + shown + "/')");
  bounded(message);

  // Several programs with long names: the list is clipped as a whole.
  entries = minimalEntries();
  dropEntry(entries, "m/models/model.json");
  for (char c : std::string("abc"))
    entries.push_back({"m/models/" + std::string(20000, c) + ".json", minimalProgram().dump()});
  message = loadError(withEntries("programs.pt2", entries));
  EXPECT_CONTAINS(message, "the archive holds several exported programs (" + std::string(200, 'a') + "... (");
  bounded(message);

  // A long root folder in a "missing entry" message.
  {
    tico::pt2::Archive archive(withEntries("longroot.pt2", minimalEntries(name)));
    message.clear();
    try {
      archive.read("data/missing.bin");
    } catch (const tico::Error &e) {
      message = e.what();
    }
  }
  EXPECT_CONTAINS(message, "missing entry '" + std::string(200, 'e') + "... (60017 bytes)'");
  bounded(message);
}

TEST(Pt2Archive, LegacyPickledWeights) {
  auto entries = minimalEntries();
  entries.push_back({"m/data/weights/model.pt", "PK\x03\x04 pickled state dict"});
  EXPECT_CONTAINS(loadError(withEntries("legacy.pt2", entries)),
              "data/weights/model.pt holds the weights in the legacy pickled layout (PyTorch before 2.9), "
                        "which is not supported");
}

TEST(Pt2Archive, InvalidProgramJson) {
  auto entries = minimalEntries();
  setEntry(entries, "m/models/model.json", "{\"graph_module\": ");
  std::string path = withEntries("json.pt2", entries);
  EXPECT_CONTAINS(loadError(path), path + ": models/model.json is not valid JSON");
}

TEST(Pt2Archive, Sniff) {
  PT2_REQUIRE_FIXTURES();
  EXPECT_TRUE(tico::pt2::looksLikePt2(fixture("linear")));
  // Without the extension, the archive_format entry decides.
  std::string renamed = scratchPath("model.bin");
  std::filesystem::copy_file(fixture("linear"), renamed);
  EXPECT_TRUE(tico::pt2::looksLikePt2(renamed));
  EXPECT_FALSE(tico::pt2::looksLikePt2(withEntries("plain.zip", {{"x/a", "b"}})));
  EXPECT_FALSE(tico::pt2::looksLikePt2(writeScratch("text.pt2", "hello")));
  EXPECT_FALSE(tico::pt2::looksLikePt2(scratchPath("missing.pt2")));
  // A .pt2 name with a zip signature sniffs true; loading it then says what is wrong.
  EXPECT_TRUE(tico::pt2::looksLikePt2(writeScratch("broken.pt2", "PK\x03\x04garbage")));
}
