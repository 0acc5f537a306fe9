// Interconnection (issue 5): the examples of examples/interconnect/ against their monolithic
// twins, the interactions' forces and power, Newton's third law, Kirchhoff's laws, the DC
// motor's energy balance, and the errors of component files (with their locations).
//
// Equivalence. Each example NAME/NAME.dirac (components joined by interactions) has a twin
// NAME/monolithic.dirac: one file, no components, the same coordinates in the same order
// (a.x is written a_x), the same Lagrangian terms, constraints and forces. The compiler
// flattens the components into exactly these equations, so the two runs solve the same
// equations with the same method and step; the only differences are the order in which sums
// are formed and the operands of commutative operations are arranged in the expression DAG
// (reassociation), i.e. rounding, ~1e-16 per step. Newton's method could amplify such a
// difference up to its stopping tolerance when one run stops an iteration earlier than the
// other (the update at the threshold, up to rtol = 1e-10 relative by default); the runs here
// therefore ask for newton_rtol = 1e-15, which the solver raises to its rounding floor
// (16 eps), so both runs converge to rounding level and the trajectories (q, v) must agree to
// 1e-12 relative at every step (relative to each coordinate's largest value over the run).
// Measured: identical to the last bit for every example and method except the DC motor
// (midpoint, rk4), whose differences are 2e-16.
//
// Power. At every step the total power of the interactions, sum_k <F_k, v>, must be <= 1e-12
// of the power they transmit, the largest sum_k sum_i |F_k,i v_i| over the run.
#include "harness.h"
#include "mem_files.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <float.h>
#include <stdlib.h>

#define EXAMPLES DIRAC_SOURCE_DIR "/examples/interconnect/"

static int run_open(run *r, const char *path, const char *method, double dt,
                    const char *const *overrides, int n_overrides)
{
    dirac_sim_options options = { .method = method, .dt = dt, .newton_rtol = 1e-15 };
    return run_open_file(r, path, overrides, n_overrides, &options);
}

// Index of the coordinate called `name` (-1 if none).
static int coordinate(const dirac_model *m, const char *name)
{
    for (int i = 0; i < dirac_model_coordinate_count(m); i++)
        if (!strcmp(dirac_model_coordinate_name(m, i), name))
            return i;
    fprintf(stderr, "  no coordinate '%s' in model '%s'\n", name, dirac_model_name(m));
    ENSURE(!"coordinate found");
    return 0;
}

// Index of the interaction called `name` (-1 if none).
static int interaction(const dirac_model *m, const char *name)
{
    for (int k = 0; k < dirac_model_interaction_count(m); k++)
        if (!strcmp(dirac_model_interaction_name(m, k), name))
            return k;
    fprintf(stderr, "  no interaction '%s' in model '%s'\n", name, dirac_model_name(m));
    ENSURE(!"interaction found");
    return 0;
}

// The interconnected model passes its Dirac-structure check at the initial state.
static void check_structure(const dirac_model *m, int subsystems)
{
    dirac_model_analysis a;
    dirac_error err;
    ENSURE(dirac_model_analyze(m, &a, &err) == DIRAC_OK);
    ENSURE_LE(a.interconnection_angle, 1e-12);
    ENSURE_EQ_INT(a.subsystem_count, subsystems);
    printf("  %-18s principal angle %.3e rad\n", dirac_model_name(m), a.interconnection_angle);
    dirac_model_analysis_free(&a);
}

