// `dirac export fmu MODEL [-o FILE.fmu] [--fmi 2|3] [-p NAME=VALUE]... [--dt H] [--method NAME]
//                        [--static-lapack]`
//
// Writes a Functional Mock-up Unit for co-simulation (FMI 2.0 or 3.0): a zip archive with
// modelDescription.xml and the shared object binaries/linux64/ID.so (FMI 2.0) or
// binaries/x86_64-linux/ID.so (FMI 3.0). It is compiled here with the system C compiler from a
// generated source (the model's files as byte arrays, the export's settings, which parameters
// are tunable) and the FMU runtime (fmi/fmu_instance.c with fmi/fmu_fmi2.c or fmi/fmu_fmi3.c),
// and linked with the static libdirac; the LAPACK/BLAS/KLU libraries are linked dynamically
// (the Debian packages libopenblas0, liblapacke and libklu must be installed where the FMU
// runs), or with --static-lapack from their static archives. docs/fmi.md is the reference.
//
// Exit status: 0 success; 2 bad arguments or model; 3 the compiler or zip failed.
#define _POSIX_C_SOURCE 200809L   // mkdtemp, readlink

#include "commands.h"
#include "fmu_layout.h"

#include <dirac/dirac.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OVERRIDES 256
// FMI 3.0's platform tuple (section 2.5.1.4) of the machine the FMU is compiled for
#if defined(__x86_64__)
#define FMI3_PLATFORM "x86_64-linux"
#elif defined(__aarch64__)
#define FMI3_PLATFORM "aarch64-linux"
#elif defined(__i386__)
#define FMI3_PLATFORM "x86-linux"
#else
#define FMI3_PLATFORM "unknown-linux"
#endif
#define EXIT_BAD_INPUT 2
#define EXIT_FAILED 3

static const char usage[] =
    "usage: dirac export fmu MODEL [-o FILE.fmu] [--fmi 2|3] [-p NAME=VALUE]... [--dt H]\n"
    "                            [--method NAME] [--static-lapack]\n";

typedef struct export_args {
    const char *path, *out, *method;
    const char *overrides[MAX_OVERRIDES];
    int override_count;
    int fmi;   // 2 or 3
    int static_lapack;   // LAPACK, BLAS and KLU from their static archives
    double dt;
} export_args;

