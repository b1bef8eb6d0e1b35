// Circle object-model helpers and the streaming, atomic Circle writer.
//
// Files are decoded with the generated reader of our own schema and checked with
// flatbuffers::Verifier; the independent-reader check lives in tests/conformance.

#include "tico/circle/model.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include "circle/writer_detail.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <sys/stat.h>
#include <unistd.h>

namespace tico {
namespace {

namespace fs = std::filesystem;

// ---- helpers ----------------------------------------------------------------------------------

std::shared_ptr<const TensorData> floats(std::vector<int64_t> sizes, const std::vector<float> &values) {
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values));
}

std::vector<float> iota(std::size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool verifies(const std::vector<uint8_t> &bytes, const char *identifier = "CIR0") {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  return verifier.VerifyBuffer<circle::Model>(identifier);
}

std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> out(values.size() * sizeof(float));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A fresh directory per test, removed afterwards.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tico-writer-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string &name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(path_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  fs::path path_;
};

// x[1,4] -> ADD(x, w) -> GELU -> RMS_NORM(., gamma) -> y, with constants w and gamma.
CircleModel makeModel() {
  CircleModel model;
  model.description = "writer-test";
  CircleSubGraph sg;
  sg.name = "main";
  const uint32_t w_buffer = model.addBuffer(floats({4}, {1.f, 2.f, 3.f, 4.f}));
  const uint32_t gamma_buffer = model.addBuffer(floats({4}, iota(4, 10.f)));
  sg.tensors.push_back({{1, 4}, {}, circle::TensorType::FLOAT32, 0, "x", nullptr, false});
  sg.tensors.push_back({{4}, {}, circle::TensorType::FLOAT32, w_buffer, "w", nullptr, false});
  sg.tensors.push_back({{1, 4}, {}, circle::TensorType::FLOAT32, 0, "sum", nullptr, false});
  sg.tensors.push_back({{1, 4}, {}, circle::TensorType::FLOAT32, 0, "gelu", nullptr, false});
  sg.tensors.push_back({{4}, {}, circle::TensorType::FLOAT32, gamma_buffer, "gamma", nullptr, false});
  sg.tensors.push_back({{1, 4}, {}, circle::TensorType::FLOAT32, 0, "y", nullptr, false});
  sg.inputs = {0};
  sg.outputs = {5};

  CircleOperator add;
  add.opcode_index = model.operatorCodeIndex(circle::BuiltinOperator::ADD);
  add.inputs = {0, 1};
  add.outputs = {2};
  circle::AddOptionsT add_options;
  add_options.fused_activation_function = circle::ActivationFunctionType::RELU;
  add.builtin_options.Set(add_options);
  sg.operators.push_back(add);

  CircleOperator gelu;
  gelu.opcode_index = model.operatorCodeIndex(circle::BuiltinOperator::GELU);
  gelu.inputs = {2};
  gelu.outputs = {3};
  circle::GeluOptionsT gelu_options;
  gelu_options.approximate = true;
  gelu.builtin_options.Set(gelu_options);
  sg.operators.push_back(gelu);

  CircleOperator norm;
  norm.opcode_index = model.operatorCodeIndex(circle::BuiltinOperator::RMS_NORM);
  norm.inputs = {3, 4};
  norm.outputs = {5};
  circle::RmsNormOptionsT norm_options;
  norm_options.epsilon = 1e-6f;
  norm.builtin_options.Set(norm_options);
  sg.operators.push_back(norm);

  model.subgraphs.push_back(std::move(sg));
  return model;
}

// Offset of a buffer's inline data bytes inside the file (or -1 without data).
int64_t dataOffset(const std::vector<uint8_t> &bytes, uint32_t buffer) {
  const auto *data = circle::GetModel(bytes.data())->buffers()->Get(buffer)->data();
  return data ? data->data() - bytes.data() : -1;
}

// ---- model helpers ------------------------------------------------------------------------------

TEST(CircleModelHelpers, OperatorCodeIndexDedupesInFirstUseOrder) {
  CircleModel model;
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::CONV_2D), 0u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::RMS_NORM), 1u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::CONV_2D), 0u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::CUSTOM, "Foo"), 2u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::CUSTOM, "Bar"), 3u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::CUSTOM, "Foo"), 2u);
  EXPECT_EQ(model.operatorCodeIndex(circle::BuiltinOperator::RMS_NORM), 1u);
  ASSERT_EQ(model.operator_codes.size(), 4u);
  EXPECT_EQ(model.operator_codes[0].builtin_code, 3);
  EXPECT_EQ(model.operator_codes[1].builtin_code, -6);
  EXPECT_EQ(model.operator_codes[2].builtin_code, 32);
  EXPECT_EQ(model.operator_codes[2].custom_code, "Foo");
  EXPECT_EQ(model.operator_codes[3].custom_code, "Bar");
  for (const auto &code : model.operator_codes)
    EXPECT_EQ(code.version, 1);
}

