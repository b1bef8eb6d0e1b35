// Pass manager: strategies, the 1000-iteration guard, verification and error attribution.
#include "tico/circle/circle_pass.h"
#include "tico/pass/pass_manager.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>

using namespace tico;

namespace {

// Counts calls and reports a change for the first `changes` calls.
class ScriptedPass : public Pass {
public:
  ScriptedPass(std::vector<std::string> *log, std::string name, int changes)
      : log_(log), name_(std::move(name)), changes_(changes) {}
  bool run(Graph &, PassContext &) override {
    log_->push_back(name_);
    return changes_-- > 0;
  }

private:
  std::vector<std::string> *log_;
  std::string name_;
  int changes_;
};

class PassManagerTest : public ::testing::Test {
protected:
  Registry registry;
  PassContext context{registry};
  Graph graph;
  std::vector<std::string> log;
};

} // namespace

TEST_F(PassManagerTest, RestartGoesBackToTheFirstPass) {
  PassManager pm(PassStrategy::Restart);
  pm.add("a", std::make_unique<ScriptedPass>(&log, "a", 0));
  pm.add("b", std::make_unique<ScriptedPass>(&log, "b", 1));
  pm.add("c", std::make_unique<ScriptedPass>(&log, "c", 0));
  EXPECT_TRUE(pm.run(graph, context));
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "a", "b", "c"}));
}

TEST_F(PassManagerTest, UntilNoChangeRunsFullSweeps) {
  PassManager pm(PassStrategy::UntilNoChange);
  pm.add("a", std::make_unique<ScriptedPass>(&log, "a", 0));
  pm.add("b", std::make_unique<ScriptedPass>(&log, "b", 1));
  pm.add("c", std::make_unique<ScriptedPass>(&log, "c", 0));
  EXPECT_TRUE(pm.run(graph, context));
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "c", "a", "b", "c"}));
}

TEST_F(PassManagerTest, OnceRunsEachPassOnce) {
  PassManager pm(PassStrategy::Once);
  pm.add("a", std::make_unique<ScriptedPass>(&log, "a", 5));
  pm.add("b", std::make_unique<ScriptedPass>(&log, "b", 0));
  EXPECT_TRUE(pm.run(graph, context));
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b"}));
}

TEST_F(PassManagerTest, GuardNamesThePassesThatKeepChanging) {
  for (PassStrategy strategy : {PassStrategy::Restart, PassStrategy::UntilNoChange}) {
    PassManager pm(strategy);
    pm.add("settles", std::make_unique<ScriptedPass>(&log, "settles", 3));
    pm.add("flip", std::make_unique<ScriptedPass>(&log, "flip", 1 << 30));
    pm.add("flop", std::make_unique<ScriptedPass>(&log, "flop", 1 << 30));
    try {
      pm.run(graph, context);
      FAIL() << "expected the iteration guard to trip";
    } catch (const Error &e) {
      std::string m = e.what();
      EXPECT_NE(m.find("did not converge after 1000 changing iterations"), std::string::npos) << m;
      EXPECT_NE(m.find("flip"), std::string::npos) << m;
      EXPECT_EQ(m.find("settles"), std::string::npos) << m;
      if (strategy == PassStrategy::UntilNoChange)
        EXPECT_NE(m.find("flop"), std::string::npos) << m;
    }
    log.clear();
  }
}

namespace {
class BreakingPass : public Pass {
public:
  bool run(Graph &g, PassContext &) override {
    // A parameter without data violates the graph invariants.
    g.addInput(InputKind::Parameter, "w", DType::Float32, {2}, "w", nullptr);
    return true;
  }
};
class ThrowingPass : public Pass {
public:
  bool run(Graph &, PassContext &) override { throw Error("boom"); }
};
} // namespace

TEST_F(PassManagerTest, VerifyEachBlamesThePass) {
  PassManager pm(PassStrategy::Once);
  pm.setVerifyEach(true);
  pm.add("breaker", std::make_unique<BreakingPass>());
  try {
    pm.run(graph, context);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("the graph is invalid after pass 'breaker'"), std::string::npos) << e.what();
  }
}

