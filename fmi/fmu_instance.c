// The FMI-version-independent part of a dirac FMU (fmu_instance.h): compiled with a generated
// source that holds the model files (fmu_model.h), one of the version layers fmu_fmi2.c /
// fmu_fmi3.c, and libdirac into the FMU's shared object by `dirac export fmu` (docs/fmi.md).
//
// An instance loads its model from the embedded files (written to a private temporary
// directory, loaded, then removed), compiles it with the export's -p overrides and the
// parameters the host set, and runs it with the model's method and step size. A step of the
// host takes as many internal steps as reach the communication point: the internal step is the
// model's dt, shortened at the first step to divide the communication step evenly; later
// communication steps must be multiples of it. Inputs are held over each step. A failed step
// restores the state of the communication point and reports the library's message.
//
// Tunable parameters (dirac_fmu_tunable: those that do not size an indexed family) may change
// between steps: the model is compiled again with the new values and the simulation continues
// from the current state (q, v, p, multipliers, entropies) with the new model.
#define _POSIX_C_SOURCE 200809L   // mkdtemp

#include "fmu_instance.h"
#include "fmu_model.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fmu_fail(fmu *f, const char *format, ...)
{
    if (!f || !f->log)
        return 0;
    char message[2048];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    f->log(f, 1, message);
    return 0;
}

// ---- the model ----------------------------------------------------------------------------

// Writes the embedded files below a new temporary directory; returns the root file's path.
static char *write_model_files(char *dir, size_t dir_size)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, dir_size, "%s/dirac-fmu-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        return NULL;
    char *root = NULL;
    for (int k = 0; k < dirac_fmu_file_count; k++) {
        size_t len = strlen(dir) + strlen(dirac_fmu_file_name[k]) + 2;
        char *path = malloc(len);
        if (!path)
            return root;
        snprintf(path, len, "%s/%s", dir, dirac_fmu_file_name[k]);
        for (char *slash = path + strlen(dir) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
            *slash = '\0';
            mkdir(path, 0700);
            *slash = '/';
        }
        FILE *out = fopen(path, "wb");
        if (out) {
            fwrite(dirac_fmu_file_text[k], 1, dirac_fmu_file_size[k], out);
            fclose(out);
        }
        if (k == 0)
            root = path;
        else
            free(path);
    }
    return root;
}

static void remove_model_files(const char *dir)
{
    for (int k = dirac_fmu_file_count - 1; k >= 0; k--) {
        size_t len = strlen(dir) + strlen(dirac_fmu_file_name[k]) + 2;
        char *path = malloc(len);
        if (!path)
            continue;
        snprintf(path, len, "%s/%s", dir, dirac_fmu_file_name[k]);
        remove(path);
        for (char *slash = strrchr(path, '/'); slash && slash > path + strlen(dir);
             slash = strrchr(path, '/')) {
            *slash = '\0';
            rmdir(path);
        }
        free(path);
    }
    rmdir(dir);
}

// Loads and compiles the model with the export's overrides and, when `with_parameters`, the
// parameters held by the instance, into *spec_out and *model_out (the instance's own model is
// untouched). Returns 0 after logging the library's message.
static int compile_model(fmu *f, int with_parameters, dirac_spec **spec_out,
                         dirac_model **model_out)
{
    char dir[4096];
    char *root = write_model_files(dir, sizeof dir);
    if (!root)
        return fmu_fail(f, "cannot write the model to a temporary directory (%s)", dir);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status status = dirac_spec_load(root, &spec);
    for (int k = 0; status == DIRAC_OK && k < dirac_fmu_override_count; k++)
        status = dirac_spec_set_parameter(spec, dirac_fmu_override[k]);
    for (int k = 0; status == DIRAC_OK && with_parameters && k < f->layout.parameters; k++) {
        char assignment[1024];
        snprintf(assignment, sizeof assignment, "%s=%.17g",
                 dirac_model_parameter_name(f->model, k), f->parameters[k]);
        status = dirac_spec_set_parameter(spec, assignment);
    }
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    remove_model_files(dir);
    free(root);
    if (status != DIRAC_OK) {
        fmu_fail(f, "%s", spec ? dirac_spec_errmsg(spec) : "out of memory");
        dirac_spec_destroy(spec);
        return 0;
    }
    fmu_layout l = fmu_layout_of(model);
    if (memcmp(&l, &dirac_fmu_layout, sizeof l) != 0) {
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
        return fmu_fail(f, "the parameters change the model's variables (the size of an "
                        "indexed family): not possible in an FMU, export it again with -p");
    }
    *spec_out = spec;
    *model_out = model;
    return 1;
}

