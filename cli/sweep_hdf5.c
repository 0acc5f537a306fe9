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

// Constants such as H5F_ACC_TRUNC expand to calls of H5check_version and H5open, which are not
// linked: load_hdf5 calls H5open (through its pointer) before anything else.
#undef H5CHECK
#define H5CHECK
#undef H5OPEN
#define H5OPEN


#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

// The library is loaded when a sweep first writes HDF5 (dlopen), not when the tool starts:
// linked in, it and its own dependencies (curl, crypto, ...) would take tens of MB of address
// space from every command, which matters under `ulimit -v` (tests/cli_reliability.sh).
#define HDF5_FUNCTIONS(X) \
    X(H5open) \
    X(H5Eset_auto2) \
    X(H5Tcopy) \
    X(H5Tset_size) \
    X(H5Tset_cset) \
    X(H5Tcreate) \
    X(H5Tinsert) \
    X(H5Tclose) \
    X(H5Fcreate) \
    X(H5Fflush) \
    X(H5Fclose) \
    X(H5Screate_simple) \
    X(H5Screate) \
    X(H5Sselect_hyperslab) \
    X(H5Sclose) \
    X(H5Pcreate) \
    X(H5Pset_chunk) \
    X(H5Pclose) \
    X(H5Dcreate2) \
    X(H5Dset_extent) \
    X(H5Dget_space) \
    X(H5Dwrite) \
    X(H5Dclose) \
    X(H5Gcreate2) \
    X(H5Gclose) \
    X(H5Acreate2) \
    X(H5Awrite) \
    X(H5Aclose) \

#define HDF5_VARIABLES(X) \
    X(H5T_C_S1_g) X(H5T_NATIVE_INT64_g) X(H5T_NATIVE_DOUBLE_g) X(H5P_CLS_DATASET_CREATE_ID_g)

#define HDF5_FIELD(name) __typeof__(&name) name;
static struct {
    HDF5_FUNCTIONS(HDF5_FIELD)
    HDF5_VARIABLES(HDF5_FIELD)
    int loaded;   // 1: loaded, -1: not found
} api;

static pthread_mutex_t hdf5_lock = PTHREAD_MUTEX_INITIALIZER;

