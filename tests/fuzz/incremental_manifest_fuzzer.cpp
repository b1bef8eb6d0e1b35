// libFuzzer target for the incremental manifest checks every consumer runs before serving a
// manifest (core/incremental-runtime: manifest_view.cpp, manifest_dataflow.cpp): the input is the
// manifest's JSON text, checked against a fixed three-input model converted with tico-run
// --incremental at build time (incremental_model.tir; its own manifest is the seed).
//
// Properties: checking never crashes and throws nothing but tico::Error, and the two entry
// points agree: parseManifest accepts a manifest exactly when manifestProblems finds nothing
// (the verifier and the runtime refuse the same manifests).
#include "manifest_view.h"

#include "tico/circle/reader.h"
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const tico::CircleModel &model() {
  static const tico::CircleModel m = tico::readCircleFile(TICO_FUZZ_INCREMENTAL_MODEL);
  return m;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const nlohmann::json manifest =
      nlohmann::json::parse(reinterpret_cast<const char *>(data), reinterpret_cast<const char *>(data) + size,
                            nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded())
    return 0;
  namespace rt = tico::incremental::runtime;
  const std::vector<std::string> problems = rt::manifestProblems(model(), manifest);
  bool accepted = false;
  std::string refusal;
  try {
    const rt::ManifestView view = rt::parseManifest(model(), manifest);
    accepted = true;
    (void)rt::maskText(view, view.all());
  } catch (const tico::Error &e) {
    refusal = e.what();
  }
  if (accepted != problems.empty()) {
    std::fprintf(stderr, "parseManifest %s, manifestProblems found %zu problem(s)%s%s\n",
                 accepted ? "accepted" : "refused", problems.size(), problems.empty() ? "" : ": ",
                 problems.empty() ? refusal.c_str() : problems.front().c_str());
    std::abort();
  }
  return 0;
}
