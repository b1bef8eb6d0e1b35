#include "pt2/torch_op_table.h"

#include "tico/ir/op_schema.h"
#include "tico/plugin/registry.h"

namespace tico::pt2 {

void registerTorchOpTable(Registrar &registrar) {
  registrar.addOpSchemaTable(kTorchSchemas, kTorchSchemaCount);
  for (std::size_t i = 0; i < kTorchSchemalessOpCount; ++i)
    registrar.addSchemalessOp(OpKey::parseOrThrow(kTorchSchemalessOps[i]));
}

const OpSchemaRegistry &torchOpSchemas() {
  static const OpSchemaRegistry registry = [] {
    OpSchemaRegistry r;
    r.addParsable(kTorchSchemas, kTorchSchemaCount);
    return r;
  }();
  return registry;
}

} // namespace tico::pt2
