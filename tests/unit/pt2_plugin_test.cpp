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
