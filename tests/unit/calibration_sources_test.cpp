// The calibration sources of plugins/calibration-sources, driven directly through their specs:
// layouts, natural batch order, the batch limit, npz stored and deflated, token padding and
// truncation, seeded random data, the example inputs of a .pt2, and the errors for bad data.
#include "batch_support.h"
#include "sources.h"

#include "tico/io/npy.h"
#include "tico/support/error.h"
#include "error_text.h"
#include "zip_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tico::calib {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

// A fresh directory, removed with its contents at the end of the test.
class TempDir {
public:
  TempDir() {
    static int counter = 0;
    path_ = fs::path(::testing::TempDir()) /
            ("tico-calib-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const std::string &name) const { return path_ / name; }
  std::string str() const { return path_.string(); }

private:
  fs::path path_;
};

void writeFile(const fs::path &path, const std::string &bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

template <typename T>
TensorData tensorOf(DType dtype, std::vector<int64_t> sizes, const std::vector<T> &values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::fromBytes(dtype, std::move(sizes), std::move(bytes));
}

TensorData floats(std::vector<int64_t> sizes, const std::vector<float> &v) { return tensorOf(DType::Float32, sizes, v); }

void saveNpy(const fs::path &path, const TensorData &t) {
  fs::create_directories(path.parent_path());
  writeNpy(path.string(), t);
}

std::string npyBytes(const TensorData &t) {
  TempDir dir;
  saveNpy(dir / "a.npy", t);
  return readFile(dir / "a.npy");
}

template <typename T>
std::vector<T> valuesOf(const TensorData &t) {
  std::vector<T> out(static_cast<std::size_t>(t.numel()));
  std::vector<std::byte> bytes = t.contiguousBytes();
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// -1 in `shape`: a symbolic dimension calibration.dims does not size.
CalibrationInput input(std::string name, DType dtype, std::vector<int64_t> shape) {
  CalibrationInput in;
  in.name = std::move(name);
  in.dtype = dtype;
  in.shape = std::move(shape);
  return in;
}

CalibrationRequest request(std::string location, std::vector<CalibrationInput> inputs) {
  CalibrationRequest r;
  r.location = std::move(location);
  r.inputs = std::move(inputs);
  return r;
}

std::unique_ptr<CalibrationSource> open(const CalibrationSourceSpec &spec, const CalibrationRequest &r) {
  return spec.create(r);
}

using testing_support::errorOf;

// A zip archive with every member stored or every member deflated (what numpy.savez and
// numpy.savez_compressed write), without data descriptors.
std::string zipOf(const std::vector<std::pair<std::string, std::string>> &members, bool compress) {
  std::vector<testing_zip::ZipMember> list;
  for (const auto &[name, data] : members) {
    testing_zip::ZipMember m{name, data, {}, 0};
    if (compress) {
      z_stream z{};
      deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
      m.stored.resize(deflateBound(&z, static_cast<uLong>(data.size())));
      z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
      z.avail_in = static_cast<uInt>(data.size());
      z.next_out = reinterpret_cast<Bytef *>(m.stored.data());
      z.avail_out = static_cast<uInt>(m.stored.size());
      deflate(&z, Z_FINISH);
      m.stored.resize(z.total_out);
      deflateEnd(&z);
      m.method = 8;
    }
    list.push_back(std::move(m));
  }
  return testing_zip::zipArchive(list);
}

// ---- shared pieces ----------------------------------------------------------------------------

TEST(CalibrationSources, NaturalOrder) {
  EXPECT_TRUE(naturalLess("batch_2", "batch_10"));
  EXPECT_FALSE(naturalLess("batch_10", "batch_2"));
  EXPECT_TRUE(naturalLess("a9", "b1"));
  EXPECT_TRUE(naturalLess("x1y2", "x1y10"));
  EXPECT_TRUE(naturalLess("7", "07")); // equal numbers: a total order all the same
  EXPECT_FALSE(naturalLess("7", "7"));
  EXPECT_TRUE(naturalLess("b", "b0"));
}

TEST(CalibrationSources, LocationOptions) {
  LocationOptions o = splitLocationOptions("p.txt,pad_id=3", {"pad_id"});
  EXPECT_EQ(o.path, "p.txt");
  EXPECT_EQ(o.options.at("pad_id"), 3);
  EXPECT_EQ(splitLocationOptions("a,b/c.txt", {"pad_id"}).path, "a,b/c.txt");
  EXPECT_EQ(splitLocationOptions("int_high=7", {"int_high"}).options.at("int_high"), 7);
  EXPECT_HAS(errorOf([] { splitLocationOptions("p.txt,pad=3", {"pad_id"}); }), "unknown calibration option 'pad'");
  EXPECT_HAS(errorOf([] { splitLocationOptions("p.txt,pad_id=x", {"pad_id"}); }), "must be an integer, got 'x'");
}

// ---- npy ----------------------------------------------------------------------------------------

TEST(CalibrationSources, NpyBatchDirectoriesInNaturalOrder) {
  TempDir dir;
  for (int b : {10, 2, 1}) {
    const std::string batch = "batch_" + std::to_string(b);
    saveNpy(dir / batch / "x.npy", floats({1, 2}, {float(b), 0.5f}));
    saveNpy(dir / batch / "1.npy", tensorOf<int64_t>(DType::Int64, {3}, {b, b, b})); // by index
  }
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {1, 2}), input("ids", DType::Int64, {3})};
  ASSERT_TRUE(npySource().accepts(dir.str()));
  auto source = open(npySource(), request(dir.str(), inputs));
  ASSERT_EQ(source->size(), 3u);
  EXPECT_EQ(source->describe(), "npy folder '" + dir.str() + "' (3 batches)");
  std::vector<float> firsts;
  for (std::size_t b = 0; b < 3; ++b) {
    CalibrationBatch batch = source->batch(b);
    ASSERT_EQ(batch.size(), 2u);
    firsts.push_back(valuesOf<float>(*batch[0])[0]);
    EXPECT_EQ(valuesOf<int64_t>(*batch[1])[0], static_cast<int64_t>(firsts.back()));
  }
  EXPECT_EQ(firsts, (std::vector<float>{1, 2, 10}));

  CalibrationRequest limited = request(dir.str(), inputs);
  limited.batches = 2;
  EXPECT_EQ(open(npySource(), limited)->size(), 2u);
}

TEST(CalibrationSources, NpyOneFilePerBatchForOneInput) {
  TempDir dir;
  for (int b = 0; b < 12; ++b)
    saveNpy(dir / (std::to_string(b) + ".npy"), floats({2}, {float(b), 1}));
  auto source = open(npySource(), request(dir.str(), {input("x", DType::Float32, {2})}));
  ASSERT_EQ(source->size(), 12u);
  EXPECT_EQ(valuesOf<float>(*source->batch(11)[0])[0], 11.0f);
  EXPECT_EQ(valuesOf<float>(*source->batch(2)[0])[0], 2.0f);

  std::string two = errorOf([&] {
    open(npySource(), request(dir.str(), {input("x", DType::Float32, {2}), input("y", DType::Float32, {2})}));
  });
  EXPECT_HAS(two, "one .npy file per batch, which is for a model with one input; the graph has 2 inputs");
}

TEST(CalibrationSources, NpyErrorsNameFileAndInput) {
  TempDir dir;
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {2}), input("mask", DType::Int64, {2})};
  saveNpy(dir / "b0" / "x.npy", floats({2}, {1, 2}));
  saveNpy(dir / "b0" / "mask.npy", tensorOf<double>(DType::Float64, {2}, {1, 1}));
  saveNpy(dir / "b1" / "x.npy", floats({2}, {1, 2}));
  saveNpy(dir / "b2" / "x.npy", floats({2}, {1, 2}));
  saveNpy(dir / "b2" / "mask.npy", tensorOf<int64_t>(DType::Int64, {2}, {1, 1}));
  saveNpy(dir / "b2" / "typo.npy", floats({2}, {1, 2}));
  writeFile(dir / "b3" / "x.npy", "not numpy at all");
  saveNpy(dir / "b3" / "mask.npy", tensorOf<int64_t>(DType::Int64, {2}, {1, 1}));
  auto source = open(npySource(), request(dir.str(), inputs));
  ASSERT_EQ(source->size(), 4u);

