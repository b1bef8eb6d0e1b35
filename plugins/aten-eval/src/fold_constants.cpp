#include "fold_constants.h"
#include "native_eval.h"

#include "tico/ops/torch_ops.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <set>
#include <unordered_set>

namespace tico::aten_eval {
namespace {

constexpr int64_t kDefaultMaxBytes = int64_t{256} << 20;

// Ops whose result is not a function of their inputs: folding would freeze one random draw
// (or uninitialised memory) into the model.
bool isNondeterministic(const Node &node) {
  const std::string &name = node.op().name;
  static const std::set<std::string> kRandom = {
      "bernoulli", "normal", "uniform", "multinomial", "poisson", "exponential", "geometric",
      "cauchy",    "log_normal", "rrelu", "rrelu_with_noise", "randperm", "seed", "manual_seed"};
  if (name.rfind("rand", 0) == 0 || name.rfind("empty", 0) == 0 || name.rfind("new_empty", 0) == 0 ||
      name.find("dropout") != std::string::npos || kRandom.count(name))
    return true;
  if (const OpSchema *schema = node.schema())
    for (const SchemaArgument &a : schema->arguments)
      if (a.type == ArgType::Generator || a.is_mutable)
        return true;
  return false;
}

// A dequantize of a constant is the quantized weight itself, kept as integers with its qparams:
// the quantization passes turn it into a quantized Circle tensor (the original's ConstPropPass
// leaves dequantize nodes alone for the same reason). Folding it would store float weights.
bool isDequantize(const Node &node) {
  const OpId op = node.opId();
  return op == ops::quantized_decomposed::dequantize_per_tensor_default ||
         op == ops::quantized_decomposed::dequantize_per_tensor_tensor ||
         op == ops::quantized_decomposed::dequantize_per_tensor_tensor2 ||
         op == ops::quantized_decomposed::dequantize_per_channel_default;
}

std::size_t declaredBytes(const Value *v) {
  return static_cast<std::size_t>(numElementsHint(v->shape())) * elementSize(v->dtype());
}

bool sameSizes(const Shape &shape, const std::vector<int64_t> &sizes) {
  if (shape.size() != sizes.size())
    return false;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (shape[i].isStatic() && shape[i].value() != sizes[i])
      return false;
  return true;
}

class FoldConstants final : public Pass {
public:
  FoldConstants(int64_t max_bytes, std::set<OpKey> ops, bool native)
      : max_bytes_(max_bytes), ops_(std::move(ops)), native_(native) {}

  bool run(Graph &graph, PassContext &context) override {
    const std::unordered_set<const Value *> mutated = mutatedInputs(graph);
    bool any = false;
    for (const auto &node : graph.nodes())
      any = any || isCandidate(*node, mutated);
    if (!any)
      return false; // loading LibTorch is not free: only when there is something to fold

    // The registered evaluator (LibTorch) is created for the first node the native one cannot
    // run: loading it costs more than converting most models.
    std::shared_ptr<const Evaluator> evaluator;
    auto registeredEvaluator = [&](const Node &node) -> const Evaluator & {
      if (!evaluator) {
        const Registered<EvaluatorSpec> *registered = context.registry().evaluator();
        if (registered == nullptr)
          throw Error("fold-constants needs an evaluator for " + node.name() + " (" + node.op().str() +
                      "), and no evaluator plugin is loaded");
        TICO_DEBUG << "fold-constants: loading the '" << registered->spec.name << "' evaluator for "
                   << node.name() << " (" << node.op().str() << ")";
        evaluator = registered->spec.create();
      }
      return *evaluator;
    };

    bool changed = false;
    // Graph order: a node's constant inputs folded just before make it a candidate in the
    // same sweep, so one run folds whole constant chains.
    for (auto it = graph.nodes().begin(); it != graph.nodes().end();) {
      Node *node = it->get();
      ++it; // folding erases the node
      if (isCandidate(*node, mutated) && fold(graph, *node, registeredEvaluator))
        changed = true;
    }
    if (changed)
      graph.removeUnusedConstants();
    return changed;
  }

private:
  // Values that stand for state the program updates (buffers written back through a
  // mutation output): their initial data is not what later calls see, so nothing reading
  // them is constant.
  static std::unordered_set<const Value *> mutatedInputs(const Graph &graph) {
    std::set<std::string> targets;
    for (const GraphOutput &out : graph.outputs())
      if (out.kind == OutputKind::BufferMutation || out.kind == OutputKind::ParameterMutation ||
          out.kind == OutputKind::UserInputMutation)
        targets.insert(out.target);
    std::unordered_set<const Value *> mutated;
    for (const GraphInput &in : graph.inputs())
      if (in.value && targets.count(in.target))
        mutated.insert(in.value);
    return mutated;
  }

