// Result-type rules, one small function per op family, looked up by op key.
#include "type_rules.h"

#include "tico/ir/shape_utils.h"
#include "pass_support.h"

#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

namespace tico::passes {
namespace {

using Types = std::vector<TensorTypeSpec>;
using Result = std::optional<Types>;

// Thrown inside a rule to report why it cannot type the node.
struct Unknown {
  std::string why;
};

TensorTypeSpec tensor(DType dtype, Shape shape) {
  TensorTypeSpec t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

const Value *tensorArg(const Node &n, std::size_t i) {
  const Argument &a = n.arg(i);
  if (!a.isValue() || !a.asValue()->isTensor())
    throw Unknown{"argument '" + n.args()[i].name + "' is not a tensor"};
  const Value *v = a.asValue();
  if (v->dtype() == DType::Unknown)
    throw Unknown{"argument '" + v->name() + "' has no type yet"};
  return v;
}

Shape shapeOf(const Argument &a) {
  if (a.isValue() && a.asValue()->isTensor())
    return a.asValue()->shape();
  return {};
}

Shape broadcastAll(const std::vector<const Argument *> &args) {
  Shape out;
  for (const Argument *a : args) {
    if (!a || a->isNone())
      continue;
    auto b = broadcastShapes(out, shapeOf(*a));
    if (!b)
      throw Unknown{"operand shapes do not broadcast"};
    out = *b;
  }
  return out;
}

DType promoted(const std::vector<const Argument *> &args) {
  DType t = resultType(args);
  if (t == DType::Unknown)
    throw Unknown{"no operand has a dtype"};
  return t;
}

DType floatOf(DType t) { return isFloating(t) || t == DType::Complex64 || t == DType::Complex128 ? t : DType::Float32; }

std::optional<DType> dtypeArg(const Node &n, std::string_view name) {
  const Argument *a = n.findArg(name);
  if (!a || a->isNone())
    return std::nullopt;
  return a->asScalarType();
}

// A size list (int[] or SymInt[]) as dims; -1 stays a static -1.
Shape sizesOf(const Argument &a) {
  Shape out;
  if (a.kind() == Argument::Kind::IntList) {
    for (int64_t v : a.asInts())
      out.push_back(Dim(v));
  } else if (a.kind() == Argument::Kind::SymIntList) {
    for (const SymIntElem &e : a.asSymInts()) {
      if (!e.sym) {
        out.push_back(Dim(e.value));
      } else if (!e.sym->symExpr().empty()) {
        const std::string &expr = e.sym->symExpr();
        if (expr.find_first_not_of("0123456789") == std::string::npos)
          out.push_back(Dim(std::stoll(expr))); // a SymInt that torch already knew to be constant
        else
          out.push_back(Dim::symbolic(expr, e.sym->symHint()));
      } else {
        throw Unknown{"symbolic size '" + e.sym->name() + "' has no expression"};
      }
    }
  } else if (a.kind() == Argument::Kind::Int) {
    out.push_back(Dim(a.asInt()));
  } else {
    throw Unknown{"size argument is not an int list"};
  }
  return out;
}

// An int-or-SymInt scalar argument as a dim.
std::optional<Dim> dimArg(const Argument &a) {
  if (a.isInt())
    return Dim(a.asInt());
  if (a.isValue() && a.asValue()->kind() == ValueKind::SymInt && !a.asValue()->symExpr().empty())
    return Dim::symbolic(a.asValue()->symExpr(), a.asValue()->symHint());
  return std::nullopt;
}

std::vector<int64_t> dimList(const Argument &a, int64_t rank) {
  std::vector<int64_t> dims;
  if (a.isNone())
    return dims;
  if (a.isInt())
    dims.push_back(normalizeDim(a.asInt(), rank));
  else
    for (int64_t d : a.asInts())
      dims.push_back(normalizeDim(d, rank));
  return dims;
}

Shape reduced(const Shape &in, const std::vector<int64_t> &dims_given, bool keepdim) {
  std::vector<int64_t> dims = dims_given;
  if (dims.empty())
    for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i)
      dims.push_back(i);
  Shape out;
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    bool r = std::find(dims.begin(), dims.end(), i) != dims.end();
    if (!r)
      out.push_back(in[static_cast<std::size_t>(i)]);
    else if (keepdim)
      out.push_back(Dim(1));
  }
  return out;
}

Dim addDims(const Dim &a, const Dim &b) {
  if (a.isStatic() && b.isStatic())
    return Dim(a.value() + b.value());
  if (a.isStatic() && a.value() == 0)
    return b;
  if (b.isStatic() && b.value() == 0)
    return a;
  std::string lhs = a.isStatic() ? std::to_string(a.value()) : a.expr();
  std::string rhs = b.isStatic() ? std::to_string(b.value()) : b.expr();
  return Dim::symbolic(lhs + " + " + rhs, a.value() + b.value());
}

// ---- shape functions ------------------------------------------------------------------------

Shape reshapeTo(const Shape &in, Shape target) {
  int infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i)
    if (target[i].isStatic() && target[i].value() == -1) {
      if (infer >= 0)
        throw Unknown{"more than one -1 in a reshape"};
      infer = static_cast<int>(i);
    }
  if (infer >= 0) {
    Shape others = target;
    others.erase(others.begin() + infer);
    auto q = divDims(productOf(in), productOf(others));
    if (!q)
      throw Unknown{"cannot infer the -1 of a reshape of " + shapeString(in)};
    target[static_cast<std::size_t>(infer)] = *q;
  }
  return target;
}