  std::string dtype = errorOf([&] { source->batch(0); });
  EXPECT_HAS(dtype, (dir / "b0" / "mask.npy").string());
  EXPECT_HAS(dtype, "holds torch.float64 data but input 1 ('mask') is torch.int64");
  std::string missing = errorOf([&] { source->batch(1); });
  EXPECT_HAS(missing, "batch directory '" + (dir / "b1").string() + "': no array for input 'mask'");
  std::string extra = errorOf([&] { source->batch(2); });
  EXPECT_HAS(extra, "array 'typo' matches no input");
  std::string malformed = errorOf([&] { source->batch(3); });
  EXPECT_HAS(malformed, (dir / "b3" / "x.npy").string());
  EXPECT_HAS(malformed, "is not a .npy file");

  TempDir empty;
  EXPECT_FALSE(npySource().accepts(empty.str()));
  EXPECT_HAS(errorOf([&] { open(npySource(), request(empty.str(), inputs)); }), "holds no .npy file");
  EXPECT_HAS(errorOf([&] { open(npySource(), request((dir / "nothere").string(), inputs)); }),
             "is not a directory (it does not exist)");
}

// ---- npz ----------------------------------------------------------------------------------------

TEST(CalibrationSources, NpzStoredAndDeflated) {
  TempDir dir;
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {2, 2}), input("n", DType::Int32, {1})};
  const TensorData x = floats({2, 2}, {1, 2, 3, 4});
  const TensorData n = tensorOf<int32_t>(DType::Int32, {1}, {7});
  for (bool deflate : {false, true}) {
    SCOPED_TRACE(deflate ? "deflated" : "stored");
    // numpy.savez(f, x, n) names the arrays arr_0, arr_1; savez(f, x=..., n=...) by name.
    for (auto names : {std::pair<std::string, std::string>{"arr_0", "arr_1"}, {"x", "n"}, {"n", "x"}}) {
      const bool swapped = names.first == "n";
      const std::string path = (dir / ("b" + std::string(deflate ? "d" : "s") + names.first + ".npz")).string();
      writeFile(path, zipOf({{names.first + ".npy", npyBytes(swapped ? n : x)},
                             {names.second + ".npy", npyBytes(swapped ? x : n)}},
                            deflate));
      ASSERT_TRUE(npzSource().accepts(path));
      auto source = open(npzSource(), request(path, inputs));
      ASSERT_EQ(source->size(), 1u);
      CalibrationBatch batch = source->batch(0);
      EXPECT_EQ(valuesOf<float>(*batch[0]), (std::vector<float>{1, 2, 3, 4}));
      EXPECT_EQ(valuesOf<int32_t>(*batch[1]), (std::vector<int32_t>{7}));
    }
  }
}

