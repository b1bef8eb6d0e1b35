// Helpers shared by the pt2 frontend tests: a small writer of stored zip archives (in the
// layout PyTorchStreamWriter uses, with offsets exposed so tests can corrupt precise fields),
// access to the fixture archives exported by tests/data/pt2/make_fixtures.py, and loading.
#pragma once

#include "pt2/torch_op_table.h"
#include "pt2/frontend.h"
#include "pt2/zip_reader.h"

#include "tico/support/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace pt2test {

using Json = nlohmann::json;

struct Entry {
  std::string name;
  std::string data;
};

// Where the writer put each structure, for byte-patching tests.
struct BuiltZip {
  std::string bytes;
  std::vector<uint64_t> local_headers;   // offset of each local header
  std::vector<uint64_t> central_headers; // offset of each central directory record
  uint64_t directory_offset = 0;
  uint64_t directory_size = 0;
  uint64_t zip64_end_offset = 0; // 0 when not written
  uint64_t end_offset = 0;
};

struct ZipOptions {
  bool zip64 = true;           // write the ZIP64 end record and locator (as torch does)
  bool data_descriptor = true; // flag bit 3, zero sizes in local headers, descriptor after data
  uint16_t method = 0;
  uint16_t extra_flags = 0;
  // Saturate sizes and offsets in the central directory and give them in a ZIP64 extra field
  // (what writers do for entries past 4 GiB).
  bool central_zip64_extra = false;
};

inline void put16(std::string &b, uint64_t at, uint16_t v) {
  b[at] = static_cast<char>(v & 0xff);
  b[at + 1] = static_cast<char>(v >> 8);
}
inline void put32(std::string &b, uint64_t at, uint32_t v) {
  put16(b, at, static_cast<uint16_t>(v));
  put16(b, at + 2, static_cast<uint16_t>(v >> 16));
}
inline void put64(std::string &b, uint64_t at, uint64_t v) {
  put32(b, at, static_cast<uint32_t>(v));
  put32(b, at + 4, static_cast<uint32_t>(v >> 32));
}

inline uint32_t crc32(const std::string &data) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char ch : data)
    c = table[(c ^ ch) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

inline BuiltZip buildZip(const std::vector<Entry> &entries, const ZipOptions &opt = {}) {
  BuiltZip z;
  std::string &b = z.bytes;
  auto append16 = [&](uint16_t v) { b.append(2, '\0'), put16(b, b.size() - 2, v); };
  auto append32 = [&](uint32_t v) { b.append(4, '\0'), put32(b, b.size() - 4, v); };
  auto append64 = [&](uint64_t v) { b.append(8, '\0'), put64(b, b.size() - 8, v); };
  const uint16_t flags = static_cast<uint16_t>((opt.data_descriptor ? 0x0008 : 0) | 0x0800 | opt.extra_flags);
  for (const Entry &e : entries) {
    z.local_headers.push_back(b.size());
    const uint32_t crc = crc32(e.data);
    const auto size = static_cast<uint32_t>(e.data.size());
    append32(0x04034b50);
    append16(45);
    append16(flags);
    append16(opt.method);
    append16(0);
    append16(0);
    append32(opt.data_descriptor ? 0 : crc);
    append32(opt.data_descriptor ? 0 : size);
    append32(opt.data_descriptor ? 0 : size);
    append16(static_cast<uint16_t>(e.name.size()));
    // Pad with an 'FB' extra field so the data starts on a 64-byte boundary, like torch.
    uint64_t data_at = b.size() + 2 + e.name.size() + 4;
    uint16_t pad = static_cast<uint16_t>((64 - data_at % 64) % 64);
    append16(static_cast<uint16_t>(4 + pad));
    b += e.name;
    b += "FB";
    append16(pad);
    b.append(pad, 'Z');
    b += e.data;
    if (opt.data_descriptor) {
      append32(0x08074b50);
      append32(crc);
      append32(size);
      append32(size);
    }
  }
  z.directory_offset = b.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    z.central_headers.push_back(b.size());
    append32(0x02014b50);
    append16(45);
    append16(45);
    append16(flags);
    append16(opt.method);
    append16(0);
    append16(0);
    const bool x = opt.central_zip64_extra;
    append32(crc32(e.data));
    append32(x ? 0xffffffff : static_cast<uint32_t>(e.data.size()));
    append32(x ? 0xffffffff : static_cast<uint32_t>(e.data.size()));
    append16(static_cast<uint16_t>(e.name.size()));
    append16(x ? 28 : 0);
    append16(0);
    append16(0);
    append16(0);
    append32(0);
    append32(x ? 0xffffffff : static_cast<uint32_t>(z.local_headers[i]));
    b += e.name;
    if (x) {
      append16(0x0001);
      append16(24);
      append64(e.data.size());
      append64(e.data.size());
      append64(z.local_headers[i]);
    }
  }
  z.directory_size = b.size() - z.directory_offset;
  if (opt.zip64) {
    z.zip64_end_offset = b.size();
    append32(0x06064b50);
    append64(44);
    append16(45);
    append16(45);
    append32(0);
    append32(0);
    append64(entries.size());
    append64(entries.size());
    append64(z.directory_size);
    append64(z.directory_offset);
    append32(0x07064b50);
    append32(0);
    append64(z.zip64_end_offset);
    append32(1);
  }
  z.end_offset = b.size();
  append32(0x06054b50);
  append16(0);
  append16(0);
  append16(static_cast<uint16_t>(entries.size()));
  append16(static_cast<uint16_t>(entries.size()));
  append32(static_cast<uint32_t>(z.directory_size));
  append32(static_cast<uint32_t>(z.directory_offset));
  append16(0);
  return z;
}

