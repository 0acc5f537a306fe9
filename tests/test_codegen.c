// Generated code (src/codegen*.c) against the evaluation tapes it replaces, on every example
// model: each group of expressions alone and the fused evaluation of a step, and whole
// trajectories. Also the fallbacks (no compiler, a failing compiler, DIRAC_CODEGEN=off, the
// option), the cache (a second compilation runs no compiler; a corrupt object is rebuilt) and
// several threads compiling the same model into an empty cache at once.
//
// Tolerances: the generated statements are the tape's IEEE operations in the same order, with
// the same libm calls and no contraction into fused multiply-adds (-ffp-contract=off), so the
// values agree bit for bit; each group is checked for exact equality. The trajectories are
// then equal bit for bit too, and are checked so: both runs go through the same Newton and
// linear-algebra code of this build, fed by groups that agree exactly (and the generated code
// calls the same libm in the same process), so any difference at all is a wrong statement,
// whatever the scale of the coordinate (an absolute allowance would hide a wrong statement in
// a circuit's charges of 1e-9).
#define _GNU_SOURCE   // mkdtemp, setenv, strdup
#include "harness.h"
#include "sim_run.h"
#include "text_file.h"

#include "model.h"

#include <dirac/dirac.h>

#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char cache_dir[64];

static void remove_cache(void);

// a new empty cache directory (the previous one, if any, removed)
static void fresh_cache(void)
{
    remove_cache();
    snprintf(cache_dir, sizeof cache_dir, "/tmp/dirac-test-codegen-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        ENSURE(!"mkdtemp");
        return;
    }
    setenv("DIRAC_CACHE_DIR", cache_dir, 1);
}

static void remove_cache(void)
{
    DIR *d = cache_dir[0] ? opendir(cache_dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(cache_dir);
    cache_dir[0] = '\0';
}

// files in the cache: objects (dirac-*.so) and anything else (left-over temporaries)
static void count_cache(int *objects, int *others)
{
    *objects = *others = 0;
    DIR *d = opendir(cache_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t len = strlen(e->d_name);
        if (!strncmp(e->d_name, "dirac-", 6) && len > 3 && !strcmp(e->d_name + len - 3, ".so"))
            (*objects)++;
        else
            (*others)++;
    }
    closedir(d);
}

static dirac_model *compile_text(const char *text, dirac_codegen_mode mode)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    if (dirac_spec_parse("m.dirac", text, strlen(text), &spec) == DIRAC_OK &&
        dirac_spec_set_codegen(spec, mode) == DIRAC_OK)
        dirac_model_compile(spec, &model);
    dirac_spec_destroy(spec);
    return model;
}

static dirac_model *compile_file(const char *path, dirac_codegen_mode mode)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    if (dirac_spec_load(path, &spec) == DIRAC_OK && dirac_spec_set_codegen(spec, mode) == DIRAC_OK)
        dirac_model_compile(spec, &model);
    dirac_spec_destroy(spec);
    return model;
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static const model_group *group_of(const dirac_model *m, int g)
{
    const model_group *groups[MODEL_CG_COUNT] = {
        &m->lagrangian_value,    &m->gradient,           &m->hessian.values,
        &m->constraint_values,   &m->constraint_forms.values, &m->constraint_rates,
        &m->constraint_jacobian.values, &m->form_curvature.values, &m->forces,
        &m->force_jacobian.values, &m->outputs,          &m->output_jacobian.values,
        &m->thermal,             &m->wedge_coefficients,
    };
    return groups[g];
}