Shape matmulShape(const Shape &a, const Shape &b) {
  if (a.empty() || b.empty())
    throw Unknown{"matmul of a scalar"};
  if (a.size() == 1 && b.size() == 1)
    return {};
  if (a.size() == 2 && b.size() == 1)
    return {a[0]};
  if (a.size() == 1 && b.size() == 2)
    return {b[1]};
  if (a.size() == 2 && b.size() == 2)
    return {a[0], b[1]};
  Shape batch_a(a.begin(), a.end() - (a.size() >= 2 ? 2 : 1));
  Shape batch_b(b.begin(), b.end() - (b.size() >= 2 ? 2 : 1));
  auto batch = broadcastShapes(batch_a, batch_b);
  if (!batch)
    throw Unknown{"matmul batch dims do not broadcast"};
  Shape out = *batch;
  if (a.size() >= 2)
    out.push_back(a[a.size() - 2]);
  if (b.size() >= 2)
    out.push_back(b.back());
  return out;
}

Shape sliceShape(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape out = x->shape();
  int64_t dim = normalizeDim(n.arg("dim").asInt(), x->rank());
  const Dim size = out[static_cast<std::size_t>(dim)];
  const Argument &start_arg = n.arg("start"), &end_arg = n.arg("end");
  auto step = staticInt(n.arg("step"));
  if (!step || *step <= 0)
    throw Unknown{"slice step is not a positive constant"};
  std::optional<int64_t> start = start_arg.isNone() ? std::optional<int64_t>(0) : staticInt(start_arg);
  std::optional<int64_t> end = end_arg.isNone() ? std::optional<int64_t>(INT64_MAX) : staticInt(end_arg);
  if (size.isSymbolic()) {
    if (start == 0 && end && *end >= INT64_MAX / 2 && *step == 1)
      return out; // the whole dim
    if (start && end && *start >= 0 && *end >= *start && *end < INT64_MAX / 2 && *end <= size.value()) {
      out[static_cast<std::size_t>(dim)] = Dim((*end - *start + *step - 1) / *step);
      return out;
    }
    // Counting from the end: x[-k:] or x[-k:-j] (k at most the example size).
    if (start && *start < 0 && -*start <= size.value() && *step == 1 && end &&
        (*end >= INT64_MAX / 2 || (*end < 0 && *end > *start))) {
      int64_t stop = *end >= INT64_MAX / 2 ? 0 : *end;
      out[static_cast<std::size_t>(dim)] = Dim(stop - *start);
      return out;
    }
    // x[:-k] of a symbolic dim: size - k (the same expression x[k:] gives).
    if (start == 0 && end && *end < 0 && -*end < size.value() && *step == 1) {
      out[static_cast<std::size_t>(dim)] = Dim::symbolic(size.expr() + " - " + std::to_string(-*end), size.value() + *end);
      return out;
    }
    // slice(x, d, k) of a symbolic dim: size - k, when k is a small positive constant.
    if (start && *start > 0 && end && *end >= INT64_MAX / 2 && *step == 1) {
      out[static_cast<std::size_t>(dim)] =
          Dim::symbolic(size.expr() + " - " + std::to_string(*start), size.value() - *start);
      return out;
    }
    throw Unknown{"slice bounds of a symbolic dim"};
  }
  if (!start || !end)
    throw Unknown{"symbolic slice bounds"};
  int64_t n_ = size.value();
  auto clamp = [n_](int64_t v) {
    if (v < 0)
      v += n_;
    return std::clamp<int64_t>(v, 0, n_);
  };
  int64_t s = clamp(*start), e = std::max(clamp(*end), s);
  out[static_cast<std::size_t>(dim)] = Dim((e - s + *step - 1) / *step);
  return out;
}

