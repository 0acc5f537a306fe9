# `dirac sweep` runs on POSIX threads; `dirac-mpi` (the same sweep over MPI ranks) is built
# when an MPI implementation is found (Debian: libopenmpi-dev), and skipped otherwise: the
# single-machine build never needs MPI.
option(DIRAC_MPI "Build dirac-mpi when MPI is found" ON)
find_package(Threads REQUIRED)
target_link_libraries(dirac_cli PRIVATE Threads::Threads)

# HDF5 output of `dirac sweep` (--out RESULTS.h5, --trajectories FILE.h5) when the serial
# HDF5 library is found (Debian: libhdf5-dev, pkg-config module hdf5-serial, or hdf5);
# without it those names are refused with a message and CSV works as before.
option(DIRAC_HDF5 "Write HDF5 sweep results when HDF5 is found" ON)
set(DIRAC_HDF5_FOUND OFF)
if(DIRAC_HDF5)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_search_module(DIRAC_HDF5_PC QUIET IMPORTED_TARGET hdf5-serial hdf5)
    if(DIRAC_HDF5_PC_FOUND)
      set(DIRAC_HDF5_FOUND ON)
    endif()
  endif()
endif()
if(DIRAC_HDF5_FOUND)
  target_link_libraries(dirac_cli PRIVATE PkgConfig::DIRAC_HDF5_PC)
  target_compile_definitions(dirac_cli PRIVATE DIRAC_HAVE_HDF5)
  message(STATUS "HDF5 found: dirac sweep writes *.h5")
else()
  message(STATUS "HDF5 not found (or DIRAC_HDF5=OFF): dirac sweep writes CSV only")
endif()

if(DIRAC_MPI)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(DIRAC_MPI AND MPI_C_FOUND)
  file(GLOB DIRAC_SWEEP_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cli/sweep_*.c)
  add_executable(dirac_mpi ${PROJECT_SOURCE_DIR}/cli/mpi/dirac_mpi.c ${DIRAC_SWEEP_SOURCES}
                           ${PROJECT_SOURCE_DIR}/cli/csv_output.c ${PROJECT_SOURCE_DIR}/cli/output_file.c
                           ${PROJECT_SOURCE_DIR}/cli/option_args.c)
  set_target_properties(dirac_mpi PROPERTIES OUTPUT_NAME dirac-mpi)
  target_include_directories(dirac_mpi PRIVATE ${PROJECT_SOURCE_DIR}/cli)
  target_link_libraries(dirac_mpi PRIVATE dirac MPI::MPI_C Threads::Threads)
  if(DIRAC_HDF5_FOUND)
    target_link_libraries(dirac_mpi PRIVATE PkgConfig::DIRAC_HDF5_PC)
    target_compile_definitions(dirac_mpi PRIVATE DIRAC_HAVE_HDF5)
  endif()
  install(TARGETS dirac_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  message(STATUS "MPI found: building dirac-mpi")
else()
  message(STATUS "MPI not found (or DIRAC_MPI=OFF): dirac-mpi is not built")
endif()
