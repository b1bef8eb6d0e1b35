// Not a pattern: a whole-graph analysis (each tensor's base, view chain and version) decides every rewrite.
// functionalize: rewrites the mutations of a torch.export graph into value semantics, the way
// run_decompositions() does, so no later pass or lowering ever sees a write.
//
// torch.export.export returns a non-functional program: `x += y` is aten::add_.Tensor,
// `self.cache[:, 2:4] = k` is a slice view of the buffer followed by aten::copy_, and
// `torch.sub(a, b, out=c)` is aten::sub.out. Each write is replaced by its functional op, and
// the written tensor's storage is followed through the view ops that led to it:
//
//   * every value knows its *base* (the tensor that owns the storage) and the chain of view
//     nodes from the base to it, as the op schemas' alias annotations say (Tensor(a) -> Tensor(a));
//   * a write through a view computes the new base by scattering the new contents back along
//     the chain (slice -> slice_scatter, select -> select_scatter, transpose -> transpose back,
//     reshape -> reshape back, ...) and bumps the base's version;
//   * a later read of the base or of any view of it (created before or after the write) reads
//     the view chain replayed on the newest base, created right before the reader.
//
// Graph inputs that end up written (user inputs, buffers, parameters) get the mutation outputs
// of the export signature (user_input_mutation, buffer_mutation, parameter_mutation), exactly as
// run_decompositions() records them. Writes that cannot be expressed (through an expand, an
// unknown view op, a resize) are an error naming the node.
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

#include <unordered_map>

namespace tico::passes {
namespace {

// One view application on the way from a base to a value: output `output` of `node`.
struct ViewStep {
  Node *node = nullptr;
  std::size_t output = 0;
};

struct AliasInfo {
  Value *base = nullptr;       // the tensor owning the storage (the value itself when fresh)
  std::vector<ViewStep> chain; // view steps from the base to the value
  uint64_t version = 0;        // the base's version this value was computed from
};

bool isOneOf(const OpKey &op, std::initializer_list<std::string_view> names) {
  std::string text = op.str();
  for (std::string_view n : names)
    if (text == n)
      return true;
  return false;
}

// View ops that only reinterpret the shape of contiguous data (a write through them is a
// reshape back).
bool isReshapeView(const OpKey &op) {
  return isOneOf(op, {"aten::view.default", "aten::reshape.default", "aten::_unsafe_view.default",
                      "aten::view_as.default", "aten::reshape_as.default", "aten::unflatten.int",
                      "aten::flatten.using_ints", "aten::squeeze.default", "aten::squeeze.dim", "aten::squeeze.dims",
                      "aten::unsqueeze.default", "aten::alias.default", "aten::detach.default",
                      "aten::contiguous.default", "aten::view.dtype"});
}

// The out-of-place op computing what `op` writes, with the argument indices it drops (the
// written `out=` arguments); nullopt when there is none.
struct FunctionalForm {
  OpKey op;
  std::vector<std::size_t> dropped; // argument indices of `out=` tensors
};

std::optional<FunctionalForm> functionalForm(const OpSchemaRegistry &schemas, const OpSchema &schema) {
  const OpKey &key = schema.key;
  std::vector<std::size_t> mutated = schema.mutatedArguments();
  // foo_.overload (writes self) -> foo.overload; __iand__ -> __and__.
  if (mutated.size() == 1 && mutated[0] == 0) {
    std::string name = key.name;
    if (name.size() > 4 && name.rfind("__i", 0) == 0 && name.ends_with("__"))
      name = "__" + name.substr(3);
    else if (name.ends_with("_"))
      name.pop_back();
    else
      return std::nullopt;
    OpKey f{key.ns, name, key.overload};
    if (schemas.find(f))
      return FunctionalForm{f, {}};
    return std::nullopt;
  }
  // foo.out(args..., *, Tensor(a!) out) -> the overload of foo taking exactly args....
  for (std::size_t m : mutated)
    if (!schema.arguments[m].kwarg_only)
      return std::nullopt;
  // The functional overload takes the same arguments (names and types) without the outputs:
  // sub.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out) -> sub.Tensor, not
  // sub.Scalar(Tensor self, Scalar other, Scalar alpha).
  auto signature = [](const SchemaArgument &a) { return a.name + ":" + std::to_string(static_cast<int>(a.type)); };
  std::vector<std::string> kept;
  for (const SchemaArgument &a : schema.arguments)
    if (!a.is_mutable)
      kept.push_back(signature(a));
  for (const std::string &overload : schemas.overloadsOf(key.ns, key.name)) {
    const OpSchema *candidate = schemas.find(OpKey{key.ns, key.name, overload});
    if (!candidate || !candidate->mutatedArguments().empty() || candidate->returns.size() != mutated.size())
      continue;
    std::vector<std::string> names;
    for (const SchemaArgument &a : candidate->arguments)
      names.push_back(signature(a));
    if (names == kept)
      return FunctionalForm{candidate->key, mutated};
  }
  return std::nullopt;
}

class Functionalizer {
public:
  Functionalizer(Graph &graph, const Registry &registry) : graph_(graph), registry_(registry) {}

