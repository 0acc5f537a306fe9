// Large models: the LC transmission line carries a pulse at the speed 1/sqrt(LC) cells per
// second that its continuum limit predicts, with the sparse (KLU) Newton path doing the work.
#include "harness.h"
#include "problems.h"

#include <dirac/dirac.h>

#include <stdlib.h>

// N cells, L = C = 1 (problems.h); a Gaussian bump of capacitor charge of width `sigma` cells
// at cell `centre`.
static char *pulse_line(int cells, int centre, double sigma)
{
    double *charge = malloc((size_t)cells * sizeof *charge);
    if (!charge)
        return NULL;
    for (int i = 1; i <= cells; i++) {
        double x = (double)(i - centre) / sigma;
        charge[i - 1] = exp(-0.5 * x * x);
    }
    char *text = lc_line_model(cells, 1.0, 1.0, charge);
    free(charge);
    return text;
}

static void transmission_line_wave_speed(void)
{
    // the bump splits into two halves moving at ω/k → 1/sqrt(LC) = 1 cell/s; the discrete
    // ladder's group velocity at the bump's wavenumbers (k ~ 1/σ) is cos(k/2) ≈ 1 − 1/(8σ²)
    // (0.2% for σ = 8) and midpoint's phase error (ωh)²/12 is smaller: the peak of the right
    // half, which starts at cell 200, must be at 200 + t within 0.5 cell (0.5%) at t = 100 s
    int cells = 400, centre = 200;
    char *text = pulse_line(cells, centre, 8.0);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(text && dirac_spec_parse("line.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(spec && dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_sim_options options = { .method = "midpoint", .dt = 0.05 };   // sparse: 1200 unknowns
    ENSURE(model && dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK);
    int ok = sim != NULL;
    for (int k = 0; ok && k < 2000; k++)
        ok = dirac_sim_step(sim) == DIRAC_OK;
    ENSURE(ok);
    if (ok) {
        // capacitor charges are coordinates 1, 3, 5, ... (q_i, c_i interleaved)
        const double *q = dirac_sim_q(sim);
        int best = centre;
        for (int i = centre; i < cells; i++)
            if (q[2 * i + 1] > q[2 * best + 1])
                best = i;
        // parabola through the three largest samples
        double a = q[2 * (best - 1) + 1], b = q[2 * best + 1], c = q[2 * (best + 1) + 1];
        double peak = (double)(best + 1) + 0.5 * (a - c) / (a - 2 * b + c);   // cell number
        double travelled = peak - centre, t = dirac_sim_time(sim);
        printf("       peak at cell %.3f after %.1f s: speed %.5f cells/s (1/sqrt(LC) = 1), "
               "amplitude %.4f (0.5 expected)\n", peak, t, travelled / t, b);
        ENSURE_NEAR(travelled / t, 1.0, 0.005);
        ENSURE_NEAR(b, 0.5, 0.01);
    }
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    free(text);
}

TEST_MAIN(TEST(transmission_line_wave_speed))
