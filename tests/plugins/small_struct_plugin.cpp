// A plugin whose record claims to be shorter than the version-1 fields (as a record from a
// broken SDK would); the host must not read past struct_size.
#include "tico/plugin/plugin.h"

namespace {

int registerNothing(TicoRegistrar *) noexcept { return 0; }

const TicoPluginInfo kInfo = {8, TICO_PLUGIN_API_VERSION, "test-small-struct", "1.0", "Apache-2.0",
                              TICO_BUILD_FINGERPRINT, &registerNothing};

} // namespace

extern "C" const TicoPluginInfo *test_small_struct_entry() { return &kInfo; }
BOOST_DLL_ALIAS_SECTIONED(test_small_struct_entry, tico_plugin_info, tico)
