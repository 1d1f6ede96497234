# btforge_add_plugin(NAME SOURCES...): a btforge loader or emitter plugin, libbtforge-NAME.so, a
# MODULE library against btforge::core that exports only its descriptor. Used by btforge's own
# plugins and, installed with the SDK (find_package(btforge)), by plugins built out of the tree.
#
# Where it goes, when set before the call:
#   BTFORGE_PLUGIN_OUTPUT_DIRECTORY  the build directory it is written to (default: CMake's)
#   BTFORGE_PLUGIN_INSTALL_DIR       where `cmake --install` puts it (default: btforge's plugin
#                                    directory, where the btforge command looks)
#   BTFORGE_PLUGIN_INSTALL_RPATH     its run path once installed (default: btforge's library
#                                    directory)
function(btforge_add_plugin name)
  set(target btforge-plugin-${name})
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME btforge-${name} PREFIX "lib")
  _btforge_plugin_module(${target})
  set_property(GLOBAL APPEND PROPERTY BTFORGE_PLUGIN_TARGETS ${target})
endfunction()

# btforge_add_companion(PLUGIN FILE SOURCES...): plugin PLUGIN's companion (btforge/plugin/
# Companion.h), FILE.so beside it, from SOURCES; the caller links it against the large library.
# Made with the plugin, as the plugin cannot work without it.
function(btforge_add_companion plugin file)
  set(target ${file})
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${file} PREFIX "")
  _btforge_plugin_module(${target})
  add_dependencies(btforge-plugin-${plugin} ${target})
endfunction()

# What a plugin and a companion share: where they go, what they export, what they link.
function(_btforge_plugin_module target)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "${BTFORGE_PLUGIN_INSTALL_RPATH}"
    # No padded build run path, whose empty entries would make the loader search the working
    # directory (the host has loaded libbtforge-core already, wherever the plugin lies).
    BUILD_WITH_INSTALL_RPATH ON)
  if(BTFORGE_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${BTFORGE_PLUGIN_OUTPUT_DIRECTORY})
  endif()
  target_compile_features(${target} PRIVATE cxx_std_20)
  # A symbol missing from libbtforge-core would otherwise only show when the host loads it.
  if(NOT BTFORGE_SANITIZE)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  target_link_libraries(${target} PRIVATE btforge::core)
  if(TARGET btforge_options)
    target_link_libraries(${target} PRIVATE btforge_options)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${BTFORGE_PLUGIN_INSTALL_DIR})
endfunction()
