// HDF5 files of `dirac sweep` (sweep_hdf5.h).
#include "sweep_hdf5.h"

#include <errno.h>
#include <string.h>

int sweep_hdf5_path(const char *path)
{
    size_t n = strlen(path);
    return (n > 3 && !strcmp(path + n - 3, ".h5")) || (n > 5 && !strcmp(path + n - 5, ".hdf5"));
}

#ifndef DIRAC_HAVE_HDF5

int sweep_hdf5_available(void) { return 0; }

int sweep_h5_table_open(const char *path, int columns, char *const *names,
                        const sweep_column_kind *kinds, sweep_h5_table **table)
{
    (void)path, (void)columns, (void)names, (void)kinds;
    *table = NULL;
    return ENOTSUP;
}

int sweep_h5_table_append(sweep_h5_table *table, const char *line)
{
    (void)table, (void)line;
    return ENOTSUP;
}

int sweep_h5_table_flush(sweep_h5_table *table)
{
    (void)table;
    return ENOTSUP;
}

int sweep_h5_table_close(sweep_h5_table *table)
{
    (void)table;
    return 0;
}

int sweep_h5_trajectories_open(const char *path, sweep_h5_trajectories **file)
{
    (void)path;
    *file = NULL;
    return ENOTSUP;
}

int sweep_h5_trajectories_write(sweep_h5_trajectories *file, const char *name, long index,
                                int columns, char *const *names, const double *values,
                                size_t rows)
{
    (void)file, (void)name, (void)index, (void)columns, (void)names, (void)values, (void)rows;
    return ENOTSUP;
}

int sweep_h5_trajectories_close(sweep_h5_trajectories *file)
{
    (void)file;
    return 0;
}

#else

#include <hdf5.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_mutex_t hdf5_lock = PTHREAD_MUTEX_INITIALIZER;

int sweep_hdf5_available(void) { return 1; }

// HDF5 prints its error stack to stderr by default; the tool reports errors itself.
static void silence_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

// A variable-length UTF-8 string type (the caller closes it).
static hid_t text_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

// ---- the RESULTS table ----------------------------------------------------------------------

struct sweep_h5_table {
    hid_t file, dataset, type;
    int columns;
    sweep_column_kind *kinds;
    size_t *offsets;       // of each member in a record
    unsigned char *record; // one record
    char *fields;          // the unquoted fields of a line (each '\0'-terminated)
    size_t fields_cap;
    hsize_t rows;
};

int sweep_h5_table_open(const char *path, int columns, char *const *names,
                        const sweep_column_kind *kinds, sweep_h5_table **out)
{
    *out = NULL;
    sweep_h5_table *t = calloc(1, sizeof *t);
    if (!t)
        return ENOMEM;
    t->file = t->dataset = t->type = H5I_INVALID_HID;
    t->columns = columns;
    t->kinds = malloc((size_t)columns * sizeof *t->kinds);
    t->offsets = malloc((size_t)columns * sizeof *t->offsets);
    if (!t->kinds || !t->offsets) {
        sweep_h5_table_close(t);
        return ENOMEM;
    }
    // the record: members in column order, each aligned to 8 bytes (int64, double, char *)
    size_t size = 0;
    for (int k = 0; k < columns; k++) {
        t->kinds[k] = kinds[k];
        t->offsets[k] = size;
        size += 8;
    }
    t->record = calloc(1, size ? size : 1);
    if (!t->record) {
        sweep_h5_table_close(t);
        return ENOMEM;
    }
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    silence_hdf5();
    hid_t text = text_type();
    t->type = H5Tcreate(H5T_COMPOUND, size);
    for (int k = 0; !e && k < columns; k++) {
        hid_t member = kinds[k] == SWEEP_COLUMN_INTEGER ? H5T_NATIVE_INT64
                       : kinds[k] == SWEEP_COLUMN_REAL  ? H5T_NATIVE_DOUBLE
                                                        : text;
        if (H5Tinsert(t->type, names[k], t->offsets[k], member) < 0)
            e = EINVAL;   // e.g. two columns of the same name
    }
    H5Tclose(text);
    if (!e) {
        t->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        e = t->file < 0 ? EACCES : 0;
    }
    if (!e) {
        hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 256;
        hid_t space = H5Screate_simple(1, &zero, &unlimited);
        hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(plist, 1, &chunk);
        t->dataset = H5Dcreate2(t->file, "results", t->type, space, H5P_DEFAULT, plist,
                                H5P_DEFAULT);
        H5Pclose(plist);
        H5Sclose(space);
        e = t->dataset < 0 ? EIO : 0;
    }
    pthread_mutex_unlock(&hdf5_lock);
    if (e) {
        sweep_h5_table_close(t);
        return e;
    }
    *out = t;
    return 0;
}

// Splits a CSV line (RFC 4180 quoting, no line break inside a field) into t->fields.
// Returns the number of fields, or -1 when out of memory.
static int split_fields(sweep_h5_table *t, const char *line, const char **starts, int max)
{
    size_t n = strlen(line);
    if (n + 1 > t->fields_cap) {
        char *grown = realloc(t->fields, n + 1);
        if (!grown)
            return -1;
        t->fields = grown;
        t->fields_cap = n + 1;
    }
    char *out = t->fields;
    int count = 0;
    const char *p = line;
    for (;;) {
        if (count < max)
            starts[count] = out;
        count++;
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;   // "" is one quote
                *out++ = *p;
            }
            if (*p == '"')
                p++;
        }
        while (*p && *p != ',' && *p != '\n')
            *out++ = *p++;
        *out++ = '\0';
        if (*p != ',')
            break;
        p++;
    }
    return count;
}