// ---- the rule table -------------------------------------------------------------------------

using Rule = std::function<Types(const Node &)>;

Types same(const Node &n) {
  const Value *x = tensorArg(n, 0);
  return {tensor(x->dtype(), x->shape())};
}
Types floatUnary(const Node &n) {
  const Value *x = tensorArg(n, 0);
  return {tensor(floatOf(x->dtype()), x->shape())};
}
Types boolSame(const Node &n) { return {tensor(DType::Bool, tensorArg(n, 0)->shape())}; }

std::vector<const Argument *> operands(const Node &n, std::initializer_list<std::string_view> names) {
  std::vector<const Argument *> out;
  for (std::string_view name : names)
    if (const Argument *a = n.findArg(name))
      out.push_back(a);
  return out;
}

Rule binary(std::initializer_list<std::string_view> names) {
  std::vector<std::string_view> copy(names);
  return [copy](const Node &n) {
    std::vector<const Argument *> ops;
    for (auto name : copy)
      if (const Argument *a = n.findArg(name))
        ops.push_back(a);
    return Types{tensor(promoted(ops), broadcastAll(ops))};
  };
}

Rule compare(std::initializer_list<std::string_view> names) {
  std::vector<std::string_view> copy(names);
  return [copy](const Node &n) {
    std::vector<const Argument *> ops;
    for (auto name : copy)
      if (const Argument *a = n.findArg(name))
        ops.push_back(a);
    return Types{tensor(DType::Bool, broadcastAll(ops))};
  };
}

Types trueDivide(const Node &n) {
  auto ops = operands(n, {"self", "other"});
  DType t = promoted(ops);
  const Argument *mode = n.findArg("rounding_mode");
  bool rounding = mode && !mode->isNone();
  if (!rounding)
    t = floatOf(t);
  return {tensor(t, broadcastAll(ops))};
}

Types whereRule(const Node &n) {
  auto values = operands(n, {"self", "other"});
  auto all = operands(n, {"condition", "self", "other"});
  return {tensor(promoted(values), broadcastAll(all))};
}

Types toCopy(const Node &n) {
  const Value *x = tensorArg(n, 0);
  return {tensor(dtypeArg(n, "dtype").value_or(x->dtype()), x->shape())};
}

Types softmaxRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  DType t = x->dtype();
  if (const Argument *h = n.findArg("half_to_float"); h && h->isBool() && h->asBool())
    t = DType::Float32;
  return {tensor(dtypeArg(n, "dtype").value_or(t), x->shape())};
}

Types reduceRule(const Node &n, DType dtype, bool default_keep = false) {
  const Value *x = tensorArg(n, 0);
  const Argument *dim = n.findArg("dim");
  const Argument *keep = n.findArg("keepdim");
  std::vector<int64_t> dims = dim ? dimList(*dim, x->rank()) : std::vector<int64_t>{};
  return {tensor(dtype, reduced(x->shape(), dims, keep ? keep->asBool() : default_keep))};
}