static int bad_input(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fputs("dirac export: error: ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

static int parse_args(int argc, char **argv, export_args *a)
{
    memset(a, 0, sizeof *a);
    a->fmi = 2;
    if (argc < 2 || strcmp(argv[1], "fmu") != 0) {
        fputs(usage, stderr);
        return argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
                   ? -1 : bad_input("the only export format is 'fmu'");
    }
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "-o") || !strcmp(arg, "--out")) {
            if (!value)
                return bad_input("%s needs a file name", arg);
            a->out = value, i++;
        } else if (!strcmp(arg, "--fmi")) {
            if (!value)
                return bad_input("--fmi needs a version (2 or 3)");
            if (strcmp(value, "2") != 0 && strcmp(value, "3") != 0)
                return bad_input("FMI version '%s' is not supported: this version of dirac "
                                 "exports FMI 2.0 (--fmi 2) and FMI 3.0 (--fmi 3)", value);
            a->fmi = value[0] - '0';
            i++;
        } else if (!strcmp(arg, "-p") || !strcmp(arg, "--parameter")) {
            if (!value)
                return bad_input("-p needs NAME=VALUE");
            if (a->override_count == MAX_OVERRIDES)
                return bad_input("too many -p options (at most %d)", MAX_OVERRIDES);
            a->overrides[a->override_count++] = value, i++;
        } else if (!strcmp(arg, "--dt")) {
            char *end = NULL;
            a->dt = value ? strtod(value, &end) : 0;
            if (!value || end == value || *end || !(a->dt > 0) || a->dt > 1e300)
                return bad_input("--dt needs a positive step size");
            i++;
        } else if (!strcmp(arg, "--method")) {
            if (!value)
                return bad_input("--method needs a name (see 'dirac methods')");
            a->method = value, i++;
        } else if (!strcmp(arg, "--static-lapack")) {
            a->static_lapack = 1;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage, stdout);
            return -1;
        } else if (arg[0] == '-' && arg[1]) {
            return bad_input("unknown option '%s' (see 'dirac export --help')", arg);
        } else if (a->path) {
            return bad_input("more than one model file given ('%s' and '%s')", a->path, arg);
        } else {
            a->path = arg;
        }
    }
    if (!a->path) {
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

// ---- where the FMU's ingredients are --------------------------------------------------------

typedef struct toolchain {
    char runtime[4096];   // directory of fmu_instance.c, fmu_fmi2.c, fmu_fmi3.c and headers
    char include[4096];   // directory holding dirac/*.h
    char library[4096];   // libdirac.a
} toolchain;

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

// The build tree this tool was built in, else the installation it belongs to
// (PREFIX/bin/dirac: PREFIX/share/dirac/fmi, PREFIX/include, PREFIX/lib*/libdirac.a).
static int find_toolchain(toolchain *tc)
{
    snprintf(tc->runtime, sizeof tc->runtime, "%s", DIRAC_FMI_RUNTIME_DIR);
    snprintf(tc->include, sizeof tc->include, "%s", DIRAC_FMI_INCLUDE_DIR);
    snprintf(tc->library, sizeof tc->library, "%s", DIRAC_FMI_LIBRARY);
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/fmu_instance.c", tc->runtime);
    if (exists(probe) && exists(tc->library))
        return 0;
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    for (int k = 0; k < 2; k++) {   // strip /dirac, then /bin
        char *slash = strrchr(self, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    snprintf(tc->runtime, sizeof tc->runtime, "%s/share/dirac/fmi", self);
    snprintf(tc->include, sizeof tc->include, "%s/include", self);
    snprintf(tc->library, sizeof tc->library, "%s/%s/libdirac.a", self, DIRAC_FMI_LIBDIR);
    snprintf(probe, sizeof probe, "%s/fmu_instance.c", tc->runtime);
    return exists(probe) && exists(tc->library) ? 0 : -1;
}

// ---- generated files ----------------------------------------------------------------------

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f); break;
        }
}

static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?')
            fprintf(f, "\\%c", c);
        else if (c < 32 || c > 126)
            fprintf(f, "\\%03o", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

// FNV-1a over the bytes, for the GUID: it changes whenever the model or the settings do.
static unsigned long long fnv(unsigned long long h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < size; k++)
        h = (h ^ p[k]) * 1099511628211ULL;
    return h;
}

// The variable vr's name (as the columns of `dirac simulate`) into buf.
static void variable_name(const dirac_model *m, const fmu_layout *l, unsigned vr, char *buf,
                          size_t size)
{
    int i = 0;
    switch (fmu_variable(l, vr, &i)) {
    case FMU_PARAMETER: snprintf(buf, size, "%s", dirac_model_parameter_name(m, i)); break;
    case FMU_INPUT: snprintf(buf, size, "%s", dirac_model_input_name(m, i)); break;
    case FMU_COORDINATE: snprintf(buf, size, "%s", dirac_model_coordinate_name(m, i)); break;
    case FMU_VELOCITY: snprintf(buf, size, "%s'", dirac_model_coordinate_name(m, i)); break;
    case FMU_MOMENTUM: snprintf(buf, size, "p.%s", dirac_model_coordinate_name(m, i)); break;
    case FMU_MULTIPLIER: snprintf(buf, size, "mu.%s", dirac_model_constraint_name(m, i)); break;
    case FMU_ENTROPY: snprintf(buf, size, "S.%s", dirac_model_entropy_name(m, i)); break;
    case FMU_TEMPERATURE: snprintf(buf, size, "T.%s", dirac_model_entropy_name(m, i)); break;
    case FMU_ENERGY: snprintf(buf, size, "E"); break;
    case FMU_OUTPUT: snprintf(buf, size, "%s", dirac_model_output_name(m, i)); break;
    case FMU_NONE: snprintf(buf, size, "?"); break;
    }
}