// Simulates examples/interconnect/DIR/DIR.dirac and DIR/monolithic.dirac with `method` and
// step `dt` for `steps` steps; checks the equivalence and the interaction power (see the top of
// the file).
static void check_equivalence(const char *dir, const char *method, double dt, long steps)
{
    char path_a[512], path_b[512];
    snprintf(path_a, sizeof path_a, EXAMPLES "%s/%s.dirac", dir, dir);
    snprintf(path_b, sizeof path_b, EXAMPLES "%s/monolithic.dirac", dir);
    run a, b;
    if (!run_open(&a, path_a, method, dt, NULL, 0))
        return;
    if (!run_open(&b, path_b, method, dt, NULL, 0)) {
        run_close(&a);
        return;
    }
    int n = dirac_model_coordinate_count(a.model), ni = dirac_model_interaction_count(a.model);
    ENSURE_EQ_INT(dirac_model_coordinate_count(b.model), n);
    ENSURE_EQ_INT(dirac_model_constraint_count(b.model), dirac_model_constraint_count(a.model));
    ENSURE(dirac_model_component_count(a.model) > 0);
    ENSURE_EQ_INT(dirac_model_component_count(b.model), 0);
    ENSURE(ni > 0);
    ENSURE_EQ_INT(dirac_model_interaction_count(b.model), 0);
    // the twin's coordinate i is the interconnected one's with '.' written '_'
    for (int i = 0; i < n && i < dirac_model_coordinate_count(b.model); i++) {
        char flat[256];
        snprintf(flat, sizeof flat, "%s", dirac_model_coordinate_name(a.model, i));
        for (char *c = flat; *c; c++)
            if (*c == '.')
                *c = '_';
        ENSURE(!strcmp(flat, dirac_model_coordinate_name(b.model, i)));
    }
    double *diff = calloc(2 * (size_t)n, sizeof *diff), *size = calloc(2 * (size_t)n, sizeof *size);
    double *force = calloc((size_t)n, sizeof *force);
    double power_max = 0, transmitted_max = 0;
    for (long k = 0; diff && size && force && k <= steps; k++) {
        if (k > 0 && !(run_step(&a) && run_step(&b)))
            break;
        const double *x[2][2] = { { dirac_sim_q(a.sim), dirac_sim_v(a.sim) },
                                  { dirac_sim_q(b.sim), dirac_sim_v(b.sim) } };
        for (int part = 0; part < 2; part++)
            for (int i = 0; i < n; i++) {
                double d = fabs(x[0][part][i] - x[1][part][i]);
                double s = fmax(fabs(x[0][part][i]), fabs(x[1][part][i]));
                diff[part * n + i] = fmax(diff[part * n + i], d);
                size[part * n + i] = fmax(size[part * n + i], s);
            }
        double total = 0, transmitted = 0;
        const double *v = dirac_sim_v(a.sim);
        for (int j = 0; j < ni; j++) {
            double power;
            dirac_sim_interaction_force(a.sim, j, force, &power);
            total += power;
            for (int i = 0; i < n; i++)
                transmitted += fabs(force[i] * v[i]);
        }
        power_max = fmax(power_max, fabs(total));
        transmitted_max = fmax(transmitted_max, transmitted);
    }
    double worst = 0;
    for (int i = 0; diff && size && i < 2 * n; i++)
        worst = fmax(worst, diff[i] / (size[i] > 0 ? size[i] : DBL_MIN));
    ENSURE_LE(worst, 1e-12);
    ENSURE(transmitted_max > 0);
    ENSURE_LE(power_max, 1e-12 * transmitted_max);
    printf("  %-18s %-8s %6ld steps: |interconnected - monolithic| %.1e, interaction power "
           "%.1e of %.1e\n", dir, method, steps, worst, power_max, transmitted_max);
    free(diff), free(size), free(force);
    run_close(&a);
    run_close(&b);
}

// The example in midpoint (over `midpoint_steps` steps), dirac1 and rk4 (`other_steps`).
static void check_equivalence_methods(const char *example, double dt, long midpoint_steps,
                                      long other_steps)
{
    check_equivalence(example, "midpoint", dt, midpoint_steps);
    check_equivalence(example, "dirac1", dt, other_steps);
    check_equivalence(example, "rk4", dt, other_steps);
}

static void equivalence_contact(void)
{
    check_equivalence_methods("contact", 1e-3, 20000, 5000);
}

static void equivalence_mass_spring(void)
{
    check_equivalence_methods("mass_spring", 1e-3, 20000, 5000);
}

static void equivalence_circuit(void)
{
    check_equivalence_methods("circuit", 1e-4, 10000, 5000);
}

static void equivalence_nonholonomic(void)
{
    check_equivalence_methods("nonholonomic", 1e-3, 10000, 5000);
}

static void equivalence_dc_motor(void)
{
    check_equivalence_methods("dc_motor", 1e-4, 20000, 5000);
}

static void equivalence_charged_particle(void)
{
    check_equivalence_methods("charged_particle", 1e-7, 6560, 3000);
}

