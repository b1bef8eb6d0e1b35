// Weight-only FULLY_CONNECTED and GATHER on integer codes (weight_only.h).
#include "kernels/weight_only.h"

#include "gemm.h"
#include "kernels/registrations.h"
#include "parallel.h"
#include "quant/code_dot.h"
#include "quant/qparams.h"

#include "tico/ir/tensor_data.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

// Per-row scale and zero point of codes [rows, ...] quantized per tensor or along dim 0.
struct RowParams {
  std::vector<float> scale;
  std::vector<int32_t> zero;
  float scaleOf(int64_t row) const { return scale[scale.size() == 1 ? 0 : static_cast<std::size_t>(row)]; }
  int32_t zeroOf(int64_t row) const { return zero[zero.size() == 1 ? 0 : static_cast<std::size_t>(row)]; }
};

RowParams rowParams(const CircleTensor &codes, const char *role) {
  const quant::QParams q = quant::qparamsOf(codes, role);
  check(!q.perChannel() || q.axis == 0, std::string(role) + " are quantized along dim " + std::to_string(q.axis) +
                                            "; a weight-only kernel reads per-row parameters only");
  RowParams p;
  for (double s : q.scale)
    p.scale.push_back(static_cast<float>(s)); // Circle scales are float32: exact
  for (int64_t z : q.zero_point)
    p.zero.push_back(static_cast<int32_t>(z));
  return p;
}

template <typename W> void dequantizeRows(const W *codes, int64_t first, int64_t count, int64_t depth, const RowParams &p,
                                          float *out) {
  for (int64_t r = 0; r < count; ++r) {
    const float s = p.scaleOf(first + r);
    const int32_t z = p.zeroOf(first + r);
    const W *row = codes + (first + r) * depth;
    float *dst = out + r * depth;
    // The float DEQUANTIZE computes float((code − zero) · scale): one rounding of the exact
    // product, which the float product below also is.
    for (int64_t k = 0; k < depth; ++k)
      dst[k] = static_cast<float>(static_cast<int32_t>(row[k]) - z) * s;
  }
}

// Rows of activations below which the product is a matrix-vector one per row: each weight row
// is read once per activation row, so the codes' bytes are what is read.
constexpr int64_t kVectorRows = 4;
// Weight rows dequantized at a time for the matrix product of longer inputs.
constexpr int64_t kUnitBlock = 64;

template <typename W>
void weightOnlyProduct(const float *x, const W *w, const RowParams &p, const float *bias, int64_t rows, int64_t units,
                       int64_t depth, float *y) {
  if (rows <= kVectorRows) {
    parallelFor(units, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, depth)), [&](int64_t u0, int64_t u1) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t u = u0; u < u1; ++u) {
          const float dot = quant::dotFloatCodes(x + r * depth, w + u * depth, p.zeroOf(u), depth);
          y[r * units + u] = dot * p.scaleOf(u) + (bias ? bias[u] : 0.0f);
        }
    });
    return;
  }
  // Longer inputs: blocks of weight rows dequantized into a scratch buffer per thread and
  // multiplied on the float product; the float copy of the whole weight never exists.
  const int64_t blocks = (units + kUnitBlock - 1) / kUnitBlock;
  parallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> scratch(static_cast<std::size_t>(kUnitBlock * depth));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t u0 = b * kUnitBlock, n = std::min(kUnitBlock, units - u0);
      dequantizeRows(w, u0, n, depth, p, scratch.data());
      gemmNT(rows, n, depth, x, depth, scratch.data(), depth, y + u0, units, bias ? bias + u0 : nullptr);
    }
  });
}

// float16 weights (a half-precision checkpoint stored as FLOAT16 + DEQUANTIZE) carry no
// parameters: rows are widened to float32, exactly, with the core's F16C-backed conversion.
void widenHalfRows(const uint16_t *weights, int64_t first, int64_t count, int64_t depth, float *out) {
  widenToFloat32(DType::Float16, reinterpret_cast<const std::byte *>(weights + first * depth), out,
                 static_cast<std::size_t>(count * depth));
}

