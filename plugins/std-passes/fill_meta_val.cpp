// fill-meta-val (FillMetaVal): gives a type to every node output that has none.
//
// Nodes read from a .pt2 always carry dtype and shape, and the passes of this tree type what
// they create; a node without a type comes from a plugin that created it untyped (dtype
// Unknown). Later passes and every lowering read types, so they are filled here:
//
//   1. by the type rules plugins registered (this plugin: support/type_rules.h) (elementwise promotion and broadcasting,
//      views, reductions, matrix products, constructors; symbolic dims included);
//   2. otherwise, when every input has a static shape (and `evaluate` is on), by running the
//      node once through the registered evaluator on zero-filled inputs of those shapes (the
//      LibTorch evaluator has no Meta device; inputs above `max_eval_bytes` are not tried).
//
// A node neither can type is an error naming the node and the reason: leaving it untyped
// would only fail later, further from the cause.
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

#include "tico/eval/evaluator.h"
#include "tico/rewrite/driver.h"

namespace tico::passes {
namespace {

// Only tensors: a symbolic scalar (SymInt/SymFloat/SymBool) is typed by its kind and
// expression, and passes that create one (convert-sym-size-to-circle-shape) may leave its
// dtype unset.
bool needsType(const Node &node) {
  for (const Value *out : node.outputs())
    if (out->isTensor() && out->dtype() == DType::Unknown)
      return true;
  return false;
}

// Offered every node (a pattern without root ops): types the outputs of those that lack one.
class TypeFiller final : public rewrite::Pattern {
public:
  TypeFiller(bool evaluate, int64_t max_eval_bytes) : evaluate_(evaluate), max_eval_bytes_(max_eval_bytes) {}

  std::vector<OpKey> roots() const override { return {}; }

  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override {
    if (!needsType(node))
      return false;
    const Registry &registry = *rewriter.registry();
    std::string why;
    if (applyTypes(registry, node, &why))
      return true;
    std::string eval_why;
    if (evaluate_ && typeByEvaluation(node, registry, eval_why))
      return true;
    throw Error("fill-meta-val: cannot infer the result type of node '" + node.name() + "' (" + node.op().str() +
                "): " + why + (eval_why.empty() ? "" : "; evaluation: " + eval_why));
  }

private:
  bool typeByEvaluation(Node &node, const Registry &registry, std::string &why) const {
    const Registered<EvaluatorSpec> *registered = registry.evaluator();
    if (registered == nullptr) {
      why = "no evaluator plugin is loaded";
      return false;
    }
    EvalEnv env;
    int64_t bytes = 0;
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues()) {
        if (!v->isTensor() || v->dtype() == DType::Unknown || !isStatic(v->shape())) {
          why = "input '" + v->name() + "' has no static tensor type";
          return false;
        }
        if (v->isConstant()) {
          env[v] = EvalValue{v->constant(), std::nullopt};
          continue;
        }
        std::vector<int64_t> sizes = hintSizes(v->shape());
        int64_t n = numElementsHint(v->shape()) * static_cast<int64_t>(elementSize(v->dtype()));
        bytes += n;
        if (bytes > max_eval_bytes_) {
          why = "inputs larger than max_eval_bytes";
          return false;
        }
        std::vector<std::byte> zeros(static_cast<std::size_t>(n));
        env[v] = EvalValue{std::make_shared<TensorData>(TensorData::fromBytes(v->dtype(), sizes, std::move(zeros))),
                           std::nullopt};
      }
    std::shared_ptr<const Evaluator> evaluator = registered->spec.create();
    if (!evaluator->canEvaluate(node)) {
      why = "the evaluator cannot run the op";
      return false;
    }
    std::vector<EvalValue> results;
    try {
      results = evaluator->evaluate(node, env);
    } catch (const Error &e) {
      why = e.what();
      return false;
    }
    if (results.size() != node.numOutputs()) {
      why = "the evaluator returned " + std::to_string(results.size()) + " results";
      return false;
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].tensor) {
        why = "result " + std::to_string(i) + " is not a tensor";
        return false;
      }
    }
    for (std::size_t i = 0; i < results.size(); ++i)
      node.output(i)->setType(results[i].tensor->dtype, staticShape(results[i].tensor->sizes));
    return true;
  }

  bool evaluate_;
  int64_t max_eval_bytes_;
};

} // namespace

void registerFillMetaVal(Registrar &r) {
  r.addPass(rewrite::patternPassSpec(
      "fill-meta-val", "Type node outputs that have no type (shape rules, else one evaluation on zero inputs)",
      {
          OptionSpec{"evaluate", OptionType::Bool, true,
                     "type ops without a shape rule by evaluating them on zero-filled inputs (static shapes only)"},
          OptionSpec{"max_eval_bytes", OptionType::Int, int64_t{64} << 20,
                     "largest total input size evaluated for typing"},
      },
      [](const Options &o) {
        std::vector<std::unique_ptr<rewrite::Pattern>> patterns;
        patterns.push_back(std::make_unique<TypeFiller>(o.getBool("evaluate"), o.getInt("max_eval_bytes")));
        return patterns;
      },
      {rewrite::Traversal::Sweep}));
}

} // namespace tico::passes
