// The plugin entry point.
//
// A plugin is a shared library with exactly one C entry: a function returning a
// TicoPluginInfo, exported under the alias `tico_plugin_info` in the section `tico`
// (Boost.DLL), so the host can find it without running any plugin code. The host checks the
// struct size, ABI version and build fingerprint before it calls register_plugin; nothing in
// a plugin registers from a static constructor.
//
//   static void registerAll(tico::Registrar &r) { r.addPass(...); }
//   TICO_PLUGIN("acme-npu", "1.4.2", "Apache-2.0", registerAll)
//
// Build plugins with -fvisibility=hidden (the SDK's tico_add_plugin() does) so the alias is
// the only exported symbol.
#pragma once

#include "tico/plugin/registry.h"

#include <cstdint>

// Bumped on any change to the C++ registration ABI (the headers under tico/).
#define TICO_PLUGIN_API_VERSION 4

#define TICO_STRINGIFY_IMPL(x) #x
#define TICO_STRINGIFY(x) TICO_STRINGIFY_IMPL(x)

#if defined(__clang__)
#define TICO_COMPILER_ID "clang-" TICO_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define TICO_COMPILER_ID "gcc-" TICO_STRINGIFY(__GNUC__)
#else
#define TICO_COMPILER_ID "unknown"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define TICO_CXX11_ABI_ID "cxx11abi-" TICO_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define TICO_CXX11_ABI_ID "cxx11abi-none"
#endif

// The C++ registration interface passes std::string, std::function and tico classes across the
// boundary, so host and plugin must agree on compiler, standard library ABI and pointer size.
#define TICO_BUILD_FINGERPRINT                                                                     \
  "api-" TICO_STRINGIFY(TICO_PLUGIN_API_VERSION) "/" TICO_COMPILER_ID "/" TICO_CXX11_ABI_ID       \
                                                 "/ptr" TICO_STRINGIFY(__SIZEOF_POINTER__)

extern "C" {

// Opaque to C; it is a tico::Registrar.
struct TicoRegistrar;

struct TicoPluginInfo {
  uint32_t struct_size; // sizeof(TicoPluginInfo) as the plugin saw it; fields may be appended
  uint32_t api_version; // must equal the host's TICO_PLUGIN_API_VERSION
  const char *name;     // unique plugin name
  const char *version;
  const char *license;
  const char *build_fingerprint; // must equal the host's TICO_BUILD_FINGERPRINT
  // Registers everything the plugin provides. Returns 0 on success; must not throw.
  int (*register_plugin)(TicoRegistrar *registrar);
};

} // extern "C"

namespace tico {
inline Registrar &registrarOf(TicoRegistrar *r) { return *reinterpret_cast<Registrar *>(r); }
inline TicoRegistrar *asCRegistrar(Registrar &r) { return reinterpret_cast<TicoRegistrar *>(&r); }
} // namespace tico

#include <boost/dll/alias.hpp>
#include <exception>

#define TICO_PLUGIN(NAME, VERSION, LICENSE, REGISTER_FN)                                           \
  namespace {                                                                                      \
  int tico_plugin_register_trampoline(TicoRegistrar *registrar) noexcept {                         \
    ::tico::Registrar &r = ::tico::registrarOf(registrar);                                         \
    try {                                                                                          \
      REGISTER_FN(r);                                                                              \
      return 0;                                                                                    \
    } catch (const std::exception &e) {                                                            \
      r.setError(e.what());                                                                        \
    } catch (...) {                                                                                \
      r.setError("a non-standard exception was thrown");                                           \
    }                                                                                              \
    return 1;                                                                                      \
  }                                                                                                \
  const TicoPluginInfo tico_plugin_info_record = {                                                 \
      sizeof(TicoPluginInfo), TICO_PLUGIN_API_VERSION, NAME,   VERSION,                            \
      LICENSE,                TICO_BUILD_FINGERPRINT,  &tico_plugin_register_trampoline};          \
  }                                                                                                \
  extern "C" const TicoPluginInfo *tico_plugin_entry() { return &tico_plugin_info_record; }        \
  BOOST_DLL_ALIAS_SECTIONED(tico_plugin_entry, tico_plugin_info, tico)