// The smallest valid exported program: no inputs, no nodes, no outputs.
inline Json minimalProgram() {
  return Json::parse(R"({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [],
      "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {},
      "is_single_tensor_return": false, "custom_obj_values": {}, "sym_float_values": {}},
    "signature": {"input_specs": [], "output_specs": []}, "module_call_graph": [],
    "metadata": {}, "treespec_namedtuple_fields": {}},
    "opset_version": {"aten": 10}, "range_constraints": {},
    "schema_version": {"major": 8, "minor": 20}, "verifiers": [],
    "torch_version": "2.13.0+cpu", "guards_code": []})");
}

// The entries of a minimal .pt2 archive under root folder `root`.
inline std::vector<Entry> minimalEntries(const std::string &root = "m") {
  return {{root + "/models/model.json", minimalProgram().dump()},
          {root + "/archive_format", "pt2"},
          {root + "/archive_version", "0"},
          {root + "/.data/version", "6\n"},
          {root + "/byteorder", "little"}};
}

// ---- assertions ----------------------------------------------------------------------------

inline ::testing::AssertionResult containsText(const char *haystack_expr, const char *needle_expr,
                                               const std::string &haystack, const std::string &needle) {
  if (haystack.find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << haystack_expr << " does not contain " << needle_expr << "\n  text:   \""
                                       << haystack << "\"\n  wanted: \"" << needle << "\"";
}
inline ::testing::AssertionResult startsWithText(const char *text_expr, const char *prefix_expr,
                                                 const std::string &text, const std::string &prefix) {
  if (text.rfind(prefix, 0) == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << text_expr << " does not start with " << prefix_expr << "\n  text:   \""
                                       << text << "\"\n  prefix: \"" << prefix << "\"";
}
#define EXPECT_CONTAINS(text, needle) EXPECT_PRED_FORMAT2(::pt2test::containsText, text, needle)
#define EXPECT_STARTS_WITH(text, prefix) EXPECT_PRED_FORMAT2(::pt2test::startsWithText, text, prefix)

// ---- files ---------------------------------------------------------------------------------

inline std::filesystem::path fixtureDir() { return std::filesystem::path(TICO_BINARY_DIR) / "tests/data/pt2"; }
inline std::string fixture(const std::string &name) { return (fixtureDir() / (name + ".pt2")).string(); }

#define PT2_REQUIRE_FIXTURES()                                                                     \
  ASSERT_TRUE(std::filesystem::exists(::pt2test::fixtureDir() / "fixtures.json"))                 \
      << "no .pt2 fixtures: the tico-pt2-fixtures build step did not run"

inline Json fixtureInfo() {
  std::ifstream in(fixtureDir() / "fixtures.json");
  return Json::parse(in);
}

inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The test process's scratch directory, removed with everything in it when the process exits.
inline const std::filesystem::path &scratchDir() {
  struct Dir {
    std::filesystem::path path;
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir = [] {
    Dir d{std::filesystem::path(::testing::TempDir()) / ("tico-pt2-tests-" + std::to_string(::getpid()))};
    std::filesystem::create_directories(d.path);
    return d;
  }();
  return dir.path;
}

// A fresh path in the scratch directory (`name` keeps messages readable).
inline std::string scratchPath(const std::string &name) {
  static std::atomic<int> counter{0};
  return (scratchDir() / (std::to_string(counter++) + "-" + name)).string();
}

inline std::string writeScratch(const std::string &name, const std::string &bytes) {
  std::string path = scratchPath(name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// All entries of an archive, in order, with their full names.
inline std::vector<Entry> readEntries(const std::string &path) {
  tico::pt2::ZipReader zip(tico::MappedFile::open(path));
  std::vector<Entry> out;
  for (const auto &e : zip.entries())
    out.push_back({e.name, std::string(zip.bytes(e))});
  return out;
}

inline Entry *findEntry(std::vector<Entry> &entries, const std::string &suffix) {
  for (auto &e : entries)
    if (e.name.size() >= suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return &e;
  return nullptr;
}

// ---- loading -------------------------------------------------------------------------------

inline std::unique_ptr<tico::Graph> load(const std::string &path) {
  return tico::pt2::Pt2Frontend().load(path, tico::pt2::torchOpSchemas());
}

// The message of the tico::Error loading `path` throws; "" (and a test failure) when it loads
// or throws something else.
inline std::string loadError(const std::string &path) {
  try {
    load(path);
  } catch (const tico::Error &e) {
    return e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "non-tico exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << path << " loaded without error";
  return "";
}

inline std::string loadError(const std::string &name, const std::string &bytes) {
  return loadError(writeScratch(name, bytes));
}

// A fixture archive with one JSON entry edited by `edit`, rebuilt with the test writer.
template <typename Edit>
std::string editedFixture(const std::string &fixture_name, const std::string &entry_suffix, Edit edit) {
  auto entries = readEntries(fixture(fixture_name));
  Entry *e = findEntry(entries, entry_suffix);
  if (!e)
    throw std::runtime_error("fixture " + fixture_name + " has no entry " + entry_suffix);
  Json j = Json::parse(e->data);
  edit(j);
  e->data = j.dump();
  return writeScratch(fixture_name + ".pt2", buildZip(entries).bytes);
}

} // namespace pt2test
