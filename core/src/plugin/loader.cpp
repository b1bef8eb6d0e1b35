#include "tico/plugin/loader.h"

#include "plugin/elf_probe.h"
#include "tico/plugin/plugin.h"
#include "tico/support/error.h"
#include "tico/support/file.h"
#include "tico/support/log.h"

#include <boost/dll/shared_library.hpp>

#include <mutex>
#include <vector>

#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace tico {

namespace fs = std::filesystem;

namespace {

// Every field of the version-1 record must be present; later versions may append fields.
constexpr std::size_t kInfoV1Size =
    offsetof(TicoPluginInfo, register_plugin) + sizeof(TicoPluginInfo::register_plugin);

[[noreturn]] void fail(const std::string &path, const std::string &reason) {
  throw Error("cannot load plugin '" + path + "': " + reason);
}

std::string text(const char *value) { return value == nullptr ? std::string() : value; }

// Boost wraps the dlerror() text as "...load() failed (dlerror system message: TEXT): ...";
// the dlerror text is the part worth showing.
std::string loaderMessage(const std::string &what) {
  const std::string marker = "dlerror system message: ";
  auto begin = what.find(marker);
  if (begin == std::string::npos)
    return what;
  begin += marker.size();
  auto end = what.rfind("):");
  if (end == std::string::npos || end < begin)
    return what.substr(begin);
  return what.substr(begin, end - begin);
}

// A plugin whose library is loaded and whose info record passed every check.
struct OpenedPlugin {
  std::shared_ptr<boost::dll::shared_library> library;
  const TicoPluginInfo *info = nullptr;
  std::string path; // canonical
  std::string name;
  std::string version;
  std::string license;

