/// @file dirac.h
/// The one header users include: libdirac, Lagrange–Dirac systems and their structure-
/// preserving integrators. Anything not declared under include/dirac/ is not API.
///
/// Arguments and failures: see status.h (every function checks its arguments and returns a
/// status or a documented neutral value; nothing exits, aborts or leaks on failure).
///
/// Threads: libdirac's one global mutable state is the list of loaded objects of generated
/// code (dirac_codegen_mode), shared in the process by the models whose generated source is
/// the same (e.g. one model compiled with other parameter values) and unloaded with the last
/// of them; a lock of the library guards it, taken only by dirac_model_compile and
/// dirac_model_destroy, never in a step.
/// - A dirac_spec, dirac_model or dirac_sim may be used from any thread, by one thread at a
///   time (calls on the same object must not overlap).
/// - A compiled dirac_model is immutable: any number of simulations may use one model
///   concurrently from different threads (dirac_sim_create, the steps and the model's queries
///   only read it). It must outlive its simulations.
/// - A dirac_sim is mutable, queries included (dirac_sim_outputs and
///   dirac_sim_interaction_force evaluate into its scratch memory): one thread at a time.
/// - Subspaces and Dirac structures are immutable and may be shared.
/// Results do not depend on threads: concurrent simulations are bit-for-bit equal to the same
/// simulations run serially (tests/test_threads.c, with models small enough for the built-in
/// LU). Larger dense systems call LAPACK, whose thread safety is that of the BLAS linked (the
/// Debian OpenBLAS builds are thread-safe).
#ifndef DIRAC_DIRAC_H
#define DIRAC_DIRAC_H

#include <dirac/status.h>
#include <dirac/structure.h>
#include <dirac/subspace.h>
#include <dirac/model.h>
#include <dirac/analysis.h>
#include <dirac/simulate.h>
#include <dirac/run.h>
#include <dirac/version.h>

#endif
