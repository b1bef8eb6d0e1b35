// A plugin built for a newer plugin API. The record is written by hand (TICO_PLUGIN always
// stamps the current version). Its register function adds a pass, so a test can prove the
// host never called it.
#include "tico/plugin/plugin.h"

namespace {

class KeepGraphPass : public tico::Pass {
public:
  bool run(tico::Graph &, tico::PassContext &) override { return false; }
};

int registerPlugin(TicoRegistrar *registrar) noexcept {
  try {
    tico::registrarOf(registrar).addPass(
        {"test.bad-api-pass", "must never be registered", {},
         [](const tico::Options &) { return std::make_unique<KeepGraphPass>(); }});
    return 0;
  } catch (...) {
    return 1;
  }
}

const TicoPluginInfo kInfo = {sizeof(TicoPluginInfo),     TICO_PLUGIN_API_VERSION + 1,
                              "test-bad-api",             "1.2",
                              "Apache-2.0",               TICO_BUILD_FINGERPRINT,
                              &registerPlugin};

} // namespace

extern "C" const TicoPluginInfo *test_bad_api_entry() { return &kInfo; }
BOOST_DLL_ALIAS_SECTIONED(test_bad_api_entry, tico_plugin_info, tico)
