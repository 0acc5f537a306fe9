// libFuzzer harness: parses the input as a model file (and, when that works, tries a
// parameter override taken from the input's last line, expands indexed families (with a small
// size limit), then compiles the model, analyses it,
// prints its equations and simulates a few steps). Checks the invariants every parse
// must keep: a status, a message exactly when it failed, in the documented format, and
// expression trees in postorder. Build and run with fuzz/run.sh.
#include "spec.h"
#include "spec_api.h"

#include <dirac/dirac.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Compile, analyse, print and step: every failure must be a status with a message.
static void compile_and_step(spec *s)
{
    dirac_spec handle = { s };
    dirac_model *model = NULL;
    if (dirac_model_compile(&handle, &model) != DIRAC_OK) {
        if (spec_errmsg(s)[0] == '\0')
            abort();
        return;
    }
    dirac_model_analysis analysis;
    dirac_error err;
    if (dirac_model_analyze(model, &analysis, &err) == DIRAC_OK)
        dirac_model_analysis_free(&analysis);
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        dirac_model_write_equations(model, DIRAC_EQUATIONS_TEXT, sink, &err);
        dirac_model_write_equations(model, DIRAC_EQUATIONS_LATEX, sink, &err);
        fclose(sink);
    }
    dirac_sim_options options = { .method = "midpoint", .dt = 1e-2, .project_initial = 1 };
    dirac_sim *sim = NULL;
    if (dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK) {
        for (int k = 0; k < 5; k++)
            if (dirac_sim_step(sim) != DIRAC_OK) {
                if (dirac_sim_errmsg(sim)[0] == '\0')
                    abort();
                break;
            }
        dirac_sim_destroy(sim);
    } else if (err.message[0] == '\0') {
        abort();
    }
    dirac_model_destroy(model);
}

static void check_expr(const spec_expr *e)
{
    for (int i = 0; i < e->count; i++) {
        const spec_expr_node *n = &e->nodes[i];
        int kids = n->kind == SPEC_EXPR_UNARY ? 1 : n->kind == SPEC_EXPR_BINARY ? 2
                   : n->kind == SPEC_EXPR_CALL ? n->argc : 0;
        for (int k = 0; k < kids; k++)
            if (!(n->u.arg[k] >= e->nodes && n->u.arg[k] < n))
                abort();
        if (n->loc.line < 1 || n->loc.col < 1)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spec *s = NULL;
    dirac_status st = spec_parse_buffer("fuzz.dirac", (const char *)data, size, NULL, &s);
    if (!s)
        return 0;
    const char *msg = spec_errmsg(s);
    if (st == DIRAC_OK) {
        if (msg[0] != '\0')
            abort();
        const spec_model *m = spec_root(s);
        if (!m)
            abort();
        for (int i = 0; i < m->param_count; i++)
            check_expr(&m->params[i].value);
        for (int i = 0; i < m->let_count; i++)
            check_expr(&m->lets[i].value);
        for (int i = 0; i < m->lagrangian_count; i++)
            check_expr(&m->lagrangian[i].value);
        for (int i = 0; i < m->constraint_count; i++) {
            check_expr(&m->constraints[i].lhs);
            check_expr(&m->constraints[i].rhs);
        }
        // an override from the last line of the input
        const char *end = (const char *)data + size, *line = end;
        while (line > (const char *)data && line[-1] != '\n')
            line--;
        char buf[128];
        size_t n = (size_t)(end - line) < sizeof buf - 1 ? (size_t)(end - line) : sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = '\0';
        if (spec_set_parameter_override(s, buf) != DIRAC_OK &&
            strncmp(spec_errmsg(s), "error: ", 7) != 0)
            abort();
        if (spec_status(s) == DIRAC_OK) {
            // families stay small: the fuzzer looks for bugs, not for large models
            spec_set_expansion_limit(s, 20000);
            dirac_status expanded = spec_expand(s);
            if ((expanded == DIRAC_OK) != (spec_errmsg(s)[0] == '\0'))
                abort();
            if (expanded == DIRAC_OK)
                compile_and_step(s);
        }
    } else {
        if (st != DIRAC_ERR_PARSE && st != DIRAC_ERR_NOMEM)
            abort();
        // "fuzz.dirac:LINE:COL: error: " or "error: "
        if (st == DIRAC_ERR_PARSE && strncmp(msg, "fuzz.dirac:", 11) != 0 &&
            strncmp(msg, "error: ", 7) != 0)
            abort();
        if (st == DIRAC_ERR_PARSE && !strstr(msg, ": error: "))
            abort();
    }
    spec_destroy(s);
    return 0;
}