TEST(CalibrationSources, NpzDirectoryIsOneBatchPerFile) {
  TempDir dir;
  for (int b : {3, 20, 1})
    writeFile(dir / ("part" + std::to_string(b) + ".npz"), zipOf({{"x.npy", npyBytes(floats({1}, {float(b)}))}}, true));
  EXPECT_FALSE(npySource().accepts(dir.str())) << "a directory of only .npz files is npz's";
  ASSERT_TRUE(npzSource().accepts(dir.str()));
  auto source = open(npzSource(), request(dir.str(), {input("x", DType::Float32, {1})}));
  ASSERT_EQ(source->size(), 3u);
  EXPECT_EQ(source->describe(), "npz folder '" + dir.str() + "' (3 batches)");
  std::vector<float> order;
  for (std::size_t b = 0; b < 3; ++b)
    order.push_back(valuesOf<float>(*source->batch(b)[0])[0]);
  EXPECT_EQ(order, (std::vector<float>{1, 3, 20}));
}

TEST(CalibrationSources, NpzErrors) {
  TempDir dir;
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {2})};
  const std::string good = npyBytes(floats({2}, {1, 2}));

  std::string corrupt = zipOf({{"x.npy", good}}, true);
  // Flip bytes inside the deflate stream (it starts after the 30-byte local header and "x.npy").
  for (std::size_t i = 35; i < 45; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  writeFile(dir / "corrupt.npz", corrupt);
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "corrupt.npz").string(), inputs))->batch(0); }),
             "'" + (dir / "corrupt.npz").string() + ":x.npy' is damaged");

  // One flipped bit in a stored member's data: still a valid .npy, but not what was written
  // (issue 31: an activation scale of 6.7e35 came out of such a file, exit 0).
  std::string flipped = zipOf({{"x.npy", good}}, false);
  const std::size_t last_value_byte = 30 + 5 + good.size() - 1; // local header + "x.npy" + data
  flipped[last_value_byte] = static_cast<char>(flipped[last_value_byte] ^ 0x40);
  writeFile(dir / "flipped.npz", flipped);
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "flipped.npz").string(), inputs))->batch(0); }),
             "'" + (dir / "flipped.npz").string() + ":x.npy' is damaged: its CRC-32 is 0x");
  std::string flipped_deflated = zipOf({{"x.npy", good}}, true);
  // Changing the recorded CRC (central directory: 4 bytes at +16 of its record) is caught the same way.
  const std::size_t central = flipped_deflated.rfind("PK\x01\x02"s);
  ASSERT_NE(central, std::string::npos);
  flipped_deflated[central + 16] = static_cast<char>(flipped_deflated[central + 16] ^ 1);
  writeFile(dir / "crc.npz", flipped_deflated);
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "crc.npz").string(), inputs))->batch(0); }),
             "the archive records 0x");

  writeFile(dir / "other.npz", zipOf({{"x.npy", good}, {"notes.txt", "hello"}}, false));
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "other.npz").string(), inputs)); }),
             "holds member 'notes.txt', which is not a .npy array");

  writeFile(dir / "wrong.npz", zipOf({{"x.npy", npyBytes(tensorOf<int64_t>(DType::Int64, {2}, {1, 2}))}}, false));
  std::string dtype = errorOf([&] { open(npzSource(), request((dir / "wrong.npz").string(), inputs))->batch(0); });
  EXPECT_HAS(dtype, "'" + (dir / "wrong.npz").string() + ":x.npy' holds torch.int64 data but input 0 ('x')");

  writeFile(dir / "trunc.npz", zipOf({{"x.npy", good.substr(0, good.size() - 3)}}, false));
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "trunc.npz").string(), inputs))->batch(0); }),
             "truncated .npy data");
  // Deflated, the .npy header is read before the member is inflated: its size must be the one
  // the archive declares.
  writeFile(dir / "trunc-deflated.npz", zipOf({{"x.npy", good.substr(0, good.size() - 3)}}, true));
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "trunc-deflated.npz").string(), inputs))->batch(0); }),
             ":x.npy' is damaged: its .npy header describes " + std::to_string(good.size()) +
                 " bytes, the archive declares " + std::to_string(good.size() - 3));

  writeFile(dir / "notzip.npz", "PK but not really a zip file");
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "notzip.npz").string(), inputs)); }),
             (dir / "notzip.npz").string());
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "missing.npz").string(), inputs)); }),
             "it does not exist");
}

