// The runtime of a dirac FMU (FMI 2.0 for Co-Simulation): compiled with a generated source that
// holds the model files (fmu_model.h) and linked with libdirac into binaries/linux64/ID.so by
// `dirac export fmu` (docs/fmi.md).
//
// An instance loads its model from the embedded files (written to a private temporary
// directory, loaded, then removed), compiles it with the export's -p overrides and the
// parameters the host set, and runs it with the model's method and step size. fmi2DoStep takes
// as many internal steps as reach the communication point: the internal step is the model's dt,
// shortened at the first fmi2DoStep to divide the communication step evenly; later
// communication steps must be multiples of it. Inputs are held over each step. A failed step
// restores the state of the communication point and returns fmi2Error, with the library's
// message through the logger.
#define _POSIX_C_SOURCE 200809L   // mkdtemp

#include "fmi2_interface.h"
#include "fmu_layout.h"
#include "fmu_model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum phase {
    PHASE_INSTANTIATED, PHASE_INITIALIZATION, PHASE_STEPPING, PHASE_TERMINATED, PHASE_ERROR
} phase;

typedef struct fmu {
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment environment;
    int logging;
    phase phase;
    dirac_spec *spec;
    dirac_model *model;
    dirac_sim *sim;              // created when the outputs are first needed
    fmu_layout layout;
    double *parameters, *inputs, *outputs;
    int parameters_changed;      // the model must be compiled again
    double start_time, dt;       // internal step (0: not chosen yet)
    long steps_done;             // internal steps since initialization
    unsigned char *backup;       // the state at the communication point (failed steps)
    size_t backup_size;
    double last_successful_time;
} fmu;

typedef struct fmu_state {
    unsigned char *bytes;
    size_t size;
    double dt;
    long steps_done;
    phase phase;
} fmu_state;

static void log_message(const fmu *f, fmi2Status status, const char *category,
                        const char *format, ...)
{
    if (!f || !f->logger || (status == fmi2OK && !f->logging))
        return;
    char message[2048];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    // '#' starts a value reference in FMI log messages: "##" prints one
    char escaped[4096];
    size_t k = 0;
    for (const char *c = message; *c && k + 2 < sizeof escaped; c++) {
        if (*c == '#')
            escaped[k++] = '#';
        escaped[k++] = *c;
    }
    escaped[k] = '\0';
    f->logger(f->environment, f->name, status, category, "%s", escaped);
}

static fmi2Status fail(fmu *f, const char *format, const char *detail)
{
    log_message(f, fmi2Error, "logStatusError", format, detail ? detail : "");
    return fmi2Error;
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
// parameters held by the instance. Returns 0 after logging the library's message.
static int compile_model(fmu *f, int with_parameters)
{
    char dir[4096];
    char *root = write_model_files(dir, sizeof dir);
    if (!root) {
        log_message(f, fmi2Error, "logStatusError", "cannot write the model to a temporary "
                    "directory (%s)", dir);
        return 0;
    }
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
        log_message(f, fmi2Error, "logStatusError", "%s",
                    spec ? dirac_spec_errmsg(spec) : "out of memory");
        dirac_spec_destroy(spec);
        return 0;
    }
    fmu_layout l = fmu_layout_of(model);
    if (memcmp(&l, &dirac_fmu_layout, sizeof l) != 0) {
        log_message(f, fmi2Error, "logStatusError", "the parameters change the model's "
                    "variables (the size of an indexed family): not possible in an FMU, "
                    "export it again with -p");
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
        return 0;
    }
    dirac_sim_destroy(f->sim);
    f->sim = NULL;
    dirac_model_destroy(f->model);
    dirac_spec_destroy(f->spec);
    f->model = model;
    f->spec = spec;
    f->layout = l;
    return 1;
}

