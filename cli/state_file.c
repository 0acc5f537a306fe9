// State files of dirac simulate (state_file.h; docs/cli.md, "Restart").
#define _POSIX_C_SOURCE 200809L   // open_memstream

#include "state_file.h"
#include "column_name.h"
#include "file_read.h"

#include "json_input.h"
#include "json_output.h"
#include "output_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- identity of a model and of the snapshot's bytes ---------------------------------------

// FNV-1a, 64 bits (Fowler, Noll, Vo): h = (h XOR byte) * 1099511628211 from 14695981039346656037.
static uint64_t fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}
#define FNV_START 14695981039346656037u

// The hash of the model's equations (dirac_model_write_equations: the Lagrangian's derivatives,
// forces, constraints, entropy equations, with the parameters folded in) and its parameter
// values; 0 when the equations cannot be written (out of memory).
uint64_t state_file_model_hash(const dirac_model *model)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return 0;
    dirac_error err;
    memset(&err, 0, sizeof err);
    dirac_status status = dirac_model_write_equations(model, DIRAC_EQUATIONS_TEXT, out, &err);
    for (int k = 0; k < dirac_model_parameter_count(model); k++)
        fprintf(out, "\n%s = %a", dirac_model_parameter_name(model, k),
                dirac_model_parameter_value(model, k));
    if (fclose(out) != 0 || status != DIRAC_OK) {
        free(text);
        return 0;
    }
    uint64_t h = fnv1a(FNV_START, text, size);
    free(text);
    return h;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

// ---- the names that make up the model's shape ----------------------------------------------

enum { NAME_COORDINATES, NAME_CONSTRAINTS, NAME_ENTROPIES, NAME_INPUTS, NAME_LISTS };
static const char *const list_key[NAME_LISTS] = { "coordinates", "constraints", "entropies",
                                                   "inputs" };
static const char *const list_noun[NAME_LISTS] = { "coordinate", "constraint",
                                                    "entropy variable", "input" };

static int list_count(const dirac_model *m, int list)
{
    switch (list) {
    case NAME_COORDINATES: return dirac_model_coordinate_count(m);
    case NAME_CONSTRAINTS: return dirac_model_constraint_count(m);
    case NAME_ENTROPIES: return dirac_model_entropy_count(m);
    default: return dirac_model_input_count(m);
    }
}

static const char *list_name(const dirac_model *m, int list, int i)
{
    switch (list) {
    case NAME_COORDINATES: return dirac_model_coordinate_name(m, i);
    case NAME_CONSTRAINTS: return dirac_model_constraint_name(m, i);
    case NAME_ENTROPIES: return dirac_model_entropy_name(m, i);
    default: return dirac_model_input_name(m, i);
    }
}

// The readable state: the CSV columns t, q, v, p, mu, S.
static int readable_count(const dirac_model *m)
{
    return 1 + 3 * dirac_model_coordinate_count(m) + dirac_model_constraint_count(m) +
           dirac_model_entropy_count(m);
}

static void readable_values(const dirac_model *m, const dirac_sim *sim, double *out)
{
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m);
    *out++ = dirac_sim_time(sim);
    const double *arrays[] = { dirac_sim_q(sim), dirac_sim_v(sim), dirac_sim_p(sim),
                               dirac_sim_mu(sim), dirac_sim_s(sim) };
    const int counts[] = { n, n, n, mc, ns };
    for (int k = 0; k < 5; k++) {
        if (counts[k] > 0)
            memcpy(out, arrays[k], (size_t)counts[k] * sizeof *out);
        out += counts[k];
    }
}


// ---- writing --------------------------------------------------------------------------------

static void put_message(char *message, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, size, fmt, ap);
    va_end(ap);
}

