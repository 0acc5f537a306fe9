// The textbook suite: every method of `dirac methods` on every model of tests/textbook/ (circuits
// in branch charges, nonholonomic vehicles, closed-loop mechanisms, rheonomic constraints, a stiff
// spring, two-forms, oscillators, thermodynamic models). Each cell must either
//   - converge to the model's independent reference (analytic, or tests/support/reference_ode.c
//     on minimal coordinates; tests/textbook_reference.h) at the method's order: with e(h) the
//     largest error of the coordinates, velocities and entropies at four times along [0, t_end],
//     the observed order log2(e(h)/e(h/2)) must be within ORDER_SLACK of the order
//     `dirac methods` states, and e(h/2) must be below the model's bound for that order; or
//   - refuse at dirac_sim_create (before step 1) with a message that names a method which this
//     suite finds working on the same model ("... use NAME ...").
// Which methods refuse which model class is fixed in `refusals` below, so a method that starts
// refusing (or stops refusing) is noticed. Cells that fail today because of known bugs are listed
// in `known_failures`; they are run and checked to still fail, so a fix is noticed too.
//
// DIRAC_TEXTBOOK_TABLE=FILE writes the model × method matrix as markdown to FILE (the table of
// docs/methods.md, "Textbook suite").
#define _POSIX_C_SOURCE 200809L   // popen, pclose
#include "harness.h"
#include "sim_run.h"
#include "text_file.h"
#include "textbook_reference.h"

#include <dirac/dirac.h>

#include <stdlib.h>

// Observed orders may deviate this much from the nominal one: e(h)/e(h/2) = 2^(p ± 0.3) leaves
// room for the next term of the error expansion at the chosen steps.
#define ORDER_SLACK 0.3
// Reference accuracy required: far below the smallest error measured (1e-9 on these models).
#define REFERENCE_TOLERANCE 1e-12

typedef int (*reference_fn)(double t, reference_state *r, double *accuracy);

typedef struct textbook_model {
    const char *name;        // tests/textbook/NAME.dirac
    const char *model_class; // shown in the matrix
    double t_end;
    // step h of the coarse run for methods of order 1–2, 4 and 6 (the fine run uses h/2)
    double h_low, h_four, h_six;
    // bound on e(h/2) for methods of order 1, 2, 4 and 6 (absolute, in the model's units): 5 to
    // 10 times the largest error of a method of that order measured when the suite was written
    // (rounded up to 1, 2 or 5 times a power of ten), so a method whose error constant grows by
    // an order of magnitude fails even at the right order; where no method of an order ran then
    // (a refusal or a known failure), the bound of the nearest model of the class
    double bound[4];
    reference_fn reference;
} textbook_model;

