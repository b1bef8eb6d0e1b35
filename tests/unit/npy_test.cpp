// .npy reading and writing. Reference bytes were produced by numpy 2.4 (np.save and
// np.lib.format.write_array(..., version=(3, 0))) and recorded here.
#include "tico/io/npy.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tico {
namespace {

namespace fs = std::filesystem;

class Npy : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tico-npy-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string &name) const { return (dir_ / name).string(); }

  std::string writeBytes(const std::string &name, const std::string &bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  static std::string readBytes(const std::string &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // A version 1.0 file with `dict` as its header (padded like numpy pads it) and `data`.
  std::string npyV1(const std::string &name, std::string dict, const std::string &data) const {
    std::size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(dict.size() & 0xff);
    bytes += static_cast<char>(dict.size() >> 8);
    return writeBytes(name, bytes + dict + data);
  }

  std::string errorReading(const std::string &p) const {
    try {
      readNpy(p);
    } catch (const Error &e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

template <typename T> std::vector<T> valuesOf(const TensorData &t) {
  std::vector<std::byte> bytes = t.contiguousBytes();
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

const std::string kPad60(60, ' ');

TEST_F(Npy, WritesWhatNumpyWrites) {
  // np.save(f, np.array([1, 2, 3], dtype='<i4'))
  const std::string expected = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                               "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }" + kPad60 + "\n" +
                               std::string("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12);
  writeNpy(path("a.npy"), TensorData::fromVector(DType::Int32, {3}, std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(readBytes(path("a.npy")), expected);
}

TEST_F(Npy, ReadsNumpyVersion3AsAMappedTensor) {
  // np.lib.format.write_array(f, np.array([[1, 2], [3, 4]], dtype='<i2'), version=(3, 0))
  const std::string p = writeBytes("v3.npy", std::string("\x93NUMPY\x03\x00t\x00\x00\x00", 12) +
                                                 "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }" +
                                                 std::string(56, ' ') + "\n" +
                                                 std::string("\x01\x00\x02\x00\x03\x00\x04\x00", 8));
  auto t = readNpy(p);
  EXPECT_EQ(t->dtype, DType::Int16);
  EXPECT_EQ(t->sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t->strides, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(valuesOf<int16_t>(*t), (std::vector<int16_t>{1, 2, 3, 4}));
  ASSERT_NE(t->storage->file(), nullptr) << "data must be mapped, not copied";
  EXPECT_EQ(t->storage->fileOffset(), 128u);
}

TEST_F(Npy, RoundTripsAStridedViewInRowMajorOrder) {
  // Transposed view of [[1, 2, 3], [4, 5, 6]].
  TensorData t = TensorData::fromVector(DType::Float32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  t.sizes = {3, 2};
  t.strides = {1, 3};
  writeNpy(path("t.npy"), t);
  auto back = readNpy(path("t.npy"));
  EXPECT_EQ(back->dtype, DType::Float32);
  EXPECT_EQ(back->sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(valuesOf<float>(*back), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST_F(Npy, RoundTripsEveryDTypeAndShapeKind) {
  struct Case {
    DType dtype;
    std::vector<int64_t> sizes;
  };
  for (const Case &c : {Case{DType::Bool, {4}}, Case{DType::UInt8, {2, 2}}, Case{DType::Int8, {1}},
                        Case{DType::Int64, {2, 1, 2}}, Case{DType::UInt16, {3}}, Case{DType::Float16, {2}},
                        Case{DType::Float64, {}}, Case{DType::Complex64, {1}}, Case{DType::Float32, {0, 5}}}) {
    TensorData t;
    t.dtype = c.dtype;
    t.sizes = c.sizes;
    t.strides = TensorData::contiguousStrides(c.sizes);
    std::vector<std::byte> bytes(t.nbytes());
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::byte>(c.dtype == DType::Bool ? i % 2 : i * 7 + 1);
    t = TensorData::fromBytes(c.dtype, c.sizes, bytes);
    const std::string p = path(std::string(dtypeName(c.dtype)) + ".npy");
    writeNpy(p, t);
    auto back = readNpy(p);
    EXPECT_EQ(back->dtype, c.dtype) << dtypeName(c.dtype);
    EXPECT_EQ(back->sizes, c.sizes) << dtypeName(c.dtype);
    EXPECT_EQ(back->contiguousBytes(), bytes) << dtypeName(c.dtype);
    EXPECT_EQ(readBytes(p).size() % 64, bytes.size() % 64) << "data starts 64-byte aligned";
  }
}

TEST_F(Npy, ScalarFromNumpy) {
  // np.save(f, np.float32(2.5))
  auto t = readNpy(writeBytes("s.npy", std::string("\x93NUMPY\x01\x00v\x00", 10) +
                                           "{'descr': '<f4', 'fortran_order': False, 'shape': (), }" +
                                           std::string(62, ' ') + "\n" + std::string("\x00\x00\x20\x40", 4)));
  EXPECT_TRUE(t->sizes.empty());
  EXPECT_EQ(valuesOf<float>(*t), std::vector<float>{2.5f});
}

TEST_F(Npy, RejectsMalformedAndUnsupportedFiles) {
  const std::string four_floats(16, '\0');
  auto expectError = [&](const std::string &p, const std::string &needle) {
    const std::string error = errorReading(p);
    EXPECT_NE(error.find(needle), std::string::npos) << "expected '" << needle << "' in: " << error;
  };
  expectError(writeBytes("magic.npy", "PK\x03\x04 not numpy at all"), "not a .npy file");
  expectError(writeBytes("short.npy", "\x93NUMPY"), "not a .npy file");
  expectError(writeBytes("v9.npy", std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' ')),
              "unsupported .npy format version 9.0");
  expectError(writeBytes("hdr.npy", std::string("\x93NUMPY\x01\x00\xff\x00", 10) + "{'descr'"),
              "truncated .npy header");
  expectError(npyV1("big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four_floats),
              "big-endian");
  expectError(npyV1("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four_floats),
              "Fortran-order");
  expectError(npyV1("object.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four_floats),
              "object arrays");
  expectError(npyV1("struct.npy", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", four_floats),
              "structured dtypes");
  expectError(npyV1("str.npy", "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", four_floats),
              "unsupported dtype");
  expectError(npyV1("trunc.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four_floats),
              "truncated .npy data (20 bytes expected, 16 present)");
  expectError(npyV1("nokey.npy", "{'descr': '<f4', 'shape': (4,), }", four_floats), "no 'fortran_order' key");
  expectError(npyV1("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", four_floats),
              "malformed .npy header");
  expectError(npyV1("shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", four_floats),
              "malformed .npy header");
  expectError(path("missing.npy"), "cannot open");
}

TEST_F(Npy, WriteFailuresLeaveNoFile) {
  TensorData bf16 = TensorData::fromVector(DType::BFloat16, {1}, std::vector<uint16_t>{0});
  EXPECT_THROW(writeNpy(path("bf16.npy"), bf16), Error);
  EXPECT_FALSE(fs::exists(path("bf16.npy")));
  TensorData f = TensorData::fromVector(DType::Float32, {1}, std::vector<float>{1});
  EXPECT_THROW(writeNpy(path("no/such/dir/x.npy"), f), Error);
  EXPECT_TRUE(fs::is_empty(dir_)) << "no temporary files are left behind";
}

} // namespace
} // namespace tico
