// Linear Dirac structures: constructors, ⊕, ⊠, composition, D^⊥, equality, error paths.
//
// Every random test is seeded (reproducible) and draws ≥ 1000 instances with n in 1..8.
// Tolerances: bases are orthonormal, so isotropy residuals, membership residuals and principal
// angles are relative quantities whose exact value is 0; LAPACK's SVD gives them at a few
// ulps times a modest condition factor. We require ≤ 1e-12 for isotropy (the library's
// DIRAC_ISOTROPY_TOL) and ≤ 1e-10 for angles between structures reached by different
// computations (each step of which loses up to cond·ε; random Gaussian instances have
// condition numbers up to ~1e3).
#include "harness.h"

#include <dirac/dirac.h>

#include <stdlib.h>

#define INSTANCES 1000
#define MAX_N 8
#define ANGLE_TOL 1e-10

static double norm(const double *x, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i] * x[i];
    return sqrt(sum);
}

static void random_vectors(test_rng *rng, int n, int count, double *out)
{
    for (int i = 0; i < n * count; i++)
        out[i] = test_rng_normal(rng);
}

static void random_skew(test_rng *rng, int n, double *omega)
{
    for (int i = 0; i < n; i++) {
        omega[i * n + i] = 0.0;
        for (int j = i + 1; j < n; j++) {
            omega[i * n + j] = test_rng_normal(rng);
            omega[j * n + i] = -omega[i * n + j];
        }
    }
}

// A random subspace of R^n of dimension k, given by a span (k ≥ 1) or by n - k forms.
static dirac_subspace *random_subspace(test_rng *rng, int n, int k)
{
    double vectors[MAX_N * MAX_N * 2];
    dirac_subspace *s = NULL;
    dirac_error err;
    dirac_status status;
    if (k > 0 && test_rng_int(rng, 0, 1)) {
        random_vectors(rng, n, k, vectors);
        status = dirac_subspace_from_span(n, k, vectors, &s, &err);
    } else {
        random_vectors(rng, n, n - k, vectors);
        status = dirac_subspace_from_annihilator(n, n - k, vectors, &s, &err);
    }
    ENSURE(status == DIRAC_OK);
    if (status != DIRAC_OK)
        fprintf(stderr, "  %s\n", err.message);
    return s;
}

// The checks every constructed structure must pass: dimension n, isotropy, D = D^⊥.
static double check_is_dirac(const dirac_structure *d, int n)
{
    ENSURE(d != NULL);
    if (!d)
        return 1.0;
    ENSURE_EQ_INT(dirac_structure_dim(d), n);
    double residual = dirac_structure_isotropy_residual(d);
    ENSURE_LE(residual, 1e-12);
    return residual;
}

static void constructor_two_form_distribution(void)
{
    test_rng rng = { 1 };
    double worst = 0.0, omega[MAX_N * MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N), k = test_rng_int(&rng, 0, n);
        dirac_subspace *delta = random_subspace(&rng, n, k);
        random_skew(&rng, n, omega);
        dirac_structure *d = NULL;
        ENSURE(dirac_structure_from_two_form(n, omega, delta, &d, NULL) == DIRAC_OK);
        double r = check_is_dirac(d, n);
        worst = r > worst ? r : worst;
        // defining elements belong: (u, Ω♭u + w) for u ∈ Δ, w ∈ Δ°
        dirac_subspace *ann = NULL;
        ENSURE(dirac_subspace_annihilator(delta, &ann, NULL) == DIRAC_OK);
        double v[MAX_N] = { 0 }, alpha[MAX_N] = { 0 };
        const double *u = dirac_subspace_basis(delta), *w = dirac_subspace_basis(ann);
        for (int j = 0; j < n; j++) {
            v[j] = k > 0 ? u[j] : 0.0;
            alpha[j] = k < n ? 0.5 * w[j] : 0.0;
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                alpha[j] += v[i] * omega[i * n + j];
        ENSURE_LE(dirac_structure_membership_residual(d, v, alpha), 1e-13);
        // a non-member: (0, α) with α ∈ Δ \ {0} is not in Δ° (when Δ ≠ {0}); its distance
        // depends on Ω (elements (εx, Ω♭εx) come close when Ω is large), hence the low bar
        if (k > 0) {
            double zero[MAX_N] = { 0 };
            ENSURE(dirac_structure_membership_residual(d, zero, u) > 1e-6);
        }
        dirac_subspace_destroy(ann);
        dirac_subspace_destroy(delta);
        dirac_structure_destroy(d);
    }
    printf("       worst isotropy residual %.2e\n", worst);
}

