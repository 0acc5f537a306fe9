// Indexed families of the model language (docs/model-language.md, "Indexed families"):
// spec_expand turns them into the model one would write out by hand. Each indexed model here
// is compared with its written-out twin (names x_1 for x[1], x_1_2 for x[1,2]), statement by
// statement and node by node, and through the compiled model's equations; then the errors
// (with their locations), -p overrides, components, limits, allocation failures, the fuzz
// seeds, and the time of a 10^5-coordinate expansion.
#include "mem_files.h"
#include "parse.h"
#include "spec_api.h"
#include "parse_util.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

// --- helpers -------------------------------------------------------------------------------

// Parses text (file name t.dirac), applies the overrides, expands; the spec (caller destroys).
static spec *expand_text(const char *text, const char *const *overrides, int n_overrides,
                         dirac_status *status)
{
    spec *s = parse_text(text, status);
    for (int k = 0; *status == DIRAC_OK && k < n_overrides; k++)
        *status = spec_set_parameter_override(s, overrides[k]);
    if (*status == DIRAC_OK)
        *status = spec_expand(s);
    return s;
}

// Twin spelling of an expanded name: x[1] -> x_1, u[1][2] -> u_1_2, cell[3].q -> cell_3.q.
static void twin_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < size; p++)
        if (*p == '[')
            out[n++] = '_';
        else if (*p != ']')
            out[n++] = *p;
    out[n] = '\0';
}