// The product with float16 weights: blocks of rows widened into a per-thread scratch buffer and
// multiplied on the float product (for a few activation rows too: widening a row costs about
// what reading it does), so the float copy of the whole weight never exists.
void halfWeightProduct(const float *x, const uint16_t *w, const float *bias, int64_t rows, int64_t units, int64_t depth,
                       float *y) {
  const int64_t blocks = (units + kUnitBlock - 1) / kUnitBlock;
  parallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> scratch(static_cast<std::size_t>(kUnitBlock * depth));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t u0 = b * kUnitBlock, n = std::min(kUnitBlock, units - u0);
      widenHalfRows(w, u0, n, depth, scratch.data());
      gemmNT(rows, n, depth, x, depth, scratch.data(), depth, y + u0, units, bias ? bias + u0 : nullptr);
    }
  });
}

void runWeightOnlyFullyConnected(KernelContext &ctx) {
  const auto &options = ctx.options<circle::FullyConnectedOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &weights = ctx.input(1);
  check(input.dtype == DType::Float32, "input must be float32, got " + dtypeString(input.dtype));
  check(weights.rank() == 2, "weights must be 2-D [units, in], got shape " + shapeString(weights.shape));
  const int64_t units = weights.dim(0), depth = weights.dim(1), total = input.numel();
  check(depth > 0 ? total % depth == 0 : total == 0,
        "input shape " + shapeString(input.shape) + " does not divide into rows of " + std::to_string(depth) +
            " (weights " + shapeString(weights.shape) + ")");
  const int64_t rows = depth > 0 ? total / depth : 0;
  const float *bias = nullptr;
  if (ctx.present(2)) {
    const Tensor &b = ctx.input(2);
    check(b.dtype == DType::Float32 && b.numel() == units, "bias must be float32 with one element per unit");
    bias = b.as<float>();
  }
  Shape shape{rows, units};
  if (options.keep_num_dims) {
    shape = input.shape;
    shape.back() = units;
  }
  if (weights.dtype == DType::Float16) {
    Tensor &out = ctx.allocateOutput(0, DType::Float32, std::move(shape));
    halfWeightProduct(input.as<float>(), weights.as<uint16_t>(), bias, rows, units, depth, out.mut<float>());
    applyActivation(out.mut<float>(), out.numel(), options.fused_activation_function);
    return;
  }
  const RowParams &p = preparedState<RowParams>(ctx.runner(), ctx.op(), [&] { return rowParams(ctx.inputTensor(1), "weights"); });
  Tensor &out = ctx.allocateOutput(0, DType::Float32, std::move(shape));
  if (weights.dtype == DType::UInt8)
    weightOnlyProduct(input.as<float>(), weights.as<uint8_t>(), p, bias, rows, units, depth, out.mut<float>());
  else
    weightOnlyProduct(input.as<float>(), weights.as<int8_t>(), p, bias, rows, units, depth, out.mut<float>());
  applyActivation(out.mut<float>(), out.numel(), options.fused_activation_function);
}

void runWeightOnlyGather(KernelContext &ctx) {
  const Tensor &table = ctx.input(0);
  const Tensor &indices = ctx.input(1);
  check(indices.dtype == DType::Int32 || indices.dtype == DType::Int64,
        "indices must be int32 or int64, got " + dtypeString(indices.dtype));
  check(table.rank() >= 1, "the table must have rank >= 1");
  const bool half = table.dtype == DType::Float16;
  const RowParams *p = half ? nullptr : &preparedState<RowParams>(ctx.runner(), ctx.op(), [&] {
    return rowParams(ctx.inputTensor(0), "table");
  });
  Shape shape = indices.shape;
  shape.insert(shape.end(), table.shape.begin() + 1, table.shape.end());
  Tensor &out = ctx.allocateOutput(0, DType::Float32, std::move(shape));
  const int64_t rows = table.dim(0), inner = numElements(Shape(table.shape.begin() + 1, table.shape.end()));
  for (int64_t i = 0; i < indices.numel(); ++i) {
    const int64_t index = integerAt(indices, i);
    check(index >= 0 && index < rows,
          "index " + std::to_string(index) + " is out of range for dim 0 of size " + std::to_string(rows));
    if (half)
      widenHalfRows(table.as<uint16_t>(), index, 1, inner, out.mut<float>() + i * inner);
    else if (table.dtype == DType::UInt8)
      dequantizeRows(table.as<uint8_t>(), index, 1, inner, *p, out.mut<float>() + i * inner);
    else
      dequantizeRows(table.as<int8_t>(), index, 1, inner, *p, out.mut<float>() + i * inner);
  }
}

