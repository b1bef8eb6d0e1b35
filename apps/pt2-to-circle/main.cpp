// pt2-to-circle: the original converter's command line, on tico.
//
//   pt2-to-circle -i model.pt2 -o model.circle [-c config.yaml] [-v]
//
// Runs the default pipeline (share/tico/pipelines/default.yaml next to this binary) with the
// compile options of the config file applied (compat_config.h), so scripts written for the
// original keep working. Like every tico tool it writes the output atomically: a failed run
// leaves no file behind and never touches an existing one.
#include "compat_config.h"

#include "tico/pipeline/driver.h"
#include "tico/plugin/loader.h"
#include "tico/support/error.h"
#include "tico/support/file.h"
#include "tico/support/log.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace {

constexpr const char *kTool = "pt2-to-circle";

fs::path executableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

std::string defaultPipeline() {
  const fs::path candidate = executableDir() / ".." / "share" / "tico" / "pipelines" / "default.yaml";
  std::error_code ec;
  if (!fs::exists(candidate, ec))
    throw tico::Error("the default pipeline is missing (expected " + candidate.lexically_normal().string() +
                      "); is tico installed completely?");
  return fs::weakly_canonical(candidate, ec).string();
}

int run(int argc, char **argv) {
  CLI::App app{"pt2-to-circle: convert a torch.export program (.pt2) to a Circle model "
               "(the original TICO command line, running tico's default pipeline)"};
  app.set_version_flag("--version", std::string(kTool) + " (tico " + TICO_VERSION + ")");
  std::string input, output, config_path;
  bool verbose = false, force = false;
  app.add_option("-i,--input", input, "provide a path to .pt2 model.")->required();
  app.add_option("-o,--output", output, "provide a path to .circle model.")->required();
  app.add_option("-c,--config", config_path, "provide a path to config file.");
  app.add_flag("-v,--verbose", verbose, "print logs.");
  // Not in the original: it replaced read-only outputs silently (docs/circle-tools.md).
  app.add_flag("--force", force, "replace a read-only output file.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    // argparse's convention, which the original followed: usage errors exit with 2.
    app.exit(e);
    return 2;
  }
  if (verbose)
    tico::log::setLevel(tico::log::Level::Debug);

  // Everything the user wrote is checked before any plugin is loaded or any file is read.
  // circle_optimize: false selects the packaged pipeline without the O1 stage (minimal.yaml).
  const std::string pipeline = defaultPipeline();
  tico::requireRegularFile(input, "input model");
  // The file is read once, applied first for the pipeline it selects, then onto that pipeline's config.
  const std::string config_text = config_path.empty() ? std::string() : tico::readRegularFile(config_path, "config file");
  tico::CompileConfig scratch;
  const bool optimize =
      config_path.empty() || tico::compat::applyCompatConfigText(config_text, config_path, scratch).circle_optimize;
  const std::string chosen = optimize ? pipeline : (fs::path(pipeline).parent_path() / "minimal.yaml").string();
  tico::checkOutputTarget(output, {input, config_path, chosen}, force);
  tico::Manifest manifest = tico::Manifest::load(chosen);
  if (!config_path.empty())
    tico::compat::applyCompatConfigText(config_text, config_path, manifest.config);

  tico::PluginSet plugins;
  tico::Registry registry;
  plugins.discover(registry);
  manifest.validate(registry);

  tico::ConversionOptions options;
  options.input_path = input;
  options.output_path = output;
  tico::convert(registry, manifest, options);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const tico::Error &e) {
    std::cerr << kTool << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << kTool << ": internal error: " << e.what() << "\n";
    return 2;
  }
}
