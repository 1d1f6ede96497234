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

# Relocatable: the prefix is found from where btforge.pc lies (cmake --install --prefix DIR).
file(RELATIVE_PATH BTFORGE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/btforge.pc.in ${PROJECT_BINARY_DIR}/btforge.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/btforge.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