  bool run() {
    bool any = false;
    for (const auto &node : graph_.nodes())
      if (node->schema() && !node->schema()->mutatedArguments().empty())
        any = true;
    if (!any)
      return false;
    for (Node *node : snapshot(graph_)) {
      refreshInputs(node);
      const OpSchema *schema = node->schema();
      if (schema && !schema->mutatedArguments().empty())
        functionalizeWrite(node);
      else if (isView(*node))
        recordView(node);
    }
    finishOutputs();
    return true;
  }

private:
  // ---- aliasing ------------------------------------------------------------------------
  AliasInfo &info(Value *v) {
    auto it = alias_.find(v);
    if (it == alias_.end())
      it = alias_.emplace(v, AliasInfo{v, {}, 0}).first;
    return it->second;
  }

  uint64_t versionOf(Value *base) const {
    auto it = version_.find(base);
    return it == version_.end() ? 0 : it->second;
  }

  bool isStale(Value *v) { return v->isTensor() && info(v).version != versionOf(info(v).base); }

  // Whether the steps so far keep the data contiguous: then reshape/contiguous alias their
  // input, as in eager PyTorch; on permuted or strided data they copy.
  static bool contiguousChain(const std::vector<ViewStep> &chain) {
    for (const ViewStep &s : chain) {
      const OpKey &op = s.node->op();
      if (isReshapeView(op))
        continue;
      if (isOneOf(op, {"aten::slice.Tensor", "aten::select.int", "aten::narrow.default"})) {
        // Slicing the outermost non-trivial dim keeps a contiguous block.
        const Value *in = s.node->input(0);
        auto dim = staticInt(s.node->arg(1));
        if (!dim)
          return false;
        int64_t d = normalizeDim(*dim, in->rank());
        for (int64_t i = 0; i < d; ++i)
          if (!(in->shape()[i].isStatic() && in->shape()[i].value() == 1))
            return false;
        continue;
      }
      return false;
    }
    return true;
  }

  bool isView(const Node &node) {
    const OpSchema *schema = node.schema();
    if (!schema || !schema->isView() || node.numArgs() == 0 || !isTensorValue(node.arg(0)))
      return false;
    const OpKey &op = node.op();
    // to(...) aliases only when it converts nothing.
    if (op.name == "to")
      return node.output()->dtype() == node.input(0)->dtype();
    if (isOneOf(op, {"aten::reshape.default", "aten::contiguous.default", "aten::reshape_as.default",
                     "aten::flatten.using_ints"}))
      return contiguousChain(info(node.input(0)).chain);
    return true;
  }

  void recordView(Node *node) {
    const AliasInfo &in = info(node->input(0));
    for (std::size_t i = 0; i < node->numOutputs(); ++i) {
      if (!node->output(i)->isTensor())
        continue;
      AliasInfo out{in.base, in.chain, in.version};
      out.chain.push_back(ViewStep{node, i});
      alias_[node->output(i)] = std::move(out);
    }
  }

  // ---- reading the newest contents -----------------------------------------------------
  // The newest contents of the base of `v`.
  Value *currentBase(Value *base) {
    auto it = current_.find(base);
    return it == current_.end() ? base : it->second;
  }

  // `v` as it reads now: the view chain replayed on the newest base, created before `before`.
  Value *upToDate(Value *v, Node *before) {
    if (!isStale(v))
      return v;
    const AliasInfo a = info(v);
    uint64_t now = versionOf(a.base);
    auto cached = regenerated_.find(v);
    if (cached != regenerated_.end() && cached->second.first == now)
      return cached->second.second;
    Value *value = replay(a.base, a.chain, a.chain.size(), before);
    regenerated_[v] = {now, value};
    return value;
  }