static void constructor_graph_two_form(void)
{
    test_rng rng = { 2 };
    double omega[MAX_N * MAX_N], v[MAX_N], alpha[MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N);
        random_skew(&rng, n, omega);
        dirac_structure *d = NULL;
        ENSURE(dirac_structure_from_two_form(n, omega, NULL, &d, NULL) == DIRAC_OK);
        check_is_dirac(d, n);
        // (v, Ω♭ v) ∈ graph, and it is power conserving: ⟨Ω♭ v, v⟩ = 0
        random_vectors(&rng, n, 1, v);
        double power = 0.0;
        for (int j = 0; j < n; j++) {
            alpha[j] = 0.0;
            for (int i = 0; i < n; i++)
                alpha[j] += v[i] * omega[i * n + j];
            power += alpha[j] * v[j];
        }
        ENSURE_LE(dirac_structure_membership_residual(d, v, alpha), 1e-13);
        ENSURE_LE(fabs(power), 1e-12 * (1.0 + norm(v, n) * norm(alpha, n)));
        // the opposite sign is not in the graph unless Ω♭ v = 0
        double minus[MAX_N];
        for (int j = 0; j < n; j++)
            minus[j] = -alpha[j];
        if (norm(alpha, n) > 1e-3 * norm(v, n))
            ENSURE(dirac_structure_membership_residual(d, v, minus) > 1e-6);
        dirac_structure_destroy(d);
    }
}

static void constructor_distribution_sum(void)
{
    // Δ ⊕ Δ°: velocities in Δ, forces in Δ°, and ⟨α, v⟩ = 0 for every element
    test_rng rng = { 3 };
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N), k = test_rng_int(&rng, 0, n);
        dirac_subspace *delta = random_subspace(&rng, n, k);
        dirac_structure *d = NULL;
        ENSURE(dirac_structure_from_distribution(delta, &d, NULL) == DIRAC_OK);
        check_is_dirac(d, n);
        const double *basis = dirac_structure_basis(d);
        for (int c = 0; c < n; c++) {
            const double *v = basis + 2 * c * n, *alpha = v + n;
            ENSURE_LE(dirac_subspace_distance(delta, v) * norm(v, n), 1e-13);
            double power = 0.0;
            for (int j = 0; j < n; j++)
                power += alpha[j] * v[j];
            ENSURE_LE(fabs(power), 1e-13);
        }
        dirac_subspace_destroy(delta);
        dirac_structure_destroy(d);
    }
}

static void constructor_poisson(void)
{
    test_rng rng = { 4 };
    double pi[MAX_N * MAX_N], alpha[MAX_N], v[MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N);
        random_skew(&rng, n, pi);
        dirac_structure *d = NULL;
        ENSURE(dirac_structure_from_poisson(n, pi, &d, NULL) == DIRAC_OK);
        check_is_dirac(d, n);
        random_vectors(&rng, n, 1, alpha);
        for (int j = 0; j < n; j++) {
            v[j] = 0.0;
            for (int i = 0; i < n; i++)
                v[j] += alpha[i] * pi[i * n + j];
        }
        ENSURE_LE(dirac_structure_membership_residual(d, v, alpha), 1e-13);
        dirac_structure_destroy(d);
    }
}

static void constructor_induced(void)
{
    // D_ΔQ = {((δq, δp), (α, u)) | δq ∈ Δ, u = δq, α + δp ∈ Δ°}
    test_rng rng = { 5 };
    double dq[MAX_N], dp[MAX_N], flow[2 * MAX_N], effort[2 * MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N / 2), k = test_rng_int(&rng, 0, n);
        dirac_subspace *delta = random_subspace(&rng, n, k), *ann = NULL;
        dirac_structure *d = NULL;
        ENSURE(dirac_structure_induced(n, delta, &d, NULL) == DIRAC_OK);
        check_is_dirac(d, 2 * n);
        ENSURE(dirac_subspace_annihilator(delta, &ann, NULL) == DIRAC_OK);
        // δq = a basis vector of Δ (or 0), δp random, α = -δp + a form in Δ°, u = δq
        for (int j = 0; j < n; j++) {
            dq[j] = k > 0 ? dirac_subspace_basis(delta)[j] : 0.0;
            dp[j] = test_rng_normal(&rng);
            flow[j] = dq[j];
            flow[n + j] = dp[j];
            effort[j] = -dp[j] + (k < n ? 0.3 * dirac_subspace_basis(ann)[j] : 0.0);
            effort[n + j] = dq[j];
        }
        ENSURE_LE(dirac_structure_membership_residual(d, flow, effort), 1e-13);
        // violating u = δq breaks membership
        if (k > 0) {
            effort[n] += 1.0;
            ENSURE(dirac_structure_membership_residual(d, flow, effort) > 1e-3);
        }
        dirac_subspace_destroy(delta);
        dirac_subspace_destroy(ann);
        dirac_structure_destroy(d);
    }
}