Types meanRule(const Node &n) { return reduceRule(n, dtypeArg(n, "dtype").value_or(tensorArg(n, 0)->dtype())); }
Types sumRule(const Node &n) {
  DType t = tensorArg(n, 0)->dtype();
  if (t == DType::Bool || isInteger(t))
    t = DType::Int64;
  return reduceRule(n, dtypeArg(n, "dtype").value_or(t));
}
Types sameReduce(const Node &n) { return reduceRule(n, tensorArg(n, 0)->dtype()); }
Types boolReduce(const Node &n) { return reduceRule(n, DType::Bool); }
Types varRule(const Node &n) { return reduceRule(n, floatOf(tensorArg(n, 0)->dtype())); }
Types varMeanRule(const Node &n) {
  Types t = varRule(n);
  t.push_back(t[0]);
  return t;
}
Types maxDimRule(const Node &n) {
  Types t = sameReduce(n);
  t.push_back(tensor(DType::Int64, t[0].shape));
  return t;
}
Types argReduce(const Node &n) { return reduceRule(n, DType::Int64); }

Types viewRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  return {tensor(x->dtype(), reshapeTo(x->shape(), sizesOf(n.arg(1))))};
}

Types permuteRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape out;
  for (int64_t d : n.arg(1).asInts())
    out.push_back(x->shape().at(static_cast<std::size_t>(normalizeDim(d, x->rank()))));
  if (out.size() != x->shape().size())
    throw Unknown{"permutation of the wrong length"};
  return {tensor(x->dtype(), out)};
}

Types transposeRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape out = x->shape();
  if (x->rank() < 2)
    return {tensor(x->dtype(), out)};
  bool t = n.op().name == "t" || n.op().name == "t_copy";
  int64_t a = t ? 0 : normalizeDim(n.arg(1).asInt(), x->rank());
  int64_t b = t ? 1 : normalizeDim(n.arg(2).asInt(), x->rank());
  std::swap(out[static_cast<std::size_t>(a)], out[static_cast<std::size_t>(b)]);
  return {tensor(x->dtype(), out)};
}

Types unsqueezeRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape out = x->shape();
  int64_t d = normalizeDim(n.arg(1).asInt(), x->rank() + 1);
  out.insert(out.begin() + d, Dim(1));
  return {tensor(x->dtype(), out)};
}

Types squeezeRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  std::vector<int64_t> dims;
  if (n.numArgs() < 2) {
    for (int64_t i = 0; i < x->rank(); ++i)
      dims.push_back(i);
  } else {
    dims = dimList(n.arg(1), x->rank());
  }
  Shape out;
  for (int64_t i = 0; i < x->rank(); ++i) {
    const Dim &d = x->shape()[static_cast<std::size_t>(i)];
    bool drop = d.isStatic() && d.value() == 1 && std::find(dims.begin(), dims.end(), i) != dims.end();
    if (!drop)
      out.push_back(d);
  }
  return {tensor(x->dtype(), out)};
}

Types expandRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape sizes = sizesOf(n.arg(1));
  if (sizes.size() < x->shape().size())
    throw Unknown{"expand to a lower rank"};
  std::size_t lead = sizes.size() - x->shape().size();
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i].isStatic() && sizes[i].value() == -1) {
      if (i < lead)
        throw Unknown{"-1 in a new leading dim of expand"};
      sizes[i] = x->shape()[i - lead];
    }
  return {tensor(x->dtype(), sizes)};
}

Types selectRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape out = x->shape();
  out.erase(out.begin() + normalizeDim(n.arg(1).asInt(), x->rank()));
  return {tensor(x->dtype(), out)};
}

Types indexSelectRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  const Value *index = tensorArg(n, 2);
  Shape out = x->shape();
  out[static_cast<std::size_t>(normalizeDim(n.arg(1).asInt(), x->rank()))] = index->rank() == 0 ? Dim(1) : index->shape()[0];
  return {tensor(x->dtype(), out)};
}

Types catRule(const Node &n) {
  const auto &tensors = n.arg(0).asValues();
  std::vector<const Value *> parts;
  for (const Value *v : tensors) {
    if (v->dtype() == DType::Unknown)
      throw Unknown{"argument '" + v->name() + "' has no type yet"};
    bool legacy_empty = v->rank() == 1 && v->shape()[0].isStatic() && v->shape()[0].value() == 0;
    if (!legacy_empty)
      parts.push_back(v);
  }
  if (parts.empty())
    return {tensor(tensors.empty() ? DType::Float32 : tensors[0]->dtype(), {0})};
  int64_t dim = normalizeDim(n.arg(1).asInt(), parts[0]->rank());
  Shape out = parts[0]->shape();
  DType t = parts[0]->dtype();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    out[static_cast<std::size_t>(dim)] = addDims(out[static_cast<std::size_t>(dim)], parts[i]->shape()[static_cast<std::size_t>(dim)]);
    t = promoteTypes(t, parts[i]->dtype()).value_or(t);
  }
  return {tensor(t, out)};
}

