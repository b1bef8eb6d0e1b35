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
  // Bytes inside weights, padding and CRCs (which the reader does not check) change nothing.
  EXPECT_GT(loaded_count, 0u);
}
