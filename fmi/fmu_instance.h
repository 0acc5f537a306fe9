// One instance of a dirac FMU, independent of the FMI version: the model loaded from the
// embedded files, its simulation, the values the host set, the communication steps and the
// FMU states. The version layers (fmu_fmi2.c, fmu_fmi3.c) translate the FMI calls into these
// functions; every function here that can fail returns 1 on success and 0 after sending the
// reason through the host's logger.
#ifndef DIRAC_FMU_INSTANCE_H
#define DIRAC_FMU_INSTANCE_H

#include "fmu_layout.h"

#include <stddef.h>

typedef enum fmu_phase {
    FMU_INSTANTIATED, FMU_INITIALIZATION, FMU_STEPPING, FMU_TERMINATED, FMU_FAILED
} fmu_phase;

typedef struct fmu fmu;

/// Sends one message to the host: `error` nonzero for an error (category logStatusError),
/// else an information (logged only when the host switched logging on).
typedef void (*fmu_log_function)(const fmu *f, int error, const char *message);

struct fmu {
    char *name;                  // the host's instance name
    const char *prefix;          // "fmi2" or "fmi3": names the calls in messages
    const char *state_name;      // "FMUstate" (FMI 2.0) or "FMUState" (FMI 3.0), likewise
    fmu_log_function log;
    void (*logger)(void);        // the host's callback, cast back by the version layer
    void *environment;           // the host's pointer passed back to its callback
    int logging;
    unsigned time_reference;     // value reference of the independent variable (FMI 3), or ~0u
    fmu_phase phase;
    dirac_spec *spec;
    dirac_model *model;
    dirac_sim *sim;              // created when the state is first needed
    fmu_layout layout;
    double *parameters, *inputs, *outputs;
    int parameters_changed;      // the model must be compiled again before it is used
    double start_time, dt;       // internal step (0: not chosen yet)
    long steps_done;             // internal steps since initialization
    unsigned char *backup;       // the state at the communication point (failed steps)
    size_t backup_size;
    double last_successful_time;
};

/// A new instance that only logs (NULL when out of memory); fmu_setup loads the model.
fmu *fmu_new(const char *name, const char *prefix, fmu_log_function log, void (*logger)(void),
             void *environment, int logging, unsigned time_reference);
void fmu_free(fmu *f);
/// Loads the model as exported and resets every value (instantiation, Reset).
int fmu_setup(fmu *f);
/// Checks the GUID / instantiation token the host read from modelDescription.xml.
int fmu_check_token(fmu *f, const char *token);

/// Logs `format` as an error and returns 0.
int fmu_fail(fmu *f, const char *format, ...) __attribute__((format(printf, 2, 3)));

int fmu_set_start_time(fmu *f, double start_time);
int fmu_enter_initialization(fmu *f);
int fmu_exit_initialization(fmu *f);
int fmu_terminate(fmu *f);
/// Reset: fmu_setup again; an instance that cannot be set up is failed.
int fmu_reset(fmu *f);

/// Values of the variables vr[0..n-1] (function: the FMI call, for messages).
int fmu_get_reals(fmu *f, const unsigned *vr, size_t n, double *values, const char *function);
/// Sets inputs and parameters: all or nothing (every value is checked first).
int fmu_set_reals(fmu *f, const unsigned *vr, size_t n, const double *values,
                  const char *function);
/// A call for a variable type the FMU does not have: fine for n = 0, else an error.
int fmu_no_such_type(fmu *f, size_t n, const char *function);

/// Advances from the communication point t by h; a failed step leaves the state at t.
int fmu_do_step(fmu *f, double t, double h);

/// FMU states: everything the next steps depend on, with the tunable parameters' values.
int fmu_state_get(fmu *f, void **state);
int fmu_state_set(fmu *f, const void *state);
int fmu_state_free(fmu *f, void **state);
int fmu_state_serialized_size(fmu *f, const void *state, size_t *size);
int fmu_state_serialize(fmu *f, const void *state, unsigned char *bytes, size_t size);
int fmu_state_deserialize(fmu *f, const unsigned char *bytes, size_t size, void **state);

#endif