int sweep_h5_table_append(sweep_h5_table *t, const char *line)
{
    const char **fields = malloc((size_t)t->columns * sizeof *fields);
    if (!fields)
        return ENOMEM;
    int count = split_fields(t, line, fields, t->columns);
    if (count < 0) {
        free(fields);
        return ENOMEM;
    }
    if (count != t->columns) {
        free(fields);
        return EINVAL;
    }
    for (int k = 0; k < t->columns; k++) {
        unsigned char *member = t->record + t->offsets[k];
        if (t->kinds[k] == SWEEP_COLUMN_INTEGER) {
            int64_t v = strtoll(fields[k], NULL, 10);
            memcpy(member, &v, sizeof v);
        } else if (t->kinds[k] == SWEEP_COLUMN_REAL) {
            double v = strtod(fields[k], NULL);   // %.17g, nan, inf: the same double
            memcpy(member, &v, sizeof v);
        } else {
            const char *v = fields[k];
            memcpy(member, &v, sizeof v);
        }
    }
    free(fields);
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    hsize_t rows = t->rows + 1, start = t->rows, one = 1;
    if (H5Dset_extent(t->dataset, &rows) < 0) {
        e = EIO;
    } else {
        hid_t file_space = H5Dget_space(t->dataset);
        hid_t memory_space = H5Screate_simple(1, &one, NULL);
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &one, NULL);
        if (H5Dwrite(t->dataset, t->type, memory_space, file_space, H5P_DEFAULT, t->record) < 0)
            e = EIO;
        else
            t->rows = rows;
        H5Sclose(memory_space);
        H5Sclose(file_space);
    }
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_table_flush(sweep_h5_table *t)
{
    pthread_mutex_lock(&hdf5_lock);
    int e = H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0 ? EIO : 0;
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_table_close(sweep_h5_table *t)
{
    if (!t)
        return 0;
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    if (t->dataset >= 0 && H5Dclose(t->dataset) < 0)
        e = EIO;
    if (t->type >= 0)
        H5Tclose(t->type);
    if (t->file >= 0 && H5Fclose(t->file) < 0)
        e = EIO;
    pthread_mutex_unlock(&hdf5_lock);
    free(t->kinds);
    free(t->offsets);
    free(t->record);
    free(t->fields);
    free(t);
    return e;
}

// ---- the trajectories -------------------------------------------------------------------------

struct sweep_h5_trajectories {
    hid_t file;
};

int sweep_h5_trajectories_open(const char *path, sweep_h5_trajectories **out)
{
    *out = NULL;
    sweep_h5_trajectories *f = malloc(sizeof *f);
    if (!f)
        return ENOMEM;
    pthread_mutex_lock(&hdf5_lock);
    silence_hdf5();
    f->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    pthread_mutex_unlock(&hdf5_lock);
    if (f->file < 0) {
        free(f);
        return EACCES;
    }
    *out = f;
    return 0;
}

int sweep_h5_trajectories_write(sweep_h5_trajectories *f, const char *name, long index,
                                int columns, char *const *names, const double *values,
                                size_t rows)
{
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    hid_t group = H5Gcreate2(f->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) {
        pthread_mutex_unlock(&hdf5_lock);
        return EIO;
    }
    // the run's index as an attribute of its group
    hid_t scalar = H5Screate(H5S_SCALAR);
    int64_t run = index;
    hid_t attribute = H5Acreate2(group, "index", H5T_NATIVE_INT64, scalar, H5P_DEFAULT,
                                 H5P_DEFAULT);
    if (attribute < 0 || H5Awrite(attribute, H5T_NATIVE_INT64, &run) < 0)
        e = EIO;
    if (attribute >= 0)
        H5Aclose(attribute);
    H5Sclose(scalar);
    // the rows × columns dataset
    hsize_t dims[2] = { (hsize_t)rows, (hsize_t)columns };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dataset = H5Dcreate2(group, "trajectory", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    if (dataset < 0 ||
        (rows > 0 && H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                              values) < 0))
        e = EIO;
    H5Sclose(space);
    // the column names: a 1-D attribute of strings
    if (dataset >= 0) {
        hsize_t n = (hsize_t)columns;
        hid_t names_space = H5Screate_simple(1, &n, NULL);
        hid_t text = text_type();
        attribute = H5Acreate2(dataset, "columns", text, names_space, H5P_DEFAULT, H5P_DEFAULT);
        if (attribute < 0 || H5Awrite(attribute, text, names) < 0)
            e = EIO;
        if (attribute >= 0)
            H5Aclose(attribute);
        H5Tclose(text);
        H5Sclose(names_space);
        H5Dclose(dataset);
    }
    H5Gclose(group);
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_trajectories_close(sweep_h5_trajectories *f)
{
    if (!f)
        return 0;
    pthread_mutex_lock(&hdf5_lock);
    int e = H5Fclose(f->file) < 0 ? EIO : 0;
    pthread_mutex_unlock(&hdf5_lock);
    free(f);
    return e;
}

#endif
