// tico-circle: inspect, verify, extract, optimize and run Circle models.
#include "tool.h"

#include "tico/support/error.h"
#include "tico/support/log.h"

#include <iostream>

namespace {

int run(int argc, char **argv) {
  using namespace tico::circle_tool;
  CLI::App app{"tico-circle: inspect, verify, extract, optimize and run Circle models"};
  app.set_version_flag("--version", std::string("tico-circle ") + TICO_VERSION);
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "debug logging (same as TICO_LOG=4)");

  std::vector<std::pair<CLI::App *, Action>> commands;
  auto add = [&](const char *name, const char *summary, Action (*define)(CLI::App &)) {
    CLI::App *sub = app.add_subcommand(name, summary);
    commands.emplace_back(sub, define(*sub));
  };
  add("inspect", "print a model's subgraphs, inputs/outputs, tensors, operators, signatures and buffers", addInspect);
  add("verify", "check structural and referential consistency (exit 0 clean, 1 warnings, 2 errors)", addVerify);
  add("extract", "cut out the part of a subgraph between tensors or an operator range as a new model",
      addExtract);
  add("optimize", "run Circle passes from plugins (--passes a,b,c or the -O1 preset)", addOptimize);
  add("run", "execute a model on .npy inputs (--runtime NAME; default: the built-in interpreter)", addRun);
  add("bench", "time the built-in interpreter on a model: run time and where it goes, operator by operator", addBench);
  add("serve-incremental",
      "replay a trace of input changes through the incremental runtime layer: hit rate, strategies, latency, overhead",
      addServeIncremental);
  add("compare",
      "find where a model (quantized, optimized) diverges from a reference: every tensor's SQNR, the first divergence",
      addCompare);
  add("generate", "generate text with an exported LLM (prefill + decode signatures, docs/llm.md)", addGenerate);
  add("eval", "evaluate an exported LLM: perplexity over a text, accuracy on multiple-choice questions", addEval);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    const int code = app.exit(e);
    return code == 0 ? kOk : kError;
  }
  if (verbose)
    tico::log::setLevel(tico::log::Level::Debug);
  for (auto &[sub, action] : commands)
    if (sub->parsed())
      return action();
  return kError;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const tico::Error &e) {
    std::cerr << "tico-circle: error: " << e.what() << "\n";
    return tico::circle_tool::kError;
  } catch (const std::bad_alloc &) {
    std::cerr << "tico-circle: error: out of memory\n";
    return tico::circle_tool::kError;
  } catch (const std::exception &e) {
    std::cerr << "tico-circle: internal error: " << e.what() << "\n";
    return tico::circle_tool::kInternalError;
  }
}