// every group alone through the generated code against its tape, at points near the
// initial state; returns the number of values compared
static long compare_groups(const char *name, const dirac_model *m)
{
    test_rng rng = { 0x5eed + (uint64_t)strlen(name) };
    double *x = calloc((size_t)m->n_inputs + 1, sizeof *x);
    double *work = calloc((size_t)m->work_size + 1, sizeof *work);
    long compared = 0;
    for (int trial = 0; trial < 3 && x && work; trial++) {
        model_set_default_inputs(m, x);
        for (int i = 0; i < m->n; i++) {
            x[i] = m->q0[i] + 0.01 * test_rng_uniform(&rng, -1, 1);
            x[m->first_v + i] = m->v0[i] + 0.01 * test_rng_uniform(&rng, -1, 1);
        }
        for (int i = 0; i < m->ns; i++)
            x[m->first_s + i] = m->s0[i];
        x[m->index_t] = 0.25 * trial;
        for (int a = 0; a < m->m; a++)
            x[m->first_mu + a] = test_rng_uniform(&rng, -1, 1);
        for (int g = 0; g < MODEL_CG_COUNT; g++) {
            const model_group *group = group_of(m, g);
            if (group->count == 0)
                continue;
            // a group left to its tape (a long sum over a family) is the tape itself
            if (m->codegen_report.tape_groups & (1u << g)) {
                ENSURE(group->module == NULL);
                continue;
            }
            ENSURE(group->module != NULL);
            double *generated = calloc((size_t)group->count, sizeof *generated);
            double *taped = calloc((size_t)group->count, sizeof *taped);
            if (generated && taped && group->module) {
                model_group_eval(group, x, work, generated);
                expr_tape_eval(group->tape, x, work, taped);
                for (int k = 0; k < group->count; k++, compared++)
                    if (!same(generated[k], taped[k])) {
                        fprintf(stderr, "  %s: group %d value %d: generated %.17g, tape %.17g\n",
                                name, g, k, generated[k], taped[k]);
                        ENSURE(!"generated code equals the tape");
                        break;
                    }
            }
            free(generated);
            free(taped);
        }
    }
    free(x);
    free(work);
    return compared;
}

enum { TRAJECTORY_STEPS = 60 };

// the same run on both models; 1 if it ran on both
static int compare_trajectories(const char *name, const dirac_model *compiled,
                                const dirac_model *taped)
{
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(compiled, &d);
    dirac_sim_options o = { .method = d.has_method ? d.method : NULL,
                            .dt = d.has_dt ? d.dt : 1e-3, .project_initial = 1 };
    dirac_sim *a = NULL, *b = NULL;
    dirac_error err;
    if (dirac_sim_create(compiled, &o, &a, &err) != DIRAC_OK) {
        ENSURE(dirac_sim_create(taped, &o, &b, &err) != DIRAC_OK);   // fails alike
        dirac_sim_destroy(b);
        return 0;
    }
    ENSURE_EQ_INT(dirac_sim_create(taped, &o, &b, &err), DIRAC_OK);
    int n = dirac_model_coordinate_count(compiled);
    int ran = b != NULL;
    for (int step = 1; b && step <= TRAJECTORY_STEPS; step++) {
        dirac_status sa = dirac_sim_step(a), sb = dirac_sim_step(b);
        ENSURE_EQ_INT(sa, sb);
        if (sa != DIRAC_OK || sb != DIRAC_OK)
            break;
        ENSURE_EQ_INT(dirac_sim_newton_iterations(a), dirac_sim_newton_iterations(b));
        const double *qa = dirac_sim_q(a), *qb = dirac_sim_q(b);
        const double *va = dirac_sim_v(a), *vb = dirac_sim_v(b);
        for (int i = 0; i < n; i++) {
            if (!same(qa[i], qb[i]) || !same(va[i], vb[i])) {
                fprintf(stderr, "  %s step %d coordinate %d: q %.17g / %.17g, v %.17g / %.17g\n",
                        name, step, i, qa[i], qb[i], va[i], vb[i]);
                ENSURE(!"trajectories agree");
                step = TRAJECTORY_STEPS;
                break;
            }
        }
    }
    dirac_sim_destroy(a);
    dirac_sim_destroy(b);
    return ran;
}

static void every_example_both_paths(void)
{
    fresh_cache();
    const char *patterns[] = { DIRAC_SOURCE_DIR "/examples/*.dirac",
                               DIRAC_SOURCE_DIR "/examples/*/*.dirac" };
    int models = 0, runs = 0;
    long values = 0;
    for (int p = 0; p < 2; p++) {
        glob_t g;
        if (glob(patterns[p], 0, NULL, &g) != 0)
            continue;
        for (size_t f = 0; f < g.gl_pathc; f++) {
            dirac_model *taped = compile_file(g.gl_pathv[f], DIRAC_CODEGEN_OFF);
            if (!taped)
                continue;   // a component file, not a model of its own
            dirac_model *compiled = compile_file(g.gl_pathv[f], DIRAC_CODEGEN_AUTO);
            ENSURE(compiled != NULL);
            dirac_model_evaluation e;
            dirac_model_evaluation_info(taped, &e);
            ENSURE(!e.compiled);
            dirac_model_evaluation_info(compiled, &e);
            if (!e.compiled)
                fprintf(stderr, "  %s: %s\n", g.gl_pathv[f], e.reason);
            ENSURE(e.compiled);   // every example is small and a C compiler is installed
            if (compiled && e.compiled) {
                values += compare_groups(g.gl_pathv[f], compiled);
                runs += compare_trajectories(g.gl_pathv[f], compiled, taped);
                models++;
            }
            dirac_model_destroy(compiled);
            dirac_model_destroy(taped);
        }
        globfree(&g);
    }
    fprintf(stderr, "  %d example models, %ld group values equal, %d trajectories agree\n",
            models, values, runs);
    ENSURE(models >= 20);
    ENSURE(runs >= 15);
    remove_cache();
}

