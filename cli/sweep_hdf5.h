// HDF5 files of `dirac sweep` (docs/sweeps.md, "HDF5"): the RESULTS table as one compound
// dataset `/results` (a record per run, a member per CSV column, in the CSV's order), and the
// trajectories as one file with a group `/run_NNNNNN` per run holding a 2-D dataset
// `trajectory` (rows × columns, doubles) with the column names in its attribute `columns`.
//
// Built with HDF5 when CMake finds it (DIRAC_HAVE_HDF5; the library is loaded with dlopen at
// the first open); without it, or when the library cannot be loaded, every open fails with
// ENOTSUP, and without it sweep_hdf5_available() is 0. Every call takes one process-wide lock: HDF5's
// serial library is not thread-safe, and the sweep's threads write trajectories while the
// results are written.
#ifndef DIRAC_CLI_SWEEP_HDF5_H
#define DIRAC_CLI_SWEEP_HDF5_H

#include <stddef.h>

/// 1 if this build writes HDF5.
int sweep_hdf5_available(void);

/// 1 if `path` names an HDF5 file (ends in ".h5" or ".hdf5").
int sweep_hdf5_path(const char *path);

// The kinds of the RESULTS columns.
typedef enum sweep_column_kind {
    SWEEP_COLUMN_INTEGER,   // int64
    SWEEP_COLUMN_REAL,      // double
    SWEEP_COLUMN_TEXT,      // variable-length UTF-8 string
} sweep_column_kind;

typedef struct sweep_h5_table sweep_h5_table;

/// Creates the file `path` (replacing it) with an empty, extendible `/results` of the given
/// columns. Returns 0 or an errno value (ENOTSUP without HDF5, EINVAL when the names collide
/// or HDF5 refuses the file); *table NULL on failure.
int sweep_h5_table_open(const char *path, int columns, char *const *names,
                        const sweep_column_kind *kinds, sweep_h5_table **table);

/// Appends the record of one RESULTS line (the CSV text, '\n'-terminated, as sweep_run.h
/// formats it: numbers as %.17g, nan, inf, so that they read back as the same doubles).
/// Returns 0 or an errno value.
int sweep_h5_table_append(sweep_h5_table *table, const char *line);

/// Writes what the library buffers to the file.
int sweep_h5_table_flush(sweep_h5_table *table);

/// Closes the file and frees the table (NULL: nothing). Returns 0 or an errno value.
int sweep_h5_table_close(sweep_h5_table *table);

typedef struct sweep_h5_trajectories sweep_h5_trajectories;

/// Creates the trajectory file `path` (replacing it). Returns 0 or an errno value.
int sweep_h5_trajectories_open(const char *path, sweep_h5_trajectories **file);

/// Writes run `name`'s group with its `rows` × `columns` values (row-major) and the column
/// names. Safe to call from several threads. Returns 0 or an errno value.
int sweep_h5_trajectories_write(sweep_h5_trajectories *file, const char *name, long index,
                                int columns, char *const *names, const double *values,
                                size_t rows);

/// Closes the file (NULL: nothing). Returns 0 or an errno value.
int sweep_h5_trajectories_close(sweep_h5_trajectories *file);

#endif
