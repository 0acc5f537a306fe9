// The BLAS under libdirac (OpenBLAS on Debian), set up before any command runs.
//
// The tool's dense problems are small. OpenBLAS starts a thread pool when it is loaded (about
// 190 MB of address space), and when an allocation of its 129 MB work buffer fails it retries
// forever, so under a memory limit (`ulimit -v`) a command could hang. Therefore:
//   - BLAS runs on one thread unless OPENBLAS_NUM_THREADS asks for more: when it is unset the
//     tool sets it to 1 and re-executes itself (the pool is made before main() runs);
//   - under an address-space limit, the work buffer is allocated at start-up (a 1 x 1 matrix
//     product) after checking that the limit leaves room for it; if it does not, the command
//     stops with "out of memory" instead of hanging later.
#ifndef DIRAC_CLI_BLAS_SETUP_H
#define DIRAC_CLI_BLAS_SETUP_H

/// Re-executes the program with OPENBLAS_NUM_THREADS=1 when that variable is unset (returns
/// only if it is set, or the re-execution failed, which leaves the default thread count).
void cli_blas_single_thread(char **argv);

/// Reserves OpenBLAS's work buffer under an address-space limit. Returns 0, or prints
/// "dirac: error: out of memory: ..." and returns the out-of-memory exit status.
int cli_blas_reserve(void);

#endif
