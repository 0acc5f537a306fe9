// The BLAS set-up of the dirac tool (see blas_setup.h).
#define _GNU_SOURCE   // RTLD_DEFAULT, MAP_ANONYMOUS
#include "blas_setup.h"
#include "exit_status.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

// OpenBLAS's work buffer (BUFFER_SIZE plus its alignment), measured with strace on Debian 12's
// libopenblas0-pthread 0.3.21: mmap of 135266304 bytes. The buffer is allocated right after the
// probe, so nothing else takes the room in between.
#define BLAS_BUFFER_BYTES ((size_t)135266304)
#define PROBE_BYTES BLAS_BUFFER_BYTES

void cli_blas_single_thread(char **argv)
{
    if (getenv("OPENBLAS_NUM_THREADS"))
        return;
    if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    // not re-executed (no /proc): OpenBLAS keeps its default thread count
}

static void *symbol(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

int cli_blas_reserve(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
    void *openblas = symbol("openblas_get_config");
    void *dgemm = symbol("dgemm_");
    if (!openblas || !dgemm)
        return 0;   // another BLAS: nothing known about its allocations
    void *probe = mmap(NULL, PROBE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    if (probe == MAP_FAILED) {
        fprintf(stderr, "dirac: error: out of memory: the address-space limit (ulimit -v %lu "
                        "KB) leaves no room for the %zu MB work buffer of the BLAS library "
                        "(OpenBLAS); raise the limit\n",
                (unsigned long)(limit.rlim_cur / 1024), BLAS_BUFFER_BYTES >> 20);
        return EXIT_OUT_OF_MEMORY;
    }
    munmap(probe, PROBE_BYTES);
    // C = A B for 1 x 1 matrices: OpenBLAS allocates its buffer now and keeps it
    void (*product)(const char *, const char *, const int *, const int *, const int *,
                    const double *, const double *, const int *, const double *, const int *,
                    const double *, double *, const int *);
    memcpy(&product, &dgemm, sizeof product);
    const int one = 1;
    const double alpha = 1, beta = 0, a = 1, b = 1;
    double c = 0;
    product("N", "N", &one, &one, &one, &alpha, &a, &one, &b, &one, &beta, &c, &one);
    return 0;
}