static const textbook_model models[] = {
    { "rc_circuit", "circuit, degenerate (no velocity in L)", 2.0, 0.02, 0.1, 0.25,
      { 1e-1, 2e-3, 5e-5, 5e-7 }, reference_rc_circuit },
    { "rl_circuit", "circuit, degenerate", 2.0, 0.02, 0.1, 0.25, { 2e-2, 1e-4, 2e-5, 5e-7 },
      reference_rl_circuit },
    { "rlc_series", "circuit, degenerate, 2 KCL", 4.0, 0.02, 0.1, 0.2, { 2e-1, 1e-3, 2e-5, 5e-7 },
      reference_rlc_series },
    { "rlc_network", "circuit, degenerate, 2 nodes", 4.0, 0.02, 0.1, 0.2,
      { 1e-1, 1e-3, 5e-5, 5e-7 }, reference_rlc_network },
    { "rc_ladder", "circuit, no velocity in L, 2 nodes", 4.0, 0.02, 0.1, 0.25,
      { 1e-1, 2e-3, 5e-5, 5e-7 }, reference_rc_ladder },
    { "knife_edge", "nonholonomic", 2.0, 0.01, 0.05, 0.1, { 5e-2, 5e-4, 5e-6, 5e-7 },
      reference_knife_edge },
    { "chaplygin_sleigh", "nonholonomic", 10.0, 0.02, 0.1, 0.25, { 2e-1, 2e-4, 5e-6, 5e-7 },
      reference_chaplygin_sleigh },
    { "rolling_disk", "nonholonomic (2 constraints)", 4.0, 0.02, 0.1, 0.2,
      { 5e-1, 5e-3, 1e-4, 5e-6 }, reference_rolling_disk },
    { "four_bar", "closed loop, Cartesian (3 holonomic)", 1.0, 0.005, 0.025, 0.05,
      { 2.0, 5e-3, 5e-4, 5e-7 }, reference_four_bar },
    { "slider_crank", "closed loop, Cartesian (3 holonomic)", 1.0, 0.005, 0.025, 0.05,
      { 5e-1, 1e-3, 5e-5, 5e-8 }, reference_slider_crank },
    { "bead_on_hoop", "rheonomic (rotating hoop)", 1.0, 0.005, 0.025, 0.05,
      { 5e-1, 2e-3, 5e-6, 5e-10 }, reference_bead_on_hoop },
    { "rotating_rod", "rheonomic (rod turning in a vertical plane)", 1.0, 0.005, 0.025, 0.05,
      { 5e-1, 1e-3, 5e-7, 5e-11 }, reference_rotating_rod },
    { "moving_pivot", "rheonomic (driven pivot)", 1.0, 0.005, 0.025, 0.05,
      { 5e-1, 5e-4, 2e-5, 2e-9 }, reference_moving_pivot },
    { "stiff_spring_pendulum", "stiff spring (k/m = 2500)", 0.5, 0.0005, 0.00125, 0.005,
      { 2e-2, 5e-4, 2e-7, 2e-10 }, reference_stiff_spring_pendulum },
    { "charged_particle", "two-form (E x B drift)", 4.0, 0.02, 0.1, 0.2,
      { 5e-1, 1e-3, 2e-5, 2e-8 }, reference_charged_particle },
    { "dc_motor", "two-form (gyrator), circuit + rotor", 4.0, 0.02, 0.1, 0.2,
      { 5.0, 1e-2, 1e-4, 5e-8 }, reference_dc_motor },
    { "forced_damped_oscillator", "damped, forced", 4.0, 0.02, 0.1, 0.2,
      { 2e-1, 1e-3, 2e-5, 5e-9 }, reference_forced_damped_oscillator },
    { "duffing", "damped, forced, nonlinear", 4.0, 0.02, 0.1, 0.2, { 2e-1, 5e-4, 5e-6, 2e-9 },
      reference_duffing },
    { "spring_heating", "thermodynamic (friction heating)", 4.0, 0.02, 0.1, 0.2,
      { 5e-2, 1e-3, 5e-6, 5e-8 }, reference_spring_heating },
    { "adiabatic_piston", "thermodynamic (friction and heat, 2 gases)", 2.0, 0.01, 0.05, 0.1,
      { 1e-1, 1e-3, 1e-5, 1e-7 }, reference_adiabatic_piston },
    { "two_bodies", "thermodynamic (heat exchange only)", 4.0, 0.05, 0.25, 0.5,
      { 5e-4, 2e-5, 5e-7, 5e-9 }, reference_two_bodies },
    { "lcr_heating", "thermodynamic circuit, degenerate", 4.0, 0.02, 0.1, 0.2,
      { 5e-2, 1e-3, 5e-5, 5e-7 }, reference_lcr_heating },
};
enum { MODEL_COUNT = sizeof models / sizeof models[0] };

// Which methods refuse which models, by model class (the message must name a working method).
typedef struct refusal {
    const char *model, *methods;   // methods: space-separated
    const char *reason;            // the words the message must contain
} refusal;

