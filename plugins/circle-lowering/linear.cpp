// linear -> FULLY_CONNECTED; mm / bmm / matmul / addmm -> BATCH_MATMUL (+ MUL/ADD for addmm).
//
// FULLY_CONNECTED takes weights as PyTorch stores them ([out, in]), keeps the leading dims of
// the input (keep_num_dims) and marks an absent bias with -1; a 1-D input runs as a one-row
// matrix. Matrix products with a constant
// operand normally reach this point as linear already (the convert-matmul-to-linear and
// restore-linear passes); what remains is a product of two computed tensors.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

#include <algorithm>

namespace tico::lowering {
namespace {

circle::BuiltinOptionsUnion batchMatMulOptions(bool adjoint_lhs = false, bool adjoint_rhs = false) {
  circle::BatchMatMulOptionsT o;
  o.adjoint_lhs = adjoint_lhs;
  o.adjoint_rhs = adjoint_rhs;
  return options(std::move(o));
}

// The operand `v` is transpose(x, -2, -1) of a float x of rank >= 2: BATCH_MATMUL reads x with
// its adjoint flag instead, and the TRANSPOSE, when nothing else reads it, is left for dce (an
// attention's keys: q @ k^T copied the whole key cache per layer and step).
const Value *transposedOperand(const Value *v) {
  const Node *p = v->producer();
  if (p == nullptr || p->opId() != ops::aten::transpose_int || v->rank() < 2)
    return nullptr;
  const int64_t rank = v->rank();
  const int64_t d0 = normalizeDim(p->arg(1).asInt(), rank), d1 = normalizeDim(p->arg(2).asInt(), rank);
  if (std::min(d0, d1) != rank - 2 || std::max(d0, d1) != rank - 1)
    return nullptr;
  return p->input(0);
}

class Linear final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *input = node.input(0);
    const Value *weight = node.input(1);
    if (input->rank() < 1)
      return "linear of a scalar input";
    if (weight->rank() != 2)
      return "FULLY_CONNECTED needs a 2-D weight; '" + weight->name() + "' has rank " + std::to_string(weight->rank());
    const Argument &bias = node.arg(2);
    if (!bias.isNone() && bias.asValue()->rank() != 1)
      return "FULLY_CONNECTED needs a 1-D bias";
    if (auto r = requireFloatOrQuantized(input, "FULLY_CONNECTED"); !r.empty())
      return r;
    if (auto r = requireFloatOrQuantized(weight, "FULLY_CONNECTED"); !r.empty())
      return r;
    return quantizedOperands(node, "FULLY_CONNECTED");
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    int32_t input = emit.tensor(in);
    int32_t weight = emit.tensor(node.input(1));
    const Argument &bias = node.arg(2);
    int32_t bias_t = -1;
    if (!bias.isNone())
      bias_t = biasTensor(emit, bias.asValue(), out, out->dtype(), node.name() + "_bias");
    circle::FullyConnectedOptionsT fc;
    fc.keep_num_dims = true;
    if (in->rank() != 1) {
      emitOp(emit, circle::BuiltinOperator::FULLY_CONNECTED, {input, weight, bias_t}, out, options(std::move(fc)));
      return;
    }
    // A vector input ([in] -> [out]): FULLY_CONNECTED over a 1-D input is legal Circle, but
    // runtimes validate its input as [batch, in] (onert 0.2 rejects a 1-D one at session
    // preparation), so the product runs on a one-row matrix: [in] -> [1, in] -> [1, out] -> [out].
    if (out->isQuantized())
      throw Error("quantized FULLY_CONNECTED of a 1-D input is not supported");
    Shape row{1, in->shape()[0]};
    int32_t matrix = emit.newTensor(in->dtype(), row, node.name() + "_input_row");
    emitReshapeInto(emit, input, row, nullptr, in, matrix, node.name() + "_input_row");
    Shape product_shape{1, out->shape()[0]};
    int32_t product = emit.newTensor(out->dtype(), product_shape, node.name() + "_row");
    emit.addOperator(circle::BuiltinOperator::FULLY_CONNECTED, {matrix, weight, bias_t}, {product},
                     options(std::move(fc)));
    emitReshapeInto(emit, product, out->shape(), nullptr, nullptr, emit.tensor(out), node.name());
  }
};

