// Constant payloads: strided views, bounds checks, mapped files, sharing.
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

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

TEST(TensorDataTest, OpenReportsMissingFiles) {
  try {
    MappedFile::open("/nonexistent/tico.bin");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent/tico.bin'"), std::string::npos);
  }
}
