// The rewrite driver: the changed flag, patterns rooted at ops, worklist re-visits of what a
// rewrite affects (and the sweep that does not re-visit), dead-node erasure, the rewrite bound,
// and the pass built on it.
#include "rewrite_test_support.h"

#include "tico/pipeline/compile_config.h"
#include "tico/rewrite/driver.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;
using namespace tico::rewrite;
using namespace tico::rewrite_test;

namespace {

const OpKey kNeg("aten", "neg", "default");
const OpKey kExp("aten", "exp", "default");
const OpKey kRelu("aten", "relu", "default");

// neg(neg(y)) -> y, rooted at the outer neg.
std::unique_ptr<Pattern> doubleNegation() {
  return makePattern({kNeg}, [](Node &outer, Rewriter &rewriter) {
    Node *inner = outer.input(0)->producer();
    if (inner == nullptr || inner->op() != kNeg)
      return false;
    rewriter.replaceNode(&outer, inner->input(0));
    return true;
  });
}

// A neg nothing reads is erased (through the rewriter, so its producer is visited again).
std::unique_ptr<Pattern> unusedNeg() {
  return makePattern({kNeg}, [](Node &neg, Rewriter &rewriter) { return rewriter.eraseIfDead(&neg); });
}

// exp(y) -> neg(neg(y)): creates nodes another pattern matches.
std::unique_ptr<Pattern> expToDoubleNegation() {
  return makePattern({kExp}, [](Node &exp, Rewriter &rewriter) {
    Builder b = rewriter.builderFor(exp);
    Value *once = b.make("aten::neg.default", {A(exp.input(0))});
    rewriter.replaceNode(&exp, b.make("aten::neg.default", {A(once)}));
    return true;
  });
}

bool apply(Graph &g, const Registry &registry, std::vector<std::unique_ptr<Pattern>> &patterns,
           DriverConfig config = {}) {
  std::vector<Pattern *> raw;
  for (auto &p : patterns)
    raw.push_back(p.get());
  return applyPatterns(g, &registry, raw, config);
}

// x -> ops[0] -> ops[1] -> ... -> graph output; returns the last node.
Node *chain(Graph &g, Value *x, const std::vector<std::string> &ops) {
  Node *last = nullptr;
  for (const std::string &op : ops)
    x = (last = unary(g, op, x))->output();
  output(g, x);
  return last;
}

std::vector<std::unique_ptr<Pattern>> patterns(std::unique_ptr<Pattern> a, std::unique_ptr<Pattern> b = nullptr) {
  std::vector<std::unique_ptr<Pattern>> out;
  out.push_back(std::move(a));
  if (b)
    out.push_back(std::move(b));
  return out;
}

} // namespace

TEST(RewriteDriver, RewritesAndReportsAChange) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  Node *relu = chain(g, x, {"neg", "neg", "relu"});
  auto ps = patterns(doubleNegation());
  EXPECT_TRUE(apply(g, *registry, ps));
  EXPECT_EQ(relu->input(0), x);
  // Without erase_dead the inner neg stays (dead); the rewritten outer one is gone.
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"neg", "relu"}));
  g.verify();
  // Nothing left to rewrite: unchanged.
  EXPECT_FALSE(apply(g, *registry, ps));
}

TEST(RewriteDriver, APatternThatNeverMatchesChangesNothing) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  chain(g, x, {"neg", "relu"});
  auto ps = patterns(makePattern({kNeg}, [](Node &, Rewriter &) { return false; }));
  EXPECT_FALSE(apply(g, *registry, ps));
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"neg", "relu"}));
  std::vector<std::unique_ptr<Pattern>> none;
  EXPECT_FALSE(apply(g, *registry, none));
}

TEST(RewriteDriver, OffersOnlyNodesOfTheRootOps) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  chain(g, x, {"exp", "neg", "relu"});
  std::vector<std::string> seen_rooted, seen_all;
  auto ps = patterns(makePattern({kNeg, kRelu},
                                 [&](Node &n, Rewriter &) {
                                   seen_rooted.push_back(n.op().name);
                                   return false;
                                 }),
                     makePattern({}, [&](Node &n, Rewriter &) {
                       seen_all.push_back(n.op().name);
                       return false;
                     }));
  EXPECT_FALSE(apply(g, *registry, ps));
  EXPECT_EQ(seen_rooted, (std::vector<std::string>{"neg", "relu"}));
  EXPECT_EQ(seen_all, (std::vector<std::string>{"exp", "neg", "relu"})); // graph order
}