// A member whose .npy header and declared size claim 400 MB but whose deflate data holds 400 KB
// (issue 31: a 1 MB .npz inflated to 1.17 GB before failing). The claim passes the deflate-ratio
// bound (400 KB of random bytes may inflate 1,100-fold), so the member is inflated: into memory
// that is allocated but not touched, so the failure costs the child process little more than the
// bytes really inflated.
TEST(CalibrationSources, NpzForgedSizeFailsWithoutTouchingWhatItClaims) {
  TempDir dir;
  constexpr int64_t kClaimed = 100'000'000; // float32 elements: 400 MB
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(kClaimed) + ",), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string npy = "\x93NUMPY\x01\x00"s;
  npy += static_cast<char>(header.size() & 0xff), npy += static_cast<char>(header.size() >> 8);
  npy += header;
  const std::size_t header_bytes = npy.size();
  uint32_t state = 12345; // random bytes do not deflate
  for (int i = 0; i < 400'000; ++i)
    npy += static_cast<char>((state = state * 1664525u + 1013904223u) >> 24);
  std::string zip = zipOf({{"x.npy", npy}}, true);
  const std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {kClaimed})};

  // As written, the archive declares what the member holds, and the header disagrees.
  writeFile(dir / "header.npz", zip);
  EXPECT_HAS(errorOf([&] { open(npzSource(), request((dir / "header.npz").string(), inputs))->batch(0); }),
             "its .npy header describes " + std::to_string(header_bytes + 4 * kClaimed) + " bytes, the archive declares " +
                 std::to_string(npy.size()));

  // The archive's sizes forged to agree with the header (local header +22, central record +24).
  const uint64_t claimed = header_bytes + 4 * kClaimed;
  auto put32 = [&](std::size_t at) {
    for (int i = 0; i < 4; ++i)
      zip[at + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  };
  put32(22);
  put32(zip.rfind("PK\x01\x02"s) + 24);
  writeFile(dir / "forged.npz", zip);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    struct rusage before {};
    ::getrusage(RUSAGE_SELF, &before);
    std::string message;
    try {
      open(npzSource(), request((dir / "forged.npz").string(), inputs))->batch(0);
    } catch (const std::exception &e) {
      message = e.what();
    }
    struct rusage after {};
    ::getrusage(RUSAGE_SELF, &after);
    message = std::to_string(after.ru_maxrss - before.ru_maxrss) + "\n" + message;
    [[maybe_unused]] auto n = ::write(report[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(report[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  const auto newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos) << text;
  EXPECT_HAS(text.substr(newline + 1), ":x.npy' is damaged: its deflate data ends early");
  const long grown_kib = std::stol(text.substr(0, newline));
  EXPECT_LT(grown_kib, 64 * 1024) << "peak RSS grew by " << grown_kib << " KiB for a member that holds 400 KB";
}

// ---- token-ids ------------------------------------------------------------------------------------

TEST(CalibrationSources, TokenIdsPadTruncateAndMask) {
  TempDir dir;
  writeFile(dir / "p.txt", "5 6 7\n1,2, 3,4 5 6 7\n9\n");
  std::vector<CalibrationInput> inputs = {input("input_ids", DType::Int64, {1, 4}),
                                          input("attention_mask", DType::Int64, {1, 4})};
  ASSERT_TRUE(tokenIdsSource().accepts((dir / "p.txt").string()));
  auto source = open(tokenIdsSource(), request((dir / "p.txt").string() + ",pad_id=2", inputs));
  ASSERT_EQ(source->size(), 3u);
  EXPECT_HAS(source->describe(), "padded with 2 or truncated to 4 tokens");
  CalibrationBatch b0 = source->batch(0);
  EXPECT_EQ(b0[0]->sizes, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(valuesOf<int64_t>(*b0[0]), (std::vector<int64_t>{5, 6, 7, 2}));
  EXPECT_EQ(valuesOf<int64_t>(*b0[1]), (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(valuesOf<int64_t>(*source->batch(1)[0]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(valuesOf<int64_t>(*source->batch(1)[1]), (std::vector<int64_t>{1, 1, 1, 1}));

  // A symbolic length takes each line's own; the default pad id is 0.
  std::vector<CalibrationInput> symbolic = {input("ids", DType::Int32, {1, -1})};
  auto free = open(tokenIdsSource(), request((dir / "p.txt").string(), symbolic));
  EXPECT_EQ(free->batch(1)[0]->sizes, (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(valuesOf<int32_t>(*free->batch(2)[0]), (std::vector<int32_t>{9}));
  EXPECT_EQ(free->batch(2)[0]->dtype, DType::Int32);
}

TEST(CalibrationSources, TokenIdsErrors) {
  TempDir dir;
  std::vector<CalibrationInput> inputs = {input("ids", DType::Int64, {1, -1})};
  writeFile(dir / "empty.txt", "1 2\n\n3\n");
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "empty.txt").string(), inputs)); }),
             "'" + (dir / "empty.txt").string() + "' line 2 (batch 1) is empty");
  writeFile(dir / "word.txt", "1 2\n3 four\n");
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "word.txt").string(), inputs)); }),
             "line 2 (batch 1): 'four' is not an integer token id");
  writeFile(dir / "big.txt", "1 300\n");
  std::vector<CalibrationInput> bytes = {input("ids", DType::UInt8, {1, -1})};
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "big.txt").string(), bytes))->batch(0); }),
             "token id 300 does not fit torch.uint8");
  std::vector<CalibrationInput> extra = {input("ids", DType::Int64, {1, 4}), input("pixels", DType::Float32, {4})};
  writeFile(dir / "ok.txt", "1 2 3 4\n");
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "ok.txt").string(), extra)); }),
             "input 1 ('pixels')");
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "none.txt").string(), inputs)); }),
             "cannot read token-id file '" + (dir / "none.txt").string() + "': No such file or directory");
  // Issue 31: token-ids:/dev/zero filled 4.4 GB in 10 s and a FIFO hung; both are refused unread.
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request("/dev/zero", inputs)); }),
             "token-id file '/dev/zero' is a character device, not a regular file");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_HAS(errorOf([&] { open(tokenIdsSource(), request((dir / "fifo").string(), inputs)); }), "is a FIFO, not a regular file");
  EXPECT_FALSE(tokenIdsSource().accepts((dir / "x.npz").string()));
}