static void constructor_kernel_and_span(void)
{
    // the kernel (F, E) = (B_α^T, B_v^T) of any Dirac structure reproduces it, and so does
    // its basis given as a (redundant) spanning set
    test_rng rng = { 6 };
    double omega[MAX_N * MAX_N], f[MAX_N * MAX_N], e[MAX_N * MAX_N];
    double pairs[2 * MAX_N * 2 * MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N), k = test_rng_int(&rng, 0, n);
        dirac_subspace *delta = random_subspace(&rng, n, k);
        random_skew(&rng, n, omega);
        dirac_structure *d = NULL, *from_kernel = NULL, *from_span = NULL;
        ENSURE(dirac_structure_from_two_form(n, omega, delta, &d, NULL) == DIRAC_OK);
        const double *b = dirac_structure_basis(d);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                f[i * n + j] = b[2 * i * n + n + j];
                e[i * n + j] = b[2 * i * n + j];
            }
        dirac_error err;
        ENSURE(dirac_structure_from_kernel(n, f, e, &from_kernel, &err) == DIRAC_OK);
        check_is_dirac(from_kernel, n);
        // span: the basis plus random combinations of it (dependent set of 2n vectors)
        for (int c = 0; c < 2 * n; c++) {
            double coefficient[MAX_N];
            for (int m = 0; m < n; m++)
                coefficient[m] = c < n ? (m == c) : test_rng_normal(&rng);
            for (int l = 0; l < 2 * n; l++) {
                double value = 0.0;
                for (int m = 0; m < n; m++)
                    value += coefficient[m] * b[2 * m * n + l];
                pairs[c * 2 * n + l] = value;
            }
        }
        ENSURE(dirac_structure_from_span(n, 2 * n, pairs, &from_span, &err) == DIRAC_OK);
        if (!from_span) {
            fprintf(stderr, "  %s\n", err.message);
            break;
        }
        check_is_dirac(from_span, n);
        double angle = 1.0;
        ENSURE(dirac_structure_largest_angle(d, from_kernel, &angle, NULL) == DIRAC_OK);
        ENSURE_LE(angle, ANGLE_TOL);
        ENSURE(dirac_structure_largest_angle(d, from_span, &angle, NULL) == DIRAC_OK);
        ENSURE_LE(angle, ANGLE_TOL);
        int dim = 0;
        double residual = 1.0;
        ENSURE(dirac_check_dirac(n, 2 * n, pairs, &dim, &residual, NULL) == DIRAC_OK);
        ENSURE_EQ_INT(dim, n);
        dirac_subspace_destroy(delta);
        dirac_structure_destroy(d);
        dirac_structure_destroy(from_kernel);
        dirac_structure_destroy(from_span);
    }
}

static void complement_equals_structure(void)
{
    // D = D^⊥, with D^⊥ computed as a null space of the pairing
    test_rng rng = { 7 };
    double omega[MAX_N * MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N), k = test_rng_int(&rng, 0, n);
        dirac_subspace *delta = random_subspace(&rng, n, k);
        random_skew(&rng, n, omega);
        dirac_structure *d = NULL, *perp = NULL;
        ENSURE(dirac_structure_from_two_form(n, omega, delta, &d, NULL) == DIRAC_OK);
        ENSURE(dirac_structure_complement(d, &perp, NULL) == DIRAC_OK);
        double angle = 1.0;
        ENSURE(dirac_structure_largest_angle(d, perp, &angle, NULL) == DIRAC_OK);
        ENSURE_LE(angle, ANGLE_TOL);
        dirac_subspace_destroy(delta);
        dirac_structure_destroy(d);
        dirac_structure_destroy(perp);
    }
}