  // The first `count` steps of `chain` applied to the newest base. The longest prefix whose
  // value is already computed from the newest contents is reused; the rest is replayed.
  Value *replay(Value *base, const std::vector<ViewStep> &chain, std::size_t count, Node *before) {
    std::size_t done = count;
    Value *value = nullptr;
    for (; done > 0; --done) {
      Value *prefix = chain[done - 1].node->output(chain[done - 1].output);
      if (!isStale(prefix)) {
        value = prefix;
        break;
      }
    }
    if (value == nullptr) {
      value = currentBase(base);
      alias_[value] = AliasInfo{base, {}, versionOf(base)};
    }
    AliasInfo here = info(value);
    for (std::size_t i = done; i < count; ++i) {
      const ViewStep &step = chain[i];
      Node *copy = cloneWithInput(step.node, value, before);
      value = copy->output(step.output);
      here.chain.push_back(ViewStep{copy, step.output});
      for (std::size_t k = 0; k < copy->numOutputs(); ++k) {
        AliasInfo out = here;
        out.chain.back().output = k;
        alias_[copy->output(k)] = out;
      }
    }
    return value;
  }

  Node *cloneWithInput(const Node *view, Value *input, Node *before) {
    std::vector<NamedArg> args = view->args();
    args[0].value = Argument::value(input);
    std::vector<TensorTypeSpec> outputs;
    for (const Value *out : view->outputs())
      outputs.push_back(TensorTypeSpec{out->kind(), out->dtype(), out->shape(), {}});
    return graph_.createNode(view->op(), std::move(args), std::move(outputs), before, view->name());
  }

  void refreshInputs(Node *node) {
    for (std::size_t i = 0; i < node->numArgs(); ++i)
      for (Value *v : node->arg(i).referencedValues())
        if (isStale(v))
          node->replaceInput(v, upToDate(v, node));
  }

  // ---- writes --------------------------------------------------------------------------
  [[noreturn]] void fail(const Node &node, const std::string &why) const {
    std::string where = node.sourceHint();
    throw Error("functionalize: cannot express the in-place write of node '" + node.name() + "' (" +
                node.op().str() + ")" + (where.empty() ? "" : " at " + where) + ": " + why);
  }

  void functionalizeWrite(Node *node) {
    const OpSchema &schema = *node->schema();
    // Autograd bookkeeping that changes no data.
    if (isOneOf(node->op(), {"aten::detach_.default", "aten::requires_grad_.default", "aten::retain_grad.default"})) {
      forwardResults(node, schema.mutatedArguments());
      return;
    }
    if (isOneOf(node->op(), {"aten::resize_.default", "aten::resize_as_.default", "aten::set_.source_Tensor",
                             "aten::set_.source_Storage", "aten::set_.default"}))
      fail(*node, "it changes the size or the storage of a tensor, which a dataflow graph cannot express");
    auto form = functionalForm(*graph_.schemas(), schema);
    if (!form)
      fail(*node, "there is no out-of-place form of " + node->op().str());

    std::vector<std::size_t> written = schema.mutatedArguments();
    // Positional arguments keep their positions (dropout_ names its first one `self`, dropout
    // `input`); keyword-only ones are matched by name.
    std::vector<NamedArg> args;
    for (std::size_t i = 0; i < node->numArgs(); ++i)
      if (std::find(form->dropped.begin(), form->dropped.end(), i) == form->dropped.end())
        args.push_back(NamedArg{schema.arguments[i].kwarg_only ? node->args()[i].name : "", node->arg(i)});
    std::vector<TensorTypeSpec> types;
    for (std::size_t r = 0; r < written.size(); ++r) {
      Value *target = node->input(written[r]);
      types.push_back(TensorTypeSpec{ValueKind::Tensor, target->dtype(), target->shape(), {}});
    }
    Node *functional = graph_.createNode(form->op, std::move(args), std::move(types), node, node->name());
    // The functional op computes in PyTorch's result type; the write converts to the target's.
    // An in-place op keeps the written tensor's shape; an out= op gives its result's shape.
    applyTypes(registry_, *functional);
    if (form->dropped.empty())
      for (std::size_t r = 0; r < written.size(); ++r)
        functional->output(r)->setType(functional->output(r)->dtype(), node->input(written[r])->shape());

    for (std::size_t r = 0; r < written.size(); ++r) {
      Value *target = node->input(written[r]);
      Value *result = functional->output(r);
      Builder b(graph_, registry_, node, node->name());
      if (result->dtype() != target->dtype())
        result = b.cast(result, target->dtype());
      if (result->shape() != target->shape()) {
        // out= resizes a fresh tensor; a view cannot change size.
        if (!info(target).chain.empty())
          fail(*node, "the result of shape " + shapeString(result->shape()) + " does not fit the written view of shape " +
                          shapeString(target->shape()));
        if (!form->dropped.empty()) {
          writeBase(target, result);
          continue;
        }
        result = b.expand(result, target->shape(), {target});
        if (!result)
          fail(*node, "the result cannot be broadcast to the written tensor");
      }
      writeThrough(node, target, result);
    }
    forwardResults(node, written);
  }