Types splitWithSizesRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  int64_t dim = normalizeDim(n.arg("dim").asInt(), x->rank());
  Types out;
  for (const Dim &s : sizesOf(n.arg(1))) {
    Shape shape = x->shape();
    shape[static_cast<std::size_t>(dim)] = s;
    out.push_back(tensor(x->dtype(), shape));
  }
  return out;
}

Types repeatRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape reps = sizesOf(n.arg(1));
  if (reps.size() < x->shape().size())
    throw Unknown{"repeat with fewer repeats than dims"};
  std::size_t lead = reps.size() - x->shape().size();
  Shape out;
  for (std::size_t i = 0; i < reps.size(); ++i)
    out.push_back(i < lead ? reps[i] : mulDims(reps[i], x->shape()[i - lead]));
  return {tensor(x->dtype(), out)};
}

Types padRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  Shape pads = sizesOf(n.arg(1));
  Shape out = x->shape();
  if (pads.size() % 2 != 0 || pads.size() / 2 > out.size())
    throw Unknown{"padding list of the wrong length"};
  for (std::size_t i = 0; i + 1 < pads.size(); i += 2) {
    if (!pads[i].isStatic() || !pads[i + 1].isStatic())
      throw Unknown{"symbolic padding"};
    Dim &d = out[out.size() - 1 - i / 2];
    d = addDims(d, Dim(pads[i].value() + pads[i + 1].value()));
  }
  return {tensor(x->dtype(), out)};
}

Types flattenRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  if (x->rank() == 0)
    return {tensor(x->dtype(), {1})};
  int64_t s = normalizeDim(n.arg(1).asInt(), x->rank()), e = normalizeDim(n.arg(2).asInt(), x->rank());
  Shape out(x->shape().begin(), x->shape().begin() + s);
  out.push_back(productOf(x->shape(), static_cast<std::size_t>(s), static_cast<std::size_t>(e + 1)));
  out.insert(out.end(), x->shape().begin() + e + 1, x->shape().end());
  return {tensor(x->dtype(), out)};
}

Types unflattenRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  int64_t d = normalizeDim(n.arg(1).asInt(), x->rank());
  Shape part = reshapeTo({x->shape()[static_cast<std::size_t>(d)]}, sizesOf(n.arg(2)));
  Shape out(x->shape().begin(), x->shape().begin() + d);
  out.insert(out.end(), part.begin(), part.end());
  out.insert(out.end(), x->shape().begin() + d + 1, x->shape().end());
  return {tensor(x->dtype(), out)};
}

Types mmRule(const Node &n) {
  const Value *a = tensorArg(n, 0), *b = tensorArg(n, 1);
  return {tensor(a->dtype(), matmulShape(a->shape(), b->shape()))};
}

Types linearRule(const Node &n) {
  const Value *x = tensorArg(n, 0), *w = tensorArg(n, 1);
  Shape out = x->shape();
  if (out.empty())
    throw Unknown{"linear of a scalar"};
  out.pop_back();
  if (w->rank() == 2)
    out.push_back(w->shape()[0]);
  return {tensor(x->dtype(), out)};
}

Types addmmRule(const Node &n) {
  const Value *a = tensorArg(n, 1), *b = tensorArg(n, 2);
  return {tensor(a->dtype(), matmulShape(a->shape(), b->shape()))};
}

Types fullRule(const Node &n) {
  DType t = dtypeArg(n, "dtype").value_or(numberDType(n.arg("fill_value")));
  return {tensor(t, sizesOf(n.arg(0)))};
}

Types likeRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  return {tensor(dtypeArg(n, "dtype").value_or(x->dtype()), x->shape())};
}

Types scalarTensorRule(const Node &n) { return {tensor(dtypeArg(n, "dtype").value_or(DType::Float32), {})}; }