TEST(CircleModelHelpers, AddBufferAppendsAfterSentinelAndSumsPayloads) {
  CircleModel model;
  ASSERT_EQ(model.buffers.size(), 1u);
  EXPECT_EQ(model.buffers[0].data, nullptr);
  auto a = floats({3}, {1, 2, 3});
  auto b = std::make_shared<TensorData>(TensorData::fromVector<int64_t>(DType::Int64, {2}, {7, 8}));
  EXPECT_EQ(model.addBuffer(a), 1u);
  EXPECT_EQ(model.addBuffer(nullptr), 2u);
  EXPECT_EQ(model.addBuffer(b), 3u);
  EXPECT_EQ(model.buffers[1].data, a);
  EXPECT_EQ(model.buffers[3].data, b);
  EXPECT_EQ(model.payloadBytes(), 3u * 4 + 2u * 8);
}

TEST(CircleModelHelpers, TensorTypesMapBothWays) {
  const std::vector<std::pair<DType, circle::TensorType>> pairs = {
      {DType::Bool, circle::TensorType::BOOL},         {DType::UInt8, circle::TensorType::UINT8},
      {DType::Int8, circle::TensorType::INT8},         {DType::Int16, circle::TensorType::INT16},
      {DType::Int32, circle::TensorType::INT32},       {DType::Int64, circle::TensorType::INT64},
      {DType::UInt16, circle::TensorType::UINT16},     {DType::UInt32, circle::TensorType::UINT32},
      {DType::UInt64, circle::TensorType::UINT64},     {DType::Float16, circle::TensorType::FLOAT16},
      {DType::BFloat16, circle::TensorType::BFLOAT16}, {DType::Float32, circle::TensorType::FLOAT32},
      {DType::Float64, circle::TensorType::FLOAT64},   {DType::Complex64, circle::TensorType::COMPLEX64},
      {DType::Complex128, circle::TensorType::COMPLEX128}, {DType::UInt4, circle::TensorType::UINT4},
      {DType::Int4, circle::TensorType::INT4},
  };
  for (const auto &[dtype, type] : pairs) {
    EXPECT_EQ(toCircleType(dtype), type) << dtypeName(dtype);
    EXPECT_EQ(fromCircleType(type), dtype) << circle::EnumNameTensorType(type);
  }
}

TEST(CircleModelHelpers, UnmappableTypesAreNamedInTheError) {
  try {
    toCircleType(DType::Unknown);
    FAIL() << "expected tico::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown"), std::string::npos) << e.what();
  }
  for (auto type : {circle::TensorType::STRING, circle::TensorType::MXFP4, circle::TensorType::GGML_Q4_0,
                    circle::TensorType::MXINT8}) {
    try {
      fromCircleType(type);
      FAIL() << "expected tico::Error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(circle::EnumNameTensorType(type)), std::string::npos) << e.what();
    }
  }
}

// ---- inline layout -------------------------------------------------------------------------------

TEST(CircleWriter, InlineLayoutRoundTrips) {
  const CircleModel model = makeModel();
  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  EXPECT_TRUE(circle::ModelBufferHasIdentifier(bytes.data()));

  const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
  EXPECT_EQ(decoded->version, 0u);
  EXPECT_EQ(decoded->description, "writer-test");
  ASSERT_EQ(decoded->subgraphs.size(), 1u);
  const auto &sg = *decoded->subgraphs[0];
  EXPECT_EQ(sg.name, "main");
  EXPECT_EQ(sg.inputs, std::vector<int32_t>{0});
  EXPECT_EQ(sg.outputs, std::vector<int32_t>{5});
  ASSERT_EQ(sg.tensors.size(), 6u);
  EXPECT_EQ(sg.tensors[1]->name, "w");
  EXPECT_EQ(sg.tensors[1]->buffer, 1u);
  EXPECT_EQ(sg.tensors[0]->shape, (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(sg.tensors[4]->buffer, 2u);

  ASSERT_EQ(sg.operators.size(), 3u);
  EXPECT_EQ(sg.operators[0]->opcode_index, 0u);
  EXPECT_EQ(sg.operators[0]->inputs, (std::vector<int32_t>{0, 1}));
  ASSERT_NE(sg.operators[0]->builtin_options.AsAddOptions(), nullptr);
  EXPECT_EQ(sg.operators[0]->builtin_options.AsAddOptions()->fused_activation_function,
            circle::ActivationFunctionType::RELU);
  ASSERT_NE(sg.operators[1]->builtin_options.AsGeluOptions(), nullptr);
  EXPECT_TRUE(sg.operators[1]->builtin_options.AsGeluOptions()->approximate);
  ASSERT_NE(sg.operators[2]->builtin_options.AsRmsNormOptions(), nullptr);
  EXPECT_FLOAT_EQ(sg.operators[2]->builtin_options.AsRmsNormOptions()->epsilon, 1e-6f);

  ASSERT_EQ(decoded->buffers.size(), 3u);
  EXPECT_TRUE(decoded->buffers[0]->data.empty());
  EXPECT_EQ(decoded->buffers[1]->data, floatBytes({1, 2, 3, 4}));
  EXPECT_EQ(decoded->buffers[2]->data, floatBytes(iota(4, 10.f)));
  for (const auto &buffer : decoded->buffers) {
    EXPECT_EQ(buffer->offset, 0u);
    EXPECT_EQ(buffer->size, 0u);
  }
}

TEST(CircleWriter, InlinePayloadsAreAlignedAndStoredLastInBufferOrder) {
  CircleModel model = makeModel();
  // An odd-sized payload makes the next one need padding.
  model.addBuffer(std::make_shared<TensorData>(TensorData::fromVector<int8_t>(DType::Int8, {3}, {5, 6, 7})));
  model.addBuffer(floats({2}, {-1.f, -2.f}));
  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));

  const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> expected = {
      {1, floatBytes({1, 2, 3, 4})}, {2, floatBytes(iota(4, 10.f))}, {3, {5, 6, 7}}, {4, floatBytes({-1, -2})}};
  int64_t previous_end = 0;
  for (const auto &[index, payload] : expected) {
    const int64_t offset = dataOffset(bytes, index);
    ASSERT_GE(offset, 0) << "buffer " << index;
    EXPECT_EQ(offset % 16, 0) << "buffer " << index;
    EXPECT_GT(offset, previous_end) << "payloads follow each other in buffer order";
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + offset, bytes.begin() + offset + payload.size()), payload);
    // Padding between payloads (and the length word's neighbourhood) is zero-filled.
    if (previous_end > 0) {
      for (int64_t i = previous_end; i < offset - 4; ++i)
        EXPECT_EQ(bytes[i], 0) << "padding byte " << i;
    }
    previous_end = offset + static_cast<int64_t>(payload.size());
  }
  EXPECT_EQ(previous_end, static_cast<int64_t>(bytes.size())) << "the last payload ends the file";
  // Every table lies before the first payload: the payload region is pure data.
  const int64_t first = dataOffset(bytes, 1);
  const auto *root = circle::GetModel(bytes.data());
  EXPECT_LT(reinterpret_cast<const uint8_t *>(root->subgraphs()->Get(0)) - bytes.data(), first);
  EXPECT_LT(reinterpret_cast<const uint8_t *>(root->buffers()->Get(4)) - bytes.data(), first);
}

