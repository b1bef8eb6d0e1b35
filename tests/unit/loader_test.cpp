// Plugin loading: every check the loader makes, each with its message, all-or-nothing
// registration, and discovery order. The plugins come from tests/plugins (one per failure).
#include "tico/ir/graph.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/plugin.h"
#include "tico/rewrite/driver.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <unistd.h>

namespace tico {
namespace {

namespace fs = std::filesystem;

std::string testPlugin(const std::string &name) {
  return (fs::path(TICO_TEST_PLUGIN_DIR) / ("libtico-test-" + name + ".so")).string();
}

std::string canonical(const std::string &path) { return fs::canonical(path).string(); }

std::string loadError(PluginSet &plugins, Registry &registry, const std::string &path) {
  try {
    plugins.load(path, registry);
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)                                \
      << "missing: " << (needle) << "\nin: " << (haystack)

// A scratch directory removed after the test.
class ScratchDir {
public:
  ScratchDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("tico-loader-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string sub(const std::string &name) const {
    fs::create_directories(path_ / name);
    return (path_ / name).string();
  }
  std::string file(const std::string &name) const { return (path_ / name).string(); }
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

std::string copyTo(const std::string &from, const std::string &to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  return to;
}

// Sets an environment variable for one test and restores the previous value.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(LoaderTest, GoodPluginRegistersEverythingWithProvenance) {
  PluginSet plugins;
  Registry registry;
  const LoadedPlugin &loaded = plugins.load(testPlugin("good"), registry);
  EXPECT_EQ(loaded.name, "test-good");
  EXPECT_EQ(loaded.version, "1.0");
  EXPECT_EQ(loaded.license, "Apache-2.0");
  EXPECT_EQ(loaded.path, canonical(testPlugin("good")));
  EXPECT_NE(loaded.library, nullptr);
  ASSERT_EQ(plugins.plugins().size(), 1u);

  const auto *pass = registry.findPass("test.rename-graph");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->from.str(), "test-good 1.0 (" + loaded.path + ")");
  auto lowerings = registry.findLowerings(OpKey("test_ns", "good_op"));
  ASSERT_EQ(lowerings.size(), 1u);
  EXPECT_EQ(lowerings[0]->from.plugin, "test-good");
  const OpSchema *schema = registry.schemas().find(OpKey("test_ns", "good_op"));
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->arguments.size(), 1u);
}

TEST(LoaderTest, PluginCodeRunsThroughTheRegisteredFactory) {
  PluginSet plugins;
  Registry registry;
  plugins.load(testPlugin("good"), registry);
  const auto *pass = registry.findPass("test.rename-graph");
  ASSERT_NE(pass, nullptr);
  Options options =
      Options::resolve(pass->spec.name, pass->spec.options, {{"name", std::string("visited")}});
  auto instance = pass->spec.create(options);
  Graph graph;
  PassContext context(registry);
  EXPECT_TRUE(instance->run(graph, context));
  EXPECT_EQ(graph.name, "visited");
  EXPECT_FALSE(instance->run(graph, context));
}

TEST(LoaderTest, SamePathTwiceIsANoOp) {
  ScratchDir scratch;
  std::string link = scratch.file("libtico-link.so");
  fs::create_symlink(testPlugin("good"), link);
  PluginSet plugins;
  Registry registry;
  const LoadedPlugin *first = &plugins.load(testPlugin("good"), registry);
  const LoadedPlugin *again = &plugins.load(testPlugin("good"), registry);
  const LoadedPlugin *through_link = &plugins.load(link, registry);
  EXPECT_EQ(first, again);
  EXPECT_EQ(first, through_link);
  EXPECT_EQ(plugins.plugins().size(), 1u);
}

TEST(LoaderTest, SameNameFromAnotherFileIsAnError) {
  ScratchDir scratch;
  std::string copy = copyTo(testPlugin("good"), scratch.file("libtico-copy.so"));
  PluginSet plugins;
  Registry registry;
  plugins.load(testPlugin("good"), registry);
  std::string message = loadError(plugins, registry, copy);
  EXPECT_CONTAINS(message, "cannot load plugin '" + canonical(copy) + "'");
  EXPECT_CONTAINS(message, "a plugin named 'test-good' is already loaded from '" +
                               canonical(testPlugin("good")) + "'");
  EXPECT_EQ(plugins.plugins().size(), 1u);
}

// Issue 31: plugins loaded from world-writable places without a word. They still load (with a
// warning), unless TICO_PLUGIN_UNSAFE=refuse; the message names what others can write.
TEST(LoaderTest, WorldWritablePluginsAreRefusedOnRequest) {
  ScratchDir scratch;
  const std::string shared = scratch.sub("shared");
  fs::permissions(shared, fs::perms::all);
  const std::string in_shared = copyTo(testPlugin("good"), shared + "/libtico-good.so");
  const std::string open_file = copyTo(testPlugin("good"), scratch.file("libtico-open.so"));
  fs::permissions(open_file, fs::perms::all);
  {
    ScopedEnv refuse("TICO_PLUGIN_UNSAFE", "refuse");
    PluginSet plugins;
    Registry registry;
    EXPECT_CONTAINS(loadError(plugins, registry, in_shared),
                    "its directory '" + canonical(shared) + "' is writable by every user");
    EXPECT_CONTAINS(loadError(plugins, registry, open_file), "the file is writable by every user");
    EXPECT_CONTAINS(loadError(plugins, registry, open_file), "(refused: TICO_PLUGIN_UNSAFE=refuse)");
    EXPECT_THROW(plugins.discover(registry, {shared}), Error);
    EXPECT_TRUE(plugins.plugins().empty());
  }
  ScopedEnv warn("TICO_PLUGIN_UNSAFE", "warn");
  PluginSet plugins;
  Registry registry;
  EXPECT_EQ(plugins.load(in_shared, registry).name, "test-good"); // a warning, not an error
}

TEST(LoaderTest, StrippedPluginIsStillRecognised) {
  // `strip` (and `cmake --install --strip`) removes .symtab; the entry must be found in .dynsym.
  ScratchDir scratch;
  std::string stripped = copyTo(testPlugin("good"), scratch.file("libtico-stripped.so"));
  std::string command = "strip --strip-all '" + stripped + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << "strip (binutils) failed";
  PluginSet plugins;
  Registry registry;
  EXPECT_EQ(plugins.load(stripped, registry).name, "test-good");
  EXPECT_NE(registry.findPass("test.rename-graph"), nullptr);
}

TEST(LoaderTest, MissingFile) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("does-not-exist");
  EXPECT_EQ(loadError(plugins, registry, path),
            "cannot load plugin '" + path + "': file does not exist");
}

