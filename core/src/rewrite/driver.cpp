#include "tico/rewrite/driver.h"

#include "tico/support/error.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_set>

namespace tico::rewrite {
namespace {

class FunctionPattern final : public Pattern {
public:
  FunctionPattern(std::vector<OpKey> roots, RewriteFn rewrite)
      : roots_(std::move(roots)), rewrite_(std::move(rewrite)) {}
  std::vector<OpKey> roots() const override { return roots_; }
  bool matchAndRewrite(Node &node, Rewriter &rewriter) override { return rewrite_(node, rewriter); }

private:
  std::vector<OpKey> roots_;
  RewriteFn rewrite_;
};

// The producers of the values `node` reads, each once, in argument order.
std::vector<Node *> inputProducers(const Node &node) {
  std::vector<Node *> out;
  for (const NamedArg &arg : node.args())
    for (const Value *v : arg.value.referencedValues())
      if (Node *p = v->producer(); p != nullptr && std::find(out.begin(), out.end(), p) == out.end())
        out.push_back(p);
  return out;
}

// The patterns to offer a node of each op, in the order they were given.
class PatternIndex {
public:
  explicit PatternIndex(const std::vector<Pattern *> &patterns) {
    std::vector<std::vector<OpKey>> roots;
    for (Pattern *p : patterns) {
      roots.push_back(p->roots());
      if (roots.back().empty())
        generic_.push_back(p);
    }
    for (std::size_t i = 0; i < patterns.size(); ++i)
      for (const OpKey &op : roots[i])
        by_op_.try_emplace(op);
    // Each op's list keeps the given order, generic patterns included.
    for (auto &[op, list] : by_op_)
      for (std::size_t i = 0; i < patterns.size(); ++i)
        if (roots[i].empty() || std::find(roots[i].begin(), roots[i].end(), op) != roots[i].end())
          list.push_back(patterns[i]);
  }

  const std::vector<Pattern *> &forOp(const OpKey &op) const {
    auto it = by_op_.find(op);
    return it == by_op_.end() ? generic_ : it->second;
  }

private:
  std::map<OpKey, std::vector<Pattern *>> by_op_;
  std::vector<Pattern *> generic_;
};

class Driver final : public Rewriter::Listener {
public:
  Driver(Graph &graph, const Registry *types, const std::vector<Pattern *> &patterns, const DriverConfig &config)
      : graph_(graph), types_(types), index_(patterns), config_(config) {}

  bool run() {
    Rewriter rewriter(graph_, types_, *this);
    for (const auto &n : graph_.nodes())
      push(n.get());
    bool changed = false;
    std::size_t rewrites = 0;
    while (!queue_.empty()) {
      Node *node = queue_.front();
      queue_.pop_front();
      queued_.erase(node);
      if (erased_.count(node) || fresh_.count(node))
        continue;
      current_ = node;
      bool rewritten = false;
      for (Pattern *pattern : index_.forOp(node->op()))
        if (pattern->matchAndRewrite(*node, rewriter)) {
          rewritten = true;
          break;
        }
      current_ = nullptr;
      if (!rewritten)
        continue;
      changed = true;
      if (++rewrites > config_.max_rewrites)
        throw Error("rewrite driver: more than " + std::to_string(config_.max_rewrites) +
                    " rewrites in one run; a pattern keeps reporting a change (last at node '" +
                    (erased_.count(node) ? std::string("<erased>") : node->name()) + "')");
      if (config_.erase_dead)
        eraseDead(rewriter);
      if (worklist() && !erased_.count(node))
        push(node);
    }
    return changed;
  }

  void created(Node *node) override {
    // A new node may reuse the address of one erased earlier in this run.
    erased_.erase(node);
    if (worklist())
      push(node);
    else
      fresh_.insert(node); // a sweep visits only the nodes present at the start
  }

  void affected(Node *node) override {
    if (node == nullptr)
      return;
    if (config_.erase_dead)
      dead_candidates_.push_back(node);
    if (worklist() && node != current_)
      push(node);
  }

  void erased(Node *node, const std::vector<Node *> &producers) override {
    erased_.insert(node);
    fresh_.erase(node);
    for (Node *p : producers)
      affected(p);
  }

private:
  bool worklist() const { return config_.traversal == Traversal::Worklist; }

  void push(Node *node) {
    if (queued_.insert(node).second)
      queue_.push_back(node);
  }

  void eraseDead(Rewriter &rewriter) {
    while (!dead_candidates_.empty()) {
      Node *node = dead_candidates_.back();
      dead_candidates_.pop_back();
      if (!erased_.count(node))
        rewriter.eraseIfDead(node); // reports the producers of its inputs as new candidates
    }
  }

