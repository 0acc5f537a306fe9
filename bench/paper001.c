// The numerical experiments of paper 001 (Salnikov & Hamdouni, arXiv:1807.06652), re-run with
// libdirac's integrators (docs/paper001.md; bench/paper001.sh builds and runs this).
//
// (a) Pendulum in Cartesian coordinates (examples/pendulum.dirac): m = l = 1, g = 9.81,
//     θ0 = π/4 from rest, 100 periods T = 4 √(l/g) K(sin(θ0/2)) (complete elliptic integral of
//     the first kind, by the arithmetic-geometric mean). For euler, rk4, dirac1, dirac2 and
//     midpoint at h = 0.01, 0.005, 0.002, 0.001: the relative constraint error |x²+y²−l²|/l² at
//     the end (the paper's Table 1, extended), its maximum over the run, the maximum relative
//     energy error max |E − E0|/|E0|, and the number of full turns (passages over the top). A
//     failed step (Newton failure, non-finite state) is reported as "failed at t = ...".
// (b) The trajectories at h = 0.005 (t, x, y, angle, E, relative constraint error; every step)
//     as CSV files pendulum_<method>.csv in the output directory (swept-region figures).
// (c) The Ziegler column (Salnikov & Hamdouni, paper 001 §2.4) with n = 2 and n = 8 rods (model text generated
//     below): point masses m at the joints of a chain of rigid rods of length l, base at the
//     origin, column upright; joint springs k/2 (θ_i − θ_{i−1})² on the angles from the vertical
//     θ_i = atan2(x_i − x_{i−1}, y_i − y_{i−1}) (θ_0 = 0: the base is clamped by a spring); a
//     constant downward force P at every joint, i.e. a potential +P y_i (L contains −P y_i).
//     The linearised stiffness about the upright column, K = k·tridiag(−1, 2, −1) (last
//     diagonal entry 1) − P l diag(n, n−1, ..., 1), is checked to be positive definite (upright
//     stable) and its frequencies against the linearised mass matrix m l² (n + 1 − max(i, j))
//     are printed. Each method runs 40 fundamental periods T1 from a straight column tilted by a
//     small angle; reported: mean and amplitude ((max − min)/2) of θ1 over the first and the
//     last 5 T1, the maximum relative constraint error max_i |φ_i|/l², the maximum energy error
//     relative to the initial excess energy E0 − E_upright, and a verdict. The joint angles at
//     one step per n go to ziegler<n>_<method>.csv.
//
// Usage: paper001 [--out DIR] [--examples DIR] [--every K] [--pendulum-only]
//   --out DIR       output directory for the CSV files (default build-bench/paper001; created)
//   --examples DIR  where pendulum.dirac is (default: the source tree's examples/)
//   --every K       write every K-th step of the pendulum CSVs (default 1)
//   --pendulum-only skip (c)
// Prints the tables (markdown) on stdout.
#include <dirac/dirac.h>

#include "problems.h"

#include <lapacke.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef DIRAC_SOURCE_DIR
#define DIRAC_SOURCE_DIR "."
#endif

static const double pi = 3.14159265358979323846;
static const char *const methods[] = { "euler", "rk4", "dirac1", "dirac2", "midpoint" };
enum { METHOD_COUNT = 5 };
static const double steps_h[] = { 0.01, 0.005, 0.002, 0.001 };
enum { H_COUNT = 4 };

static void die(const char *what, const char *message)
{
    fprintf(stderr, "paper001: %s: %s\n", what, message);
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// creates DIR and its parents (mkdir -p)
static void make_directories(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                die(path, strerror(errno));
            *s = '/';
        }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die(path, strerror(errno));
}

static FILE *open_csv(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path, strerror(errno));
    return f;
}

static dirac_model *compile_spec(dirac_spec *spec, dirac_status status, const char *what)
{
    if (status != DIRAC_OK)
        die(what, spec ? dirac_spec_errmsg(spec) : "out of memory");
    dirac_model *model = NULL;
    if (dirac_model_compile(spec, &model) != DIRAC_OK)
        die(what, dirac_spec_errmsg(spec));
    dirac_spec_destroy(spec);
    return model;
}

