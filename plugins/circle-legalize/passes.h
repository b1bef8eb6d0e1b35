// One registration function per pass; plugin.cpp calls them all.
#pragma once

#include "tico/plugin/registry.h"

namespace tico::legalize {

void registerCircleOpSchemas(Registrar &registrar);
void registerConvertCircleCustomOps(Registrar &registrar);
void registerConvertGatherToGatherNd(Registrar &registrar);
void registerConvertSymSizeToCircleShape(Registrar &registrar);
void registerDecomposeGroupedConv2d(Registrar &registrar);
void registerLowerToResizeNearestNeighbor(Registrar &registrar);
void registerLegalizePreDefinedLayoutOperators(Registrar &registrar);
void registerConvertConv1dToConv2d(Registrar &registrar);
void registerConvertConv3dToConv2d(Registrar &registrar);
void registerFuseRmsNorm(Registrar &registrar);
void registerFuseRope(Registrar &registrar);
void registerFuseInstanceNorm(Registrar &registrar);

} // namespace tico::legalize