// Every row of the built-in function table (builtin_functions.h) as an output, and so its
// derivative in the outputs' Jacobian: the generated call (the row's c_call) against the tape
// at points inside and outside each domain (NaN equals NaN), exactly. A new row is checked
// without touching this test.
static void every_builtin_function_emitted(void)
{
    fresh_cache();
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text,
                                   "model functions\ncoordinate x, y\n"
                                   "lagrangian x'^2/2 + y'^2/2\ninitial x = 0.3, y = 0.8\n");
    int rows = 0;
#define OUTPUT(id, name, arity, ...)                                                           \
    used += (size_t)snprintf(text + used, sizeof text - used, "output f_%s = %s(x%s)\n", name, \
                             name, arity == 2 ? ", y" : "");                                  \
    rows++;
    BUILTIN_MATH_LIST(OUTPUT)
#undef OUTPUT
    ENSURE(used < sizeof text);
    dirac_model *m = compile_text(text, DIRAC_CODEGEN_AUTO);
    ENSURE(m != NULL);
    dirac_model_evaluation e;
    dirac_model_evaluation_info(m, &e);
    ENSURE(e.compiled);
    static const double xs[] = { -2.2, -0.45, 0.0, 0.3, 1.6 }, ys[] = { 0.8, -0.8, 0.0 };
    long compared = 0;
    double *x = m ? calloc((size_t)m->n_inputs, sizeof *x) : NULL;
    double *work = m ? calloc((size_t)m->work_size + 1, sizeof *work) : NULL;
    const model_group *groups[] = { m ? &m->outputs : NULL, m ? &m->output_jacobian.values : NULL };
    for (size_t g = 0; x && work && e.compiled && g < 2; g++) {
        double *generated = calloc((size_t)groups[g]->count, sizeof *generated);
        double *taped = calloc((size_t)groups[g]->count, sizeof *taped);
        for (size_t i = 0; generated && taped && i < sizeof xs / sizeof xs[0]; i++)
            for (size_t j = 0; j < sizeof ys / sizeof ys[0]; j++) {
                model_set_default_inputs(m, x);
                x[0] = xs[i];
                x[1] = ys[j];
                model_group_eval(groups[g], x, work, generated);
                expr_tape_eval(groups[g]->tape, x, work, taped);
                for (int k = 0; k < groups[g]->count; k++, compared++)
                    if (!same(generated[k], taped[k])) {
                        fprintf(stderr, "  group %zu value %d at (%g, %g): generated %.17g, "
                                "tape %.17g\n", g, k, xs[i], ys[j], generated[k], taped[k]);
                        ENSURE(!"generated code equals the tape");
                        break;
                    }
            }
        free(generated);
        free(taped);
    }
    ENSURE(m && m->output_count == rows);   // every function once
    ENSURE(compared > 0);
    free(x);
    free(work);
    dirac_model_destroy(m);
    remove_cache();
}

static const char pendulum[] =
    "model pendulum\nparameter m = 1, g = 9.81, l = 1\ncoordinate x, y\n"
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"
    "initial x = 0.6, y = -0.8\noutput angle = atan2(x, -y)\n";


