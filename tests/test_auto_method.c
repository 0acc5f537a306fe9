// The default method `auto` (issue 12, item 6): the choice per model class, and that a
// thermodynamic model keeps the first law to rounding by default (the discrete-gradient energy
// balance E_k − E_0 = W_k holds exactly in exact arithmetic; docs/methods.md, `dgrad`).
#include "harness.h"
#include "sim_run.h"

#include <math.h>

// A body on a spring with friction heating it (heat capacity C): no heat leaves, so the total
// energy m/2 x'² + k/2 x² + U(S) is conserved and the entropy grows.
static const char heating[] =
    "model heating\n"
    "parameter m = 1, k = 100, c = 2, C = 0.5, T0 = 300\n"
    "coordinate x\n"
    "entropy S\n"
    "lagrangian m/2*x'^2 - k/2*x^2 - C*T0*exp(S/C)\n"
    "friction x -> S: -c*x'\n"
    "initial x = 0.5\n";

// Series RC driven by a sine source, in branch charges: L has no velocity of the capacitor
// branch, so ∂²L/∂v² is singular (a small inductance L1 in the source branch).
static const char rc_circuit[] =
    "model rc\n"
    "parameter L1 = 1e-3, R = 1, C = 1e-3\n"
    "coordinate q1, q2\n"
    "lagrangian L1/2*q1'^2 - q2^2/(2*C) + sin(100*t)*q1\n"
    "force q2: -R*q2'\n"
    "constraint kcl: q1' = q2'\n";

static const char pendulum[] =
    "model pendulum\n"
    "coordinate x, y\n"
    "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
    "constraint rod: x^2 + y^2 = 1\n"
    "initial x = 0.479425538604203, y = -0.8775825618903728\n";

static const char skate[] =
    "model skate\n"
    "coordinate x, y, th\n"
    "lagrangian (x'^2 + y'^2)/2 + th'^2/20 + 0.3*x\n"
    "constraint blade: x'*sin(th) - y'*cos(th) = 0\n"
    "initial th' = 2\n";

static const char oscillator[] =
    "model oscillator\n"
    "coordinate x\n"
    "lagrangian x'^2/2 - x^2/2\n"
    "initial x = 1\n";

static void expect_choice(const char *text, const char *method, const char *reason)
{
    dirac_sim_options o = { .dt = 1e-3 };   // method NULL: auto
    run r;
    if (!run_open_with(&r, text, NULL, 0, &o))
        return;
    printf("  %-10s -> %-8s (%s)\n", dirac_model_name(r.model), dirac_sim_method(r.sim),
           dirac_sim_method_reason(r.sim));
    ENSURE(!strcmp(dirac_sim_method(r.sim), method));
    ENSURE(!strcmp(dirac_sim_method_requested(r.sim), "auto"));
    ENSURE(dirac_sim_method_reason(r.sim) && !strcmp(dirac_sim_method_reason(r.sim), reason));
    ENSURE(run_steps(&r, 20));
    run_close(&r);
}

static void test_choice_per_model_class(void)
{
    expect_choice(heating, "dgrad", "entropy variables");
    expect_choice(rc_circuit, "dgrad", "degenerate Lagrangian");
    expect_choice(pendulum, "midpoint", "regular Lagrangian, holonomic constraints");
    expect_choice(skate, "midpoint", "regular Lagrangian, nonholonomic constraints");
    expect_choice(oscillator, "midpoint", "regular Lagrangian");
    // "auto" spelled out is the same as no method; an explicit method is kept as asked
    dirac_sim_options o = { .method = "auto", .dt = 1e-3 };
    run r;
    if (run_open_with(&r, heating, NULL, 0, &o)) {
        ENSURE(!strcmp(dirac_sim_method(r.sim), "dgrad"));
        run_close(&r);
    }
    o.method = "midpoint";
    if (run_open_with(&r, pendulum, NULL, 0, &o)) {
        ENSURE(!strcmp(dirac_sim_method(r.sim), "midpoint"));
        ENSURE(!strcmp(dirac_sim_method_requested(r.sim), "midpoint"));
        ENSURE(dirac_sim_method_reason(r.sim) == NULL);
        run_close(&r);
    }
}

static void test_thermodynamic_first_law_by_default(void)
{
    // 5000 steps of 2e-3 (t = 10, the oscillation damped to 1e-4 of its energy): the energy
    // balance |E_k − E_0 − W_k| (W = 0: closed, isolated) stays at rounding relative to
    // E_0 ≈ 162.5 J (tolerance 1e-12 relative: Newton stops at 1e-14; midpoint, the old
    // default, misses it by O(h²): 2.6e-10 relative here); the entropy never decreases
    dirac_sim_options o = { .dt = 2e-3 };
    run r;
    if (!run_open_with(&r, heating, NULL, 0, &o))
        return;
    double e0 = dirac_sim_energy(r.sim), worst = 0, s_prev = dirac_sim_s(r.sim)[0], ds_min = 1;
    for (int k = 0; k < 5000 && run_steps(&r, 1); k++) {
        worst = fmax(worst, fabs(dirac_sim_energy(r.sim) - e0 - dirac_sim_work(r.sim)));
        ds_min = fmin(ds_min, dirac_sim_s(r.sim)[0] - s_prev);
        s_prev = dirac_sim_s(r.sim)[0];
    }
    printf("  heating by default (%s): max |E - E0 - W| = %.3e of E0 = %.6g; min entropy step "
           "%.3e\n", dirac_sim_method(r.sim), worst, e0, ds_min);
    ENSURE_LE(worst, 1e-12 * e0);
    ENSURE(ds_min >= 0.0);
    run_close(&r);
    // the same run with the old default shows the O(h²) error the choice avoids
    o.method = "midpoint";
    if (!run_open_with(&r, heating, NULL, 0, &o))
        return;
    worst = 0;
    for (int k = 0; k < 5000 && run_steps(&r, 1); k++)
        worst = fmax(worst, fabs(dirac_sim_energy(r.sim) - e0 - dirac_sim_work(r.sim)));
    printf("  heating with midpoint: max |E - E0 - W| = %.3e\n", worst);
    ENSURE(worst > 1e-10 * e0);   // measured 4.2e-8 = 2.6e-10 relative
    run_close(&r);
}

static void test_unknown_method_lists_auto(void)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    ENSURE(dirac_spec_parse("o.dirac", oscillator, strlen(oscillator), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_sim_options o = { .method = "automatic", .dt = 1e-3 };
    dirac_error err;
    ENSURE(dirac_sim_create(model, &o, &sim, &err) == DIRAC_ERR_ARGUMENT);
    ENSURE(strstr(err.message, "auto, midpoint") != NULL);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

TEST_MAIN(TEST(test_choice_per_model_class), TEST(test_thermodynamic_first_law_by_default),
          TEST(test_unknown_method_lists_auto))
