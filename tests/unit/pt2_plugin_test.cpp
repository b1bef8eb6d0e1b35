// libtico-pt2 as tico-run sees it: loaded from the plugin directory, registering the "pt2"
// frontend whose sniffer and factory work on a real archive.
#include "pt2_test_support.h"

#include "tico/plugin/loader.h"

using namespace pt2test;

TEST(Pt2Plugin, RegistersThePt2Frontend) {
  const std::string library = std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so";
  ASSERT_TRUE(std::filesystem::exists(library)) << library << " not built";
  tico::PluginSet plugins; // outlives the registry, whose entries hold code from the library
  tico::Registry registry;
  const tico::LoadedPlugin &plugin = plugins.load(library, registry);
  EXPECT_EQ(plugin.name, "pt2-frontend");

  const auto *frontend = registry.findFrontend("pt2");
  ASSERT_NE(frontend, nullptr);
  EXPECT_EQ(frontend->spec.summary, "torch.export archives (.pt2)");
  EXPECT_EQ(frontend->spec.extensions, std::vector<std::string>{".pt2"});
  EXPECT_EQ(frontend->from.plugin, "pt2-frontend");
  EXPECT_FALSE(frontend->spec.sniff(writeScratch("notes.txt", "not an archive")));

  if (!std::filesystem::exists(fixtureDir() / "fixtures.json"))
    return;
  EXPECT_TRUE(frontend->spec.sniff(fixture("linear")));
  auto graph = frontend->spec.create()->load(fixture("linear"), registry.schemas());
  EXPECT_EQ(graph->numNodes(), 1u);
  EXPECT_EQ(graph->schemas(), &registry.schemas());
}

// The PyTorch op table is the plugin's, not the core's: loading it gives a registry the
// schemas (the same ones the unit tests link directly) and the schema-less Python operators.
TEST(Pt2Plugin, RegistersThePyTorchOpTable) {
  tico::PluginSet plugins;
  tico::Registry registry;
  EXPECT_EQ(registry.schemas().size(), 0u);
  plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", registry);
  EXPECT_EQ(registry.schemas().size(), tico::pt2::torchOpSchemas().size());
  EXPECT_GT(registry.schemas().size(), 2000u);
  const tico::OpSchema *add = registry.schemas().find(tico::OpKey("aten", "add", "Tensor"));
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->str(), "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_TRUE(registry.knowsOp(tico::OpKey::parseOrThrow("_operator.add")));
  EXPECT_TRUE(registry.knowsOp(tico::OpKey::parseOrThrow("torch.sym_max")));
  EXPECT_EQ(registry.schemas().find(tico::OpKey::parseOrThrow("_operator.add")), nullptr);
  EXPECT_NO_THROW(registry.checkOpReferences());
}