static void not_dirac_is_detected(void)
{
    // isotropic but too small, and right size but not isotropic
    double small[4] = { 1, 0, 0, 0 };           // n = 2, one pair (e1, 0)
    double skewed[8] = { 1, 0, 1, 0, 0, 1, 0, 1 }; // (e1, e1), (e2, e2): ⟨⟨x, x⟩⟩ = 2
    int dim = 0;
    double residual = 0.0;
    dirac_error err;
    ENSURE(dirac_check_dirac(2, 1, small, &dim, &residual, &err) == DIRAC_ERR_NOT_DIRAC);
    ENSURE_EQ_INT(dim, 1);
    ENSURE(dirac_check_dirac(2, 2, skewed, &dim, &residual, &err) == DIRAC_ERR_NOT_DIRAC);
    ENSURE_NEAR(residual, 1.0, 1e-12);   // of the normalised basis (e_i, e_i)/√2
    dirac_structure *d = (dirac_structure *)&err;   // must be overwritten with NULL
    ENSURE(dirac_structure_from_span(2, 2, skewed, &d, &err) == DIRAC_ERR_NOT_DIRAC);
    ENSURE(d == NULL);
    ENSURE_CONTAINS(err.message, "isotropy residual 1 ");
    // a kernel [F E] that is not isotropic: f = e (F = I, E = -I gives {(f, f)})
    double identity[4] = { 1, 0, 0, 1 }, minus[4] = { -1, 0, 0, -1 };
    ENSURE(dirac_structure_from_kernel(2, identity, minus, &d, &err) == DIRAC_ERR_NOT_DIRAC);
}

static void tensor_identity(void)
{
    // D(Ωa, Δa) ⊠ D(Ωb, Δb) = D(Ωa + Ωb, Δa ∩ Δb), including Δa ∩ Δb = {0} and Δa = Δb
    test_rng rng = { 8 };
    double oa[MAX_N * MAX_N], ob[MAX_N * MAX_N], osum[MAX_N * MAX_N], worst = 0.0;
    int zero_intersections = 0, equal_pairs = 0;
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N);
        int ka = test_rng_int(&rng, 0, n), kb = test_rng_int(&rng, 0, n);
        dirac_subspace *da = random_subspace(&rng, n, ka), *db = NULL, *both = NULL;
        if (trial % 5 == 0) {
            // Δb = Δa, given by a different description (its annihilator's annihilator)
            dirac_subspace *ann = NULL;
            ENSURE(dirac_subspace_annihilator(da, &ann, NULL) == DIRAC_OK);
            ENSURE(dirac_subspace_annihilator(ann, &db, NULL) == DIRAC_OK);
            dirac_subspace_destroy(ann);
            equal_pairs++;
        } else if (trial % 5 == 1) {
            // complementary dimensions: Δa ∩ Δb = {0} generically
            db = random_subspace(&rng, n, n - ka);
        } else {
            db = random_subspace(&rng, n, kb);
        }
        random_skew(&rng, n, oa);
        random_skew(&rng, n, ob);
        for (int i = 0; i < n * n; i++)
            osum[i] = oa[i] + ob[i];
        ENSURE(dirac_subspace_intersection(da, db, &both, NULL) == DIRAC_OK);
        if (dirac_subspace_dim(both) == 0)
            zero_intersections++;
        dirac_structure *sa = NULL, *sb = NULL, *product = NULL, *expected = NULL;
        ENSURE(dirac_structure_from_two_form(n, oa, da, &sa, NULL) == DIRAC_OK);
        ENSURE(dirac_structure_from_two_form(n, ob, db, &sb, NULL) == DIRAC_OK);
        dirac_error err;
        ENSURE(dirac_structure_tensor(sa, sb, &product, &err) == DIRAC_OK);
        if (!product) {
            fprintf(stderr, "  n=%d ka=%d kb=%d: %s\n", n, ka, kb, err.message);
            break;
        }
        ENSURE(dirac_structure_from_two_form(n, osum, both, &expected, NULL) == DIRAC_OK);
        check_is_dirac(product, n);
        double angle = 1.0;
        ENSURE(dirac_structure_largest_angle(product, expected, &angle, NULL) == DIRAC_OK);
        ENSURE_LE(angle, ANGLE_TOL);
        worst = angle > worst ? angle : worst;
        dirac_subspace_destroy(da);
        dirac_subspace_destroy(db);
        dirac_subspace_destroy(both);
        dirac_structure_destroy(sa);
        dirac_structure_destroy(sb);
        dirac_structure_destroy(product);
        dirac_structure_destroy(expected);
    }
    ENSURE(zero_intersections >= 100);
    ENSURE(equal_pairs >= 100);
    printf("       worst angle %.2e over %d pairs (%d with Δa ∩ Δb = {0}, %d with Δa = Δb)\n",
           worst, INSTANCES, zero_intersections, equal_pairs);
}