// mm, bmm, and matmul of operands of rank >= 2 (BATCH_MATMUL broadcasts batch dims). A 1-D
// operand of matmul is reshaped to a matrix first and the result reshaped back.
class MatMul final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *a = node.input(0);
    const Value *b = node.input(1);
    if (a->rank() < 1 || b->rank() < 1)
      return "matrix product of a scalar";
    if (anyQuantized({a, b, node.output()})) {
      if (a->rank() < 2 || b->rank() < 2)
        return "quantized BATCH_MATMUL of a 1-D operand is not supported";
      return quantizedSameType({a, b, node.output()}, "BATCH_MATMUL");
    }
    if (auto r = requireFloat(a, "BATCH_MATMUL"); !r.empty())
      return r;
    if (auto r = requireFloat(b, "BATCH_MATMUL"); !r.empty())
      return r;
    if (a->rank() == 1 || b->rank() == 1)
      return reshapeUnsupported(node.output()->shape(), nullptr, nullptr);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *a = node.input(0);
    const Value *b = node.input(1);
    const Value *out = node.output();
    if (a->rank() >= 2 && b->rank() >= 2) {
      const bool plain = !anyQuantized({a, b, out});
      const Value *ta = plain ? transposedOperand(a) : nullptr;
      const Value *tb = plain ? transposedOperand(b) : nullptr;
      emitOp(emit, circle::BuiltinOperator::BATCH_MATMUL, {emit.tensor(ta ? ta : a), emit.tensor(tb ? tb : b)}, out,
             batchMatMulOptions(ta != nullptr, tb != nullptr));
      return;
    }
    // Promote the 1-D operand(s) to a matrix: [K] -> [1, K] on the left, [K] -> [K, 1] on the right.
    auto asMatrix = [&](const Value *v, bool left) {
      if (v->rank() >= 2)
        return emit.tensor(v);
      Shape m = left ? Shape{1, v->shape()[0]} : Shape{v->shape()[0], 1};
      int32_t t = emit.newTensor(v->dtype(), m, node.name() + (left ? "_lhs_matrix" : "_rhs_matrix"));
      emitReshapeInto(emit, emit.tensor(v), m, nullptr, v, t, node.name() + (left ? "_lhs" : "_rhs"));
      return t;
    };
    int32_t lhs = asMatrix(a, true);
    int32_t rhs = asMatrix(b, false);
    // Product shape: batch dims of the higher-rank operand, then [M, N].
    const Shape &sa = a->shape();
    const Shape &sb = b->shape();
    Shape product;
    if (a->rank() == 1 && b->rank() == 1) {
      product = {1, 1};
    } else if (a->rank() == 1) {
      product.assign(sb.begin(), sb.end() - 2);
      product.push_back(1);
      product.push_back(sb.back());
    } else {
      product.assign(sa.begin(), sa.end() - 1);
      product.push_back(1);
    }
    int32_t p = emit.newTensor(out->dtype(), product, node.name() + "_product");
    emit.addOperator(circle::BuiltinOperator::BATCH_MATMUL, {lhs, rhs}, {p}, batchMatMulOptions());
    emitReshapeInto(emit, p, out->shape(), nullptr, nullptr, emit.tensor(out), node.name());
  }
};

// addmm(bias, m1, m2, beta, alpha) = beta * bias + alpha * (m1 @ m2).
class Addmm final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (!numberOf(node.arg("beta")) || !numberOf(node.arg("alpha")))
      return "beta and alpha must be numbers";
    for (std::size_t i = 0; i < 3; ++i)
      if (auto r = requireFloat(node.input(i), "addmm"); !r.empty())
        return r;
    if (node.input(1)->rank() != 2 || node.input(2)->rank() != 2)
      return "addmm needs matrices";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *out = node.output();
    double beta = node.arg("beta").asDouble();
    double alpha = node.arg("alpha").asDouble();
    const std::string base = node.name();
    int32_t result = emit.tensor(out);

    bool product_is_result = beta == 0.0 && alpha == 1.0;
    int32_t product = product_is_result ? result : emit.newTensor(out->dtype(), out->shape(), base + "_product");
    emit.addOperator(circle::BuiltinOperator::BATCH_MATMUL, {emit.tensor(node.input(1)), emit.tensor(node.input(2))},
                     {product}, batchMatMulOptions());
    if (product_is_result)
      return;
    int32_t scaled = product;
    if (alpha != 1.0) {
      scaled = beta == 0.0 ? result : emit.newTensor(out->dtype(), out->shape(), base + "_scaled");
      int32_t alpha_t = scalarConstant(emit, out->dtype(), alpha, base + "_alpha");
      emit.addOperator(circle::BuiltinOperator::MUL, {product, alpha_t}, {scaled}, options(circle::MulOptionsT{}));
    }
    // beta == 0 ignores the bias entirely (even NaN), as PyTorch does.
    if (beta == 0.0)
      return;
    const Value *bias_value = node.input(0);
    int32_t bias = emit.tensor(bias_value);
    if (beta != 1.0) {
      int32_t scaled_bias = emit.newTensor(out->dtype(), bias_value->shape(), base + "_scaled_bias");
      emit.addOperator(circle::BuiltinOperator::MUL, {bias, scalarConstant(emit, out->dtype(), beta, base + "_beta")},
                       {scaled_bias}, options(circle::MulOptionsT{}));
      bias = scaled_bias;
    }
    emit.addOperator(circle::BuiltinOperator::ADD, {scaled, bias}, {result}, options(circle::AddOptionsT{}));
  }
};

} // namespace

void registerLinear(Registrar &r) {
  registerFor(r, {ops::aten::linear_default}, "FULLY_CONNECTED (keep_num_dims, bias -1 when absent)",
              std::make_shared<Linear>());
  registerFor(r, {ops::aten::mm_default, ops::aten::bmm_default, ops::aten::matmul_default},
              "BATCH_MATMUL (1-D matmul operands reshaped to matrices)", std::make_shared<MatMul>());
  registerFor(r, {ops::aten::addmm_default}, "BATCH_MATMUL + MUL/ADD for alpha, beta and the bias",
              std::make_shared<Addmm>());
}

} // namespace tico::lowering