// ---- random -------------------------------------------------------------------------------------

TEST(CalibrationSources, RandomIsSeededAndTyped) {
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {4, 2500}), input("ids", DType::Int64, {1, 300}),
                                          input("flag", DType::Bool, {64})};
  CalibrationRequest r = request("int_high=50", inputs);
  r.seed = 7;
  ASSERT_TRUE(randomSource().accepts("random"));
  auto a = open(randomSource(), r);
  EXPECT_EQ(a->size(), 8u) << "the default batch count";
  auto again = open(randomSource(), r);
  r.seed = 8;
  auto other = open(randomSource(), r);

  // Same seed, same data, whatever the order the batches are read in.
  CalibrationBatch late = again->batch(5);
  CalibrationBatch a5 = a->batch(5);
  EXPECT_EQ(valuesOf<float>(*a5[0]), valuesOf<float>(*late[0]));
  EXPECT_EQ(valuesOf<int64_t>(*a5[1]), valuesOf<int64_t>(*late[1]));
  EXPECT_NE(valuesOf<float>(*a5[0]), valuesOf<float>(*other->batch(5)[0]));
  EXPECT_NE(valuesOf<float>(*a5[0]), valuesOf<float>(*a->batch(4)[0])) << "batches differ";

  // N(0, 1): the sample mean and variance of 10000 draws are within a few standard errors.
  std::vector<float> x = valuesOf<float>(*a5[0]);
  double sum = 0, sq = 0;
  for (float v : x)
    sum += v, sq += double(v) * v;
  const double mean = sum / x.size(), var = sq / x.size() - mean * mean;
  EXPECT_LT(std::abs(mean), 0.05);
  EXPECT_NEAR(var, 1.0, 0.08);

  EXPECT_EQ(a5[1]->sizes, (std::vector<int64_t>{1, 300}));
  std::vector<int64_t> ids = valuesOf<int64_t>(*a5[1]);
  EXPECT_EQ(*std::min_element(ids.begin(), ids.end()), 0);
  EXPECT_EQ(*std::max_element(ids.begin(), ids.end()), 49);
  std::vector<uint8_t> flags = valuesOf<uint8_t>(*a5[2]);
  EXPECT_TRUE(std::all_of(flags.begin(), flags.end(), [](uint8_t f) { return f <= 1; }));
  EXPECT_TRUE(std::count(flags.begin(), flags.end(), 1) > 10 && std::count(flags.begin(), flags.end(), 0) > 10);

  r.batches = 3;
  EXPECT_EQ(open(randomSource(), r)->size(), 3u);
}