static void replace_model(fmu *f, dirac_spec *spec, dirac_model *model)
{
    dirac_sim_destroy(f->sim);
    dirac_model_destroy(f->model);
    dirac_spec_destroy(f->spec);
    f->sim = NULL;
    f->model = model;
    f->spec = spec;
    f->layout = fmu_layout_of(model);
}

// A simulation of `model` from its initial state with internal step dt (0: the export's or
// the model's), the instance's inputs set; NULL after logging the reason.
static dirac_sim *create_sim(fmu *f, const dirac_model *model, double dt)
{
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(model, &d);
    dirac_sim_options o;
    memset(&o, 0, sizeof o);
    o.method = dirac_fmu_method[0] ? dirac_fmu_method : d.has_method ? d.method : NULL;
    o.dt = dt > 0 ? dt : dirac_fmu_dt > 0 ? dirac_fmu_dt : d.dt;
    o.t0 = f->start_time;
    o.newton_rtol = d.has_tol ? d.tol : 0;
    o.newton_max_iterations = d.has_max_iter ? d.max_iter : 0;
    dirac_error err;
    memset(&err, 0, sizeof err);
    dirac_sim *sim = NULL;
    if (dirac_sim_create(model, &o, &sim, &err) != DIRAC_OK) {
        fmu_fail(f, "%s", err.message);
        return NULL;
    }
    for (int k = 0; k < f->layout.inputs; k++)
        dirac_sim_set_input(sim, k, f->inputs[k]);
    return sim;
}

// Makes `sim` (internal step dt) the instance's simulation, with a backup buffer of its size.
static int adopt_sim(fmu *f, dirac_sim *sim, double dt)
{
    size_t size = dirac_sim_state_size(sim);
    unsigned char *backup = realloc(f->backup, size);
    if (!backup) {
        dirac_sim_destroy(sim);
        return fmu_fail(f, "out of memory");
    }
    dirac_sim_destroy(f->sim);
    f->sim = sim;
    f->dt = dt;
    f->backup = backup;
    f->backup_size = size;
    return 1;
}

// Back to the parameter values of the instance's model (after a change that failed).
static void restore_parameters(fmu *f)
{
    for (int k = 0; k < f->layout.parameters; k++)
        f->parameters[k] = dirac_model_parameter_value(f->model, k);
    f->parameters_changed = 0;
}

// Compiles the model again with the parameters the host set. Before stepping the simulation
// starts again from the (new) initial state; during stepping (tunable parameters) the new
// simulation continues from the current state.
static int apply_parameters(fmu *f)
{
    if (!f->parameters_changed)
        return 1;
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    if (!compile_model(f, 1, &spec, &model)) {
        restore_parameters(f);
        return 0;
    }
    if (!f->sim || f->phase != FMU_STEPPING) {   // before stepping: from the initial state
        replace_model(f, spec, model);
        f->parameters_changed = 0;
        f->steps_done = 0;
        return 1;
    }
    dirac_sim *sim = create_sim(f, model, f->dt);
    int ok = sim != NULL;
    if (ok) {
        dirac_sim_state_save(f->sim, f->backup, f->backup_size);
        ok = dirac_sim_state_restore(sim, f->backup, f->backup_size) == DIRAC_OK;
        if (!ok)
            fmu_fail(f, "the new parameter values change the shape of the simulation's "
                     "state: they cannot be tuned during the simulation");
    }
    if (!ok) {
        dirac_sim_destroy(sim);
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
        restore_parameters(f);
        return 0;
    }
    double dt = f->dt;
    dirac_sim_destroy(f->sim);
    f->sim = NULL;
    replace_model(f, spec, model);
    f->parameters_changed = 0;
    return adopt_sim(f, sim, dt);
}

