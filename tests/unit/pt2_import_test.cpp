// Real archives exported by the installed PyTorch (tests/data/pt2/make_fixtures.py), checked
// against what torch.export.load reads back from the same files (fixtures.json).
#include "pt2_test_support.h"

#include <map>

using namespace pt2test;

namespace {

tico::InputKind inputKind(const std::string &kind) {
  if (kind == "user")
    return tico::InputKind::User;
  if (kind == "parameter")
    return tico::InputKind::Parameter;
  if (kind == "buffer")
    return tico::InputKind::Buffer;
  return tico::InputKind::Constant;
}

std::string shapeText(const Json &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + (shape[i].is_string() ? shape[i].get<std::string>() : std::to_string(shape[i].get<int64_t>()));
  return out + "]";
}

const tico::Node *producerOf(const tico::Graph &graph, const std::string &value) {
  const tico::Value *v = graph.findValue(value);
  return v ? v->producer() : nullptr;
}

} // namespace

class Pt2Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Pt2Fixture, MatchesWhatTorchReadsBack) {
  PT2_REQUIRE_FIXTURES();
  const Json info = fixtureInfo()["fixtures"][GetParam()];
  const std::string path = (fixtureDir() / info["file"].get<std::string>()).string();
  auto graph = load(path);
  EXPECT_NO_THROW(graph->verify());

  // Signature inputs, in order, with their kinds and targets.
  std::vector<const tico::GraphInput *> inputs;
  for (const auto &in : graph->inputs())
    inputs.push_back(&in);
  ASSERT_EQ(inputs.size(), info["inputs"].size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Json &want = info["inputs"][i];
    SCOPED_TRACE(want.dump());
    EXPECT_EQ(inputs[i]->value->name(), want["name"]);
    EXPECT_EQ(inputs[i]->kind, inputKind(want["kind"]));
    EXPECT_EQ(inputs[i]->target, want["target"]);
    EXPECT_EQ(inputs[i]->value->isConstant(), want["kind"] != "user");
  }

  // Every tensor torch knows the type of has the same name, dtype and shape here.
  for (const auto &[name, want] : info["values"].items()) {
    SCOPED_TRACE(name);
    const tico::Value *v = graph->findValue(name);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(tico::torchDTypeName(v->dtype()), want["dtype"].get<std::string>());
    EXPECT_EQ(tico::shapeString(v->shape()), shapeText(want["shape"]));
  }

  // Saved tensors: same view, same bytes, and mapped from the archive rather than copied.
  auto file = tico::MappedFile::open(path);
  for (const auto &in : graph->inputs()) {
    if (!in.value || !in.value->isConstant())
      continue;
    SCOPED_TRACE(in.target);
    const Json &want = info["tensors"][in.target];
    const tico::TensorData &data = *in.value->constant();
    EXPECT_EQ(data.sizes, want["sizes"].get<std::vector<int64_t>>());
    EXPECT_EQ(data.strides, want["strides"].get<std::vector<int64_t>>());
    EXPECT_EQ(data.storage_offset, want["storage_offset"].get<int64_t>());
    EXPECT_EQ(tico::torchDTypeName(data.dtype), want["dtype"].get<std::string>());
    const std::string expected = readFile(fixtureDir() / want["bin"].get<std::string>());
    const auto bytes = data.contiguousBytes();
    ASSERT_EQ(bytes.size(), expected.size());
    EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), bytes.size()), 0);
    ASSERT_NE(data.storage->file(), nullptr);
    EXPECT_EQ(data.storage->file()->path(), path);
    EXPECT_EQ(data.storage->fileOffset() % 64, 0u) << "torch aligns payloads; the view starts at the entry";
  }

  // Outputs in order.
  std::vector<std::string> outputs;
  for (const auto &out : graph->outputs())
    outputs.push_back(out.value.asValue()->name());
  EXPECT_EQ(outputs, info["user_outputs"].get<std::vector<std::string>>());

  // Range constraints.
  for (const auto &[symbol, range] : info["ranges"].items()) {
    ASSERT_TRUE(graph->symbols().count(symbol)) << symbol;
    EXPECT_EQ(graph->symbols().at(symbol).min, range[0].get<int64_t>());
    if (range[1].is_null())
      EXPECT_FALSE(graph->symbols().at(symbol).max.has_value());
    else
      EXPECT_EQ(graph->symbols().at(symbol).max, range[1].get<int64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Pt2Fixture,
                         ::testing::Values("linear", "conv", "tied", "dynamic", "buffers", "multi_output", "defaults",
                                           "shapes"));

TEST(Pt2Import, LinearNodeAndMetadata) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("linear"));
  ASSERT_EQ(graph->numNodes(), 1u);
  const tico::Node &node = *graph->nodes().front();
  EXPECT_EQ(node.name(), "linear");
  EXPECT_EQ(node.op(), tico::OpKey("aten", "linear", "default"));
  EXPECT_EQ(node.input("input"), graph->findValue("x"));
  EXPECT_EQ(node.input("weight"), graph->findValue("p_fc_weight"));
  EXPECT_EQ(node.input("bias"), graph->findValue("p_fc_bias"));
  EXPECT_NE(node.meta().at("stack_trace").find("make_fixtures.py"), std::string::npos);
  EXPECT_NE(node.meta().at("nn_module_stack").find("torch.nn.modules.linear.Linear"), std::string::npos);
}