// Creates the simulation (compiling again first if parameters changed) with internal step dt.
static int ensure_sim(fmu *f, double dt)
{
    if (f->parameters_changed) {
        if (!compile_model(f, 1))
            return 0;
        f->parameters_changed = 0;
    }
    if (f->sim && (dt <= 0 || dt == f->dt))
        return 1;
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(f->model, &d);
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
    if (dirac_sim_create(f->model, &o, &sim, &err) != DIRAC_OK) {
        log_message(f, fmi2Error, "logStatusError", "%s", err.message);
        return 0;
    }
    for (int k = 0; k < f->layout.inputs; k++)
        dirac_sim_set_input(sim, k, f->inputs[k]);
    size_t size = dirac_sim_state_size(sim);
    unsigned char *backup = realloc(f->backup, size);
    if (!backup) {
        dirac_sim_destroy(sim);
        log_message(f, fmi2Error, "logStatusError", "out of memory");
        return 0;
    }
    dirac_sim_destroy(f->sim);
    f->sim = sim;
    f->dt = o.dt;
    f->backup = backup;
    f->backup_size = size;
    return 1;
}

// ---- instances ----------------------------------------------------------------------------

const char *fmi2GetTypesPlatform(void) { return "default"; }
const char *fmi2GetVersion(void) { return "2.0"; }

static fmu *instance_of(fmi2Component c) { return (fmu *)c; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    (void)nCategories, (void)categories;
    if (!c)
        return fmi2Error;
    instance_of(c)->logging = loggingOn != fmi2False;
    return fmi2OK;
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

// The instance's values after instantiation or fmi2Reset: the model as exported.
static int setup(fmu *f)
{
    if (!compile_model(f, 0))
        return 0;
    const fmu_layout *l = &f->layout;
    f->parameters = calloc((size_t)l->parameters + 1, sizeof *f->parameters);
    f->inputs = calloc((size_t)l->inputs + 1, sizeof *f->inputs);
    f->outputs = calloc((size_t)l->outputs + 1, sizeof *f->outputs);
    if (!f->parameters || !f->inputs || !f->outputs) {
        log_message(f, fmi2Error, "logStatusError", "out of memory");
        return 0;
    }
    for (int k = 0; k < l->parameters; k++)
        f->parameters[k] = dirac_model_parameter_value(f->model, k);
    for (int k = 0; k < l->inputs; k++)
        f->inputs[k] = dirac_model_input_default(f->model, k);
    f->phase = PHASE_INSTANTIATED;
    f->parameters_changed = 0;
    f->start_time = 0;
    f->dt = 0;
    f->steps_done = 0;
    f->last_successful_time = 0;
    return 1;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)fmuResourceLocation, (void)visible;
    fmu *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->name = malloc(strlen(instanceName ? instanceName : "") + 1);
    if (f->name)
        strcpy(f->name, instanceName ? instanceName : "");
    f->logger = functions ? functions->logger : NULL;
    f->environment = functions ? functions->componentEnvironment : NULL;
    f->logging = loggingOn != fmi2False;
    int ok = f->name != NULL;
    if (ok && fmuType != fmi2CoSimulation) {
        log_message(f, fmi2Error, "logStatusError", "this FMU implements co-simulation only "
                    "(fmuType %d requested)", (int)fmuType);
        ok = 0;
    }
    if (ok && (!fmuGUID || strcmp(fmuGUID, dirac_fmu_guid) != 0)) {
        log_message(f, fmi2Error, "logStatusError", "GUID '%s' does not match the FMU's '%s'",
                    fmuGUID ? fmuGUID : "(null)", dirac_fmu_guid);
        ok = 0;
    }
    if (ok)
        ok = setup(f);
    if (!ok) {
        release(f);
        free(f->name);
        free(f);
        return NULL;
    }
    return f;
}

void fmi2FreeInstance(fmi2Component c)
{
    fmu *f = instance_of(c);
    if (!f)
        return;
    release(f);
    free(f->name);
    free(f);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != PHASE_INSTANTIATED)
        return fail(f, "fmi2SetupExperiment is allowed only after fmi2Instantiate%s", NULL);
    if (!isfinite(startTime))
        return fail(f, "fmi2SetupExperiment: the start time is not finite%s", NULL);
    f->start_time = startTime;
    f->last_successful_time = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != PHASE_INSTANTIATED)
        return fail(f, "fmi2EnterInitializationMode is allowed only after fmi2Instantiate "
                    "(and fmi2SetupExperiment)%s", NULL);
    f->phase = PHASE_INITIALIZATION;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != PHASE_INITIALIZATION)
        return fail(f, "fmi2ExitInitializationMode is allowed only in initialization mode%s",
                    NULL);
    if (!ensure_sim(f, 0)) {
        f->phase = PHASE_ERROR;
        return fmi2Error;
    }
    f->phase = PHASE_STEPPING;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != PHASE_STEPPING && f->phase != PHASE_ERROR)
        return fail(f, "fmi2Terminate is allowed only after initialization%s", NULL);
    f->phase = PHASE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    release(f);
    if (!setup(f)) {
        f->phase = PHASE_ERROR;
        return fmi2Error;
    }
    return fmi2OK;
}