  // The write's own results are the written tensors: readers of them read those (and get the
  // newest contents when they are read).
  void forwardResults(Node *node, const std::vector<std::size_t> &written) {
    for (std::size_t r = 0; r < node->numOutputs(); ++r) {
      if (r >= written.size())
        fail(*node, "it returns more than the tensors it writes");
      graph_.replaceAllUsesWith(node->output(r), node->input(written[r]));
    }
    graph_.eraseNode(node);
  }

  void writeBase(Value *base_view, Value *contents) {
    Value *base = info(base_view).base;
    current_[base] = contents;
    uint64_t v = ++version_[base];
    alias_[contents] = AliasInfo{base, {}, v};
  }

  // New contents `result` for `target` (a view of its base): scatter it back step by step.
  void writeThrough(Node *node, Value *target, Value *result) {
    const AliasInfo a = info(target);
    Value *contents = result;
    for (std::size_t i = a.chain.size(); i-- > 0;) {
      Value *parent = replay(a.base, a.chain, i, node);
      contents = scatter(node, a.chain[i], parent, contents);
    }
    writeBase(a.base, contents);
  }

  // The contents of `parent` after writing `contents` into the view `step` of it.
  Value *scatter(Node *write, const ViewStep &step, Value *parent, Value *contents) {
    const Node &view = *step.node;
    const OpKey &op = view.op();
    Builder b(graph_, registry_, write, write->name());
    auto typed = [&](const std::string &scatter_op, std::vector<NamedArg> args) {
      return b.typed(scatter_op, std::move(args), parent->dtype(), parent->shape());
    };
    NamedArg self{"", A(parent)};
    NamedArg src{"", A(contents)};
    if (op.str() == "aten::slice.Tensor")
      return typed("aten::slice_scatter.default", {self, src, {"", view.arg("dim")}, {"", view.arg("start")},
                                                   {"", view.arg("end")}, {"", view.arg("step")}});
    if (op.str() == "aten::select.int")
      return typed("aten::select_scatter.default", {self, src, {"", view.arg("dim")}, {"", view.arg("index")}});
    if (op.str() == "aten::narrow.default") {
      auto start = staticInt(view.arg("start"));
      auto length = staticInt(view.arg("length"));
      if (!start || !length)
        fail(*write, "it writes through narrow '" + view.name() + "' with a symbolic start or length");
      return typed("aten::slice_scatter.default",
                   {self, src, {"", view.arg("dim")}, {"", A(*start)}, {"", A(*start + *length)}, {"", A(int64_t{1})}});
    }
    if (op.str() == "aten::diagonal.default")
      return typed("aten::diagonal_scatter.default", {self, src, {"", view.arg("offset")}, {"", view.arg("dim1")},
                                                      {"", view.arg("dim2")}});
    if (op.str() == "aten::as_strided.default")
      return typed("aten::as_strided_scatter.default", {self, src, {"", view.arg("size")}, {"", view.arg("stride")},
                                                        {"", view.arg("storage_offset")}});
    if (isOneOf(op, {"aten::transpose.int", "aten::swapaxes.default", "aten::swapdims.default"}))
      return b.make("aten::transpose.int", {A(contents), view.arg(1), view.arg(2)});
    if (op.str() == "aten::t.default")
      return b.make("aten::t.default", {A(contents)});
    if (op.str() == "aten::permute.default") {
      const auto &dims = view.arg("dims").asInts();
      std::vector<int64_t> inverse(dims.size());
      for (std::size_t i = 0; i < dims.size(); ++i)
        inverse[static_cast<std::size_t>(normalizeDim(dims[i], static_cast<int64_t>(dims.size())))] = static_cast<int64_t>(i);
      return b.permute(contents, inverse);
    }
    if (isOneOf(op, {"aten::split.Tensor", "aten::split_with_sizes.default", "aten::unbind.int"}))
      return scatterPart(b, write, view, step.output, parent, contents);
    if (isReshapeView(op) || op.name == "to") {
      if (contents->shape() == parent->shape())
        return contents;
      Value *reshaped = b.reshape(contents, parent->shape(), {parent});
      if (!reshaped)
        fail(*write, "the view '" + view.name() + "' cannot be reshaped back to " + shapeString(parent->shape()));
      return reshaped;
    }
    if (isOneOf(op, {"aten::expand.default", "aten::expand_as.default"}))
      fail(*write, "it writes through the expanded view '" + view.name() +
                       "', whose elements share memory (PyTorch refuses most such writes)");
    fail(*write, "it writes through '" + view.name() + "' (" + op.str() + "), a view tico cannot scatter back into");
  }