static const char *variable_description(fmu_kind kind)
{
    switch (kind) {
    case FMU_PARAMETER: return "parameter";
    case FMU_INPUT: return "input, held constant over each step";
    case FMU_COORDINATE: return "coordinate q";
    case FMU_VELOCITY: return "velocity v";
    case FMU_MOMENTUM: return "momentum p = dL/dv";
    case FMU_MULTIPLIER: return "Lagrange multiplier of the constraint";
    case FMU_ENTROPY: return "entropy variable S";
    case FMU_TEMPERATURE: return "temperature T = -dL/dS";
    case FMU_ENERGY: return "energy E = <p, v> - L (plus internal energy)";
    case FMU_OUTPUT: return "output expression";
    default: return "";
    }
}

// FMI 2.0 (section 2.2): ScalarVariable elements with a Real child, ModelStructure by 1-based
// index.
static void write_variables2(FILE *f, const dirac_model *m, const unsigned char *tunable)
{
    fmu_layout l = fmu_layout_of(m);
    unsigned count = fmu_variable_count(&l);
    for (unsigned vr = 0; vr < count; vr++) {
        int i = 0;
        fmu_kind kind = fmu_variable(&l, vr, &i);
        char name[1024];
        variable_name(m, &l, vr, name, sizeof name);
        fprintf(f, "    <!-- index %u -->\n    <ScalarVariable name=\"", vr + 1);
        xml_text(f, name);
        fprintf(f, "\" valueReference=\"%u\" description=\"", vr);
        xml_text(f, variable_description(kind));
        fputc('"', f);
        if (kind == FMU_PARAMETER)
            fprintf(f, " causality=\"parameter\" variability=\"%s\" initial=\"exact\">\n"
                       "      <Real start=\"%.17g\"/>\n", tunable[i] ? "tunable" : "fixed",
                    dirac_model_parameter_value(m, i));
        else if (kind == FMU_INPUT)
            fprintf(f, " causality=\"input\" variability=\"continuous\">\n"
                       "      <Real start=\"%.17g\"/>\n", dirac_model_input_default(m, i));
        else
            fprintf(f, " causality=\"output\" variability=\"continuous\" "
                       "initial=\"calculated\">\n      <Real/>\n");
        fprintf(f, "    </ScalarVariable>\n");
    }
    fprintf(f, "  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n");
    unsigned first_output = (unsigned)(l.parameters + l.inputs);
    for (unsigned vr = first_output; vr < count; vr++)
        fprintf(f, "      <Unknown index=\"%u\"/>\n", vr + 1);
    fprintf(f, "    </Outputs>\n    <InitialUnknowns>\n");
    for (unsigned vr = first_output; vr < count; vr++)
        fprintf(f, "      <Unknown index=\"%u\"/>\n", vr + 1);
    fprintf(f, "    </InitialUnknowns>\n  </ModelStructure>\n");
}

// FMI 3.0 (section 2.4.7): Float64 elements, the independent variable `time` after the
// others, ModelStructure by value reference.
static void write_variables3(FILE *f, const dirac_model *m, const unsigned char *tunable)
{
    fmu_layout l = fmu_layout_of(m);
    unsigned count = fmu_variable_count(&l);
    fprintf(f, "    <Float64 name=\"time\" valueReference=\"%u\" causality=\"independent\" "
               "variability=\"continuous\"\n      description=\"the independent variable\"/>\n",
            count);
    for (unsigned vr = 0; vr < count; vr++) {
        int i = 0;
        fmu_kind kind = fmu_variable(&l, vr, &i);
        char name[1024];
        variable_name(m, &l, vr, name, sizeof name);
        fprintf(f, "    <Float64 name=\"");
        xml_text(f, name);
        fprintf(f, "\" valueReference=\"%u\"", vr);
        if (kind == FMU_PARAMETER)
            fprintf(f, " causality=\"parameter\" variability=\"%s\" start=\"%.17g\"",
                    tunable[i] ? "tunable" : "fixed", dirac_model_parameter_value(m, i));
        else if (kind == FMU_INPUT)
            fprintf(f, " causality=\"input\" start=\"%.17g\"", dirac_model_input_default(m, i));
        else
            fprintf(f, " causality=\"output\"");
        fprintf(f, "\n      description=\"");
        xml_text(f, variable_description(kind));
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "  </ModelVariables>\n  <ModelStructure>\n");
    unsigned first_output = (unsigned)(l.parameters + l.inputs);
    for (unsigned vr = first_output; vr < count; vr++)
        fprintf(f, "    <Output valueReference=\"%u\"/>\n", vr);
    for (unsigned vr = first_output; vr < count; vr++)
        fprintf(f, "    <InitialUnknown valueReference=\"%u\"/>\n", vr);
    fprintf(f, "  </ModelStructure>\n");
}

