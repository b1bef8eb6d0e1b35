// The original converter's circle_custom:: ops are lowered as the circle:: ops the
// convert-circle-custom-ops pass (plugin circle-legalize) rewrites them to (mapping in
// plugins/circle-ops/circle_custom_ops.h), so the lowerings here only report: the op's own reason when it
// has no circle:: equivalent (the MX quantization ops, attributes the original does not
// define), else the pass to run. circle_custom::rms_norm and ::attention are lowered directly
// (normalization.cpp), as before the pass existed.
#include "circle_custom_ops.h"
#include "lowerings.h"
#include "support.h"

#include <variant>

namespace tico::lowering {
namespace {

class CircleCustomOp final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    auto mapped = circle_ops::mapCircleCustomOp(node);
    if (auto *reason = std::get_if<std::string>(&mapped))
      return *reason;
    return "the convert-circle-custom-ops pass (plugin circle-legalize) rewrites it to " +
           std::get<circle_ops::CircleCall>(mapped).op.str() + "; run it before lowering";
  }
  void lower(const Node &node, CircleEmitter &) const override { throw Error(check(node)); }
};

// "circle_custom::conv2d.padding(Tensor input_, ...) -> Tensor" -> "circle_custom::conv2d.padding".
std::string opKeyOf(std::string_view schema) {
  std::string name(schema.substr(0, schema.find('(')));
  if (name.find('.') == std::string::npos)
    name += ".default";
  return name;
}

} // namespace

void registerCircleCustom(Registrar &r) {
  auto lowering = std::make_shared<CircleCustomOp>();
  for (std::string_view schema : circle_ops::kCircleCustomSchemas) {
    const std::string key = opKeyOf(schema);
    if (key == "circle_custom::rms_norm.default" || key == "circle_custom::attention.default")
      continue; // lowered directly
    if (key == "circle_custom::quantize_mx.default")
      continue; // QUANTIZE when fold-mx-quant-ops keeps it (quantize_mx.cpp)
    // Keys derived from the plugin's own schema table: they name registered ops by construction.
    LoweringSpec spec;
    spec.op = OpKey::parseOrThrow(key);
    spec.summary = "as the circle:: op convert-circle-custom-ops (circle-legalize) rewrites it to";
    spec.lowering = lowering;
    r.addLowering(std::move(spec));
  }
}

} // namespace tico::lowering