// Every example passes the interconnection check of `dirac check`.
static void structures(void)
{
    static const struct {
        const char *dir;
        int parts;
    } examples[] = { { "contact", 2 },      { "mass_spring", 2 }, { "circuit", 2 },
                     { "nonholonomic", 3 }, { "dc_motor", 3 },    { "charged_particle", 2 } };
    for (size_t e = 0; e < sizeof examples / sizeof examples[0]; e++) {
        char path[512];
        snprintf(path, sizeof path, EXAMPLES "%s/%s.dirac", examples[e].dir, examples[e].dir);
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        if (dirac_spec_load(path, &spec) == DIRAC_OK &&
            dirac_model_compile(spec, &model) == DIRAC_OK)
            check_structure(model, examples[e].parts);
        else
            ENSURE(!"example compiles");
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
    }
}

// Checks that interaction `name` pushes its coordinates `first` and `second` with equal and
// opposite forces (to rounding) at the current node; returns |F_first|.
static double check_opposite(const run *r, const char *name, const char *first,
                             const char *second, double *force)
{
    double power;
    dirac_sim_interaction_force(r->sim, interaction(r->model, name), force, &power);
    double f1 = force[coordinate(r->model, first)], f2 = force[coordinate(r->model, second)];
    ENSURE_LE(fabs(f1 + f2), 4 * DBL_EPSILON * fabs(f1));
    return fabs(f1);
}

// Two masses in contact: the contact forces are equal and opposite at every step (Newton's
// third law), not zero, and act on the two blocks only; the blocks stay in contact.
static void contact_third_law(void)
{
    run r;
    if (!run_open(&r, EXAMPLES "contact/contact.dirac", "midpoint", 1e-3, NULL, 0))
        return;
    int n = dirac_model_coordinate_count(r.model);
    int count = 0;
    const int *coords = dirac_model_interaction_coordinates(r.model, 0, &count);
    ENSURE_EQ_INT(count, 2);
    ENSURE(count == 2 && coords[0] == coordinate(r.model, "a.x") &&
           coords[1] == coordinate(r.model, "b.x"));
    double *force = calloc((size_t)n, sizeof *force), largest = 0, positive = 0, negative = 0;
    int ia = coordinate(r.model, "a.x"), ib = coordinate(r.model, "b.x");
    for (long k = 0; force && k <= 20000 && (k == 0 || run_step(&r)); k++) {
        double f = check_opposite(&r, "touch", "a.x", "b.x", force);
        largest = fmax(largest, f);
        positive = fmax(positive, force[ia]);
        negative = fmin(negative, force[ia]);
        const double *v = dirac_sim_v(r.sim);
        ENSURE_LE(fabs(v[ia] - v[ib]), 4 * DBL_EPSILON * fabs(v[ia]) + 1e-300);
    }
    ENSURE(largest > 0.1);
    ENSURE(positive > 0 && negative < 0);   // the push makes the contact force change sign
    // the gap b.x - a.x stays 0 (both start at 0.1): the blocks move as one
    const double *q = dirac_sim_q(r.sim);
    ENSURE_LE(fabs(q[ia] - q[ib]), 1e-13);
    free(force);
    run_close(&r);
}