  Graph &graph_;
  const Registry *types_;
  PatternIndex index_;
  DriverConfig config_;
  std::deque<Node *> queue_;
  std::unordered_set<Node *> queued_; // membership only; the order is queue_'s
  std::unordered_set<Node *> erased_; // erased in this run
  std::unordered_set<Node *> fresh_;  // created in this run by a sweep, which does not visit them
  std::vector<Node *> dead_candidates_;
  Node *current_ = nullptr;
};

} // namespace

std::unique_ptr<Pattern> makePattern(std::vector<OpKey> roots, RewriteFn rewrite) {
  return std::make_unique<FunctionPattern>(std::move(roots), std::move(rewrite));
}

std::vector<OpKey> opKeys(std::span<const std::string_view> texts) {
  std::vector<OpKey> keys;
  for (std::string_view text : texts)
    keys.push_back(OpKey::parseOrThrow(text));
  return keys;
}

// ---- Rewriter ----------------------------------------------------------------------------------

Builder Rewriter::builder(Node *before, std::string prefix) {
  Builder b = types_ ? Builder(graph_, *types_, before, std::move(prefix)) : Builder(graph_, before, std::move(prefix));
  b.setOnCreate([this](Node *node) { listener_.created(node); });
  return b;
}

void Rewriter::replaceAllUsesWith(Value *from, Value *to) {
  const std::vector<Node *> users = from->users();
  graph_.replaceAllUsesWith(from, to);
  for (Node *user : users)
    listener_.affected(user);
  listener_.affected(from->producer());
}

void Rewriter::replaceNode(Node *node, const std::vector<Value *> &replacements) {
  if (replacements.size() != node->numOutputs())
    throw Error("replaceNode: " + std::to_string(replacements.size()) + " replacements for the " +
                std::to_string(node->numOutputs()) + " outputs of '" + node->name() + "'");
  for (std::size_t i = 0; i < replacements.size(); ++i)
    if (replacements[i] != nullptr)
      replaceAllUsesWith(node->output(i), replacements[i]);
  eraseNode(node);
}

void Rewriter::eraseNode(Node *node) {
  std::vector<Node *> producers = inputProducers(*node);
  graph_.eraseNode(node);
  listener_.erased(node, producers);
}

bool Rewriter::eraseIfDead(Node *node) {
  if (node->numOutputs() == 0)
    return false;
  for (const Value *out : node->outputs())
    if (out->hasUsers() || graph_.isGraphOutput(out))
      return false;
  eraseNode(node);
  return true;
}

void Rewriter::eraseDeadChain(Value *value) {
  std::vector<Node *> work;
  if (value->producer() != nullptr)
    work.push_back(value->producer());
  while (!work.empty()) {
    Node *node = work.back();
    work.pop_back();
    std::vector<Node *> producers = inputProducers(*node);
    if (!eraseIfDead(node))
      continue;
    // A producer listed twice is visited twice; the second visit finds it gone or still used.
    work.insert(work.end(), producers.begin(), producers.end());
  }
}

void Rewriter::setArg(Node *node, std::size_t index, Argument value) {
  const Argument &old = node->arg(index);
  std::vector<Node *> producers;
  for (const Value *v : old.referencedValues())
    if (v->producer() != nullptr)
      producers.push_back(v->producer());
  node->setArg(index, std::move(value));
  listener_.affected(node);
  for (Node *p : producers)
    listener_.affected(p);
}

// ---- driver ------------------------------------------------------------------------------------

bool applyPatterns(Graph &graph, const Registry *types, const std::vector<Pattern *> &patterns,
                   const DriverConfig &config) {
  return Driver(graph, types, patterns, config).run();
}

PatternPass::PatternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config)
    : patterns_(std::move(patterns)), config_(config) {}

PatternPass::PatternPass(PatternFactory make, Options options, DriverConfig config)
    : make_(std::move(make)), options_(std::move(options)), config_(config) {}

bool PatternPass::run(Graph &graph, PassContext &context) {
  std::vector<std::unique_ptr<Pattern>> fresh;
  if (make_)
    fresh = make_(options_);
  std::vector<Pattern *> patterns;
  for (const auto &p : make_ ? fresh : patterns_)
    patterns.push_back(p.get());
  return applyPatterns(graph, &context.registry(), patterns, config_);
}

std::unique_ptr<Pass> patternPass(std::vector<std::unique_ptr<Pattern>> patterns, DriverConfig config) {
  return std::make_unique<PatternPass>(std::move(patterns), config);
}

std::vector<OpKey> rootsOf(const std::vector<std::unique_ptr<Pattern>> &patterns) {
  std::vector<OpKey> roots;
  for (const auto &pattern : patterns)
    for (const OpKey &op : pattern->roots())
      if (std::find(roots.begin(), roots.end(), op) == roots.end())
        roots.push_back(op);
  return roots;
}

PatternPassFactory::PatternPassFactory(std::string pass_name, const std::vector<OptionSpec> &options,
                                       PatternFactory make, DriverConfig config)
    : pass_name_(std::move(pass_name)), make_(std::move(make)), config_(config) {
  roots_ = rootsOf(make_(Options::resolve("pass '" + pass_name_ + "'", options, {})));
}

std::unique_ptr<Pass> PatternPassFactory::operator()(const Options &options) const {
  for (const OpKey &root : rootsOf(make_(options)))
    if (std::find(roots_.begin(), roots_.end(), root) == roots_.end())
      throw Error("pass '" + pass_name_ + "': with these options a pattern is rooted at '" + root.str() +
                  "', which the default options do not give, so the load-time op check never saw it "
                  "(a pattern's roots must not depend on the options)");
  return std::make_unique<PatternPass>(make_, options, config_);
}

const PatternPassFactory *PatternPassFactory::of(const PassSpec &spec) {
  return spec.create.target<PatternPassFactory>();
}

PassSpec patternPassSpec(std::string name, std::string summary, std::vector<OpKey> roots, RewriteFn fn,
                         DriverConfig config) {
  PatternFactory make = [roots = std::move(roots), fn = std::move(fn)](const Options &) {
    std::vector<std::unique_ptr<Pattern>> patterns;
    patterns.push_back(makePattern(roots, fn));
    return patterns;
  };
  return patternPassSpec(std::move(name), std::move(summary), {}, std::move(make), config);
}

PassSpec patternPassSpec(std::string name, std::string summary, std::vector<OptionSpec> options, PatternFactory make,
                         DriverConfig config) {
  PassSpec spec;
  spec.create = PatternPassFactory(name, options, std::move(make), config);
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.options = std::move(options);
  return spec;
}

} // namespace tico::rewrite