#define THERMO_REFUSERS "dirac1 dirac2 euler rk4 lobatto3 lobatto4"
static const refusal refusals[] = {
    // L degenerate in more velocities than the constraints fix (RC: L has no velocity at all, one
    // KCL; the network: four velocity-free branches, two KCL): [d2L/dv2, w^T; w, 0] is singular,
    // so the index-reduced system has no ODE (RL and series RLC have one: they run)
    { "rc_circuit", "euler rk4", "needs an ODE" },
    { "rlc_network", "euler rk4", "needs an ODE" },
    { "rc_ladder", "euler rk4", "needs an ODE" },
    // Kirchhoff's current law and rolling are velocity constraints: no position level for
    // Lobatto's IIIA stages
    { "rc_circuit", "lobatto3 lobatto4", "nonholonomic" },
    { "rl_circuit", "lobatto3 lobatto4", "nonholonomic" },
    { "rlc_series", "lobatto3 lobatto4", "nonholonomic" },
    { "rlc_network", "lobatto3 lobatto4", "nonholonomic" },
    { "rc_ladder", "lobatto3 lobatto4", "nonholonomic" },
    { "knife_edge", "lobatto3 lobatto4", "nonholonomic" },
    { "chaplygin_sleigh", "lobatto3 lobatto4", "nonholonomic" },
    { "rolling_disk", "lobatto3 lobatto4", "nonholonomic" },
    // velocities fixed by forces only (resistor branches): dirac2's central difference would be
    // leapfrog on a first-order dissipative equation (parasitic root -(1 + h/tau))
    { "rc_circuit", "dirac2", "fixed by forces only" },
    { "rlc_network", "dirac2", "fixed by forces only" },
    { "rc_ladder", "dirac2", "fixed by forces only" },
    // friction heating and heat exchange: only midpoint and dgrad integrate entropy
    { "spring_heating", THERMO_REFUSERS, "does not integrate entropy" },
    { "adiabatic_piston", THERMO_REFUSERS, "does not integrate entropy" },
    { "two_bodies", THERMO_REFUSERS, "does not integrate entropy" },
    { "lcr_heating", THERMO_REFUSERS, "does not integrate entropy" },
};

// Cells that fail today because of known bugs: each is run and must still fail (the suite
// fails when one starts passing, so the entry is removed with the fix).
typedef struct known_failure {
    const char *model, *method;
    const char *bug;
} known_failure;

static const known_failure known_failures[] = {
    { NULL, NULL, NULL },
};

static int word_in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

static const refusal *expected_refusal(const char *model, const char *method)
{
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++)
        if (!strcmp(refusals[k].model, model) && word_in_list(refusals[k].methods, method))
            return &refusals[k];
    return NULL;
}

static const known_failure *expected_failure(const char *model, const char *method)
{
    for (size_t k = 0; known_failures[k].model; k++)
        if (!strcmp(known_failures[k].model, model) && !strcmp(known_failures[k].method, method))
            return &known_failures[k];
    return NULL;
}

typedef enum outcome { CELL_CONVERGES, CELL_REFUSES, CELL_STEP_FAILS, CELL_WRONG } outcome;

typedef struct cell {
    outcome result;
    int method_order;   // the order the method states
    const char *chosen; // the method that ran (auto: the one it picked)
    double h, error[2], order, bound;
    char message[600];
} cell;

static char *read_model(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/textbook/%s.dirac", DIRAC_SOURCE_DIR, name);
    return text_file_read(path);
}

// Errors are measured at SAMPLE_COUNT times t_end·j/SAMPLE_COUNT (j = 1..SAMPLE_COUNT; the
// steps divide them): the largest error over the trajectory, not at one time where the leading
// error term might happen to vanish.
enum { SAMPLE_COUNT = 4 };

// Error max over the sample times and over the coordinates, velocities and entropies of
// |x − x_ref| with step h (absolute, in the model's units); NaN and the message when creation or
// a step fails (*refused: at creation).
static double run_error(const dirac_model *model, const char *method, double h, double t_end,
                        const reference_state *ref, int *refused, char *message,
                        size_t message_size)
{
    dirac_sim_options options = { .method = method, .dt = h };
    dirac_sim *sim = NULL;
    dirac_error err;
    *refused = 0;
    if (dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK) {
        *refused = 1;
        snprintf(message, message_size, "%s", err.message);
        return NAN;
    }
    long steps_per_sample = lround(t_end / SAMPLE_COUNT / h);
    double error = 0.0;
    for (int j = 0; j < SAMPLE_COUNT; j++) {
        for (long k = 0; k < steps_per_sample; k++)
            if (dirac_sim_step(sim) != DIRAC_OK) {
                snprintf(message, message_size, "%s", dirac_sim_errmsg(sim));
                dirac_sim_destroy(sim);
                return NAN;
            }
        for (int i = 0; i < dirac_model_coordinate_count(model); i++) {
            error = fmax(error, fabs(dirac_sim_q(sim)[i] - ref[j].q[i]));
            error = fmax(error, fabs(dirac_sim_v(sim)[i] - ref[j].v[i]));
        }
        for (int i = 0; i < dirac_model_entropy_count(model); i++)
            error = fmax(error, fabs(dirac_sim_s(sim)[i] - ref[j].s[i]));
    }
    dirac_sim_destroy(sim);
    return isfinite(error) ? error : (double)INFINITY;
}

