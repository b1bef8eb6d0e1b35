// Activations that torch.export keeps as composite ops and no Circle lowering takes, written
// with elementwise ops the lowerings have (exp, log1p, tanh, sigmoid, where, ...):
//   softplus(x, beta, t) = x where beta*x > t, else log1p(exp(beta*x)) / beta
//   mish(x)              = x * tanh(softplus(x))
//   log_sigmoid(x)       = min(x, 0) - log1p(exp(-|x|))      (no overflow for large |x|)
//   celu(x, a)           = x where x > 0, else a * (exp(x / a) - 1)
//   selu(x)              = scale * (x where x > 0, else alpha * (exp(x) - 1))
//   threshold(x, t, v)   = x where x > t, else v
//   glu(x, dim)          = first half * sigmoid(second half)
//   pixel_shuffle(x, r)  = [N, C*r*r, H, W] -> [N, C, r, r, H, W] -> permute -> [N, C, H*r, W*r]
#include "decomposition.h"

#include "tico/ir/shape_utils.h"
#include "type_rules.h"

namespace tico::decompose {

using passes::A;

namespace {

Value *unary(Builder &b, const char *op, Value *x) { return b.make(std::string("aten::") + op + ".default", {A(x)}); }

Value *select(Builder &b, Value *cond, Value *a, Value *other) {
  return b.make("aten::where.self", {A(cond), A(a), A(other)});
}

Value *softplus(Builder &b, Value *x, double beta, double threshold) {
  Value *bx = beta == 1.0 ? x : b.mul(A(x), A(beta));
  Value *soft = unary(b, "log1p", unary(b, "exp", bx));
  if (beta != 1.0)
    soft = b.div(A(soft), A(beta));
  Value *linear = b.make("aten::gt.Scalar", {A(bx), A(threshold)});
  return select(b, linear, x, soft);
}

// x where x > 0, else alpha * (exp(x / input_scale_div) - 1).
Value *eluLike(Builder &b, Value *x, double alpha, double divisor) {
  Value *e = unary(b, "exp", divisor == 1.0 ? x : b.div(A(x), A(divisor)));
  Value *negative = b.mul(A(b.sub(A(e), A(1.0))), A(alpha));
  return select(b, b.make("aten::gt.Scalar", {A(x), A(0.0)}), x, negative);
}

std::vector<Value *> asList(Value *v) { return {v}; }

Replacement glu(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->rank() == 0)
    return std::nullopt;
  const int64_t dim = normalizeDim(passes::staticInt(n.arg("dim")).value_or(-1), static_cast<int64_t>(x->rank()));
  const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
  if (!size.isStatic() || size.value() % 2 != 0)
    return std::nullopt;
  const int64_t half = size.value() / 2;
  Value *a = b.make("aten::slice.Tensor", {A(x), A(dim), A(int64_t{0}), A(half), A(int64_t{1})});
  Value *g = b.make("aten::slice.Tensor", {A(x), A(dim), A(half), A(size.value()), A(int64_t{1})});
  return asList(b.mul(A(a), A(unary(b, "sigmoid", g))));
}

Replacement pixelShuffle(Builder &b, Node &n) {
  Value *x = n.input("self");
  const std::optional<int64_t> r = passes::staticInt(n.arg("upscale_factor"));
  const Shape &s = x->shape();
  if (!r || *r < 1 || s.size() < 3)
    return std::nullopt;
  const std::size_t rank = s.size();
  std::optional<Dim> c = divDims(s[rank - 3], Dim(*r * *r));
  if (!c)
    return std::nullopt;
  Shape batch(s.begin(), s.end() - 3);
  Shape split = batch;
  for (Dim d : {*c, Dim(*r), Dim(*r), s[rank - 2], s[rank - 1]})
    split.push_back(d);
  Value *v = b.reshape(x, split, {x});
  if (!v)
    return std::nullopt;
  std::vector<int64_t> perm;
  const auto nb = static_cast<int64_t>(batch.size());
  for (int64_t i = 0; i < nb; ++i)
    perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2})
    perm.push_back(nb + i);
  Value *p = b.permute(v, perm);
  Shape out = batch;
  out.push_back(*c);
  out.push_back(mulDims(s[rank - 2], Dim(*r)));
  out.push_back(mulDims(s[rank - 1], Dim(*r)));
  Value *y = b.reshape(p, out, {x});
  return y ? Replacement(asList(y)) : std::nullopt;
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

} // namespace

std::vector<Rule> activationRules() {
  return {
      {"aten::softplus.default",
       [](Builder &b, Node &n) -> Replacement {
         return asList(softplus(b, n.input("self"), numberArg(n, "beta", 1.0), numberArg(n, "threshold", 20.0)));
       }},
      {"aten::mish.default",
       [](Builder &b, Node &n) -> Replacement {
         Value *x = n.input("self");
         return asList(b.mul(A(x), A(unary(b, "tanh", softplus(b, x, 1.0, 20.0)))));
       }},
      {"aten::log_sigmoid.default",
       [](Builder &b, Node &n) -> Replacement {
         Value *x = n.input("self");
         Value *tail = unary(b, "log1p", unary(b, "exp", unary(b, "neg", unary(b, "abs", x))));
         Value *low = b.make("aten::clamp_max.default", {A(x), A(0.0)});
         return asList(b.sub(A(low), A(tail)));
       }},
      {"aten::celu.default",
       [](Builder &b, Node &n) -> Replacement {
         const double alpha = numberArg(n, "alpha", 1.0);
         if (alpha == 0.0)
           return std::nullopt;
         return asList(eluLike(b, n.input("self"), alpha, alpha));
       }},
      {"aten::selu.default",
       [](Builder &b, Node &n) -> Replacement {
         return asList(b.mul(A(eluLike(b, n.input("self"), kSeluAlpha, 1.0)), A(kSeluScale)));
       }},
      {"aten::threshold.default",
       [](Builder &b, Node &n) -> Replacement {
         Value *x = n.input("self");
         Value *keep = b.make("aten::gt.Scalar", {A(x), n.arg("threshold")});
         return asList(b.make("aten::where.ScalarOther", {A(keep), A(x), n.arg("value")}));
       }},
      {"aten::glu.default", glu},
      {"aten::pixel_shuffle.default", pixelShuffle},
  };
}

} // namespace tico::decompose