// One run's outcome.
typedef struct outcome {
    int failed;
    double fail_time;
    char message[600];
} outcome;

// One step; a failure is recorded in *o (when, and the library's message) and returns 0.
static int step_or_record(dirac_sim *sim, double h, outcome *o)
{
    if (dirac_sim_step(sim) == DIRAC_OK)
        return 1;
    o->failed = 1;
    o->fail_time = dirac_sim_time(sim) + h;
    snprintf(o->message, sizeof o->message, "%s", dirac_sim_errmsg(sim));
    return 0;
}

static dirac_sim *create_sim(const dirac_model *model, const char *method, double h)
{
    dirac_sim_options options = { .method = method, .dt = h };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK)
        die(method, err.message);
    return sim;
}

// formats a number, or "failed at t = ..." for a failed run, into buf
static const char *cell(char *buf, size_t size, const outcome *o, double value, const char *fmt)
{
    if (o->failed)
        snprintf(buf, size, "failed at t = %.4g", o->fail_time);
    else if (!isfinite(value))
        snprintf(buf, size, "inf");
    else
        snprintf(buf, size, fmt, value);
    return buf;
}

// ---------------------------------------------------------------------------------------
// (a), (b) The pendulum.

typedef struct pendulum_result {
    outcome o;
    double final_error;        // |x² + y² − l²| / l² at t = 100 T
    double max_error;          // its maximum over the run
    double energy_error;       // max |E − E0| / |E0|
    long turns;                // passages over the top
    double newton_mean;
    double seconds;
} pendulum_result;

static pendulum_result run_pendulum(const dirac_model *model, const char *method, double h,
                                    double t_end, FILE *csv, int every)
{
    const double l = 1.0;
    pendulum_result r = { 0 };
    dirac_sim *sim = create_sim(model, method, h);
    long steps = lround(t_end / h);
    double e0 = dirac_sim_energy(sim);
    const double *q = dirac_sim_q(sim);
    double angle = atan2(q[0], -q[1]), newton = 0.0;
    if (csv) {
        fprintf(csv, "t,x,y,angle,E,constraint_error\n");
        fprintf(csv, "%.10g,%.10g,%.10g,%.10g,%.10g,%.3e\n", 0.0, q[0], q[1], angle, e0,
                fabs(q[0] * q[0] + q[1] * q[1] - l * l) / (l * l));
    }
    double start = now();
    long k;
    for (k = 1; k <= steps; k++) {
        if (!step_or_record(sim, h, &r.o))
            break;
        newton += dirac_sim_newton_iterations(sim);
        q = dirac_sim_q(sim);
        double err = fabs(q[0] * q[0] + q[1] * q[1] - l * l) / (l * l);
        double e = dirac_sim_energy(sim);
        double a = atan2(q[0], -q[1]);
        if (fabs(a - angle) > pi)   // wrapped through ±π: the pendulum went over the top
            r.turns++;
        angle = a;
        r.max_error = fmax(r.max_error, err);
        r.energy_error = fmax(r.energy_error, fabs(e - e0) / fabs(e0));
        if (!isfinite(err) || !isfinite(e))
            r.energy_error = r.max_error = INFINITY;
        if (csv && k % every == 0)
            fprintf(csv, "%.10g,%.10g,%.10g,%.10g,%.10g,%.3e\n", dirac_sim_time(sim), q[0], q[1],
                    a, e, err);
    }
    r.seconds = now() - start;
    r.newton_mean = newton / (double)(k > 1 ? k - 1 : 1);
    q = dirac_sim_q(sim);
    r.final_error = fabs(q[0] * q[0] + q[1] * q[1] - l * l) / (l * l);
    dirac_sim_destroy(sim);
    return r;
}

// ---------------------------------------------------------------------------------------
// The swept-region figure: three panels (euler and dirac1; dirac1 and dirac2; midpoint) of the
// paths (x, y) read back from the CSV files, every `stride`-th row, clipped to |x|, |y| < 2.