static int bound_index(int order)
{
    return order <= 1 ? 0 : order <= 2 ? 1 : order <= 4 ? 2 : 3;
}

// The columns of the matrix: every method of `dirac methods`, then `auto` (the default, which
// runs the method it picks for the model's class).
static int column_count(void)
{
    return dirac_method_count() + 1;
}

static const char *column_name(int i)
{
    return i < dirac_method_count() ? dirac_method(i)->name : "auto";
}

static int method_order(const char *name)
{
    for (int i = 0; i < dirac_method_count(); i++)
        if (!strcmp(dirac_method(i)->name, name))
            return dirac_method(i)->order;
    return 0;
}

// The method `auto` picks for `model` (NULL if it cannot start).
static const char *auto_choice(const dirac_model *model)
{
    dirac_sim_options options = { .method = "auto", .dt = 1e-3 };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK)
        return NULL;
    const char *name = dirac_sim_method(sim);   // static string
    dirac_sim_destroy(sim);
    return name;
}

// The order column i claims on `model` (auto: that of the method it picks).
static int column_order(int i, const dirac_model *model)
{
    if (i < dirac_method_count())
        return dirac_method(i)->order;
    const char *chosen = auto_choice(model);
    return chosen ? method_order(chosen) : 2;
}

static void run_cell(const textbook_model *tm, const dirac_model *model, int column,
                     const reference_state *ref, cell *c)
{
    memset(c, 0, sizeof *c);
    const char *name = column_name(column);
    int p = c->method_order = column_order(column, model);
    c->chosen = column < dirac_method_count() ? name : auto_choice(model);
    c->h = p <= 2 ? tm->h_low : p <= 4 ? tm->h_four : tm->h_six;
    c->bound = tm->bound[bound_index(p)];
    int refused = 0;
    for (int j = 0; j < 2; j++) {
        c->error[j] = run_error(model, name, c->h / (1 << j), tm->t_end, ref, &refused,
                                c->message, sizeof c->message);
        if (refused) {
            c->result = CELL_REFUSES;
            return;
        }
        if (isnan(c->error[j])) {
            c->result = CELL_STEP_FAILS;
            return;
        }
    }
    c->order = log2(c->error[0] / c->error[1]);
    int order_ok = fabs(c->order - p) <= ORDER_SLACK;
    c->result = order_ok && c->error[1] <= c->bound ? CELL_CONVERGES : CELL_WRONG;
}

static cell cells[MODEL_COUNT][16];

static const known_failure *expected_failure(const char *model, const char *method);

// The suggestion "use A, B or C" at the end of a refusal (after its last "; "), or NULL.
static const char *suggestion(const char *message)
{
    const char *use = NULL;
    for (const char *p = message; (p = strstr(p, "; use ")) != NULL; p++)
        use = p + 2;
    return use;
}

// Every method a refusal suggests ("use A, B or C") must converge on the model, except one that
// is a known failure there (then another suggested one must converge).
static int suggestions_work(int model_index, const char *message)
{
    const char *use = suggestion(message);
    if (!use)
        return 0;
    int working = 0;
    for (int i = 0; i < column_count(); i++) {
        const char *name = column_name(i);
        size_t n = strlen(name);
        for (const char *p = use; (p = strstr(p, name)) != NULL; p += n)
            if ((p[n] < 'a' || p[n] > 'z') && (p[n] < '0' || p[n] > '9') &&
                (p[-1] == ' ' || p[-1] == ',')) {
                if (cells[model_index][i].result == CELL_CONVERGES)
                    working++;
                else if (!expected_failure(models[model_index].name, name)) {
                    fprintf(stderr, "  %s: the refusal suggests '%s', which does not converge\n",
                            models[model_index].name, name);
                    return 0;
                }
                break;
            }
    }
    return working > 0;
}