TEST(CircleWriter, EmptyConstantsKeepAnEmptyDataVector) {
  // A constant without elements (a rank-0 RESHAPE's shape operand) has an empty `data`
  // vector: runtimes (onert 0.2) take a buffer without one for a runtime value and crash.
  // A buffer without data (and the sentinel buffer 0) has none.
  CircleModel model = makeModel();
  const uint32_t empty = model.addBuffer(floats({0}, {}));
  const uint32_t none = model.addBuffer(nullptr);
  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  const auto *buffers = circle::GetModel(bytes.data())->buffers();
  ASSERT_NE(buffers->Get(empty)->data(), nullptr);
  EXPECT_EQ(buffers->Get(empty)->data()->size(), 0u);
  EXPECT_EQ(buffers->Get(none)->data(), nullptr);
  EXPECT_EQ(buffers->Get(0)->data(), nullptr);
}

// ---- external layout -----------------------------------------------------------------------------

TEST(CircleWriter, ForcedExternalLayoutStoresOffsetsAndSizes) {
  CircleModel model = makeModel();
  model.addBuffer(std::make_shared<TensorData>(TensorData::fromVector<int8_t>(DType::Int8, {3}, {5, 6, 7})));
  CircleWriteOptions options;
  options.force_external_buffers = true;
  const auto bytes = serializeCircle(model, options);
  ASSERT_TRUE(verifies(bytes));

  const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
  ASSERT_EQ(decoded->buffers.size(), 4u);
  EXPECT_TRUE(decoded->buffers[0]->data.empty());
  EXPECT_EQ(decoded->buffers[0]->offset, 0u);
  EXPECT_EQ(decoded->buffers[0]->size, 0u);

  const std::vector<std::vector<uint8_t>> expected = {floatBytes({1, 2, 3, 4}), floatBytes(iota(4, 10.f)), {5, 6, 7}};
  uint64_t previous_end = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto &buffer = *decoded->buffers[i + 1];
    EXPECT_TRUE(buffer.data.empty());
    EXPECT_GT(buffer.offset, 1u);
    EXPECT_EQ(buffer.offset % 16, 0u);
    EXPECT_GE(buffer.offset, previous_end);
    ASSERT_EQ(buffer.size, expected[i].size());
    ASSERT_LE(buffer.offset + buffer.size, bytes.size());
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + buffer.offset, bytes.begin() + buffer.offset + buffer.size),
              expected[i]);
    previous_end = buffer.offset + buffer.size;
  }
  EXPECT_EQ(previous_end, bytes.size());
  // The rest of the model is unchanged by the layout.
  EXPECT_EQ(decoded->subgraphs[0]->tensors[1]->buffer, 1u);
  EXPECT_EQ(decoded->description, "writer-test");
}

TEST(CircleWriter, LayoutIsChosenFromThePayloadSum) {
  using circle_writer::chooseLayout;
  using circle_writer::PayloadLayout;
  EXPECT_EQ(chooseLayout(1 << 20, 4, false), PayloadLayout::Inline);
  EXPECT_EQ(chooseLayout(0, 0, true), PayloadLayout::External);
  EXPECT_EQ(chooseLayout(uint64_t{3} << 30, 10, false), PayloadLayout::External);
  // Just below 2 GiB the metadata headroom already rules the inline layout out.
  EXPECT_EQ(chooseLayout((uint64_t{2} << 30) - (uint64_t{1} << 20), 1, false), PayloadLayout::External);
  EXPECT_EQ(chooseLayout(uint64_t{1} << 30, 1000, false), PayloadLayout::Inline);
}

