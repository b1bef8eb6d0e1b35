// One registration function per pass; plugin.cpp calls them all.
#pragma once

#include "tico/plugin/registry.h"

namespace tico::passes {

void registerRemoveNop(Registrar &registrar);
void registerRemoveAssertions(Registrar &registrar);
void registerRemoveDeadCode(Registrar &registrar);
void registerFoldConstantViews(Registrar &registrar);
void registerRestoreLinear(Registrar &registrar);
void registerConvertMatmulToLinear(Registrar &registrar);

} // namespace tico::passes
