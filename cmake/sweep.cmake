# `dirac sweep` runs on POSIX threads; `dirac-mpi` (the same sweep over MPI ranks) is built
# when an MPI implementation is found (Debian: libopenmpi-dev), and skipped otherwise: the
# single-machine build never needs MPI.
option(DIRAC_MPI "Build dirac-mpi when MPI is found" ON)
find_package(Threads REQUIRED)
target_link_libraries(dirac_cli PRIVATE Threads::Threads)

if(DIRAC_MPI)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(DIRAC_MPI AND MPI_C_FOUND)
  file(GLOB DIRAC_SWEEP_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cli/sweep_*.c)
  add_executable(dirac_mpi ${PROJECT_SOURCE_DIR}/cli/mpi/dirac_mpi.c ${DIRAC_SWEEP_SOURCES}
                           ${PROJECT_SOURCE_DIR}/cli/csv_output.c ${PROJECT_SOURCE_DIR}/cli/output_file.c
                           ${PROJECT_SOURCE_DIR}/cli/option_args.c
                           ${PROJECT_SOURCE_DIR}/cli/library_message.c)
  set_target_properties(dirac_mpi PROPERTIES OUTPUT_NAME dirac-mpi)
  target_include_directories(dirac_mpi PRIVATE ${PROJECT_SOURCE_DIR}/cli)
  target_link_libraries(dirac_mpi PRIVATE dirac MPI::MPI_C Threads::Threads)
  install(TARGETS dirac_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  message(STATUS "MPI found: building dirac-mpi")
else()
  message(STATUS "MPI not found (or DIRAC_MPI=OFF): dirac-mpi is not built")
endif()
