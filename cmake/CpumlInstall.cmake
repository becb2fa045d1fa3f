# Install rules: headers, libcpuml.so (SONAME libcpuml.so.<major>) and libcpuml.a, the CMake
# package (find_package(cpuml): targets cpuml::cpuml and cpuml::cpuml_static) and cpuml.pc,
# under GNUInstallDirs paths.
include(CMakePackageConfigHelpers)
set(CPUML_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cpuml)

install(TARGETS cpuml cpuml_static EXPORT cpumlTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cpuml DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cpumlTargets NAMESPACE cpuml:: DESTINATION ${CPUML_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/cpumlConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cpumlConfig.cmake INSTALL_DESTINATION ${CPUML_CMAKE_DIR})
# A minor version keeps the ABI at every major version, 0 included (include/cpuml/cpuml.h,
# Versioning): any installed version of the same major, not older than the one asked, serves.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cpumlConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cpumlConfig.cmake ${PROJECT_BINARY_DIR}/cpumlConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/package/Findcpuinfo.cmake
              ${PROJECT_SOURCE_DIR}/cmake/package/Findpthreadpool.cmake
        DESTINATION ${CPUML_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own folder, so `cmake --install --prefix`
# anywhere gives a working file.
file(RELATIVE_PATH CPUML_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/package/cpuml.pc.in ${PROJECT_BINARY_DIR}/cpuml.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cpuml.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