TEST_F(PassManagerTest, PassErrorsArePrefixedWithThePassName) {
  PassManager pm;
  pm.add("thrower", std::make_unique<ThrowingPass>());
  try {
    pm.run(graph, context);
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "pass 'thrower' failed: boom");
  }
}

namespace {
class Recorder : public PassInstrumentation {
public:
  std::vector<std::string> events;
  void beforePass(const std::string &n, const Graph &) override { events.push_back("before " + n); }
  void afterPass(const std::string &n, const Graph &, bool changed, std::chrono::nanoseconds) override {
    events.push_back("after " + n + (changed ? " changed" : ""));
  }
};
} // namespace

TEST_F(PassManagerTest, InstrumentationSeesEveryPass) {
  Recorder rec;
  PassManager pm(PassStrategy::Once);
  pm.addInstrumentation(&rec);
  pm.add("a", std::make_unique<ScriptedPass>(&log, "a", 1));
  pm.run(graph, context);
  EXPECT_EQ(rec.events, (std::vector<std::string>{"before a", "after a changed"}));
}

namespace {
// The Circle-model counterpart of ScriptedPass.
class ScriptedCirclePass : public CirclePass {
public:
  ScriptedCirclePass(std::vector<std::string> *log, std::string name, int changes)
      : log_(log), name_(std::move(name)), changes_(changes) {}
  bool run(CircleModel &, PassContext &) override {
    log_->push_back(name_);
    return changes_-- > 0;
  }

private:
  std::vector<std::string> *log_;
  std::string name_;
  int changes_;
};

class CircleRecorder : public CirclePassInstrumentation {
public:
  std::vector<std::string> events;
  void beforePass(const std::string &n, const CircleModel &) override { events.push_back("before " + n); }
  void afterPass(const std::string &n, const CircleModel &, bool changed, std::chrono::nanoseconds) override {
    events.push_back("after " + n + (changed ? " changed" : ""));
  }
};
} // namespace

// One scheduler for both IRs: the Circle manager follows the same strategies, instruments the
// same way and prefixes errors with what a Circle pass is called.
TEST_F(PassManagerTest, CircleModelsAreScheduledTheSameWay) {
  CircleModel model;
  CirclePassManager restart(PassStrategy::Restart);
  restart.add("a", std::make_unique<ScriptedCirclePass>(&log, "a", 0));
  restart.add("b", std::make_unique<ScriptedCirclePass>(&log, "b", 1));
  restart.add("c", std::make_unique<ScriptedCirclePass>(&log, "c", 0));
  CircleRecorder rec;
  restart.addInstrumentation(&rec);
  EXPECT_TRUE(restart.run(model, context));
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "a", "b", "c"}));
  EXPECT_EQ(rec.events.size(), 10u);
  EXPECT_EQ(rec.events[3], "after b changed");

  log.clear();
  CirclePassManager sweeps(PassStrategy::UntilNoChange);
  sweeps.add("a", std::make_unique<ScriptedCirclePass>(&log, "a", 0));
  sweeps.add("b", std::make_unique<ScriptedCirclePass>(&log, "b", 1));
  EXPECT_TRUE(sweeps.run(model, context));
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "a", "b"}));

  CirclePassManager spinning(PassStrategy::UntilNoChange);
  spinning.add("spin", std::make_unique<ScriptedCirclePass>(&log, "spin", 1 << 30));
  try {
    spinning.run(model, context);
    FAIL() << "expected the iteration guard to trip";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("passes that kept changing the Circle model in the last iterations: spin"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(PassManagerTest, PassNounNamesQuantizers) {
  PassManager pm;
  pm.setPassNoun("quantizer");
  pm.add("thrower", std::make_unique<ThrowingPass>());
  try {
    pm.run(graph, context);
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "quantizer 'thrower' failed: boom");
  }
}
