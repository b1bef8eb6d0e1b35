#include "backend_loader.h"

#include "tico/support/error.h"
#include "tico/support/log.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace tico::aten_eval {
namespace {

constexpr const char *kBackendFile = "libtico-aten-eval-torch.so";
constexpr const char *kFactorySymbol = "tico_aten_evaluator_create";

using Factory = Evaluator *(*)();

// Any symbol of this library locates it: dladdr reports the file it was loaded from.
void locateThisLibrary() {}

} // namespace

std::string backendPath() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void *>(&locateThisLibrary), &info) == 0 || info.dli_fname == nullptr)
    throw Error("aten-eval: cannot determine where the plugin was loaded from");
  std::filesystem::path plugin = std::filesystem::absolute(info.dli_fname);
  return (plugin.parent_path().parent_path() / "backends" / kBackendFile).lexically_normal().string();
}

std::shared_ptr<const Evaluator> loadAtenEvaluator() {
  static std::mutex mutex;
  static std::shared_ptr<const Evaluator> evaluator;
  std::lock_guard<std::mutex> lock(mutex);
  if (evaluator)
    return evaluator;

  const std::string path = backendPath();
  if (!std::filesystem::exists(path))
    throw Error("the ATen evaluator needs its LibTorch backend '" + path +
                "', which does not exist: this tico build was made without LibTorch "
                "(TICO_WITH_LIBTORCH=OFF). Rebuild with the PyTorch wheel installed to evaluate ops.");
  TICO_DEBUG << "aten-eval: loading LibTorch backend " << path;
  // Never closed: the evaluator's code and LibTorch's global state must outlive every user.
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *why = ::dlerror();
    throw Error("cannot load the ATen evaluator backend '" + path + "': " + (why ? why : "unknown error"));
  }
  auto factory = reinterpret_cast<Factory>(::dlsym(handle, kFactorySymbol));
  if (factory == nullptr)
    throw Error("'" + path + "' is not the ATen evaluator backend (no " + kFactorySymbol + ")");
  Evaluator *created = factory();
  if (created == nullptr)
    throw Error("the ATen evaluator backend '" + path + "' failed to create its evaluator");
  // Immortal like the library: nothing may run backend code during exit-time teardown, after
  // LibTorch's own static objects may already be gone.
  evaluator = std::shared_ptr<const Evaluator>(created, [](const Evaluator *) {});
  return evaluator;
}

} // namespace tico::aten_eval
