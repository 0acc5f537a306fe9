// `dirac check MODEL [-p NAME=VALUE]... [--latex]`: parse, compile and report on a model.
// Exit status (exit_status.h): 0 a valid model (reported); 2 a bad model or arguments; 3 the
// analysis at the initial state failed; 4 out of memory.
#include "commands.h"
#include "exit_status.h"
#include "evaluation_report.h"
#include "memory_option.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <string.h>

static const char *plural(int count, const char *one, const char *many)
{
    return count == 1 ? one : many;
}

// A nonholonomic constraint's integrability, saying how it is known: symbolically (everywhere)
// or from the Frobenius defect max |dω(X, Y)| over X, Y in Δ at the initial state.
static void print_integrability(dirac_integrability verdict, double defect)
{
    switch (verdict) {
    case DIRAC_INTEGRABLE_CLOSED:
        printf("  integrable: d(omega) = 0 identically");
        break;
    case DIRAC_INTEGRABLE_FROBENIUS:
        printf("  integrable: omega ^ d(omega) = 0 identically");
        break;
    case DIRAC_NOT_INTEGRABLE:
        printf("  non-integrable (Frobenius defect %.3e at the initial state)", defect);
        break;
    case DIRAC_DEFECT_ZERO_AT_INITIAL_STATE:
        printf("  Frobenius defect %.3e: zero at the initial state, integrability elsewhere "
               "not shown", defect);
        break;
    default:
        break;
    }
}

static void print_report(const dirac_model *m, const dirac_model_analysis *a)
{
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m), nc = dirac_model_component_count(m);
    printf("model %s\n", dirac_model_name(m));
    printf("sizes: %d %s, %d %s, %d entropy %s, %d %s\n", n, plural(n, "coordinate", "coordinates"),
           mc, plural(mc, "constraint", "constraints"), ns, plural(ns, "variable", "variables"), nc,
           plural(nc, "component", "components"));
    cli_print_evaluation(stdout, m);
    if (mc > 0) {
        printf("constraints at the initial state (rank of the constraint forms: %d of %d):\n",
               a->constraint_rank, mc);
        for (int c = 0; c < mc; c++) {
            int holonomic = dirac_model_constraint_kind(m, c) == DIRAC_CONSTRAINT_HOLONOMIC;
            printf("  %-12s %-12s%s  residual %.3e  velocity residual %.3e", dirac_model_constraint_name(m, c),
                   holonomic ? "holonomic" : "nonholonomic",
                   dirac_model_constraint_is_time_dependent(m, c) ? " (time-dependent)" : "",
                   a->residual[c], a->velocity_residual[c]);
            if (!holonomic)
                print_integrability(a->integrability[c], a->integrability_defect[c]);
            printf("\n");
        }
        printf("constraint distribution: dimension %d\n", a->distribution_dim);
    }
    if (n > 0)
        printf("Lagrangian: %s (rank of d2L/dv2 = %d of %d)\n",
               a->velocity_hessian_rank == n ? "regular" : "degenerate", a->velocity_hessian_rank,
               n);
    if (a->subsystem_count > 0) {
        printf("interconnection: %d %s joined by %d %s; (D_1 + ... + D_k) (x) D_int vs the "
               "structure induced by L = sum L_i on (+ Delta_i) ^ Sigma: largest principal angle "
               "%.3e rad%s\n",
               a->subsystem_count, plural(a->subsystem_count, "part", "parts"),
               dirac_model_interaction_count(m),
               plural(dirac_model_interaction_count(m), "interaction", "interactions"),
               a->interconnection_angle, a->interconnection_angle <= 1e-12 ? " (equal)" : " (DIFFERENT)");
        for (int k = 0; k < dirac_model_interaction_count(m); k++) {
            int count = 0;
            const int *coords = dirac_model_interaction_coordinates(m, k, &count);
            printf("  interaction %s acts on", dirac_model_interaction_name(m, k));
            for (int j = 0; j < count; j++)
                printf(" %s", dirac_model_coordinate_name(m, coords[j]));
            printf("\n");
        }
    }
    printf("initial energy: E = %.17g\n", a->energy);
}