// Permutation taking D1 ⊕ D2's coordinates (q1, p1, q2, p2) to T*(Q1 x Q2)'s (q1, q2, p1, p2).
static void cotangent_order(int n1, int n2, int *perm)
{
    for (int i = 0; i < n1; i++) {
        perm[i] = i;                       // q1
        perm[n1 + n2 + i] = n1 + i;        // p1
    }
    for (int i = 0; i < n2; i++) {
        perm[n1 + i] = 2 * n1 + i;         // q2
        perm[2 * n1 + n2 + i] = 2 * n1 + n2 + i; // p2
    }
}

// (D_ΔQ1 ⊕ D_ΔQ2) ⊠ D_int(Σ) vs D_ΔQ with Δ_Q = (Δ1 ⊕ Δ2) ∩ Σ; returns the principal angle.
static double interconnection_angle(int n1, int n2, const dirac_subspace *delta1,
                                    const dirac_subspace *delta2, const dirac_subspace *sigma,
                                    dirac_structure **dint_out)
{
    int perm[4 * MAX_N];
    cotangent_order(n1, n2, perm);
    dirac_structure *d1 = NULL, *d2 = NULL, *sum = NULL, *ordered = NULL, *dint = NULL,
                    *connected = NULL, *induced = NULL;
    dirac_subspace *product = NULL, *delta = NULL;
    double angle = 1.0;
    dirac_error err;
    dirac_status status = dirac_structure_induced(n1, delta1, &d1, &err);
    if (!status)
        status = dirac_structure_induced(n2, delta2, &d2, &err);
    if (!status)
        status = dirac_structure_direct_sum(d1, d2, &sum, &err);
    if (!status)
        status = dirac_structure_permute(sum, perm, &ordered, &err);
    if (!status)
        status = dirac_structure_interaction(sigma, &dint, &err);
    if (!status)
        status = dirac_structure_tensor(ordered, dint, &connected, &err);
    if (!status)
        status = dirac_subspace_direct_sum(delta1, delta2, &product, &err);
    if (!status)
        status = dirac_subspace_intersection(product, sigma, &delta, &err);
    if (!status)
        status = dirac_structure_induced(n1 + n2, delta, &induced, &err);
    if (!status)
        status = dirac_structure_largest_angle(connected, induced, &angle, &err);
    ENSURE(status == DIRAC_OK);
    if (status)
        fprintf(stderr, "  %s\n", err.message);
    else
        check_is_dirac(connected, 2 * (n1 + n2));
    if (dint_out)
        *dint_out = dint;
    else
        dirac_structure_destroy(dint);
    dirac_structure_destroy(d1);
    dirac_structure_destroy(d2);
    dirac_structure_destroy(sum);
    dirac_structure_destroy(ordered);
    dirac_structure_destroy(connected);
    dirac_structure_destroy(induced);
    dirac_subspace_destroy(product);
    dirac_subspace_destroy(delta);
    return angle;
}

static void interconnection_theorem_random(void)
{
    test_rng rng = { 9 };
    double worst = 0.0;
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n1 = test_rng_int(&rng, 1, 3), n2 = test_rng_int(&rng, 1, 3), n = n1 + n2;
        dirac_subspace *delta1 = random_subspace(&rng, n1, test_rng_int(&rng, 0, n1));
        dirac_subspace *delta2 = random_subspace(&rng, n2, test_rng_int(&rng, 0, n2));
        dirac_subspace *sigma = random_subspace(&rng, n, test_rng_int(&rng, 0, n));
        double angle = interconnection_angle(n1, n2, delta1, delta2, sigma, NULL);
        ENSURE_LE(angle, ANGLE_TOL);
        worst = angle > worst ? angle : worst;
        dirac_subspace_destroy(delta1);
        dirac_subspace_destroy(delta2);
        dirac_subspace_destroy(sigma);
    }
    printf("       worst angle %.2e\n", worst);
}

