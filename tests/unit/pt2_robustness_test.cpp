// Damaged real archives: every failure must be a tico::Error, never a crash or another
// exception type.
#include "pt2_test_support.h"

using namespace pt2test;

namespace {

// Writes `bytes` to a fresh file and loads it; returns false (after recording a failure) when
// anything other than a tico::Error escapes. A new file each time: truncating and rewriting one
// file makes ext4 flush it on every close, which is a hundred times slower.
bool loadsOrFailsCleanly(const std::string &bytes, const std::string &what, bool *loaded) {
  const std::string path = writeScratch("damaged.pt2", bytes);
  struct Remove {
    const std::string &path;
    ~Remove() { std::filesystem::remove(path); }
  } remove{path};
  *loaded = false;
  try {
    auto graph = load(path);
    *loaded = true;
  } catch (const tico::Error &e) {
    if (std::string(e.what()).rfind(path, 0) != 0) {
      ADD_FAILURE() << what << ": message does not name the file: " << e.what();
      return false;
    }
  } catch (const std::exception &e) {
    ADD_FAILURE() << what << ": " << typeid(e).name() << ": " << e.what();
    return false;
  }
  return true;
}

} // namespace

TEST(Pt2Robustness, EveryTruncationIsAnError) {
  PT2_REQUIRE_FIXTURES();
  const std::string bytes = readFile(fixture("linear"));
  ASSERT_GT(bytes.size(), 1000u);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    bool loaded = false;
    if (!loadsOrFailsCleanly(bytes.substr(0, length), "prefix of " + std::to_string(length) + " bytes", &loaded))
      return;
    if (loaded) {
      ADD_FAILURE() << "a prefix of " << length << " of " << bytes.size() << " bytes loaded";
      return;
    }
  }
}

TEST(Pt2Robustness, CorruptedBytesNeverEscapeAsOtherErrors) {
  PT2_REQUIRE_FIXTURES();
  const std::string original = readFile(fixture("linear"));
  std::size_t loaded_count = 0;
  for (std::size_t at = 0; at < original.size(); ++at) {
    for (unsigned char value : {0x00, 0xff}) {
      std::string bytes = original;
      if (static_cast<unsigned char>(bytes[at]) == value)
        continue;
      bytes[at] = static_cast<char>(value);
      bool loaded = false;
      if (!loadsOrFailsCleanly(bytes, "byte " + std::to_string(at) + " set to " + std::to_string(value), &loaded))
        return;
      loaded_count += loaded;
    }
  }
  // Bytes inside weights, padding and the CRCs of weights (which the reader does not check: the
  // weights are mapped, not read twice) change nothing.
  EXPECT_GT(loaded_count, 0u);
}

// A damaged byte that keeps the program JSON valid (here a letter of a node name) would change the
// program silently; the CRC-32 the archive records for the entry catches it (tracker issue 31).
TEST(Pt2Robustness, ADamagedByteInTheProgramIsCaughtByItsCrc) {
  PT2_REQUIRE_FIXTURES();
  std::string bytes = readFile(fixture("linear"));
  const std::string path = writeScratch("crc.pt2", bytes);
  std::size_t json_at = 0, json_size = 0;
  std::string json_name;
  {
    tico::pt2::ZipReader zip(tico::pt2::ArchiveImage::open(path));
    for (const auto &e : zip.entries())
      if (e.name.size() > 11 && e.name.substr(e.name.size() - 11) == "/model.json" &&
          e.name.find("/models/") != std::string::npos) {
        json_at = static_cast<std::size_t>(e.offset), json_size = static_cast<std::size_t>(e.size);
        json_name = e.name;
      }
  }
  ASSERT_GT(json_size, 0u);
  const std::size_t key = bytes.find("\"name\": \"", json_at);
  ASSERT_LT(key, json_at + json_size);
  const std::size_t letter = key + 9;
  ASSERT_TRUE(std::isalpha(static_cast<unsigned char>(bytes[letter]))) << bytes.substr(key, 20);
  bytes[letter] = bytes[letter] == 'q' ? 'r' : 'q';
  const std::string damaged = writeScratch("crc-damaged.pt2", bytes);
  std::string message;
  try {
    load(damaged);
  } catch (const tico::Error &e) {
    message = e.what();
  }
  EXPECT_NE(message.find("entry '" + json_name + "' is damaged: its CRC-32 is 0x"), std::string::npos) << message;
  EXPECT_NE(message.find(", the archive records 0x"), std::string::npos) << message;
  std::filesystem::remove(path);
  std::filesystem::remove(damaged);
}