static void svg_path(FILE *svg, const char *dir, const char *method, double x0, const char *colour,
                     int stride)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/pendulum_%s.csv", dir, method);
    FILE *csv = fopen(path, "r");
    if (!csv)
        die(path, strerror(errno));
    const double scale = 70.0, cx = x0 + 150.0, cy = 165.0;   // 2 m = 140 px
    int open = 0;
    long row = 0;
    if (!fgets(line, sizeof line, csv))   // header
        die(path, "empty file");
    while (fgets(line, sizeof line, csv)) {
        double t, x, y;
        if (sscanf(line, "%lf,%lf,%lf", &t, &x, &y) != 3)
            break;
        if (row++ % stride)
            continue;
        int inside = isfinite(x) && isfinite(y) && fabs(x) < 2.0 && fabs(y) < 2.0;
        if (inside && !open) {
            fprintf(svg, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"0.6\" "
                         "stroke-opacity=\"0.7\" points=\"", colour);
            open = 1;
        } else if (!inside && open) {
            fprintf(svg, "\"/>\n");
            open = 0;
        }
        if (inside)
            fprintf(svg, "%.1f,%.1f ", cx + scale * x, cy - scale * y);
    }
    if (open)
        fprintf(svg, "\"/>\n");
    fclose(csv);
}

static void swept_region_figure(const char *dir, double h, int stride)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pendulum_swept.svg", dir);
    FILE *svg = fopen(path, "w");
    if (!svg)
        die(path, strerror(errno));
    static const char *const panel[3][2] = { { "euler", "dirac1" }, { "dirac1", "dirac2" },
                                             { "midpoint", NULL } };
    static const char *const colour[3][2] = { { "#d62728", "#1f77b4" }, { "#1f77b4", "#2ca02c" },
                                              { "#000000", NULL } };
    fprintf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"330\" "
                 "font-family=\"sans-serif\" font-size=\"12\">\n"
                 "<rect width=\"900\" height=\"330\" fill=\"white\"/>\n");
    for (int i = 0; i < 3; i++) {
        double x0 = 300.0 * i;
        fprintf(svg, "<rect x=\"%.0f\" y=\"25\" width=\"280\" height=\"280\" fill=\"none\" "
                     "stroke=\"#888\"/>\n", x0 + 10);
        fprintf(svg, "<circle cx=\"%.0f\" cy=\"165\" r=\"70\" fill=\"none\" stroke=\"#bbb\" "
                     "stroke-dasharray=\"3,3\"/>\n", x0 + 150);
        for (int j = 0; j < 2 && panel[i][j]; j++) {
            svg_path(svg, dir, panel[i][j], x0, colour[i][j], stride);
            fprintf(svg, "<text x=\"%.0f\" y=\"%d\" fill=\"%s\">%s</text>\n", x0 + 20 + 90 * j,
                    320, colour[i][j], panel[i][j]);
        }
    }
    fprintf(svg, "<text x=\"10\" y=\"16\">Pendulum, theta0 = pi/4, h = %g, 100 periods: paths "
                 "(x, y) in [-2, 2] m x [-2, 2] m; dashed: the circle |q| = l</text>\n</svg>\n",
            h);
    fclose(svg);
}

// The header of a Markdown table with a row per method and a column per step size.
static void print_step_header(void)
{
    printf("| method |");
    for (int j = 0; j < H_COUNT; j++)
        printf(" h = %g |", steps_h[j]);
    printf("\n|---|");
    for (int j = 0; j < H_COUNT; j++)
        printf("---|");
    printf("\n");
}