// ---- payload sources -----------------------------------------------------------------------------

TEST(CircleWriter, MappedPayloadsAreStreamedFromTheFile) {
  TempDir dir;
  // A 3 MiB weight file with a 100-byte header, so the storage starts at an unaligned offset
  // and the copy spans many pages.
  const std::size_t count = (3u << 20) / sizeof(float);
  std::vector<float> weights(count);
  for (std::size_t i = 0; i < count; ++i)
    weights[i] = static_cast<float>(i % 1000) * 0.5f - 7.f;
  std::vector<uint8_t> file_bytes(100, 0xAB);
  const auto payload = floatBytes(weights);
  file_bytes.insert(file_bytes.end(), payload.begin(), payload.end());
  file_bytes.insert(file_bytes.end(), 28, 0xCD);
  writeFile(dir.file("weights.bin"), file_bytes);

  auto mapped = MappedFile::open(dir.file("weights.bin"));
  auto storage = Storage::fromMapped(mapped, 100, payload.size());
  auto whole = std::make_shared<TensorData>();
  whole->storage = storage;
  whole->dtype = DType::Float32;
  whole->sizes = {static_cast<int64_t>(count)};
  whole->strides = {1};
  // A second view into the same storage, starting at element 1000.
  auto tail = std::make_shared<TensorData>(*whole);
  tail->sizes = {16};
  tail->storage_offset = 1000;

  for (bool external : {false, true}) {
    CircleModel model = makeModel();
    const uint32_t whole_buffer = model.addBuffer(whole);
    const uint32_t tail_buffer = model.addBuffer(tail);
    CircleWriteOptions options;
    options.force_external_buffers = external;
    const std::string out = dir.file(external ? "external.circle" : "inline.circle");
    writeCircleFile(model, out, options);
    const auto bytes = readFile(out);
    ASSERT_TRUE(verifies(bytes));
    EXPECT_EQ(bytes, serializeCircle(model, options)) << "file and memory writers agree";

    const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
    auto payloadOf = [&](uint32_t index) {
      const auto &buffer = *decoded->buffers[index];
      if (!external)
        return buffer.data;
      return std::vector<uint8_t>(bytes.begin() + buffer.offset, bytes.begin() + buffer.offset + buffer.size);
    };
    EXPECT_EQ(payloadOf(whole_buffer), payload) << (external ? "external" : "inline");
    EXPECT_EQ(payloadOf(tail_buffer),
              floatBytes(std::vector<float>(weights.begin() + 1000, weights.begin() + 1016)));
    EXPECT_EQ(payloadOf(1), floatBytes({1, 2, 3, 4}));
  }
}

// Resident kilobytes of the mapping of `path` in this process (from /proc/self/smaps).
long residentKiB(const std::string &path) {
  std::ifstream smaps("/proc/self/smaps");
  bool in_mapping = false;
  long total = 0;
  for (std::string line; std::getline(smaps, line);) {
    // Mapping headers are "start-end perms offset dev inode [path]"; field lines are "Name: value".
    const auto first_space = line.find(' ');
    const bool is_header = first_space != std::string::npos && line.find('-') < first_space;
    if (is_header) {
      in_mapping = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
      continue;
    }
    if (in_mapping && line.rfind("Rss:", 0) == 0)
      total += std::stol(line.substr(4));
  }
  return total;
}

TEST(CircleWriter, StreamedWeightsLeaveTheResidentSet) {
  TempDir dir;
  const std::size_t size = 32u << 20;
  std::vector<uint8_t> content(size);
  for (std::size_t i = 0; i < size; ++i)
    content[i] = static_cast<uint8_t>(i * 7);
  const std::string weights = dir.file("big.bin");
  writeFile(weights, content);
  content = {};

  auto mapped = MappedFile::open(weights);
  // Touch every page, as earlier passes reading the weights would.
  unsigned sum = 0;
  for (std::size_t i = 0; i < size; i += 4096)
    sum += static_cast<unsigned>(mapped->data()[i + 1]);
  EXPECT_GT(sum, 0u);
  ASSERT_GE(residentKiB(weights), 30L * 1024) << "the mapping should be resident before writing";

  auto view = std::make_shared<TensorData>();
  view->storage = Storage::fromMapped(mapped, 0, size);
  view->dtype = DType::UInt8;
  view->sizes = {static_cast<int64_t>(size)};
  view->strides = {1};
  CircleModel model = makeModel();
  const uint32_t index = model.addBuffer(view);
  writeCircleFile(model, dir.file("big.circle"));

  EXPECT_LT(residentKiB(weights), 1024L) << "streamed ranges are released from the resident set";
  const auto bytes = readFile(dir.file("big.circle"));
  ASSERT_TRUE(verifies(bytes));
  const int64_t offset = dataOffset(bytes, index);
  ASSERT_GE(offset, 0);
  ASSERT_EQ(bytes.size(), static_cast<std::size_t>(offset) + size);
  for (std::size_t i = 0; i < size; i += 4093)
    ASSERT_EQ(bytes[offset + i], static_cast<uint8_t>(i * 7)) << "byte " << i;
}

