# tico_add_plugin(<target> [OUTPUT_NAME <name>] SOURCES <files...> [LIBRARIES <libs...>])
#
# Builds a tico plugin: a shared library with hidden visibility (the Boost.DLL entry alias is
# its only export), linked against the tico core, placed where tico-run discovers plugins.
# Shared by in-tree plugins and by out-of-tree plugins built against the installed SDK.
function(tico_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(ARG_OUTPUT_NAME)
    set(_name ${ARG_OUTPUT_NAME})
  else()
    set(_name ${target})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME ${_name}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../..")
  if(TARGET tico-core)
    target_link_libraries(${target} PRIVATE tico-core ${ARG_LIBRARIES})
  else()
    target_link_libraries(${target} PRIVATE Tico::core ${ARG_LIBRARIES})
  endif()
  if(DEFINED TICO_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TICO_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED TICO_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${TICO_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
