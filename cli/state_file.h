// State files of `dirac simulate --save-state/--initial-state` (docs/cli.md, "Restart"): JSON
// with the format's name and version, the model's identity (name, coordinate/constraint/
// entropy/input names, parameter values, a hash of its equations), the settings of the run
// (method, step, tolerances), the state by CSV column name for reading, and the simulation's
// snapshot (dirac_sim_state_save) as hexadecimal with its byte count and FNV-1a checksum.
// The snapshot is what a restart continues from, so the continued run is bit for bit the run
// in one piece; the readable state must agree with it (an edited file is refused).
#ifndef DIRAC_CLI_STATE_FILE_H
#define DIRAC_CLI_STATE_FILE_H

#include <dirac/dirac.h>

#include <stddef.h>
#include <stdint.h>

#define STATE_FILE_FORMAT "dirac-state"
#define STATE_FILE_VERSION 4   // 2 (dirac 0.2): affine midpoint models keep no predictor history;
                               // 3: dgrad keeps the last velocity and step for its guess;
                               // 4: midpoint's predictor history is a ring (src/predictor.h)

/// The settings of the run that shape its trajectory.
typedef struct state_settings {
    const char *method;   // the method that ran (never "auto")
    double dt;            // the step option (adaptive: the first step)
    double rtol, atol;    // adaptive tolerances (0: fixed steps)
    double tol;           // Newton's relative tolerance (0: the library's default)
    long max_iter;        // Newton's iterations (0: the library's default)
} state_settings;

/// The hash of the model's equations and parameter values that a state file records (0 when
/// out of memory); it writes and prints every equation, so a run computes it once.
uint64_t state_file_model_hash(const dirac_model *model);

/// Writes the state of `sim` (a simulation of `model`, whose state_file_model_hash is
/// `model_hash`) to `path` whole or not at all (output_file.h). Returns 0, or an errno value
/// with the reason in message.
int state_file_write(const char *path, const dirac_model *model, uint64_t model_hash,
                     const dirac_sim *sim, const state_settings *settings, char *message,
                     size_t message_size);

/// A state file read and checked against a model.
typedef struct saved_state {
    state_settings settings;
    char *method;                 // settings.method points here
    double t;
    long steps;
    unsigned char *snapshot;
    size_t snapshot_size;
    double *values;               // the readable state: t, q, v, p, mu, S (CSV order)
    int value_count;
    uint64_t model_hash;          // state_file_model_hash of the model, the file's
} saved_state;

/// Reads `path` and checks it is a state file of this format version, written on a machine
/// of this byte order, of `model` (same names, parameter values and equations), with an intact
/// snapshot. Returns 0, or -1 with the reason in message (a sentence naming the file).
int state_file_read(const char *path, const dirac_model *model, saved_state *out,
                    char *message, size_t message_size);

/// Restores the saved snapshot into `sim` (created from the same model with the saved
/// settings) and checks that the readable state agrees with it. Returns 0 or -1 (message).
int state_file_restore(const saved_state *state, const char *path, const dirac_model *model,
                       dirac_sim *sim, char *message, size_t message_size);

void saved_state_free(saved_state *state);

#endif