TEST(RewriteDriver, ErasesWhatARewriteLeftDeadWhenAsked) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  Node *unrelated = unary(g, "abs", x); // dead before the pass: not the pass's to erase
  chain(g, x, {"neg", "neg", "relu"});
  auto ps = patterns(doubleNegation());
  DriverConfig config;
  config.erase_dead = true;
  EXPECT_TRUE(apply(g, *registry, ps, config));
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"abs", "relu"}));
  EXPECT_EQ(g.nodes().front().get(), unrelated);
  g.verify();
}

TEST(RewriteDriver, WorklistRevisitsTheProducersOfErasedNodes) {
  auto registry = unaryRuleRegistry();
  auto build = [](Graph &g) {
    Value *x = input(g, "x", {2});
    unary(g, "neg", unary(g, "neg", x)->output()); // a dead chain, visited inner first
    output(g, x);
  };
  Graph worklist;
  build(worklist);
  auto ps = patterns(unusedNeg());
  EXPECT_TRUE(apply(worklist, *registry, ps));
  // The inner neg was visited while the outer one still read it; erasing the outer one queued
  // it again, and then it was dead too.
  EXPECT_EQ(worklist.numNodes(), 0u);

  Graph sweep;
  build(sweep);
  EXPECT_TRUE(apply(sweep, *registry, ps, {Traversal::Sweep}));
  EXPECT_EQ(opNames(sweep), std::vector<std::string>{"neg"}); // one walk: the inner one stays
  EXPECT_TRUE(apply(sweep, *registry, ps, {Traversal::Sweep})); // the next run takes it
  EXPECT_EQ(sweep.numNodes(), 0u);
}

TEST(RewriteDriver, WorklistVisitsTheNodesARewriteCreatedASweepDoesNot) {
  auto registry = unaryRuleRegistry();
  auto build = [](Graph &g) {
    Value *x = input(g, "x", {2});
    return chain(g, x, {"exp", "relu"});
  };
  DriverConfig config;
  config.erase_dead = true;
  Graph worklist;
  Node *relu = build(worklist);
  auto ps = patterns(expToDoubleNegation(), doubleNegation());
  EXPECT_TRUE(apply(worklist, *registry, ps, config));
  EXPECT_EQ(opNames(worklist), std::vector<std::string>{"relu"});
  EXPECT_EQ(relu->input(0)->name(), "x");

  Graph sweep;
  build(sweep);
  config.traversal = Traversal::Sweep;
  EXPECT_TRUE(apply(sweep, *registry, ps, config));
  EXPECT_EQ(opNames(sweep), (std::vector<std::string>{"neg", "neg", "relu"}));
  // The new nodes are named after the node they replace.
  EXPECT_EQ(sweep.nodes().front()->name(), "exp_neg");
}

TEST(RewriteDriver, UsersOfAReplacedValueAreVisitedAgain) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  chain(g, x, {"relu", "neg", "neg"});
  // relu(x) -> x, rooted at relu; the neg that read it is visited again, counted here.
  int relu_visits = 0, neg_visits = 0;
  auto ps = patterns(makePattern({kRelu},
                                 [&](Node &r, Rewriter &rewriter) {
                                   ++relu_visits;
                                   rewriter.replaceNode(&r, r.input(0));
                                   return true;
                                 }),
                     makePattern({kNeg}, [&](Node &, Rewriter &) {
                       ++neg_visits;
                       return false;
                     }));
  EXPECT_TRUE(apply(g, *registry, ps));
  EXPECT_EQ(relu_visits, 1);
  // The first neg's input changed while it was still queued: it is not queued twice.
  EXPECT_EQ(neg_visits, 2);
}

TEST(RewriteDriver, APatternThatAlwaysReportsAChangeHitsTheBound) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  chain(g, x, {"neg"});
  auto ps = patterns(makePattern({kNeg}, [](Node &, Rewriter &) { return true; }));
  DriverConfig config;
  config.max_rewrites = 50;
  try {
    apply(g, *registry, ps, config);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "rewrite driver: more than 50 rewrites in one run; a pattern keeps reporting a change "
                           "(last at node 'neg')");
  }
}

TEST(RewriteDriver, PatternPassUsesTheContextRegistry) {
  auto registry = unaryRuleRegistry();
  Graph g;
  Value *x = input(g, "x", {2});
  Node *relu = chain(g, x, {"exp", "relu"});
  std::unique_ptr<Pass> pass = patternPass(patterns(expToDoubleNegation(), doubleNegation()));
  PassContext context(*registry);
  EXPECT_TRUE(pass->run(g, context));
  EXPECT_EQ(relu->input(0), x);
  EXPECT_FALSE(pass->run(g, context));
}