// The torn mass-spring chain: Newton's third law at the cut, the port follows the left end,
// and the trajectory is that of the original chain of three masses and four springs (written
// here without the cut). That chain has different unknowns (no port, no multiplier), so only
// the exact solutions coincide: midpoint's step for the constrained system reduces exactly to
// its step for the chain (the cut's one-form is constant, the port's momentum is 0, and
// eliminating mu gives the chain's spring force); the difference is rounding, measured 6e-14.
static void mass_spring_is_the_chain(void)
{
    static const char chain[] =
        "model chain\n"
        "parameter m1 = 1, m2 = 1, m3 = 1, k1 = 10, k2 = 10, k3 = 10, k4 = 10\n"
        "coordinate x1, x2, x3\n"
        "lagrangian m1/2*x1'^2 + m2/2*x2'^2 + m3/2*x3'^2\n"
        "lagrangian -k1/2*x1^2 - k2/2*(x2 - x1)^2 - k3/2*(x3 - x2)^2 - k4/2*x3^2\n"
        "initial x1 = 0.1, x2 = 0, x3 = -0.05\n";
    run r, c;
    memset(&c, 0, sizeof c);
    if (!run_open(&r, EXAMPLES "mass_spring/mass_spring.dirac", "midpoint", 1e-3, NULL, 0))
        return;
    dirac_sim_options options = { .method = "midpoint", .dt = 1e-3, .newton_rtol = 1e-15 };
    dirac_error err;
    if (dirac_spec_parse("chain.dirac", chain, strlen(chain), &c.spec) != DIRAC_OK ||
        dirac_model_compile(c.spec, &c.model) != DIRAC_OK ||
        dirac_sim_create(c.model, &options, &c.sim, &err) != DIRAC_OK) {
        ENSURE(!"chain model runs");
        run_close(&r);
        run_close(&c);
        return;
    }
    int x1 = coordinate(r.model, "left.x1"), x2 = coordinate(r.model, "left.x2");
    int y1 = coordinate(r.model, "right.y1"), y2 = coordinate(r.model, "right.y2");
    const int map[3] = { x1, x2, y2 };
    double *force = calloc((size_t)dirac_model_coordinate_count(r.model), sizeof *force);
    double worst = 0, size = 0, cut = 0, previous[4];
    memcpy(previous, dirac_sim_q(r.sim), sizeof previous);
    for (long k = 0; force && k <= 20000 && (k == 0 || (run_step(&r) && run_step(&c))); k++) {
        const double *q = dirac_sim_q(r.sim), *v = dirac_sim_v(r.sim);
        const double *qc = dirac_sim_q(c.sim), *vc = dirac_sim_v(c.sim);
        for (int i = 0; i < 3; i++) {
            worst = fmax(worst, fmax(fabs(q[map[i]] - qc[i]), 0.1 * fabs(v[map[i]] - vc[i])));
            size = fmax(size, fabs(qc[i]));
        }
        ENSURE_LE(fabs(q[x2] - q[y1]), 1e-15);   // the port stays at the left end
        cut = fmax(cut, check_opposite(&r, "cut", "left.x2", "right.y1", force));
        // the force across the cut is the spring k3's, mu = k3 (y2 - y1), at the midpoint of
        // the step (the multiplier midpoint reports is stage 2's, docs/methods.md; the port's
        // momentum 0 = p* - (h/2) mu makes it k3 (y2 - y1) at the step's midpoint)
        if (k > 0) {
            double mid = 0.5 * (q[y2] + previous[y2]) - 0.5 * (q[y1] + previous[y1]);
            ENSURE_LE(fabs(force[x2] - 10 * mid), 1e-13);
        }
        memcpy(previous, q, sizeof previous);
    }
    ENSURE_LE(worst, 1e-10 * size);
    ENSURE(cut > 0.1);
    printf("  torn chain vs chain of 3 masses: %.1e of %.1e\n", worst, size);
    free(force);
    run_close(&r);
    run_close(&c);
}

// The circuit joined by Kirchhoff's current law: KCL holds at every step to rounding; the
// interaction voltages are those of KVL (the same voltage on both tank branches, the opposite
// on the source branch); at the tank's resonance the source current dies out.
static void circuit_kirchhoff(void)
{
    run r;
    if (!run_open(&r, EXAMPLES "circuit/circuit.dirac", "midpoint", 1e-4, NULL, 0))
        return;
    int feed = coordinate(r.model, "feed.q"), il = coordinate(r.model, "tank.qL"),
        ic = coordinate(r.model, "tank.qC");
    int kcl = interaction(r.model, "kcl");
    double *force = calloc((size_t)dirac_model_coordinate_count(r.model), sizeof *force);
    double kcl_worst = 0, current = 0, source_late = 0, tank_late = 0;
    double qc_previous = dirac_sim_q(r.sim)[ic];
    for (long k = 0; force && k <= 10000 && (k == 0 || run_step(&r)); k++) {
        const double *v = dirac_sim_v(r.sim), *q = dirac_sim_q(r.sim);
        double scale = fabs(v[feed]) + fabs(v[il]) + fabs(v[ic]);
        kcl_worst = fmax(kcl_worst, fabs(v[feed] - v[il] - v[ic]) / (scale > 0 ? scale : 1));
        current = fmax(current, scale);
        double power;
        dirac_sim_interaction_force(r.sim, kcl, force, &power);
        ENSURE(force[il] == force[ic]);    // both tank branches see the same voltage
        ENSURE(force[feed] == -force[il]);
        // the voltage on the tank, -mu, is the capacitor's at the step's midpoint (the
        // capacitor's momentum is 0: as for the port of mass_spring)
        if (k > 0)
            ENSURE_LE(fabs(0.5 * (q[ic] + qc_previous) / 1e-3 - force[il]),
                      1e-12 * (1 + fabs(force[il])));
        qc_previous = q[ic];
        if (k >= 8000) {
            source_late = fmax(source_late, fabs(v[feed]));
            tank_late = fmax(tank_late, fabs(v[il]));
        }
    }
    ENSURE_LE(kcl_worst, 4 * DBL_EPSILON);
    ENSURE(current > 0);
    ENSURE_LE(source_late, 1e-2 * tank_late);    // parallel resonance: no current from the source
    ENSURE_NEAR(tank_late, 0.1, 2e-3);           // V0/(w Lt) circulating in the tank
    printf("  KCL residual %.1e of the currents; late source current %.2e A, tank %.4f A\n",
           kcl_worst, source_late, tank_late);
    free(force);
    run_close(&r);
}

