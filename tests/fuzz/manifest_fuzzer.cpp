// libFuzzer target for the pipeline manifest parser (YAML through yaml-cpp, then tico's own
// checks of keys, kinds, strategies, conditions, compact pass forms and option values).
//
// Properties: parsing either yields a manifest or throws tico::Error; a parsed manifest
// validates or throws tico::Error (against an empty registry: every pass is unknown, which
// exercises the did-you-mean path); printing is canonical: parse(print(m)) prints the same text.
#include "tico/pipeline/manifest.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  tico::Manifest manifest;
  try {
    manifest = tico::Manifest::parse(text, "fuzz.yaml");
  } catch (const tico::Error &) {
    return 0;
  }
  try {
    static const tico::Registry registry;
    manifest.validate(registry);
  } catch (const tico::Error &) {
  }
  const std::string printed = manifest.print();
  try {
    const std::string again = tico::Manifest::parse(printed, "printed.yaml").print();
    if (again != printed) {
      std::fprintf(stderr, "print is not canonical:\n--- first\n%s\n--- second\n%s\n", printed.c_str(), again.c_str());
      std::abort();
    }
  } catch (const tico::Error &e) {
    std::fprintf(stderr, "a printed manifest does not parse: %s\n--- printed\n%s\n", e.what(), printed.c_str());
    std::abort();
  }
  return 0;
}