static void print_cell(const textbook_model *tm, const char *name, const cell *c)
{
    static const char *const names[] = { "converges", "refuses", "STEP FAILS", "WRONG" };
    char label[64];
    int picked = c->chosen && strcmp(c->chosen, name);
    snprintf(label, sizeof label, "%s%s%s", name, picked ? ">" : "", picked ? c->chosen : "");
    printf("       %-24s %-14s %-10s", tm->name, label, names[c->result]);
    if (c->result == CELL_CONVERGES || c->result == CELL_WRONG)
        printf(" h %-7g e %.2e %.2e order %5.2f (%d) bound %.0e", c->h, c->error[0],
               c->error[1], c->order, c->method_order, c->bound);
    else
        printf(" %.160s", c->message);
    printf("\n");
}

static void check_cells(void)
{
    for (int k = 0; k < MODEL_COUNT; k++)
        for (int i = 0; i < column_count(); i++) {
            const textbook_model *tm = &models[k];
            const char *name = column_name(i);
            const cell *c = &cells[k][i];
            const refusal *r = expected_refusal(tm->name, name);
            const known_failure *f = expected_failure(tm->name, name);
            if (f) {
                if (c->result == CELL_CONVERGES || c->result == CELL_REFUSES) {
                    fprintf(stderr, "  %s / %s: known failure (%s) no longer fails: remove it "
                                    "from known_failures\n", tm->name, name, f->bug);
                    ENSURE(!"known failure still fails");
                }
                continue;
            }
            if (r) {
                if (c->result != CELL_REFUSES) {
                    fprintf(stderr, "  %s / %s: expected a refusal (%s)\n", tm->name, name,
                            r->reason);
                    ENSURE(!"method refuses the model class");
                    continue;
                }
                if (!strstr(c->message, r->reason)) {
                    fprintf(stderr, "  %s / %s: refusal without the reason '%s': %s\n", tm->name,
                            name, r->reason, c->message);
                    ENSURE(!"refusal names the reason");
                }
                if (!suggestions_work(k, c->message)) {
                    fprintf(stderr, "  %s / %s: refusal does not name a working method: %s\n",
                            tm->name, name, c->message);
                    ENSURE(!"refusal names a working method");
                }
                continue;
            }
            if (c->result != CELL_CONVERGES) {
                fprintf(stderr, "  %s / %s: does not converge at order %d: ", tm->name, name,
                        c->method_order);
                if (c->result == CELL_WRONG)
                    fprintf(stderr, "errors %.3e, %.3e at h = %g, h/2: order %.2f, bound %.0e\n",
                            c->error[0], c->error[1], c->h, c->order, c->bound);
                else
                    fprintf(stderr, "%s\n", c->message);
                ENSURE(!"method converges at its order");
            }
        }
}

