// A small FMI co-simulation host (FMI 2.0 and 3.0) for the tests (tests/cli_fmi.sh): it reads
// an unpacked FMU's modelDescription.xml, checks it structurally, loads the shared object of
// binaries/ with dlopen and runs it, independently of libdirac (it only speaks FMI). The FMI
// version is the one modelDescription.xml declares.
//
//   fmi_host DIR run INPUTS.csv OUT.csv STEPS [T NAME=VALUE]...
//       inputs from a CSV (t, input names; linear interpolation at the start of each
//       communication step, held over it), STEPS steps of the default experiment's stepSize;
//       writes t and every output (names as in the XML). Each T NAME=VALUE sets parameter
//       NAME (tunable) before the first step that starts at or after T.
//   fmi_host DIR state STEPS        GetFMUState after STEPS steps, STEPS more steps, SetFMUState,
//       the same steps again: the outputs must be bit-identical (also through a serialized
//       state set into an instance that was only instantiated, and after a tunable parameter
//       changed in between: the state brings its value back); FreeFMUState given the state
//       instead of its address is refused
//   fmi_host DIR misuse             calls in the wrong order, unknown value references, NaN
//       inputs, outputs and fixed parameters set, a wrong GUID or token, other interface
//       types: each must return an error
//   fmi_host DIR fail INPUT VALUE   a step with INPUT = VALUE must fail with an error and leave
//       the outputs as they were; the next step with the default works
//   fmi_host DIR init NAME VALUE OUTPUT EXPECTED  in initialization mode, after reading the
//       state, parameter NAME = VALUE must give the new initial state: OUTPUT = EXPECTED
//   fmi_host DIR resize NAME VALUE  setting parameter NAME (which sizes a family) to VALUE in
//       initialization mode must make ExitInitializationMode fail, with a message
//
// Exit status 0 when every check passed; messages on stderr.
#define _POSIX_C_SOURCE 200809L

#include "fmi2_interface.h"
#include "fmi3_interface.h"
#include "text_file.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 4096

typedef struct variable {
    char name[256];
    unsigned vr;
    char causality[32], variability[32], initial[32];
    int has_start;
    double start;
} variable;

static variable vars[MAX_VARS];
static int var_count;
static int fmi_version;   // 2 or 3
static char guid[128], identifier[256];
static double step_size;
static int failures;