static int write_body(FILE *file, const dirac_model *m, uint64_t model_hash,
                      const dirac_sim *sim, const state_settings *s,
                      const unsigned char *snapshot, size_t size)
{
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)model_hash);
    json_writer w;
    json_begin(&w, file);
    json_object(&w, NULL);
    json_string(&w, "format", STATE_FILE_FORMAT);
    json_integer(&w, "version", STATE_FILE_VERSION);
    json_string(&w, "model", dirac_model_name(m));
    json_string(&w, "model_hash", hash);
    for (int list = 0; list < NAME_LISTS; list++) {
        json_array(&w, list_key[list]);
        for (int i = 0; i < list_count(m, list); i++)
            json_string(&w, NULL, list_name(m, list, i));
        json_end(&w);
    }
    json_object(&w, "parameters");
    for (int k = 0; k < dirac_model_parameter_count(m); k++)
        json_number_named(&w, NULL, dirac_model_parameter_name(m, k), NULL,
                          dirac_model_parameter_value(m, k));
    json_end(&w);
    json_string(&w, "method", s->method);
    json_number(&w, "dt", s->dt);
    json_number(&w, "rtol", s->rtol);
    json_number(&w, "atol", s->atol);
    json_number(&w, "tol", s->tol);
    json_integer(&w, "max_iter", s->max_iter);
    json_number(&w, "t", dirac_sim_time(sim));
    json_integer(&w, "step", dirac_sim_step_count(sim));
    int count = readable_count(m);
    double *values = malloc((size_t)count * sizeof *values);
    if (!values)
        return ENOMEM;
    readable_values(m, sim, values);
    json_object(&w, "state");
    for (int k = 0; k < count && !w.error; k++) {
        char *name = column_name_dup(m, k);
        if (!name) {
            free(values);
            return ENOMEM;
        }
        json_number_named(&w, NULL, name, NULL, values[k]);
        free(name);
    }
    free(values);
    json_end(&w);
    json_object(&w, "snapshot");
    json_string(&w, "byte_order", little_endian() ? "little" : "big");
    json_integer(&w, "bytes", (long)size);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fnv1a(FNV_START, snapshot, size));
    json_string(&w, "fnv1a64", hash);
    // "hex": the bytes, two digits each
    char *hex = malloc(2 * size + 1);
    if (!hex)
        return ENOMEM;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < size; i++) {
        hex[2 * i] = digits[snapshot[i] >> 4];
        hex[2 * i + 1] = digits[snapshot[i] & 15];
    }
    hex[2 * size] = '\0';
    json_string(&w, "hex", hex);
    free(hex);
    json_end(&w);
    json_end(&w);
    return json_finish(&w);
}

int state_file_write(const char *path, const dirac_model *model, uint64_t model_hash,
                     const dirac_sim *sim, const state_settings *settings, char *message,
                     size_t message_size)
{
    size_t size = dirac_sim_state_size(sim);
    unsigned char *snapshot = malloc(size ? size : 1);
    if (!snapshot) {
        put_message(message, message_size, "writing the state '%s' failed: out of memory", path);
        return ENOMEM;
    }
    if (dirac_sim_state_save(sim, snapshot, size) != DIRAC_OK) {
        free(snapshot);
        put_message(message, message_size, "writing the state '%s' failed: no snapshot", path);
        return EINVAL;
    }
    output_file out;
    int error = output_open(&out, path);
    if (!error)
        error = output_commit(&out, write_body(out.file, model, model_hash, sim, settings,
                                               snapshot, size));
    free(snapshot);
    if (error)
        put_message(message, message_size, "writing the state '%s' failed: %s", path,
                    strerror(error));
    return error;
}

// ---- reading --------------------------------------------------------------------------------

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// Member `key` of `object` of type `type`, else NULL with the reason in message.
static const json_value *need(const json_value *object, const char *key, json_type type,
                              const char *path, char *message, size_t size)
{
    static const char *const type_name[] = { "null", "true or false", "a number", "a string",
                                             "an array", "an object" };
    const json_value *v = json_member(object, key);
    if (!v || v->type != type) {
        put_message(message, size, "'%s' is not a valid state file: \"%s\" %s %s", path, key,
                    v ? "is not" : "is missing; it must be", type_name[type]);
        return NULL;
    }
    return v;
}