Types arangeRule(const Node &n) {
  const Argument *start = n.findArg("start");
  const Argument *end = n.findArg("end");
  const Argument *step = n.findArg("step");
  bool all_int = true;
  for (const Argument *a : {start, end, step})
    if (a && a->isFloat())
      all_int = false;
  DType t = dtypeArg(n, "dtype").value_or(all_int ? DType::Int64 : DType::Float32);
  double s = start ? start->asDouble() : 0.0, st = step ? step->asDouble() : 1.0;
  if (end && end->isNumber()) {
    double len = std::ceil((end->asDouble() - s) / st);
    return {tensor(t, {Dim(std::max<int64_t>(0, static_cast<int64_t>(len)))})};
  }
  if (end && s == 0.0 && st == 1.0)
    if (auto d = dimArg(*end))
      return {tensor(t, {*d})};
  throw Unknown{"arange with symbolic bounds"};
}

Types symSizeRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  // The SymInt's value travels as the single dim of its type (see tico/rewrite/type_rule.h).
  TensorTypeSpec s;
  s.kind = ValueKind::SymInt;
  s.dtype = DType::Int64;
  s.shape = {x->shape().at(static_cast<std::size_t>(normalizeDim(n.arg(1).asInt(), x->rank())))};
  return {s};
}

Types layerNormRule(const Node &n) {
  const Value *x = tensorArg(n, 0);
  std::size_t k = n.arg(1).kind() == Argument::Kind::IntList ? n.arg(1).asInts().size() : n.arg(1).asSymInts().size();
  Shape stats(x->shape().begin(), x->shape().end() - static_cast<std::ptrdiff_t>(k));
  stats.resize(x->shape().size(), Dim(1));
  return {tensor(x->dtype(), x->shape()), tensor(x->dtype(), stats), tensor(x->dtype(), stats)};
}

Types embeddingRule(const Node &n) {
  const Value *w = tensorArg(n, 0), *idx = tensorArg(n, 1);
  Shape out = idx->shape();
  out.push_back(w->shape().back());
  return {tensor(w->dtype(), out)};
}