static void second_compilation_is_cached(void)
{
    fresh_cache();
    dirac_model *first = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    dirac_model *second = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    dirac_model_evaluation a, b;
    dirac_model_evaluation_info(first, &a);
    dirac_model_evaluation_info(second, &b);
    ENSURE(a.compiled && !a.cached);
    ENSURE(b.compiled && b.cached);
    ENSURE_EQ_INT(a.reason[0], 0);
    // another parameter value: constants live in a table, so the code is the same object
    // (m = 1 would not: m*x simplifies to x; 1.5 and 3 both stay factors)
    static const char lighter[] =
        "model pendulum\nparameter m = 1.5, g = 9.81, l = 1\ncoordinate x, y\n"
        "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"
        "initial x = 0.6, y = -0.8\n";
    static const char heavier[] =
        "model pendulum\nparameter m = 3, g = 4.5, l = 1\ncoordinate x, y\n"
        "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"
        "initial x = 0.6, y = -0.8\n";
    dirac_model *third = compile_text(lighter, DIRAC_CODEGEN_AUTO);
    dirac_model *fourth = compile_text(heavier, DIRAC_CODEGEN_AUTO);
    dirac_model_evaluation c, d;
    dirac_model_evaluation_info(third, &c);
    dirac_model_evaluation_info(fourth, &d);
    ENSURE(c.compiled && !c.cached);
    ENSURE(d.compiled && d.cached);
    // the cached object runs with the heavier model's own constants: its motion (another g)
    // is the tapes' motion of that model exactly (both paths round alike: polynomials only),
    // and not the lighter one's
    dirac_model *fourth_tapes = compile_text(heavier, DIRAC_CODEGEN_OFF);
    ENSURE(model_final_x(fourth) == model_final_x(fourth_tapes));
    ENSURE(fabs(model_final_x(fourth) - model_final_x(third)) > 1e-3);
    dirac_model_destroy(fourth_tapes);
    int objects, others;
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects, 2);
    ENSURE_EQ_INT(others, 0);
    dirac_model_destroy(fourth);
    dirac_model_destroy(first);
    dirac_model_destroy(second);
    dirac_model_destroy(third);
    remove_cache();
}

static void corrupt_object_is_rebuilt(void)
{
    fresh_cache();
    dirac_model *first = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    dirac_model_destroy(first);
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    char path[512] = "";
    while (d && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "dirac-", 6))
            snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
    if (d)
        closedir(d);
    FILE *f = path[0] ? fopen(path, "w") : NULL;
    ENSURE(f != NULL);
    if (f) {
        fputs("not a shared object", f);
        fclose(f);
    }
    dirac_model *again = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    dirac_model_evaluation info;
    dirac_model_evaluation_info(again, &info);
    ENSURE(info.compiled && !info.cached);
    dirac_model_destroy(again);
    remove_cache();
}

static void fallbacks_run_the_tapes(void)
{
    fresh_cache();
    dirac_model *reference = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    double expected = model_final_x(reference);
    dirac_model_evaluation info;
    dirac_model_evaluation_info(reference, &info);
    ENSURE(info.compiled);

    const char *saved = getenv("CC");
    char *saved_cc = saved ? strdup(saved) : NULL;
    static const char *const broken[] = { "/nonexistent", "no-such-compiler-anywhere", "false" };
    static const char *const says[] = { "/nonexistent", "not on PATH", "failed" };
    for (int k = 0; k < 3; k++) {
        fresh_cache();   // nothing cached: the compiler must run
        setenv("CC", broken[k], 1);
        dirac_model *m = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
        dirac_model_evaluation_info(m, &info);
        ENSURE(m != NULL && !info.compiled);
        ENSURE_CONTAINS(info.reason, says[k]);
        ENSURE(model_final_x(m) == expected);   // same numbers from the tapes
        dirac_model_destroy(m);
        remove_cache();
    }
    if (saved_cc)
        setenv("CC", saved_cc, 1);
    else
        unsetenv("CC");
    free(saved_cc);

    fresh_cache();
    setenv("DIRAC_CODEGEN", "off", 1);
    dirac_model *off = compile_text(pendulum, DIRAC_CODEGEN_AUTO);
    dirac_model_evaluation_info(off, &info);
    ENSURE(!info.compiled);
    ENSURE_CONTAINS(info.reason, "DIRAC_CODEGEN=off");
    ENSURE(model_final_x(off) == expected);
    unsetenv("DIRAC_CODEGEN");
    dirac_model *option = compile_text(pendulum, DIRAC_CODEGEN_OFF);
    dirac_model_evaluation_info(option, &info);
    ENSURE(!info.compiled);
    ENSURE(model_final_x(option) == expected);
    int objects, others;
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects + others, 0);   // no compiler ran
    dirac_model_destroy(off);
    dirac_model_destroy(option);
    dirac_model_destroy(reference);
    remove_cache();
}