// The nonholonomic system: the carry and steer forces are equal and opposite, the blade never
// slides, and the heading follows its exact solution to the method's accuracy.
static void nonholonomic_forces(void)
{
    run r;
    if (!run_open(&r, EXAMPLES "nonholonomic/nonholonomic.dirac", "midpoint", 1e-3, NULL, 0))
        return;
    int x = coordinate(r.model, "skate.x"), y = coordinate(r.model, "skate.y"),
        th = coordinate(r.model, "skate.th");
    double *force = calloc((size_t)dirac_model_coordinate_count(r.model), sizeof *force);
    double heading_error = 0, slip = 0, carried = 0, steered = 0;
    for (long k = 0; force && k <= 10000 && (k == 0 || run_step(&r)); k++) {
        carried = fmax(carried, check_opposite(&r, "carry_x", "skate.x", "rider.u", force));
        carried = fmax(carried, check_opposite(&r, "carry_y", "skate.y", "rider.w", force));
        steered = fmax(steered, check_opposite(&r, "steer", "skate.th", "rotor.phi", force));
        const double *q = dirac_sim_q(r.sim), *v = dirac_sim_v(r.sim);
        double t = dirac_sim_time(r.sim);
        heading_error = fmax(heading_error, fabs(q[th] + 0.5 * cos(2 * t)));
        slip = fmax(slip, fabs(v[x] * sin(q[th]) - v[y] * cos(q[th])) /
                              (fabs(v[x]) + fabs(v[y]) + 1e-300));
    }
    ENSURE(carried > 1 && steered > 0.01);
    ENSURE_LE(slip, 1e-14);
    ENSURE_LE(heading_error, 1e-6);   // midpoint, h = 1e-3: O(h^2) error, measured 1.7e-7
    printf("  heading error %.1e rad, sideslip %.1e (relative)\n", heading_error, slip);
    free(force);
    run_close(&r);
}

// DC motor energy balance over t = [0, 2] with midpoint at step h:
//   input = integral of V I dt (the source's voltage times the current, trapezoidal rule),
//   loss  = integral of R I^2 + b omega^2 dt (resistance and bearing, trapezoidal rule),
//   gain  = E(t) - E(0) (magnetic energy La I^2/2 + kinetic + potential energy),
// and returns max_t |input - gain - loss| (the defect); also checks the method's own balance
// |E - E0 - work| (dirac_sim_work: the work of every force as the method accounts for it).
static double motor_balance(double h, double *input_out, double *own_balance)
{
    static const char *const overrides[] = { "armature.V0=6", "armature.R=2", "rotor.b=1e-3" };
    const double V0 = 6, R = 2, b = 1e-3;
    run r;
    if (!run_open(&r, EXAMPLES "dc_motor/dc_motor.dirac", "midpoint", h, overrides, 3))
        return NAN;
    int iq = coordinate(r.model, "armature.q"), ith = coordinate(r.model, "rotor.theta");
    long steps = lround(2.0 / h);
    double e0 = dirac_sim_energy(r.sim), w0 = dirac_sim_work(r.sim);
    double input = 0, loss = 0, defect = 0, own = 0;
    double i_prev = dirac_sim_v(r.sim)[iq], w_prev = dirac_sim_v(r.sim)[ith];
    for (long k = 1; k <= steps && run_step(&r); k++) {
        double i = dirac_sim_v(r.sim)[iq], w = dirac_sim_v(r.sim)[ith];
        input += h / 2 * (V0 * i + V0 * i_prev);
        loss += h / 2 * (R * i * i + R * i_prev * i_prev + b * w * w + b * w_prev * w_prev);
        i_prev = i, w_prev = w;
        double gain = dirac_sim_energy(r.sim) - e0;
        defect = fmax(defect, fabs(input - gain - loss));
        own = fmax(own, fabs(gain - (dirac_sim_work(r.sim) - w0)));
    }
    // the trapezoidal input agrees with the exact V0 (q(T) - q(0)) to O(h^2)
    ENSURE_LE(fabs(input - V0 * dirac_sim_q(r.sim)[iq]), 1e-6 * input);
    *input_out = input;
    *own_balance = own;
    run_close(&r);
    return defect;
}