bool isCodes(const CircleTensor &codes) {
  const auto t = codes.type;
  if (t == circle::TensorType::FLOAT16)
    return !codes.quantization || codes.quantization->scale.empty(); // float16 weights: no parameters
  const bool integer = t == circle::TensorType::UINT8 || t == circle::TensorType::INT8 ||
                       t == circle::TensorType::UINT4 || t == circle::TensorType::INT4;
  if (!integer || !codes.quantization || codes.quantization->scale.empty() ||
      codes.quantization->details.type != circle::QuantizationDetails::NONE)
    return false;
  return codes.quantization->scale.size() == 1 || codes.quantization->quantized_dimension == 0;
}

} // namespace

const KernelInfo &weightOnlyFullyConnectedKernel() {
  static const KernelInfo info{runWeightOnlyFullyConnected, nullptr, {}};
  return info;
}

const KernelInfo &weightOnlyGatherKernel() {
  static const KernelInfo info{runWeightOnlyGather, nullptr, {}};
  return info;
}

const KernelInfo *weightOnlyKernelFor(const CircleModel &model, const CircleSubGraph &graph, const CircleOperator &reader,
                                      int32_t dequantized, const CircleTensor &codes) {
  if (!isCodes(codes))
    return nullptr;
  const auto type = [&](int32_t t) { return graph.tensors.at(static_cast<std::size_t>(t)).type; };
  const int32_t code = model.operator_codes.at(reader.opcode_index).builtin_code;
  // The dequantized tensor must be read at the weight/table slot only.
  const std::size_t slot = code == static_cast<int32_t>(circle::BuiltinOperator::GATHER) ? 0 : 1;
  for (std::size_t i = 0; i < reader.inputs.size(); ++i)
    if ((reader.inputs[i] == dequantized) != (i == slot))
      return nullptr;
  if (reader.outputs.size() != 1 || type(reader.outputs[0]) != circle::TensorType::FLOAT32)
    return nullptr;
  if (code == static_cast<int32_t>(circle::BuiltinOperator::FULLY_CONNECTED)) {
    const OpSignature signature(model, graph, reader);
    const auto &options = signature.options<circle::FullyConnectedOptionsT>();
    if (reader.inputs.size() < 2 || type(reader.inputs[0]) != circle::TensorType::FLOAT32 || codes.shape.size() != 2 ||
        options.weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT ||
        (reader.inputs.size() > 2 && reader.inputs[2] >= 0 && type(reader.inputs[2]) != circle::TensorType::FLOAT32))
      return nullptr;
    return &weightOnlyFullyConnectedKernel();
  }
  if (code == static_cast<int32_t>(circle::BuiltinOperator::GATHER)) {
    const OpSignature signature(model, graph, reader);
    const auto &options = signature.options<circle::GatherOptionsT>();
    const auto rank = static_cast<int32_t>(codes.shape.size());
    if (reader.inputs.size() != 2 || rank < 1 || !(options.axis == 0 || options.axis == -rank) || options.batch_dims != 0)
      return nullptr;
    return &weightOnlyGatherKernel();
  }
  return nullptr;
}

} // namespace tico::interp