const std::map<std::string, Rule> &rules() {
  static const std::map<std::string, Rule> table = [] {
    std::map<std::string, Rule> t;
    for (const char *op : {"relu", "relu6", "neg", "abs", "gelu", "elu", "silu", "hardtanh", "hardswish",
                           "hardsigmoid", "leaky_relu", "softplus", "mish", "clone", "alias", "alias_copy",
                           "detach", "detach_copy", "contiguous", "lift_fresh_copy", "dropout",
                           "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "celu", "selu",
                           "prelu", "floor", "ceil", "round", "sign", "square", "bitwise_not", "cumsum",
                           "_prelu_kernel", "fill", "trunc", "fix", "frac", "sgn", "positive"})
      t[std::string("aten::") + op] = same;
    for (const char *op : {"sigmoid", "tanh", "exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "erf",
                           "reciprocal", "expm1", "log2", "log10", "exp2", "erfc", "tan", "atan", "asin",
                           "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "logit",
                           "special_erf", "special_expm1", "special_log1p", "deg2rad", "rad2deg"})
      t[std::string("aten::") + op] = floatUnary;
    for (const char *op : {"logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"})
      t[std::string("aten::") + op] = boolSame;
    for (const char *op : {"add", "sub", "mul", "rsub", "maximum", "minimum", "remainder", "fmod",
                           "bitwise_and", "bitwise_or", "bitwise_xor"})
      t[std::string("aten::") + op] = binary({"self", "other"});
    t["aten::pow"] = binary({"self", "exponent"});
    t["aten::div"] = trueDivide;
    for (const char *op : {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"})
      t[std::string("aten::") + op] = compare({"self", "other"});
    t["aten::where"] = whereRule;
    t["aten::clamp"] = binary({"self", "min", "max"});
    t["aten::clamp_min"] = binary({"self", "min"});
    t["aten::clamp_max"] = binary({"self", "max"});
    t["aten::masked_fill"] = [](const Node &n) {
      const Value *x = tensorArg(n, 0);
      return Types{tensor(x->dtype(), broadcastAll(operands(n, {"self", "mask"})))};
    };
    t["aten::copy"] = same;
    t["aten::_to_copy"] = toCopy;
    t["aten::to"] = toCopy;
    t["aten::type_as"] = [](const Node &n) {
      return Types{tensor(tensorArg(n, 1)->dtype(), tensorArg(n, 0)->shape())};
    };
    for (const char *op : {"_softmax", "_safe_softmax", "softmax", "log_softmax", "_log_softmax"})
      t[std::string("aten::") + op] = softmaxRule;
    t["aten::mean"] = meanRule;
    t["aten::sum"] = sumRule;
    t["aten::amax"] = sameReduce;
    t["aten::amin"] = sameReduce;
    t["aten::any"] = boolReduce;
    t["aten::all"] = boolReduce;
    t["aten::var"] = varRule;
    t["aten::std"] = varRule;
    t["aten::var_mean"] = varMeanRule;
    t["aten::max"] = maxDimRule;
    t["aten::min"] = maxDimRule;
    t["aten::argmax"] = argReduce;
    t["aten::argmin"] = argReduce;
    for (const char *op : {"view", "reshape", "_unsafe_view", "view_copy"})
      t[std::string("aten::") + op] = viewRule;
    t["aten::permute"] = permuteRule;
    t["aten::permute_copy"] = permuteRule;
    for (const char *op : {"transpose", "transpose_copy", "t", "t_copy"})
      t[std::string("aten::") + op] = transposeRule;
    t["aten::unsqueeze"] = unsqueezeRule;
    t["aten::unsqueeze_copy"] = unsqueezeRule;
    t["aten::squeeze"] = squeezeRule;
    t["aten::squeeze_copy"] = squeezeRule;
    t["aten::expand"] = expandRule;
    t["aten::expand_copy"] = expandRule;
    t["aten::expand_as"] = [](const Node &n) {
      return Types{tensor(tensorArg(n, 0)->dtype(), tensorArg(n, 1)->shape())};
    };
    t["aten::slice"] = [](const Node &n) { return Types{tensor(tensorArg(n, 0)->dtype(), sliceShape(n))}; };
    t["aten::slice_copy"] = t["aten::slice"];
    t["aten::select"] = selectRule;
    t["aten::select_copy"] = selectRule;
    t["aten::index_select"] = indexSelectRule;
    t["aten::cat"] = catRule;
    t["aten::split_with_sizes"] = splitWithSizesRule;
    t["aten::split_with_sizes_copy"] = splitWithSizesRule;
    t["aten::repeat"] = repeatRule;
    t["aten::constant_pad_nd"] = padRule;
    t["aten::flatten"] = flattenRule;
    t["aten::unflatten"] = unflattenRule;
    t["aten::mm"] = mmRule;
    t["aten::bmm"] = mmRule;
    t["aten::matmul"] = mmRule;
    t["aten::linear"] = linearRule;
    t["aten::addmm"] = addmmRule;
    t["aten::baddbmm"] = addmmRule;
    t["aten::full"] = fullRule;
    for (const char *op : {"full_like", "zeros_like", "ones_like", "empty_like"})
      t[std::string("aten::") + op] = likeRule;
    t["aten::scalar_tensor"] = scalarTensorRule;
    t["aten::arange"] = arangeRule;
    t["aten::sym_size"] = symSizeRule;
    t["aten::native_layer_norm"] = layerNormRule;
    t["aten::embedding"] = embeddingRule;
    return t;
  }();
  return table;
}

// Overloads whose result does not follow the family rule of their name.
bool excludedOverload(const OpKey &key) {
  const std::string k = key.str();
  return k == "aten::max.default" || k == "aten::min.default" || k == "aten::max.other" ||
         k == "aten::min.other" || k == "aten::to.other" || k == "aten::to.device" ||
         k == "aten::to.prim_Device" || k == "aten::pow.Scalar_Scalar";
}

} // namespace

void registerTypeRules(Registrar &registrar) {
  for (const auto &[op, rule] : rules())
    registrar.addTypeRule(op, [rule = rule](const Node &node, std::string *why) -> std::optional<Types> {
      if (excludedOverload(node.op())) {
        *why = "no type rule for " + node.op().str();
        return std::nullopt;
      }
      try {
        return rule(node);
      } catch (const Unknown &u) {
        *why = u.why;
        return std::nullopt;
      }
    });
}

} // namespace tico::passes