TEST(LoaderTest, DirectoryIsNotAPlugin) {
  PluginSet plugins;
  Registry registry;
  EXPECT_EQ(loadError(plugins, registry, TICO_TEST_PLUGIN_DIR),
            std::string("cannot load plugin '") + TICO_TEST_PLUGIN_DIR + "': it is a directory");
}

TEST(LoaderTest, SharedLibraryWithoutEntryIsNotAPlugin) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("not-plugin");
  EXPECT_EQ(loadError(plugins, registry, path),
            "'" + canonical(path) +
                "' is not a tico plugin: it has no 'tico_plugin_info' entry in section 'tico'");
}

TEST(LoaderTest, GarbageAndEmptyFilesAreNotPlugins) {
  ScratchDir scratch;
  std::string garbage = scratch.file("libtico-garbage.so");
  {
    std::mt19937 random(1234);
    std::ofstream out(garbage, std::ios::binary);
    for (int i = 0; i < 4096; ++i)
      out.put(static_cast<char>(random() & 0xff));
  }
  std::string empty = scratch.file("libtico-empty.so");
  std::ofstream(empty).close();

  PluginSet plugins;
  Registry registry;
  EXPECT_EQ(loadError(plugins, registry, garbage),
            "'" + canonical(garbage) + "' is not a tico plugin: not an ELF file");
  EXPECT_EQ(loadError(plugins, registry, empty),
            "'" + canonical(empty) + "' is not a tico plugin: not an ELF file");
}

