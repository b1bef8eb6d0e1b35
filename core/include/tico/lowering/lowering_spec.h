// Registration record of a lowering. Kept apart from lowering.h so that code which only
// registers or looks up lowerings does not compile the (large) generated Circle schema.
#pragma once

#include "tico/ir/op_key.h"

#include <memory>
#include <string>

namespace tico {

class OpLowering;

struct LoweringSpec {
  OpKey op;
  std::string summary;
  // Among several lowerings of one key, the highest priority that supports a node wins.
  int priority = 0;
  std::shared_ptr<const OpLowering> lowering;
};

} // namespace tico