// Creates the simulation (compiling again first if parameters changed) with internal step dt,
// or keeps the current one when dt is 0 or its own. Replacing a running simulation starts
// again from the initial state.
static int ensure_sim(fmu *f, double dt)
{
    if (!apply_parameters(f))
        return 0;
    if (f->sim && (dt <= 0 || dt == f->dt))
        return 1;
    dirac_sim *sim = create_sim(f, f->model, dt);
    if (!sim)
        return 0;
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(f->model, &d);
    return adopt_sim(f, sim, dt > 0 ? dt : dirac_fmu_dt > 0 ? dirac_fmu_dt : d.dt);
}

// ---- instances ----------------------------------------------------------------------------

fmu *fmu_new(const char *name, const char *prefix, fmu_log_function log, void (*logger)(void),
             void *environment, int logging, unsigned time_reference)
{
    fmu *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->name = malloc(strlen(name ? name : "") + 1);
    if (!f->name) {
        free(f);
        return NULL;
    }
    strcpy(f->name, name ? name : "");
    f->prefix = prefix;
    f->state_name = prefix[3] == '2' ? "FMUstate" : "FMUState";
    f->log = log;
    f->logger = logger;
    f->environment = environment;
    f->logging = logging;
    f->time_reference = time_reference;
    return f;
}

static void release(fmu *f)
{
    dirac_sim_destroy(f->sim);
    dirac_model_destroy(f->model);
    dirac_spec_destroy(f->spec);
    f->sim = NULL, f->model = NULL, f->spec = NULL;
    free(f->parameters), free(f->inputs), free(f->outputs), free(f->backup);
    f->parameters = f->inputs = f->outputs = NULL, f->backup = NULL;
}

void fmu_free(fmu *f)
{
    if (!f)
        return;
    release(f);
    free(f->name);
    free(f);
}

int fmu_check_token(fmu *f, const char *token)
{
    if (token && strcmp(token, dirac_fmu_guid) == 0)
        return 1;
    return fmu_fail(f, "%s '%s' does not match the FMU's '%s'",
                    f->prefix[3] == '2' ? "GUID" : "instantiation token",
                    token ? token : "(null)", dirac_fmu_guid);
}

int fmu_setup(fmu *f)
{
    release(f);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    if (!compile_model(f, 0, &spec, &model))
        return 0;
    replace_model(f, spec, model);
    const fmu_layout *l = &f->layout;
    f->parameters = calloc((size_t)l->parameters + 1, sizeof *f->parameters);
    f->inputs = calloc((size_t)l->inputs + 1, sizeof *f->inputs);
    f->outputs = calloc((size_t)l->outputs + 1, sizeof *f->outputs);
    if (!f->parameters || !f->inputs || !f->outputs)
        return fmu_fail(f, "out of memory");
    restore_parameters(f);
    for (int k = 0; k < l->inputs; k++)
        f->inputs[k] = dirac_model_input_default(f->model, k);
    f->phase = FMU_INSTANTIATED;
    f->start_time = 0;
    f->dt = 0;
    f->steps_done = 0;
    f->last_successful_time = 0;
    return 1;
}

int fmu_set_start_time(fmu *f, double start_time)
{
    if (!isfinite(start_time))
        return fmu_fail(f, "the start time %g is not finite", start_time);
    f->start_time = start_time;
    f->last_successful_time = start_time;
    return 1;
}

