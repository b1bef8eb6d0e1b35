# lit configuration of tico's FileCheck tests: every .tir file under tests/lit is a test whose
# RUN lines call tico-run (found through PATH) and pipe its output into FileCheck.
import os

import lit.formats

config.name = "tico"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".tir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tico_binary_dir, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.tico_bin_dir, config.filecheck_dir, config.environment.get("PATH", "")])
# Only the plugins of this build: nothing from an installed tico or the user's TICO_PLUGIN_PATH.
config.environment.pop("TICO_PLUGIN_PATH", None)
config.environment["TICO_LOG"] = "1"

config.substitutions.append(("%tico_src", config.tico_source_dir))
# Test-only plugins (tests/plugins), e.g. the calibration sources of the ptq tests.
config.substitutions.append(("%tico_test_plugins", os.path.join(config.tico_binary_dir, "lib", "tico", "test-plugins")))

# Pipelines that fold through LibTorch need the aten-eval plugin.
if os.path.exists(os.path.join(config.tico_plugin_dir, "libtico-aten-eval.so")):
    config.available_features.add("aten-eval")