namespace {

#define EXPECT_HAS_TEXT(text, needle) EXPECT_NE(std::string(text).find(needle), std::string::npos) << (text)

// Logs how many nodes this pattern object has been offered so far; never rewrites.
class CountingPattern final : public Pattern {
public:
  CountingPattern(OpKey root, std::vector<int> *log) : root_(std::move(root)), log_(log) {}
  std::vector<OpKey> roots() const override { return {root_}; }
  bool matchAndRewrite(Node &, Rewriter &) override {
    log_->push_back(++seen_);
    return false;
  }

private:
  OpKey root_;
  std::vector<int> *log_;
  int seen_ = 0;
};

} // namespace

// patternPassSpec with options: the roots of the patterns (made once with the default options)
// are its factory's roots, each once; every run gets fresh patterns.
TEST(RewriteDriver, PatternPassSpecDeclaresRootsAndMakesFreshPatternsPerRun) {
  auto registry = unaryRuleRegistry();
  auto log = std::make_shared<std::vector<int>>();
  PassSpec spec = patternPassSpec(
      "test.counting", "counts", {OptionSpec{"twice", OptionType::Bool, false, "two patterns"}},
      [log](const Options &o) {
        std::vector<std::unique_ptr<Pattern>> out;
        out.push_back(std::make_unique<CountingPattern>(kNeg, log.get()));
        out.push_back(std::make_unique<CountingPattern>(o.getBool("twice") ? kNeg : kExp, log.get()));
        return out;
      },
      {Traversal::Sweep});
  ASSERT_NE(PatternPassFactory::of(spec), nullptr);
  EXPECT_EQ(PatternPassFactory::of(spec)->roots(), (std::vector<OpKey>{kNeg, kExp}));
  ASSERT_EQ(spec.options.size(), 1u);
  log->clear(); // the spec made the patterns once to read their roots
  Graph g;
  Value *x = input(g, "x", {2});
  chain(g, x, {"neg", "neg"});
  std::unique_ptr<Pass> pass = spec.create(Options::resolve("test.counting", spec.options, {}));
  PassContext context(*registry);
  EXPECT_FALSE(pass->run(g, context));
  EXPECT_FALSE(pass->run(g, context));
  // Two negs offered to the first pattern per run; its count restarts with the second run.
  EXPECT_EQ(*log, (std::vector<int>{1, 2, 1, 2}));
}

// A root that only other options give would escape the load-time check: creating the pass fails.
TEST(RewriteDriver, PatternRootsThatDependOnOptionsAreAnError) {
  PassSpec spec = patternPassSpec(
      "test.option-roots", "roots by option", {OptionSpec{"exp", OptionType::Bool, false, "root at exp"}},
      [](const Options &o) {
        std::vector<std::unique_ptr<Pattern>> out;
        out.push_back(makePattern({o.getBool("exp") ? kExp : kNeg}, [](Node &, Rewriter &) { return false; }));
        return out;
      });
  EXPECT_EQ(PatternPassFactory::of(spec)->roots(), std::vector<OpKey>{kNeg});
  EXPECT_NO_THROW(spec.create(Options::resolve("test.option-roots", spec.options, {})));
  try {
    spec.create(Options::resolve("test.option-roots", spec.options, {{"exp", true}}));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_HAS_TEXT(e.what(), "pass 'test.option-roots': with these options a pattern is rooted at "
                              "'aten::exp.default'");
  }
}

// The registry records a pattern pass's roots as op references, checked with the others; a pass
// whose create is a plain function has none.
TEST(RewriteDriver, RegistryChecksPatternRoots) {
  Registry registry;
  registry.addSchemalessOp(kNeg, Provenance{"test", "1", "<test>"});
  registry.addPass(patternPassSpec("test.roots", "roots", {kNeg, OpKey("aten", "nge", "default")},
                                   [](Node &, Rewriter &) { return false; }),
                   Provenance{"test", "1", "<test>"});
  try {
    registry.checkOpReferences();
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_HAS_TEXT(e.what(), "names unknown op 'aten::nge.default' in a pattern of pass 'test.roots' "
                              "(did you mean 'aten::neg.default'?)");
    EXPECT_EQ(std::string(e.what()).find("'aten::neg.default' in"), std::string::npos);
  }
  PassSpec plain{"test.plain", "plain", {}, [](const Options &) { return patternPass({}); }};
  EXPECT_EQ(PatternPassFactory::of(plain), nullptr);
}