// The model's identity against the file's: name, name lists, parameters, equations.
static int check_model(const json_value *root, const dirac_model *m, const char *path,
                       uint64_t *model_hash, char *message, size_t size)
{
    const json_value *name = need(root, "model", JSON_STRING, path, message, size);
    if (!name)
        return -1;
    if (strcmp(name->string, dirac_model_name(m)) != 0) {
        put_message(message, size, "'%s' is a state of model '%s', not of '%s'", path,
                    name->string, dirac_model_name(m));
        return -1;
    }
    for (int list = 0; list < NAME_LISTS; list++) {
        const json_value *names = need(root, list_key[list], JSON_ARRAY, path, message, size);
        if (!names)
            return -1;
        int count = list_count(m, list);
        for (int i = 0; i < count || (size_t)i < names->count; i++) {
            const char *ours = i < count ? list_name(m, list, i) : NULL;
            const json_value *theirs = (size_t)i < names->count ? &names->items[i] : NULL;
            const char *saved = theirs && theirs->type == JSON_STRING ? theirs->string : NULL;
            if (ours && saved && !strcmp(ours, saved))
                continue;
            if (!saved && theirs) {
                put_message(message, size, "'%s' is not a valid state file: \"%s\" holds "
                            "something other than names", path, list_key[list]);
                return -1;
            }
            put_message(message, size, "'%s' is a state of another version of model '%s': "
                        "its %s %d is %s%s%s, the model's is %s%s%s (the state has %zu %ss, "
                        "the model %d)", path, dirac_model_name(m), list_noun[list], i + 1,
                        saved ? "'" : "", saved ? saved : "missing", saved ? "'" : "",
                        ours ? "'" : "", ours ? ours : "missing", ours ? "'" : "",
                        names->count, list_noun[list], count);
            return -1;
        }
    }
    const json_value *parameters = need(root, "parameters", JSON_OBJECT, path, message, size);
    if (!parameters)
        return -1;
    for (int k = 0; k < dirac_model_parameter_count(m); k++) {
        const char *pname = dirac_model_parameter_name(m, k);
        const json_value *v = json_member(parameters, pname);
        double now = dirac_model_parameter_value(m, k);
        if (!v || v->type != JSON_NUMBER || memcmp(&v->number, &now, sizeof now) != 0) {
            char saved[40];
            json_format_number(saved, sizeof saved, v && v->type == JSON_NUMBER ? v->number
                                                                                : (double)NAN);
            put_message(message, size, "'%s' was saved with other parameter values: %s = %s "
                        "in the state, %.17g now (a restart continues the same model; give the "
                        "same -p values)", path, pname, v ? saved : "(none)", now);
            return -1;
        }
    }
    if (parameters->count != (size_t)dirac_model_parameter_count(m)) {
        put_message(message, size, "'%s' was saved from a model with %zu parameters; this "
                    "one has %d", path, parameters->count, dirac_model_parameter_count(m));
        return -1;
    }
    const json_value *hash = need(root, "model_hash", JSON_STRING, path, message, size);
    if (!hash)
        return -1;
    *model_hash = state_file_model_hash(m);
    char ours[32];
    snprintf(ours, sizeof ours, "%016llx", (unsigned long long)*model_hash);
    if (strcmp(ours, hash->string) != 0) {
        put_message(message, size, "'%s' was saved from another version of model '%s': the "
                    "names and parameters agree, but the equations differ (model hash %s in "
                    "the state, %s now)", path, dirac_model_name(m), hash->string, ours);
        return -1;
    }
    return 0;
}

