/// @file status.h
/// Status codes returned by every fallible libdirac call, and the caller-owned error record
/// that carries the detailed message of a failed call.
///
/// Arguments: every public function checks its arguments and never crashes, exits or aborts
/// on bad ones. A NULL pointer where an object or an output is required, an index out of
/// range, a size below 1, a non-finite or out-of-range option, an unknown enum value: fallible
/// functions return DIRAC_ERR_ARGUMENT (or the more specific status they document, e.g.
/// DIRAC_ERR_SIZE, DIRAC_ERR_NOT_FINITE) with the message in the error record, and set their
/// out-pointer to NULL when it is not itself NULL. Queries that return a value return a
/// neutral one: NULL (names, arrays), -1 (counts, sizes, flags), NaN (real values); functions
/// without a result do nothing (or write NaN to the outputs they were given). Pointers that
/// may be NULL by design say so ("may be NULL"), as do the `*_destroy` functions (no-op).
/// Allocation failure anywhere returns DIRAC_ERR_NOMEM and leaves nothing allocated.
///
/// Failed simulation steps (dirac_sim_step) return DIRAC_ERR_NEWTON (Newton's method did not
/// converge), DIRAC_ERR_SINGULAR (a singular Jacobian), DIRAC_ERR_NOT_FINITE (the state or an
/// output became NaN or infinite), DIRAC_ERR_DOMAIN (a step left the model's domain: a
/// temperature −∂L/∂S that is not positive) and, in adaptive mode, DIRAC_ERR_STEP_SIZE (the step
/// size fell below the resolution of t, or 30 trial steps in a row were rejected).
#ifndef DIRAC_STATUS_H
#define DIRAC_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/// The one list of status codes, with the short message of each (X-macro).
#define DIRAC_STATUS_LIST(X)                                                          \
    X(DIRAC_OK, "success")                                                            \
    X(DIRAC_ERR_ARGUMENT, "invalid argument")                                         \
    X(DIRAC_ERR_SIZE, "dimension mismatch")                                           \
    X(DIRAC_ERR_NOT_FINITE, "non-finite value (NaN or infinity)")                     \
    X(DIRAC_ERR_NOT_SKEW, "matrix is not skew-symmetric")                             \
    X(DIRAC_ERR_RANK, "rank-deficient input")                                         \
    X(DIRAC_ERR_NOT_DIRAC, "not a Dirac structure")                                   \
    X(DIRAC_ERR_NOMEM, "out of memory")                                               \
    X(DIRAC_ERR_LINALG, "linear-algebra routine failed")                              \
    X(DIRAC_ERR_IO, "input/output error")                                             \
    X(DIRAC_ERR_PARSE, "model error")                                                 \
    X(DIRAC_ERR_NEWTON, "Newton iteration did not converge")                          \
    X(DIRAC_ERR_SINGULAR, "singular Jacobian")                                        \
    X(DIRAC_ERR_UNSUPPORTED, "not supported for this model")                          \
    X(DIRAC_ERR_STEP_SIZE, "adaptive step size too small")                           \
    X(DIRAC_ERR_DOMAIN, "value outside the model's domain")

/// Status of a libdirac call; DIRAC_OK (zero) means success.
typedef enum dirac_status {
#define DIRAC_STATUS_ENUM(code, text) code,
    DIRAC_STATUS_LIST(DIRAC_STATUS_ENUM)
#undef DIRAC_STATUS_ENUM
        DIRAC_STATUS_COUNT
} dirac_status;

/// The short, static description of a status code ("dimension mismatch"); never NULL.
const char *dirac_status_string(dirac_status status);

/// Maximum length of a detailed error message, including the terminating zero.
#define DIRAC_ERROR_MESSAGE_SIZE 512

/// Detailed report of a failed call, owned by the caller (typically on the stack).
/// Functions that cannot keep a message in an object of their own (constructors, stateless
/// operations) take a `dirac_error *`, which may be NULL when the caller only wants the status.
/// On success the record is left untouched.
typedef struct dirac_error {
    dirac_status status;                      ///< status of the failed call
    char message[DIRAC_ERROR_MESSAGE_SIZE];   ///< what was wrong, in one English sentence
} dirac_error;

#ifdef __cplusplus
}
#endif

#endif
