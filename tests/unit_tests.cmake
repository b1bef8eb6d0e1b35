# The GoogleTest unit-test binary tico-unit-tests and its CTest registration (included by
# tests/CMakeLists.txt when TICO_BUILD_UNIT_TESTS is ON).
file(GLOB TICO_UNIT_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/*_test.cpp)
# The GPTQ solver's tests get their own small binary (tests/CMakeLists.txt): it needs only the solver library,
# so it builds and runs without the rest of the project.
list(FILTER TICO_UNIT_TEST_SOURCES EXCLUDE REGEX "/(gptq|adaround)_solver_test\\.cpp$")
add_executable(tico-unit-tests ${TICO_UNIT_TEST_SOURCES})
target_link_libraries(tico-unit-tests PRIVATE tico-core tico-circle-doc tico-interpreter GTest::gtest GTest::gtest_main nlohmann_json::nlohmann_json)
# core/interpreter/src: the quantized kernels' fixed-point primitives are tested directly.
target_include_directories(tico-unit-tests PRIVATE ${PROJECT_SOURCE_DIR}/core/src ${CMAKE_CURRENT_SOURCE_DIR}/unit
                                                   ${CMAKE_CURRENT_SOURCE_DIR}/support
                                                   ${PROJECT_SOURCE_DIR}/core/interpreter/src)
target_compile_definitions(tico-unit-tests PRIVATE
  TICO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  TICO_BINARY_DIR="${PROJECT_BINARY_DIR}"
  TICO_TEST_PLUGIN_DIR="${PROJECT_BINARY_DIR}/lib/tico/test-plugins"
  TICO_PLUGIN_DIR="${TICO_PLUGIN_OUTPUT_DIR}"
  TICO_RUN_PATH="$<TARGET_FILE:tico-run>"
  TICO_CIRCLE_PATH="$<TARGET_FILE:tico-circle>"
  TICO_WITH_LIBTORCH=$<BOOL:${TICO_WITH_LIBTORCH}>)
# The cli_* tests run the tools as child processes.
add_dependencies(tico-unit-tests tico-run tico-circle)
# The test bodies themselves compile at -Og (the code under test keeps the build's -O2): GoogleTest's
# macros expand into much code that -O2 spends time on for nothing (tests/unit/circle_writer_test.cpp:
# 33 s at -O2, 24 s at -Og, both without -g). x86-64 float arithmetic gives the same bits at
# either level (SSE, no contraction under -std=c++20).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT TICO_SANITIZE)
  target_compile_options(tico-unit-tests PRIVATE $<$<CONFIG:RelWithDebInfo,Release>:-Og>)
endif()
# The headers most test sources include, parsed once (GoogleTest and the Circle object model cost
# 2-3 s per source file otherwise; docs/testing.md, "CI budget").
target_precompile_headers(tico-unit-tests PRIVATE <gtest/gtest.h> <tico/support/error.h> <tico/circle/model.h>
                          <tico/ir/graph.h> <filesystem> <functional> <map> <memory> <string> <vector>)
# One CTest entry per test (the default: `ctest -R Suite.Name` picks one, a crash fails only its
# test), or N entries each running a shard of the binary in one process. Starting a process per
# test is most of the suite's cost under the sanitizers (about 1,250 starts of a large
# instrumented binary), so packaging/test-sanitize.sh sets 2: one shard per core.
set(TICO_UNIT_TEST_SHARDS 0 CACHE STRING "Run tico-unit-tests as this many CTest entries (0: one per test)")
if(TICO_UNIT_TEST_SHARDS GREATER 0)
  math(EXPR _last_shard "${TICO_UNIT_TEST_SHARDS} - 1")
  foreach(_shard RANGE ${_last_shard})
    add_test(NAME unit.shard-${_shard} COMMAND tico-unit-tests --gtest_brief=1)
    set_tests_properties(unit.shard-${_shard} PROPERTIES LABELS unit TIMEOUT 1800
      ENVIRONMENT "GTEST_TOTAL_SHARDS=${TICO_UNIT_TEST_SHARDS};GTEST_SHARD_INDEX=${_shard}")
  endforeach()
else()
  gtest_discover_tests(tico-unit-tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)
endif()
# Under AddressSanitizer the thread pool's tests run once more with stack-use-after-return
# detection (off by default: fake stacks slow every test): its jobs live on the caller's stack,
# and a worker that took one after the caller returned read a dead frame (fixed 2026-12-04;
# only this detection saw it).
if(TICO_SANITIZE MATCHES "address")
  add_test(NAME unit.parallel-stack-lifetime COMMAND tico-unit-tests --gtest_filter=InterpParallel.*)
  set_tests_properties(unit.parallel-stack-lifetime PROPERTIES LABELS unit
    ENVIRONMENT "ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0")
endif()


# Tests that exercise bundled plugins load them from the build tree; the .pt2 reader tests also
# reach into the reader library and its torch-exported fixtures.
foreach(_plugin tico-pt2 tico-aten-eval tico-std-passes tico-circle-lowering tico-circle-legalize tico-circle-passes
                tico-builtin-runtime tico-calibration-sources)
  if(TARGET ${_plugin})
    add_dependencies(tico-unit-tests ${_plugin})
  endif()
endforeach()
# The calibration sources, driven without loading their plugin.
if(TARGET tico-calibration-sources-lib)
  target_link_libraries(tico-unit-tests PRIVATE tico-calibration-sources-lib)
endif()
if(TARGET tico-pt2-reader)
  # The PyTorch op table too: tests build aten graphs without loading the plugin that has it.
  target_link_libraries(tico-unit-tests PRIVATE tico-pt2-reader tico-pt2-op-table)
  add_dependencies(tico-unit-tests tico-pt2-fixtures)
endif()

# The incremental-strategies analysis, planner and packager (plugins/incremental).
if(TARGET tico-incremental-lib)
  target_link_libraries(tico-unit-tests PRIVATE tico-incremental-lib)
  add_dependencies(tico-unit-tests tico-incremental)
endif()
# The incremental runtime layer (core/incremental-runtime).
target_link_libraries(tico-unit-tests PRIVATE tico-incremental-runtime)
# Running exported LLMs and the tokenizer (core/llm).
target_link_libraries(tico-unit-tests PRIVATE tico-llm)

# The ptq quantizer's estimators, tiling, overrides and placement (plugins/quant-ptq).
if(TARGET tico-quant-ptq-objects)
  target_link_libraries(tico-unit-tests PRIVATE tico-quant-ptq-objects)
endif()
# SmoothQuant's groups, alpha search and rewrite (plugins/quant-smoothquant).
if(TARGET tico-quant-smoothquant-objects)
  target_link_libraries(tico-unit-tests PRIVATE tico-quant-smoothquant-objects)
endif()
# Cross-layer equalization's pair finder and rewrite (plugins/quant-cle), and ptq's bias
# correction patch means (tico-quant-ptq-objects above).
if(TARGET tico-quant-cle-objects)
  target_link_libraries(tico-unit-tests PRIVATE tico-quant-cle-objects)
endif()
# Rotations' matrices, head-rotation paths and rewrite (plugins/quant-rotate).
if(TARGET tico-quant-rotate-objects)
  target_link_libraries(tico-unit-tests PRIVATE tico-quant-rotate-objects)
endif()
