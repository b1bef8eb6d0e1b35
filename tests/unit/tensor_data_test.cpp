// Constant payloads: strided views, bounds checks, mapped files, sharing.
#include "tico/ir/tensor_data.h"
#include "ir/element_conversion.h"
#include "tico/support/half.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <bit>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace tico;

TEST(TensorDataTest, PermutedViewCopiesInRowMajorOrder) {
  TensorData t = TensorData::fromVector<float>(DType::Float32, {2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_TRUE(t.isContiguous());
  TensorData tr = t;
  tr.sizes = {3, 2};
  tr.strides = {1, 3};
  EXPECT_FALSE(tr.isContiguous());
  auto bytes = tr.contiguousBytes();
  const float *f = reinterpret_cast<const float *>(bytes.data());
  EXPECT_EQ(std::vector<float>(f, f + 6), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(t.sameView(t));
  EXPECT_FALSE(t.sameView(tr));
}

TEST(TensorDataTest, OffsetAndStepViews) {
  TensorData t = TensorData::fromVector<int32_t>(DType::Int32, {8}, {0, 1, 2, 3, 4, 5, 6, 7});
  TensorData v = t;
  v.sizes = {3};
  v.strides = {2};
  v.storage_offset = 1;
  auto bytes = v.contiguousBytes();
  const int32_t *i = reinterpret_cast<const int32_t *>(bytes.data());
  EXPECT_EQ(std::vector<int32_t>(i, i + 3), (std::vector<int32_t>{1, 3, 5}));
  v.checkBounds();
  v.storage_offset = 4; // 4 + 2*2 = 8 is past the end
  EXPECT_THROW(v.checkBounds(), Error);
}

TEST(TensorDataTest, FromBytesChecksTheSize) {
  EXPECT_THROW(TensorData::fromBytes(DType::Float32, {2, 2}, std::vector<std::byte>(15)), Error);
}

TEST(TensorDataTest, MappedStorageIsZeroCopy) {
  auto path = std::filesystem::temp_directory_path() / "tico_tensor_data_test.bin";
  {
    std::ofstream out(path, std::ios::binary);
    float values[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    out.write("HDR!", 4);
    out.write(reinterpret_cast<const char *>(values), sizeof values);
  }
  auto file = MappedFile::open(path.string());
  auto storage = Storage::fromMapped(file, 4, 16);
  EXPECT_EQ(storage->data(), file->data() + 4);
  EXPECT_EQ(storage->file(), file.get());
  EXPECT_EQ(storage->fileOffset(), 4u);
  TensorData t;
  t.storage = storage;
  t.dtype = DType::Float32;
  t.sizes = {4};
  t.strides = {1};
  t.checkBounds();
  EXPECT_EQ(reinterpret_cast<const float *>(t.data())[3], 4.5f);
  EXPECT_THROW(Storage::fromMapped(file, 8, 16), Error);
  std::filesystem::remove(path);
}

// Resident bytes of the mapping that contains `address`, from /proc/self/smaps (KiB).
static long residentKiB(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto a = reinterpret_cast<uintptr_t>(address);
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = a >= lo && a < hi;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0)
      return std::stol(line.substr(4));
  }
  return -1;
}

TEST(TensorDataTest, ReleasedPagesLeaveTheResidentSetAndComeBackOnRead) {
  auto path = std::filesystem::temp_directory_path() / "tico_tensor_data_release.bin";
  const std::size_t count = 1 << 20; // 4 MiB of floats
  {
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i)
      values[i] = static_cast<float>(i);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(values.data()), static_cast<std::streamsize>(count * sizeof(float)));
  }
  auto file = MappedFile::open(path.string());
  TensorData t;
  t.storage = Storage::fromMapped(file, 0, count * sizeof(float));
  t.dtype = DType::Float32;
  t.sizes = {static_cast<int64_t>(count)};
  t.strides = {1};
  const auto *data = reinterpret_cast<const float *>(t.data());
  double sum = 0;
  for (std::size_t i = 0; i < count; i += 1024)
    sum += data[i]; // touch every page
  EXPECT_GT(sum, 0.0);
  ASSERT_GE(residentKiB(data), 4000) << "the mapping is resident after reading it";
  t.releasePages();
  EXPECT_LT(residentKiB(data), 64) << "released pages leave this process's resident set";
  EXPECT_EQ(data[count - 1], static_cast<float>(count - 1)) << "and read back from the file";
  // Owned memory: a no-op.
  TensorData owned = TensorData::fromVector<float>(DType::Float32, {2}, {1, 2});
  owned.releasePages();
  EXPECT_EQ(reinterpret_cast<const float *>(owned.data())[1], 2.0f);
  std::filesystem::remove(path);
}

TEST(TensorDataTest, OpenReportsMissingFiles) {
  try {
    MappedFile::open("/nonexistent/tico.bin");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent/tico.bin'"), std::string::npos);
  }
}