int fmu_enter_initialization(fmu *f)
{
    if (f->phase != FMU_INSTANTIATED)
        return fmu_fail(f, "%sEnterInitializationMode is allowed only after instantiation",
                        f->prefix);
    f->phase = FMU_INITIALIZATION;
    return 1;
}

int fmu_exit_initialization(fmu *f)
{
    if (f->phase != FMU_INITIALIZATION)
        return fmu_fail(f, "%sExitInitializationMode is allowed only in initialization mode",
                        f->prefix);
    if (!ensure_sim(f, 0)) {
        f->phase = FMU_FAILED;
        return 0;
    }
    f->phase = FMU_STEPPING;
    return 1;
}

int fmu_terminate(fmu *f)
{
    if (f->phase != FMU_STEPPING && f->phase != FMU_FAILED)
        return fmu_fail(f, "%sTerminate is allowed only after initialization", f->prefix);
    f->phase = FMU_TERMINATED;
    return 1;
}

int fmu_reset(fmu *f)
{
    if (fmu_setup(f))
        return 1;
    f->phase = FMU_FAILED;
    return 0;
}

// ---- values -------------------------------------------------------------------------------

static int unknown_reference(fmu *f, unsigned vr, const char *function)
{
    return fmu_fail(f, "%s: unknown value reference %u (the FMU has %u variables)", function,
                    vr, fmu_variable_count(&f->layout) + (f->time_reference != ~0u));
}

int fmu_get_reals(fmu *f, const unsigned *vr, size_t n, double *values, const char *function)
{
    if (n > 0 && (!vr || !values))
        return fmu_fail(f, "%s: null array", function);
    int outputs_ready = 0;
    for (size_t k = 0; k < n; k++) {
        int i = 0;
        fmu_kind kind = fmu_variable(&f->layout, vr[k], &i);
        if (kind == FMU_NONE && vr[k] == f->time_reference) {
            values[k] = f->sim ? dirac_sim_time(f->sim) : f->start_time;
            continue;
        }
        if (kind == FMU_NONE)
            return unknown_reference(f, vr[k], function);
        if (kind == FMU_PARAMETER) {
            values[k] = f->parameters[i];
            continue;
        }
        if (kind == FMU_INPUT) {
            values[k] = f->inputs[i];
            continue;
        }
        if (f->phase == FMU_INSTANTIATED)
            return fmu_fail(f, "%s: the state is known from initialization mode on", function);
        if (!ensure_sim(f, 0))
            return 0;
        const dirac_sim *s = f->sim;
        switch (kind) {
        case FMU_COORDINATE: values[k] = dirac_sim_q(s)[i]; break;
        case FMU_VELOCITY: values[k] = dirac_sim_v(s)[i]; break;
        case FMU_MOMENTUM: values[k] = dirac_sim_p(s)[i]; break;
        case FMU_MULTIPLIER: values[k] = dirac_sim_mu(s)[i]; break;
        case FMU_ENTROPY: values[k] = dirac_sim_s(s)[i]; break;
        case FMU_TEMPERATURE: values[k] = dirac_sim_temperature(s)[i]; break;
        case FMU_ENERGY: values[k] = dirac_sim_energy(s); break;
        default:
            if (!outputs_ready)
                dirac_sim_outputs(s, f->outputs);
            outputs_ready = 1;
            values[k] = f->outputs[i];
            break;
        }
    }
    return 1;
}

static const char *variable_name(const fmu *f, fmu_kind kind, int i)
{
    switch (kind) {
    case FMU_PARAMETER: return dirac_model_parameter_name(f->model, i);
    case FMU_INPUT: return dirac_model_input_name(f->model, i);
    case FMU_OUTPUT: return dirac_model_output_name(f->model, i);
    default: return "a state variable";
    }
}

