// `dirac demo`: builds the Dirac structures of two examples of paper 000 and checks them.
//   1. ideal DC motor, D = graph(B♭) with B = K dq ∧ dθ: τ = K I, V = −K ω, power V I + τ ω = 0;
//   2. two masses in contact: (D_ΔQ1 ⊕ D_ΔQ2) ⊠ D_int(Σ), Σ = {v1 = v2}, equals D_ΔQ with
//      Δ_Q = Σ (the interconnection theorem of Jacobs & Yoshimura).
#include "commands.h"
#include "exit_status.h"

#include <dirac/dirac.h>

#include <math.h>
#include <stdio.h>

static int report_failure(const char *what, const dirac_error *err)
{
    fprintf(stderr, "dirac demo: error: %s: %s\n", what,
            err->message[0] ? err->message : dirac_status_string(err->status));
    return err->status == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_FAILED;
}

static int demo_dc_motor(double k)
{
    dirac_error err;
    dirac_structure *motor = NULL;
    const double b[4] = { 0.0, k, -k, 0.0 };   // B(e_q, e_θ) = K
    if (dirac_structure_from_two_form(2, b, NULL, &motor, &err))
        return report_failure("DC motor", &err);
    const double current = 2.0, omega = 3.0;
    const double flow[2] = { current, omega };
    const double effort[2] = { -k * omega, k * current };   // (V, τ)
    printf("ideal DC motor, D = graph(B♭), B = %g dq ∧ dθ\n", k);
    printf("  isotropy residual            %.3e\n", dirac_structure_isotropy_residual(motor));
    printf("  (I, ω) = (%g, %g) -> V = -Kω = %g, τ = K I = %g\n", current, omega, effort[0],
           effort[1]);
    printf("  membership residual          %.3e\n",
           dirac_structure_membership_residual(motor, flow, effort));
    printf("  power V I + τ ω              %.3e\n", effort[0] * current + effort[1] * omega);
    dirac_structure_destroy(motor);
    return 0;
}

static int demo_two_masses(void)
{
    dirac_error err;
    dirac_structure *d1 = NULL, *d2 = NULL, *sum = NULL, *sum_qqpp = NULL, *dint = NULL,
                    *connected = NULL, *induced = NULL;
    dirac_subspace *sigma = NULL;
    const double contact[2] = { 1.0, -1.0 };   // Σ° = span{dx1 - dx2}
    int rc = 0;
    double angle = NAN;
    // order of D1 ⊕ D2 is (x1, p1, x2, p2); T*(Q1 x Q2) uses (x1, x2, p1, p2)
    const int to_qqpp[4] = { 0, 2, 1, 3 };
    if (dirac_structure_induced(1, NULL, &d1, &err) || dirac_structure_induced(1, NULL, &d2, &err) ||
        dirac_structure_direct_sum(d1, d2, &sum, &err) ||
        dirac_structure_permute(sum, to_qqpp, &sum_qqpp, &err) ||
        dirac_subspace_from_annihilator(2, 1, contact, &sigma, &err) ||
        dirac_structure_interaction(sigma, &dint, &err) ||
        dirac_structure_tensor(sum_qqpp, dint, &connected, &err) ||
        dirac_structure_induced(2, sigma, &induced, &err) ||
        dirac_structure_largest_angle(connected, induced, &angle, &err)) {
        rc = report_failure("two masses in contact", &err);
    } else {
        // a contact force f on mass 1 and -f on mass 2 with equal velocities is admissible
        const double v[4] = { 1.5, 1.5, 0.0, 0.0 }, forces[4] = { 0.7, -0.7, 0.0, 0.0 };
        printf("two masses in contact, Σ = {v1 = v2}\n");
        printf("  (D1 ⊕ D2) ⊠ D_int vs D_ΔQ    largest principal angle %.3e rad\n", angle);
        printf("  isotropy residual            %.3e\n", dirac_structure_isotropy_residual(connected));
        printf("  interaction forces (f, -f)   membership residual %.3e in D_int\n",
               dirac_structure_membership_residual(dint, v, forces));
    }
    dirac_structure_destroy(d1);
    dirac_structure_destroy(d2);
    dirac_structure_destroy(sum);
    dirac_structure_destroy(sum_qqpp);
    dirac_structure_destroy(dint);
    dirac_structure_destroy(connected);
    dirac_structure_destroy(induced);
    dirac_subspace_destroy(sigma);
    return rc;
}

int cli_demo(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "dirac demo: error: no arguments expected\n");
        return EXIT_BAD_INPUT;
    }
    int rc = demo_dc_motor(0.05);
    if (rc == 0)
        rc = demo_two_masses();
    return rc;
}
