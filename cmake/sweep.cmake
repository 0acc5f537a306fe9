# `dirac sweep` runs on POSIX threads; `dirac-mpi` (the same sweep over MPI ranks) is built
# when an MPI implementation is found (Debian: libopenmpi-dev), and skipped otherwise: the
# single-machine build never needs MPI.
option(DIRAC_MPI "Build dirac-mpi when MPI is found" ON)
find_package(Threads REQUIRED)
target_link_libraries(dirac_cli PRIVATE Threads::Threads)

# HDF5 output of `dirac sweep` (--out RESULTS.h5, --trajectories FILE.h5) when the serial
# HDF5 library is found (Debian: libhdf5-dev, pkg-config module hdf5-serial, or hdf5);
# without it those names are refused with a message and CSV works as before. The tool loads
# the library with dlopen when a sweep writes HDF5 (cli/sweep_hdf5.c): only its headers and
# its file name are needed here.
option(DIRAC_HDF5 "Write HDF5 sweep results when HDF5 is found" ON)
set(DIRAC_HDF5_FOUND OFF)
if(DIRAC_HDF5)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_search_module(DIRAC_HDF5_PC QUIET hdf5-serial hdf5)
  endif()
  if(DIRAC_HDF5_PC_FOUND)
    find_library(DIRAC_HDF5_LIB NAMES hdf5_serial hdf5 HINTS ${DIRAC_HDF5_PC_LIBRARY_DIRS})
    find_path(DIRAC_HDF5_INCLUDE hdf5.h HINTS ${DIRAC_HDF5_PC_INCLUDE_DIRS})
  endif()
  if(DIRAC_HDF5_LIB AND DIRAC_HDF5_INCLUDE)
    get_filename_component(DIRAC_HDF5_REAL ${DIRAC_HDF5_LIB} REALPATH)
    # libhdf5_serial.so.103.3.1 -> libhdf5_serial.so.103 (the soname: survives patch updates)
    string(REGEX REPLACE "(\\.so\\.[0-9]+)\\..*$" "\\1" DIRAC_HDF5_SONAME ${DIRAC_HDF5_REAL})
    set(DIRAC_HDF5_FOUND ON)
  endif()
endif()
function(dirac_use_hdf5 target)
  if(DIRAC_HDF5_FOUND)
    target_include_directories(${target} SYSTEM PRIVATE ${DIRAC_HDF5_INCLUDE})
    target_compile_definitions(${target} PRIVATE DIRAC_HAVE_HDF5
      DIRAC_HDF5_SONAME="${DIRAC_HDF5_SONAME}" DIRAC_HDF5_LIBRARY="${DIRAC_HDF5_REAL}")
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()
dirac_use_hdf5(dirac_cli)
if(DIRAC_HDF5_FOUND)
  message(STATUS "HDF5 found (${DIRAC_HDF5_SONAME}): dirac sweep writes *.h5")
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
                           ${PROJECT_SOURCE_DIR}/cli/option_args.c ${PROJECT_SOURCE_DIR}/cli/column_name.c
                           ${PROJECT_SOURCE_DIR}/cli/library_message.c)
  set_target_properties(dirac_mpi PROPERTIES OUTPUT_NAME dirac-mpi)
  target_include_directories(dirac_mpi PRIVATE ${PROJECT_SOURCE_DIR}/cli)
  target_link_libraries(dirac_mpi PRIVATE dirac MPI::MPI_C Threads::Threads)
  dirac_use_hdf5(dirac_mpi)
  install(TARGETS dirac_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  message(STATUS "MPI found: building dirac-mpi")
else()
  message(STATUS "MPI not found (or DIRAC_MPI=OFF): dirac-mpi is not built")
endif()
