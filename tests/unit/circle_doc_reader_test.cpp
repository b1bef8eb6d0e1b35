// The Circle reader: write/read round trips (one and several subgraphs, signatures, metadata,
// payloads after the FlatBuffer, beyond 2 GiB), zero-copy payloads, and clean errors for
// malformed files.
#include "circle_doc_test_support.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tico {
namespace {

using namespace circle_doc_test;
namespace fs = std::filesystem;

class CircleDocReader : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tico_circle_doc_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string &name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::shared_ptr<const Storage> bytesOf(const std::vector<uint8_t> &bytes) {
  std::vector<std::byte> copy(bytes.size());
  if (!bytes.empty())
    std::memcpy(copy.data(), bytes.data(), bytes.size());
  return Storage::fromBytes(std::move(copy));
}

std::vector<float> floatsOf(const TensorData &data) {
  const auto bytes = data.contiguousBytes();
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

void expectSameModel(const CircleModel &a, const CircleModel &b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.description, b.description);
  ASSERT_EQ(a.operator_codes.size(), b.operator_codes.size());
  for (std::size_t c = 0; c < a.operator_codes.size(); ++c) {
    EXPECT_EQ(a.operator_codes[c].builtin_code, b.operator_codes[c].builtin_code);
    EXPECT_EQ(a.operator_codes[c].custom_code, b.operator_codes[c].custom_code);
  }
  ASSERT_EQ(a.subgraphs.size(), b.subgraphs.size());
  for (std::size_t s = 0; s < a.subgraphs.size(); ++s) {
    const auto &x = a.subgraphs[s], &y = b.subgraphs[s];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
    ASSERT_EQ(x.tensors.size(), y.tensors.size());
    for (std::size_t t = 0; t < x.tensors.size(); ++t) {
      EXPECT_EQ(x.tensors[t].name, y.tensors[t].name);
      EXPECT_EQ(x.tensors[t].shape, y.tensors[t].shape);
      EXPECT_EQ(x.tensors[t].shape_signature, y.tensors[t].shape_signature);
      EXPECT_EQ(x.tensors[t].type, y.tensors[t].type);
      EXPECT_EQ(x.tensors[t].buffer, y.tensors[t].buffer);
    }
    ASSERT_EQ(x.operators.size(), y.operators.size());
    for (std::size_t o = 0; o < x.operators.size(); ++o) {
      EXPECT_EQ(x.operators[o].opcode_index, y.operators[o].opcode_index);
      EXPECT_EQ(x.operators[o].inputs, y.operators[o].inputs);
      EXPECT_EQ(x.operators[o].outputs, y.operators[o].outputs);
      EXPECT_EQ(x.operators[o].builtin_options.type, y.operators[o].builtin_options.type);
    }
  }
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    const auto &x = a.buffers[i].data, &y = b.buffers[i].data;
    ASSERT_EQ(x ? x->nbytes() : 0, y ? y->nbytes() : 0) << "buffer " << i;
    if (x && x->nbytes() > 0)
      EXPECT_EQ(x->contiguousBytes(), y->contiguousBytes()) << "buffer " << i;
  }
  ASSERT_EQ(a.signatures.size(), b.signatures.size());
  for (std::size_t k = 0; k < a.signatures.size(); ++k) {
    EXPECT_EQ(a.signatures[k].key, b.signatures[k].key);
    EXPECT_EQ(a.signatures[k].subgraph_index, b.signatures[k].subgraph_index);
    ASSERT_EQ(a.signatures[k].outputs.size(), b.signatures[k].outputs.size());
    for (std::size_t i = 0; i < a.signatures[k].outputs.size(); ++i) {
      EXPECT_EQ(a.signatures[k].outputs[i].name, b.signatures[k].outputs[i].name);
      EXPECT_EQ(a.signatures[k].outputs[i].tensor_index, b.signatures[k].outputs[i].tensor_index);
    }
  }
  EXPECT_EQ(a.metadata, b.metadata);
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST_F(CircleDocReader, RoundTripKeepsEverything) {
  CircleModel model = linearModel();
  model.metadata.emplace_back("min_runtime_version", model.addBuffer(floatData({2}, {1.0f, 2.0f})));
  writeCircleFile(model, path("m.circle"));
  const CircleModel read = readCircleFile(path("m.circle"));
  expectSameModel(model, read);
  EXPECT_TRUE(verifyCircleModel(read).empty());
  EXPECT_EQ(floatsOf(*read.buffers[1].data), (std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f}));
}