int cli_check(int argc, char **argv)
{
    const char *path = NULL;
    int latex = 0;
    const char *overrides[256];
    int n_overrides = 0;
    double max_model_memory = 0;   // the library's default
    dirac_codegen_mode codegen = DIRAC_CODEGEN_AUTO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--parameter")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "dirac check: error: %s needs NAME=VALUE\n", argv[i]);
                return EXIT_BAD_INPUT;
            }
            if (n_overrides == (int)(sizeof overrides / sizeof overrides[0])) {
                fprintf(stderr, "dirac check: error: too many -p options\n");
                return EXIT_BAD_INPUT;
            }
            overrides[n_overrides++] = argv[++i];
        } else if (!strcmp(argv[i], "--max-model-memory")) {
            if (i + 1 >= argc || cli_parse_bytes(argv[i + 1], &max_model_memory)) {
                fprintf(stderr, "dirac check: error: --max-model-memory needs a size in bytes "
                                "(suffixes K, M, G)\n");
                return EXIT_BAD_INPUT;
            }
            i++;
        } else if (!strcmp(argv[i], "--codegen")) {
            if (i + 1 >= argc || cli_parse_codegen(argv[i + 1], &codegen)) {
                fprintf(stderr, "dirac check: error: --codegen is 'auto' or 'off'\n");
                return EXIT_BAD_INPUT;
            }
            i++;
        } else if (!strcmp(argv[i], "--latex")) {
            latex = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "dirac check: error: unknown option '%s'\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (path) {
            fprintf(stderr, "dirac check: error: more than one model file given\n");
            return EXIT_BAD_INPUT;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "usage: dirac check MODEL [-p NAME=VALUE]... [--latex] "
                        "[--max-model-memory BYTES] [--codegen auto|off]\n");
        return EXIT_BAD_INPUT;
    }
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    int rc = 0;
    dirac_status status = dirac_spec_load(path, &spec);
    if (status == DIRAC_OK)
        status = dirac_spec_set_memory_limit(spec, max_model_memory);
    if (status == DIRAC_OK)
        status = dirac_spec_set_codegen(spec, codegen);
    for (int k = 0; status == DIRAC_OK && k < n_overrides; k++)
        status = dirac_spec_set_parameter(spec, overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    if (status != DIRAC_OK) {
        const char *msg = spec ? dirac_spec_errmsg(spec) : "";
        if (!*msg)
            msg = status == DIRAC_ERR_NOMEM ? "dirac check: error: out of memory"
                                            : dirac_status_string(status);
        fputs(msg, stderr);
        if (msg[strlen(msg) - 1] != '\n')
            fputc('\n', stderr);
        dirac_spec_destroy(spec);
        return cli_exit_of_input_status(status);
    }
    dirac_model_analysis analysis;
    dirac_error err;
    dirac_status analysed = dirac_model_analyze(model, &analysis, &err);
    if (analysed == DIRAC_ERR_UNSUPPORTED) {
        printf("model %s\nsizes: %d coordinates, %d constraints, %d entropy variables, %d "
               "components\n(analysis at the initial state skipped: %s)\n",
               dirac_model_name(model), dirac_model_coordinate_count(model),
               dirac_model_constraint_count(model), dirac_model_entropy_count(model),
               dirac_model_component_count(model), err.message);
        cli_print_evaluation(stdout, model);
    } else if (analysed != DIRAC_OK) {
        fprintf(stderr, "dirac check: error: %s\n",
                err.message[0] ? err.message : dirac_status_string(analysed));
        rc = analysed == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_FAILED;
    }
    if (analysed == DIRAC_OK) {
        print_report(model, &analysis);
        dirac_model_analysis_free(&analysis);
    }
    if (rc == 0) {
        printf("equations of motion:\n");
        fflush(stdout);
        dirac_status written = dirac_model_write_equations(
            model, latex ? DIRAC_EQUATIONS_LATEX : DIRAC_EQUATIONS_TEXT, stdout, &err);
        if (written != DIRAC_OK) {
            fprintf(stderr, "dirac check: error: %s\n",
                    err.message[0] ? err.message : dirac_status_string(written));
            rc = written == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_FAILED;
        } else if (fflush(stdout) == EOF || ferror(stdout)) {
            fprintf(stderr, "dirac check: error: writing the report failed\n");
            rc = EXIT_FAILED;
        }
    }
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return rc;
}