  // Output `part` of a split/unbind written back into `parent`.
  Value *scatterPart(Builder &b, Node *write, const Node &view, std::size_t part, Value *parent, Value *contents) {
    int64_t rank = parent->rank();
    int64_t dim = normalizeDim(view.arg("dim").asInt(), rank);
    if (view.op().str() == "aten::unbind.int")
      return b.typed("aten::select_scatter.default", {{"", A(parent)}, {"", A(contents)}, {"", A(dim)}, {"", A(static_cast<int64_t>(part))}},
                     parent->dtype(), parent->shape());
    std::vector<int64_t> sizes;
    if (view.op().str() == "aten::split_with_sizes.default") {
      sizes = view.arg("split_sizes").asInts();
    } else {
      auto size = staticInt(view.arg("split_size"));
      const Dim &total = parent->shape()[static_cast<std::size_t>(dim)];
      if (!size || !total.isStatic())
        fail(*write, "it writes through split '" + view.name() + "' of a symbolic size");
      for (int64_t at = 0; at < total.value(); at += *size)
        sizes.push_back(std::min(*size, total.value() - at));
    }
    int64_t start = 0;
    for (std::size_t i = 0; i < part; ++i)
      start += sizes.at(i);
    return b.typed("aten::slice_scatter.default",
                   {{"", A(parent)}, {"", A(contents)}, {"", A(dim)}, {"", A(start)}, {"", A(start + sizes.at(part))}, {"", A(int64_t{1})}},
                   parent->dtype(), parent->shape());
  }

  // ---- the end of the program ----------------------------------------------------------
  void finishOutputs() {
    // Outputs read their values as the program ends.
    for (std::size_t i = 0; i < graph_.outputs().size(); ++i) {
      const Argument &out = graph_.outputs()[i].value;
      if (out.isValue() && isStale(out.asValue()))
        graph_.setOutputValue(i, Argument::value(upToDate(out.asValue(), nullptr)));
    }
    // Written graph inputs become mutation outputs, as in the export signature of a
    // functional program.
    std::vector<GraphOutput> mutations;
    for (const GraphInput &in : graph_.inputs()) {
      if (!in.value || versionOf(in.value) == 0)
        continue;
      GraphOutput out;
      out.value = Argument::value(currentBase(in.value));
      switch (in.kind) {
      case InputKind::User:
        out.kind = OutputKind::UserInputMutation;
        out.target = in.value->name();
        break;
      case InputKind::Buffer:
        out.kind = OutputKind::BufferMutation;
        out.target = in.target;
        break;
      case InputKind::Parameter:
        out.kind = OutputKind::ParameterMutation;
        out.target = in.target;
        break;
      default:
        continue; // a lifted constant written in place: the write is local to this call
      }
      mutations.push_back(std::move(out));
    }
    for (GraphOutput &out : mutations)
      graph_.addOutput(std::move(out));
  }

  Graph &graph_;
  const Registry &registry_;
  std::unordered_map<Value *, AliasInfo> alias_;
  std::unordered_map<Value *, Value *> current_;
  std::unordered_map<Value *, uint64_t> version_;
  std::unordered_map<Value *, std::pair<uint64_t, Value *>> regenerated_;
};

class FunctionalizePass final : public Pass {
public:
  bool run(Graph &graph, PassContext &context) override { return Functionalizer(graph, context.registry()).run(); }
};

} // namespace

void registerFunctionalize(Registrar &r) {
  r.addPass(simplePass<FunctionalizePass>(
      "functionalize", "Rewrite in-place and out= ops (add_, copy_ into a slice of a buffer, sub.out, ...) into "
                       "functional ops, following writes through views; written inputs become mutation outputs"));
}

} // namespace tico::passes