static void pendulum_experiments(const char *examples, const char *out, int every)
{
    const double m = 1.0, l = 1.0, g = 9.81, theta0 = pi / 4;
    char path[4096], assignment[64];
    snprintf(path, sizeof path, "%s/pendulum.dirac", examples);
    dirac_spec *spec = NULL;
    dirac_status status = dirac_spec_load(path, &spec);
    if (status == DIRAC_OK) {
        snprintf(assignment, sizeof assignment, "theta0=%.17g", theta0);
        status = dirac_spec_set_parameter(spec, assignment);
        const char *fixed[3] = { "m=1", "l=1", "g=9.81" };
        for (int i = 0; i < 3 && status == DIRAC_OK; i++)
            status = dirac_spec_set_parameter(spec, fixed[i]);
    }
    dirac_model *model = compile_spec(spec, status, path);
    double period = pendulum_period(g, l, theta0);
    double t_end = 100.0 * period;
    printf("## (a) Pendulum: m = %g, l = %g, g = %g, θ0 = π/4 from rest\n\n", m, l, g);
    printf("Period T = 4 √(l/g) K(sin(θ0/2)) = %.10f s; 100 T = %.6f s; E0 = %.6f J.\n\n",
           period, t_end, -m * g * l * cos(theta0));

    pendulum_result results[METHOD_COUNT][H_COUNT];
    for (int i = 0; i < METHOD_COUNT; i++)
        for (int j = 0; j < H_COUNT; j++) {
            FILE *csv = NULL;
            if (steps_h[j] == 0.005) {
                char name[64];
                snprintf(name, sizeof name, "pendulum_%s.csv", methods[i]);
                csv = open_csv(out, name);
            }
            results[i][j] = run_pendulum(model, methods[i], steps_h[j], t_end, csv, every);
            if (csv)
                fclose(csv);
        }

    char buf[64];
    static const char *const titles[4] = {
        "Relative constraint error |x² + y² − l²| / l² at t = 100 T (Table 1 of the paper, extended)",
        "Maximum relative constraint error over [0, 100 T]",
        "Maximum relative energy error max |E − E0| / |E0| over [0, 100 T]",
        "Full turns (passages over the top) in [0, 100 T]; the exact motion has none",
    };
    for (int table = 0; table < 4; table++) {
        printf("%s\n\n", titles[table]);
        print_step_header();
        for (int i = 0; i < METHOD_COUNT; i++) {
            printf("| %s |", methods[i]);
            for (int j = 0; j < H_COUNT; j++) {
                const pendulum_result *r = &results[i][j];
                switch (table) {
                case 0: printf(" %s |", cell(buf, sizeof buf, &r->o, r->final_error, "%.2e")); break;
                case 1: printf(" %s |", cell(buf, sizeof buf, &r->o, r->max_error, "%.2e")); break;
                case 2: printf(" %s |", cell(buf, sizeof buf, &r->o, r->energy_error, "%.2e")); break;
                default:
                    if (r->o.failed)
                        printf(" %ld, then failed at t = %.4g |", r->turns, r->o.fail_time);
                    else
                        printf(" %ld |", r->turns);
                }
            }
            printf("\n");
        }
        printf("\n");
    }
    printf("Newton iterations per step (mean) and run time (s)\n\n");
    print_step_header();
    for (int i = 0; i < METHOD_COUNT; i++) {
        printf("| %s |", methods[i]);
        for (int j = 0; j < H_COUNT; j++)
            printf(" %.2f, %.3f s |", results[i][j].newton_mean, results[i][j].seconds);
        printf("\n");
    }
    printf("\n");
    for (int i = 0; i < METHOD_COUNT; i++)
        for (int j = 0; j < H_COUNT; j++)
            if (results[i][j].o.failed)
                printf("- %s, h = %g: %s\n", methods[i], steps_h[j], results[i][j].o.message);
    swept_region_figure(out, 0.005, 4);
    printf("\n## (b) Pendulum trajectories at h = 0.005\n\n");
    printf("%s/pendulum_<method>.csv for %s, %s, %s, %s, %s (columns t, x, y, angle, E, "
           "constraint_error; every %d step(s)); the swept regions (every 4th step) in "
           "%s/pendulum_swept.svg.\n\n",
           out, methods[0], methods[1], methods[2], methods[3], methods[4], every, out);
    dirac_model_destroy(model);
}

// ---------------------------------------------------------------------------------------
// (c) The Ziegler column.

typedef struct column {
    int n;
    double m, l, k, P, tilt;
} column;

