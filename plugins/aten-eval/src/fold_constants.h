// fold-constants: evaluates nodes whose inputs are all constants and replaces their outputs
// with constants.
#pragma once

#include "tico/pass/pass.h"

namespace tico::aten_eval {

PassSpec foldConstantsSpec();

} // namespace tico::aten_eval
