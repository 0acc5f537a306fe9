// Internal: filling a caller-owned dirac_error.
#ifndef DIRAC_SRC_ERROR_H
#define DIRAC_SRC_ERROR_H

#include <dirac/status.h>
#include <dirac/version.h>

/// Records `status` and a printf-formatted message in `err` (when non-NULL); returns `status`
/// so callers can write `return error_set(err, DIRAC_ERR_SIZE, "...", ...);`.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
dirac_status error_set(dirac_error *err, dirac_status status, const char *format, ...);

/// DIRAC_ERR_ARGUMENT for a NULL pointer argument of `function` (argument checks of the public
/// functions: "FUNCTION: WHAT is NULL").
dirac_status error_null(dirac_error *err, const char *function, const char *what);

#endif
