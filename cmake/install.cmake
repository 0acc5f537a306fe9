# `cmake --install BUILD [--prefix P]`: libdirac (static and shared), include/dirac/, the dirac
# tool, a pkg-config file, a CMake package (find_package(dirac): dirac::dirac, the shared
# library, and dirac::dirac_static) and the man page dirac(1). Every installed file locates the
# others relative to itself, so the prefix may be chosen at install time.
include(CMakePackageConfigHelpers)

set(DIRAC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dirac)
set(DIRAC_INSTALL_TARGETS dirac)
if(DIRAC_BUILD_SHARED)
  list(APPEND DIRAC_INSTALL_TARGETS dirac_shared)
endif()
install(TARGETS ${DIRAC_INSTALL_TARGETS} EXPORT diracTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/dirac DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
if(DIRAC_BUILD_CLI)
  install(TARGETS dirac_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # the FMU runtime `dirac export fmu` compiles (found relative to the tool)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/fmi/ DESTINATION ${CMAKE_INSTALL_DATADIR}/dirac/fmi
          FILES_MATCHING PATTERN "*.c" PATTERN "*.h")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/docs/dirac.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# CMake package
install(EXPORT diracTargets NAMESPACE dirac:: DESTINATION ${DIRAC_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/diracConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/diracConfig.cmake
                              INSTALL_DESTINATION ${DIRAC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/diracConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/diracConfig.cmake ${PROJECT_BINARY_DIR}/diracConfigVersion.cmake
        DESTINATION ${DIRAC_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own directory (${pcfiledir})
set(DIRAC_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH DIRAC_PC_TO_PREFIX /prefix/${DIRAC_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" DIRAC_PC_TO_PREFIX "${DIRAC_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/dirac.pc.in ${PROJECT_BINARY_DIR}/dirac.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/dirac.pc DESTINATION ${DIRAC_PC_DIR})
