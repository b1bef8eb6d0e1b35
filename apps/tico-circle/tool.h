// Pieces of tico-circle shared between its subcommands (one source file per subcommand).
#pragma once

#include "summary.h"

#include "tico/circle/model.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tico::circle_tool {

// Exit codes of every subcommand. `verify` uses kWarnings for a model with warnings only;
// anything that stops a command (unreadable file, bad arguments, a model that fails
// verification) is kError.
constexpr int kOk = 0;
constexpr int kWarnings = 1;
constexpr int kError = 2;
constexpr int kInternalError = 3;

// A subcommand registers its options on `app` and returns the action that runs it.
using Action = std::function<int()>;
Action addInspect(CLI::App &app);
Action addVerify(CLI::App &app);
Action addExtract(CLI::App &app);
Action addOptimize(CLI::App &app);
Action addRun(CLI::App &app);
Action addBench(CLI::App &app);
Action addServeIncremental(CLI::App &app);
Action addGenerate(CLI::App &app);
Action addEval(CLI::App &app);
Action addCompare(CLI::App &app);

// Reads a Circle file with every reader check on (readCircleFile), or with `check_indices`
// off for the verifier, which reports index problems itself.
CircleModel loadModel(const std::string &path, bool check_indices = true);

// Verifies `model` (errors only) and writes it atomically; `what` names the command in messages.
void saveModel(const CircleModel &model, const std::string &path, bool verify, const std::string &what);


// Splits "a,b,c" at commas, dropping empty entries and surrounding blanks.
std::vector<std::string> splitCommaList(const std::string &text);

// Directory holding the running executable (for share/tico/pipelines and plugins).
std::string executableDir();

} // namespace tico::circle_tool