static void two_masses_in_contact(void)
{
    // paper 000 §5: Σ = {v1 = v2}, Σ° = {f1 = -f2}
    const double contact[2] = { 1.0, -1.0 };
    dirac_subspace *sigma = NULL;
    dirac_structure *dint = NULL;
    ENSURE(dirac_subspace_from_annihilator(2, 1, contact, &sigma, NULL) == DIRAC_OK);
    ENSURE(sigma && dirac_subspace_dim(sigma) == 1);
    dirac_subspace *full1 = NULL;
    ENSURE(dirac_subspace_from_annihilator(1, 0, NULL, &full1, NULL) == DIRAC_OK);
    double angle = interconnection_angle(1, 1, full1, full1, sigma, &dint);
    ENSURE_LE(angle, 1e-14);
    // D_int on T*Q, coordinates (x1, x2, p1, p2): equal velocities, opposite forces, no
    // momentum components
    const double flow[4] = { 2.0, 2.0, 0.3, -0.1 }, opposite[4] = { 0.7, -0.7, 0.0, 0.0 };
    const double same[4] = { 0.7, 0.7, 0.0, 0.0 }, unequal[4] = { 2.0, 1.0, 0.0, 0.0 };
    ENSURE_LE(dirac_structure_membership_residual(dint, flow, opposite), 1e-15);
    ENSURE(dirac_structure_membership_residual(dint, flow, same) > 0.1);
    ENSURE(dirac_structure_membership_residual(dint, unequal, opposite) > 0.1);
    // interaction forces do no work: f1 v1 + f2 v2 = 0
    ENSURE_NEAR(opposite[0] * flow[0] + opposite[1] * flow[1], 0.0, 1e-15);
    dirac_structure_destroy(dint);
    dirac_subspace_destroy(sigma);
    dirac_subspace_destroy(full1);
}

static void dc_motor(void)
{
    // B = K dq ∧ dθ on (q, θ): graph(B♭) = {((I, ω), (V, τ)) | τ = K I, V = -K ω}
    test_rng rng = { 10 };
    for (int trial = 0; trial < 100; trial++) {
        double k = test_rng_uniform(&rng, 0.01, 10.0);
        const double b[4] = { 0.0, k, -k, 0.0 };
        dirac_structure *motor = NULL;
        ENSURE(dirac_structure_from_two_form(2, b, NULL, &motor, NULL) == DIRAC_OK);
        check_is_dirac(motor, 2);
        double current = test_rng_normal(&rng), omega = test_rng_normal(&rng);
        double flow[2] = { current, omega }, effort[2] = { -k * omega, k * current };
        ENSURE_LE(dirac_structure_membership_residual(motor, flow, effort), 1e-14);
        // power conserving: V I + τ ω = 0 for every element of the basis
        const double *basis = dirac_structure_basis(motor);
        for (int c = 0; c < 2; c++)
            ENSURE_NEAR(basis[4 * c + 2] * basis[4 * c] + basis[4 * c + 3] * basis[4 * c + 1],
                        0.0, 1e-15);
        // the opposite motor constant is a different structure
        double wrong[2] = { k * omega, -k * current };
        ENSURE(dirac_structure_membership_residual(motor, flow, wrong) > 1e-3);
        dirac_structure_destroy(motor);
    }
}

static void composition(void)
{
    // random compositions are Dirac; composing with the identity wire
    // W = {(g, f3, h, e3) | f3 = -g, e3 = h} on V2 x V2 returns the structure unchanged
    test_rng rng = { 11 };
    double omega[MAX_N * MAX_N], wire[2 * MAX_N * 2 * MAX_N];
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n1 = test_rng_int(&rng, 0, 3), s = test_rng_int(&rng, 1, 3), n3 = test_rng_int(&rng, 0, 3);
        if (n1 + n3 == 0)
            n1 = 1;
        int na = n1 + s, nb = s + n3;
        dirac_subspace *da = random_subspace(&rng, na, test_rng_int(&rng, 0, na));
        dirac_subspace *db = random_subspace(&rng, nb, test_rng_int(&rng, 0, nb));
        dirac_structure *a = NULL, *b = NULL, *ab = NULL, *w = NULL, *aw = NULL;
        random_skew(&rng, na, omega);
        ENSURE(dirac_structure_from_two_form(na, omega, da, &a, NULL) == DIRAC_OK);
        random_skew(&rng, nb, omega);
        ENSURE(dirac_structure_from_two_form(nb, omega, db, &b, NULL) == DIRAC_OK);
        dirac_error err;
        ENSURE(dirac_structure_compose(a, b, s, &ab, &err) == DIRAC_OK);
        if (!ab)
            fprintf(stderr, "  n1=%d s=%d n3=%d: %s\n", n1, s, n3, err.message);
        check_is_dirac(ab, n1 + n3);
        // identity wire on V2 x V2 (4s-vectors (g, f3, h, e3))
        int nw = 2 * s;
        for (int i = 0; i < 2 * nw * nw; i++)
            wire[i] = 0.0;
        for (int i = 0; i < s; i++) {
            wire[i * 2 * nw + i] = 1.0;                   // g = e_i
            wire[i * 2 * nw + s + i] = -1.0;              // f3 = -g
            wire[(s + i) * 2 * nw + nw + i] = 1.0;        // h = e_i
            wire[(s + i) * 2 * nw + nw + s + i] = 1.0;    // e3 = h
        }
        ENSURE(dirac_structure_from_span(nw, nw, wire, &w, &err) == DIRAC_OK);
        ENSURE(dirac_structure_compose(a, w, s, &aw, &err) == DIRAC_OK);
        double angle = 1.0;
        if (aw) {
            ENSURE(dirac_structure_largest_angle(a, aw, &angle, NULL) == DIRAC_OK);
            ENSURE_LE(angle, ANGLE_TOL);
        }
        dirac_subspace_destroy(da);
        dirac_subspace_destroy(db);
        dirac_structure_destroy(a);
        dirac_structure_destroy(b);
        dirac_structure_destroy(ab);
        dirac_structure_destroy(w);
        dirac_structure_destroy(aw);
    }
}

