// expand -> BROADCAST_TO with the result shape. -1 entries of the size list keep the input's
// dim; a symbolic result dim is read at runtime from its SymInt or from the input's shape.
#include "lowerings.h"
#include "support.h"

namespace tico::lowering {
namespace {

class Expand final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (!shapePieces(node.output()->shape(), &node.arg(1), node.input(0), false))
      return "the expanded shape " + shapeString(node.output()->shape()) +
             " has a symbolic dim this lowering cannot compute";
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    auto pieces = shapePieces(node.output()->shape(), &node.arg(1), node.input(0), false);
    int32_t shape = emitIntVector(emit, *pieces, node.name() + "_shape");
    emitOp(emit, circle::BuiltinOperator::BROADCAST_TO, {emit.tensor(node.input(0)), shape}, node.output(),
           options(circle::BroadcastToOptionsT{}));
  }
};

} // namespace

void registerBroadcast(Registrar &r) {
  registerFor(r, {"aten::expand.default", "aten::expand_copy.default"}, "BROADCAST_TO", std::make_shared<Expand>());
}

} // namespace tico::lowering