// Loads the library once; 0, or ENOTSUP when it or one of its symbols is missing. Called with
// hdf5_lock held.
static int load_hdf5(void)
{
    if (api.loaded)
        return api.loaded > 0 ? 0 : ENOTSUP;
    api.loaded = -1;
    void *lib = dlopen(DIRAC_HDF5_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen(DIRAC_HDF5_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return ENOTSUP;
    void *symbol;
#define HDF5_LOAD(name)                                                                        \
    if (!(symbol = dlsym(lib, #name)))                                                         \
        return ENOTSUP;                                                                        \
    memcpy(&api.name, &symbol, sizeof symbol);   /* object to function pointer (POSIX) */
    HDF5_FUNCTIONS(HDF5_LOAD)
    HDF5_VARIABLES(HDF5_LOAD)
    if (api.H5open() < 0)   // sets the library's type and class identifiers (the _g variables)
        return ENOTSUP;
    api.loaded = 1;
    return 0;
}

int sweep_hdf5_available(void) { return 1; }

// HDF5 prints its error stack to stderr by default; the tool reports errors itself.
static void silence_hdf5(void)
{
    api.H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

// A variable-length UTF-8 string type (the caller closes it).
static hid_t text_type(void)
{
    hid_t t = api.H5Tcopy(*api.H5T_C_S1_g);
    api.H5Tset_size(t, H5T_VARIABLE);
    api.H5Tset_cset(t, H5T_CSET_UTF8);
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
    const char **starts;   // where each field of the line starts in fields (columns)
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
    t->starts = malloc((size_t)(columns > 0 ? columns : 1) * sizeof *t->starts);
    if (!t->kinds || !t->offsets || !t->starts) {
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
    pthread_mutex_lock(&hdf5_lock);
    int e = load_hdf5();
    if (e) {
        pthread_mutex_unlock(&hdf5_lock);
        sweep_h5_table_close(t);
        return e;
    }
    silence_hdf5();
    hid_t text = text_type();
    t->type = api.H5Tcreate(H5T_COMPOUND, size);
    for (int k = 0; !e && k < columns; k++) {
        hid_t member = kinds[k] == SWEEP_COLUMN_INTEGER ? *api.H5T_NATIVE_INT64_g
                       : kinds[k] == SWEEP_COLUMN_REAL  ? *api.H5T_NATIVE_DOUBLE_g
                                                        : text;
        if (api.H5Tinsert(t->type, names[k], t->offsets[k], member) < 0)
            e = EINVAL;   // e.g. two columns of the same name
    }
    api.H5Tclose(text);
    if (!e) {
        t->file = api.H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        e = t->file < 0 ? EACCES : 0;
    }
    if (!e) {
        hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 256;
        hid_t space = api.H5Screate_simple(1, &zero, &unlimited);
        hid_t plist = api.H5Pcreate(*api.H5P_CLS_DATASET_CREATE_ID_g);
        api.H5Pset_chunk(plist, 1, &chunk);
        t->dataset = api.H5Dcreate2(t->file, "results", t->type, space, H5P_DEFAULT, plist,
                                H5P_DEFAULT);
        api.H5Pclose(plist);
        api.H5Sclose(space);
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
    const char **fields = t->starts;
    int count = split_fields(t, line, fields, t->columns);
    if (count < 0)
        return ENOMEM;
    if (count != t->columns)
        return EINVAL;
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
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    hsize_t rows = t->rows + 1, start = t->rows, one = 1;
    if (api.H5Dset_extent(t->dataset, &rows) < 0) {
        e = EIO;
    } else {
        hid_t file_space = api.H5Dget_space(t->dataset);
        hid_t memory_space = api.H5Screate_simple(1, &one, NULL);
        api.H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &one, NULL);
        if (api.H5Dwrite(t->dataset, t->type, memory_space, file_space, H5P_DEFAULT, t->record) < 0)
            e = EIO;
        else
            t->rows = rows;
        api.H5Sclose(memory_space);
        api.H5Sclose(file_space);
    }
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_table_flush(sweep_h5_table *t)
{
    pthread_mutex_lock(&hdf5_lock);
    int e = api.H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0 ? EIO : 0;
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_table_close(sweep_h5_table *t)
{
    if (!t)
        return 0;
    int e = 0;
    pthread_mutex_lock(&hdf5_lock);
    if (t->dataset >= 0 && api.H5Dclose(t->dataset) < 0)
        e = EIO;
    if (t->type >= 0)
        api.H5Tclose(t->type);
    if (t->file >= 0 && api.H5Fclose(t->file) < 0)
        e = EIO;
    pthread_mutex_unlock(&hdf5_lock);
    free(t->kinds);
    free(t->offsets);
    free(t->record);
    free(t->fields);
    free(t->starts);
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
    if (load_hdf5()) {
        pthread_mutex_unlock(&hdf5_lock);
        free(f);
        return ENOTSUP;
    }
    silence_hdf5();
    f->file = api.H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
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
    hid_t group = api.H5Gcreate2(f->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) {
        pthread_mutex_unlock(&hdf5_lock);
        return EIO;
    }
    // the run's index as an attribute of its group
    hid_t scalar = api.H5Screate(H5S_SCALAR);
    int64_t run = index;
    hid_t attribute = api.H5Acreate2(group, "index", *api.H5T_NATIVE_INT64_g, scalar, H5P_DEFAULT,
                                 H5P_DEFAULT);
    if (attribute < 0 || api.H5Awrite(attribute, *api.H5T_NATIVE_INT64_g, &run) < 0)
        e = EIO;
    if (attribute >= 0)
        api.H5Aclose(attribute);
    api.H5Sclose(scalar);
    // the rows × columns dataset
    hsize_t dims[2] = { (hsize_t)rows, (hsize_t)columns };
    hid_t space = api.H5Screate_simple(2, dims, NULL);
    hid_t dataset = api.H5Dcreate2(group, "trajectory", *api.H5T_NATIVE_DOUBLE_g, space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    if (dataset < 0 ||
        (rows > 0 && api.H5Dwrite(dataset, *api.H5T_NATIVE_DOUBLE_g, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                              values) < 0))
        e = EIO;
    api.H5Sclose(space);
    // the column names: a 1-D attribute of strings
    if (dataset >= 0) {
        hsize_t n = (hsize_t)columns;
        hid_t names_space = api.H5Screate_simple(1, &n, NULL);
        hid_t text = text_type();
        attribute = api.H5Acreate2(dataset, "columns", text, names_space, H5P_DEFAULT, H5P_DEFAULT);
        if (attribute < 0 || api.H5Awrite(attribute, text, names) < 0)
            e = EIO;
        if (attribute >= 0)
            api.H5Aclose(attribute);
        api.H5Tclose(text);
        api.H5Sclose(names_space);
        api.H5Dclose(dataset);
    }
    api.H5Gclose(group);
    pthread_mutex_unlock(&hdf5_lock);
    return e;
}

int sweep_h5_trajectories_close(sweep_h5_trajectories *f)
{
    if (!f)
        return 0;
    pthread_mutex_lock(&hdf5_lock);
    int e = api.H5Fclose(f->file) < 0 ? EIO : 0;
    pthread_mutex_unlock(&hdf5_lock);
    free(f);
    return e;
}

#endif