int fmu_set_reals(fmu *f, const unsigned *vr, size_t n, const double *values,
                  const char *function)
{
    if (n > 0 && (!vr || !values))
        return fmu_fail(f, "%s: null array", function);
    if (f->phase == FMU_TERMINATED || f->phase == FMU_FAILED)
        return fmu_fail(f, "%s is not allowed after %sTerminate or an error", function,
                        f->prefix);
    for (size_t k = 0; k < n; k++) {   // check everything first: all or nothing
        int i = 0;
        fmu_kind kind = fmu_variable(&f->layout, vr[k], &i);
        if (kind == FMU_NONE && vr[k] == f->time_reference)
            return fmu_fail(f, "%s: the independent variable 'time' cannot be set", function);
        if (kind == FMU_NONE)
            return unknown_reference(f, vr[k], function);
        if (kind != FMU_PARAMETER && kind != FMU_INPUT)
            return fmu_fail(f, "%s: '%s' is an output (only parameters and inputs can be set)",
                            function, variable_name(f, kind, i));
        if (kind == FMU_PARAMETER && f->phase == FMU_STEPPING && !dirac_fmu_tunable[i])
            return fmu_fail(f, "%s: parameter '%s' is fixed after initialization (it sizes an "
                            "indexed family, or the model does not compile with another "
                            "value)", function, variable_name(f, kind, i));
        if (!isfinite(values[k]))
            return fmu_fail(f, "%s: '%s' = %g is not finite", function,
                            variable_name(f, kind, i), values[k]);
    }
    for (size_t k = 0; k < n; k++) {
        int i = 0;
        if (fmu_variable(&f->layout, vr[k], &i) == FMU_PARAMETER) {
            if (f->parameters[i] != values[k])
                f->parameters_changed = 1;
            f->parameters[i] = values[k];
        } else {
            f->inputs[i] = values[k];
            if (f->sim)
                dirac_sim_set_input(f->sim, i, values[k]);
        }
    }
    return 1;
}

int fmu_no_such_type(fmu *f, size_t n, const char *function)
{
    return n == 0 ? 1
                  : fmu_fail(f, "this FMU has only %s variables (%s called)",
                             f->prefix[3] == '2' ? "Real" : "Float64", function);
}

// ---- steps --------------------------------------------------------------------------------

int fmu_do_step(fmu *f, double t_host, double h)
{
    if (f->phase != FMU_STEPPING)
        return fmu_fail(f, "%sDoStep is allowed only after %sExitInitializationMode (and "
                        "before %sTerminate or an error)", f->prefix, f->prefix, f->prefix);
    if (!apply_parameters(f))
        return 0;
    double t = dirac_sim_time(f->sim);
    if (!(h > 0) || !isfinite(h))
        return fmu_fail(f, "%sDoStep: the communication step size must be positive, got %g",
                        f->prefix, h);
    if (!(fabs(t_host - t) <= 1e-9 * fmax(1.0, fabs(t))))
        return fmu_fail(f, "%sDoStep: currentCommunicationPoint is %.17g, but the FMU is at "
                        "t = %.17g", f->prefix, t_host, t);
    // internal steps: dt divides h (at the first step dt is shortened to divide it)
    double steps = h / f->dt;
    if (f->steps_done == 0 && fabs(steps - nearbyint(steps)) > 1e-9 * steps) {
        if (!ensure_sim(f, h / ceil(steps - 1e-9)))
            return 0;
        steps = h / f->dt;
    }
    long count = (long)nearbyint(steps);
    if (count < 1 || fabs(steps - (double)count) > 1e-9 * steps)
        return fmu_fail(f, "%sDoStep: the communication step %.17g is not a multiple of the "
                        "internal step %.17g (use multiples of the first communication step)",
                        f->prefix, h, f->dt);
    dirac_sim_state_save(f->sim, f->backup, f->backup_size);
    for (long k = 0; k < count; k++) {
        if (dirac_sim_step(f->sim) != DIRAC_OK) {
            fmu_fail(f, "%s", dirac_sim_errmsg(f->sim));
            dirac_sim_state_restore(f->sim, f->backup, f->backup_size);
            return 0;
        }
    }
    f->steps_done += count;
    f->last_successful_time = dirac_sim_time(f->sim);
    return 1;
}