// The same for every NAME[INTEGER]... in a text (printed equations).
static char *twin_text(const char *text)
{
    size_t len = strlen(text);
    char *out = malloc(len + 1), *o = out;
    for (const char *p = text; *p; p++) {
        if (*p == '[' && p > text && (p[-1] == '_' || p[-1] == ']' ||
                                      (p[-1] >= '0' && p[-1] <= '9') ||
                                      (p[-1] >= 'a' && p[-1] <= 'z') ||
                                      (p[-1] >= 'A' && p[-1] <= 'Z'))) {
            const char *q = p + 1;
            while ((*q >= '0' && *q <= '9') || *q == '-')
                q++;
            if (*q == ']' && q > p + 1) {
                *o++ = '_';
                memcpy(o, p + 1, (size_t)(q - p - 1));
                o += q - p - 1;
                p = q;
                continue;
            }
        }
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

static int compare_twins = 1;   // 0: compare two indexed models (names as they are)

static int same_name(const char *indexed, const char *twin)
{
    char buf[256];
    if (compare_twins)
        twin_name(indexed, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%s", indexed);
    if (strcmp(buf, twin) != 0) {
        fprintf(stderr, "  names differ: '%s' (as '%s') vs '%s'\n", indexed, buf, twin);
        return 0;
    }
    return 1;
}

// Node-by-node equality (postorder arrays of the same shape are the same tree).
static int same_expr(const spec_expr *a, const spec_expr *b, const char *what)
{
    if (a->count != b->count) {
        fprintf(stderr, "  %s: %d nodes vs %d\n", what, a->count, b->count);
        return 0;
    }
    for (int32_t i = 0; i < a->count; i++) {
        const spec_expr_node *x = &a->nodes[i], *y = &b->nodes[i];
        int ok = x->kind == y->kind && x->op == y->op && x->argc == y->argc;
        if (ok && x->kind == SPEC_EXPR_NUMBER)
            ok = x->u.number == y->u.number;
        if (ok && (x->kind == SPEC_EXPR_NAME || x->kind == SPEC_EXPR_PRIME))
            ok = same_name(x->u.sym.name, y->u.sym.name) && x->u.sym.ref.kind == y->u.sym.ref.kind &&
                 x->u.sym.ref.index == y->u.sym.ref.index &&
                 x->u.sym.ref.member == y->u.sym.ref.member;
        if (ok && (x->kind == SPEC_EXPR_UNARY || x->kind == SPEC_EXPR_BINARY ||
                   x->kind == SPEC_EXPR_CALL))
            for (int k = 0; k < 2; k++)
                ok = ok && (x->u.arg[k] ? x->u.arg[k] - a->nodes : -1) ==
                               (y->u.arg[k] ? y->u.arg[k] - b->nodes : -1);
        if (!ok) {
            fprintf(stderr, "  %s: node %d differs (kinds %d, %d)\n", what, i, x->kind, y->kind);
            return 0;
        }
    }
    return 1;
}

static int same_ref(const spec_name_ref *a, const spec_name_ref *b)
{
    return same_name(a->name, b->name) && a->ref.kind == b->ref.kind &&
           a->ref.index == b->ref.index;
}

#define SAME_COUNT(a, b, field)                                                             \
    do {                                                                                    \
        if ((a)->field != (b)->field) {                                                     \
            fprintf(stderr, "  %s: %d vs %d\n", #field, (a)->field, (b)->field);            \
            return 0;                                                                       \
        }                                                                                   \
    } while (0)

// The expanded indexed model equals the twin (names mapped).
static int same_model(const spec_model *a, const spec_model *b)
{
    SAME_COUNT(a, b, param_count);
    SAME_COUNT(a, b, coord_count);
    SAME_COUNT(a, b, let_count);
    SAME_COUNT(a, b, lagrangian_count);
    SAME_COUNT(a, b, constraint_count);
    SAME_COUNT(a, b, force_count);
    SAME_COUNT(a, b, initial_count);
    SAME_COUNT(a, b, setting_count);
    SAME_COUNT(a, b, output_count);
    SAME_COUNT(a, b, component_count);
    SAME_COUNT(a, b, twoform_count);
    SAME_COUNT(a, b, entropy_count);
    SAME_COUNT(a, b, friction_count);
    SAME_COUNT(a, b, heat_count);
    SAME_COUNT(a, b, heat_input_count);
    int ok = 1;
    for (int i = 0; i < a->param_count; i++)
        ok &= same_name(a->params[i].name, b->params[i].name) &&
              same_expr(&a->params[i].value, &b->params[i].value, "parameter");
    for (int i = 0; i < a->coord_count; i++)
        ok &= same_name(a->coords[i].name, b->coords[i].name);
    for (int i = 0; i < a->entropy_count; i++)
        ok &= same_name(a->entropies[i].name, b->entropies[i].name);
    for (int i = 0; i < a->let_count; i++)
        ok &= same_name(a->lets[i].name, b->lets[i].name) &&
              same_expr(&a->lets[i].value, &b->lets[i].value, "let") &&
              a->lets[i].velocity_degree == b->lets[i].velocity_degree &&
              !a->lets[i].state_use == !b->lets[i].state_use;
    for (int i = 0; i < a->lagrangian_count; i++)
        ok &= same_expr(&a->lagrangian[i].value, &b->lagrangian[i].value, "lagrangian");
    for (int i = 0; i < a->constraint_count; i++) {
        const spec_constraint *x = &a->constraints[i], *y = &b->constraints[i];
        ok &= same_name(x->name, y->name) && x->has_rhs == y->has_rhs && x->kind == y->kind &&
              same_expr(&x->lhs, &y->lhs, "constraint") && same_expr(&x->rhs, &y->rhs, "rhs");
    }
    for (int i = 0; i < a->force_count; i++)
        ok &= same_ref(&a->forces[i].coord, &b->forces[i].coord) &&
              same_expr(&a->forces[i].value, &b->forces[i].value, "force");
    for (int i = 0; i < a->initial_count; i++)
        ok &= same_ref(&a->initials[i].var, &b->initials[i].var) &&
              a->initials[i].velocity == b->initials[i].velocity &&
              same_expr(&a->initials[i].value, &b->initials[i].value, "initial");
    for (int i = 0; i < a->setting_count; i++)
        ok &= strcmp(a->settings[i].key, b->settings[i].key) == 0 &&
              same_expr(&a->settings[i].value, &b->settings[i].value, "setting");
    for (int i = 0; i < a->output_count; i++)
        ok &= same_name(a->outputs[i].name, b->outputs[i].name) &&
              same_expr(&a->outputs[i].value, &b->outputs[i].value, "output");
    for (int i = 0; i < a->component_count; i++) {
        const spec_component *x = &a->components[i], *y = &b->components[i];
        ok &= same_name(x->name, y->name) && strcmp(x->model_name, y->model_name) == 0 &&
              x->arg_count == y->arg_count && x->model && y->model &&
              x->model->coord_count == y->model->coord_count;
        for (int k = 0; ok && k < x->arg_count; k++)
            ok &= strcmp(x->args[k].name, y->args[k].name) == 0 &&
                  same_expr(&x->args[k].value, &y->args[k].value, "argument");
    }
    for (int i = 0; i < a->twoform_count; i++) {
        const spec_twoform *x = &a->twoforms[i], *y = &b->twoforms[i];
        ok &= same_name(x->name, y->name) && x->term_count == y->term_count;
        for (int k = 0; ok && k < x->term_count; k++)
            ok &= x->terms[k].sign == y->terms[k].sign &&
                  same_ref(&x->terms[k].a, &y->terms[k].a) &&
                  same_ref(&x->terms[k].b, &y->terms[k].b) &&
                  same_expr(&x->terms[k].coefficient, &y->terms[k].coefficient, "coefficient");
    }
    for (int i = 0; i < a->friction_count; i++)
        ok &= same_ref(&a->frictions[i].coord, &b->frictions[i].coord) &&
              same_ref(&a->frictions[i].entropy, &b->frictions[i].entropy) &&
              same_expr(&a->frictions[i].value, &b->frictions[i].value, "friction");
    for (int i = 0; i < a->heat_count; i++)
        ok &= same_ref(&a->heats[i].a, &b->heats[i].a) && same_ref(&a->heats[i].b, &b->heats[i].b) &&
              same_expr(&a->heats[i].value, &b->heats[i].value, "heat");
    for (int i = 0; i < a->heat_input_count; i++)
        ok &= same_ref(&a->heat_inputs[i].entropy, &b->heat_inputs[i].entropy) &&
              same_expr(&a->heat_inputs[i].value, &b->heat_inputs[i].value, "heat input");
    // the name tables: same names, kinds and indices in the same order
    SAME_COUNT(a->names, b->names, count);
    for (int i = 0; i < a->names->count; i++) {
        const spec_symbol *x = &a->names->items[i], *y = &b->names->items[i];
        ok &= same_name(x->name, y->name) && x->kind == y->kind && x->index == y->index &&
              x->dims == 0 && y->dims == 0;
    }
    return ok;
}

// The equations `dirac check` prints (text), for a spec that compiles; NULL otherwise.
static char *equations(spec *s)
{
    dirac_spec handle = { .parsed = s };
    dirac_model *model = NULL;
    if (spec_expand(s) != DIRAC_OK || dirac_model_compile(&handle, &model) != DIRAC_OK) {
        fprintf(stderr, "%s", spec_errmsg(s));
        return NULL;
    }
    FILE *f = tmpfile();
    dirac_error err;
    char *text = NULL;
    if (f && dirac_model_write_equations(model, DIRAC_EQUATIONS_TEXT, f, &err) == DIRAC_OK) {
        long len = ftell(f);
        rewind(f);
        text = calloc((size_t)len + 1, 1);
        if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
            free(text);
            text = NULL;
        }
    }
    if (f)
        fclose(f);
    dirac_model_destroy(model);
    return text;
}

// The indexed model and its twin give the same expanded spec and the same equations.
static void check_twin(const char *indexed, const char *twin)
{
    dirac_status st1, st2;
    spec *a = expand_text(indexed, NULL, 0, &st1);
    spec *b = expand_text(twin, NULL, 0, &st2);
    ENSURE_EQ_INT(st1, DIRAC_OK);
    ENSURE_EQ_INT(st2, DIRAC_OK);
    if (st1 != DIRAC_OK)
        fprintf(stderr, "%s", spec_errmsg(a));
    if (st2 != DIRAC_OK)
        fprintf(stderr, "%s", spec_errmsg(b));
    if (st1 == DIRAC_OK && st2 == DIRAC_OK) {
        ENSURE(same_model(spec_root(a), spec_root(b)));
        char *ea = equations(a), *eb = equations(b);
        ENSURE(ea && eb);
        if (ea && eb) {
            char *mapped = twin_text(ea);
            ENSURE(strcmp(mapped, eb) == 0);
            if (strcmp(mapped, eb) != 0)
                fprintf(stderr, "indexed:\n%s\ntwin:\n%s\n", mapped, eb);
            free(mapped);
        }
        free(ea);
        free(eb);
    }
    spec_destroy(a);
    spec_destroy(b);
}

// --- twins ---------------------------------------------------------------------------------

static const char *chain =
    "model chain\n"
    "parameter N = 4\n"
    "parameter m = 1, g = 9.81, l = 1, c = 0.1\n"
    "coordinate x[N], y[N]\n"
    "lagrangian sum(i = 1..N, m/2*(x[i]'^2 + y[i]'^2) - m*g*y[i])\n"
    "constraint rod: x[1]^2 + y[1]^2 = l^2\n"
    "constraint link[i = 2..N]: (x[i] - x[i-1])^2 + (y[i] - y[i-1])^2 = l^2\n"
    "force x[i = 1..N]: -c*x[i]'\n"
    "initial x[i = 1..N] = i*l, y[i = 1..N] = 0\n"
    "output r[i = 1..N] = sqrt(x[i]^2 + y[i]^2)\n"
    "simulate method = midpoint, dt = 1e-3, t_end = 1\n";

// the twin of `chain` for N = n, written out
static char *chain_twin(int n)
{
    size_t cap = 4096 + 400 * (size_t)n, len = 0;
    char *t = malloc(cap);
#define PUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
    PUT("model chain\nparameter N = %d\nparameter m = 1, g = 9.81, l = 1, c = 0.1\n", n);
    PUT("coordinate ");
    for (int i = 1; i <= n; i++)
        PUT("x_%d, ", i);
    for (int i = 1; i <= n; i++)
        PUT("y_%d%s", i, i < n ? ", " : "\n");
    PUT("lagrangian ");
    for (int i = 1; i <= n; i++)
        PUT("(m/2*(x_%d'^2 + y_%d'^2) - m*g*y_%d)%s", i, i, i, i < n ? " + " : "\n");
    PUT("constraint rod: x_1^2 + y_1^2 = l^2\n");
    for (int i = 2; i <= n; i++)
        PUT("constraint link_%d: (x_%d - x_%d)^2 + (y_%d - y_%d)^2 = l^2\n", i, i, i - 1, i,
            i - 1);
    for (int i = 1; i <= n; i++)
        PUT("force x_%d: -c*x_%d'\n", i, i);
    PUT("initial ");
    for (int i = 1; i <= n; i++)
        PUT("x_%d = %d*l, ", i, i);
    for (int i = 1; i <= n; i++)
        PUT("y_%d = 0%s", i, i < n ? ", " : "\n");
    for (int i = 1; i <= n; i++)
        PUT("output r_%d = sqrt(x_%d^2 + y_%d^2)\n", i, i, i);
    PUT("simulate method = midpoint, dt = 1e-3, t_end = 1\n");
#undef PUT
    return t;
}

static void test_twin_chain(void)
{
    char *twin = chain_twin(4);
    check_twin(chain, twin);
    free(twin);
}

// every kind of statement, several indices, triangular ranges, families of parameters and lets
static const char *sink =
    "model sink\n"
    "parameter N = 3, nx = 2, ny = 3\n"
    "parameter m = 1, k = 2, c = 0.1, kappa = 0.5, B0 = 0.3\n"
    "parameter w[i = 1..N] = k*i^2\n"
    "coordinate x[N]\n"
    "coordinate u[nx, ny]\n"
    "entropy S[N]\n"
    "let d[i = 1..N-1] = x[i+1] - x[i]\n"
    "lagrangian sum(i = 1..N, m/2*x[i]'^2 - exp(S[i])) - sum(i = 1..N-1, w[i]/2*d[i]^2)\n"
    "lagrangian sum(i = 1..nx, j = 1..ny, u[i,j]'^2/2) -\n"
    "           sum(i = 1..nx, j = i+1..ny, u[i,j]*u[i,j-1])\n"
    "constraint pin[j = 1..ny]: u[1,j] = 0.1*j\n"
    "constraint roll: x[1]' = x[2]'*u[2,1]\n"
    "force x[i = 2..N]: -c*x[i]'\n"
    "friction x[i = 1..N] -> S[i]: -c*x[i]'\n"
    "heat S[i = 1..N-1], S[i+1]: kappa\n"
    "heat_input S[N]: 0.01\n"
    "twoform B[i = 1..N-1]: B0*i * d(x[i]) ^ d(x[i+1])\n"
    "initial x[i = 1..N] = 0.5*i, x[i = 1..N]' = 0, S[i = 1..N] = 1,\n"
    "        u[i = 1..nx, j = 1..ny] = 0.01*(i + j)\n"
    "output e[i = 1..N] = m/2*x[i]'^2\n"
    "output pair[i = 1..N, j = i+1..N] = x[j] - x[i]\n";

static const char *sink_twin =
    "model sink\n"
    "parameter N = 3, nx = 2, ny = 3\n"
    "parameter m = 1, k = 2, c = 0.1, kappa = 0.5, B0 = 0.3\n"
    "parameter w_1 = k*1^2, w_2 = k*2^2, w_3 = k*3^2\n"
    "coordinate x_1, x_2, x_3\n"
    "coordinate u_1_1, u_1_2, u_1_3, u_2_1, u_2_2, u_2_3\n"
    "entropy S_1, S_2, S_3\n"
    "let d_1 = x_2 - x_1, d_2 = x_3 - x_2\n"
    "lagrangian ((m/2*x_1'^2 - exp(S_1)) + (m/2*x_2'^2 - exp(S_2)) + (m/2*x_3'^2 - exp(S_3)))"
    " - (w_1/2*d_1^2 + w_2/2*d_2^2)\n"
    "lagrangian ((u_1_1'^2/2 + u_1_2'^2/2 + u_1_3'^2/2) + (u_2_1'^2/2 + u_2_2'^2/2 + "
    "u_2_3'^2/2)) - ((u_1_2*u_1_1 + u_1_3*u_1_2) + u_2_3*u_2_2)\n"
    "constraint pin_1: u_1_1 = 0.1*1\n"
    "constraint pin_2: u_1_2 = 0.1*2\n"
    "constraint pin_3: u_1_3 = 0.1*3\n"
    "constraint roll: x_1' = x_2'*u_2_1\n"
    "force x_2: -c*x_2'\n"
    "force x_3: -c*x_3'\n"
    "friction x_1 -> S_1: -c*x_1'\n"
    "friction x_2 -> S_2: -c*x_2'\n"
    "friction x_3 -> S_3: -c*x_3'\n"
    "heat S_1, S_2: kappa\n"
    "heat S_2, S_3: kappa\n"
    "heat_input S_3: 0.01\n"
    "twoform B_1: B0*1 * d(x_1) ^ d(x_2)\n"
    "twoform B_2: B0*2 * d(x_2) ^ d(x_3)\n"
    "initial x_1 = 0.5*1, x_2 = 0.5*2, x_3 = 0.5*3, x_1' = 0, x_2' = 0, x_3' = 0,\n"
    "        S_1 = 1, S_2 = 1, S_3 = 1,\n"
    "        u_1_1 = 0.01*(1 + 1), u_1_2 = 0.01*(1 + 2), u_1_3 = 0.01*(1 + 3),\n"
    "        u_2_1 = 0.01*(2 + 1), u_2_2 = 0.01*(2 + 2), u_2_3 = 0.01*(2 + 3)\n"
    "output e_1 = m/2*x_1'^2\n"
    "output e_2 = m/2*x_2'^2\n"
    "output e_3 = m/2*x_3'^2\n"
    "output pair_1_2 = x_2 - x_1\n"
    "output pair_1_3 = x_3 - x_1\n"
    "output pair_2_3 = x_3 - x_2\n";

static void test_twin_everything(void)
{
    check_twin(sink, sink_twin);
}

// --- components ----------------------------------------------------------------------------

static mem_files files = { .dir = "models" };

static void write_file(const char *name, const char *text)
{
    ENSURE(mem_files_write(&files, name, text) == 0);
}

static spec *load(const char *name, const char *const *overrides, int n, dirac_status *st)
{
    char path[256];
    mem_files_path(&files, name, path, sizeof path);
    spec *s = NULL;
    *st = spec_load_file_with(path, NULL, mem_files_read, &files, &s);
    for (int k = 0; *st == DIRAC_OK && k < n; k++)
        *st = spec_set_parameter_override(s, overrides[k]);
    if (*st == DIRAC_OK)
        *st = spec_expand(s);
    return s;
}

static void setup_components(void)
{
    if (files.count)
        return;
    write_file("lc_cell.dirac", "model lc_cell\nparameter L = 1, C = 1\ncoordinate q\n"
                                "lagrangian L/2*q'^2\n");
    write_file("seg.dirac", "model seg\nparameter n = 2, k = 1\nparameter w[i = 1..n] = k*i\n"
                            "coordinate x[n]\n"
                            "lagrangian sum(i = 1..n, x[i]'^2/2 - w[i]*x[i]^2/2)\n"
                            "initial x[i = 1..n] = 0.1*i\n");
    write_file("line.dirac",
               "model line\n"
               "parameter N = 3, L0 = 1e-3, C0 = 1e-6\n"
               "component cell[i = 1..N] = lc_cell(L = L0, C = C0*(1 + 0.01*i))\n"
               "lagrangian sum(i = 1..N-1, -(cell[i+1].q - cell[i].q)^2/(2*cell[i].C))\n"
               "initial cell[i = 1..N].q = 1e-6*i, cell[1].q' = 0.5\n"
               "force cell[i = 2..N].q: -0.1*cell[i].q'\n");
    write_file("line_twin.dirac",
               "model line\n"
               "parameter N = 3, L0 = 1e-3, C0 = 1e-6\n"
               "component cell_1 = lc_cell(L = L0, C = C0*(1 + 0.01*1))\n"
               "component cell_2 = lc_cell(L = L0, C = C0*(1 + 0.01*2))\n"
               "component cell_3 = lc_cell(L = L0, C = C0*(1 + 0.01*3))\n"
               "lagrangian -(cell_2.q - cell_1.q)^2/(2*cell_1.C) + "
               "-(cell_3.q - cell_2.q)^2/(2*cell_2.C)\n"
               "initial cell_1.q = 1e-6*1, cell_2.q = 1e-6*2, cell_3.q = 1e-6*3, cell_1.q' = 0.5\n"
               "force cell_2.q: -0.1*cell_2.q'\n"
               "force cell_3.q: -0.1*cell_3.q'\n");
    write_file("two.dirac",
               "model two\n"
               "parameter M = 3\n"
               "component a = seg(n = M) from \"seg.dirac\"\n"
               "component b = seg(n = 2*M, k = 2) from \"seg.dirac\"\n"
               "component p[j = 1..2] = seg(n = j) from \"seg.dirac\"\n"
               "constraint glue: a.x[M] = b.x[1]\n"
               "constraint glue2[i = 1..2]: p[i].x[i] = b.x[i+1]\n"
               "output last = b.x[2*M]\n");
}

static void test_components(void)
{
    setup_components();
    // a family of components and its twin
    dirac_status st1, st2;
    spec *a = load("line.dirac", NULL, 0, &st1), *b = load("line_twin.dirac", NULL, 0, &st2);
    ENSURE_EQ_INT(st1, DIRAC_OK);
    ENSURE_EQ_INT(st2, DIRAC_OK);
    if (st1 == DIRAC_OK && st2 == DIRAC_OK) {
        ENSURE(same_model(spec_root(a), spec_root(b)));
        char *ea = equations(a), *eb = equations(b);
        ENSURE(ea && eb);
        if (ea && eb) {
            char *mapped = twin_text(ea);
            ENSURE(strcmp(mapped, eb) == 0);
            free(mapped);
        }
        free(ea);
        free(eb);
    } else {
        fprintf(stderr, "%s%s", spec_errmsg(a), spec_errmsg(b));
    }
    spec_destroy(a);
    spec_destroy(b);
    // a component model with families, expanded per instance (its size set by arguments and
    // overrides); elements inside components named from outside
    const char *overrides[] = { "M=4", "b.w[8]=5", "p[2].k=7" };
    a = load("two.dirac", overrides, 3, &st1);
    ENSURE_EQ_INT(st1, DIRAC_OK);
    const spec_model *m = spec_root(a);
    if (st1 == DIRAC_OK && m) {
        ENSURE_EQ_INT(m->component_count, 4);
        ENSURE(strcmp(m->components[2].name, "p[1]") == 0);
        ENSURE_EQ_INT(m->components[0].model->coord_count, 4);   // a: n = M = 4
        ENSURE_EQ_INT(m->components[1].model->coord_count, 8);   // b: n = 2*M
        ENSURE_EQ_INT(m->components[2].model->coord_count, 1);   // p[1]: n = 1
        ENSURE_EQ_INT(m->components[3].model->coord_count, 2);
        ENSURE(strcmp(m->constraints[0].rhs.nodes[0].u.sym.name, "b.x[1]") == 0);
        ENSURE(strcmp(m->constraints[0].lhs.nodes[0].u.sym.name, "a.x[4]") == 0);
        ENSURE(strcmp(m->constraints[2].lhs.nodes[0].u.sym.name, "p[2].x[2]") == 0);
        ENSURE(strcmp(m->outputs[0].value.nodes[0].u.sym.name, "b.x[8]") == 0);
        const spec_model *bm = m->components[1].model;
        ENSURE(bm->params[2 + 7].overridden && bm->params[2 + 7].override_value == 5);
        dirac_spec handle = { .parsed = a };
        dirac_model *model = NULL;
        ENSURE_EQ_INT(dirac_model_compile(&handle, &model), DIRAC_OK);
        ENSURE_EQ_INT(dirac_model_coordinate_count(model), 4 + 8 + 1 + 2);
        ENSURE(strcmp(dirac_model_coordinate_name(model, 4 + 7), "b.x[8]") == 0);
        dirac_model_destroy(model);
    }
    spec_destroy(a);
    // element overrides inside components are checked against the instance's ranges
    const char *bad[] = { "b.w[12]=5" };
    a = load("two.dirac", bad, 1, &st1);
    ENSURE_EQ_INT(st1, DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(a), "error: parameter override 'b.w[12]': index 12 is out of "
                                      "range for 'w' (1..6)");
    spec_destroy(a);
    const char *bad2[] = { "p[3].k=5" };
    a = load("two.dirac", bad2, 1, &st1);
    ENSURE_FIRST_LINE(spec_errmsg(a), "error: parameter override 'p[3].k': index 3 is out of "
                                      "range for 'p' (1..2)");
    spec_destroy(a);
    // an index out of range inside a component instance names the instance
    write_file("three.dirac", "model three\ncomponent s = seg(n = 2) from \"seg.dirac\"\n"
                              "constraint c: s.x[3] = 0\n");
    a = load("three.dirac", NULL, 0, &st1);
    ENSURE_EQ_INT(st1, DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(spec_errmsg(a), "three.dirac:3:19: error: index 3 is out of range for 'x' "
                                    "(1..2)");
    spec_destroy(a);
    mem_files_clear(&files);
}

// --- errors --------------------------------------------------------------------------------

#define HEAD "model m\nparameter N = 3\ncoordinate x[N]\nlagrangian sum(i = 1..N, x[i]'^2)\n"

// spec_expand fails with `first` as the first line of its messages
static void ensure_expand_error(const char *text, const char *const *overrides, int n,
                                const char *first)
{
    dirac_status st;
    spec *s = expand_text(text, overrides, n, &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(s), first);
    spec_destroy(s);
}

static void test_expansion_errors(void)
{
    ensure_expand_error(HEAD "constraint c[i = 1..N]: x[i+1] = 0\n", NULL, 0,
                        "t.dirac:5:27: error: index 4 is out of range for 'x' (1..3), with i = 3");
    ensure_expand_error(HEAD "constraint c[i = 2..N-3]: x[i] = 0\n", NULL, 0,
                        "t.dirac:5:14: error: reversed range 2..0 (the upper bound is below the "
                        "lower bound)");
    ensure_expand_error(HEAD "constraint c[i = 2..N-2]: x[i] = 0\n", NULL, 0,
                        "t.dirac:5:14: error: empty range 2..1 (a range needs at least one "
                        "index)");
    ensure_expand_error(HEAD "constraint c[i = 1..N/2]: x[i] = 0\n", NULL, 0,
                        "t.dirac:5:21: error: range bound 1.5 is not an integer");
    ensure_expand_error(HEAD "constraint c[i = N/2..N]: x[i] = 0\n", NULL, 0,
                        "t.dirac:5:18: error: range bound 1.5 is not an integer");
    ensure_expand_error(HEAD "constraint c: sum(j = 1..N, x[j/2]) = 0\n", NULL, 0,
                        "t.dirac:5:31: error: index 0.5 is not an integer, with j = 1");
    ensure_expand_error(HEAD "constraint c: sum(j = 2..1, x[j]) = 0\n", NULL, 0,
                        "t.dirac:5:19: error: empty range 2..1 (a range needs at least one "
                        "index)");
    ensure_expand_error(HEAD "constraint c: sum(j = 1..N, sum(k = j..N-4, x[k])) = 0\n", NULL,
                        0, "t.dirac:5:33: error: reversed range 1..-1 (the upper bound is below "
                           "the lower bound), with j = 1");
    ensure_expand_error(HEAD "coordinate y[N, 0]\n", NULL, 0,
                        "t.dirac:5:17: error: empty range 1..0 (a range needs at least one "
                        "index)");
    ensure_expand_error(HEAD "constraint c: x[-1000000001] = 0\n", NULL, 0,
                        "t.dirac:5:18: error: index -1000000001 is too large (at most 1000000000 "
                        "in magnitude)");
    ensure_expand_error(HEAD "parameter p[i = 1..N] = i\nconstraint c: x[p[2]] = p[4]\n", NULL,
                        0, "t.dirac:6:27: error: index 4 is out of range for 'p' (1..3)");
    ensure_expand_error(HEAD "parameter u[i = 1..2, j = 1..N] = i\nconstraint c: u[1, 4] = 0\n",
                        NULL, 0, "t.dirac:6:20: error: index 4 is out of range for 'u' (its "
                                 "index 2 runs over 1..3)");
    ensure_expand_error(HEAD "entropy S[N]\nheat S[i = 1..N], S[4-i]: 1\n", NULL, 0,
                        "t.dirac:6:19: error: heat exchange needs two different entropy "
                        "variables");
    ensure_expand_error(HEAD "twoform B[i = 1..N]: d(x[i]) ^ d(x[4-i])\n", NULL, 0,
                        "t.dirac:5:34: error: d(x[2]) ^ d(x[2]) is zero: a two-form term needs "
                        "two different coordinates");
    ensure_expand_error(HEAD "initial x[i = 1..N] = 0, x[2] = 1\n", NULL, 0,
                        "t.dirac:5:26: error: duplicate initial value for x[2]");
    // -p changes the ranges
    const char *zero[] = { "N=0" }, *half[] = { "N=2.5" }, *huge[] = { "N=1e12" };
    ensure_expand_error(HEAD, zero, 1, "t.dirac:3:14: error: empty range 1..0 (a range needs at "
                                       "least one index)");
    ensure_expand_error(HEAD, half, 1, "t.dirac:3:14: error: range bound 2.5 is not an integer");
    ensure_expand_error(HEAD, huge, 1, "t.dirac:3:14: error: range bound 1000000000000 is too "
                                       "large (at most 1000000000 in magnitude)");
    ensure_expand_error(chain, (const char *const[]){ "N=1" }, 1,
                        "t.dirac:7:17: error: empty range 2..1 (a range needs at least one "
                        "index)");
    // element overrides
    ensure_expand_error(HEAD "parameter k[i = 1..N] = i\n", (const char *const[]){ "k[4]=1" },
                        1, "error: parameter override 'k[4]': index 4 is out of range for 'k' "
                           "(1..3)");
    // the size limit
    dirac_status st;
    spec *s = parse_text(chain, &st);
    spec_set_expansion_limit(s, 100);
    ENSURE_EQ_INT(spec_expand(s), DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(spec_errmsg(s), "error: the expanded model is too large (more than 100 "
                                    "elements, expression nodes and model instances");
    spec_destroy(s);
    s = parse_text(HEAD, &st);
    spec_set_expansion_limit(s, 1000);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "N=2000"), DIRAC_OK);
    ENSURE_EQ_INT(spec_expand(s), DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:3:12: error: 'x' would have 2000 elements: the "
                                      "expanded model is too large (more than 1000 elements and "
                                      "expression nodes)");
    spec_destroy(s);
}

static void test_parse_errors(void)
{
    ENSURE_PARSE_ERROR(HEAD "constraint c: x = 0\n",
                       "t.dirac:5:15: error: 'x' is indexed: write x[INDEX]");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1,2] = 0\n",
                       "t.dirac:5:15: error: 'x' has 1 index, not 2");
    ENSURE_PARSE_ERROR(HEAD "parameter q = 2\nconstraint c: q[1] = 0\n",
                       "t.dirac:6:15: error: 'q' is a parameter without indices (write q, not "
                       "q[...])");
    ENSURE_PARSE_ERROR(HEAD "constraint c[i = 1..N]: sum(i = 1..2, x[i]) = 0\n",
                       "t.dirac:5:29: error: index 'i' is already in use here");
    ENSURE_PARSE_ERROR(HEAD "parameter i = 2\n",
                       "t.dirac:4:16: error: index 'i' has the same name as a parameter; rename "
                       "one of them");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[sum(j=1..2, j)] = 0\n",
                       "t.dirac:5:17: error: sum(...) cannot be used in an index");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[x[1]] = 0\n",
                       "t.dirac:5:17: error: an index must be constant but depends on "
                       "coordinate 'x[...]'");
    ENSURE_PARSE_ERROR(HEAD "coordinate y[x[1]]\n",
                       "t.dirac:5:14: error: a range bound must be constant but depends on "
                       "coordinate 'x[...]'");
    ENSURE_PARSE_ERROR(HEAD "parameter k[i = 1..N] = k[i-1]\n",
                       "t.dirac:5:25: error: 'k' is used in its own definition");
    ENSURE_PARSE_ERROR(HEAD "coordinate z[i = 1..N, j = 1..i]\n",
                       "t.dirac:5:31: error: the ranges of 'z' cannot depend on the index 'i' (a "
                       "family of values has a fixed size)");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sum(j = 1..N x[j]) = 0\n",
                       "t.dirac:5:28: error: expected an operator before 'x'");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sum(j = 1..N, x[j], 2) = 0\n",
                       "t.dirac:5:33: error: sum() takes its ranges and one expression: "
                       "sum(i = LO..HI, EXPR)");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sum(j, x[j]) = 0\n",
                       "t.dirac:5:19: error: expected an index range after 'sum(' (sum(i = "
                       "1..N, EXPR)), found 'j'");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sum(j = 1, x[j]) = 0\n",
                       "t.dirac:5:24: error: expected '..' in the range of sum(i = LO..HI, EXPR)");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1 = 0\n",
                       "t.dirac:5:19: error: unexpected '=' inside brackets");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1\n",
                       "t.dirac:5:16: error: unbalanced brackets: '[' is not closed");
    ENSURE_PARSE_ERROR(HEAD "constraint c: (x[1)] = 0\n",
                       "t.dirac:5:17: error: unbalanced brackets: '[' is not closed");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1]] = 0\n",
                       "t.dirac:5:19: error: unexpected ']' after the constraint statement");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[i] = 0\n",
                       "t.dirac:5:17: error: unknown name 'i'; did you mean 'pi'?");
    ENSURE_PARSE_ERROR(HEAD "output o = sum(i = 1..N, i'*2)\n",
                       "t.dirac:5:26: error: 'i' is an index; it has no velocity");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1]''' = 0\n",
                       "t.dirac:5:18: error: only first and second time derivatives (x', x'') "
                       "can be written");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1]'' = 0\n",
                       "t.dirac:5:15: error: the acceleration x[...]'' can be used only in "
                       "outputs (it is a result of the simulation, like mu.C)");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x'[1] = 0\n",
                       "t.dirac:5:15: error: the prime of an element goes after its brackets: "
                       "x[...]'");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sum(t = 1..2, x[t]) = 0\n",
                       "t.dirac:5:19: error: 't' is reserved for time and cannot be an index");
    ENSURE_PARSE_ERROR(HEAD "parameter sum = 1\n",
                       "t.dirac:5:11: error: 'sum' is a built-in function and cannot be "
                       "defined");
    ENSURE_PARSE_ERROR(HEAD "force x[1]': 0\n",
                       "t.dirac:5:10: error: expected the coordinate the force acts on, found a "
                       "velocity");
    ENSURE_PARSE_ERROR(HEAD "twoform B: d(x[i = 1..2]) ^ d(x[1])\n",
                       "t.dirac:5:16: error: an index range is not allowed here (write an "
                       "index, as in x[i+1])");
    ENSURE_PARSE_ERROR(HEAD "coordinate y[N]'\n",
                       "t.dirac:5:15: error: the name of a coordinate cannot have a prime");
    ENSURE_PARSE_ERROR(HEAD "coordinate y[1..N\n",
                       "t.dirac:5:13: error: unbalanced brackets: '[' is not closed");
    ENSURE_PARSE_ERROR(HEAD "coordinate y[i = 1]\n",
                       "t.dirac:5:19: error: expected '..' in the index range (i = LO..HI), "
                       "found ']'");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1,2,3,4,5,6,7,8,9] = 0\n",
                       "t.dirac:5:32: error: too many indices (limit 8)");
    ENSURE_PARSE_ERROR(HEAD "let r[i = 1..N] = x[i]^2\nconstraint c: r = 1\n",
                       "t.dirac:6:15: error: 'r' is indexed: write r[INDEX]");
    ENSURE_PARSE_ERROR(HEAD "constraint c: y[1] = 0\n",
                       "t.dirac:5:15: error: unknown name 'y'");
    ENSURE_PARSE_ERROR(HEAD "force x: 1\n",
                       "t.dirac:5:7: error: 'x' is indexed: write x[INDEX] or x[i = LO..HI]");
    ENSURE_PARSE_ERROR(HEAD "constraint c[i = 1..N]: x[i]'^i = 0\n",
                       "t.dirac:5:30: error: constraint 'c' is not linear in the velocities: "
                       "it raises a velocity to a power");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x[1] = rot.q[1]\n",
                       "t.dirac:5:22: error: unknown name 'rot'");
    ENSURE_PARSE_ERROR("model m\ncomponent c[2] = w\nlagrangian c.q\n",
                       "t.dirac:3:12: error: 'c' is indexed: write c[INDEX].q");
    ENSURE_PARSE_ERROR("model m\ncomponent c[2] = w\nlagrangian c[1].q + c[i = 1..2].q\n",
                       "t.dirac:3:25: error: unexpected '=' inside brackets");
}

// --- overrides -----------------------------------------------------------------------------

static void test_overrides(void)
{
    // N from the command line
    const char *seven[] = { "N=7" };
    dirac_status st;
    spec *s = expand_text(chain, seven, 1, &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    const spec_model *m = spec_root(s);
    ENSURE(m && m->coord_count == 14 && m->constraint_count == 7 && m->force_count == 7);
    ENSURE(m && strcmp(m->coords[13].name, "y[7]") == 0);
    ENSURE(m && strcmp(m->constraints[6].name, "link[7]") == 0);
    // expanded once: a second call does nothing, overrides are refused afterwards
    ENSURE_EQ_INT(spec_expand(s), DIRAC_OK);
    ENSURE(spec_root(s) == m);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "N=3"), DIRAC_ERR_ARGUMENT);
    ENSURE_FIRST_LINE(spec_errmsg(s), "error: cannot set 'N': parameters cannot be changed "
                                      "after the model's families were expanded (set them "
                                      "before compiling)");
    spec_destroy(s);
    // elements of families of parameters
    const char *text = HEAD "parameter k[i = 1..N, j = 1..2] = i + j\n"
                            "force x[i = 1..N]: -k[i, 1]*x[i]'\n";
    const char *el[] = { "k[2, 1] = 7.5", "N=4" };
    s = expand_text(text, el, 2, &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    int count;
    const spec_override *o = spec_overrides(s, &count);
    ENSURE(count == 2 && strcmp(o[0].name, "k[2][1]") == 0);
    m = spec_root(s);
    ENSURE(m && m->param_count == 1 + 8 && strcmp(m->params[3].name, "k[2][1]") == 0 &&
           m->params[3].overridden && m->params[3].override_value == 7.5);
    char *eq = equations(s);
    ENSURE_CONTAINS(eq, "d/dt p.x[2] = -7.5*x[2]'");
    ENSURE_CONTAINS(eq, "d/dt p.x[4] = -5*x[4]'");
    free(eq);
    spec_destroy(s);
    // the override's syntax and dimensions
    s = parse_text(text, &st);
    struct {
        const char *arg, *message;
    } cases[] = {
        { "k=1", "error: 'k' is indexed: set one element at a time, as in k[1][1]=VALUE\n" },
        { "k[1]=1", "error: 'k' has 2 indices, not 1 (in 'k[1]=1')\n" },
        { "N[1]=1", "error: 'N' is a parameter without indices (in 'N[1]=1')\n" },
        { "k[1,x]=1", "error: invalid parameter override 'k[1,x]=1': expected NAME[INDEX, "
                      "...]=VALUE\n" },
        { "k[1,2=1", "error: invalid parameter override 'k[1,2=1': expected NAME[INDEX, "
                     "...]=VALUE\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ENSURE_EQ_INT(spec_set_parameter_override(s, cases[i].arg), DIRAC_ERR_ARGUMENT);
        if (strcmp(spec_errmsg(s), cases[i].message) != 0) {
            fprintf(stderr, "override '%s': got '%s', want '%s'\n", cases[i].arg, spec_errmsg(s),
                    cases[i].message);
            ENSURE(0);
        }
    }
    spec_destroy(s);
}

// --- the model language around families -------------------------------------------------------

static void test_forms(void)
{
    // ranges with a lower bound, several ranges per statement, negative indices, empty inner
    // ranges (that depend on another index) and empty sums
    const char *text =
        "model forms\n"
        "parameter N = 3\n"
        "coordinate x[0..N], y[-1..1]\n"
        "lagrangian sum(i = 0..N, x[i]'^2) + sum(j = -1..1, y[j]'^2) +\n"
        "           sum(i = 0..N, sum(j = i+1..N, x[i]*x[j]))\n"
        "constraint c[i = 1..N, j = i+1..N]: x[i] = x[j]\n"
        "output o[i = 0..N] = sum(j = i+1..N, x[j])\n";
    dirac_status st;
    spec *s = expand_text(text, NULL, 0, &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    const spec_model *m = spec_root(s);
    if (m) {
        ENSURE_EQ_INT(m->coord_count, 7);
        ENSURE(strcmp(m->coords[0].name, "x[0]") == 0 && strcmp(m->coords[4].name, "y[-1]") == 0);
        ENSURE_EQ_INT(m->constraint_count, 3);
        ENSURE(strcmp(m->constraints[2].name, "c[2][3]") == 0);
        ENSURE_EQ_INT(m->output_count, 4);
        // o[3] is the empty sum: 0
        ENSURE(m->outputs[3].value.count == 1 && m->outputs[3].value.nodes[0].kind ==
                                                     SPEC_EXPR_NUMBER &&
               m->outputs[3].value.nodes[0].u.number == 0);
    }
    spec_destroy(s);
    // u[i][j] is u[i, j], in declarations, references, targets and overrides
    const char *commas = "model m\nparameter n = 2\ncoordinate u[n, n + 1]\n"
                         "parameter k[i = 1..n, j = 1..2] = i*j\n"
                         "lagrangian sum(i = 1..n, j = 1..n+1, u[i, j]'^2*k[i, 1])\n"
                         "force u[i = 1..n, 2]: -u[i, 1]\ninitial u[2, 3] = 1\n";
    const char *brackets = "model m\nparameter n = 2\ncoordinate u[n][n + 1]\n"
                           "parameter k[i = 1..n][j = 1..2] = i*j\n"
                           "lagrangian sum(i = 1..n, j = 1..n+1, u[i][j]'^2*k[i][1])\n"
                           "force u[i = 1..n][2]: -u[i][1]\ninitial u[2][3] = 1\n";
    const char *one[] = { "k[2, 1]=5" }, *other[] = { "k[2][1]=5" };
    spec *c1 = expand_text(commas, one, 1, &st), *c2 = expand_text(brackets, other, 1, &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    compare_twins = 0;
    ENSURE(spec_root(c1) && spec_root(c2) && same_model(spec_root(c1), spec_root(c2)));
    compare_twins = 1;
    ENSURE(spec_root(c2) && strcmp(spec_root(c2)->coords[5].name, "u[2][3]") == 0);
    ENSURE(spec_root(c2) && spec_root(c2)->params[3].overridden);
    spec_destroy(c1);
    spec_destroy(c2);
    // continuation lines inside brackets and after '..'
    ENSURE_PARSES("model m\nparameter N = 2\ncoordinate x[1..\n N]\n"
                  "lagrangian sum(i = 1..N,\n x[i\n ]'^2)\n");
    // a model without families is left as it is
    s = parse_text("model m\ncoordinate x\nlagrangian x'^2\n", &st);
    const spec_model *before = spec_root(s);
    ENSURE_EQ_INT(spec_expand(s), DIRAC_OK);
    ENSURE(spec_root(s) == before);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "x=1"), DIRAC_ERR_ARGUMENT);   // still allowed
    spec_destroy(s);
    // a spec with errors is not expanded
    s = parse_text(HEAD "constraint c: q = 0\n", &st);
    ENSURE_EQ_INT(spec_expand(s), DIRAC_ERR_PARSE);
    spec_destroy(s);
}

// --- allocation failures -----------------------------------------------------------------------

static void test_out_of_memory(void)
{
    // every allocation of the expansion fails in turn: the status says so, nothing leaks
    int failures = 0;
    for (long n = 0; n < 100000; n++) {
        dirac_status st;
        spec *s = parse_text(sink, &st);
        ENSURE_EQ_INT(st, DIRAC_OK);
        s->mem.fail_after = s->mem.calls + n;
        st = spec_expand(s);
        s->mem.fail_after = -1;
        if (st == DIRAC_OK) {
            ENSURE(spec_root(s) && spec_root(s)->coord_count == 9);
            spec_destroy(s);
            break;
        }
        ENSURE_EQ_INT(st, DIRAC_ERR_NOMEM);
        failures++;
        spec_destroy(s);
    }
    ENSURE(failures > 20);
    // and in the parser
    for (long n = 1; n < 100000; n++) {
        spec_options opt = { 0, n };
        spec *s = NULL;
        dirac_status st = spec_parse_buffer("t.dirac", sink, strlen(sink), &opt, &s);
        spec_destroy(s);
        if (st == DIRAC_OK)
            break;
        ENSURE_EQ_INT(st, DIRAC_ERR_NOMEM);
    }
}

// --- fuzz seeds ----------------------------------------------------------------------------

static void test_fuzz_seeds(void)
{
    // the indexed seeds of the fuzzer parse, expand and compile (or fail with a message)
    const char *seeds[] = { "indexed_chain.dirac", "indexed_lattice.dirac",
                            "indexed_thermo.dirac", "indexed_errors.dirac" };
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fuzz/corpus/%s", DIRAC_SOURCE_DIR, seeds[k]);
        spec *s = NULL;
        dirac_status st = spec_load_file(path, NULL, &s);
        if (st == DIRAC_OK)
            st = spec_expand(s);
        if (st == DIRAC_OK) {
            dirac_spec handle = { .parsed = s };
            dirac_model *model = NULL;
            st = dirac_model_compile(&handle, &model);
            dirac_model_destroy(model);
        }
        if (strstr(seeds[k], "errors"))
            ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
        else
            ENSURE_EQ_INT(st, DIRAC_OK);
        ENSURE((st == DIRAC_OK) == (spec_errmsg(s)[0] == '\0'));
        if (st != DIRAC_OK && !strstr(seeds[k], "errors"))
            fprintf(stderr, "%s: %s", seeds[k], spec_errmsg(s));
        spec_destroy(s);
    }
}

// --- scale ---------------------------------------------------------------------------------

static double cpu_seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static void test_scale(void)
{
    // 10^5 links: 2*10^5 coordinates, 10^5 constraints, a 10^5-term Lagrangian
    const char *n[] = { "N=100000" };
    double t0 = cpu_seconds();
    dirac_status st;
    spec *s = expand_text(chain, n, 1, &st);
    double t = cpu_seconds() - t0;
    ENSURE_EQ_INT(st, DIRAC_OK);
    const spec_model *m = spec_root(s);
    ENSURE(m && m->coord_count == 200000 && m->constraint_count == 100000 &&
           m->force_count == 100000 && m->initial_count == 200000 && m->output_count == 100000);
    // each term has 17 nodes, joined by 10^5 - 1 additions
    ENSURE(m && m->lagrangian[0].value.count == 17 * 100000 + 99999);
    ENSURE(m && strcmp(m->constraints[99999].name, "link[100000]") == 0);
    printf("  parse + expand of N = 10^5 (%d coordinates): %.2f s CPU%s\n",
           m ? m->coord_count : 0, t, SANITIZED ? " (sanitizers)" : "");
    // Only a guard against super-linear expansion (a quadratic one takes hours at N = 10^5):
    // 0.5 s optimised and 2.6 s under the sanitizers on an idle machine; speed itself is
    // measured by bench/bench_scale, since CPU time on a loaded CI machine varies by 2-3x.
    ENSURE_LE(t, 30.0);
    spec_destroy(s);
}

TEST_MAIN(TEST(test_twin_chain), TEST(test_twin_everything), TEST(test_components),
          TEST(test_expansion_errors), TEST(test_parse_errors), TEST(test_overrides),
          TEST(test_forms), TEST(test_out_of_memory), TEST(test_fuzz_seeds), TEST(test_scale))
