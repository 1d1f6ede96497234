# The installed SDK: find_package(btforge) (btforgeConfig.cmake, its version file, the exported
# btforge::core target and btforge_add_plugin) and pkg-config's btforge.pc.
include(CMakePackageConfigHelpers)
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/btforge)

install(EXPORT btforge-targets NAMESPACE btforge:: FILE btforgeTargets.cmake
  DESTINATION ${_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/btforgeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/btforgeConfig.cmake
  INSTALL_DESTINATION ${_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR BTFORGE_INSTALL_PLUGIN_DIR)
# The plugin ABI changes with minor versions while the major is 0: a minor release is another SDK.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/btforgeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/btforgeConfig.cmake
  ${PROJECT_BINARY_DIR}/btforgeConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/BtforgePlugin.cmake
  DESTINATION ${_cmake_dir})

# btforge.pc is written when installing, with the prefix then chosen (cmake --install --prefix
# DIR), normalised: pkg-config then prints plain absolute paths, and the same compiler flags
# btforge_add_plugin gives a plugin.
install(CODE "
  cmake_path(SET BTFORGE_PC_PREFIX NORMALIZE \"\${CMAKE_INSTALL_PREFIX}\")
  string(REGEX REPLACE \"(.)/$\" \"\\\\1\" BTFORGE_PC_PREFIX \"\${BTFORGE_PC_PREFIX}\")
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(BTFORGE_INSTALL_PLUGIN_DIR \"${BTFORGE_INSTALL_PLUGIN_DIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(pc \"\$ENV{DESTDIR}\${BTFORGE_PC_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/btforge.pc\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/btforge.pc.in\" \"\${pc}\" @ONLY)
  message(STATUS \"Installing: \${pc}\")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${pc}\")
")