// The markdown matrix of docs/methods.md.
static void write_table(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        return;
    }
    fprintf(f, "| model | class | t_end |");
    for (int i = 0; i < column_count(); i++)
        if (i < dirac_method_count())
            fprintf(f, " `%s` (%d) |", column_name(i), dirac_method(i)->order);
        else
            fprintf(f, " `auto`: the method it picks |");
    fprintf(f, "\n| --- | --- | --- |");
    for (int i = 0; i < column_count(); i++)
        fprintf(f, " --- |");
    fprintf(f, "\n");
    for (int k = 0; k < MODEL_COUNT; k++) {
        fprintf(f, "| `%s` | %s | %g |", models[k].name, models[k].model_class, models[k].t_end);
        for (int i = 0; i < column_count(); i++) {
            const cell *c = &cells[k][i];
            const known_failure *kf = expected_failure(models[k].name, column_name(i));
            const refusal *r = expected_refusal(models[k].name, column_name(i));
            const char *use = suggestion(c->message);
            long step = 0;
            if (i == dirac_method_count() && c->result == CELL_CONVERGES)
                fprintf(f, " `%s`: %.2f; %.1e |", c->chosen, c->order, c->error[1]);
            else if (c->result == CELL_REFUSES)
                fprintf(f, " refuses: %s%s%s |", r ? r->reason : c->message, use ? "; " : "",
                        use ? use : "");
            else if (c->result == CELL_CONVERGES)
                fprintf(f, " %.2f; %.1e (h = %g) |", c->order, c->error[1], c->h / 2);
            else if (c->result == CELL_WRONG)
                fprintf(f, " **wrong**: order %.2f, %.1e (h = %g)%s%s |", c->order, c->error[1],
                        c->h / 2, kf ? "; " : "", kf ? kf->bug : "");
            else if (sscanf(c->message, "step %ld", &step) == 1)
                fprintf(f, " **fails at step %ld**%s%s |", step, kf ? ": " : "", kf ? kf->bug : "");
            else
                fprintf(f, " **fails**%s%s |", kf ? ": " : "", kf ? kf->bug : "");
        }
        fprintf(f, "\n");
    }
    fclose(f);
}

static void textbook_matrix(void)
{
    for (int k = 0; k < MODEL_COUNT; k++) {
        const textbook_model *tm = &models[k];
        reference_state ref[SAMPLE_COUNT];
        memset(ref, 0, sizeof ref);
        char *text = read_model(tm->name);
        ENSURE(text != NULL);
        for (int j = 0; j < SAMPLE_COUNT; j++) {
            double accuracy = 0.0;
            ENSURE(tm->reference(tm->t_end * (j + 1) / SAMPLE_COUNT, &ref[j], &accuracy) == 0);
            ENSURE_LE(accuracy, REFERENCE_TOLERANCE);
        }
        // every step divides the sample interval
        const double steps[3] = { tm->h_low, tm->h_four, tm->h_six };
        for (int i = 0; i < 3; i++) {
            double per_sample = tm->t_end / SAMPLE_COUNT / steps[i];
            ENSURE_NEAR(per_sample, round(per_sample), 1e-9);
        }
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        if (text && dirac_spec_parse(tm->name, text, strlen(text), &spec) == DIRAC_OK &&
            dirac_model_compile(spec, &model) == DIRAC_OK) {
            for (int i = 0; i < column_count(); i++) {
                run_cell(tm, model, i, ref, &cells[k][i]);
                print_cell(tm, column_name(i), &cells[k][i]);
            }
        } else {
            fprintf(stderr, "  %s: %s\n", tm->name, spec ? dirac_spec_errmsg(spec) : "no spec");
            ENSURE(!"model compiles");
        }
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
        free(text);
    }
    check_cells();
    const char *table = getenv("DIRAC_TEXTBOOK_TABLE");
    if (table && *table)
        write_table(table);
}

// Runs `netlist` (whose .control block prints "NAME = VALUE" lines) through `ngspice -b` and
// reads the values of `names`; returns 1 when all were found.
static int ngspice_values(const char *file, const char *netlist, const char *const *names,
                          double *values, int count)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", DIRAC_BINARY_DIR, file);
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(netlist, f);
    fclose(f);
    char command[600];
    snprintf(command, sizeof command, "ngspice -b '%s' 2>&1", path);
    FILE *out = popen(command, "r");
    if (!out)
        return 0;
    for (int i = 0; i < count; i++)
        values[i] = NAN;
    char line[512], format[64];
    while (fgets(line, sizeof line, out))
        for (int i = 0; i < count; i++) {
            snprintf(format, sizeof format, "%s = %%lf", names[i]);
            sscanf(line, format, &values[i]);
        }
    // (ngspice -b exits 1 when the netlist has no .tran outside .control; the values decide)
    pclose(out);
    for (int i = 0; i < count; i++)
        if (isnan(values[i])) {
            fprintf(stderr, "  no '%s' from ngspice: is it installed? (bash scripts/setup.sh)\n",
                    names[i]);
            return 0;
        }
    return 1;
}

