// The .pt2 frontend on an archive image in memory (Frontend::loadBytes, what the Python
// package uses): the same graph as from the file, weights as views of the caller's buffer that
// the graph keeps alive, errors named after the given name, and the driver's choice of frontend.
#include "pt2/torch_op_table.h"
#include "pt2_test_support.h"

#include "tico/ir/text.h"
#include "tico/pipeline/driver.h"
#include "tico/plugin/loader.h"

using namespace pt2test;

namespace {

// The bytes of a file as a caller-owned buffer, and a Storage viewing it in place.
struct Buffer {
  std::shared_ptr<std::vector<std::byte>> bytes;
  std::shared_ptr<const tico::Storage> storage;
};

Buffer bufferOf(const std::string &text) {
  Buffer b;
  b.bytes = std::make_shared<std::vector<std::byte>>(text.size());
  if (!text.empty()) // memcpy from/to the null data() of an empty vector is undefined
    std::memcpy(b.bytes->data(), text.data(), text.size());
  b.storage = tico::Storage::fromExternal(b.bytes->data(), b.bytes->size(), b.bytes);
  return b;
}

std::unique_ptr<tico::Graph> loadBytes(const Buffer &b, const std::string &name) {
  return tico::pt2::Pt2Frontend().loadBytes(b.storage, name, tico::pt2::torchOpSchemas());
}

bool inside(const Buffer &b, const std::byte *p) { return p >= b.bytes->data() && p < b.bytes->data() + b.bytes->size(); }

} // namespace

class Pt2MemoryFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Pt2MemoryFixture, SameGraphAsFromTheFile) {
  PT2_REQUIRE_FIXTURES();
  const std::string path = fixture(GetParam());
  const Buffer b = bufferOf(readFile(path));
  auto from_file = load(path);
  auto from_memory = loadBytes(b, "in-memory.pt2");
  EXPECT_EQ(tico::printGraph(*from_memory), tico::printGraph(*from_file));
  auto payloads = [](const tico::Graph &graph) {
    std::vector<std::pair<std::string, std::shared_ptr<const tico::TensorData>>> out;
    for (const tico::GraphInput &input : graph.inputs())
      if (input.value != nullptr)
        if (const auto &data = input.value->constant(); data && data->nbytes() > 0)
          out.emplace_back(input.target, data);
    return out;
  };
  const auto in_memory = payloads(*from_memory);
  ASSERT_EQ(in_memory.size(), payloads(*from_file).size());
  for (const auto &[target, data] : in_memory) {
    EXPECT_EQ(data->storage->file(), nullptr) << target << " must not claim a file";
    EXPECT_TRUE(inside(b, data->data())) << target << " is not a view of the caller's buffer";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Pt2MemoryFixture,
                         ::testing::Values("linear", "conv", "tied", "dynamic", "buffers", "multi_output", "defaults"));

TEST(Pt2Memory, TiedWeightsShareOneViewOfTheBuffer) {
  PT2_REQUIRE_FIXTURES();
  const Buffer b = bufferOf(readFile(fixture("tied")));
  auto graph = loadBytes(b, "tied");
  const auto &emb = graph->findValue("p_emb_weight")->constant();
  const auto &head = graph->findValue("p_head_weight")->constant();
  ASSERT_TRUE(emb && head);
  EXPECT_EQ(emb->storage, head->storage);
  EXPECT_TRUE(emb->sameView(*head));
  const auto &scale = graph->findValue("p_scale")->constant();
  const auto &shift = graph->findValue("p_shift")->constant();
  EXPECT_EQ(shift->data(), scale->data() + 4 * sizeof(float));
}

TEST(Pt2Memory, TheGraphKeepsTheBufferAlive) {
  PT2_REQUIRE_FIXTURES();
  Buffer b = bufferOf(readFile(fixture("linear")));
  std::weak_ptr<std::vector<std::byte>> watch = b.bytes;
  auto graph = loadBytes(b, "linear");
  const std::vector<std::byte> expected(b.bytes->begin(), b.bytes->end());
  b = Buffer{}; // the caller lets go
  ASSERT_FALSE(watch.expired()) << "constants still view the buffer";
  const auto &weight = graph->findValue("p_fc_weight")->constant();
  ASSERT_TRUE(weight);
  const auto *base = watch.lock()->data();
  EXPECT_EQ(std::memcmp(weight->data(), expected.data() + (weight->data() - base), weight->nbytes()), 0);
  graph.reset();
  EXPECT_TRUE(watch.expired()) << "the buffer is released with the last view";
}

TEST(Pt2Memory, ErrorsNameTheGivenName) {
  EXPECT_THROW(
      {
        try {
          loadBytes(bufferOf("PK\x03\x04 not a zip"), "ExportedProgram");
        } catch (const tico::Error &e) {
          EXPECT_STARTS_WITH(std::string(e.what()), "ExportedProgram: ");
          throw;
        }
      },
      tico::Error);
  // Truncating a real archive anywhere fails cleanly, as it does for files.
  PT2_REQUIRE_FIXTURES();
  const std::string whole = readFile(fixture("linear"));
  for (std::size_t size : {std::size_t{0}, std::size_t{22}, whole.size() / 2, whole.size() - 1})
    EXPECT_THROW(loadBytes(bufferOf(whole.substr(0, size)), "cut"), tico::Error) << size;
}

namespace {
class FileOnlyFrontend : public tico::Frontend {
public:
  std::unique_ptr<tico::Graph> load(const std::string &, const tico::OpSchemaRegistry &) override { return nullptr; }
};
} // namespace

TEST(Pt2Memory, FrontendsThatReadOnlyFilesSaySo) {
  FileOnlyFrontend frontend;
  try {
    frontend.loadBytes(bufferOf("x").storage, "model.onnx", tico::pt2::torchOpSchemas());
    FAIL() << "no error";
  } catch (const tico::Error &e) {
    EXPECT_EQ(std::string(e.what()), "model.onnx: this frontend reads models only from files, not from memory");
  }
}

TEST(Pt2Memory, DriverPicksTheFrontendByNameOrExtension) {
  PT2_REQUIRE_FIXTURES();
  tico::PluginSet plugins;
  tico::Registry registry;
  plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", registry);
  const Buffer b = bufferOf(readFile(fixture("linear")));
  auto by_name = tico::loadModel(registry, b.storage, "program", "pt2");
  auto by_extension = tico::loadModel(registry, b.storage, "program.pt2");
  EXPECT_EQ(tico::printGraph(*by_name), tico::printGraph(*by_extension));
  EXPECT_EQ(by_name->schemas(), &registry.schemas());
  try {
    tico::loadModel(registry, b.storage, "program", "onnx");
    FAIL() << "no error";
  } catch (const tico::Error &e) {
    EXPECT_EQ(std::string(e.what()), "no frontend called 'onnx' is loaded (needed to read 'program')");
  }
  EXPECT_THROW(tico::loadModel(registry, b.storage, "program.bin"), tico::Error);
}
