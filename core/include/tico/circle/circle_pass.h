// The Circle-pass ABI: rewrites of a serialized model (after lowering).
#pragma once

#include "tico/circle/circle_pass_spec.h"
#include "tico/circle/model.h"
#include "tico/pass/pass.h"

namespace tico {

class CirclePass {
public:
  virtual ~CirclePass() = default;
  // Returns true exactly when the model changed.
  virtual bool run(CircleModel &model, PassContext &context) = 0;
};

} // namespace tico