TEST(Pt2Import, ConvDefaultsAreFilled) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("conv"));
  const tico::Node *conv = nullptr;
  for (const auto &n : graph->nodes())
    if (n->op().name == "conv2d")
      conv = n.get();
  ASSERT_NE(conv, nullptr);
  ASSERT_NE(conv->schema(), nullptr);
  EXPECT_EQ(conv->numArgs(), conv->schema()->arguments.size());
  EXPECT_EQ(conv->arg("padding").asInts(), (std::vector<int64_t>{1, 1}));
  // Omitted in the file, filled from the schema:
  EXPECT_EQ(conv->arg("stride").asInts(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->arg("dilation").asInts(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->arg("groups").asInt(), 1);
}

TEST(Pt2Import, TiedWeightsShareOneStorage) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("tied"));
  const auto &emb = graph->findValue("p_emb_weight")->constant();
  const auto &head = graph->findValue("p_head_weight")->constant();
  ASSERT_TRUE(emb && head);
  EXPECT_EQ(emb->storage, head->storage);
  EXPECT_TRUE(emb->sameView(*head));

  // Two parameters sliced from one tensor: one file, two views, the second at an offset.
  const auto &scale = graph->findValue("p_scale")->constant();
  const auto &shift = graph->findValue("p_shift")->constant();
  EXPECT_EQ(scale->storage, shift->storage);
  EXPECT_FALSE(scale->sameView(*shift));
  EXPECT_EQ(shift->storage_offset, 4);
  EXPECT_EQ(shift->data(), scale->data() + 4 * sizeof(float));
}

TEST(Pt2Import, DynamicBatch) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("dynamic"));
  const tico::Value *x = graph->findValue("x");
  ASSERT_EQ(x->rank(), 3);
  const tico::Dim &batch = x->shape()[0];
  ASSERT_TRUE(batch.isSymbolic());
  EXPECT_EQ(batch.value(), 2) << "the hint is the example batch";
  ASSERT_TRUE(graph->symbols().count(batch.expr()));
  EXPECT_EQ(graph->symbols().at(batch.expr()).min, 1);
  EXPECT_EQ(graph->symbols().at(batch.expr()).max, 64);

  // reshape(x.shape[0], -1) reads the batch through sym_size.int, a SymInt value.
  const tico::Node *reshape = producerOf(*graph, "reshape");
  ASSERT_NE(reshape, nullptr);
  const tico::Argument &shape = reshape->arg("shape");
  ASSERT_EQ(shape.kind(), tico::Argument::Kind::SymIntList);
  const tico::Value *size = shape.asSymInts()[0].sym;
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->kind(), tico::ValueKind::SymInt);
  EXPECT_EQ(size->symExpr(), batch.expr());
  EXPECT_EQ(size->symHint(), 2);
  EXPECT_EQ(size->producer()->op(), tico::OpKey("aten", "sym_size", "int"));
  EXPECT_EQ(shape.asSymInts()[1].value, -1);
}

TEST(Pt2Import, BuffersAndConstants) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("buffers"));
  std::map<std::string, const tico::GraphInput *> by_target;
  for (const auto &in : graph->inputs())
    by_target[in.target] = &in;
  EXPECT_EQ(by_target.at("scale")->kind, tico::InputKind::Buffer);
  EXPECT_EQ(by_target.at("shift")->kind, tico::InputKind::Buffer); // non-persistent: from data/constants
  EXPECT_TRUE(by_target.at("scale")->persistent);
  EXPECT_FALSE(by_target.at("shift")->persistent);
  EXPECT_EQ(by_target.at("offsets")->kind, tico::InputKind::Constant);
  for (const char *fqn : {"scale", "shift", "offsets"})
    EXPECT_TRUE(by_target.at(fqn)->value->isConstant()) << fqn;
}

TEST(Pt2Import, MultiOutputOps) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("multi_output"));
  const tico::Node *max = producerOf(*graph, "getitem");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->op(), tico::OpKey("aten", "max", "dim"));
  ASSERT_EQ(max->numOutputs(), 2u);
  EXPECT_EQ(max->output(1)->name(), "getitem_1");
  EXPECT_EQ(max->output(1)->dtype(), tico::DType::Int64);
  EXPECT_EQ(max->arg("keepdim").asBool(), false) << "default filled";

  // A Tensor[] return becomes consecutive outputs.
  const tico::Node *split = producerOf(*graph, "getitem_2");
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->op().name, "split_with_sizes");
  ASSERT_EQ(split->numOutputs(), 2u);
  EXPECT_EQ(split->output(1)->name(), "getitem_3");
  EXPECT_EQ(split->arg("split_sizes").asInts(), (std::vector<int64_t>{1, 3}));
}

TEST(Pt2Import, KeywordAndDefaultArguments) {
  PT2_REQUIRE_FIXTURES();
  auto graph = load(fixture("defaults"));
  const tico::Node *gelu = producerOf(*graph, "gelu");
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->arg("approximate").asString(), "none");

  const tico::Node *sum = producerOf(*graph, "sum_1");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->op(), tico::OpKey("aten", "sum", "dim_IntList"));
  EXPECT_EQ(sum->arg("dim").asInts(), (std::vector<int64_t>{1}));
  EXPECT_TRUE(sum->arg("keepdim").asBool());
  EXPECT_TRUE(sum->arg("dtype").isNone());

  const tico::Node *softmax = producerOf(*graph, "softmax");
  ASSERT_NE(softmax, nullptr);
  ASSERT_NE(softmax->schema(), nullptr);
  EXPECT_EQ(softmax->numArgs(), softmax->schema()->arguments.size());
  EXPECT_EQ(softmax->arg("dim").asInt(), -1);
}
