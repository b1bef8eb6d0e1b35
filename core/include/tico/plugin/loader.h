// Host side of the plugin ABI: discovery, loading, checks and registration.
#pragma once

#include "tico/plugin/registry.h"

#include <memory>
#include <string>
#include <vector>

namespace tico {

struct LoadedPlugin {
  std::string name;
  std::string version;
  std::string license;
  std::string path;
  std::shared_ptr<void> library; // the shared library handle (pinned for the process lifetime)
};

// Loads plugins and lists them. Libraries that registered successfully stay loaded for the
// life of the process (never unloaded), so objects, functions and exceptions that came from
// plugin code stay valid whatever the destruction order.
class PluginSet {
public:
  // Loads one plugin file and registers it into `registry`. Checks, each with its own error:
  // the file has a `tico_plugin_info` entry in section `tico` ("not a tico plugin"); it loads
  // (the loader's message is included); struct size; ABI version; build fingerprint; no
  // plugin of the same name was loaded from another file; registration succeeded (a thrown
  // exception is reported with the plugin's name) and registered nothing twice.
  // Throws tico::Error. A failed registration leaves `registry` unchanged.
  //
  // A plugin runs with the user's rights, so one that others can replace is a risk: a plugin
  // file, or the directory holding it, writable by every user (a shared /tmp, a careless chmod)
  // gets a warning naming it; with TICO_PLUGIN_UNSAFE=refuse in the environment it is refused
  // (a tico::Error) instead.
  const LoadedPlugin &load(const std::string &path, Registry &registry);

  // Directories searched, in order: <dir of the running binary>/../lib/tico/plugins, the
  // install prefix's lib/tico/plugins, then every entry of TICO_PLUGIN_PATH (':'-separated).
  static std::vector<std::string> searchPath();
  // Loads every libtico-*.so in the search path. A plugin name found again in a later
  // directory is skipped with a debug message (earlier directories take precedence). Ends
  // with Registry::checkOpReferences(): a plugin naming an unknown op key is an error. After
  // load()ing more plugins, call registry.checkOpReferences() again.
  void discover(Registry &registry);
  // The same over an explicit list of directories, searched in the order given (missing
  // directories are skipped).
  void discover(Registry &registry, const std::vector<std::string> &directories);

  const std::vector<LoadedPlugin> &plugins() const { return plugins_; }

private:
  std::vector<LoadedPlugin> plugins_;
};

} // namespace tico