// ---- FMU states ---------------------------------------------------------------------------

// What a state holds besides the library's snapshot; serialized first, as these bytes.
typedef struct state_head {
    uint64_t magic;              // STATE_MAGIC: a state of a dirac FMU
    double dt;
    long steps_done;
    int phase;                   // the phase it was taken in (restored with it)
    int parameter_count;
} state_head;

typedef struct fmu_state {
    state_head head;             // first: a state is recognised by its magic number
    double *parameters;          // their values (tunable ones may have changed since)
    size_t size;                 // of the library's snapshot
    unsigned char *bytes;
} fmu_state;

#define STATE_MAGIC 0x646972616334666dULL   // "dirac4fm"

// The state behind a host's pointer, or NULL (logged) for something that is not one.
static const fmu_state *state_of(fmu *f, const void *state, const char *verb,
                                 const char *suffix)
{
    const fmu_state *s = state;
    if (!s || s->head.magic != STATE_MAGIC) {
        fmu_fail(f, "%s%s%s%s: %s", f->prefix, verb, f->state_name, suffix,
                 s ? "not an FMU state of this FMU" : "no FMU state");
        return NULL;
    }
    return s;
}

int fmu_state_get(fmu *f, void **state)
{
    if (!state)
        return fmu_fail(f, "%sGet%s: no place for the state", f->prefix, f->state_name);
    if ((f->phase != FMU_STEPPING && f->phase != FMU_TERMINATED) || !f->sim)
        return fmu_fail(f, "%sGet%s: states are available after initialization",
                        f->prefix, f->state_name);
    if (*state && !state_of(f, *state, "Get", ""))
        return 0;
    if (!apply_parameters(f))
        return 0;
    fmu_state *s = *state ? (fmu_state *)*state : calloc(1, sizeof *s);
    if (!s)
        return fmu_fail(f, "out of memory");
    size_t size = dirac_sim_state_size(f->sim);
    int p = f->layout.parameters;
    unsigned char *bytes = s->size == size ? s->bytes : realloc(s->bytes, size);
    if (bytes)
        s->bytes = bytes, s->size = size;
    double *parameters = s->head.parameter_count == p && s->parameters
                             ? s->parameters
                             : realloc(s->parameters, ((size_t)p + 1) * sizeof *parameters);
    if (parameters)
        s->parameters = parameters, s->head.parameter_count = p;
    if (!bytes || !parameters) {
        if (!*state)
            free(s->bytes), free(s->parameters), free(s);
        return fmu_fail(f, "out of memory");
    }
    dirac_sim_state_save(f->sim, s->bytes, s->size);
    memcpy(s->parameters, f->parameters, (size_t)p * sizeof *parameters);
    s->head.magic = STATE_MAGIC;
    s->head.dt = f->dt;
    s->head.steps_done = f->steps_done;
    s->head.phase = (int)f->phase;
    *state = s;
    return 1;
}

// Allowed in every phase but after an error: the instance continues in the state's phase (a
// host may instantiate and set a saved state instead of initializing).
int fmu_state_set(fmu *f, const void *state)
{
    const fmu_state *s = state_of(f, state, "Set", "");
    if (!s)
        return 0;
    if (f->phase == FMU_FAILED)
        return fmu_fail(f, "%sSet%s: not after an error (Reset first)", f->prefix, f->state_name);
    if (s->head.parameter_count != f->layout.parameters)
        return fmu_fail(f, "%sSet%s: the state is not one of this FMU's", f->prefix, f->state_name);
    for (int k = 0; k < s->head.parameter_count; k++)
        if (s->parameters[k] != f->parameters[k])
            f->parameters_changed = 1, f->parameters[k] = s->parameters[k];
    if (!apply_parameters(f))
        return 0;
    if ((!f->sim || s->head.dt != f->dt) && !ensure_sim(f, s->head.dt))
        return 0;
    if (dirac_sim_state_restore(f->sim, s->bytes, s->size) != DIRAC_OK)
        return fmu_fail(f, "%sSet%s: the state is not one of this FMU's", f->prefix, f->state_name);
    f->steps_done = s->head.steps_done;
    f->phase = (fmu_phase)s->head.phase;
    for (int k = 0; k < f->layout.inputs; k++)
        f->inputs[k] = dirac_sim_input(f->sim, k);
    f->last_successful_time = dirac_sim_time(f->sim);
    return 1;
}