TEST(LoaderTest, TruncatedLibraryIsReportedNotCrashedOn) {
  ScratchDir scratch;
  std::string truncated = scratch.file("libtico-truncated.so");
  {
    std::ifstream in(testPlugin("good"), std::ios::binary);
    std::vector<char> head(4096);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(truncated, std::ios::binary).write(head.data(), in.gcount());
  }
  PluginSet plugins;
  Registry registry;
  std::string message = loadError(plugins, registry, truncated);
  EXPECT_CONTAINS(message, "cannot load plugin '" + canonical(truncated) +
                               "': not a valid shared library");
  EXPECT_CONTAINS(message, "truncated or corrupt");
}

TEST(LoaderTest, ExecutableIsNotAPlugin) {
  // Any ELF executable on the system will do; the test binary itself is one (a PIE is ET_DYN
  // too, so then it is rejected for lacking the entry instead).
  PluginSet plugins;
  Registry registry;
  std::string self = fs::read_symlink("/proc/self/exe").string();
  EXPECT_CONTAINS(loadError(plugins, registry, self), "' is not a tico plugin: ");
}

TEST(LoaderTest, UndefinedSymbolShowsTheLoaderMessage) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("undefined");
  std::string message = loadError(plugins, registry, path);
  EXPECT_CONTAINS(message, "cannot load plugin '" + canonical(path) + "': ");
  EXPECT_CONTAINS(message, "undefined symbol: tico_test_symbol_nobody_defines");
  EXPECT_CONTAINS(message, "built against a different tico-core");
}

TEST(LoaderTest, RecordSmallerThanVersionOne) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("small-struct");
  EXPECT_EQ(loadError(plugins, registry, path),
            "cannot load plugin '" + canonical(path) + "': its TicoPluginInfo record is 8 bytes, "
            "this tico needs at least " + std::to_string(sizeof(TicoPluginInfo)) +
                " (built against a broken or incompatible tico SDK)");
}

TEST(LoaderTest, ApiVersionMismatch) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("bad-api");
  std::string api = std::to_string(TICO_PLUGIN_API_VERSION);
  std::string newer = std::to_string(TICO_PLUGIN_API_VERSION + 1);
  EXPECT_EQ(loadError(plugins, registry, path),
            "cannot load plugin '" + canonical(path) + "': plugin 'test-bad-api' 1.2 uses plugin "
            "API " + newer + "; this tico provides API " + api +
                ". Rebuild it against this tico SDK.");
  // Its register function was never called.
  EXPECT_EQ(registry.findPass("test.bad-api-pass"), nullptr);
  EXPECT_TRUE(plugins.plugins().empty());
}

TEST(LoaderTest, FingerprintMismatchShowsBoth) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("bad-fingerprint");
  std::string message = loadError(plugins, registry, path);
  EXPECT_CONTAINS(message, "cannot load plugin '" + canonical(path) + "'");
  EXPECT_CONTAINS(message, "plugin 'test-bad-fingerprint' 1.0 was built as 'api-" TICO_STRINGIFY(
                               TICO_PLUGIN_API_VERSION) "/gcc-0/cxx11abi-0/ptr8'");
  EXPECT_CONTAINS(message, std::string("this tico was built as '") + TICO_BUILD_FINGERPRINT + "'");
}

TEST(LoaderTest, ThrowingRegistrationIsReportedAndLeavesNothing) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("throws");
  EXPECT_EQ(loadError(plugins, registry, path),
            "cannot load plugin '" + canonical(path) +
                "': plugin 'test-throws' 1.0 failed to register: test-throws refuses to register");
  EXPECT_EQ(registry.findPass("test.throws-partial"), nullptr);
  EXPECT_TRUE(plugins.plugins().empty());
}