TEST(CircleWriter, StridedViewsAreMaterialisedRowMajor) {
  TempDir dir;
  // A 2x3 matrix [[0,1,2],[3,4,5]]; its transpose is a 3x2 view with strides {1, 3}.
  auto matrix = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  auto transposed = std::make_shared<TensorData>(*matrix);
  transposed->sizes = {3, 2};
  transposed->strides = {1, 3};
  ASSERT_FALSE(transposed->isContiguous());

  // The same transpose over a file-backed storage, plus a column slice with a step.
  std::vector<float> values = iota(12, 0.f); // 3x4 matrix
  writeFile(dir.file("m.bin"), floatBytes(values));
  auto mapped = Storage::fromMapped(MappedFile::open(dir.file("m.bin")), 0, 48);
  auto column = std::make_shared<TensorData>();
  column->storage = mapped;
  column->dtype = DType::Float32;
  column->sizes = {3, 2}; // columns 1 and 3 of each row
  column->strides = {4, 2};
  column->storage_offset = 1;

  for (bool external : {false, true}) {
    CircleModel model = makeModel();
    const uint32_t t = model.addBuffer(transposed);
    const uint32_t c = model.addBuffer(column);
    CircleWriteOptions options;
    options.force_external_buffers = external;
    const std::string out = dir.file("strided.circle");
    writeCircleFile(model, out, options);
    const auto bytes = readFile(out);
    ASSERT_TRUE(verifies(bytes));
    const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
    auto payloadOf = [&](uint32_t index) {
      const auto &buffer = *decoded->buffers[index];
      if (!external)
        return buffer.data;
      return std::vector<uint8_t>(bytes.begin() + buffer.offset, bytes.begin() + buffer.offset + buffer.size);
    };
    EXPECT_EQ(payloadOf(t), floatBytes({0, 3, 1, 4, 2, 5}));
    EXPECT_EQ(payloadOf(c), floatBytes({1, 3, 5, 7, 9, 11}));
  }
}

