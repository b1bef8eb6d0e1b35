// Alias spellings of lowered ops. PyTorch marks each alias CompositeImplicitAutograd, so plain
// torch.export records `aten::multiply.Tensor` where run_decompositions() would record
// `aten::mul.Tensor`. Each rule here rewrites the alias node into its canonical op with the
// same arguments, taken by position (an alias's schema lists its arguments in the canonical
// op's order; some name them differently, e.g. linalg_diagonal's `A` for `self`). Defaults the
// canonical schema has beyond the alias's are filled by the builder.
//
// The table lists only exact aliases (same values for every input). Ops that merely compose
// others (fliplr, ravel, ...) have rules of their own (convenience.cpp, array_ops.cpp).
#include "decomposition.h"

#include "tico/ir/op_key.h"
#include "tico/ir/op_schema.h"

#include <utility>

namespace tico::decompose {
namespace {

struct Alias {
  const char *alias;
  const char *canonical;
};

// alias op key -> canonical op key (both with their overloads).
constexpr Alias kAliases[] = {
    {"aten::absolute.default", "aten::abs.default"},
    {"aten::arccos.default", "aten::acos.default"},
    {"aten::arccosh.default", "aten::acosh.default"},
    {"aten::arcsin.default", "aten::asin.default"},
    {"aten::arcsinh.default", "aten::asinh.default"},
    {"aten::arctan.default", "aten::atan.default"},
    {"aten::arctanh.default", "aten::atanh.default"},
    {"aten::arctan2.default", "aten::atan2.default"},
    {"aten::clip.default", "aten::clamp.default"},
    {"aten::clip.Tensor", "aten::clamp.Tensor"},
    {"aten::concat.default", "aten::cat.default"},
    {"aten::concatenate.default", "aten::cat.default"},
    {"aten::divide.Tensor", "aten::div.Tensor"},
    {"aten::divide.Scalar", "aten::div.Scalar"},
    {"aten::divide.Tensor_mode", "aten::div.Tensor_mode"},
    {"aten::divide.Scalar_mode", "aten::div.Scalar_mode"},
    {"aten::true_divide.Tensor", "aten::div.Tensor"},
    {"aten::true_divide.Scalar", "aten::div.Scalar"},
    {"aten::multiply.Tensor", "aten::mul.Tensor"},
    {"aten::multiply.Scalar", "aten::mul.Scalar"},
    {"aten::subtract.Tensor", "aten::sub.Tensor"},
    {"aten::subtract.Scalar", "aten::sub.Scalar"},
    {"aten::negative.default", "aten::neg.default"},
    {"aten::fix.default", "aten::trunc.default"},
    {"aten::greater.Tensor", "aten::gt.Tensor"},
    {"aten::greater.Scalar", "aten::gt.Scalar"},
    {"aten::greater_equal.Tensor", "aten::ge.Tensor"},
    {"aten::greater_equal.Scalar", "aten::ge.Scalar"},
    {"aten::less.Tensor", "aten::lt.Tensor"},
    {"aten::less.Scalar", "aten::lt.Scalar"},
    {"aten::less_equal.Tensor", "aten::le.Tensor"},
    {"aten::less_equal.Scalar", "aten::le.Scalar"},
    {"aten::not_equal.Tensor", "aten::ne.Tensor"},
    {"aten::not_equal.Scalar", "aten::ne.Scalar"},
    {"aten::linalg_matmul.default", "aten::matmul.default"},
    {"aten::linalg_diagonal.default", "aten::diagonal.default"},
    {"aten::diagonal_copy.default", "aten::diagonal.default"},
    {"aten::narrow_copy.default", "aten::narrow.default"},
    {"aten::unfold_copy.default", "aten::unfold.default"},
    {"aten::matrix_H.default", "aten::mH.default"},
    {"aten::matrix_power.default", "aten::linalg_matrix_power.default"},
    {"aten::special_exp2.default", "aten::exp2.default"},
    {"aten::special_expit.default", "aten::sigmoid.default"},
    {"aten::special_expm1.default", "aten::expm1.default"},
    {"aten::special_log1p.default", "aten::log1p.default"},
    {"aten::special_sinc.default", "aten::sinc.default"},
    {"aten::special_erf.default", "aten::erf.default"},
    {"aten::special_erfc.default", "aten::erfc.default"},
    {"aten::special_logit.default", "aten::logit.default"},
    {"aten::special_round.default", "aten::round.decimals"},
    {"aten::special_softmax.default", "aten::softmax.int"},
    {"aten::special_log_softmax.default", "aten::log_softmax.int"},
    {"aten::special_digamma.default", "aten::digamma.default"},
    {"aten::special_psi.default", "aten::digamma.default"},
    {"aten::special_gammaln.default", "aten::lgamma.default"},
    {"aten::special_i0.default", "aten::i0.default"},
    {"aten::special_erfinv.default", "aten::erfinv.default"},
};

Rewrite renameTo(std::string canonical) {
  return [canonical = OpKey::parseOrThrow(canonical)](Builder &b, Node &n) -> Replacement {
    const OpSchema *schema = b.graph().schemas() ? b.graph().schemas()->find(canonical) : nullptr;
    if (schema == nullptr || n.numOutputs() != 1)
      return std::nullopt;
    std::vector<NamedArg> args;
    for (std::size_t i = 0; i < n.numArgs(); ++i) {
      if (i >= schema->arguments.size())
        return std::nullopt; // more arguments than the canonical op takes: not an alias
      args.push_back(NamedArg{schema->arguments[i].name, n.arg(i)});
    }
    // The alias computes what the canonical op computes: its outputs keep the types they have
    // (no type rule needed for canonical ops that are themselves decomposed later).
    std::vector<TensorTypeSpec> outputs;
    for (const Value *out : n.outputs())
      outputs.push_back(TensorTypeSpec{out->kind(), out->dtype(), out->shape(), "", nullptr});
    return std::vector<Value *>{b.node(canonical, std::move(args), std::move(outputs), "_" + canonical.name)->output()};
  };
}

} // namespace

std::vector<Rule> aliasRules() {
  std::vector<Rule> rules;
  for (const Alias &alias : kAliases)
    rules.push_back({alias.alias, renameTo(alias.canonical)});
  return rules;
}

} // namespace tico::decompose