TEST(CalibrationSources, RandomErrors) {
  std::vector<CalibrationInput> inputs = {input("x", DType::Float32, {-1, 8}), input("y", DType::Float32, {3, -1})};
  std::string unsized = errorOf([&] { open(randomSource(), request("random", inputs)); });
  EXPECT_HAS(unsized, "calibration.dims does not size input 'x' dimension 0, input 'y' dimension 1");
  EXPECT_HAS(unsized, "dims: {s0: 128}");
  EXPECT_HAS(errorOf([&] { open(randomSource(), request("int_high=0", inputs)); }), "int_high must be at least 1");
  EXPECT_HAS(errorOf([&] { open(randomSource(), request("seed=3", inputs)); }), "unknown calibration option 'seed'");
  std::vector<CalibrationInput> small = {input("b", DType::UInt8, {2})};
  EXPECT_HAS(errorOf([&] { open(randomSource(), request("int_high=1000", small)); }),
             "int_high=1000 exceeds what input 'b' (torch.uint8) holds");
}

// ---- example-inputs ----------------------------------------------------------------------------------

// A torch.save archive of `pickle` (with storage "0" holding `storage`) inside a .pt2-shaped zip.
std::string pt2WithSampleInputs(const std::string &pickle, const std::string &storage) {
  const std::string saved = zipOf({{"archive/data.pkl", pickle}, {"archive/data/0", storage}}, false);
  return zipOf({{"m/archive_format", "pt2"}, {"m/data/sample_inputs/model.pt", saved}}, false);
}