// bfloat16 weights of a mapped file, widened to float32 while they are written: a contiguous
// view larger than one conversion chunk and a transposed (strided) view, with the mapped pages
// released behind the conversion and the widened storage never converted in memory as a whole.
TEST(CircleWriter, WidenedPayloadsAreConvertedWhileStreaming) {
  TempDir dir;
  const std::size_t count = (12u << 20) + 3; // 24 MiB: three 4 Mi-element chunks and an odd tail
  std::vector<uint16_t> bf16(count);
  for (std::size_t i = 0; i < count; ++i)
    bf16[i] = static_cast<uint16_t>(0x3f80u + (i % 97)); // 1.0 and its bfloat16 neighbours
  std::vector<uint8_t> file_bytes(6, 0x11);                // an unaligned start
  const auto *raw = reinterpret_cast<const uint8_t *>(bf16.data());
  file_bytes.insert(file_bytes.end(), raw, raw + 2 * count);
  const std::string weights = dir.file("bf16.bin");
  writeFile(weights, file_bytes);
  file_bytes = {};

  auto mapped = MappedFile::open(weights);
  auto source = Storage::fromMapped(mapped, 6, 2 * count);
  auto widened = Storage::widenedToFloat32(source, DType::BFloat16);
  auto whole = std::make_shared<TensorData>();
  whole->storage = widened;
  whole->dtype = DType::Float32;
  whole->sizes = {static_cast<int64_t>(count)};
  whole->strides = {1};
  auto transposed = std::make_shared<TensorData>(*whole); // the first 6 elements as 2x3, transposed
  transposed->sizes = {3, 2};
  transposed->strides = {1, 3};

  CircleModel model = makeModel();
  const uint32_t whole_buffer = model.addBuffer(whole);
  const uint32_t transposed_buffer = model.addBuffer(transposed);
  CircleWriteOptions options;
  options.force_external_buffers = true;
  writeCircleFile(model, dir.file("widened.circle"), options);
  // Reading through the mapping (the conversion cannot use copy_file_range) may leave a page
  // cache folio or two mapped; what matters is that residency does not grow with the weights.
  EXPECT_LT(residentKiB(weights), 4096L) << "converted ranges are released from the resident set";

  const auto bytes = readFile(dir.file("widened.circle"));
  ASSERT_TRUE(verifies(bytes));
  const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
  auto floatsOf = [&](uint32_t index) {
    const auto &buffer = *decoded->buffers[index];
    std::vector<float> out(buffer.size / sizeof(float));
    std::memcpy(out.data(), bytes.data() + buffer.offset, buffer.size);
    return out;
  };
  auto expected = [&](std::size_t i) {
    const uint32_t bits = static_cast<uint32_t>(bf16[i]) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  const std::vector<float> all = floatsOf(whole_buffer);
  ASSERT_EQ(all.size(), count);
  for (std::size_t i = 0; i < count; i += 9973)
    ASSERT_EQ(all[i], expected(i)) << "element " << i;
  EXPECT_EQ(all[count - 1], expected(count - 1));
  EXPECT_EQ(floatsOf(transposed_buffer),
            (std::vector<float>{expected(0), expected(3), expected(1), expected(4), expected(2), expected(5)}));
  EXPECT_EQ(serializeCircle(model, options), bytes) << "memory and file writers agree";
}

// ---- encoding details -----------------------------------------------------------------------------

TEST(CircleWriter, OperatorCodesCarryLegacyAndFullCodes) {
  CircleModel model = makeModel(); // ADD, GELU, RMS_NORM
  model.operatorCodeIndex(circle::BuiltinOperator::CUMSUM);
  model.operatorCodeIndex(circle::BuiltinOperator::BATCH_MATMUL);
  model.operatorCodeIndex(circle::BuiltinOperator::ATTENTION);
  model.operatorCodeIndex(circle::BuiltinOperator::CUSTOM, "MyOp");
  model.operator_codes.back().version = 2;
  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  const auto *codes = circle::GetModel(bytes.data())->operator_codes();
  ASSERT_EQ(codes->size(), 7u);
  const std::vector<std::pair<int, int>> expected = {{0, 0},     {127, 150}, {-6, -6}, {127, 128},
                                                     {126, 126}, {-9, -9},   {32, 32}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(codes->Get(i)->deprecated_builtin_code(), expected[i].first) << "code " << i;
    EXPECT_EQ(static_cast<int>(codes->Get(i)->builtin_code()), expected[i].second) << "code " << i;
  }
  EXPECT_EQ(codes->Get(0)->custom_code(), nullptr);
  ASSERT_NE(codes->Get(6)->custom_code(), nullptr);
  EXPECT_EQ(codes->Get(6)->custom_code()->str(), "MyOp");
  EXPECT_EQ(codes->Get(6)->version(), 2);
  EXPECT_EQ(codes->Get(1)->version(), 1);
}

TEST(CircleWriter, ShapeSignatureIsWrittenOnlyWhenSet) {
  CircleModel model = makeModel();
  model.subgraphs[0].tensors[0].shape = {1, 4};
  model.subgraphs[0].tensors[0].shape_signature = {-1, 4};
  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  const auto *tensors = circle::GetModel(bytes.data())->subgraphs()->Get(0)->tensors();
  ASSERT_NE(tensors->Get(0)->shape_signature(), nullptr);
  EXPECT_EQ(std::vector<int32_t>(tensors->Get(0)->shape_signature()->begin(),
                                 tensors->Get(0)->shape_signature()->end()),
            (std::vector<int32_t>{-1, 4}));
  for (uint32_t t = 1; t < tensors->size(); ++t)
    EXPECT_EQ(tensors->Get(t)->shape_signature(), nullptr) << "tensor " << t;
}

TEST(CircleWriter, QuantizationSignaturesAndMetadataRoundTrip) {
  CircleModel model = makeModel();
  auto quant = std::make_shared<circle::QuantizationParametersT>();
  quant->scale = {0.5f, 0.25f, 0.125f, 2.f};
  quant->zero_point = {0, 1, -1, 3};
  quant->quantized_dimension = 0;
  circle::MXQuantizationT mx;
  mx.axis = 1;
  quant->details.Set(mx);
  model.subgraphs[0].tensors[1].quantization = quant;
  model.subgraphs[0].tensors[1].type = circle::TensorType::INT8;

  const uint32_t meta_buffer = model.addBuffer(std::make_shared<TensorData>(
      TensorData::fromVector<uint8_t>(DType::UInt8, {3}, {'a', 'b', 'c'})));
  model.metadata.push_back({"tico_version", meta_buffer});
  model.signatures.push_back({"serving_default", 0, {{"input_0", 0}}, {{"output_0", 5}}});

  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
  const auto &q = decoded->subgraphs[0]->tensors[1]->quantization;
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->scale, quant->scale);
  EXPECT_EQ(q->zero_point, quant->zero_point);
  EXPECT_TRUE(q->min.empty());
  ASSERT_NE(q->details.AsMXQuantization(), nullptr);
  EXPECT_EQ(q->details.AsMXQuantization()->axis, 1);
  EXPECT_EQ(decoded->subgraphs[0]->tensors[0]->quantization, nullptr);
  EXPECT_EQ(decoded->subgraphs[0]->tensors[1]->type, circle::TensorType::INT8);

  ASSERT_EQ(decoded->metadata.size(), 1u);
  EXPECT_EQ(decoded->metadata[0]->name, "tico_version");
  EXPECT_EQ(decoded->metadata[0]->buffer, meta_buffer);
  EXPECT_EQ(decoded->buffers[meta_buffer]->data, (std::vector<uint8_t>{'a', 'b', 'c'}));

  ASSERT_EQ(decoded->signature_defs.size(), 1u);
  const auto &sig = *decoded->signature_defs[0];
  EXPECT_EQ(sig.signature_key, "serving_default");
  EXPECT_EQ(sig.subgraph_index, 0u);
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0]->name, "input_0");
  EXPECT_EQ(sig.inputs[0]->tensor_index, 0u);
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(sig.outputs[0]->name, "output_0");
  EXPECT_EQ(sig.outputs[0]->tensor_index, 5u);
}

