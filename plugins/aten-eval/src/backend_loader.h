// Finds and loads the LibTorch backend of the "aten" evaluator on first use.
#pragma once

#include "tico/eval/evaluator.h"

#include <memory>
#include <string>

namespace tico::aten_eval {

// Where the backend is expected: <plugin dir>/../backends/libtico-aten-eval-torch.so, i.e.
// lib/tico/backends/ next to lib/tico/plugins/ in the build tree and in an installation.
std::string backendPath();

// The evaluator the backend provides; the backend is loaded once and never unloaded.
// Throws tico::Error naming the path when it is missing (a build without LibTorch) or does
// not load (the loader's message is included).
std::shared_ptr<const Evaluator> loadAtenEvaluator();

} // namespace tico::aten_eval