static int write_description(const char *path, const dirac_model *m, int fmi, const char *id,
                             const char *guid, double dt, double t_end,
                             const unsigned char *tunable)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<fmiModelDescription fmiVersion=\"%s\" modelName=\"", fmi == 3 ? "3.0" : "2.0");
    xml_text(f, dirac_model_name(m));
    fprintf(f, "\" %s=\"%s\"\n  description=\"a Lagrange-Dirac model exported by dirac\" "
               "generationTool=\"dirac %s\"\n  variableNamingConvention=\"flat\"%s>\n",
            fmi == 3 ? "instantiationToken" : "guid", guid, dirac_version(),
            fmi == 3 ? "" : " numberOfEventIndicators=\"0\"");
    if (fmi == 3)
        fprintf(f, "  <CoSimulation modelIdentifier=\"%s\" "
                   "canHandleVariableCommunicationStepSize=\"false\"\n"
                   "    canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\" "
                   "hasEventMode=\"false\"/>\n"
                   "  <LogCategories>\n"
                   "    <Category name=\"logStatusError\" description=\"errors\"/>\n"
                   "    <Category name=\"logAll\" description=\"everything else\"/>\n"
                   "  </LogCategories>\n", id);
    else
        fprintf(f, "  <CoSimulation modelIdentifier=\"%s\" "
                   "canHandleVariableCommunicationStepSize=\"false\"\n"
                   "    canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"true\" "
                   "canNotUseMemoryManagementFunctions=\"true\"/>\n", id);
    fprintf(f, "  <DefaultExperiment startTime=\"0\"");
    if (t_end > 0)
        fprintf(f, " stopTime=\"%.17g\"", t_end);
    fprintf(f, " stepSize=\"%.17g\"/>\n  <ModelVariables>\n", dt);
    if (fmi == 3)
        write_variables3(f, m, tunable);
    else
        write_variables2(f, m, tunable);
    fprintf(f, "</fmiModelDescription>\n");
    return fclose(f) == 0 ? 0 : -1;
}

// Whether the model still has the variables of `l` with the parameters of members[0..count-1]
// at their value + 1 (0 when it does not compile then); -1 when out of memory.
static int keeps_variables(const export_args *a, const dirac_model *m, const fmu_layout *l,
                           const int *members, int count)
{
    dirac_spec *spec = NULL;
    dirac_model *changed = NULL;
    dirac_status status = dirac_spec_load(a->path, &spec);
    for (int j = 0; status == DIRAC_OK && j < a->override_count; j++)
        status = dirac_spec_set_parameter(spec, a->overrides[j]);
    for (int j = 0; status == DIRAC_OK && j < count; j++) {
        char assignment[1024];
        snprintf(assignment, sizeof assignment, "%s=%.17g",
                 dirac_model_parameter_name(m, members[j]),
                 dirac_model_parameter_value(m, members[j]) + 1);
        status = dirac_spec_set_parameter(spec, assignment);
    }
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &changed);
    fmu_layout lc = changed ? fmu_layout_of(changed) : *l;
    int keeps = status == DIRAC_OK && memcmp(&lc, l, sizeof lc) == 0;
    dirac_model_destroy(changed);
    dirac_spec_destroy(spec);
    return status == DIRAC_ERR_NOMEM ? -1 : keeps;
}

// A parameter's family: its name without the indices (`k[3]` and `cell[2].m` belong to `k[]`
// and `cell[].m`).
static void family_of(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (int depth = 0; *name && n + 1 < size; name++) {
        depth += *name == '[';
        if (depth == 0 || *name == '[' || *name == ']')
            out[n++] = *name;
        depth -= *name == ']';
    }
    out[n] = '\0';
}

typedef struct named_parameter {
    char family[256];
    int index;
} named_parameter;

static int by_family(const void *x, const void *y)
{
    const named_parameter *a = x, *b = y;
    int c = strcmp(a->family, b->family);
    return c ? c : a->index - b->index;
}

