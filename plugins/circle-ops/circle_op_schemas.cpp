#include "circle_op_schemas.h"

#include "circle_custom_ops.h"

#include <string>

namespace tico::circle_ops {

void registerSchemas(Registrar &registrar) {
  for (std::string_view schema : kSchemas)
    registrar.addOpSchema(std::string(schema));
  for (std::string_view schema : kCircleCustomSchemas)
    registrar.addOpSchema(std::string(schema));
}

} // namespace tico::circle_ops
