#include "kernels/quantized/checks.h"

#include "quant/qparams.h"

namespace tico::interp::quant {

std::string checkPerTensorCodes(const OpSignature &op, std::initializer_list<std::size_t> inputs) {
  for (std::size_t i : inputs) {
    if (auto reason = requireInputType(op, i, {DType::UInt8, DType::Int8, DType::Int16}); !reason.empty())
      return reason;
    (void)perTensorQParams(op.inputTensor(i), "input " + std::to_string(i));
  }
  const DType out = op.outputType(0);
  if (out != DType::UInt8 && out != DType::Int8 && out != DType::Int16)
    return "output is " + dtypeString(out) + " (quantized outputs are uint8, int8 or int16)";
  (void)perTensorQParams(op.outputTensor(0), "output");
  return "";
}

std::string checkSameCodesAsInput(const OpSignature &op) {
  if (auto reason = checkPerTensorCodes(op, {0}); !reason.empty())
    return reason;
  if (op.inputType(0) != op.outputType(0) || !sameQParams(op.inputTensor(0), op.outputTensor(0)))
    return "output " + describeType(op.outputTensor(0)) + " differs from input " + describeType(op.inputTensor(0)) +
           " (this operator keeps the quantization parameters)";
  return "";
}

} // namespace tico::interp::quant