// a model above CODEGEN_MAX_STATEMENTS without repeated shapes (a few outputs, each a long
// sum of terms that all differ: each its own power) runs on the tapes
static void large_model_runs_on_the_tapes(void)
{
    fresh_cache();
    static const char text[] =
        "model big\ncoordinate x, y\n"
        "lagrangian (x'^2 + y'^2)/2 - sum(i = 1..4000, cos(x - y)^(i + 1)/i)\n"
        "initial x = 0.5\n";
    dirac_model *m = compile_text(text, DIRAC_CODEGEN_AUTO);
    ENSURE(m != NULL);
    dirac_model_evaluation info;
    dirac_model_evaluation_info(m, &info);
    ENSURE(!info.compiled);
    ENSURE_CONTAINS(info.reason, "too large");
    dirac_sim_options o = { .method = "midpoint", .dt = 1e-3 };
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE_EQ_INT(dirac_sim_create(m, &o, &sim, &err), DIRAC_OK);
    ENSURE_EQ_INT(dirac_sim_step(sim), DIRAC_OK);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
    int objects, others;
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects + others, 0);   // no compiler ran
    remove_cache();
}

// compiles `text` with parameter `set` (NAME=VALUE) both ways; 1 when both compiled
static int compile_pair(const char *text, const char *set, dirac_model **compiled,
                        dirac_model **taped)
{
    *compiled = *taped = NULL;
    for (int k = 0; k < 2; k++) {
        dirac_spec *spec = NULL;
        dirac_model **out = k ? taped : compiled;
        if (dirac_spec_parse("m.dirac", text, strlen(text), &spec) == DIRAC_OK &&
            dirac_spec_set_parameter(spec, set) == DIRAC_OK &&
            dirac_spec_set_codegen(spec, k ? DIRAC_CODEGEN_OFF : DIRAC_CODEGEN_AUTO) == DIRAC_OK)
            dirac_model_compile(spec, out);
        dirac_spec_destroy(spec);
    }
    return *compiled && *taped;
}

// Outputs of a family whose shapes all differ (every term its own power, x^5, x^6, ...)
// stay straight-line code; such a group, too long for it, is left to its tape while the
// others (the gradient: a power or two per term, below the limit) run as generated code,
// and the whole gives the tapes' numbers.
static void irregular_groups_run_on_the_tapes(void)
{
    fresh_cache();
    static const char text[] =
        "model powers\nparameter N = 300\ncoordinate x[N]\n"
        "lagrangian sum(i = 1..N, x[i]'^2/2 - x[i]^(i + 4)/(i + 4))\n"
        "initial x[i = 1..N] = 0.5\nsimulate method = midpoint, dt = 1e-3\n";
    dirac_model *compiled, *taped;
    ENSURE(compile_pair(text, "N=300", &compiled, &taped));
    dirac_model_evaluation info;
    dirac_model_evaluation_info(compiled, &info);
    ENSURE(info.compiled);
    unsigned tape_groups = compiled ? compiled->codegen_report.tape_groups : 0;
    fprintf(stderr, "  powers: tape groups %#x\n", tape_groups);
    ENSURE(tape_groups & (1u << MODEL_CG_LAGRANGIAN));   // ~5 statements per term
    ENSURE(!(tape_groups & (1u << MODEL_CG_GRADIENT)));  // x^(n - 1) and x': 1 per term
    if (compiled && taped && info.compiled) {
        ENSURE(compare_groups("powers", compiled) > 0);
        ENSURE(compare_trajectories("powers", compiled, taped));
    }
    dirac_model_destroy(compiled);
    dirac_model_destroy(taped);
    remove_cache();
}