// Electrical input = mechanical (and magnetic) energy gained + resistive and friction losses.
// Two errors make up the defect, both O(h^2):
// - midpoint's own energy balance |E - E0 - work|: exact for quadratic Lagrangians and linear
//   forces, O(h^2) here through the pendulum's cos (measured 1.3e-9 J, 4e-11 of the input);
// - the trapezoidal rule for the three integrals, whose leading error (h^2/12) [g']_0^t, with
//   g = V I - R I^2 - b w^2, is dominated by the current's initial slope I'(0) = V0/La:
//   (h^2/12) V0^2/La = 3.0e-6 J at h = 1e-4 (measured defect 4.5e-6 J, 1.3e-7 of the input).
// The test allows twice the trapezoidal estimate plus the method's own error, and checks that
// the defect is of second order: it shrinks by 4 when h is halved (measured 4.00).
static void dc_motor_energy(void)
{
    const double V0 = 6, La = 0.01, h = 1e-4;
    double input, own, input2, own2;
    double d1 = motor_balance(h, &input, &own), d2 = motor_balance(h / 2, &input2, &own2);
    ENSURE(input > 10);
    ENSURE_LE(own, 1e-10 * input);
    ENSURE_LE(d1, 2 * h * h / 12 * V0 * V0 / La + own);
    ENSURE(d1 / d2 > 3.5 && d1 / d2 < 4.5);
    printf("  input %.6f J; defect %.2e J (h = 1e-4), %.2e J (h = 5e-5), ratio %.2f; "
           "|E - E0 - work| %.1e J\n", input, d1, d2, d1 / d2, own);
}

// The charged particle follows the cycloid of crossed fields to the method's accuracy: midpoint
// turns the gyration with a relative frequency error (wc h)^2/12, so after time T the phase is
// off by (wc h)^2/12 wc T and the position by that times the radius vd/wc (2.5e-6 m here; the
// test allows twice that).
static void charged_particle_cycloid(void)
{
    run r;
    if (!run_open(&r, EXAMPLES "charged_particle/charged_particle.dirac", "midpoint", 1e-7,
                  NULL, 0))
        return;
    const double m = 1.67262192e-27, e = 1.602176634e-19, Bz = 1e-3, Ey = 0.5;
    const double wc = e * Bz / m, vd = Ey / Bz, size = 2 * vd / wc;   // loop height
    int x = coordinate(r.model, "xm.x"), y = coordinate(r.model, "ym.y");
    double worst = 0;
    for (long k = 1; k <= 6560 && run_step(&r); k++) {
        double t = dirac_sim_time(r.sim);
        const double *q = dirac_sim_q(r.sim);
        worst = fmax(worst, fabs(q[x] - vd * (t - sin(wc * t) / wc)));
        worst = fmax(worst, fabs(q[y] - vd * (1 - cos(wc * t)) / wc));
    }
    const double h = 1e-7, T = 6560 * h;
    ENSURE_LE(worst, 2 * (wc * h) * (wc * h) / 12 * wc * T * vd / wc);
    printf("  cycloid: largest error %.2e m over 10 loops of height %.2e m\n", worst, size);
    run_close(&r);
}

// Errors of interconnected models, with their locations.

static mem_files files = { .dir = "models" };
static const char *const temp_dir = "models";

static void write_file(const char *name, const char *text)
{
    ENSURE(mem_files_write(&files, name, text) == 0);
}

