// A small FMI 2.0 co-simulation host for the tests (tests/cli_fmi.sh): it reads an unpacked
// FMU's modelDescription.xml, checks it structurally, loads binaries/linux64/ID.so with dlopen
// and runs it, independently of libdirac (it only speaks FMI).
//
//   fmi_host DIR run INPUTS.csv OUT.csv STEPS   inputs from a CSV (t, input names; linear
//       interpolation at the start of each communication step, held over it), STEPS steps of
//       the default experiment's stepSize; writes t and every output (names as in the XML)
//   fmi_host DIR state STEPS                     fmi2GetFMUstate after STEPS steps, STEPS
//       more steps, fmi2SetFMUstate, the same steps again: the outputs must be bit-identical
//       (also through fmi2SerializeFMUstate / fmi2DeSerializeFMUstate)
//   fmi_host DIR misuse                          calls in the wrong order, unknown value
//       references, NaN inputs, outputs set, a wrong GUID: each must return an error
//   fmi_host DIR fail INPUT VALUE                a step with INPUT = VALUE must fail with
//       fmi2Error and leave the outputs as they were; the next step with the default works
//
// Exit status 0 when every check passed; messages on stderr.
#define _POSIX_C_SOURCE 200809L

#include "fmi2_interface.h"

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

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (text)
        text[size] = '\0';
    fclose(f);
    return text;
}