TEST_F(CircleDocReader, PayloadsAreViewsOfTheMapping) {
  writeCircleFile(linearModel(), path("m.circle"));
  const CircleModel read = readCircleFile(path("m.circle"));
  const auto &data = read.buffers[1].data;
  ASSERT_TRUE(data);
  ASSERT_NE(data->storage->file(), nullptr) << "payload was copied instead of mapped";
  EXPECT_EQ(data->storage->file()->path(), path("m.circle"));
  EXPECT_EQ(data->storage_offset % 16, 0) << "payloads are 16-byte aligned in the file";
}

TEST_F(CircleDocReader, SaveOfAReadModelIsByteIdentical) {
  const auto first = serializeCircle(controlFlowModel());
  const CircleModel read = readCircleBytes(bytesOf(first), "cf.circle");
  EXPECT_EQ(serializeCircle(read), first);
}

TEST_F(CircleDocReader, MultiSubgraphRoundTripKeepsControlFlow) {
  const CircleModel model = controlFlowModel();
  writeCircleFile(model, path("cf.circle"));
  const CircleModel read = readCircleFile(path("cf.circle"));
  expectSameModel(model, read);
  const auto *options = read.subgraphs[0].operators[0].builtin_options.AsIfOptions();
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(options->then_subgraph_index, 1);
  EXPECT_EQ(options->else_subgraph_index, 2);
  EXPECT_EQ(read.subgraphs[2].name, "else");
}

TEST_F(CircleDocReader, ExternalPayloadsAfterTheFlatBuffer) {
  CircleModel model = linearModel();
  model.addBuffer(floatData({3}, {7.0f, 8.0f, 9.0f}));
  model.subgraphs[0].tensors.push_back(tensor("v", {3}, 2));
  model.subgraphs[0].outputs.push_back(5);
  CircleWriteOptions options;
  options.force_external_buffers = true;
  writeCircleFile(model, path("ext.circle"), options);

  // The raw file: buffers carry offset/size and no inline data, and the payload lies after the
  // FlatBuffer region.
  std::ifstream in(path("ext.circle"), std::ios::binary);
  const std::vector<uint8_t> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto *root = circle::GetModel(raw.data());
  const auto *buffer = root->buffers()->Get(2);
  EXPECT_GT(buffer->offset(), 1u);
  EXPECT_EQ(buffer->size(), 12u);
  EXPECT_TRUE(!buffer->data() || buffer->data()->size() == 0);
  EXPECT_EQ(buffer->offset() % 16, 0u);

  const CircleModel read = readCircleFile(path("ext.circle"));
  expectSameModel(model, read);
  EXPECT_EQ(floatsOf(*read.buffers[2].data), (std::vector<float>{7.0f, 8.0f, 9.0f}));
  EXPECT_EQ(static_cast<uint64_t>(read.buffers[2].data->storage_offset), buffer->offset());
  EXPECT_TRUE(verifyCircleModel(read).empty());
}