int fmu_state_free(fmu *f, void **state)
{
    if (!state)
        return fmu_fail(f, "%sFree%s: no pointer to a state", f->prefix, f->state_name);
    // the state itself instead of its address: refused rather than freed
    if (((const state_head *)state)->magic == STATE_MAGIC)
        return fmu_fail(f, "%sFree%s: called with the FMU state, not its address",
                        f->prefix, f->state_name);
    if (*state && !state_of(f, *state, "Free", ""))
        return 0;
    fmu_state *s = *state;
    if (s)
        free(s->bytes), free(s->parameters);
    free(s);
    *state = NULL;
    return 1;
}

int fmu_state_serialized_size(fmu *f, const void *state, size_t *size)
{
    const fmu_state *s = state_of(f, state, "Serialized", "Size");
    if (!s)
        return 0;
    if (!size)
        return fmu_fail(f, "%sSerialized%sSize: no place for the size", f->prefix, f->state_name);
    *size = sizeof s->head + (size_t)s->head.parameter_count * sizeof(double) + s->size;
    return 1;
}

// Serialized: the head, the parameters, the library's snapshot (native-endian bytes).
int fmu_state_serialize(fmu *f, const void *state, unsigned char *bytes, size_t size)
{
    const fmu_state *s = state;
    size_t need = 0;
    if (!fmu_state_serialized_size(f, state, &need))
        return 0;
    if (!bytes || size < need)
        return fmu_fail(f, "%sSerialize%s: buffer too small (%zu bytes, %zu needed)",
                        f->prefix, f->state_name, bytes ? size : 0, need);
    size_t p = (size_t)s->head.parameter_count * sizeof(double);
    memcpy(bytes, &s->head, sizeof s->head);
    if (p)
        memcpy(bytes + sizeof s->head, s->parameters, p);
    memcpy(bytes + sizeof s->head + p, s->bytes, s->size);
    return 1;
}

int fmu_state_deserialize(fmu *f, const unsigned char *bytes, size_t size, void **state)
{
    if (!bytes || !state)
        return fmu_fail(f, "%sDeserialize%s: no bytes or no place for the state",
                        f->prefix, f->state_name);
    state_head head;
    memset(&head, 0, sizeof head);
    if (size > sizeof head)
        memcpy(&head, bytes, sizeof head);
    size_t p = (size_t)f->layout.parameters * sizeof(double);
    if (head.magic != STATE_MAGIC || head.parameter_count != f->layout.parameters ||
        head.phase < FMU_INSTANTIATED || head.phase > FMU_TERMINATED ||
        size <= sizeof head + p)
        return fmu_fail(f, "%sDeserialize%s: the %zu bytes are not a state of this FMU",
                        f->prefix, f->state_name, size);
    fmu_state *s = calloc(1, sizeof *s);
    unsigned char *copy = malloc(size - sizeof head - p);
    double *parameters = malloc(p + sizeof(double));
    if (!s || !copy || !parameters) {
        free(s), free(copy), free(parameters);
        return fmu_fail(f, "out of memory");
    }
    s->head = head;
    if (p)
        memcpy(parameters, bytes + sizeof head, p);
    memcpy(copy, bytes + sizeof head + p, size - sizeof head - p);
    s->parameters = parameters;
    s->bytes = copy;
    s->size = size - sizeof head - p;
    *state = s;
    return 1;
}