TEST(LoaderTest, RegisteringTheSameNameTwiceInOnePlugin) {
  PluginSet plugins;
  Registry registry;
  std::string path = testPlugin("twice");
  std::string self = "test-twice 1.0 (" + canonical(path) + ")";
  EXPECT_EQ(loadError(plugins, registry, path),
            "cannot load plugin '" + canonical(path) +
                "': plugin 'test-twice' 1.0 failed to register: pass 'test.twice' is registered "
                "by '" + self + "' and '" + self + "'");
  EXPECT_EQ(registry.findPass("test.twice"), nullptr);
}

TEST(LoaderTest, ConflictsWithAnotherPluginAreAllListedAndNothingIsKept) {
  PluginSet plugins;
  Registry registry;
  plugins.load(testPlugin("good"), registry);
  std::vector<std::string> passes_before = registry.passNames();
  std::string schema_before = registry.schemas().find(OpKey("test_ns", "good_op"))->str();

  std::string path = testPlugin("duplicate");
  std::string message = loadError(plugins, registry, path);
  std::string good = "test-good 1.0 (" + canonical(testPlugin("good")) + ")";
  std::string dup = "test-duplicate 1.0 (" + canonical(path) + ")";
  EXPECT_CONTAINS(message, "cannot load plugin '" + canonical(path) +
                               "': plugin 'test-duplicate' 1.0 registers names that are already "
                               "taken:");
  EXPECT_CONTAINS(message, "\n  pass 'test.rename-graph' is registered by '" + good + "' and '" +
                               dup + "'");
  EXPECT_CONTAINS(message, "\n  lowering of 'test_ns::good_op.default' at priority 0 is "
                           "registered by '" + good + "' and '" + dup + "'");
  EXPECT_CONTAINS(message, "\n  schema of 'test_ns::good_op.default' is registered by '" + good +
                               "' and '" + dup + "'");

  EXPECT_EQ(registry.passNames(), passes_before);
  EXPECT_EQ(registry.findPass("test.duplicate-only"), nullptr);
  EXPECT_EQ(registry.findPass("test.rename-graph")->from.plugin, "test-good");
  EXPECT_EQ(registry.findLowerings(OpKey("test_ns", "good_op")).size(), 1u);
  EXPECT_EQ(registry.schemas().find(OpKey("test_ns", "good_op"))->str(), schema_before);
  EXPECT_EQ(plugins.plugins().size(), 1u);
}

TEST(LoaderTest, AFailedPluginDoesNotBlockLaterOnes) {
  PluginSet plugins;
  Registry registry;
  EXPECT_THROW(plugins.load(testPlugin("throws"), registry), Error);
  EXPECT_THROW(plugins.load(testPlugin("bad-api"), registry), Error);
  plugins.load(testPlugin("good"), registry);
  plugins.load(testPlugin("second"), registry);
  ASSERT_EQ(plugins.plugins().size(), 2u);
  auto lowerings = registry.findLowerings(OpKey("test_ns", "good_op"));
  ASSERT_EQ(lowerings.size(), 2u);
  EXPECT_EQ(lowerings[0]->from.plugin, "test-second"); // priority 10 before 0
  EXPECT_EQ(lowerings[1]->from.plugin, "test-good");
}

TEST(DiscoveryTest, LoadsSortedFilesDirectoryByDirectory) {
  ScratchDir scratch;
  std::string first = scratch.sub("first"), later = scratch.sub("later");
  // Sorted by file name inside a directory: "aa" (test-second) before "zz" (test-good).
  copyTo(testPlugin("good"), first + "/libtico-zz.so");
  copyTo(testPlugin("second"), first + "/libtico-aa.so");
  // Files that do not match libtico-*.so are never opened, even when they are garbage.
  std::ofstream(first + "/libother.so") << "not a library";
  std::ofstream(first + "/tico-x.so") << "not a library";
  // The same plugin name in a later directory is skipped (the earlier directory wins) ...
  copyTo(testPlugin("good"), later + "/libtico-good.so");
  // ... and a file already loaded through another path is skipped too.
  fs::create_symlink(first + "/libtico-aa.so", later + "/libtico-link.so");

  PluginSet plugins;
  Registry registry;
  plugins.discover(registry, {first, scratch.file("missing"), later});
  ASSERT_EQ(plugins.plugins().size(), 2u);
  EXPECT_EQ(plugins.plugins()[0].name, "test-second");
  EXPECT_EQ(plugins.plugins()[0].path, canonical(first + "/libtico-aa.so"));
  EXPECT_EQ(plugins.plugins()[1].name, "test-good");
  EXPECT_EQ(plugins.plugins()[1].path, canonical(first + "/libtico-zz.so"));
  EXPECT_EQ(registry.findPass("test.rename-graph")->from.path, canonical(first + "/libtico-zz.so"));
}

