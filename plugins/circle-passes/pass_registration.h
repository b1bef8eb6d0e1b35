// Registration helper shared by the pass files: one CirclePassSpec per pass class.
#pragma once

#include "tico/circle/circle_pass.h"
#include "tico/plugin/registry.h"

#include <memory>
#include <string>
#include <vector>

namespace tico::circle_passes {

// Registers `PassT`, constructed from the resolved options.
template <typename PassT>
void registerCirclePass(Registrar &r, std::string name, std::string summary, std::vector<OptionSpec> options = {}) {
  r.addCirclePass(CirclePassSpec{std::move(name), std::move(summary), std::move(options),
                                 [](const Options &o) -> std::unique_ptr<CirclePass> { return std::make_unique<PassT>(o); }});
}

} // namespace tico::circle_passes