// Indexed families become loops (src/codegen_families.h): models far above the size that
// straight-line code handles compile, with a number of statements that does not grow with
// N, and give the tapes' numbers bit for bit (each group) and their trajectories. (Sizes
// where loops make the code at least FAMILY_MIN_SHRINK times smaller than straight-line
// code, so that loops are used at both.) The cases:
// a linear spring chain (affine indices), the Cartesian pendulum chain example (constraints,
// a holonomic family), a 2-D lattice (interior elements ordered irregularly: index tables)
// and triangular families of pairs with per-pair constants (j - i)*a.
static void families_run_as_loops(void)
{
    fresh_cache();
    static const char springs[] =
        "model springs\nparameter N = 10, m = 1, k = 100\ncoordinate x[N]\n"
        "lagrangian sum(i = 1..N, m/2*x[i]'^2) - k/2*x[1]^2 - sum(i = 2..N, k/2*(x[i] - "
        "x[i-1])^2) - k/2*x[N]^2\ninitial x[1] = 0.01\nsimulate method = midpoint, dt = 1e-2\n";
    static const char pairs[] =
        "model pairs\nparameter N = 10, m = 1, k = 2, a = 0.1\ncoordinate x[N]\n"
        "lagrangian sum(i = 1..N, m/2*x[i]'^2 - k/2*sin(x[i])^2) -"
        " sum(i = 1..N-1, k/2*(x[i+1] - x[i] - a)^2)\n"
        "output gap[i = 1..N, j = i+1..N] = sqrt((x[j] - x[i])^2 + (j - i)*a)\n"
        "initial x[i = 1..N] = i*a + 0.01*sin(i)\n";
    char *chain = text_file_read(DIRAC_SOURCE_DIR "/examples/scale/chain.dirac");
    char *lattice = text_file_read(DIRAC_SOURCE_DIR "/examples/scale/lattice.dirac");
    struct { const char *name, *text, *small, *large; } cases[] = {
        { "spring chain", springs, "N=300", "N=3000" },
        { "pendulum chain", chain, "N=200", "N=400" },
        { "lattice", lattice, "nx=16", "nx=24" },
        { "pairs", pairs, "N=45", "N=60" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long statements[2] = { 0, 0 };
        for (int size = 0; size < 2 && cases[c].text; size++) {
            dirac_model *compiled, *taped;
            ENSURE(compile_pair(cases[c].text, size ? cases[c].large : cases[c].small, &compiled,
                                &taped));
            dirac_model_evaluation info;
            dirac_model_evaluation_info(compiled, &info);
            if (!info.compiled)
                fprintf(stderr, "  %s: %s\n", cases[c].name, info.reason);
            ENSURE(info.compiled);
            statements[size] = info.statements;
            if (compiled && taped && info.compiled) {
                ENSURE(compare_groups(cases[c].name, compiled) > 0);
                ENSURE(compare_trajectories(cases[c].name, compiled, taped));
            }
            dirac_model_destroy(compiled);
            dirac_model_destroy(taped);
        }
        fprintf(stderr, "  %s: %ld statements (%s), %ld (%s)\n", cases[c].name, statements[0],
                cases[c].small, statements[1], cases[c].large);
        // loops and accumulators: the code does not grow with N
        ENSURE(statements[1] == statements[0]);
    }
    free(chain);
    free(lattice);
    remove_cache();
}

// the chain of examples/scale/chain.dirac with two overrides ("N=3", "l=0.5", ...)
static dirac_model *compile_chain(const char *a, const char *b, dirac_codegen_mode mode)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    if (dirac_spec_load(DIRAC_SOURCE_DIR "/examples/scale/chain.dirac", &spec) == DIRAC_OK &&
        dirac_spec_set_parameter(spec, a) == DIRAC_OK &&
        dirac_spec_set_parameter(spec, b) == DIRAC_OK &&
        dirac_spec_set_codegen(spec, mode) == DIRAC_OK)
        dirac_model_compile(spec, &model);
    dirac_spec_destroy(spec);
    return model;
}

static int from_cache(const dirac_model *m)
{
    dirac_model_evaluation info;
    dirac_model_evaluation_info(m, &info);
    return info.compiled ? info.cached : -1;
}