  std::string label() const { return "plugin '" + name + "' " + version; }
};

void requireEntry(const std::string &path) {
  detail::ElfProbe probe = detail::probeElfSymbol(path, "tico", "tico_plugin_info");
  switch (probe.result) {
  case detail::ElfProbeResult::HasEntry:
    return;
  case detail::ElfProbeResult::Unreadable:
    fail(path, probe.detail);
  case detail::ElfProbeResult::Corrupt:
    fail(path, "not a valid shared library: " + probe.detail + " (truncated or corrupt file?)");
  default:
    throw Error("'" + path + "' is not a tico plugin: " + probe.detail);
  }
}

// A registered plugin is never unloaded: its code backs std::function factories, vtables of
// objects it created and exceptions it threw, any of which can outlive every owner we could
// name (an error escaping to main() after the PluginSet is gone, for one). The handle is kept
// in a deliberately leaked list.
void pinForProcessLifetime(std::shared_ptr<boost::dll::shared_library> library) {
  static std::mutex mutex;
  static auto *pinned = new std::vector<std::shared_ptr<boost::dll::shared_library>>();
  std::lock_guard<std::mutex> lock(mutex);
  pinned->push_back(std::move(library));
}

std::shared_ptr<boost::dll::shared_library> loadLibrary(const std::string &path) {
  // rtld_now: a missing symbol fails here, with the loader's message, not at first call.
  // rtld_local: one plugin's symbols never resolve another plugin's references.
  try {
    return std::make_shared<boost::dll::shared_library>(
        boost::dll::fs::path(path),
        boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception &e) {
    std::string message = loaderMessage(e.what());
    if (message.find("undefined symbol") != std::string::npos)
      message += "\n  note: the plugin was probably built against a different tico-core";
    fail(path, message);
  }
}

// Checks run before any plugin code other than the entry function executes.
OpenedPlugin openPlugin(const std::string &path) {
  requireEntry(path);
  OpenedPlugin plugin;
  plugin.path = path;
  plugin.library = loadLibrary(path);
  try {
    auto &entry = plugin.library->get_alias<const TicoPluginInfo *()>("tico_plugin_info");
    plugin.info = entry();
  } catch (const std::exception &e) {
    fail(path, "cannot resolve its 'tico_plugin_info' entry: " + loaderMessage(e.what()));
  }
  const TicoPluginInfo *info = plugin.info;
  if (info == nullptr)
    fail(path, "its 'tico_plugin_info' entry returned no plugin record");
  if (info->struct_size < kInfoV1Size)
    fail(path, "its TicoPluginInfo record is " + std::to_string(info->struct_size) +
                   " bytes, this tico needs at least " + std::to_string(kInfoV1Size) +
                   " (built against a broken or incompatible tico SDK)");

  plugin.name = text(info->name);
  plugin.version = text(info->version);
  plugin.license = text(info->license);
  std::string shown_name = plugin.name.empty() ? "<unnamed>" : plugin.name;
  std::string shown = "plugin '" + shown_name + "' " + plugin.version;
  if (info->api_version != TICO_PLUGIN_API_VERSION)
    fail(path, shown + " uses plugin API " + std::to_string(info->api_version) +
                   "; this tico provides API " + std::to_string(TICO_PLUGIN_API_VERSION) +
                   ". Rebuild it against this tico SDK.");
  std::string fingerprint = text(info->build_fingerprint);
  if (fingerprint != TICO_BUILD_FINGERPRINT)
    fail(path, shown + " was built as '" + fingerprint + "' but this tico was built as '" +
                   TICO_BUILD_FINGERPRINT +
                   "'; plugins must be built with the same compiler and C++ library ABI as tico");
  if (plugin.name.empty())
    fail(path, "the plugin record has no name");
  if (info->register_plugin == nullptr)
    fail(path, plugin.label() + " has no register_plugin function");
  return plugin;
}

// Registers into a staging registry and merges only when everything succeeded, so a failing
// plugin leaves `registry` exactly as it was.
LoadedPlugin registerPlugin(const OpenedPlugin &plugin, Registry &registry) {
  Registry staged;
  Registrar registrar(staged, Provenance{plugin.name, plugin.version, plugin.path});
  int status = 0;
  try {
    status = plugin.info->register_plugin(asCRegistrar(registrar));
  } catch (const std::exception &e) {
    fail(plugin.path, plugin.label() + " threw from register_plugin (it must return an error "
                                       "code instead): " + e.what());
  } catch (...) {
    fail(plugin.path, plugin.label() + " threw a non-standard exception from register_plugin");
  }
  if (status != 0) {
    std::string why = registrar.error().empty()
                          ? "register_plugin returned " + std::to_string(status)
                          : registrar.error();
    fail(plugin.path, plugin.label() + " failed to register: " + why);
  }
  try {
    registry.merge(staged);
  } catch (const Error &e) {
    std::string lines = e.what();
    std::string indented;
    for (std::size_t start = 0; start <= lines.size();) {
      std::size_t end = lines.find('\n', start);
      if (end == std::string::npos)
        end = lines.size();
      indented += "\n  " + lines.substr(start, end - start);
      start = end + 1;
    }
    fail(plugin.path, plugin.label() + " registers names that are already taken:" + indented);
  }
  pinForProcessLifetime(plugin.library);
  TICO_DEBUG << "loaded " << plugin.label() << " from " << plugin.path;
  return LoadedPlugin{plugin.name, plugin.version, plugin.license, plugin.path, plugin.library};
}

const LoadedPlugin *findByPath(const std::vector<LoadedPlugin> &plugins, const std::string &path) {
  for (const auto &plugin : plugins)
    if (plugin.path == path)
      return &plugin;
  return nullptr;
}

const LoadedPlugin *findByName(const std::vector<LoadedPlugin> &plugins, const std::string &name) {
  for (const auto &plugin : plugins)
    if (plugin.name == name)
      return &plugin;
  return nullptr;
}

std::string fileTypeOf(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? describeFileType(st.st_mode) : "not a regular file";
}

std::string canonicalFile(const std::string &path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  // status() reports a missing file as not_found without an error; any error code (a symlink
  // loop, a permission problem on a directory) is the reason worth showing.
  if (ec && status.type() != fs::file_type::not_found)
    fail(path, ec.message());
  if (!fs::exists(status))
    throw Error("cannot load plugin '" + path + "': file does not exist");
  if (fs::is_directory(status))
    throw Error("cannot load plugin '" + path + "': it is a directory");
  // Probing a FIFO or device for its ELF header would block or read without end.
  if (!fs::is_regular_file(status))
    throw Error("cannot load plugin '" + path + "': it is " + fileTypeOf(path) + ", not a regular file");
  fs::path canonical = fs::canonical(path, ec);
  if (ec)
    fail(path, ec.message());
  return canonical.string();
}

// Who could replace the plugin at `canonical` besides its owner: the file or its directory
// writable by every user. Warned about, or refused under TICO_PLUGIN_UNSAFE=refuse.
void checkPlacement(const std::string &canonical) {
  std::string problem;
  struct stat st {};
  const std::string directory = fs::path(canonical).parent_path().string();
  if (::stat(canonical.c_str(), &st) == 0 && (st.st_mode & S_IWOTH))
    problem = "the file is writable by every user";
  else if (::stat(directory.c_str(), &st) == 0 && (st.st_mode & S_IWOTH))
    problem = "its directory '" + directory + "' is writable by every user";
  if (problem.empty())
    return;
  const char *policy = std::getenv("TICO_PLUGIN_UNSAFE");
  const bool refuse = policy && std::string(policy) == "refuse";
  const std::string message = "plugin '" + canonical + "': " + problem + ", so anyone on this machine can replace " +
                              "the code it runs";
  if (refuse)
    throw Error("cannot load " + message + " (refused: TICO_PLUGIN_UNSAFE=refuse)");
  TICO_WARN << message << " (TICO_PLUGIN_UNSAFE=refuse refuses such plugins)";
}

bool isPluginFileName(const std::string &name) {
  const std::string prefix = "libtico-", suffix = ".so";
  return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
         name.ends_with(suffix);
}

} // namespace

const LoadedPlugin &PluginSet::load(const std::string &path, Registry &registry) {
  std::string canonical = canonicalFile(path);
  if (const LoadedPlugin *existing = findByPath(plugins_, canonical))
    return *existing;
  checkPlacement(canonical);
  OpenedPlugin plugin = openPlugin(canonical);
  if (const LoadedPlugin *other = findByName(plugins_, plugin.name))
    fail(canonical, "a plugin named '" + plugin.name + "' is already loaded from '" + other->path +
                        "'");
  plugins_.push_back(registerPlugin(plugin, registry));
  return plugins_.back();
}

std::vector<std::string> PluginSet::searchPath() {
  std::vector<std::string> candidates;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    candidates.push_back((exe.parent_path() / ".." / "lib" / "tico" / "plugins").string());
  fs::path install_dir = TICO_PLUGIN_INSTALL_DIR;
  candidates.push_back(install_dir.is_absolute()
                           ? install_dir.string()
                           : (fs::path(TICO_INSTALL_PREFIX) / install_dir).string());
  if (const char *env = std::getenv("TICO_PLUGIN_PATH")) {
    std::string list = env;
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos)
        end = list.size();
      if (end > start)
        candidates.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }

  std::vector<std::string> directories;
  std::set<std::string> seen;
  for (const auto &candidate : candidates) {
    fs::path canonical = fs::canonical(candidate, ec);
    if (ec || !fs::is_directory(canonical, ec))
      continue;
    if (seen.insert(canonical.string()).second)
      directories.push_back(canonical.string());
  }
  return directories;
}

void PluginSet::discover(Registry &registry) { discover(registry, searchPath()); }

void PluginSet::discover(Registry &registry, const std::vector<std::string> &directories) {
  for (const auto &directory : directories) {
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
      continue;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (isPluginFileName(it->path().filename().string()) && !it->is_directory(type_ec))
        files.push_back(it->path());
    }
    if (ec)
      throw Error("cannot list plugin directory '" + directory + "': " + ec.message());
    // Sorted, so the load order (and with it every listing) does not depend on the file system.
    std::sort(files.begin(), files.end());
    for (const auto &file : files) {
      std::string canonical = canonicalFile(file.string());
      if (findByPath(plugins_, canonical))
        continue;
      checkPlacement(canonical);
      OpenedPlugin plugin = openPlugin(canonical);
      if (const LoadedPlugin *other = findByName(plugins_, plugin.name)) {
        TICO_DEBUG << "skipping " << canonical << ": plugin '" << plugin.name
                   << "' is already loaded from " << other->path;
        continue;
      }
      plugins_.push_back(registerPlugin(plugin, registry));
    }
  }
  // Only now can op keys be judged: the PyTorch schemas come from a plugin too, which may
  // load after the plugins that name its ops.
  registry.checkOpReferences();
}

} // namespace tico