TEST(CircleWriter, EqualTensorsAcrossSubgraphsShareOneTable) {
  // A second subgraph that declares subgraph 0's tensors again (as an incremental region does)
  // references their tables; a tensor that differs in any field gets its own.
  CircleModel model = makeModel();
  auto quant = std::make_shared<circle::QuantizationParametersT>();
  quant->scale = {0.5f};
  quant->zero_point = {3};
  model.subgraphs[0].tensors[1].quantization = quant;
  model.subgraphs[0].tensors[1].type = circle::TensorType::UINT8;
  CircleSubGraph region = model.subgraphs[0];
  region.name = "region";
  region.tensors[2].shape.push_back(1); // differs from subgraph 0's tensor 2
  model.subgraphs.push_back(region);

  const auto bytes = serializeCircle(model);
  ASSERT_TRUE(verifies(bytes));
  const auto *subgraphs = circle::GetModel(bytes.data())->subgraphs();
  const auto *main = subgraphs->Get(0)->tensors();
  const auto *copy = subgraphs->Get(1)->tensors();
  ASSERT_EQ(main->size(), copy->size());
  for (uint32_t t = 0; t < main->size(); ++t)
    EXPECT_EQ(main->Get(t) == copy->Get(t), t != 2) << "tensor " << t;
  // Read back, every tensor is complete in both subgraphs.
  const std::unique_ptr<circle::ModelT> decoded(circle::GetModel(bytes.data())->UnPack());
  EXPECT_EQ(decoded->subgraphs[1]->tensors[1]->quantization->zero_point, (std::vector<int64_t>{3}));
  EXPECT_EQ(decoded->subgraphs[1]->tensors[2]->shape.size(), model.subgraphs[0].tensors[2].shape.size() + 1);
  EXPECT_EQ(decoded->subgraphs[1]->tensors[0]->name, model.subgraphs[0].tensors[0].name);
  // Smaller than with every table repeated: the region's copies cost their offsets only.
  CircleModel alone = makeModel();
  alone.subgraphs[0].tensors[1].quantization = quant;
  alone.subgraphs[0].tensors[1].type = circle::TensorType::UINT8;
  const std::size_t one = serializeCircle(alone).size();
  EXPECT_LT(bytes.size() - one, one / 2) << bytes.size() << " vs " << one;
}

TEST(CircleWriter, ModelWithoutSignaturesOrMetadataOmitsThem) {
  const auto bytes = serializeCircle(makeModel());
  const auto *root = circle::GetModel(bytes.data());
  EXPECT_EQ(root->signature_defs(), nullptr);
  EXPECT_EQ(root->metadata(), nullptr);
  EXPECT_EQ(root->metadata_buffer(), nullptr);
}

TEST(CircleWriter, LiteRtIdentifierAndVersionAreTakenAsGiven) {
  CircleModel model = makeModel();
  model.version = 3;
  CircleWriteOptions options;
  options.file_identifier = "TFL3";
  const auto bytes = serializeCircle(model, options);
  EXPECT_FALSE(verifies(bytes, "CIR0"));
  ASSERT_TRUE(verifies(bytes, "TFL3"));
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(bytes.data()) + 4, 4), "TFL3");
  EXPECT_EQ(circle::GetModel(bytes.data())->version(), 3u);

  options.file_identifier = "CIRCLE";
  EXPECT_THROW(serializeCircle(model, options), Error);
}

TEST(CircleWriter, OutputIsDeterministic) {
  TempDir dir;
  auto build = [] {
    CircleModel model = makeModel();
    auto quant = std::make_shared<circle::QuantizationParametersT>();
    quant->scale = {0.1f};
    quant->zero_point = {3};
    model.subgraphs[0].tensors[4].quantization = quant;
    model.addBuffer(std::make_shared<TensorData>(TensorData::fromVector<int8_t>(DType::Int8, {5}, {1, 2, 3, 4, 5})));
    return model;
  };
  for (bool external : {false, true}) {
    CircleWriteOptions options;
    options.force_external_buffers = external;
    const auto first = serializeCircle(build(), options);
    const auto second = serializeCircle(build(), options);
    EXPECT_EQ(first, second);
    writeCircleFile(build(), dir.file("a.circle"), options);
    writeCircleFile(build(), dir.file("b.circle"), options);
    EXPECT_EQ(readFile(dir.file("a.circle")), first);
    EXPECT_EQ(readFile(dir.file("b.circle")), first);
  }
}

TEST(CircleWriter, SerializeIntoCallerMemoryAllocatesOnceWithTheExactSize) {
  TempDir dir;
  for (bool external : {false, true}) {
    CircleModel model = makeModel();
    model.addBuffer(floats({300}, iota(300, 0.5f)));
    CircleWriteOptions options;
    options.force_external_buffers = external;
    writeCircleFile(model, dir.file("m.circle"), options);
    const auto expected = readFile(dir.file("m.circle"));
    std::vector<uint8_t> target;
    int calls = 0;
    serializeCircleInto(model, [&](std::size_t size) {
      ++calls;
      target.assign(size, 0xEE);
      return reinterpret_cast<std::byte *>(target.data());
    }, options);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(target, expected) << (external ? "external" : "inline");
  }
}

TEST(CircleWriter, SerializeIntoChecksTheModelBeforeAskingForMemory) {
  CircleModel broken = makeModel();
  broken.subgraphs[0].tensors[0].buffer = 99;
  bool asked = false;
  EXPECT_THROW(serializeCircleInto(broken, [&](std::size_t) {
    asked = true;
    return static_cast<std::byte *>(nullptr);
  }), Error);
  EXPECT_FALSE(asked);
  // An allocator that gives up abandons the write with its own exception.
  EXPECT_THROW(serializeCircleInto(makeModel(), [](std::size_t) -> std::byte * { throw std::runtime_error("no"); }),
               std::runtime_error);
}