// A sweep compiles one model per run. Models whose parameters leave the structure alone have
// the same generated source and share one loaded object while any of them lives (codegen
// takes it from memory: reported as cached), each with its own constants; a parameter that
// changes the structure (a family's size N, a damping c = 0 that removes the friction force)
// gets an object of its own.
static void one_structure_one_loaded_object(void)
{
    fresh_cache();
    dirac_model *a = compile_chain("N=3", "l=0.5", DIRAC_CODEGEN_AUTO);
    ENSURE_EQ_INT(from_cache(a), 0);
    // with the cache directory emptied (the same directory), b can only come from a's loaded
    // object
    char dir[sizeof cache_dir];
    memcpy(dir, cache_dir, sizeof dir);
    remove_cache();
    ENSURE_EQ_INT(mkdir(dir, 0700), 0);
    memcpy(cache_dir, dir, sizeof dir);
    dirac_model *b = compile_chain("N=3", "l=0.7", DIRAC_CODEGEN_AUTO);
    ENSURE_EQ_INT(from_cache(b), 1);
    int objects, others;
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects + others, 0);   // no compiler ran, nothing was looked up
    // b runs with its own constants: its motion is the tapes' motion of l = 0.7 exactly (the
    // chain is polynomial: both paths round alike) and not the motion of l = 0.5
    dirac_model *b_tapes = compile_chain("N=3", "l=0.7", DIRAC_CODEGEN_OFF);
    ENSURE(model_final_x(b) == model_final_x(b_tapes));
    ENSURE(fabs(model_final_x(b) - model_final_x(a)) > 1e-3);
    // a structural parameter: another source, another object
    dirac_model *c = compile_chain("N=4", "l=0.7", DIRAC_CODEGEN_AUTO);
    dirac_model *d = compile_chain("N=3", "c=0.1", DIRAC_CODEGEN_AUTO);
    ENSURE_EQ_INT(from_cache(c), 0);
    ENSURE_EQ_INT(from_cache(d), 0);
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects, 2);
    dirac_model *d_tapes = compile_chain("N=3", "c=0.1", DIRAC_CODEGEN_OFF);
    ENSURE(model_final_x(d) == model_final_x(d_tapes));
    // the last model of an object unloads it: the next one is compiled again (its file was
    // removed above) and gives the numbers the shared object gave
    double shared = model_final_x(b);
    dirac_model_destroy(a);
    dirac_model_destroy(b);
    dirac_model *again = compile_chain("N=3", "l=0.7", DIRAC_CODEGEN_AUTO);
    ENSURE_EQ_INT(from_cache(again), 0);
    ENSURE(model_final_x(again) == shared);
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects, 3);
    ENSURE_EQ_INT(others, 0);
    dirac_model_destroy(again);
    dirac_model_destroy(b_tapes);
    dirac_model_destroy(c);
    dirac_model_destroy(d);
    dirac_model_destroy(d_tapes);
    remove_cache();
}

enum { RACERS = 4 };

static void *compile_racer(void *arg)
{
    dirac_model **out = arg;
    static const char text[] =
        "model racer\ncoordinate a, b\nlagrangian (a'^2 + b'^2)/2 - cosh(a - b) - a^4\n"
        "initial a = 0.1, b = -0.2\n";
    *out = compile_text(text, DIRAC_CODEGEN_AUTO);
    return NULL;
}

static void threads_compile_one_model_at_once(void)
{
    fresh_cache();
    pthread_t threads[RACERS];
    dirac_model *models[RACERS] = { 0 };
    for (int k = 0; k < RACERS; k++)
        ENSURE_EQ_INT(pthread_create(&threads[k], NULL, compile_racer, &models[k]), 0);
    for (int k = 0; k < RACERS; k++)
        pthread_join(threads[k], NULL);
    double x0 = NAN;
    for (int k = 0; k < RACERS; k++) {
        dirac_model_evaluation info;
        dirac_model_evaluation_info(models[k], &info);
        ENSURE(models[k] && info.compiled);
        double x = model_final_x(models[k]);
        if (k == 0)
            x0 = x;
        ENSURE(x == x0 && isfinite(x));
        dirac_model_destroy(models[k]);
    }
    int objects, others;
    count_cache(&objects, &others);
    ENSURE_EQ_INT(objects, 1);   // one object survives the renames
    ENSURE_EQ_INT(others, 0);    // no temporaries left behind
    remove_cache();
}

TEST_MAIN(TEST(every_example_both_paths), TEST(every_builtin_function_emitted),
          TEST(second_compilation_is_cached),
          TEST(corrupt_object_is_rebuilt), TEST(fallbacks_run_the_tapes),
          TEST(large_model_runs_on_the_tapes), TEST(families_run_as_loops),
          TEST(irregular_groups_run_on_the_tapes), TEST(one_structure_one_loaded_object),
          TEST(threads_compile_one_model_at_once))
