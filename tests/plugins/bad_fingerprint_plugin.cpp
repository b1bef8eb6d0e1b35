// A plugin claiming to be built by another compiler and C++ library ABI.
#include "tico/plugin/plugin.h"

namespace {

int registerNothing(TicoRegistrar *) noexcept { return 0; }

const TicoPluginInfo kInfo = {sizeof(TicoPluginInfo),
                              TICO_PLUGIN_API_VERSION,
                              "test-bad-fingerprint",
                              "1.0",
                              "Apache-2.0",
                              "api-" TICO_STRINGIFY(TICO_PLUGIN_API_VERSION) "/gcc-0/cxx11abi-0/ptr8",
                              &registerNothing};

} // namespace

extern "C" const TicoPluginInfo *test_bad_fingerprint_entry() { return &kInfo; }
BOOST_DLL_ALIAS_SECTIONED(test_bad_fingerprint_entry, tico_plugin_info, tico)
