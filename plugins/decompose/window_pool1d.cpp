// max_pool1d / avg_pool1d, which torch.export records as such (run_decompositions() rewrites
// them the same way): unsqueeze a unit H dim before L, pool in 2-d with a 1 x k window, and
// squeeze H away. The 2-d node then takes the usual path (its lowering, or the window rules
// when it needs them).
#include "window_geometry.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// Inserts the unit H axis into a pooled output shape [..., L] -> [..., 1, L].
Shape withUnitHeight(Shape shape) {
  shape.insert(shape.end() - 1, Dim(1));
  return shape;
}

// The 1-d window parameters as 2-d ones: [1, k], [1, s], [0, p], [1, d].
std::optional<std::vector<Argument>> windowArgs(const Node &n, bool dilation) {
  auto kernel = intsArg(n, "kernel_size", 1, {});
  if (!kernel || kernel->size() != 1)
    return std::nullopt;
  auto stride = intsArg(n, "stride", 1, *kernel);
  auto pad = intsArg(n, "padding", 1, {0});
  auto dil = intsArg(n, "dilation", 1, {1});
  if (!stride || !pad || !dil)
    return std::nullopt;
  std::vector<Argument> args{Ints({1, (*kernel)[0]}), Ints({1, (*stride)[0]}), Ints({0, (*pad)[0]})};
  if (dilation)
    args.push_back(Ints({1, (*dil)[0]}));
  return args;
}

Replacement pool1d(Builder &b, Node &n, bool max) {
  Value *x = n.input("self");
  const Value *out = n.output(0);
  if (x->rank() < 2 || out->rank() != x->rank())
    return std::nullopt;
  auto window = windowArgs(n, max);
  if (!window)
    return std::nullopt;
  std::vector<NamedArg> args{{"", A(b.make("aten::unsqueeze.default", {A(x), A(int64_t{-2})}))}};
  for (Argument &a : *window)
    args.push_back(NamedArg{"", std::move(a)});
  args.push_back(NamedArg{"ceil_mode", A(n.arg("ceil_mode").asBool())});
  if (!max)
    args.push_back(NamedArg{"count_include_pad", A(n.arg("count_include_pad").asBool())});
  const std::string op = max ? "aten::max_pool2d.default" : "aten::avg_pool2d.default";
  Value *pooled = b.typed(op, std::move(args), out->dtype(), withUnitHeight(out->shape()));
  return std::vector<Value *>{b.make("aten::squeeze.dims", {A(pooled), Ints({-2})})};
}

} // namespace

std::vector<Rule> pool1dWindowRules() {
  return {{"aten::max_pool1d.default", [](Builder &b, Node &n) { return pool1d(b, n, true); }},
          {"aten::avg_pool1d.default", [](Builder &b, Node &n) { return pool1d(b, n, false); }}};
}

} // namespace tico::decompose