static void subspace_operations(void)
{
    // dim(A ∩ B) = dim A + dim B - dim(A + B), A ∩ B ⊂ A and ⊂ B, (A°)° = A
    test_rng rng = { 12 };
    for (int trial = 0; trial < INSTANCES; trial++) {
        int n = test_rng_int(&rng, 1, MAX_N);
        dirac_subspace *a = random_subspace(&rng, n, test_rng_int(&rng, 0, n));
        dirac_subspace *b = random_subspace(&rng, n, test_rng_int(&rng, 0, n));
        dirac_subspace *sum = NULL, *both = NULL, *ann = NULL, *ann2 = NULL;
        ENSURE(dirac_subspace_sum(a, b, &sum, NULL) == DIRAC_OK);
        ENSURE(dirac_subspace_intersection(a, b, &both, NULL) == DIRAC_OK);
        ENSURE(dirac_subspace_annihilator(a, &ann, NULL) == DIRAC_OK);
        ENSURE(dirac_subspace_annihilator(ann, &ann2, NULL) == DIRAC_OK);
        ENSURE_EQ_INT(dirac_subspace_dim(both),
                      dirac_subspace_dim(a) + dirac_subspace_dim(b) - dirac_subspace_dim(sum));
        ENSURE_EQ_INT(dirac_subspace_dim(ann), n - dirac_subspace_dim(a));
        for (int c = 0; c < dirac_subspace_dim(both); c++) {
            const double *x = dirac_subspace_basis(both) + c * n;
            ENSURE_LE(dirac_subspace_distance(a, x), 1e-12);
            ENSURE_LE(dirac_subspace_distance(b, x), 1e-12);
        }
        double angle = 1.0;
        ENSURE(dirac_subspace_largest_angle(a, ann2, &angle, NULL) == DIRAC_OK);
        ENSURE_LE(angle, 1e-12);
        dirac_subspace_destroy(a);
        dirac_subspace_destroy(b);
        dirac_subspace_destroy(sum);
        dirac_subspace_destroy(both);
        dirac_subspace_destroy(ann);
        dirac_subspace_destroy(ann2);
    }
}

// Runs `call`, checks it returned `expected` with a message containing `text`, and that the
// out-pointer was left NULL.
#define ENSURE_FAILS(call, out, expected, text)                                         \
    do {                                                                                \
        dirac_error err_ = { DIRAC_OK, "" };                                            \
        dirac_error *err = &err_;                                                       \
        ENSURE_EQ_INT((call), (expected));                                              \
        ENSURE_EQ_INT(err_.status, (expected));                                         \
        ENSURE_CONTAINS(err_.message, (text));                                          \
        ENSURE((out) == NULL);                                                          \
    } while (0)