// ---- validation -------------------------------------------------------------------------------------

TEST(CircleWriter, BrokenModelsAreRejectedWithAClearMessage) {
  auto expectError = [](const CircleModel &model, const std::string &needle) {
    try {
      serializeCircle(model);
      ADD_FAILURE() << "expected an error mentioning '" << needle << "'";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  {
    CircleModel model = makeModel();
    model.subgraphs[0].tensors[1].buffer = 42;
    expectError(model, "tensor 1 'w' uses buffer 42");
  }
  {
    CircleModel model = makeModel();
    model.subgraphs[0].operators[1].opcode_index = 9;
    expectError(model, "operator 1 uses operator code 9");
  }
  {
    CircleModel model = makeModel();
    model.subgraphs[0].operators[0].inputs = {0, 17};
    expectError(model, "refers to tensor 17");
  }
  {
    CircleModel model = makeModel();
    model.buffers[0].data = floats({1}, {1.f});
    expectError(model, "buffer 0 is the empty sentinel");
  }
  {
    CircleModel model = makeModel();
    auto view = std::make_shared<TensorData>(*floats({4}, {1, 2, 3, 4}));
    view->sizes = {8}; // reaches past its 4-element storage
    view->strides = {1};
    model.addBuffer(view);
    expectError(model, "payload of buffer 3");
  }
  {
    CircleModel model = makeModel();
    model.subgraphs[0].operators[0].inputs = {-1, 1}; // an omitted optional input is fine
    EXPECT_NO_THROW(serializeCircle(model));
  }
}

// ---- atomicity ---------------------------------------------------------------------------------------

TEST(CircleWriter, WritesReplaceTheDestinationWithReadablePermissions) {
  TempDir dir;
  const std::string out = dir.file("model.circle");
  writeFile(out, {1, 2, 3});
  ::chmod(out.c_str(), 0640);
  const CircleModel model = makeModel();
  writeCircleFile(model, out);
  EXPECT_EQ(readFile(out), serializeCircle(model));
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "an existing file keeps its mode";

  const mode_t old_mask = ::umask(022);
  writeCircleFile(model, dir.file("fresh.circle"));
  ::umask(old_mask);
  ASSERT_EQ(::stat(dir.file("fresh.circle").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "a new file gets 0666 minus the umask, not mkstemp's 0600";
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"fresh.circle", "model.circle"}));
}

TEST(CircleWriter, MissingDirectoryFailsWithTheReasonAndPath) {
  TempDir dir;
  const std::string out = dir.file("no/such/dir/model.circle");
  try {
    writeCircleFile(makeModel(), out);
    FAIL() << "expected tico::Error";
  } catch (const Error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(out), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CircleWriter, UnwritableDestinationLeavesNoTemporaryFile) {
  TempDir dir;
  // A directory at the destination makes the final rename fail after all bytes were written.
  fs::create_directory(dir.file("model.circle"));
  writeFile(dir.file("model.circle/keep"), {9});
  try {
    writeCircleFile(makeModel(), dir.file("model.circle"));
    FAIL() << "expected tico::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(dir.file("model.circle")), std::string::npos) << e.what();
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.circle"});
  EXPECT_EQ(readFile(dir.file("model.circle/keep")), std::vector<uint8_t>{9});
}

TEST(CircleWriter, FailureWhileStreamingKeepsTheExistingFile) {
  TempDir dir;
  const std::string out = dir.file("model.circle");
  const std::vector<uint8_t> original = {'o', 'l', 'd', 0, 1, 2, 3};
  writeFile(out, original);

  // The weight file shrinks after it was mapped: the metadata and the first payloads are
  // already in the temporary file when streaming this buffer fails.
  const std::string weights = dir.file("weights.bin");
  writeFile(weights, std::vector<uint8_t>(1 << 16, 0x5A));
  auto storage = Storage::fromMapped(MappedFile::open(weights), 0, 1 << 16);
  ASSERT_EQ(::truncate(weights.c_str(), 0), 0);
  auto view = std::make_shared<TensorData>();
  view->storage = storage;
  view->dtype = DType::UInt8;
  view->sizes = {1 << 16};
  view->strides = {1};

  for (bool external : {false, true}) {
    CircleModel model = makeModel();
    model.addBuffer(view);
    CircleWriteOptions options;
    options.force_external_buffers = external;
    try {
      writeCircleFile(model, out, options);
      FAIL() << "expected tico::Error";
    } catch (const Error &e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(out), std::string::npos) << message;
      EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    }
    EXPECT_EQ(readFile(out), original);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.circle", "weights.bin"}));
  }

  // A view reaching outside its storage is caught before anything is created.
  CircleModel bad = makeModel();
  auto outside = std::make_shared<TensorData>(*floats({2}, {1, 2}));
  outside->storage_offset = 1;
  bad.addBuffer(outside);
  EXPECT_THROW(writeCircleFile(bad, out), Error);
  EXPECT_EQ(readFile(out), original);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.circle", "weights.bin"}));
}

} // namespace
} // namespace tico