// Tunable parameters: those whose change keeps the model's variables. The model is compiled
// once more per family of parameters (a single parameter is its own family) with all of its
// parameters at value + 1: a family that sizes an indexed family of variables (or makes the
// model fail to compile) changes the layout; its parameters are then tried one by one (up to
// 64 of them; a larger family stays fixed as a whole) and those that change it stay fixed.
// 1 per tunable parameter into tunable[]; -1 when out of memory.
static int find_tunable(const export_args *a, const dirac_model *m, unsigned char *tunable)
{
    fmu_layout l = fmu_layout_of(m);
    int count = l.parameters;
    named_parameter *sorted = malloc(((size_t)count + 1) * sizeof *sorted);
    int *members = malloc(((size_t)count + 1) * sizeof *members);
    if (!sorted || !members) {
        free(sorted), free(members);
        return -1;
    }
    for (int k = 0; k < count; k++) {
        family_of(dirac_model_parameter_name(m, k), sorted[k].family, sizeof sorted[k].family);
        sorted[k].index = k;
    }
    qsort(sorted, (size_t)count, sizeof *sorted, by_family);
    int rc = 0;
    for (int first = 0, last = 0; first < count && rc == 0; first = last) {
        int n = 0;
        for (last = first; last < count && !strcmp(sorted[last].family, sorted[first].family);
             last++)
            members[n++] = sorted[last].index;
        int keeps = keeps_variables(a, m, &l, members, n);
        for (int j = 0; j < n; j++)
            tunable[members[j]] = keeps == 1;
        if (keeps == 0 && n > 1 && n <= 64)
            for (int j = 0; j < n && rc == 0; j++) {
                int one = keeps_variables(a, m, &l, &members[j], 1);
                tunable[members[j]] = one == 1;
                rc = one < 0 ? -1 : 0;
            }
        rc = keeps < 0 ? -1 : rc;
    }
    free(sorted), free(members);
    return rc;
}

// The model's files relative to the model file's directory (components must lie below it).
static int relative_name(const char *root, const char *file, const char **out)
{
    const char *slash = strrchr(root, '/');
    size_t dir = slash ? (size_t)(slash - root) + 1 : 0;
    if (dir == 0) {
        *out = file;
        return file[0] != '/' && strncmp(file, "../", 3) != 0 ? 0 : -1;
    }
    if (strncmp(file, root, dir) != 0 || strstr(file + dir, "../"))
        return -1;
    *out = file + dir;
    return 0;
}

static int write_source(const char *path, const dirac_spec *spec, const export_args *a,
                        const fmu_layout *l, const char *guid, const unsigned char *tunable)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int files = dirac_spec_file_count(spec);
    const char *root = dirac_spec_file(spec, 0);
    fprintf(f, "// Generated by `dirac export fmu`: the model's files and the export's settings.\n"
               "#include \"fmu_model.h\"\n\nconst int dirac_fmu_file_count = %d;\n", files);
    for (int k = 0; k < files; k++) {
        const char *text = NULL;
        size_t size = 0;
        text = dirac_spec_file_text(spec, k, &size);
        fprintf(f, "static const char file%d[] = {", k);
        for (size_t j = 0; j < size; j++)
            fprintf(f, "%s%s%d", j ? "," : "", j % 24 ? "" : "\n    ",
                    (int)(signed char)text[j]);
        fprintf(f, "%s0 };\n", size ? ",\n    " : "");
    }
    fprintf(f, "const char *const dirac_fmu_file_name[] = {\n");
    for (int k = 0; k < files; k++) {
        const char *name = dirac_spec_file(spec, k), *rel = NULL;
        relative_name(root, name, &rel);
        fputs("    ", f);
        c_string(f, rel);
        fputs(",\n", f);
    }
    fprintf(f, "};\nconst char *const dirac_fmu_file_text[] = {");
    for (int k = 0; k < files; k++)
        fprintf(f, " file%d,", k);
    fprintf(f, " };\nconst size_t dirac_fmu_file_size[] = {");
    for (int k = 0; k < files; k++) {
        size_t size = 0;
        dirac_spec_file_text(spec, k, &size);
        fprintf(f, " %zu,", size);
    }
    fprintf(f, " };\nconst int dirac_fmu_override_count = %d;\n"
               "const char *const dirac_fmu_override[] = {", a->override_count);
    for (int k = 0; k < a->override_count; k++) {
        fputc(' ', f);
        c_string(f, a->overrides[k]);
        fputc(',', f);
    }
    fprintf(f, " NULL };\nconst char dirac_fmu_guid[] = \"%s\";\nconst char dirac_fmu_method[] = ",
            guid);
    c_string(f, a->method ? a->method : "");
    fprintf(f, ";\nconst double dirac_fmu_dt = %.17g;\n"
               "const fmu_layout dirac_fmu_layout = { %d, %d, %d, %d, %d, %d };\n",
            a->dt, l->parameters, l->inputs, l->n, l->m, l->ns, l->outputs);
    fprintf(f, "const unsigned char dirac_fmu_tunable[] = {");
    for (int k = 0; k < l->parameters; k++)
        fprintf(f, " %d,", tunable[k]);
    fprintf(f, " 0 };\n");
    return fclose(f) == 0 ? 0 : -1;
}