// ---- values -------------------------------------------------------------------------------

static fmi2Status unknown_reference(fmu *f, fmi2ValueReference vr)
{
    char detail[64];
    snprintf(detail, sizeof detail, "%u (the FMU has %u variables)", vr,
             fmu_variable_count(&f->layout));
    return fail(f, "unknown value reference %s", detail);
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (nvr > 0 && (!vr || !value))
        return fail(f, "fmi2GetReal: null array%s", NULL);
    int outputs_ready = 0;
    for (size_t k = 0; k < nvr; k++) {
        int i = 0;
        fmu_kind kind = fmu_variable(&f->layout, vr[k], &i);
        if (kind == FMU_NONE)
            return unknown_reference(f, vr[k]);
        if (kind == FMU_PARAMETER) {
            value[k] = f->parameters[i];
            continue;
        }
        if (kind == FMU_INPUT) {
            value[k] = f->inputs[i];
            continue;
        }
        if (f->phase == PHASE_INSTANTIATED)
            return fail(f, "fmi2GetReal: the state is known from initialization mode on%s",
                        NULL);
        if (!f->sim && !ensure_sim(f, 0))
            return fmi2Error;
        const dirac_sim *s = f->sim;
        switch (kind) {
        case FMU_COORDINATE: value[k] = dirac_sim_q(s)[i]; break;
        case FMU_VELOCITY: value[k] = dirac_sim_v(s)[i]; break;
        case FMU_MOMENTUM: value[k] = dirac_sim_p(s)[i]; break;
        case FMU_MULTIPLIER: value[k] = dirac_sim_mu(s)[i]; break;
        case FMU_ENTROPY: value[k] = dirac_sim_s(s)[i]; break;
        case FMU_TEMPERATURE: value[k] = dirac_sim_temperature(s)[i]; break;
        case FMU_ENERGY: value[k] = dirac_sim_energy(s); break;
        default:
            if (!outputs_ready)
                dirac_sim_outputs(s, f->outputs);
            outputs_ready = 1;
            value[k] = f->outputs[i];
            break;
        }
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (nvr > 0 && (!vr || !value))
        return fail(f, "fmi2SetReal: null array%s", NULL);
    if (f->phase == PHASE_TERMINATED || f->phase == PHASE_ERROR)
        return fail(f, "fmi2SetReal is not allowed after fmi2Terminate or an error%s", NULL);
    for (size_t k = 0; k < nvr; k++) {   // check everything first: all or nothing
        int i = 0;
        fmu_kind kind = fmu_variable(&f->layout, vr[k], &i);
        if (kind == FMU_NONE)
            return unknown_reference(f, vr[k]);
        if (kind != FMU_PARAMETER && kind != FMU_INPUT)
            return fail(f, "fmi2SetReal: '%s' is an output (only parameters and inputs can be "
                        "set)", kind == FMU_OUTPUT
                                ? dirac_model_output_name(f->model, i)
                                : "a state variable");
        if (kind == FMU_PARAMETER && f->phase == PHASE_STEPPING)
            return fail(f, "fmi2SetReal: parameter '%s' is fixed after initialization",
                        dirac_model_parameter_name(f->model, i));
        if (!isfinite(value[k])) {
            char detail[600];
            snprintf(detail, sizeof detail, "'%s' = %g", kind == FMU_PARAMETER
                     ? dirac_model_parameter_name(f->model, i)
                     : dirac_model_input_name(f->model, i), value[k]);
            return fail(f, "fmi2SetReal: %s is not finite", detail);
        }
    }
    for (size_t k = 0; k < nvr; k++) {
        int i = 0;
        if (fmu_variable(&f->layout, vr[k], &i) == FMU_PARAMETER) {
            if (f->parameters[i] != value[k])
                f->parameters_changed = 1;
            f->parameters[i] = value[k];
        } else {
            f->inputs[i] = value[k];
            if (f->sim)
                dirac_sim_set_input(f->sim, i, value[k]);
        }
    }
    return fmi2OK;
}

static fmi2Status no_such_type(fmi2Component c, size_t nvr, const char *what)
{
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (nvr == 0)
        return fmi2OK;
    return fail(f, "this FMU has only Real variables (%s called)", what);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2GetInteger");
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2GetBoolean");
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2GetString");
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2SetInteger");
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2SetBoolean");
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
    (void)vr, (void)value;
    return no_such_type(c, nvr, "fmi2SetString");
}

// ---- FMU states ---------------------------------------------------------------------------

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    fmu *f = instance_of(c);
    if (!f || !state)
        return fmi2Error;
    if (f->phase != PHASE_STEPPING || !f->sim)
        return fail(f, "fmi2GetFMUstate: states are available after initialization%s", NULL);
    fmu_state *s = *state ? (fmu_state *)*state : calloc(1, sizeof *s);
    size_t size = dirac_sim_state_size(f->sim);
    unsigned char *bytes = s ? (s->size == size ? s->bytes : realloc(s->bytes, size)) : NULL;
    if (!bytes) {
        if (s && !*state)
            free(s);
        return fail(f, "out of memory%s", NULL);
    }
    s->bytes = bytes;
    s->size = size;
    dirac_sim_state_save(f->sim, s->bytes, s->size);
    s->dt = f->dt;
    s->steps_done = f->steps_done;
    s->phase = f->phase;
    *state = s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    fmu *f = instance_of(c);
    fmu_state *s = state;
    if (!f)
        return fmi2Error;
    if (!s)
        return fail(f, "fmi2SetFMUstate: no state%s", NULL);
    if (f->phase != PHASE_STEPPING || !f->sim)
        return fail(f, "fmi2SetFMUstate: allowed after initialization%s", NULL);
    if (s->dt != f->dt && !ensure_sim(f, s->dt))
        return fmi2Error;
    if (dirac_sim_state_restore(f->sim, s->bytes, s->size) != DIRAC_OK)
        return fail(f, "fmi2SetFMUstate: the state is not one of this FMU's%s", NULL);
    f->steps_done = s->steps_done;
    for (int k = 0; k < f->layout.inputs; k++)
        f->inputs[k] = dirac_sim_input(f->sim, k);
    f->last_successful_time = dirac_sim_time(f->sim);
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    (void)c;
    if (!state)
        return fmi2Error;
    fmu_state *s = *state;
    if (s)
        free(s->bytes);
    free(s);
    *state = NULL;
    return fmi2OK;
}

