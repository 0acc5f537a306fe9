// Circuits in branch charges against ngspice (tests/circuits/): RC, RL, an RC and an RLC ladder
// and a small network, each a .dirac model (Kirchhoff's current law as velocity constraints,
// resistors and sources as forces, L degenerate in the resistor and capacitor branch
// velocities) and the same circuit as a SPICE netlist (.cir). ngspice integrates the netlist
// at reltol 1e-9 with steps of at most 2e-8 s; dirac integrates the model at h and h/2, and
// every `output` of the model (node voltages, branch currents) is compared at every node with
// the ngspice vector in the same position of the netlist's `wrdata` line (linear interpolation
// between ngspice's points: error ≤ (2e-8 s)² ω² / 8 ≈ 1e-9 of the peak).
//
// Tolerances, relative to each signal's peak over the run:
// - midpoint, dgrad (order 2): error(h) ≤ (ω_max h)²/4 at h = 1e-6 s, ω_max the circuit's
//   fastest rate (source frequency, 1/(RC), 1/√(LC); the midpoint rule's phase error on a mode
//   of rate ω is (ω h)²/12 per radian, measured 0.3…0.6 of this bound), and the observed order
//   log2(error(h)/error(h/2)) within 0.25 of 2;
// - dirac1 (order 1): error ≤ 2e-2 at h = 1e-6 s (ω h = 5e-3 times the circuit's gain).
// Skipped (exit 77) only when ngspice is not installed; scripts/setup.sh installs it.
#include "harness.h"

#include <dirac/dirac.h>

#include <stdlib.h>
#include <string.h>

#define CIRCUITS DIRAC_SOURCE_DIR "/tests/circuits/"
#define MAX_OUTPUTS 8

typedef struct reference {
    int rows, columns;   // columns: t and the outputs
    double *data;        // rows x columns, row-major
} reference;