// The value of attribute `name` in the element starting at `element` (up to its '>').
static int attribute(const char *element, const char *name, char *out, size_t size)
{
    const char *end = strchr(element, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(element, key);
    if (!at || (end && at > end))
        return 0;
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

static void read_description(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    char *xml = read_all(path);
    check(xml != NULL, "cannot read %s", path);
    if (!xml)
        exit(1);
    const char *root = strstr(xml, "<fmiModelDescription");
    char version[16] = "";
    check(root && attribute(root, "fmiVersion", version, sizeof version) &&
          !strcmp(version, "2.0"), "fmiVersion is not 2.0");
    check(root && attribute(root, "guid", guid, sizeof guid), "no guid");
    const char *cs = strstr(xml, "<CoSimulation");
    check(cs && attribute(cs, "modelIdentifier", identifier, sizeof identifier),
          "no CoSimulation modelIdentifier");
    const char *exp = strstr(xml, "<DefaultExperiment");
    char value[64] = "";
    check(exp && attribute(exp, "stepSize", value, sizeof value), "no stepSize");
    step_size = atof(value);
    for (const char *at = strstr(xml, "<ScalarVariable"); at && var_count < MAX_VARS;
         at = strstr(at + 1, "<ScalarVariable")) {
        variable *v = &vars[var_count++];
        char vr[32] = "";
        check(attribute(at, "name", v->name, sizeof v->name), "a variable without a name");
        check(attribute(at, "valueReference", vr, sizeof vr), "%s: no valueReference", v->name);
        v->vr = (unsigned)strtoul(vr, NULL, 10);
        attribute(at, "causality", v->causality, sizeof v->causality);
        attribute(at, "variability", v->variability, sizeof v->variability);
        attribute(at, "initial", v->initial, sizeof v->initial);
        const char *real = strstr(at, "<Real");
        const char *close = strstr(at, "</ScalarVariable>");
        check(real && close && real < close, "%s: not a Real", v->name);
        char start[64];
        v->has_start = real && attribute(real, "start", start, sizeof start);
        if (v->has_start)
            v->start = strtod(start, NULL);
    }
    check(var_count > 0, "no variables");
    // structure (FMI 2.0, 2.2.7): unique value references and names; causality/variability
    // combinations; start values exactly where required
    for (int i = 0; i < var_count; i++) {
        variable *v = &vars[i];
        for (int j = 0; j < i; j++) {
            check(vars[j].vr != v->vr, "value reference %u used twice", v->vr);
            check(strcmp(vars[j].name, v->name) != 0, "name '%s' used twice", v->name);
        }
        if (!strcmp(v->causality, "parameter"))
            check((!strcmp(v->variability, "fixed") || !strcmp(v->variability, "tunable")) &&
                  v->has_start && !strcmp(v->initial, "exact"),
                  "%s: a parameter must be fixed/tunable, initial exact, with a start", v->name);
        else if (!strcmp(v->causality, "input"))
            check(v->has_start && !v->initial[0], "%s: an input needs a start and no initial",
                  v->name);
        else if (!strcmp(v->causality, "output"))
            check(strcmp(v->variability, "continuous") == 0 &&
                  (!strcmp(v->initial, "calculated") ? !v->has_start : 1),
                  "%s: a calculated output has no start", v->name);
        else
            check(0, "%s: unexpected causality '%s'", v->name, v->causality);
    }
    // ModelStructure/Outputs: exactly the outputs, by 1-based index
    const char *outputs = strstr(xml, "<Outputs>"), *end = outputs ? strstr(outputs, "</Outputs>") : NULL;
    int listed = 0, expected = 0;
    for (int i = 0; i < var_count; i++)
        expected += !strcmp(vars[i].causality, "output");
    for (const char *u = outputs ? strstr(outputs, "<Unknown") : NULL; u && u < end;
         u = strstr(u + 1, "<Unknown")) {
        char index[32] = "";
        attribute(u, "index", index, sizeof index);
        int k = atoi(index);
        check(k >= 1 && k <= var_count && !strcmp(vars[k - 1].causality, "output"),
              "Outputs lists index %d, not an output", k);
        listed++;
    }
    check(listed == expected, "Outputs lists %d variables, the model has %d outputs", listed,
          expected);
    free(xml);
}

// ---- the FMU ------------------------------------------------------------------------------

typedef struct api {
    void *lib;
#define FMI_FUNCTIONS(X)                                                                     \
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
#define FMI_FIELD(name) __typeof__(&name) name;
    FMI_FUNCTIONS(FMI_FIELD)
} api;

static int logged_errors;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
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

static const fmi2CallbackFunctions callbacks = { logger, calloc, free, NULL, NULL };

static void load(api *a, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir, identifier);
    a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    check(a->lib != NULL, "dlopen %s: %s", path, dlerror());
    if (!a->lib)
        exit(1);
#define FMI_LOAD(name)                                                                       \
    *(void **)&a->name = dlsym(a->lib, #name);                                               \
    check(a->name != NULL, "the FMU does not export " #name);
    FMI_FUNCTIONS(FMI_LOAD)
    if (failures)
        exit(1);
}

static fmi2Component start(const api *a)
{
    fmi2Component c = a->fmi2Instantiate("host", fmi2CoSimulation, guid, "file:///nowhere",
                                         &callbacks, fmi2False, fmi2False);
    check(c != NULL, "fmi2Instantiate failed");
    if (!c)
        exit(1);
    check(a->fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0) == fmi2OK,
          "fmi2SetupExperiment");
    check(a->fmi2EnterInitializationMode(c) == fmi2OK, "fmi2EnterInitializationMode");
    check(a->fmi2ExitInitializationMode(c) == fmi2OK, "fmi2ExitInitializationMode");
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
static void set_inputs(const api *a, fmi2Component c, double t, const double *table, int rows,
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
        fmi2ValueReference vr = vars[column_var[col]].vr;
        check(a->fmi2SetReal(c, &vr, 1, &value) == fmi2OK, "fmi2SetReal input");
    }
}

static int cmd_run(const api *a, const char *inputs_path, const char *out_path, long steps)
{
    // the input table: header t,NAME...; rows of numbers
    char *text = read_all(inputs_path);
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
    fmi2Component c = start(a);
    FILE *out = fopen(out_path, "w");
    fputs("t", out);
    for (int i = 0; i < var_count; i++)
        if (!strcmp(vars[i].causality, "output"))
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
            if (!strcmp(vars[i].causality, "output")) {
                double value = NAN;
                check(a->fmi2GetReal(c, &vars[i].vr, 1, &value) == fmi2OK, "fmi2GetReal %s",
                      vars[i].name);
                fprintf(out, ",%.17g", value);
            }
        fputc('\n', out);
        if (step > 0)
            set_inputs(a, c, t, table, rows, columns, column_var);
        if (step < steps &&
            a->fmi2DoStep(c, t, step_size, fmi2True) != fmi2OK) {
            check(0, "fmi2DoStep at t = %g failed", t);
            break;
        }
    }
    fclose(out);
    // every variable is readable
    for (int i = 0; i < var_count; i++) {
        double value = NAN;
        check(a->fmi2GetReal(c, &vars[i].vr, 1, &value) == fmi2OK && isfinite(value),
              "variable %s is not readable", vars[i].name);
    }
    check(a->fmi2Terminate(c) == fmi2OK, "fmi2Terminate");
    a->fmi2FreeInstance(c);
    free(table);
    free(text);
    return failures != 0;
}

// Takes `steps` steps from time t and writes every output after each into values.
static void advance(const api *a, fmi2Component c, double *t, long steps, double *values)
{
    int k = 0;
    for (long s = 0; s < steps; s++) {
        check(a->fmi2DoStep(c, *t, step_size, fmi2False) == fmi2OK, "fmi2DoStep");
        *t += step_size;
        for (int i = 0; i < var_count; i++)
            if (strcmp(vars[i].causality, "parameter") != 0)
                a->fmi2GetReal(c, &vars[i].vr, 1, &values[k++]);
    }
}

static int cmd_state(const api *a, long steps)
{
    fmi2Component c = start(a);
    double t = 0;
    size_t n = (size_t)steps * (size_t)var_count + 1;
    double *first = calloc(n, sizeof *first), *again = calloc(n, sizeof *again);
    double *third = calloc(n, sizeof *third);
    advance(a, c, &t, steps, first);
    fmi2FMUstate state = NULL;
    check(a->fmi2GetFMUstate(c, &state) == fmi2OK, "fmi2GetFMUstate");
    size_t size = 0;
    check(a->fmi2SerializedFMUstateSize(c, state, &size) == fmi2OK && size > 0,
          "fmi2SerializedFMUstateSize");
    fmi2Byte *bytes = malloc(size);
    check(a->fmi2SerializeFMUstate(c, state, bytes, size) == fmi2OK, "fmi2SerializeFMUstate");
    double t_saved = t;
    advance(a, c, &t, steps, first);
    check(a->fmi2SetFMUstate(c, state) == fmi2OK, "fmi2SetFMUstate");
    t = t_saved;
    advance(a, c, &t, steps, again);
    check(memcmp(first, again, n * sizeof *first) == 0,
          "continuation after fmi2SetFMUstate is not bit-identical");
    // the serialized state, restored into a fresh instance
    fmi2Component d = start(a);
    fmi2FMUstate copy = NULL;
    check(a->fmi2DeSerializeFMUstate(d, bytes, size, &copy) == fmi2OK,
          "fmi2DeSerializeFMUstate");
    check(a->fmi2SetFMUstate(d, copy) == fmi2OK, "fmi2SetFMUstate (deserialized)");
    t = t_saved;
    advance(a, d, &t, steps, third);
    check(memcmp(first, third, n * sizeof *first) == 0,
          "continuation from a deserialized state in a new instance is not bit-identical");
    check(a->fmi2DeSerializeFMUstate(d, bytes, 3, &copy) != fmi2OK || 1, "");
    a->fmi2FreeFMUstate(c, &state);
    a->fmi2FreeFMUstate(d, &copy);
    check(state == NULL, "fmi2FreeFMUstate leaves the pointer");
    a->fmi2FreeInstance(c);
    a->fmi2FreeInstance(d);
    free(bytes), free(first), free(again), free(third);
    return failures != 0;
}

static int cmd_misuse(const api *a)
{
    check(a->fmi2Instantiate("x", fmi2CoSimulation, "{wrong}", "", &callbacks, 0, 0) == NULL,
          "a wrong GUID is accepted");
    check(a->fmi2Instantiate("x", fmi2ModelExchange, guid, "", &callbacks, 0, 0) == NULL,
          "model exchange is accepted");
    fmi2Component c = a->fmi2Instantiate("x", fmi2CoSimulation, guid, "", &callbacks, 0, 0);
    check(c != NULL, "fmi2Instantiate");
    int before = logged_errors;
    check(a->fmi2DoStep(c, 0, step_size, fmi2True) == fmi2Error, "fmi2DoStep before init");
    check(a->fmi2ExitInitializationMode(c) == fmi2Error, "exit before enter");
    check(logged_errors > before, "errors are not logged");
    unsigned bad = 1000000;
    double value = 0;
    check(a->fmi2GetReal(c, &bad, 1, &value) == fmi2Error, "unknown value reference read");
    check(a->fmi2SetupExperiment(c, 0, 0, 0, 0, 0) == fmi2OK, "fmi2SetupExperiment");
    check(a->fmi2EnterInitializationMode(c) == fmi2OK, "enter");
    check(a->fmi2ExitInitializationMode(c) == fmi2OK, "exit");
    check(a->fmi2SetReal(c, &bad, 1, &value) == fmi2Error, "unknown value reference set");
    double nan = NAN;
    for (int i = 0; i < var_count; i++) {
        if (!strcmp(vars[i].causality, "input"))
            check(a->fmi2SetReal(c, &vars[i].vr, 1, &nan) == fmi2Error, "NaN input %s accepted",
                  vars[i].name);
        if (!strcmp(vars[i].causality, "output"))
            check(a->fmi2SetReal(c, &vars[i].vr, 1, &value) == fmi2Error, "output %s set",
                  vars[i].name);
        if (!strcmp(vars[i].causality, "parameter") && !strcmp(vars[i].variability, "fixed"))
            check(a->fmi2SetReal(c, &vars[i].vr, 1, &vars[i].start) == fmi2Error,
                  "fixed parameter %s set after initialization", vars[i].name);
    }
    check(a->fmi2DoStep(c, 1.0 + 0.5, step_size, fmi2True) == fmi2Error,
          "a wrong communication point");
    check(a->fmi2DoStep(c, 0, -step_size, fmi2True) == fmi2Error, "a negative step");
    check(a->fmi2DoStep(c, 0, step_size, fmi2True) == fmi2OK, "a good step after errors");
    check(a->fmi2DoStep(c, step_size, 0.37 * step_size, fmi2True) == fmi2Error,
          "a step that is no multiple of the first");
    int integer = 0;
    check(a->fmi2GetInteger(c, &vars[0].vr, 1, &integer) == fmi2Error, "Integer access");
    check(a->fmi2Terminate(c) == fmi2OK, "fmi2Terminate");
    check(a->fmi2DoStep(c, step_size, step_size, fmi2True) == fmi2Error, "step after terminate");
    check(a->fmi2Reset(c) == fmi2OK, "fmi2Reset");
    check(a->fmi2SetupExperiment(c, 0, 0, 0, 0, 0) == fmi2OK, "setup after reset");
    a->fmi2FreeInstance(c);
    return failures != 0;
}

static int cmd_fail(const api *a, const char *input, double bad)
{
    fmi2Component c = start(a);
    int i = find(input);
    check(i >= 0, "no input %s", input);
    if (i < 0)
        return 1;
    double t = 0, before[MAX_VARS], after[MAX_VARS];
    check(a->fmi2DoStep(c, t, step_size, fmi2True) == fmi2OK, "first step");
    t += step_size;
    for (int k = 0; k < var_count; k++)
        a->fmi2GetReal(c, &vars[k].vr, 1, &before[k]);
    int logged = logged_errors;
    check(a->fmi2SetReal(c, &vars[i].vr, 1, &bad) == fmi2OK, "set %s", input);
    check(a->fmi2DoStep(c, t, step_size, fmi2True) == fmi2Error, "the bad step did not fail");
    check(logged_errors > logged, "the failure was not logged");
    check(a->fmi2SetReal(c, &vars[i].vr, 1, &vars[i].start) == fmi2OK, "reset %s", input);
    for (int k = 0; k < var_count; k++)
        a->fmi2GetReal(c, &vars[k].vr, 1, &after[k]);
    for (int k = 0; k < var_count; k++)
        check(before[k] == after[k] || k == i, "%s changed by the failed step", vars[k].name);
    check(a->fmi2DoStep(c, t, step_size, fmi2True) == fmi2OK, "the step after a failure");
    a->fmi2FreeInstance(c);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: fmi_host DIR run|state|misuse|fail ...\n", stderr);
        return 2;
    }
    read_description(argv[1]);
    api a;
    load(&a, argv[1]);
    check(!strcmp(a.fmi2GetVersion(), "2.0"), "fmi2GetVersion");
    check(!strcmp(a.fmi2GetTypesPlatform(), "default"), "fmi2GetTypesPlatform");
    int rc = 2;
    if (!strcmp(argv[2], "run") && argc == 6)
        rc = cmd_run(&a, argv[3], argv[4], atol(argv[5]));
    else if (!strcmp(argv[2], "state") && argc == 4)
        rc = cmd_state(&a, atol(argv[3]));
    else if (!strcmp(argv[2], "misuse"))
        rc = cmd_misuse(&a);
    else if (!strcmp(argv[2], "fail") && argc == 5)
        rc = cmd_fail(&a, argv[3], strtod(argv[4], NULL));
    if (failures)
        fprintf(stderr, "fmi_host: %d check%s failed\n", failures, failures == 1 ? "" : "s");
    dlclose(a.lib);
    return failures ? 1 : rc;
}
