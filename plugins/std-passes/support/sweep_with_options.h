// sweepPass (pass_support.h) for a pass with options.
#pragma once

#include "pass_support.h"

#include <functional>

namespace tico::passes {

// A PassSpec for a pass with options made of one rewrite pattern rooted at `ops`, applied in
// one sweep in graph order like sweepPass. `make` returns the rewrite for the options of a
// manifest entry; it is called for every run, so the rewrite may keep state for one run. The
// roots are checked at load (rewrite::patternPassSpec).
using RewriteMaker = std::function<rewrite::RewriteFn(const Options &options)>;
PassSpec sweepPass(std::string name, std::string summary, std::vector<OptionSpec> options,
                   std::span<const std::string_view> ops, RewriteMaker make);
inline PassSpec sweepPass(std::string name, std::string summary, std::vector<OptionSpec> options,
                          std::initializer_list<std::string_view> ops, RewriteMaker make) {
  return sweepPass(std::move(name), std::move(summary), std::move(options),
                   std::span<const std::string_view>(ops.begin(), ops.size()), std::move(make));
}

} // namespace tico::passes
