// libtico-std-passes: the legalization passes of the default pipeline.
#include "passes.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAll(tico::Registrar &r) {
  using namespace tico::passes;
  registerRemoveNop(r);
  registerRemoveAssertions(r);
  registerRemoveDeadCode(r);
  registerFoldConstantViews(r);
  registerRestoreLinear(r);
  registerConvertMatmulToLinear(r);
}

} // namespace

TICO_PLUGIN("std-passes", "0.1.0", "Apache-2.0", registerAll)