  bool isCandidate(const Node &node, const std::unordered_set<const Value *> &mutated) const {
    if (node.numOutputs() == 0 || isNondeterministic(node) || isDequantize(node))
      return false;
    if (!ops_.empty() && !ops_.count(node.op()))
      return false;
    bool used = false;
    for (const Value *out : node.outputs()) {
      if (!out->isTensor())
        return false; // symbolic results are not tensors; nothing to hold them as constants
      used |= out->hasUsers() || node.graph()->isGraphOutput(out);
    }
    if (!used)
      return false; // dead code is for dead-code elimination, not for folding
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues())
        if (!v->isConstant() || mutated.count(v))
          return false;
    return true;
  }

  std::size_t inputBytes(const Node &node) const {
    std::size_t total = 0;
    std::unordered_set<const Value *> seen;
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues())
        if (seen.insert(v).second)
          total += v->constant()->nbytes();
    return total;
  }

  // Folding trades computation for stored bytes; refuse trades that make the model much
  // bigger (an expand or a zeros of a huge shape), but always allow shrinking or keeping size.
  bool tooLarge(std::size_t result_bytes, std::size_t input_bytes) const {
    return result_bytes > static_cast<std::size_t>(max_bytes_) && result_bytes > input_bytes;
  }

  template <class GetEvaluator> bool fold(Graph &graph, Node &node, GetEvaluator &registeredEvaluator) const {
    const std::size_t input_bytes = inputBytes(node);
    std::size_t declared = 0;
    for (const Value *out : node.outputs())
      declared += declaredBytes(out);
    if (tooLarge(declared, input_bytes)) {
      TICO_DEBUG << "fold-constants: " << node.name() << " would store " << declared
                 << " bytes (limit " << max_bytes_ << "); kept";
      return false;
    }
    const bool native = native_ && canEvaluateNatively(node);
    if (!native && !registeredEvaluator(node).canEvaluate(node))
      return false;

    EvalEnv env;
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues())
        env[v] = EvalValue{v->constant(), std::nullopt};
    std::vector<EvalValue> results;
    try {
      results = native ? evaluateNatively(node, env) : registeredEvaluator(node).evaluate(node, env);
    } catch (const Error &e) {
      // Folding is an optimisation: a node the evaluator cannot run stays in the graph.
      TICO_WARN << "fold-constants: " << e.what() << "; node kept";
      return false;
    }
    if (!resultsMatch(node, results))
      return false;
    std::size_t produced = 0;
    for (const EvalValue &r : results)
      produced += r.tensor->nbytes();
    if (tooLarge(produced, input_bytes))
      return false;

    for (std::size_t i = 0; i < results.size(); ++i) {
      Value *out = node.output(i);
      Value *constant = graph.addConstant(out->name() + "_folded", results[i].tensor);
      graph.replaceAllUsesWith(out, constant);
    }
    TICO_DEBUG << "fold-constants: folded " << node.name() << " (" << node.op().str() << ")"
               << (native ? " natively" : "");
    graph.eraseNode(&node);
    return true;
  }

  // The graph's recorded types are a contract with later passes; a result that disagrees
  // would silently retype the program, so such a node is kept (and reported).
  static bool resultsMatch(const Node &node, const std::vector<EvalValue> &results) {
    if (results.size() != node.numOutputs())
      return false;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Value *out = node.output(i);
      const auto &t = results[i].tensor;
      if (!t || t->dtype != out->dtype() || !sameSizes(out->shape(), t->sizes)) {
        TICO_WARN << "fold-constants: " << node.name() << " (" << node.op().str() << ") evaluated to "
                  << (t ? std::string(dtypeName(t->dtype)) + shapeString(staticShape(t->sizes))
                        : std::string("a non-tensor"))
                  << " but the graph records " << dtypeName(out->dtype()) << shapeString(out->shape())
                  << "; node kept";
        return false;
      }
    }
    return true;
  }

  int64_t max_bytes_;
  std::set<OpKey> ops_;
  bool native_;
};

} // namespace

PassSpec foldConstantsSpec() {
  PassSpec spec;
  spec.name = "fold-constants";
  spec.summary = "evaluates nodes whose inputs are all constants and replaces them with constants";
  spec.options = {
      {"max_bytes", OptionType::Int, kDefaultMaxBytes,
       "skip a fold whose result is larger than this many bytes and larger than its inputs"},
      {"ops", OptionType::StringList, std::vector<std::string>{},
       "fold only these ops (e.g. aten::permute.default); empty: every op the evaluator can run"},
      {"native", OptionType::Bool, true,
       "evaluate the common small ops (arange, masks, casts, element-wise, cat, index) in plain C++ "
       "and load the registered evaluator (LibTorch) only for the rest; false: everything through it"},
  };
  spec.create = [](const Options &options) -> std::unique_ptr<Pass> {
    const int64_t max_bytes = options.getInt("max_bytes");
    if (max_bytes < 0)
      throw Error("fold-constants: max_bytes must not be negative");
    std::set<OpKey> ops;
    for (const std::string &text : options.getStringList("ops"))
      ops.insert(OpKey::parseOrThrow(text));
    return std::make_unique<FoldConstants>(max_bytes, std::move(ops), options.getBool("native"));
  };
  return spec;
}

} // namespace tico::aten_eval
