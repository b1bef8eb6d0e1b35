// Operators that only move codes around run the plain kernel on the raw integers: that is
// exact when every quantized tensor of the operator has the same scale and zero point (the
// converter gives them the same parameters; a QUANTIZE in front requantizes otherwise). PAD
// fills with the zero point (see kernels/pad.cpp), i.e. with the real value 0.
#include "kernels/quantized/registrations.h"
#include "quant/qparams.h"

namespace tico::interp {
namespace {

// "" when all quantized tensors of the operator share one per-tensor scale and zero point.
std::string checkSameQParams(const OpSignature &op) {
  const CircleTensor *first = nullptr;
  auto visit = [&](const CircleTensor &tensor, const std::string &role) -> std::string {
    if (!quant::isQuantizedTensor(tensor))
      return "";
    (void)quant::perTensorQParams(tensor, role); // validates, and rejects per-channel data
    if (first == nullptr) {
      first = &tensor;
      return "";
    }
    if (!quant::sameQParams(*first, tensor))
      return role + " is " + quant::describeType(tensor) + " but '" + first->name + "' is " +
             quant::describeType(*first) + " (a data-movement operator keeps the quantization parameters)";
    return "";
  };
  for (std::size_t i = 0; i < op.inputCount(); ++i)
    if (op.hasInput(i))
      if (auto reason = visit(op.inputTensor(i), "input " + std::to_string(i) + " '" + op.inputTensor(i).name + "'");
          !reason.empty())
        return reason;
  for (std::size_t i = 0; i < op.outputCount(); ++i)
    if (auto reason = visit(op.outputTensor(i), "output " + std::to_string(i) + " '" + op.outputTensor(i).name + "'");
        !reason.empty())
      return reason;
  return "";
}

} // namespace

void registerQuantizedDataMovement(KernelTable &table) {
  using B = circle::BuiltinOperator;
  for (B op : {B::RESHAPE, B::SQUEEZE, B::EXPAND_DIMS, B::TRANSPOSE, B::GATHER_ND, B::SLICE,
               B::STRIDED_SLICE, B::SPLIT, B::SPLIT_V, B::UNPACK, B::PACK, B::TILE, B::BROADCAST_TO, B::REVERSE_V2,
               B::PAD, B::PADV2, B::MIRROR_PAD, B::RESIZE_NEAREST_NEIGHBOR, B::SHAPE}) {
    const KernelInfo *plain = table.find(static_cast<int32_t>(op));
    if (plain == nullptr)
      throw Error(std::string("interpreter: no plain kernel for quantized ") + circle::EnumNameBuiltinOperator(op));
    table.addQuantized(op, plain->run, checkSameQParams, plain->traits);
  }
}

} // namespace tico::interp