TEST(CalibrationSources, ExampleInputsFromAHandWrittenPickle) {
  TempDir dir;
  // ((tensor,), {}) with tensor = _rebuild_tensor_v2(storage('0', FloatStorage, numel 4), 1, (3,), (1,), False,
  // OrderedDict()): what torch.save writes for args = (torch.tensor([0., 1., 2., 3.])[1:],).
  const std::string p = "\x80\x02"s + "ctorch._utils\n_rebuild_tensor_v2\nq\x00(("s +
                        "X\x07\x00\x00\x00storage"s + "ctorch\nFloatStorage\n"s + "X\x01\x00\x00\x00"s + "0"s +
                        "X\x03\x00\x00\x00"s + "cpu"s + "K\x04tQ"s + "K\x01K\x03\x85K\x01\x85\x89"s +
                        "ccollections\nOrderedDict\n)Rtq\x01R\x85}\x86."s;
  const std::vector<float> values = {0, 1, 2, 3};
  std::string storage(reinterpret_cast<const char *>(values.data()), 16);
  writeFile(dir / "m.pt2", pt2WithSampleInputs(p, storage));
  CalibrationRequest r = request("example-inputs", {input("x", DType::Float32, {3})});
  r.model_path = (dir / "m.pt2").string();
  ASSERT_TRUE(exampleInputsSource().accepts("example-inputs"));
  EXPECT_FALSE(exampleInputsSource().accepts("examples"));
  auto source = open(exampleInputsSource(), r);
  ASSERT_EQ(source->size(), 1u);
  CalibrationBatch batch = source->batch(0);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(valuesOf<float>(*batch[0]), (std::vector<float>{1, 2, 3}));

  // Protocol-0 INT ('I') is outside the subset: the error names the opcode.
  writeFile(dir / "int.pt2", pt2WithSampleInputs("\x80\x02I1\n.", storage));
  r.model_path = (dir / "int.pt2").string();
  EXPECT_HAS(errorOf([&] { open(exampleInputsSource(), r); }), "unsupported pickle opcode 0x49 'I'");
  writeFile(dir / "set.pt2", pt2WithSampleInputs("\x80\x02" "cbuiltins\nset\n)R.", storage));
  r.model_path = (dir / "set.pt2").string();
  EXPECT_HAS(errorOf([&] { open(exampleInputsSource(), r); }), "unsupported pickle global 'builtins.set'");

  // Hostile pickles are errors, never a crash, a hang or gigabytes: every consumer walks what the
  // reader returns recursively (issue 31: a 12-byte self-referencing list killed tico-run).
  const std::vector<std::pair<std::string, std::string>> hostile = {
      // a = []; a.append(a)
      {"\x80\x02]q\x00h\x00" "a."s, "a list that holds itself"},
      // a = []; b = [a]; a.append(b)
      {"\x80\x02]q\x00]q\x01h\x00" "aa."s, "a list changed after it was put in another container"},
      // d = {}; d['k'] = d
      {"\x80\x02}q\x00X\x01\x00\x00\x00kh\x00s."s, "a dict that holds itself"},
      // ((((None,),),)...) 100 levels, by TUPLE1, by MARK/TUPLE and by nested lists
      {"\x80\x02N"s + std::string(100, '\x85') + ".", "nested more than 64 levels deep"},
      {"\x80\x02"s + std::string(100000, '(') + "N" + std::string(100000, 't') + ".", "nested more than 64 levels deep"},
      {"\x80\x02"s + std::string(100, ']') + std::string(99, 'a') + ".", "nested more than 64 levels deep"},
      // x = None; 30 times x = (x, x): 2^30 values when walked, from 150 bytes
      {[] {
         std::string p = "\x80\x02N"s;
         for (int i = 0; i < 30; ++i)
           p += "q\x00h\x00\x86"s;
         return p + ".";
       }(),
       "shared references expand to more than 1048576 values"},
  };
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    SCOPED_TRACE(i);
    const auto path = dir / ("hostile" + std::to_string(i) + ".pt2");
    writeFile(path, pt2WithSampleInputs(hostile[i].first, storage));
    r.model_path = path.string();
    EXPECT_HAS(errorOf([&] { open(exampleInputsSource(), r); }), hostile[i].second);
  }
  // Shared references that stay small are fine: (x, x) with x a list read twice through the memo.
  writeFile(dir / "shared.pt2", pt2WithSampleInputs("\x80\x02]q\x00h\x00\x86}\x86."s, storage));
  r.model_path = (dir / "shared.pt2").string();
  r.inputs.clear();
  EXPECT_EQ(open(exampleInputsSource(), r)->batch(0).size(), 0u);
  r.inputs = {input("x", DType::Float32, {3})};

  writeFile(dir / "none.pt2", zipOf({{"m/archive_format", "pt2"}, {"m/data/sample_inputs/model.pt", ""}}, false));
  r.model_path = (dir / "none.pt2").string();
  EXPECT_HAS(errorOf([&] { open(exampleInputsSource(), r); }), "the archive holds no example inputs");
  writeFile(dir / "m.tir", "graph @main {}\n");
  r.model_path = (dir / "m.tir").string();
  EXPECT_HAS(errorOf([&] { open(exampleInputsSource(), r); }), "is not one");
}

} // namespace
} // namespace tico::calib