// Loads (and compiles) FILE from the in-memory files; expects failure with `status` and a message containing
// "temp_dir/WHERE: error: MESSAGE" (WHERE = FILE:LINE:COL, in the file named there).
static void expect_error(const char *file, dirac_status status, const char *where,
                         const char *message)
{
    char expected[1024];
    snprintf(expected, sizeof expected, "%s/%s: error: %s", temp_dir, where, message);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status got = mem_files_load(&files, file, &spec);
    if (got == DIRAC_OK)
        got = dirac_model_compile(spec, &model);
    ENSURE_EQ_INT(got, status);
    ENSURE(spec != NULL);
    if (spec)
        ENSURE_CONTAINS(dirac_spec_errmsg(spec), expected);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

static const char block[] = "model block\n"
                            "parameter m = 1, k = 1\n"
                            "coordinate x\n"
                            "lagrangian m/2*x'^2 - k/2*x^2\n";

static void errors(void)
{
    write_file("block.dirac", block);
    write_file("skate.dirac", "model skate\n"
                              "coordinate x, y, th\n"
                              "lagrangian (x'^2 + y'^2 + th'^2)/2\n"
                              "constraint blade: x'*sin(th) - y'*cos(th) = 0\n");
    // unknown component, unknown variable of a component
    write_file("unknown_component.dirac", "model m\n"
                                          "component a = block(m = 1) from \"block.dirac\"\n"
                                          "component b = block from \"block.dirac\"\n"
                                          "constraint touch: aa.x' = b.x'\n");
    expect_error("unknown_component.dirac", DIRAC_ERR_PARSE, "unknown_component.dirac:4:19",
                 "unknown component 'aa' in 'aa.x'; did you mean 'a'?");
    write_file("unknown_variable.dirac", "model m\n"
                                         "component a = block from \"block.dirac\"\n"
                                         "component b = block from \"block.dirac\"\n"
                                         "constraint touch: a.xx' = b.x'\n");
    expect_error("unknown_variable.dirac", DIRAC_ERR_PARSE, "unknown_variable.dirac:4:19",
                 "unknown name 'a.xx': model 'block' has no 'xx'; did you mean 'a.x'?");
    // a missing component file
    write_file("missing.dirac", "model m\n"
                                "component a = block(m = 1) from \"ghost.dirac\"\n");
    char missing[512];
    snprintf(missing, sizeof missing,
             "cannot read component file '%s/ghost.dirac': No such file or directory", temp_dir);
    expect_error("missing.dirac", DIRAC_ERR_IO, "missing.dirac:2:33", missing);
    // a file that includes itself, directly and through a cycle
    write_file("self.dirac", "model selfie\n"
                             "coordinate x\n"
                             "lagrangian x'^2\n"
                             "component me = selfie from \"self.dirac\"\n");
    char cycle[512];
    snprintf(cycle, sizeof cycle, "component cycle: %s/self.dirac -> %s/self.dirac", temp_dir,
             temp_dir);
    expect_error("self.dirac", DIRAC_ERR_PARSE, "self.dirac:4:28", cycle);
    write_file("ca.dirac", "model ca\n"
                           "coordinate x\n"
                           "lagrangian x'^2\n"
                           "component other = cb from \"cb.dirac\"\n");
    write_file("cb.dirac", "model cb\n"
                           "coordinate y\n"
                           "lagrangian y'^2\n"
                           "component back = ca from \"ca.dirac\"\n");
    snprintf(cycle, sizeof cycle, "component cycle: %s/ca.dirac -> %s/cb.dirac -> %s/ca.dirac",
             temp_dir, temp_dir, temp_dir);
    expect_error("ca.dirac", DIRAC_ERR_PARSE, "cb.dirac:4:26", cycle);
    char note[256];
    snprintf(note, sizeof note, "note: included from %s/ca.dirac:4", temp_dir);
    {
        dirac_spec *spec = NULL;
        mem_files_load(&files, "ca.dirac", &spec);
        ENSURE(spec != NULL);
        if (spec)
            ENSURE_CONTAINS(dirac_spec_errmsg(spec), note);
        dirac_spec_destroy(spec);
    }
    // duplicate component names
    write_file("duplicate.dirac", "model m\n"
                                  "component a = block(m = 1) from \"block.dirac\"\n"
                                  "component a = block from \"block.dirac\"\n");
    expect_error("duplicate.dirac", DIRAC_ERR_PARSE, "duplicate.dirac:3:11",
                 "duplicate definition of 'a'");
    // interactions that make the constraints dependent: with another interaction, with the
    // interactions around a loop, and with a component's own constraint. The compiler finds
    // the rank by QR with column pivoting of the one-forms at the initial state and reports
    // the column left over (the one of smallest norm here: the other is scaled by 2), in the
    // file that declares it (a component's constraint: in the component's file).
    write_file("dependent.dirac", "model m\n"
                                  "component a = block from \"block.dirac\"\n"
                                  "component b = block from \"block.dirac\"\n"
                                  "constraint touch: a.x' = b.x'\n"
                                  "constraint push: 2*b.x' = 2*a.x'\n");
    expect_error("dependent.dirac", DIRAC_ERR_PARSE, "dependent.dirac:4:12",
                 "constraint 'touch' is linearly dependent on 'push' at the initial state "
                 "(rank 1 of 2): remove it or one of them");
    write_file("loop.dirac", "model m\n"
                             "component a = block from \"block.dirac\"\n"
                             "component b = block from \"block.dirac\"\n"
                             "component c = block from \"block.dirac\"\n"
                             "constraint ab: a.x' = b.x'\n"
                             "constraint bc: b.x' = c.x'\n"
                             "constraint ca: c.x' = a.x'\n");
    // (three one-forms of equal norm: which one is left over is decided by rounding, so the
    // test checks the rank and that the message names all three)
    {
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        dirac_status got = mem_files_load(&files, "loop.dirac", &spec);
        if (got == DIRAC_OK)
            got = dirac_model_compile(spec, &model);
        ENSURE_EQ_INT(got, DIRAC_ERR_PARSE);
        const char *msg = spec ? dirac_spec_errmsg(spec) : NULL;
        char where[256];
        snprintf(where, sizeof where, "%s/loop.dirac:", temp_dir);
        ENSURE_CONTAINS(msg, where);
        ENSURE_CONTAINS(msg, "is linearly dependent on '");
        ENSURE_CONTAINS(msg, " at the initial state (rank 2 of 3): remove it or one of them");
        ENSURE_CONTAINS(msg, "'ab'");
        ENSURE_CONTAINS(msg, "'bc'");
        ENSURE_CONTAINS(msg, "'ca'");
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
    }
    write_file("side.dirac", "model m\n"
                             "component s = skate from \"skate.dirac\"\n"
                             "constraint side: 2*s.y'*cos(s.th) = 2*s.x'*sin(s.th)\n");
    expect_error("side.dirac", DIRAC_ERR_PARSE, "skate.dirac:4:12",
                 "constraint 's.blade' is linearly dependent on 'side' at the initial state "
                 "(rank 1 of 2): remove it or one of them");
    // a two-form on a component's parameter and on the outer model's parameter
    write_file("twoform.dirac", "model m\n"
                                "parameter K = 1\n"
                                "component a = block from \"block.dirac\"\n"
                                "component b = block from \"block.dirac\"\n"
                                "twoform gy: K * d(a.x) ^ d(b.m)\n");
    expect_error("twoform.dirac", DIRAC_ERR_PARSE, "twoform.dirac:5:28",
                 "'b.m' is a parameter, not a coordinate");
    write_file("twoform2.dirac", "model m\n"
                                 "parameter K = 1\n"
                                 "component a = block from \"block.dirac\"\n"
                                 "twoform gy: K * d(a.x) ^ d(K)\n");
    expect_error("twoform2.dirac", DIRAC_ERR_PARSE, "twoform2.dirac:4:28",
                 "'K' is a parameter, not a coordinate");

    mem_files_clear(&files);
}

TEST_MAIN(TEST(structures), TEST(equivalence_contact), TEST(equivalence_mass_spring),
          TEST(equivalence_circuit), TEST(equivalence_nonholonomic), TEST(equivalence_dc_motor),
          TEST(equivalence_charged_particle), TEST(contact_third_law),
          TEST(mass_spring_is_the_chain), TEST(circuit_kirchhoff), TEST(nonholonomic_forces),
          TEST(dc_motor_energy), TEST(charged_particle_cycloid), TEST(errors))