TEST(TensorDataTest, WidenedStorageConvertsHalfTypesExactly) {
  // float16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal), -0, inf, nan.
  const std::vector<uint16_t> half{0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00, 0x7e00};
  auto source = TensorData::fromVector(DType::Float16, {7}, half).storage;
  auto widened = Storage::widenedToFloat32(source, DType::Float16);
  ASSERT_EQ(widened->size(), 28u);
  TensorData view{widened, DType::Float32, {7}, {1}, 0};
  auto bytes = view.contiguousBytes();
  const float *f = reinterpret_cast<const float *>(bytes.data());
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 65504.0f);
  EXPECT_EQ(f[3], std::ldexp(1.0f, -24));
  EXPECT_TRUE(f[4] == 0.0f && std::signbit(f[4]));
  EXPECT_TRUE(std::isinf(f[5]) && f[5] > 0);
  EXPECT_TRUE(std::isnan(f[6]));
  EXPECT_EQ(widened->data(), widened->data()) << "converted once, then kept";
  EXPECT_EQ(widened->convertedFrom(), source);
  EXPECT_EQ(widened->convertedFromDType(), DType::Float16);
  EXPECT_EQ(widened->convertedToDType(), DType::Float32);
  EXPECT_EQ(source->convertedFrom(), nullptr);

  // bfloat16 is the upper half of float32: 1.0, -3.0 (0xc040), 1.0078125 (0x3f81).
  auto bf = TensorData::fromVector(DType::BFloat16, {3}, std::vector<uint16_t>{0x3f80, 0xc040, 0x3f81}).storage;
  TensorData strided{Storage::widenedToFloat32(bf, DType::BFloat16), DType::Float32, {2}, {2}, 0};
  auto picked = strided.contiguousBytes();
  const float *g = reinterpret_cast<const float *>(picked.data());
  EXPECT_EQ(g[0], 1.0f);
  EXPECT_EQ(g[1], 1.0078125f) << "strided views index the widened storage like the source";
}

static std::shared_ptr<const Storage> source16() {
  return TensorData::fromVector(DType::Float16, {1}, std::vector<uint16_t>{0x3c00}).storage;
}

TEST(TensorDataTest, OnlyHalfTypesAreWidened) {
  auto ints = TensorData::fromVector(DType::Int16, {2}, std::vector<int16_t>{1, 2}).storage;
  try {
    Storage::widenedToFloat32(ints, DType::Int16);
    FAIL() << "int16 storage was widened";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("float16 and bfloat16 to float32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Storage::widenedToFloat32(nullptr, DType::BFloat16), Error);
  auto floats = TensorData::fromVector(DType::Float32, {1}, std::vector<float>{1.0f}).storage;
  EXPECT_THROW(Storage::converted(floats, DType::Float32, DType::Float16), Error) << "float32 is never narrowed";
  EXPECT_THROW(Storage::converted(source16(), DType::Float16, DType::BFloat16), Error);
}

// Every 16-bit pattern, as a little-endian byte buffer.
static std::vector<uint16_t> everyPattern() {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<uint16_t>(i);
  return all;
}

static bool isHalfNan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(ElementConversionTest, Float16WidensExactlyOnEveryPattern) {
  // The F16C path (where the CPU has it) against the portable element conversion.
  const std::vector<uint16_t> all = everyPattern();
  std::vector<float> wide(all.size());
  widenToFloat32(DType::Float16, reinterpret_cast<const std::byte *>(all.data()), wide.data(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float expected = halfToFloat(all[i]);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(wide[i])) << i;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(wide[i]), std::bit_cast<uint32_t>(expected)) << "pattern " << i;
  }
}

TEST(ElementConversionTest, BFloat16ToFloat16RoundsToNearestEvenOnEveryPattern) {
  const std::vector<uint16_t> all = everyPattern();
  std::vector<uint16_t> narrow(all.size());
  convertElements(DType::BFloat16, DType::Float16, reinterpret_cast<const std::byte *>(all.data()),
                  reinterpret_cast<std::byte *>(narrow.data()), all.size());
  std::size_t exact = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float value = bfloat16ToFloat(all[i]);
    if (std::isnan(value)) {
      EXPECT_TRUE(isHalfNan(narrow[i])) << "nan stays nan: pattern " << i;
      continue;
    }
    ASSERT_EQ(narrow[i], floatToHalf(value)) << "pattern " << i;
    exact += halfToFloat(narrow[i]) == value;
  }
  // 1.0078125 (8 significant bits) is exact; 2^-20 * 1.0078125 is below float16's normal range.
  EXPECT_EQ(halfToFloat(narrow[0x3f81]), 1.0078125f);
  EXPECT_GT(exact, 0u);
}

