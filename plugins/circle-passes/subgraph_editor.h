// The editor the Circle passes use is tico::SubgraphEditor of the Circle document library
// (tico/circle/edit.h); passes include that header. This name stays only for fold_kernels.h,
// which includes it and is due to be replaced by runtime kernels.
#pragma once

#include "model_query.h"

#include "tico/circle/edit.h"