// The .dirac text of the column (allocated; the caller frees it).
static char *column_text(const column *c)
{
    size_t cap = 4096 + (size_t)c->n * 400, len = 0;
    char *s = malloc(cap);
    if (!s)
        die("ziegler", "out of memory");
#define ADD(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
    ADD("model ziegler%d\n", c->n);
    ADD("parameter m = %.17g, l = %.17g, k = %.17g, P = %.17g, tilt = %.17g\n", c->m, c->l,
        c->k, c->P, c->tilt);
    ADD("coordinate ");
    for (int i = 1; i <= c->n; i++)
        ADD("%sx%d, y%d", i > 1 ? ", " : "", i, i);
    ADD("\n");
    for (int i = 1; i <= c->n; i++) {
        if (i == 1)
            ADD("let theta1 = atan2(x1, y1)\n");
        else
            ADD("let theta%d = atan2(x%d - x%d, y%d - y%d)\n", i, i, i - 1, i, i - 1);
    }
    for (int i = 1; i <= c->n; i++)
        ADD("lagrangian m/2*(x%d'^2 + y%d'^2) - P*y%d\n", i, i, i);
    ADD("lagrangian -k/2*theta1^2\n");
    for (int i = 2; i <= c->n; i++)
        ADD("lagrangian -k/2*(theta%d - theta%d)^2\n", i, i - 1);
    ADD("constraint rod1: x1^2 + y1^2 = l^2\n");
    for (int i = 2; i <= c->n; i++)
        ADD("constraint rod%d: (x%d - x%d)^2 + (y%d - y%d)^2 = l^2\n", i, i, i - 1, i, i - 1);
    for (int i = 1; i <= c->n; i++)
        ADD("initial x%d = %d*l*sin(tilt), y%d = %d*l*cos(tilt)\n", i, i, i, i);
#undef ADD
    if (len >= cap)
        die("ziegler", "model text too long");
    return s;
}

// Linearised frequencies about the upright column (ascending, n values); returns 0 if K is
// positive definite on the mass metric (upright stable).
static int column_frequencies(const column *c, double *omega)
{
    int n = c->n;
    double *K = calloc((size_t)(n * n), sizeof *K), *M = calloc((size_t)(n * n), sizeof *M);
    if (!K || !M)
        die("ziegler", "out of memory");
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            M[i * n + j] = c->m * c->l * c->l * (double)(n - (i > j ? i : j));
        K[i * n + i] = c->k * (i < n - 1 ? 2.0 : 1.0) - c->P * c->l * (double)(n - i);
        if (i + 1 < n)
            K[i * n + i + 1] = K[(i + 1) * n + i] = -c->k;
    }
    lapack_int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', n, K, n, M, n, omega);
    free(K);
    free(M);
    if (info != 0)
        die("ziegler", "dsygv failed");
    int stable = 1;
    for (int i = 0; i < n; i++) {
        if (omega[i] <= 0.0)
            stable = 0;
        omega[i] = omega[i] > 0.0 ? sqrt(omega[i]) : -sqrt(-omega[i]);
    }
    return stable ? 0 : -1;
}

typedef struct column_result {
    outcome o;
    double mean_first, amp_first, mean_last, amp_last;   // θ1 over the first/last 5 T1
    double max_error;                                     // max_i |φ_i| / l²
    double final_error;
    double energy_error;                                  // max |E − E0| / (E0 − E_upright)
    double newton_mean;
    double seconds;
} column_result;

static void column_angles(int n, const double *q, double *theta)
{
    double px = 0.0, py = 0.0;
    for (int i = 0; i < n; i++) {
        theta[i] = atan2(q[2 * i] - px, q[2 * i + 1] - py);
        px = q[2 * i];
        py = q[2 * i + 1];
    }
}

static double column_error(int n, double l, const double *q)
{
    double px = 0.0, py = 0.0, worst = 0.0;
    for (int i = 0; i < n; i++) {
        double dx = q[2 * i] - px, dy = q[2 * i + 1] - py;
        worst = fmax(worst, fabs(dx * dx + dy * dy - l * l) / (l * l));
        px = q[2 * i];
        py = q[2 * i + 1];
    }
    return worst;
}

