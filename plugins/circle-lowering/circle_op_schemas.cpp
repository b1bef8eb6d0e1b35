#include "circle_op_schemas.h"
#include "custom/circle_custom_ops.h"
#include "lowerings.h"

#include <string>

namespace tico::lowering {

void registerCircleOpSchemas(Registrar &r) {
  for (std::string_view schema : circle_ops::kSchemas)
    r.addOpSchema(std::string(schema));
  for (std::string_view schema : circle_ops::kCircleCustomSchemas)
    r.addOpSchema(std::string(schema));
}

} // namespace tico::lowering