// Serialized: dt, steps_done, then the library's snapshot.
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size)
{
    fmu_state *s = state;
    if (!c || !s || !size)
        return fmi2Error;
    *size = sizeof s->dt + sizeof s->steps_done + s->size;
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[],
                                 size_t size)
{
    fmu_state *s = state;
    size_t need = 0;
    if (fmi2SerializedFMUstateSize(c, state, &need) != fmi2OK || !bytes)
        return fmi2Error;
    if (size < need)
        return fail(instance_of(c), "fmi2SerializeFMUstate: buffer too small%s", NULL);
    memcpy(bytes, &s->dt, sizeof s->dt);
    memcpy(bytes + sizeof s->dt, &s->steps_done, sizeof s->steps_done);
    memcpy(bytes + sizeof s->dt + sizeof s->steps_done, s->bytes, s->size);
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state)
{
    fmu *f = instance_of(c);
    size_t head = sizeof(double) + sizeof(long);
    if (!f || !state || !bytes)
        return fmi2Error;
    if (size <= head)
        return fail(f, "fmi2DeSerializeFMUstate: too few bytes%s", NULL);
    fmu_state *s = calloc(1, sizeof *s);
    unsigned char *copy = malloc(size - head);
    if (!s || !copy) {
        free(s), free(copy);
        return fail(f, "out of memory%s", NULL);
    }
    memcpy(&s->dt, bytes, sizeof s->dt);
    memcpy(&s->steps_done, bytes + sizeof s->dt, sizeof s->steps_done);
    memcpy(copy, bytes + head, size - head);
    s->bytes = copy;
    s->size = size - head;
    s->phase = PHASE_STEPPING;
    *state = s;
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference unknown[],
                                        size_t nUnknown, const fmi2ValueReference known[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)unknown, (void)nUnknown, (void)known, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    return c ? fail(instance_of(c), "fmi2GetDirectionalDerivative is not provided "
                    "(providesDirectionalDerivative=false)%s", NULL)
             : fmi2Error;
}

