// --list-plugins / --list-passes / --list-ops.
#include "tool.h"

#include "tico/circle/serializer.h"

#include <iostream>
#include <map>

namespace tico::run {
namespace {

std::string optionsText(const std::vector<OptionSpec> &options) {
  std::string out;
  for (const auto &o : options)
    out += "\n      " + o.name + " (" + optionTypeName(o.type) + ", default " + optionValueString(o.default_value) +
           ")" + (o.help.empty() ? "" : ": " + o.help);
  return out;
}

} // namespace

void listPlugins(const PluginSet &plugins, const Registry &registry) {
  std::map<std::string, std::map<std::string, int>> counts;
  for (const auto &[n, e] : registry.passes())
    ++counts[e.from.plugin]["passes"];
  for (const auto &[n, e] : registry.circlePasses())
    ++counts[e.from.plugin]["circle passes"];
  for (const auto &[n, e] : registry.quantizers())
    ++counts[e.from.plugin]["quantizers"];
  for (const auto &[n, e] : registry.frontends())
    ++counts[e.from.plugin]["frontends"];
  for (const auto &[k, list] : registry.lowerings())
    for (const auto &e : list)
      ++counts[e.from.plugin]["lowerings"];
  for (const auto &e : registry.evaluators())
    ++counts[e.from.plugin]["evaluators"];
  for (const auto &[n, e] : registry.runtimes())
    ++counts[e.from.plugin]["runtimes"];
  for (const auto &[n, e] : registry.calibrationSources())
    ++counts[e.from.plugin]["calibration sources"];
  if (plugins.plugins().empty()) {
    std::cout << "no plugins loaded (search path:";
    for (const auto &d : PluginSet::searchPath())
      std::cout << " " << d;
    std::cout << ")\n";
    return;
  }
  for (const auto &p : plugins.plugins()) {
    std::cout << p.name << " " << p.version << " (" << p.license << ")\n    " << p.path << "\n    provides:";
    bool any = false;
    for (const auto &[kind, n] : counts[p.name]) {
      std::cout << (any ? ", " : " ") << n << " " << kind;
      any = true;
    }
    std::cout << (any ? "" : " nothing") << "\n";
  }
}

void listPasses(const Registry &registry) {
  for (const auto &[name, e] : registry.passes())
    std::cout << name << "  [pass, " << e.from.plugin << " " << e.from.version << "]\n    " << e.spec.summary
              << optionsText(e.spec.options) << "\n";
  for (const auto &[name, e] : registry.quantizers())
    std::cout << name << "  [quantizer, " << e.from.plugin << " " << e.from.version << "]\n    " << e.spec.summary
              << optionsText(e.spec.options) << "\n";
  // Lowering is the core's serializer, not a plugin's entry; a `kind: lower` stage takes its
  // options (listed in pipeline order, between the ATen-level and the Circle entries).
  std::cout << "lower  [lower stage, core]\n    Lower the graph to a Circle model through the registered "
               "lowerings (a stage of kind: lower; its options go in the stage's options:)"
            << optionsText(LowerOptions::specs()) << "\n";
  for (const auto &[name, e] : registry.circlePasses())
    std::cout << name << "  [circle pass, " << e.from.plugin << " " << e.from.version << "]\n    " << e.spec.summary
              << optionsText(e.spec.options) << "\n";
}

void listOps(const Registry &registry) {
  for (const auto &[key, list] : registry.lowerings())
    for (const auto &e : list)
      std::cout << key.str() << "  [" << e.from.plugin << " " << e.from.version
                << (e.spec.priority ? ", priority " + std::to_string(e.spec.priority) : std::string()) << "]"
                << (e.spec.summary.empty() ? "" : "  " + e.spec.summary) << "\n";
}

} // namespace tico::run