static column_result run_column(const dirac_model *model, const column *c, const char *method,
                                double h, double period, double t_end, FILE *csv, int every)
{
    column_result r = { 0 };
    int n = c->n;
    dirac_sim *sim = create_sim(model, method, h);
    long steps = lround(t_end / h);
    double e0 = dirac_sim_energy(sim);
    double e_upright = c->P * c->l * (double)(n * (n + 1)) / 2.0;   // Σ P y_i, upright at rest
    double excess = e0 - e_upright;
    double theta[64];
    double window = 5.0 * period, t_last = t_end - window;
    double first_min = INFINITY, first_max = -INFINITY, first_sum = 0.0;
    double last_min = INFINITY, last_max = -INFINITY, last_sum = 0.0;
    long first_count = 0, last_count = 0;
    if (csv) {
        fprintf(csv, "t");
        for (int i = 1; i <= n; i++)
            fprintf(csv, ",theta%d", i);
        fprintf(csv, ",E,constraint_error\n");
    }
    double newton = 0.0, start = now();
    long k;
    for (k = 0; k <= steps; k++) {
        if (k > 0) {
            if (!step_or_record(sim, h, &r.o))
                break;
            newton += dirac_sim_newton_iterations(sim);
        }
        const double *q = dirac_sim_q(sim);
        double t = dirac_sim_time(sim), e = dirac_sim_energy(sim);
        column_angles(n, q, theta);
        double err = column_error(n, c->l, q);
        r.max_error = fmax(r.max_error, err);
        r.energy_error = fmax(r.energy_error, fabs(e - e0) / excess);
        if (!isfinite(err) || !isfinite(e))
            r.max_error = r.energy_error = INFINITY;
        if (t <= window + 0.5 * h) {
            first_min = fmin(first_min, theta[0]);
            first_max = fmax(first_max, theta[0]);
            first_sum += theta[0];
            first_count++;
        }
        if (t >= t_last - 0.5 * h) {
            last_min = fmin(last_min, theta[0]);
            last_max = fmax(last_max, theta[0]);
            last_sum += theta[0];
            last_count++;
        }
        if (csv && k % every == 0) {
            fprintf(csv, "%.10g", t);
            for (int i = 0; i < n; i++)
                fprintf(csv, ",%.10g", theta[i]);
            fprintf(csv, ",%.12g,%.3e\n", e, err);
        }
    }
    r.seconds = now() - start;
    r.newton_mean = newton / (double)(k > 1 ? k - 1 : 1);
    r.final_error = column_error(n, c->l, dirac_sim_q(sim));
    r.mean_first = first_sum / (double)(first_count ? first_count : 1);
    r.amp_first = 0.5 * (first_max - first_min);
    r.mean_last = last_count ? last_sum / (double)last_count : (double)NAN;
    r.amp_last = last_count ? 0.5 * (last_max - last_min) : (double)NAN;
    dirac_sim_destroy(sim);
    return r;
}

// The verdict: does the column keep oscillating about the upright equilibrium?
static const char *column_verdict(const column_result *r)
{
    if (r->o.failed)
        return "step failed";
    if (!isfinite(r->amp_last) || !isfinite(r->max_error))
        return "blew up";
    if (fabs(r->mean_last) > 0.5 || r->amp_last > 1.0)
        return "fell over / left the upright equilibrium";
    if (r->max_error > 0.1)
        return "oscillates, rods stretched > 10%";
    if (fabs(r->mean_last) > 0.25 * r->amp_first)
        return "oscillation off-centre";
    if (r->amp_last > 2.0 * r->amp_first)
        return "oscillation grows";
    if (r->amp_last < 0.5 * r->amp_first)
        return "oscillation damped";
    return "oscillates about upright";
}

