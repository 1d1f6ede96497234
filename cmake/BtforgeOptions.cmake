# Warnings and sanitizers applied to every btforge target through this interface library.
add_library(btforge_options INTERFACE)
target_compile_options(btforge_options INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)

if(BTFORGE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_compile_options(btforge_options INTERFACE ${_san})
  target_link_options(btforge_options INTERFACE ${_san})
endif()

# Adds a loader or emitter plugin: a MODULE library named btforge-<name> in the plugin dir.
function(btforge_add_plugin name)
  add_library(btforge-plugin-${name} MODULE ${ARGN})
  set_target_properties(btforge-plugin-${name} PROPERTIES
    OUTPUT_NAME btforge-${name}
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${BTFORGE_BUILD_PLUGIN_DIR}
    CXX_VISIBILITY_PRESET hidden
    INSTALL_RPATH "$ORIGIN/../..")
  target_link_libraries(btforge-plugin-${name} PRIVATE btforge-core btforge_options)
  install(TARGETS btforge-plugin-${name} LIBRARY DESTINATION ${BTFORGE_INSTALL_PLUGIN_DIR})
  set_property(GLOBAL APPEND PROPERTY BTFORGE_PLUGIN_TARGETS btforge-plugin-${name})
endfunction()