TEST(DiscoveryTest, EarlierDirectoryWinsWhicheverComesFirst) {
  ScratchDir scratch;
  std::string a = scratch.sub("a"), b = scratch.sub("b");
  copyTo(testPlugin("good"), a + "/libtico-good.so");
  copyTo(testPlugin("good"), b + "/libtico-good.so");
  PluginSet plugins;
  Registry registry;
  plugins.discover(registry, {b, a});
  ASSERT_EQ(plugins.plugins().size(), 1u);
  EXPECT_EQ(plugins.plugins()[0].path, canonical(b + "/libtico-good.so"));
}

TEST(DiscoveryTest, BrokenPluginInTheSearchPathIsAnError) {
  ScratchDir scratch;
  std::string dir = scratch.sub("plugins");
  copyTo(testPlugin("bad-api"), dir + "/libtico-bad.so");
  PluginSet plugins;
  Registry registry;
  try {
    plugins.discover(registry, {dir});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_CONTAINS(e.what(), "uses plugin API");
    EXPECT_CONTAINS(e.what(), canonical(dir + "/libtico-bad.so"));
  }
}

// A misspelt op key is an error once the PyTorch table (from the .pt2 frontend plugin) is
// loaded, naming the plugin, the key and the likely intended op.
TEST(DiscoveryTest, MisspeltOpKeyIsALoadError) {
  ScratchDir scratch;
  std::string dir = scratch.sub("plugins");
  // Sorted before libtico-pt2.so: the check must wait until every plugin is loaded.
  copyTo(testPlugin("misspelled-op"), dir + "/libtico-a-misspelled.so");
  copyTo(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", dir + "/libtico-pt2.so");
  PluginSet plugins;
  Registry registry;
  try {
    plugins.discover(registry, {dir});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string from = "plugin 'test-misspelled-op 1.0 (" + canonical(dir + "/libtico-a-misspelled.so") + ")'";
    EXPECT_CONTAINS(e.what(), "unknown op keys");
    EXPECT_CONTAINS(e.what(), from + " names unknown op 'aten::rellu.default' in a lowering "
                                     "(did you mean 'aten::relu.default'?)");
    EXPECT_CONTAINS(e.what(), from + " names unknown op 'aten::add.Tensr' in a rewrite rule "
                                     "(did you mean 'aten::add.Tensor'?)");
  }
}

TEST(LoaderTest, MisspeltOpKeyOfAnExtraPluginIsReportedByTheCheck) {
  PluginSet plugins;
  Registry registry;
  plugins.load(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", registry);
  EXPECT_NO_THROW(registry.checkOpReferences());
  plugins.load(testPlugin("misspelled-op"), registry);
  try {
    registry.checkOpReferences();
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_CONTAINS(e.what(), "'aten::rellu.default' in a lowering (did you mean 'aten::relu.default'?)");
  }
}

// A pattern's root op is declared by patternPassSpec: a misspelt root is a load error too.
TEST(DiscoveryTest, MisspeltPatternRootIsALoadError) {
  ScratchDir scratch;
  std::string dir = scratch.sub("plugins");
  copyTo(testPlugin("misspelled-pattern"), dir + "/libtico-a-pattern.so");
  copyTo(std::string(TICO_PLUGIN_DIR) + "/libtico-pt2.so", dir + "/libtico-pt2.so");
  PluginSet plugins;
  Registry registry;
  try {
    plugins.discover(registry, {dir});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string from = "plugin 'test-misspelled-pattern 1.0 (" + canonical(dir + "/libtico-a-pattern.so") + ")'";
    EXPECT_CONTAINS(e.what(), from + " names unknown op 'aten::sigmod.default' in a pattern of pass "
                                     "'test.misspelled-pattern' (did you mean 'aten::sigmoid.default'?)");
  }
}

// The factory patternPassSpec made survives the trip through the plugin boundary, roots and all.
TEST(LoaderTest, PatternPassSpecKeepsItsRootsAcrossThePluginBoundary) {
  PluginSet plugins;
  Registry registry;
  plugins.load(testPlugin("misspelled-pattern"), registry);
  const Registered<PassSpec> *pass = registry.findPass("test.misspelled-pattern");
  ASSERT_NE(pass, nullptr);
  const rewrite::PatternPassFactory *factory = rewrite::PatternPassFactory::of(pass->spec);
  ASSERT_NE(factory, nullptr);
  EXPECT_EQ(factory->roots(), std::vector<OpKey>{OpKey("aten", "sigmod", "default")});
}

// Every key the bundled plugins name is known: the in-tree tables are checked the same way.
TEST(DiscoveryTest, BundledPluginsNameOnlyKnownOps) {
  PluginSet plugins;
  Registry registry;
  EXPECT_NO_THROW(plugins.discover(registry, {std::string(TICO_PLUGIN_DIR)}));
  EXPECT_GT(registry.schemas().size(), 2000u);
}

std::optional<std::string> exeRelativePluginDir() {
  fs::path dir = fs::read_symlink("/proc/self/exe").parent_path() / ".." / "lib" / "tico" / "plugins";
  std::error_code ec;
  fs::path resolved = fs::canonical(dir, ec);
  if (ec || !fs::is_directory(resolved))
    return std::nullopt;
  return resolved.string();
}

TEST(SearchPathTest, PluginPathEntriesComeLastInOrderWithoutDuplicates) {
  ScratchDir scratch;
  std::string a = scratch.sub("a"), b = scratch.sub("b");
  ScopedEnv env("TICO_PLUGIN_PATH", a + "::" + scratch.file("missing") + ":" + b + ":" + a + "/.");
  std::vector<std::string> path = PluginSet::searchPath();
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path[path.size() - 2], canonical(a));
  EXPECT_EQ(path[path.size() - 1], canonical(b));
  if (auto builtin = exeRelativePluginDir())
    EXPECT_EQ(path.front(), *builtin);
  EXPECT_EQ(std::set<std::string>(path.begin(), path.end()).size(), path.size());
}

TEST(SearchPathTest, BuiltinDirectoryIsNotRepeatedFromPluginPath) {
  auto builtin = exeRelativePluginDir();
  ASSERT_TRUE(builtin) << "no lib/tico/plugins next to the test binary";
  ScopedEnv env("TICO_PLUGIN_PATH", *builtin);
  std::vector<std::string> path = PluginSet::searchPath();
  EXPECT_EQ(std::count(path.begin(), path.end(), *builtin), 1);
  EXPECT_EQ(path.front(), *builtin);
}

// discover() without arguments also loads whatever lives next to the binary (the build's real
// plugins); they must load together with the test plugin, which comes last.
TEST(SearchPathTest, DiscoverUsesPluginPathAfterTheBuiltinDirectories) {
  ScratchDir scratch;
  std::string dir = scratch.sub("plugins");
  copyTo(testPlugin("second"), dir + "/libtico-second.so");
  ScopedEnv env("TICO_PLUGIN_PATH", dir);
  PluginSet plugins;
  Registry registry;
  plugins.discover(registry);
  ASSERT_FALSE(plugins.plugins().empty());
  EXPECT_EQ(plugins.plugins().back().name, "test-second");
  EXPECT_EQ(plugins.plugins().back().path, canonical(dir + "/libtico-second.so"));
  for (std::size_t i = 0; i + 1 < plugins.plugins().size(); ++i)
    EXPECT_NE(plugins.plugins()[i].path.rfind(canonical(dir), 0), 0u) << plugins.plugins()[i].path;
  EXPECT_NE(registry.findPass("test.second-pass"), nullptr);
}

} // namespace
} // namespace tico