// Runs argv (no shell); 0 if it exited with status 0.
static int run_program(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "dirac export: error: cannot run '%s'\n", argv[0]);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void remove_tree(const char *dir)
{
    char *const argv[] = { "rm", "-rf", (char *)dir, NULL };
    run_program(argv);
}

// The static archives that replace the shared libraries libdirac links (--static-lapack):
// each LIB.so's LIB.a beside it, with what the archives need in turn (SuiteSparse's AMD,
// COLAMD, BTF and config for KLU). Debian's libopenblas.a is position-independent, so it links
// into a shared object; the reference LAPACK's archives are not, and neither is
// libgfortran.a (its asynchronous I/O), so OpenBLAS's Fortran runtime stays the shared
// libgfortran.so.5. The names go to out[0..]; returns their count, or -1 after naming a
// missing archive.
#define MAX_ARCHIVES 16
static int static_archives(char out[][1024])
{
    char deps[4096];
    snprintf(deps, sizeof deps, "%s", DIRAC_FMI_DEPENDENCIES);   // "|"-separated
    int n = 0;
    char *save = NULL;
    for (char *dep = strtok_r(deps, "|", &save); dep && n < MAX_ARCHIVES - 6;
         dep = strtok_r(NULL, "|", &save)) {
        size_t len = strlen(dep);
        if (dep[0] == '-' || len < 3 || strcmp(dep + len - 3, ".so") != 0) {
            snprintf(out[n++], 1024, "%s", dep);   // a flag such as -lm
            continue;
        }
        const char *slash = strrchr(dep, '/');
        int dir = slash ? (int)(slash - dep) : 0;
        const char *base = slash ? slash + 1 : dep;
        const char *also[6] = { NULL };
        if (!strcmp(base, "libklu.so")) {
            const char *suitesparse[] = { "libamd.a", "libcolamd.a", "libbtf.a",
                                          "libsuitesparseconfig.a", NULL };
            memcpy(also, suitesparse, sizeof suitesparse);
        }
        snprintf(out[n++], 1024, "%.*s.a", (int)len - 3, dep);
        for (int k = 0; also[k]; k++)
            snprintf(out[n++], 1024, "%.*s/%s", dir, dep, also[k]);
        if (strstr(base, "openblas"))
            snprintf(out[n++], 1024, "-lgfortran");   // its runtime stays shared (see above)
    }
    for (int k = 0; k < n; k++)
        if (out[k][0] != '-' && !exists(out[k])) {
            fprintf(stderr, "dirac export: error: --static-lapack: no static archive '%s' (the "
                            "Debian packages libopenblas-dev, liblapacke-dev and "
                            "libsuitesparse-dev hold them)\n", out[k]);
            return -1;
        }
    snprintf(out[n++], 1024, "-lpthread");
    return n;
}

