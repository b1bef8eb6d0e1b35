// A plugin that references a function no library defines, as a plugin built against another
// tico-core would. Loading with RTLD_NOW must fail with the loader's "undefined symbol".
#include "tico/plugin/plugin.h"

extern "C" int tico_test_symbol_nobody_defines();

namespace {

void registerAll(tico::Registrar &registrar) {
  if (tico_test_symbol_nobody_defines() != 0)
    registrar.setError("unreachable: this plugin cannot be loaded");
}

} // namespace

TICO_PLUGIN("test-undefined", "1.0", "Apache-2.0", registerAll)