static int read_snapshot(const json_value *root, saved_state *out, const char *path,
                         char *message, size_t size)
{
    const json_value *snap = need(root, "snapshot", JSON_OBJECT, path, message, size);
    const json_value *order = snap ? need(snap, "byte_order", JSON_STRING, path, message, size)
                                   : NULL;
    const json_value *bytes = order ? need(snap, "bytes", JSON_NUMBER, path, message, size)
                                    : NULL;
    const json_value *sum = bytes ? need(snap, "fnv1a64", JSON_STRING, path, message, size)
                                  : NULL;
    const json_value *hex = sum ? need(snap, "hex", JSON_STRING, path, message, size) : NULL;
    if (!hex)
        return -1;
    if (strcmp(order->string, little_endian() ? "little" : "big") != 0) {
        put_message(message, size, "'%s' was written on a machine of %s-endian byte order; "
                    "its snapshot cannot be read on this one", path, order->string);
        return -1;
    }
    if (!(bytes->number >= 0) || hex->length != 2 * (size_t)bytes->number) {
        put_message(message, size, "'%s' is damaged: its snapshot has %zu hexadecimal digits, "
                    "not 2 x %g", path, hex->length, bytes->number);
        return -1;
    }
    out->snapshot_size = hex->length / 2;
    out->snapshot = malloc(out->snapshot_size + 1);
    if (!out->snapshot) {
        put_message(message, size, "reading '%s': out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < out->snapshot_size; i++) {
        int hi = hex_digit(hex->string[2 * i]), lo = hex_digit(hex->string[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            put_message(message, size, "'%s' is damaged: its snapshot holds a character that "
                        "is not a lowercase hexadecimal digit at byte %zu", path, i);
            return -1;
        }
        out->snapshot[i] = (unsigned char)(16 * hi + lo);
    }
    char ours[32];
    snprintf(ours, sizeof ours, "%016llx",
             (unsigned long long)fnv1a(FNV_START, out->snapshot, out->snapshot_size));
    if (strcmp(ours, sum->string) != 0) {
        put_message(message, size, "'%s' is damaged: the checksum of its snapshot is %s, the "
                    "file says %s", path, ours, sum->string);
        return -1;
    }
    return 0;
}

static int read_settings(const json_value *root, const dirac_model *m, saved_state *out,
                         const char *path, char *message, size_t size)
{
    const json_value *method = need(root, "method", JSON_STRING, path, message, size);
    if (!method)
        return -1;
    out->method = strdup(method->string);
    if (!out->method) {
        put_message(message, size, "reading '%s': out of memory", path);
        return -1;
    }
    out->settings.method = out->method;
    static const char *const keys[] = { "dt", "rtol", "atol", "tol", "max_iter", "t", "step" };
    double values[7];
    for (int k = 0; k < 7; k++) {
        const json_value *v = need(root, keys[k], JSON_NUMBER, path, message, size);
        if (!v)
            return -1;
        values[k] = v->number;
    }
    out->settings.dt = values[0], out->settings.rtol = values[1], out->settings.atol = values[2];
    out->settings.tol = values[3];
    out->settings.max_iter = (long)values[4];
    out->t = values[5];
    out->steps = (long)values[6];
    const json_value *state = need(root, "state", JSON_OBJECT, path, message, size);
    if (!state)
        return -1;
    out->value_count = readable_count(m);
    out->values = malloc((size_t)out->value_count * sizeof *out->values);
    if (!out->values) {
        put_message(message, size, "reading '%s': out of memory", path);
        return -1;
    }
    for (int k = 0; k < out->value_count; k++) {
        char *name = column_name_dup(m, k);
        if (!name) {
            put_message(message, size, "reading '%s': out of memory", path);
            return -1;
        }
        const json_value *v = json_member(state, name);
        if (!v || v->type != JSON_NUMBER) {
            put_message(message, size, "'%s' is not a valid state file: \"state\" has no "
                        "number \"%s\"", path, name);
            free(name);
            return -1;
        }
        free(name);
        out->values[k] = v->number;
    }
    return 0;
}

int state_file_read(const char *path, const dirac_model *model, saved_state *out,
                    char *message, size_t message_size)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t size = 0;
    int error = file_read(path, &text, &size);
    if (error) {
        put_message(message, message_size, "cannot read the state '%s': %s", path,
                    strerror(error));
        return -1;
    }
    json_value root;
    char why[256];
    int rc = json_parse(text, size, &root, why, sizeof why);
    free(text);
    if (rc) {
        put_message(message, message_size, "'%s' is not a dirac state file (not JSON: %s)", path,
                    why);
        return -1;
    }
    const json_value *format = json_member(&root, "format");
    const json_value *version = json_member(&root, "version");
    if (!format || format->type != JSON_STRING || strcmp(format->string, STATE_FILE_FORMAT)) {
        put_message(message, message_size, "'%s' is not a dirac state file (no \"format\": \"%s\"; "
                    "state files are written by dirac simulate --save-state)", path,
                    STATE_FILE_FORMAT);
        rc = -1;
    } else if (!version || version->type != JSON_NUMBER || version->number != STATE_FILE_VERSION) {
        char v[40];
        json_format_number(v, sizeof v, version && version->type == JSON_NUMBER ? version->number
                                                                                 : (double)NAN);
        put_message(message, message_size, "'%s' is a state file of version %s; this dirac reads "
                    "version %d", path, v, STATE_FILE_VERSION);
        rc = -1;
    }
    if (!rc)
        rc = check_model(&root, model, path, &out->model_hash, message, message_size);
    if (!rc)
        rc = read_settings(&root, model, out, path, message, message_size);
    if (!rc)
        rc = read_snapshot(&root, out, path, message, message_size);
    json_value_free(&root);
    if (rc)
        saved_state_free(out);
    return rc;
}

int state_file_restore(const saved_state *state, const char *path, const dirac_model *model,
                       dirac_sim *sim, char *message, size_t message_size)
{
    if (dirac_sim_state_size(sim) != state->snapshot_size ||
        dirac_sim_state_restore(sim, state->snapshot, state->snapshot_size) != DIRAC_OK) {
        put_message(message, message_size, "'%s' does not fit this simulation: its snapshot "
                    "(%zu bytes) is not one of method %s on this model (%zu bytes); was it "
                    "written by another version of dirac?", path, state->snapshot_size,
                    dirac_sim_method(sim), dirac_sim_state_size(sim));
        return -1;
    }
    // the readable state must be the snapshot's (bit for bit: both written exactly)
    double *now = malloc((size_t)state->value_count * sizeof *now);
    if (!now) {
        put_message(message, message_size, "reading '%s': out of memory", path);
        return -1;
    }
    readable_values(model, sim, now);
    int rc = 0;
    for (int k = 0; k < state->value_count && !rc; k++) {
        if (memcmp(&now[k], &state->values[k], sizeof now[k]) == 0)
            continue;
        char *name = column_name_dup(model, k), saved[40], snapshot[40];
        json_format_number(saved, sizeof saved, state->values[k]);
        json_format_number(snapshot, sizeof snapshot, now[k]);
        put_message(message, message_size, "'%s' was edited or damaged: \"state\" has %s = %s, "
                    "its snapshot %s (a restart continues the saved snapshot; to start from "
                    "other values, change the model's initial values)", path,
                    name ? name : "a value", saved, snapshot);
        free(name);
        rc = -1;
    }
    if (!rc && dirac_sim_step_count(sim) != state->steps) {
        put_message(message, message_size, "'%s' was edited or damaged: \"step\" is %ld, its "
                    "snapshot's %ld", path, state->steps, dirac_sim_step_count(sim));
        rc = -1;
    }
    free(now);
    return rc;
}

void saved_state_free(saved_state *state)
{
    free(state->method);
    free(state->snapshot);
    free(state->values);
    memset(state, 0, sizeof *state);
}