// ---- co-simulation ------------------------------------------------------------------------

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
           : c      ? fail(instance_of(c), "input derivatives are not used (inputs are held "
                           "over each step; canInterpolateInputs=false)%s", NULL)
                    : fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
           : c      ? fail(instance_of(c), "output derivatives are not provided "
                           "(maxOutputDerivativeOrder=0)%s", NULL)
                    : fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != PHASE_STEPPING)
        return fail(f, "fmi2DoStep is allowed only after fmi2ExitInitializationMode (and "
                    "before fmi2Terminate or an error)%s", NULL);
    double t = dirac_sim_time(f->sim), h = communicationStepSize;
    char detail[256];
    if (!(h > 0) || !isfinite(h)) {
        snprintf(detail, sizeof detail, "%g", h);
        return fail(f, "fmi2DoStep: the communication step size must be positive, got %s",
                    detail);
    }
    if (!(fabs(currentCommunicationPoint - t) <= 1e-9 * fmax(1.0, fabs(t)))) {
        snprintf(detail, sizeof detail, "%.17g, but the FMU is at t = %.17g",
                 currentCommunicationPoint, t);
        return fail(f, "fmi2DoStep: currentCommunicationPoint is %s", detail);
    }
    // internal steps: dt divides h (at the first step dt is shortened to divide it)
    double steps = h / f->dt;
    if (f->steps_done == 0 && fabs(steps - nearbyint(steps)) > 1e-9 * steps) {
        double count = ceil(steps - 1e-9);
        if (!ensure_sim(f, h / count))
            return fmi2Error;
        steps = h / f->dt;
    }
    long count = (long)nearbyint(steps);
    if (count < 1 || fabs(steps - (double)count) > 1e-9 * steps) {
        snprintf(detail, sizeof detail, "%.17g is not a multiple of the internal step %.17g",
                 h, f->dt);
        return fail(f, "fmi2DoStep: the communication step %s (use multiples of the first "
                    "communication step)", detail);
    }
    dirac_sim_state_save(f->sim, f->backup, f->backup_size);
    for (long k = 0; k < count; k++) {
        dirac_status status = dirac_sim_step(f->sim);
        if (status != DIRAC_OK) {
            log_message(f, fmi2Error, "logStatusError", "%s", dirac_sim_errmsg(f->sim));
            dirac_sim_state_restore(f->sim, f->backup, f->backup_size);
            return fmi2Error;
        }
    }
    f->steps_done += count;
    f->last_successful_time = dirac_sim_time(f->sim);
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    return c ? fail(instance_of(c), "fmi2CancelStep: steps are not asynchronous%s", NULL)
             : fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    (void)s, (void)value;
    return c ? fail(instance_of(c), "fmi2GetStatus: steps are not asynchronous%s", NULL)
             : fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    fmu *f = instance_of(c);
    if (!f || !value)
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime)
        return fail(f, "fmi2GetRealStatus: only fmi2LastSuccessfulTime is available%s", NULL);
    *value = f->last_successful_time;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s, (void)value;
    return c ? fail(instance_of(c), "fmi2GetIntegerStatus: no integer status%s", NULL)
             : fmi2Error;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    fmu *f = instance_of(c);
    if (!f || !value)
        return fmi2Error;
    if (s != fmi2Terminated)
        return fail(f, "fmi2GetBooleanStatus: only fmi2Terminated is available%s", NULL);
    *value = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    (void)s, (void)value;
    return c ? fail(instance_of(c), "fmi2GetStringStatus: no string status%s", NULL)
             : fmi2Error;
}