TEST(ElementConversionTest, Float16RangeCountsOverflowAndRoundedValues) {
  const std::vector<uint16_t> all = everyPattern();
  // The reference, element by element: overflow is a finite value float16 makes inf, rounded a
  // value whose float16 differs from it.
  bool fits = true;
  std::size_t rounded = 0;
  for (uint16_t b : all) {
    const float value = bfloat16ToFloat(b);
    if (std::isnan(value) || std::isinf(value))
      continue;
    const float back = halfToFloat(floatToHalf(value));
    if (std::isinf(back))
      fits = false;
    else if (back != value)
      ++rounded;
  }
  const Float16Range all_range = float16Range(reinterpret_cast<const std::byte *>(all.data()), all.size());
  EXPECT_EQ(all_range.fits, fits);
  EXPECT_FALSE(all_range.fits);
  EXPECT_EQ(all_range.rounded, rounded);
  EXPECT_GT(rounded, 0u);

  // 65280 (0x477f) is the largest bfloat16 that float16 holds; 65536 (0x4780) is not; inf and nan
  // pass through. Lengths not a multiple of the vector width take the tail path too.
  for (std::size_t length : {1u, 15u, 16u, 17u, 40u}) {
    std::vector<uint16_t> values(length, 0x3f80);
    values.back() = 0x477f;
    values.front() = 0x7f80;
    EXPECT_TRUE(float16Range(reinterpret_cast<const std::byte *>(values.data()), length).fits) << length;
    values[length / 2] = 0xc780; // -65536
    EXPECT_FALSE(float16Range(reinterpret_cast<const std::byte *>(values.data()), length).fits) << length;
  }
  // 2^-20 is exact on float16's subnormal grid (multiples of 2^-24); 2^-20 * (1 + 2^-7) is not.
  const std::vector<uint16_t> small{0x3580, 0x3581, 0x0000, 0x8000};
  const Float16Range r = float16Range(reinterpret_cast<const std::byte *>(small.data()), small.size());
  EXPECT_TRUE(r.fits);
  EXPECT_EQ(r.rounded, 1u);
}

TEST(ElementConversionTest, CheckedBFloat16ToFloat16MatchesTheConversionAndTheRangeOnEveryBlock) {
  // The writer's conversion (bfloat16ToFloat16Fits): the same bytes as convertElements, and
  // "fits" exactly when float16Range says so, for every block of eight consecutive patterns
  // (the vector width) and for lengths that end on the scalar tail.
  const std::vector<uint16_t> all = everyPattern();
  std::vector<uint16_t> expected(all.size()), checked(all.size());
  convertElements(DType::BFloat16, DType::Float16, reinterpret_cast<const std::byte *>(all.data()),
                  reinterpret_cast<std::byte *>(expected.data()), all.size());
  EXPECT_FALSE(bfloat16ToFloat16Fits(reinterpret_cast<const std::byte *>(all.data()),
                                     reinterpret_cast<std::byte *>(checked.data()), all.size()));
  EXPECT_EQ(checked, expected);
  std::size_t overflowing_blocks = 0;
  for (std::size_t start = 0; start < all.size(); start += 8) {
    const auto *in = reinterpret_cast<const std::byte *>(all.data() + start);
    uint16_t out[8];
    const bool fits = bfloat16ToFloat16Fits(in, reinterpret_cast<std::byte *>(out), 8);
    ASSERT_EQ(fits, float16Range(in, 8).fits) << "block at pattern " << start;
    overflowing_blocks += !fits;
  }
  EXPECT_GT(overflowing_blocks, 0u);
  for (std::size_t length : {1u, 7u, 8u, 9u, 17u, 40u}) {
    std::vector<uint16_t> values(length, 0x3f80), out(length);
    values.back() = 0x477f;  // 65280: fits
    values.front() = 0xff80; // -inf stays -inf
    EXPECT_TRUE(bfloat16ToFloat16Fits(reinterpret_cast<const std::byte *>(values.data()),
                                      reinterpret_cast<std::byte *>(out.data()), length))
        << length;
    values[length / 2] = 0x4780; // 65536
    EXPECT_FALSE(bfloat16ToFloat16Fits(reinterpret_cast<const std::byte *>(values.data()),
                                       reinterpret_cast<std::byte *>(out.data()), length))
        << length;
  }
}

TEST(ElementConversionTest, ConvertedBFloat16StorageHoldsFloat16) {
  auto bf = TensorData::fromVector(DType::BFloat16, {3}, std::vector<uint16_t>{0x3f80, 0xc040, 0x3f81}).storage;
  auto narrow = Storage::converted(bf, DType::BFloat16, DType::Float16);
  ASSERT_EQ(narrow->size(), 6u);
  EXPECT_EQ(narrow->convertedToDType(), DType::Float16);
  TensorData view{narrow, DType::Float16, {3}, {1}, 0};
  const auto bytes = view.contiguousBytes();
  const auto *h = reinterpret_cast<const uint16_t *>(bytes.data());
  EXPECT_EQ(halfToFloat(h[0]), 1.0f);
  EXPECT_EQ(halfToFloat(h[1]), -3.0f);
  EXPECT_EQ(halfToFloat(h[2]), 1.0078125f);
}