static void error_paths(void)
{
    dirac_subspace *s = NULL, *s3 = NULL;
    dirac_structure *d = NULL, *d2 = NULL, *d3 = NULL;
    const double not_skew[4] = { 0.0, 1.0, 1.0, 0.0 }, skew[4] = { 0.0, 1.0, -1.0, 0.0 };
    const double with_nan[4] = { 0.0, NAN, -NAN, 0.0 }, dependent[4] = { 1.0, 2.0, 2.0, 4.0 };
    const double vec[3] = { 1.0, 0.0, 0.0 };

    ENSURE_FAILS(dirac_subspace_from_span(2, 2, dependent, &s, err), s, DIRAC_ERR_RANK,
                 "linearly dependent (rank 1;");
    ENSURE_FAILS(dirac_subspace_from_annihilator(2, 2, dependent, &s, err), s, DIRAC_ERR_RANK,
                 "annihilating one-forms are linearly dependent");
    ENSURE_FAILS(dirac_subspace_from_span(2, 0, vec, &s, err), s, DIRAC_ERR_RANK,
                 "empty spanning set");
    ENSURE_FAILS(dirac_subspace_from_span(0, 1, vec, &s, err), s, DIRAC_ERR_SIZE,
                 "at least 1");
    ENSURE_FAILS(dirac_subspace_from_span(2, 3, vec, &s, err), s, DIRAC_ERR_SIZE,
                 "3 spanning vectors given in R^2");
    ENSURE_FAILS(dirac_subspace_from_span(2, 2, with_nan, &s, err), s, DIRAC_ERR_NOT_FINITE,
                 "NaN");
    ENSURE_FAILS(dirac_structure_from_two_form(2, not_skew, NULL, &d, err), d,
                 DIRAC_ERR_NOT_SKEW, "not skew-symmetric: entries (1,2) = 1 and (2,1) = 1");
    ENSURE_FAILS(dirac_structure_from_two_form(2, with_nan, NULL, &d, err), d,
                 DIRAC_ERR_NOT_FINITE, "two-form has NaN");
    ENSURE_FAILS(dirac_structure_from_poisson(2, not_skew, &d, err), d, DIRAC_ERR_NOT_SKEW,
                 "Poisson bivector is not skew");
    ENSURE_FAILS(dirac_structure_from_two_form(-1, skew, NULL, &d, err), d, DIRAC_ERR_SIZE,
                 "dimension must be at least 1");
    ENSURE(dirac_subspace_from_span(3, 1, vec, &s3, NULL) == DIRAC_OK);
    ENSURE_FAILS(dirac_structure_from_two_form(2, skew, s3, &d, err), d, DIRAC_ERR_SIZE,
                 "distribution lives in R^3 but the space has dimension 2");
    ENSURE_FAILS(dirac_structure_induced(2, s3, &d, err), d, DIRAC_ERR_SIZE,
                 "Q has dimension 2");
    ENSURE_FAILS(dirac_structure_from_kernel(2, dependent, dependent, &d, err), d,
                 DIRAC_ERR_RANK, "rank [F E] = 1");
    ENSURE_FAILS(dirac_structure_from_span(2, 0, vec, &d, err), d, DIRAC_ERR_SIZE,
                 "needs at least 2 spanning pairs");
    // operations on mismatched sizes
    ENSURE(dirac_structure_from_two_form(2, skew, NULL, &d2, NULL) == DIRAC_OK);
    ENSURE(dirac_structure_induced(3, NULL, &d3, NULL) == DIRAC_OK);
    ENSURE_FAILS(dirac_structure_tensor(d2, d3, &d, err), d, DIRAC_ERR_SIZE,
                 "dimensions 2 and 6");
    ENSURE_FAILS(dirac_structure_compose(d2, d3, 4, &d, err), d, DIRAC_ERR_SIZE,
                 "over 4 shared ports");
    const int bad_perm[2] = { 0, 0 };
    ENSURE_FAILS(dirac_structure_permute(d2, bad_perm, &d, err), d, DIRAC_ERR_ARGUMENT,
                 "not a permutation of 0..1: entry 1 is 0");
    ENSURE(isnan(dirac_structure_membership_residual(d2, with_nan, vec)));
    ENSURE(!strcmp(dirac_status_string(DIRAC_ERR_NOT_SKEW), "matrix is not skew-symmetric"));
    ENSURE(!strcmp(dirac_status_string((dirac_status)999), "unknown status"));
    dirac_subspace_destroy(s3);
    dirac_structure_destroy(d2);
    dirac_structure_destroy(d3);
    dirac_structure_destroy(NULL);
    dirac_subspace_destroy(NULL);
}

TEST_MAIN(TEST(constructor_two_form_distribution), TEST(constructor_graph_two_form),
          TEST(constructor_distribution_sum), TEST(constructor_poisson),
          TEST(constructor_induced), TEST(constructor_kernel_and_span),
          TEST(complement_equals_structure), TEST(not_dirac_is_detected),
          TEST(tensor_identity), TEST(interconnection_theorem_random),
          TEST(two_masses_in_contact), TEST(dc_motor), TEST(composition),
          TEST(subspace_operations), TEST(error_paths))