// The hand-derived nodal equations of the networks (the references of their cells) against
// ngspice on the same circuits in its own netlist language, at t = 3. With reltol = 1e-9 and
// steps of at most 1e-5, ngspice agrees with the RK4 references to 7e-10 (steps of at most
// 1e-4: 7e-8); the tolerance 1e-8 is far below the errors the cells measure (≥ 1e-5) and above
// ngspice's own.
#define NGSPICE_OPTIONS                                                                    \
    ".options reltol=1e-9 abstol=1e-15 vntol=1e-12 chgtol=1e-16 method=gear maxord=6\n"   \
    ".control\nset numdgt=15\ntran 1e-5 3 0 1e-5 uic\nlet n = length(time) - 1\n"

static void textbook_networks_against_ngspice(void)
{
    static const char *const names[] = { "tend", "x1", "x2", "x3" };
    double values[4], y[6], accuracy = 0.0;
    // rlc_network: capacitor charges and inductor current
    static const char rlc[] =
        "rlc_network of tests/textbook/rlc_network.dirac\n"
        "V1 in 0 SIN(0 1 0.477464829275686)\n"   // V0 sin(w t), w = 3 rad/s
        "R1 in n1 1\nC1 n1 0 0.5\nL1 n1 n2 0.5\nC2 n2 0 1\nR2 n2 0 2\n"
        ".ic v(n1)=0 v(n2)=0\n" NGSPICE_OPTIONS
        "let tend = time[n]\nlet x1 = 0.5*v(n1)[n]\nlet x2 = v(n2)[n]\nlet x3 = i(L1)[n]\n"
        "print tend x1 x2 x3\n.endc\n.end\n";
    if (ngspice_values("textbook_rlc_network.cir", rlc, names, values, 4) &&
        rlc_network_state(3.0, y, &accuracy) == 0) {
        ENSURE_NEAR(values[0], 3.0, 1e-12);
        ENSURE_NEAR(values[1], y[1], 1e-8);   // qC1
        ENSURE_NEAR(values[2], y[4], 1e-8);   // qC2
        ENSURE_NEAR(values[3], y[3], 1e-8);   // iL
        printf("       rlc_network: ngspice - reference at t = 3: qC1 %.1e, qC2 %.1e, iL %.1e\n",
               values[1] - y[1], values[2] - y[4], values[3] - y[3]);
    } else
        ENSURE(!"ngspice and the reference ran");
    // rc_ladder: capacitor charges and the current through R2
    static const char ladder[] =
        "rc_ladder of tests/textbook/rc_ladder.dirac\n"
        "V1 in 0 SIN(0 1 0.318309886183791)\n"   // V0 sin(w t), w = 2 rad/s
        "R1 in n1 1\nC1 n1 0 0.5\nR2 n1 n2 2\nC2 n2 0 1\n"
        ".ic v(n1)=0 v(n2)=0\n" NGSPICE_OPTIONS
        "let tend = time[n]\nlet x1 = 0.5*v(n1)[n]\nlet x2 = v(n2)[n]\n"
        "let x3 = (v(n1)[n] - v(n2)[n])/2\nprint tend x1 x2 x3\n.endc\n.end\n";
    reference_state r;
    if (ngspice_values("textbook_rc_ladder.cir", ladder, names, values, 4) &&
        reference_rc_ladder(3.0, &r, &accuracy) == 0) {
        ENSURE_NEAR(values[0], 3.0, 1e-12);
        ENSURE_NEAR(values[1], r.q[1], 1e-8);   // qC1
        ENSURE_NEAR(values[2], r.q[3], 1e-8);   // qC2
        ENSURE_NEAR(values[3], r.v[2], 1e-8);   // qR2'
        printf("       rc_ladder: ngspice - reference at t = 3: qC1 %.1e, qC2 %.1e, iR2 %.1e\n",
               values[1] - r.q[1], values[2] - r.q[3], values[3] - r.v[2]);
    } else
        ENSURE(!"ngspice and the reference ran");
}

// At least 15 models, every method of the table on each.
static void textbook_coverage(void)
{
    ENSURE(MODEL_COUNT >= 15);
    ENSURE(column_count() <= 16);
}

TEST_MAIN(TEST(textbook_coverage), TEST(textbook_networks_against_ngspice),
          TEST(textbook_matrix))
