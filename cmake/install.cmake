# `cmake --install`: the CLI, the library's layers, its public headers, a CMake package
# (find_package(gpusizer) gives gpusizer::gpusizer) and a pkg-config file (gpusizer.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gpusizer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS gpusizer_lib ${GPUSIZER_LAYERS}
  EXPORT gpusizerTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpusizer
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
install(EXPORT gpusizerTargets NAMESPACE gpusizer::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpusizer COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpusizerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpusizerConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpusizer)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpusizerConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpusizerConfig.cmake
  ${PROJECT_BINARY_DIR}/gpusizerConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpusizer COMPONENT development)

# pkg-config: the layers in link order (highest first, as a static link needs them).
set(GPUSIZER_PC_LIBS "")
set(reversed ${GPUSIZER_LAYERS})
list(REVERSE reversed)
foreach(layer ${reversed})
  string(APPEND GPUSIZER_PC_LIBS " -l${layer}")
endforeach()
# Relocatable: the prefix is found from where gpusizer.pc lies (cmake --install --prefix, .debs).
file(RELATIVE_PATH GPUSIZER_PC_TO_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpusizer.pc.in ${PROJECT_BINARY_DIR}/gpusizer.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gpusizer.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

# Debian packages (cpack -G DEB in the build folder): gpusizer with the CLI (the data files and
# the page are compiled into it) and libgpusizer-dev with the headers, static libraries, the CMake
# package and gpusizer.pc. tests/install/run_install_test.sh builds both and runs the unpacked CLI.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpusizer)
set(CPACK_PACKAGE_VENDOR "gpusizer")
set(CPACK_PACKAGE_CONTACT "gpusizer developers <gpusizer@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU memory, speed, cost and power for serving and training large models")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME gpusizer)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libfmt9, libmicrohttpd12, libc6, libstdc++6")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libgpusizer-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "nlohmann-json3-dev, libfmt-dev")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
include(CPack)
