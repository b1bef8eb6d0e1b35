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
void registerUnaryMath(Registrar &registrar);
void registerArgReductions(Registrar &registrar);
void registerStatistics(Registrar &registrar);
void registerScan(Registrar &registrar);
void registerSplit(Registrar &registrar);
void registerPadTile(Registrar &registrar);
void registerIndexing(Registrar &registrar);
void registerResize(Registrar &registrar);
void registerNormalization(Registrar &registrar);
void registerConstants(Registrar &registrar);
void registerTransposeConv(Registrar &registrar);
void registerTriangular(Registrar &registrar);
void registerTopK(Registrar &registrar);
void registerScatter(Registrar &registrar);
void registerScatterIndexPut(Registrar &registrar);
void registerScatterSelect(Registrar &registrar);
void registerCircleCustom(Registrar &registrar);
void registerQuantize(Registrar &registrar);
void registerQuantizeMx(Registrar &registrar);

} // namespace tico::lowering