static int build_fmu(const export_args *a, const dirac_spec *spec, const dirac_model *m,
                     const char *out)
{
    toolchain tc;
    if (find_toolchain(&tc))
        return bad_input("cannot find the FMU runtime (fmu_instance.c) and libdirac.a next to this "
                         "dirac (build tree or installation)"), EXIT_FAILED;
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(m, &d);
    double dt = a->dt > 0 ? a->dt : d.has_dt ? d.dt : 0;
    if (!(dt > 0))
        return bad_input("model '%s' has no step size: give one with --dt or in its simulate "
                         "line", dirac_model_name(m));
    // identifier: the model's name as a C identifier
    char id[200];
    snprintf(id, sizeof id, "%s", dirac_model_name(m));
    for (char *c = id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    if (id[0] >= '0' && id[0] <= '9')
        id[0] = '_';
    const char *root = dirac_spec_file(spec, 0);
    unsigned long long h = 14695981039346656037ULL;
    for (int k = 0; k < dirac_spec_file_count(spec); k++) {
        const char *text = NULL, *rel = NULL;
        size_t size = 0;
        const char *name = dirac_spec_file(spec, k);
        text = dirac_spec_file_text(spec, k, &size);
        if (relative_name(root, name, &rel))
            return bad_input("component file '%s' is not below the directory of '%s': an FMU "
                             "keeps the model's files relative to it", name, root);
        h = fnv(fnv(h, rel, strlen(rel) + 1), text, size);
    }
    for (int k = 0; k < a->override_count; k++)
        h = fnv(h, a->overrides[k], strlen(a->overrides[k]) + 1);
    h = fnv(h, &dt, sizeof dt);
    h = fnv(h, &a->fmi, sizeof a->fmi);
    if (a->method)
        h = fnv(h, a->method, strlen(a->method));
    unsigned long long h2 = fnv(h, dirac_version(), strlen(dirac_version()));
    char guid[64];
    snprintf(guid, sizeof guid, "{%08llx-%04llx-%04llx-%04llx-%012llx}", h >> 32,
             (h >> 16) & 0xffff, h & 0xffff, h2 >> 48, h2 & 0xffffffffffffULL);

    char tmp[1024];
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/dirac-export-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp))
        return bad_input("cannot create a temporary directory"), EXIT_FAILED;
    char fmu_dir[1100], bin_dir[1200], source[1100], so[1500], xml[1300], map[1100];
    snprintf(fmu_dir, sizeof fmu_dir, "%s/fmu", tmp);
    snprintf(bin_dir, sizeof bin_dir, "%s/binaries/%s", fmu_dir,
             a->fmi == 3 ? FMI3_PLATFORM : "linux64");
    snprintf(source, sizeof source, "%s/model.c", tmp);
    snprintf(map, sizeof map, "%s/exports.map", tmp);
    snprintf(so, sizeof so, "%s/%s.so", bin_dir, id);
    snprintf(xml, sizeof xml, "%s/modelDescription.xml", fmu_dir);
    char binaries[1200];
    snprintf(binaries, sizeof binaries, "%s/binaries", fmu_dir);
    int rc = 0;
    fmu_layout l = fmu_layout_of(m);
    unsigned char *tunable = calloc((size_t)l.parameters + 1, 1);
    if (!tunable || find_tunable(a, m, tunable)) {
        free(tunable);
        remove_tree(tmp);
        fputs("dirac export: error: out of memory\n", stderr);
        return EXIT_FAILED;
    }
    FILE *mf = NULL;
    if (mkdir(fmu_dir, 0700) || mkdir(binaries, 0700) || mkdir(bin_dir, 0700) ||
        write_source(source, spec, a, &l, guid, tunable) ||
        write_description(xml, m, a->fmi, id, guid, dt, d.has_t_end ? d.t_end : 0, tunable) ||
        !(mf = fopen(map, "w"))) {
        rc = bad_input("cannot write the FMU's files in '%s'", tmp);
    } else {
        // only the fmiN functions are visible: libdirac inside stays private to the FMU
        fprintf(mf, "{ global: fmi%d*; local: *; };\n", a->fmi);
        fclose(mf);
    }
    free(tunable);
    char include_runtime[4200], include_dirac[4200], version_script[4300], runtime[4200];
    char instance[4200];
    snprintf(include_runtime, sizeof include_runtime, "-I%s", tc.runtime);
    snprintf(include_dirac, sizeof include_dirac, "-I%s", tc.include);
    snprintf(version_script, sizeof version_script, "-Wl,--version-script=%s", map);
    snprintf(runtime, sizeof runtime, "%s/fmu_fmi%d.c", tc.runtime, a->fmi);
    snprintf(instance, sizeof instance, "%s/fmu_instance.c", tc.runtime);
    const char *cc = getenv("CC");
    if (!rc) {
        char *argv[64];
        int n = 0;
        argv[n++] = (char *)(cc && *cc ? cc : "cc");
        const char *fixed[] = { "-std=c11", "-O2", "-fPIC", "-shared", "-ffp-contract=off" };
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
            argv[n++] = (char *)fixed[k];
        argv[n++] = include_runtime;
        argv[n++] = include_dirac;
        argv[n++] = source;
        argv[n++] = instance;
        argv[n++] = runtime;
        argv[n++] = tc.library;
        // the libraries libdirac was linked with, shared or (--static-lapack) static
        static char deps[4096], archives[MAX_ARCHIVES][1024];
        snprintf(deps, sizeof deps, "%s", DIRAC_FMI_DEPENDENCIES);   // "|"-separated
        int count = a->static_lapack ? static_archives(archives) : 0;
        if (count < 0)
            rc = EXIT_BAD_INPUT;
        for (int k = 0; k < count; k++)
            argv[n++] = archives[k];
        if (a->static_lapack)
            argv[n++] = "-Wl,--exclude-libs,ALL";   // their symbols stay private too
        for (char *dep = a->static_lapack ? NULL : strtok(deps, "|"); dep && n < 56;
             dep = strtok(NULL, "|"))
            argv[n++] = dep[0] == '/' || dep[0] == '-' ? dep : NULL;
        int k = 0;   // drop the NULLs of names that are not paths or flags, then add -lm
        for (int j = 0; j < n; j++)
            if (argv[j])
                argv[k++] = argv[j];
        n = k;
        argv[n++] = "-lm";
        if (DIRAC_FMI_SANITIZE[0])
            argv[n++] = (char *)DIRAC_FMI_SANITIZE;
        argv[n++] = version_script;
        argv[n++] = "-o";
        argv[n++] = so;
        argv[n] = NULL;
        if (!rc && run_program(argv))
            rc = EXIT_FAILED, fprintf(stderr, "dirac export: error: compiling the FMU's shared "
                                              "object failed (see the compiler's messages)\n");
    }
    if (!rc) {
        char absolute[4096];
        if (out[0] == '/') {
            snprintf(absolute, sizeof absolute, "%s", out);
        } else {
            char cwd[2048];
            if (!getcwd(cwd, sizeof cwd))
                cwd[0] = '\0';
            snprintf(absolute, sizeof absolute, "%s/%s", cwd, out);
        }
        remove(absolute);
        pid_t pid = fork();
        if (pid == 0) {
            if (chdir(fmu_dir) != 0)
                _exit(126);
            execlp("zip", "zip", "-q", "-r", "-X", absolute, "modelDescription.xml", "binaries",
                   (char *)NULL);
            fprintf(stderr, "dirac export: error: cannot run 'zip' (Debian package zip)\n");
            _exit(127);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "dirac export: error: writing '%s' with zip failed\n", out);
            rc = EXIT_FAILED;
        }
    }
    remove_tree(tmp);
    return rc;
}

int cli_export(int argc, char **argv)
{
    export_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status status = dirac_spec_load(a.path, &spec);
    for (int k = 0; status == DIRAC_OK && k < a.override_count; k++)
        status = dirac_spec_set_parameter(spec, a.overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    if (status != DIRAC_OK) {
        fputs(spec ? dirac_spec_errmsg(spec) : "dirac export: error: out of memory\n", stderr);
        dirac_spec_destroy(spec);
        return status == DIRAC_ERR_NOMEM ? EXIT_FAILED : EXIT_BAD_INPUT;
    }
    char default_out[512];
    if (!a.out) {
        snprintf(default_out, sizeof default_out, "%s.fmu", dirac_model_name(model));
        a.out = default_out;
    }
    rc = build_fmu(&a, spec, model, a.out);
    if (!rc)
        fprintf(stderr, "dirac export: %s: FMI %d.0 co-simulation FMU in %s\n",
                dirac_model_name(model), a.fmi, a.out);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return rc;
}