static void column_experiment(const column *c, double csv_h, int csv_every, const char *out)
{
    char *text = column_text(c), name[64];
    snprintf(name, sizeof name, "ziegler%d (generated)", c->n);
    dirac_spec *spec = NULL;
    dirac_status status = dirac_spec_parse(name, text, strlen(text), &spec);
    dirac_model *model = compile_spec(spec, status, name);
    free(text);
    double omega[64];
    int stable = column_frequencies(c, omega);
    double period = 2.0 * pi / omega[0], t_end = 40.0 * period;
    printf("### n = %d: m = %g kg, l = %g m, k = %g N m/rad, P = %g N, initial tilt %g rad\n\n",
           c->n, c->m, c->l, c->k, c->P, c->tilt);
    printf("Linearised about the upright column: %s; ω_min = %.4f rad/s (T1 = %.4f s), "
           "ω_max = %.2f rad/s (ω_max·h = %.2f at h = 0.01, %.2f at h = 0.001). Runs: 40 T1 = "
           "%.3f s.\n\n",
           stable == 0 ? "stable (K positive definite)" : "UNSTABLE", omega[0], period,
           omega[c->n - 1], omega[c->n - 1] * 0.01, omega[c->n - 1] * 0.001, t_end);
    if (stable != 0)
        die("ziegler", "the chosen parameters make the upright column unstable");
    printf("| method | h | θ1 mean, first 5 T1 | θ1 amplitude, first 5 T1 | θ1 mean, last 5 T1 | "
           "θ1 amplitude, last 5 T1 | max constraint error | final constraint error | "
           "max energy error / (E0 − E_upright) | Newton its/step | verdict |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    column_result failed[METHOD_COUNT * H_COUNT];
    const char *failed_method[METHOD_COUNT * H_COUNT];
    double failed_h[METHOD_COUNT * H_COUNT];
    int failures = 0;
    char b[7][64];
    for (int i = 0; i < METHOD_COUNT; i++)
        for (int j = 0; j < H_COUNT; j++) {
            double h = steps_h[j];
            FILE *csv = NULL;
            if (h == csv_h) {
                char file[64];
                snprintf(file, sizeof file, "ziegler%d_%s.csv", c->n, methods[i]);
                csv = open_csv(out, file);
            }
            column_result r = run_column(model, c, methods[i], h, period, t_end, csv, csv_every);
            if (csv)
                fclose(csv);
            printf("| %s | %g | %s | %s | %s | %s | %s | %s | %s | %.2f | %s |\n", methods[i], h,
                   cell(b[0], 64, &(outcome){ 0 }, r.mean_first, "%+.4f"),
                   cell(b[1], 64, &(outcome){ 0 }, r.amp_first, "%.4f"),
                   cell(b[2], 64, &r.o, r.mean_last, "%+.4f"),
                   cell(b[3], 64, &r.o, r.amp_last, "%.4f"),
                   cell(b[4], 64, &(outcome){ 0 }, r.max_error, "%.2e"),
                   cell(b[5], 64, &r.o, r.final_error, "%.2e"),
                   r.energy_error < 1e6 ? (snprintf(b[6], 64, "%.2e", r.energy_error), b[6])
                                        : "> 1e6",
                   r.newton_mean, column_verdict(&r));
            if (r.o.failed) {
                failed[failures] = r;
                failed_method[failures] = methods[i];
                failed_h[failures++] = h;
            }
            fflush(stdout);
        }
    printf("\n");
    for (int f = 0; f < failures; f++)
        printf("- %s, h = %g: %s\n", failed_method[f], failed_h[f], failed[f].o.message);
    printf("\nJoint angles at h = %g: %s/ziegler%d_<method>.csv (columns t, theta1..theta%d, E, "
           "constraint_error; every %d steps).\n\n",
           csv_h, out, c->n, c->n, csv_every);
    dirac_model_destroy(model);
}

int main(int argc, char **argv)
{
    const char *out = "build-bench/paper001", *examples = DIRAC_SOURCE_DIR "/examples";
    int every = 1, pendulum_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--examples") == 0 && i + 1 < argc)
            examples = argv[++i];
        else if (strcmp(argv[i], "--pendulum-only") == 0)
            pendulum_only = 1;
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            every = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: paper001 [--out DIR] [--examples DIR] [--every K] "
                            "[--pendulum-only]\n");
            return 2;
        }
    }
    make_directories(out);
    printf("# Paper 001 (Salnikov & Hamdouni) re-run with libdirac %s\n\n", dirac_version());
    pendulum_experiments(examples, out, every);
    if (pendulum_only)
        return 0;

    printf("## (c) Ziegler column (constant downward forces P at the joints)\n\n");
    const column two = { .n = 2, .m = 1.0, .l = 0.5, .k = 50.0, .P = 9.81, .tilt = 0.05 };
    const column eight = { .n = 8, .m = 0.25, .l = 0.25, .k = 150.0, .P = 2.4525, .tilt = 0.02 };
    column_experiment(&two, 0.005, 1, out);
    column_experiment(&eight, 0.001, 5, out);
    return 0;
}