static void check(int ok, const char *format, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, format);
    fputs("fmi_host: FAILED ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

// ---- modelDescription.xml --------------------------------------------------------------------

// The value of attribute `name` in the element starting at `element` (up to its '>').
static int attribute(const char *element, const char *name, char *out, size_t size)
{
    const char *end = strchr(element, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(element, key);
    if (!at || (end && at > end)) {
        snprintf(key, sizeof key, "\n%s=\"", name);   // the first attribute of a line
        at = strstr(element, key);
        if (!at || (end && at > end))
            return 0;
    }
    at += strlen(key);
    size_t k = 0;
    for (; *at && *at != '"' && k + 1 < size; at++) {
        if (*at == '&') {   // the five predefined entities
            const char *ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
            const char chars[] = "&<>\"'";
            int found = 0;
            for (int e = 0; e < 5 && !found; e++)
                if (!strncmp(at, ents[e], strlen(ents[e]))) {
                    out[k++] = chars[e];
                    at += strlen(ents[e]) - 1;
                    found = 1;
                }
            if (found)
                continue;
        }
        out[k++] = *at;
    }
    out[k] = '\0';
    return 1;
}

// The attributes both FMI versions give a variable: name, valueReference, causality,
// variability, initial.
static void read_attributes(const char *at, variable *v)
{
    char vr[32] = "";
    check(attribute(at, "name", v->name, sizeof v->name), "a variable without a name");
    check(attribute(at, "valueReference", vr, sizeof vr), "%s: no valueReference", v->name);
    v->vr = (unsigned)strtoul(vr, NULL, 10);
    attribute(at, "causality", v->causality, sizeof v->causality);
    attribute(at, "variability", v->variability, sizeof v->variability);
    attribute(at, "initial", v->initial, sizeof v->initial);
}

// FMI 2.0: <ScalarVariable ...><Real start=.../></ScalarVariable>
static void read_variables2(const char *xml)
{
    for (const char *at = strstr(xml, "<ScalarVariable"); at && var_count < MAX_VARS;
         at = strstr(at + 1, "<ScalarVariable")) {
        variable *v = &vars[var_count++];
        read_attributes(at, v);
        const char *real = strstr(at, "<Real");
        const char *close = strstr(at, "</ScalarVariable>");
        check(real && close && real < close, "%s: not a Real", v->name);
        char start[64];
        v->has_start = real && attribute(real, "start", start, sizeof start);
        if (v->has_start)
            v->start = strtod(start, NULL);
    }
}

// FMI 3.0: <Float64 .../> (the FMU has no other types)
static void read_variables3(const char *xml)
{
    const char *list = strstr(xml, "<ModelVariables>");
    const char *end = list ? strstr(list, "</ModelVariables>") : NULL;
    check(list && end, "no ModelVariables");
    for (const char *at = list ? strchr(list + 1, '<') : NULL; at && at < end;
         at = strchr(at + 1, '<')) {
        if (at[1] == '/' || at[1] == '!')
            continue;
        check(!strncmp(at, "<Float64 ", 9), "a variable that is not Float64: %.20s", at);
        variable *v = &vars[var_count++];
        char start[64];
        read_attributes(at, v);
        if (!v->causality[0])
            strcpy(v->causality, "local");
        if (!v->variability[0])
            strcpy(v->variability, "continuous");   // the default of Float64
        v->has_start = attribute(at, "start", start, sizeof start);
        if (v->has_start)
            v->start = strtod(start, NULL);
        if (var_count == MAX_VARS)
            break;
    }
}

static int is_output(const variable *v) { return !strcmp(v->causality, "output"); }

// ModelStructure/Outputs: exactly the outputs (FMI 2.0: by 1-based index; 3.0: by reference).
static void check_structure(const char *xml)
{
    int listed = 0, expected = 0;
    for (int i = 0; i < var_count; i++)
        expected += is_output(&vars[i]);
    const char *outputs = strstr(xml, fmi_version == 3 ? "<ModelStructure>" : "<Outputs>");
    const char *end = outputs ? strstr(outputs, fmi_version == 3 ? "</ModelStructure>"
                                                                 : "</Outputs>")
                              : NULL;
    const char *tag = fmi_version == 3 ? "<Output " : "<Unknown";
    for (const char *u = outputs ? strstr(outputs, tag) : NULL; u && end && u < end;
         u = strstr(u + 1, tag)) {
        char value[32] = "";
        if (fmi_version == 3) {
            attribute(u, "valueReference", value, sizeof value);
            unsigned vr = (unsigned)strtoul(value, NULL, 10);
            int found = 0;
            for (int i = 0; i < var_count; i++)
                found |= vars[i].vr == vr && is_output(&vars[i]);
            check(found, "Output lists value reference %u, not an output", vr);
        } else {
            attribute(u, "index", value, sizeof value);
            int k = atoi(value);
            check(k >= 1 && k <= var_count && is_output(&vars[k - 1]),
                  "Outputs lists index %d, not an output", k);
        }
        listed++;
    }
    check(listed == expected, "Outputs lists %d variables, the model has %d outputs", listed,
          expected);
}

static void read_description(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    char *xml = text_file_read(path);
    check(xml != NULL, "cannot read %s", path);
    if (!xml)
        exit(1);
    const char *root = strstr(xml, "<fmiModelDescription");
    char version[16] = "";
    check(root && attribute(root, "fmiVersion", version, sizeof version) &&
          (!strcmp(version, "2.0") || !strcmp(version, "3.0")), "fmiVersion is not 2.0 or 3.0");
    fmi_version = !strcmp(version, "3.0") ? 3 : 2;
    check(root && attribute(root, fmi_version == 3 ? "instantiationToken" : "guid", guid,
                            sizeof guid), "no guid / instantiationToken");
    const char *cs = strstr(xml, "<CoSimulation");
    check(cs && attribute(cs, "modelIdentifier", identifier, sizeof identifier),
          "no CoSimulation modelIdentifier");
    const char *exp = strstr(xml, "<DefaultExperiment");
    char value[64] = "";
    check(exp && attribute(exp, "stepSize", value, sizeof value), "no stepSize");
    step_size = atof(value);
    if (fmi_version == 3)
        read_variables3(xml);
    else
        read_variables2(xml);
    check(var_count > 0, "no variables");
    // structure (FMI 2.0 2.2.7, FMI 3.0 2.4.7.4): unique value references and names;
    // causality/variability combinations; start values exactly where required
    int independent = 0;
    for (int i = 0; i < var_count; i++) {
        variable *v = &vars[i];
        for (int j = 0; j < i; j++) {
            check(vars[j].vr != v->vr, "value reference %u used twice", v->vr);
            check(strcmp(vars[j].name, v->name) != 0, "name '%s' used twice", v->name);
        }
        if (!strcmp(v->causality, "parameter"))
            check((!strcmp(v->variability, "fixed") || !strcmp(v->variability, "tunable")) &&
                  v->has_start &&
                  (fmi_version == 3 ? !v->initial[0] || !strcmp(v->initial, "exact")
                                    : !strcmp(v->initial, "exact")),
                  "%s: a parameter must be fixed/tunable, initial exact, with a start", v->name);
        else if (!strcmp(v->causality, "input"))
            check(v->has_start && !v->initial[0], "%s: an input needs a start and no initial",
                  v->name);
        else if (is_output(v))
            check(strcmp(v->variability, "continuous") == 0 && !v->has_start,
                  "%s: a calculated output has no start", v->name);
        else if (!strcmp(v->causality, "independent") && fmi_version == 3)
            independent++, check(!v->has_start, "%s: the independent variable has a start",
                                 v->name);
        else
            check(0, "%s: unexpected causality '%s'", v->name, v->causality);
    }
    check(fmi_version == 2 || independent == 1, "FMI 3.0 needs one independent variable, "
          "the FMU has %d", independent);
    check_structure(xml);
    free(xml);
}

// ---- the FMU through either API -------------------------------------------------------------

#define FMI2_FUNCTIONS(X)                                                                    \
    X(fmi2Instantiate) X(fmi2FreeInstance) X(fmi2SetupExperiment)                           \
    X(fmi2EnterInitializationMode) X(fmi2ExitInitializationMode) X(fmi2Terminate)           \
    X(fmi2Reset) X(fmi2GetReal) X(fmi2SetReal) X(fmi2DoStep) X(fmi2GetFMUstate)              \
    X(fmi2SetFMUstate) X(fmi2FreeFMUstate) X(fmi2SerializedFMUstateSize)                     \
    X(fmi2SerializeFMUstate) X(fmi2DeSerializeFMUstate) X(fmi2GetTypesPlatform)              \
    X(fmi2GetVersion) X(fmi2SetDebugLogging) X(fmi2GetInteger) X(fmi2GetBoolean)             \
    X(fmi2GetString) X(fmi2SetInteger) X(fmi2SetBoolean) X(fmi2SetString)                    \
    X(fmi2GetDirectionalDerivative) X(fmi2SetRealInputDerivatives)                           \
    X(fmi2GetRealOutputDerivatives) X(fmi2CancelStep) X(fmi2GetStatus)                       \
    X(fmi2GetRealStatus) X(fmi2GetIntegerStatus) X(fmi2GetBooleanStatus)                     \
    X(fmi2GetStringStatus)

// every function of fmi3_interface.h: an FMI 3.0 binary exports all of them
#define FMI3_FUNCTIONS(X)                                                                    \
    X(fmi3GetVersion) X(fmi3SetDebugLogging) X(fmi3InstantiateModelExchange)                 \
    X(fmi3InstantiateCoSimulation) X(fmi3InstantiateScheduledExecution) X(fmi3FreeInstance) \
    X(fmi3EnterInitializationMode) X(fmi3ExitInitializationMode) X(fmi3EnterEventMode)      \
    X(fmi3Terminate) X(fmi3Reset) X(fmi3GetFloat32) X(fmi3SetFloat32) X(fmi3GetFloat64)      \
    X(fmi3SetFloat64) X(fmi3GetInt8) X(fmi3SetInt8) X(fmi3GetUInt8) X(fmi3SetUInt8)          \
    X(fmi3GetInt16) X(fmi3SetInt16) X(fmi3GetUInt16) X(fmi3SetUInt16) X(fmi3GetInt32)        \
    X(fmi3SetInt32) X(fmi3GetUInt32) X(fmi3SetUInt32) X(fmi3GetInt64) X(fmi3SetInt64)        \
    X(fmi3GetUInt64) X(fmi3SetUInt64) X(fmi3GetBoolean) X(fmi3SetBoolean) X(fmi3GetString)   \
    X(fmi3SetString) X(fmi3GetBinary) X(fmi3SetBinary) X(fmi3GetClock) X(fmi3SetClock)       \
    X(fmi3GetNumberOfVariableDependencies) X(fmi3GetVariableDependencies)                    \
    X(fmi3GetFMUState) X(fmi3SetFMUState) X(fmi3FreeFMUState) X(fmi3SerializedFMUStateSize) \
    X(fmi3SerializeFMUState) X(fmi3DeserializeFMUState) X(fmi3GetDirectionalDerivative)     \
    X(fmi3GetAdjointDerivative) X(fmi3EnterConfigurationMode) X(fmi3ExitConfigurationMode)  \
    X(fmi3GetIntervalDecimal) X(fmi3GetIntervalFraction) X(fmi3GetShiftDecimal)              \
    X(fmi3GetShiftFraction) X(fmi3SetIntervalDecimal) X(fmi3SetIntervalFraction)             \
    X(fmi3SetShiftDecimal) X(fmi3SetShiftFraction) X(fmi3EvaluateDiscreteStates)             \
    X(fmi3UpdateDiscreteStates) X(fmi3EnterContinuousTimeMode) X(fmi3CompletedIntegratorStep)\
    X(fmi3SetTime) X(fmi3SetContinuousStates) X(fmi3GetContinuousStateDerivatives)           \
    X(fmi3GetEventIndicators) X(fmi3GetContinuousStates) X(fmi3GetNominalsOfContinuousStates)\
    X(fmi3GetNumberOfEventIndicators) X(fmi3GetNumberOfContinuousStates) X(fmi3EnterStepMode)\
    X(fmi3GetOutputDerivatives) X(fmi3DoStep) X(fmi3ActivateModelPartition)

typedef struct api {
    void *lib;
#define FMI_FIELD(name) __typeof__(&name) name;
    FMI2_FUNCTIONS(FMI_FIELD)
    FMI3_FUNCTIONS(FMI_FIELD)
} api;

// Both APIs number their status alike: OK 0, Error 3.
enum { OK = 0, ERROR = 3 };

static int logged_errors;

static void logger2(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
    (void)env;
    va_list ap;
    va_start(ap, message);
    if (status >= fmi2Error)
        logged_errors++;
    if (getenv("FMI_HOST_VERBOSE")) {
        fprintf(stderr, "[%s %s %d] ", instance, category, (int)status);
        vfprintf(stderr, message, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
    if (status >= fmi3Error)
        logged_errors++;
    if (getenv("FMI_HOST_VERBOSE"))
        fprintf(stderr, "[%s %s %d] %s\n", (const char *)env, category, (int)status, message);
}

static const fmi2CallbackFunctions callbacks = { logger2, calloc, free, NULL, NULL };

static void load(api *a, const char *dir)
{
    memset(a, 0, sizeof *a);
    char path[4096];
    snprintf(path, sizeof path, "%s/binaries/%s/%s.so", dir,
             fmi_version == 3 ? "x86_64-linux" : "linux64", identifier);
    a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    check(a->lib != NULL, "dlopen %s: %s", path, dlerror());
    if (!a->lib)
        exit(1);
#define FMI_LOAD(name)                                                                       \
    *(void **)&a->name = dlsym(a->lib, #name);                                               \
    check(a->name != NULL, "the FMU does not export " #name);
    if (fmi_version == 3) {
        FMI3_FUNCTIONS(FMI_LOAD)
    } else {
        FMI2_FUNCTIONS(FMI_LOAD)
    }
    if (failures)
        exit(1);
}

static void *instantiate(const api *a, const char *token)
{
    if (fmi_version == 3)
        return a->fmi3InstantiateCoSimulation("host", token, "file:///nowhere", fmi3False,
                                              fmi3False, fmi3False, fmi3False, NULL, 0,
                                              (void *)"host", logger3, NULL);
    return a->fmi2Instantiate("host", fmi2CoSimulation, token, "file:///nowhere", &callbacks,
                              fmi2False, fmi2False);
}

// Setup (FMI 2.0) and EnterInitializationMode with start time 0.
static int enter_initialization(const api *a, void *c)
{
    if (fmi_version == 3)
        return (int)a->fmi3EnterInitializationMode(c, fmi3False, 0, 0, fmi3False, 0);
    int status = (int)a->fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0);
    return status != OK ? status : (int)a->fmi2EnterInitializationMode(c);
}

static int exit_initialization(const api *a, void *c)
{
    return fmi_version == 3 ? (int)a->fmi3ExitInitializationMode(c)
                            : (int)a->fmi2ExitInitializationMode(c);
}

static int get(const api *a, void *c, const unsigned *vr, size_t n, double *values)
{
    return fmi_version == 3 ? (int)a->fmi3GetFloat64(c, vr, n, values, n)
                            : (int)a->fmi2GetReal(c, vr, n, values);
}

static int set(const api *a, void *c, const unsigned *vr, size_t n, const double *values)
{
    return fmi_version == 3 ? (int)a->fmi3SetFloat64(c, vr, n, values, n)
                            : (int)a->fmi2SetReal(c, vr, n, values);
}

static int do_step(const api *a, void *c, double t, double h)
{
    if (fmi_version == 2)
        return (int)a->fmi2DoStep(c, t, h, fmi2False);
    fmi3Boolean event = fmi3True, terminate = fmi3True, early = fmi3True;
    double last = NAN;
    int status = (int)a->fmi3DoStep(c, t, h, fmi3False, &event, &terminate, &early, &last);
    check(!event && !terminate && !early && (status != OK || last == t + h ||
                                             fabs(last - (t + h)) <= 1e-9 * fabs(t + h)),
          "fmi3DoStep's output arguments");
    return status;
}

static int get_state(const api *a, void *c, void **state)
{
    return fmi_version == 3 ? (int)a->fmi3GetFMUState(c, state)
                            : (int)a->fmi2GetFMUstate(c, state);
}

static int set_state(const api *a, void *c, void *state)
{
    return fmi_version == 3 ? (int)a->fmi3SetFMUState(c, state)
                            : (int)a->fmi2SetFMUstate(c, state);
}

static int free_state(const api *a, void *c, void **state)
{
    return fmi_version == 3 ? (int)a->fmi3FreeFMUState(c, state)
                            : (int)a->fmi2FreeFMUstate(c, state);
}

static int state_size(const api *a, void *c, void *state, size_t *size)
{
    return fmi_version == 3 ? (int)a->fmi3SerializedFMUStateSize(c, state, size)
                            : (int)a->fmi2SerializedFMUstateSize(c, state, size);
}

static int serialize(const api *a, void *c, void *state, unsigned char *bytes, size_t size)
{
    return fmi_version == 3 ? (int)a->fmi3SerializeFMUState(c, state, bytes, size)
                            : (int)a->fmi2SerializeFMUstate(c, state, (fmi2Byte *)bytes, size);
}

static int deserialize(const api *a, void *c, const unsigned char *bytes, size_t size,
                       void **state)
{
    return fmi_version == 3
               ? (int)a->fmi3DeserializeFMUState(c, bytes, size, state)
               : (int)a->fmi2DeSerializeFMUstate(c, (const fmi2Byte *)bytes, size, state);
}

static int terminate(const api *a, void *c)
{
    return fmi_version == 3 ? (int)a->fmi3Terminate(c) : (int)a->fmi2Terminate(c);
}

static int reset(const api *a, void *c)
{
    return fmi_version == 3 ? (int)a->fmi3Reset(c) : (int)a->fmi2Reset(c);
}

static void free_instance(const api *a, void *c)
{
    if (fmi_version == 3)
        a->fmi3FreeInstance(c);
    else
        a->fmi2FreeInstance(c);
}

static void *start(const api *a)
{
    void *c = instantiate(a, guid);
    check(c != NULL, "instantiation failed");
    if (!c)
        exit(1);
    check(enter_initialization(a, c) == OK, "EnterInitializationMode");
    check(exit_initialization(a, c) == OK, "ExitInitializationMode");
    return c;
}

static int find(const char *name)
{
    for (int i = 0; i < var_count; i++)
        if (!strcmp(vars[i].name, name))
            return i;
    return -1;
}

// ---- commands -----------------------------------------------------------------------------

// Inputs at the start of the step: linear between rows, held outside the table.
static void set_inputs(const api *a, void *c, double t, const double *table, int rows,
                       int columns, const int *column_var)
{
    for (int col = 0; col < columns && rows > 0; col++) {
        int lo = 0;
        while (lo + 1 < rows && table[(size_t)(lo + 1) * 65] <= t)
            lo++;
        double value = table[(size_t)lo * 65 + 1 + (size_t)col];
        if (lo + 1 < rows && t > table[(size_t)lo * 65]) {
            double t0 = table[(size_t)lo * 65], t1 = table[(size_t)(lo + 1) * 65];
            double v1 = table[(size_t)(lo + 1) * 65 + 1 + (size_t)col];
            value += (v1 - value) * (t - t0) / (t1 - t0);
        }
        unsigned vr = vars[column_var[col]].vr;
        check(set(a, c, &vr, 1, &value) == OK, "set input %s", vars[column_var[col]].name);
    }
}

typedef struct tuning {
    double t, value;
    int var;
    int done;
} tuning;

static int cmd_run(const api *a, const char *inputs_path, const char *out_path, long steps,
                   tuning *tunings, int tuning_count)
{
    // the input table: header t,NAME...; rows of numbers
    char *text = text_file_read(inputs_path);
    check(text != NULL, "cannot read %s", inputs_path);
    if (!text)
        return 1;
    int columns = 0, column_var[64];
    size_t lines = 1;
    for (const char *ch = text; *ch; ch++)
        lines += *ch == '\n';
    double *table = calloc(lines * 65, sizeof *table);   // rows of t and up to 64 inputs
    int rows = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *field_save = NULL;
        int k = 0;
        for (char *field = strtok_r(line, ",\r", &field_save); field;
             field = strtok_r(NULL, ",\r", &field_save), k++) {
            if (k > 64) {
                check(0, "more than 64 input columns");
                break;
            }
            if (columns == 0 && rows == 0 && k > 0) {
                column_var[k - 1] = find(field);
                check(column_var[k - 1] >= 0, "input column %s is no variable", field);
            } else if (rows > 0 || columns > 0) {
                table[(size_t)(rows - 1) * 65 + (size_t)k] = strtod(field, NULL);
            }
        }
        if (columns == 0 && rows == 0)
            columns = k - 1;
        rows++;
    }
    rows--;   // the header
    if (failures)
        return 1;
    void *c = start(a);
    FILE *out = fopen(out_path, "w");
    fputs("t", out);
    for (int i = 0; i < var_count; i++)
        if (is_output(&vars[i]))
            fprintf(out, ",%s", vars[i].name);
    fputc('\n', out);
    double t = 0;
    for (long step = 0; step <= steps; step++) {
        t = (double)step * step_size;
        // a row: the outputs with the inputs held over the step that ended there (the
        // first row: with the inputs at t0), as `dirac simulate --inputs` writes them
        if (step == 0)
            set_inputs(a, c, t, table, rows, columns, column_var);
        fprintf(out, "%.17g", t);
        for (int i = 0; i < var_count; i++)
            if (is_output(&vars[i])) {
                double value = NAN;
                check(get(a, c, &vars[i].vr, 1, &value) == OK, "get %s", vars[i].name);
                fprintf(out, ",%.17g", value);
            }
        fputc('\n', out);
        if (step > 0)
            set_inputs(a, c, t, table, rows, columns, column_var);
        for (int k = 0; k < tuning_count; k++)
            if (!tunings[k].done && t >= tunings[k].t) {
                check(set(a, c, &vars[tunings[k].var].vr, 1, &tunings[k].value) == OK,
                      "tunable parameter %s set at t = %g", vars[tunings[k].var].name, t);
                tunings[k].done = 1;
            }
        if (step < steps && do_step(a, c, t, step_size) != OK) {
            check(0, "DoStep at t = %g failed", t);
            break;
        }
    }
    fclose(out);
    // every variable is readable
    for (int i = 0; i < var_count; i++) {
        double value = NAN;
        check(get(a, c, &vars[i].vr, 1, &value) == OK && isfinite(value),
              "variable %s is not readable", vars[i].name);
    }
    check(terminate(a, c) == OK, "Terminate");
    free_instance(a, c);
    free(table);
    free(text);
    return failures != 0;
}

// Takes `steps` steps from time t and writes every variable after each into values.
static void advance(const api *a, void *c, double *t, long steps, double *values)
{
    int k = 0;
    for (long s = 0; s < steps; s++) {
        check(do_step(a, c, *t, step_size) == OK, "DoStep");
        *t += step_size;
        for (int i = 0; i < var_count; i++)
            get(a, c, &vars[i].vr, 1, &values[k++]);
    }
}

// A tunable parameter whose change changes the outputs, or -1.
static int tunable_parameter(void)
{
    for (int i = 0; i < var_count; i++)
        if (!strcmp(vars[i].causality, "parameter") && !strcmp(vars[i].variability, "tunable"))
            return i;
    return -1;
}

static int cmd_state(const api *a, long steps)
{
    void *c = start(a);
    double t = 0;
    size_t n = (size_t)steps * (size_t)var_count + 1;
    double *first = calloc(n, sizeof *first), *again = calloc(n, sizeof *again);
    double *third = calloc(n, sizeof *third), *changed = calloc(n, sizeof *changed);
    advance(a, c, &t, steps, first);
    void *state = NULL;
    check(get_state(a, c, &state) == OK, "GetFMUState");
    size_t size = 0;
    check(state_size(a, c, state, &size) == OK && size > 0, "SerializedFMUStateSize");
    unsigned char *bytes = malloc(size);
    check(serialize(a, c, state, bytes, size) == OK, "SerializeFMUState");
    double t_saved = t;
    advance(a, c, &t, steps, first);
    check(set_state(a, c, state) == OK, "SetFMUState");
    t = t_saved;
    advance(a, c, &t, steps, again);
    check(memcmp(first, again, n * sizeof *first) == 0,
          "continuation after SetFMUState is not bit-identical");
    // a tunable parameter changed after the state was taken: the state brings it back
    int p = tunable_parameter();
    if (p >= 0) {
        check(set_state(a, c, state) == OK, "SetFMUState");
        double value = 1.5 * vars[p].start + 0.5, back = NAN;
        check(set(a, c, &vars[p].vr, 1, &value) == OK, "set tunable %s", vars[p].name);
        t = t_saved;
        advance(a, c, &t, steps, changed);
        check(memcmp(first, changed, n * sizeof *first) != 0,
              "changing %s changes nothing", vars[p].name);
        check(set_state(a, c, state) == OK, "SetFMUState after tuning");
        int status = get(a, c, &vars[p].vr, 1, &back);
        check(status == OK && back == vars[p].start, "the state did not restore %s (%g, not %g)",
              vars[p].name, back, vars[p].start);
        t = t_saved;
        advance(a, c, &t, steps, again);
        check(memcmp(first, again, n * sizeof *first) == 0,
              "continuation after tuning and SetFMUState is not bit-identical");
    }
    // the serialized state, restored into a fresh instance that was only instantiated (as
    // fmusim's --initial-fmu-state-file does): it continues in the state's phase
    void *d = instantiate(a, guid);
    check(d != NULL, "instantiation");
    void *copy = NULL;
    check(deserialize(a, d, bytes, size, &copy) == OK, "DeserializeFMUState");
    check(set_state(a, d, copy) == OK, "SetFMUState (deserialized)");
    t = t_saved;
    advance(a, d, &t, steps, third);
    check(memcmp(first, third, n * sizeof *first) == 0,
          "continuation from a deserialized state in a new instance is not bit-identical");
    void *bad = NULL;
    check(deserialize(a, d, bytes, 3, &bad) == ERROR && bad == NULL,
          "3 bytes deserialized as a state");
    check(free_state(a, c, (void **)state) == ERROR, "FreeFMUState with the state itself "
          "(not its address) is accepted");
    check(free_state(a, c, &state) == OK, "FreeFMUState");
    check(free_state(a, d, &copy) == OK, "FreeFMUState (deserialized)");
    check(state == NULL, "FreeFMUState leaves the pointer");
    free_instance(a, c);
    free_instance(a, d);
    free(bytes), free(first), free(again), free(third), free(changed);
    return failures != 0;
}

static void misuse3(const api *a, void *c)
{
    unsigned vr = vars[0].vr;
    double values[2];
    check(a->fmi3GetFloat64(c, &vr, 1, values, 2) == fmi3Error, "nValues != nvr accepted");
    int time = find("time");
    check(time >= 0 && a->fmi3SetFloat64(c, &vars[time].vr, 1, values, 1) == fmi3Error,
          "the independent variable set");
    check(a->fmi3EnterEventMode(c) == fmi3Error, "EnterEventMode without event mode");
    check(a->fmi3EnterConfigurationMode(c) == fmi3Error, "EnterConfigurationMode");
    fmi3Int32 i32 = 0;
    check(a->fmi3GetInt32(c, &vr, 1, &i32, 1) == fmi3Error, "Int32 access");
    check(a->fmi3GetInt32(c, &vr, 0, &i32, 0) == fmi3OK, "no Int32 values asked");
    fmi3Boolean event = 0, stop = 0, early = 0;
    double last = 0;
    check(a->fmi3DoStep(c, 0, step_size, fmi3False, NULL, &stop, &early, &last) == fmi3Error,
          "fmi3DoStep with a null argument");
    (void)event;
}

// What an FMI 2.0 co-simulation FMU without those features must refuse, each with an error
// logged; the asked-for nothing (no values) is not an error.
static void misuse2(const api *a, void *c)
{
    unsigned vr = vars[0].vr;
    int integer = 0, order = 1;
    double real = 0;
    fmi2Boolean boolean = fmi2False;
    fmi2String string = NULL;
    int logged = logged_errors;
    check(a->fmi2GetInteger(c, &vr, 1, &integer) == fmi2Error, "Integer access");
    check(a->fmi2GetDirectionalDerivative(c, &vr, 1, &vr, 1, &real, &real) == fmi2Error,
          "GetDirectionalDerivative");
    check(a->fmi2SetRealInputDerivatives(c, &vr, 1, &order, &real) == fmi2Error,
          "SetRealInputDerivatives");
    check(a->fmi2SetRealInputDerivatives(c, &vr, 0, &order, &real) == fmi2OK,
          "SetRealInputDerivatives of no input");
    check(a->fmi2GetRealOutputDerivatives(c, &vr, 1, &order, &real) == fmi2Error,
          "GetRealOutputDerivatives");
    check(a->fmi2CancelStep(c) == fmi2Error, "CancelStep");
    fmi2Status status = fmi2OK;
    check(a->fmi2GetStatus(c, fmi2DoStepStatus, &status) == fmi2Error, "GetStatus");
    check(a->fmi2GetRealStatus(c, fmi2DoStepStatus, &real) == fmi2Error, "GetRealStatus");
    check(a->fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &real) == fmi2OK,
          "GetRealStatus(fmi2LastSuccessfulTime)");
    check(a->fmi2GetIntegerStatus(c, fmi2DoStepStatus, &integer) == fmi2Error,
          "GetIntegerStatus");
    check(a->fmi2GetBooleanStatus(c, fmi2DoStepStatus, &boolean) == fmi2Error,
          "GetBooleanStatus");
    check(a->fmi2GetStringStatus(c, fmi2PendingStatus, &string) == fmi2Error, "GetStringStatus");
    check(logged_errors - logged == 10, "%d of 10 refusals logged", logged_errors - logged);
    // without an instance: an error, not a crash
    check(a->fmi2CancelStep(NULL) == fmi2Error, "CancelStep(NULL)");
    check(a->fmi2GetDirectionalDerivative(NULL, &vr, 1, &vr, 1, &real, &real) == fmi2Error,
          "GetDirectionalDerivative(NULL)");
}

static int cmd_misuse(const api *a)
{
    check(instantiate(a, "{wrong}") == NULL, "a wrong GUID / token is accepted");
    if (fmi_version == 3) {
        check(a->fmi3InstantiateModelExchange("x", guid, "", 0, 0, (void *)"x", logger3) ==
                  NULL, "model exchange is accepted");
        check(a->fmi3InstantiateCoSimulation("x", guid, "", 0, 0, fmi3True, 0, NULL, 0,
                                             (void *)"x", logger3, NULL) == NULL,
              "event mode is accepted");
    } else {
        check(a->fmi2Instantiate("x", fmi2ModelExchange, guid, "", &callbacks, 0, 0) == NULL,
              "model exchange is accepted");
    }
    void *c = instantiate(a, guid);
    check(c != NULL, "instantiation");
    int before = logged_errors;
    check(do_step(a, c, 0, step_size) == ERROR, "DoStep before initialization");
    check(exit_initialization(a, c) == ERROR, "exit before enter");
    check(logged_errors > before, "errors are not logged");
    unsigned bad = 1000000;
    double value = 0;
    check(get(a, c, &bad, 1, &value) == ERROR, "unknown value reference read");
    check(enter_initialization(a, c) == OK, "enter");
    check(exit_initialization(a, c) == OK, "exit");
    check(set(a, c, &bad, 1, &value) == ERROR, "unknown value reference set");
    double nan = NAN;
    for (int i = 0; i < var_count; i++) {
        if (!strcmp(vars[i].causality, "input"))
            check(set(a, c, &vars[i].vr, 1, &nan) == ERROR, "NaN input %s accepted",
                  vars[i].name);
        if (is_output(&vars[i]))
            check(set(a, c, &vars[i].vr, 1, &value) == ERROR, "output %s set", vars[i].name);
        if (!strcmp(vars[i].causality, "parameter") && !strcmp(vars[i].variability, "fixed"))
            check(set(a, c, &vars[i].vr, 1, &vars[i].start) == ERROR,
                  "fixed parameter %s set after initialization", vars[i].name);
        if (!strcmp(vars[i].causality, "parameter") && !strcmp(vars[i].variability, "tunable"))
            check(set(a, c, &vars[i].vr, 1, &nan) == ERROR, "NaN parameter %s accepted",
                  vars[i].name);
    }
    check(do_step(a, c, 1.0 + 0.5, step_size) == ERROR, "a wrong communication point");
    check(do_step(a, c, 0, -step_size) == ERROR, "a negative step");
    check(do_step(a, c, 0, step_size) == OK, "a good step after errors");
    check(do_step(a, c, step_size, 0.37 * step_size) == ERROR,
          "a step that is no multiple of the first");
    if (fmi_version == 3) {
        misuse3(a, c);
    } else {
        misuse2(a, c);
    }
    check(terminate(a, c) == OK, "Terminate");
    check(do_step(a, c, step_size, step_size) == ERROR, "step after terminate");
    check(reset(a, c) == OK, "Reset");
    check(enter_initialization(a, c) == OK, "initialization after reset");
    free_instance(a, c);
    return failures != 0;
}

static int cmd_fail(const api *a, const char *input, double bad)
{
    void *c = start(a);
    int i = find(input);
    check(i >= 0, "no input %s", input);
    if (i < 0)
        return 1;
    double t = 0, before[MAX_VARS], after[MAX_VARS];
    check(do_step(a, c, t, step_size) == OK, "first step");
    t += step_size;
    for (int k = 0; k < var_count; k++)
        get(a, c, &vars[k].vr, 1, &before[k]);
    int logged = logged_errors;
    check(set(a, c, &vars[i].vr, 1, &bad) == OK, "set %s", input);
    check(do_step(a, c, t, step_size) == ERROR, "the bad step did not fail");
    check(logged_errors > logged, "the failure was not logged");
    check(set(a, c, &vars[i].vr, 1, &vars[i].start) == OK, "reset %s", input);
    for (int k = 0; k < var_count; k++)
        get(a, c, &vars[k].vr, 1, &after[k]);
    for (int k = 0; k < var_count; k++)
        check(before[k] == after[k] || k == i, "%s changed by the failed step", vars[k].name);
    check(do_step(a, c, t, step_size) == OK, "the step after a failure");
    free_instance(a, c);
    return failures != 0;
}

// In initialization mode, after the state was read: parameter NAME = VALUE must give the
// initial state of the new value (OUTPUT = EXPECTED after ExitInitializationMode).
static int cmd_init(const api *a, const char *name, double value, const char *output,
                    double expected)
{
    int i = find(name), o = find(output);
    check(i >= 0 && o >= 0, "no variable %s or %s", name, output);
    if (i < 0 || o < 0)
        return 1;
    void *c = instantiate(a, guid);
    check(c != NULL, "instantiation");
    check(enter_initialization(a, c) == OK, "enter");
    double before = NAN, after = NAN;
    check(get(a, c, &vars[o].vr, 1, &before) == OK, "get %s in initialization mode", output);
    check(set(a, c, &vars[i].vr, 1, &value) == OK, "%s set in initialization mode", name);
    check(exit_initialization(a, c) == OK, "exit");
    check(get(a, c, &vars[o].vr, 1, &after) == OK, "get %s", output);
    check(after == expected, "%s = %.17g after %s = %g (was %.17g), expected %.17g", output,
          after, name, value, before, expected);
    check(do_step(a, c, 0, step_size) == OK, "a step");
    free_instance(a, c);
    return failures != 0;
}

static int cmd_resize(const api *a, const char *name, double value)
{
    int i = find(name);
    check(i >= 0 && !strcmp(vars[i].variability, "fixed"), "%s is no fixed parameter", name);
    if (i < 0)
        return 1;
    void *c = instantiate(a, guid);
    check(c != NULL, "instantiation");
    check(enter_initialization(a, c) == OK, "enter");
    check(set(a, c, &vars[i].vr, 1, &value) == OK, "%s set in initialization mode", name);
    int logged = logged_errors;
    check(exit_initialization(a, c) == ERROR, "a new size of a family is accepted");
    check(logged_errors > logged, "the refusal was not logged");
    check(do_step(a, c, 0, step_size) == ERROR, "a step after the failed initialization");
    free_instance(a, c);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: fmi_host DIR run|state|misuse|fail|init|resize ...\n", stderr);
        return 2;
    }
    read_description(argv[1]);
    api a;
    load(&a, argv[1]);
    if (fmi_version == 3) {
        check(!strcmp(a.fmi3GetVersion(), "3.0"), "fmi3GetVersion");
    } else {
        check(!strcmp(a.fmi2GetVersion(), "2.0"), "fmi2GetVersion");
        check(!strcmp(a.fmi2GetTypesPlatform(), "default"), "fmi2GetTypesPlatform");
    }
    int rc = 2;
    if (!strcmp(argv[2], "run") && argc >= 6 && (argc - 6) % 2 == 0) {
        tuning tunings[32];
        int count = 0;
        for (int k = 6; k + 1 < argc && count < 32; k += 2) {
            char name[256];
            const char *eq = strchr(argv[k + 1], '=');
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - argv[k + 1]) : 0, argv[k + 1]);
            double value = eq ? strtod(eq + 1, NULL) : (double)NAN;
            tunings[count] = (tuning){ strtod(argv[k], NULL), value, find(name), 0 };
            check(tunings[count].var >= 0, "no parameter '%s'", name);
            count++;
        }
        rc = failures ? 1 : cmd_run(&a, argv[3], argv[4], atol(argv[5]), tunings, count);
    } else if (!strcmp(argv[2], "state") && argc == 4) {
        rc = cmd_state(&a, atol(argv[3]));
    } else if (!strcmp(argv[2], "misuse")) {
        rc = cmd_misuse(&a);
    } else if (!strcmp(argv[2], "fail") && argc == 5) {
        rc = cmd_fail(&a, argv[3], strtod(argv[4], NULL));
    } else if (!strcmp(argv[2], "init") && argc == 7) {
        rc = cmd_init(&a, argv[3], strtod(argv[4], NULL), argv[5], strtod(argv[6], NULL));
    } else if (!strcmp(argv[2], "resize") && argc == 5) {
        rc = cmd_resize(&a, argv[3], strtod(argv[4], NULL));
    }
    if (failures)
        fprintf(stderr, "fmi_host: %d check%s failed\n", failures, failures == 1 ? "" : "s");
    dlclose(a.lib);
    return failures ? 1 : rc;
}