// Writes the netlist with its OUTFILE replaced, runs ngspice -b and reads the table.
static int run_ngspice(const char *name, int outputs, reference *ref)
{
    char path[512], netlist[512], table[512], command[1200];
    snprintf(path, sizeof path, CIRCUITS "%s.cir", name);
    snprintf(netlist, sizeof netlist, DIRAC_BINARY_DIR "/tests/ngspice_%s.cir", name);
    snprintf(table, sizeof table, DIRAC_BINARY_DIR "/tests/ngspice_%s.txt", name);
    FILE *in = fopen(path, "r"), *out = fopen(netlist, "w");
    ENSURE(in && out);
    if (!in || !out) {
        if (in)
            fclose(in);
        if (out)
            fclose(out);
        return 0;
    }
    char line[512];
    while (fgets(line, sizeof line, in)) {
        char *mark = strstr(line, "OUTFILE");
        if (mark) {
            *mark = '\0';
            fprintf(out, "%s%s%s", line, table, mark + strlen("OUTFILE"));
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    remove(table);
    snprintf(command, sizeof command, "ngspice -b '%s' >/dev/null 2>&1", netlist);
    // (ngspice -b exits 1 after a .control run; the table read below is the check)
    (void)!system(command);
    FILE *f = fopen(table, "r");
    ENSURE(f != NULL);
    if (!f)
        return 0;
    ref->columns = 1 + outputs;
    ref->rows = 0;
    int capacity = 1 << 16;
    ref->data = malloc((size_t)capacity * (size_t)ref->columns * sizeof *ref->data);
    for (;;) {
        if (ref->rows == capacity) {
            capacity *= 2;
            double *grown = realloc(ref->data, (size_t)capacity * (size_t)ref->columns *
                                                   sizeof *ref->data);
            if (!grown)
                break;
            ref->data = grown;
        }
        double *row = ref->data + (size_t)ref->rows * (size_t)ref->columns;
        int got = 0;
        for (int c = 0; c < ref->columns; c++)
            got += fscanf(f, "%lf", &row[c]);
        if (got != ref->columns)
            break;
        ref->rows++;
    }
    fclose(f);
    ENSURE(ref->rows > 1000);
    return ref->rows > 1000;
}

// Reference value of column c at time t (linear interpolation; *cursor moves forward).
static double reference_at(const reference *ref, int *cursor, double t, int c)
{
    const double *d = ref->data;
    int w = ref->columns;
    while (*cursor + 2 < ref->rows && d[(size_t)(*cursor + 1) * (size_t)w] <= t)
        (*cursor)++;
    double t0 = d[(size_t)*cursor * (size_t)w], t1 = d[(size_t)(*cursor + 1) * (size_t)w];
    double y0 = d[(size_t)*cursor * (size_t)w + (size_t)c];
    double y1 = d[(size_t)(*cursor + 1) * (size_t)w + (size_t)c];
    if (t <= t0)
        return y0;
    return y0 + (y1 - y0) * (t - t0) / (t1 - t0);
}

// Max over the run of |output_k − reference_k| / max |reference_k| (the worst output), with
// `method` at step h to t_end; -1 if the run fails.
static double circuit_error(const char *name, const char *method, double h, double t_end,
                            const reference *ref)
{
    char path[512];
    snprintf(path, sizeof path, CIRCUITS "%s.dirac", name);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    double worst = -1.0;
    if (dirac_spec_load(path, &spec) != DIRAC_OK || dirac_model_compile(spec, &model) != DIRAC_OK) {
        fprintf(stderr, "  %s: %s\n", name, spec ? dirac_spec_errmsg(spec) : "out of memory");
        ENSURE(!"model compiled");
        goto done;
    }
    dirac_sim_options options = { 0 };
    options.method = method;
    options.dt = h;
    dirac_error err;
    if (dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK) {
        fprintf(stderr, "  %s/%s: %s\n", name, method, err.message);
        ENSURE(!"simulation created");
        goto done;
    }
    int outputs = dirac_model_output_count(model);
    double error[MAX_OUTPUTS] = { 0 }, peak[MAX_OUTPUTS] = { 0 }, y[MAX_OUTPUTS];
    int cursor = 0;
    long steps = lround(t_end / h);
    for (long k = 1; k <= steps; k++) {
        if (dirac_sim_step(sim) != DIRAC_OK) {
            fprintf(stderr, "  %s/%s: %s\n", name, method, dirac_sim_errmsg(sim));
            ENSURE(!"step failed");
            goto done;
        }
        dirac_sim_outputs(sim, y);
        double t = dirac_sim_time(sim);
        for (int c = 0; c < outputs; c++) {
            double r = reference_at(ref, &cursor, t, c + 1);
            error[c] = fmax(error[c], fabs(y[c] - r));
            peak[c] = fmax(peak[c], fabs(r));
        }
    }
    worst = 0.0;
    for (int c = 0; c < outputs; c++) {
        double relative = error[c] / peak[c];
        if (!(relative <= worst))
            worst = relative;
    }
done:
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return worst;
}

static int ngspice_missing(void)
{
    return system("command -v ngspice >/dev/null 2>&1") != 0;
}

static void check_circuit(const char *name, int outputs, double t_end, double rate)
{
    reference ref = { 0 };
    if (!run_ngspice(name, outputs, &ref)) {
        free(ref.data);
        return;
    }
    double h = 1e-6;
    double e1 = circuit_error(name, "midpoint", h, t_end, &ref);
    double e2 = circuit_error(name, "midpoint", h / 2, t_end, &ref);
    double eg = circuit_error(name, "dgrad", h, t_end, &ref);
    double ed = circuit_error(name, "dirac1", h, t_end, &ref);
    double order = log2(e1 / e2);
    printf("  %-10s midpoint %.2e (h) %.2e (h/2), order %.2f; dgrad %.2e; dirac1 %.2e\n", name,
           e1, e2, order, eg, ed);
    ENSURE(e1 >= 0.0 && e2 >= 0.0 && eg >= 0.0 && ed >= 0.0);
    double bound = 0.25 * (rate * h) * (rate * h);
    ENSURE_LE(e1, bound);
    ENSURE_LE(eg, bound);
    ENSURE_NEAR(order, 2.0, 0.25);
    ENSURE_LE(ed, 2e-2);
    free(ref.data);
}

// fastest rates (rad/s): rc: ω = 1/(Rs C) = 2000; rl: ω = 3000; rc_ladder: 1/(Rs C1) = 5000;
// rlc_ladder: 1/(Rs C1) = 25000; network: 1/(Rs C1) = 1/√(L C1) = 10000
static void rc(void) { check_circuit("rc", 2, 3e-3, 2000.0); }
static void rl(void) { check_circuit("rl", 2, 3e-3, 3000.0); }
static void rc_ladder(void) { check_circuit("rc_ladder", 4, 3e-3, 5000.0); }
static void rlc_ladder(void) { check_circuit("rlc_ladder", 6, 3e-3, 25000.0); }
static void network(void) { check_circuit("network", 5, 3e-3, 10000.0); }

int main(int argc, char **argv)
{
    if (ngspice_missing()) {
        printf("SKIPPED: ngspice is not installed (scripts/setup.sh installs it)\n");
        return 77;
    }
    static const test_case cases[] = { TEST(rc), TEST(rl), TEST(rc_ladder), TEST(rlc_ladder),
                                       TEST(network) };
    return test_run_all(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