TEST_F(CircleDocReader, PayloadBeyondTwoGiB) {
  // A sparse file: the FlatBuffer, a hole, and one payload starting past 2^31 bytes, where no
  // FlatBuffer offset can reach; only Buffer.offset/size can (the >2 GiB layout).
  circle::ModelT model;
  circle::GetModel(packUnchecked(linearModel()).data())->UnPackTo(&model);
  const uint64_t far = (uint64_t{1} << 31) + 4096;
  model.buffers[1]->data.clear();
  model.buffers[1]->offset = far;
  model.buffers[1]->size = 16;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(circle::Model::Pack(builder, &model), "CIR0");
  const std::string file = path("big.circle");
  const int fd = ::open(file.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, builder.GetBufferPointer(), builder.GetSize(), 0), static_cast<ssize_t>(builder.GetSize()));
  const float values[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  ASSERT_EQ(::pwrite(fd, values, sizeof values, static_cast<off_t>(far)), static_cast<ssize_t>(sizeof values));
  ::close(fd);
  ASSERT_GT(fs::file_size(file), uint64_t{1} << 31);

  const CircleModel read = readCircleFile(file);
  EXPECT_EQ(floatsOf(*read.buffers[1].data), (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
  EXPECT_TRUE(verifyCircleModel(read).empty());

  // Saved again: the writer picks its layout from the payload size, and the data survives.
  writeCircleFile(read, path("small.circle"));
  EXPECT_EQ(floatsOf(*readCircleFile(path("small.circle")).buffers[1].data),
            (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
}

TEST_F(CircleDocReader, EveryTruncationIsACleanError) {
  CircleModel model = controlFlowModel();
  model.signatures.push_back({"sig", 0, {{"c", 0}, {"x", 1}}, {{"y", 2}}});
  const auto bytes = serializeCircle(model);
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    try {
      readCircleBytes(bytesOf(prefix), "cut.circle");
      // A prefix may still be a complete FlatBuffer only if nothing it needs was cut off.
      ADD_FAILURE() << "a " << size << "-byte prefix of a " << bytes.size() << "-byte model was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()).rfind("cut.circle: ", 0), 0u) << e.what();
    }
  }
}

TEST_F(CircleDocReader, FlippedBytesNeverCrash) {
  const auto bytes = serializeCircle(controlFlowModel());
  std::size_t accepted = 0, rejected = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      auto copy = bytes;
      copy[i] ^= flip;
      try {
        CircleReadOptions options;
        options.check_indices = (i % 2) == 0;
        const CircleModel m = readCircleBytes(bytesOf(copy), "flip.circle", options);
        verifyCircleModel(m); // must not crash on whatever was accepted
        ++accepted;
      } catch (const Error &) {
        ++rejected;
      }
    }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u); // flips inside payloads and names are legal files
}

TEST_F(CircleDocReader, MalformedFilesNameTheProblem) {
  EXPECT_NE(errorOf([&] { readCircleBytes(bytesOf({}), "empty.circle"); }).find("too short"), std::string::npos);
  auto tflite = serializeCircle(linearModel());
  std::memcpy(tflite.data() + 4, "TFL3", 4);
  EXPECT_NE(errorOf([&] { readCircleBytes(bytesOf(tflite), "m.tflite"); }).find("TFLite"), std::string::npos);
  std::vector<uint8_t> garbage(64, 0xAB);
  std::memcpy(garbage.data() + 4, "CIR0", 4);
  EXPECT_NE(errorOf([&] { readCircleBytes(bytesOf(garbage), "g.circle"); }).find("does not verify"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { readCircleFile(path("missing.circle")); }).find("missing.circle"), std::string::npos);
  std::ofstream(path("zero.circle")).close();
  EXPECT_NE(errorOf([&] { readCircleFile(path("zero.circle")); }), "");
}

TEST_F(CircleDocReader, PlaceholderOffsetIsRejected) {
  circle::ModelT model;
  circle::GetModel(packUnchecked(linearModel()).data())->UnPackTo(&model);
  model.buffers[1]->data.clear();
  model.buffers[1]->offset = 1;
  model.buffers[1]->size = 1;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(circle::Model::Pack(builder, &model), "CIR0");
  const std::vector<uint8_t> bytes(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  const std::string message = errorOf([&] { readCircleBytes(bytesOf(bytes), "p.circle"); });
  EXPECT_NE(message.find("model.buffers[1]"), std::string::npos) << message;
  EXPECT_NE(message.find("placeholder"), std::string::npos) << message;
}

TEST_F(CircleDocReader, UncheckedIndicesAreLeftToTheVerifier) {
  CircleModel broken = linearModel();
  broken.subgraphs[0].operators[2].inputs[0] = 77;
  const auto bytes = packUnchecked(broken);
  const std::string message = errorOf([&] { readCircleBytes(bytesOf(bytes), "b.circle"); });
  EXPECT_NE(message.find("b.circle: model.subgraphs[0].operators[2].inputs[0]"), std::string::npos) << message;
  CircleReadOptions options;
  options.check_indices = false;
  const CircleModel read = readCircleBytes(bytesOf(bytes), "b.circle", options);
  EXPECT_EQ(read.subgraphs[0].operators[2].inputs[0], 77);
}

// Found by the circle-reader fuzzer: a zero_point vector whose 64-bit elements start on a
// 4-byte boundary passes the FlatBuffers verifier; reading it would be a misaligned load.
TEST_F(CircleDocReader, MisalignedZeroPointsAreADamagedFile) {
  std::ifstream in(std::string(TICO_SOURCE_DIR) + "/tests/fuzz/corpus/circle-reader/regress-misaligned-zero-point.circle",
                   std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  const std::string message = errorOf([&] { readCircleBytes(bytesOf(bytes), "z.circle"); });
  EXPECT_NE(message.find("z.circle: "), std::string::npos) << message;
  EXPECT_NE(message.find(".quantization.zero_point: the 64-bit zero points are not 8-byte aligned"), std::string::npos)
      << message;
}

} // namespace
} // namespace tico
