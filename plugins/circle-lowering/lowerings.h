// One registration function per op family; plugin.cpp calls them all.
#pragma once

#include "tico/plugin/registry.h"

namespace tico::lowering {

void registerElementwiseBinary(Registrar &registrar);
void registerActivations(Registrar &registrar);
void registerLinear(Registrar &registrar);
void registerConvolution(Registrar &registrar);
void registerPooling(Registrar &registrar);
void registerReshape(Registrar &registrar);
void registerTranspose(Registrar &registrar);
void registerBroadcast(Registrar &registrar);
void registerConcat(Registrar &registrar);
void registerReductions(Registrar &registrar);
void registerSoftmax(Registrar &registrar);
void registerGather(Registrar &registrar);
void registerSlice(Registrar &registrar);
void registerCopyAndCast(Registrar &registrar);
void registerSymbolic(Registrar &registrar);
void registerComparison(Registrar &registrar);

} // namespace tico::lowering
