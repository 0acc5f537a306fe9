// Every public function survives bad arguments (include/dirac/status.h, "Arguments"): NULL
// pointers, indices out of range, NaN and out-of-range options. Fallible calls return
// DIRAC_ERR_ARGUMENT (or the documented status) and fill the error record; queries return
// their documented neutral value (NULL, -1, NaN). The sanitizer build turns any NULL
// dereference or out-of-bounds read into a failure. Completeness: the test reads the public
// headers and fails when they declare a function that `covered` below does not list.
#include "harness.h"

#include <dirac/dirac.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

// every public function this file calls with bad arguments
static const char *const covered[] = {
    "dirac_status_string", "dirac_version",
    "dirac_spec_load", "dirac_spec_parse", "dirac_spec_set_parameter", "dirac_spec_errmsg",
    "dirac_spec_set_memory_limit", "dirac_spec_set_codegen", "dirac_model_evaluation_info",
    "dirac_spec_load_with", "dirac_spec_file_count",
    "dirac_spec_file",
    "dirac_spec_destroy", "dirac_model_compile", "dirac_model_destroy", "dirac_model_name",
    "dirac_model_coordinate_count", "dirac_model_entropy_count", "dirac_model_constraint_count",
    "dirac_model_component_count", "dirac_model_output_count", "dirac_model_coordinate_name",
    "dirac_model_entropy_name", "dirac_model_constraint_name", "dirac_model_output_name",
    "dirac_model_constraint_kind", "dirac_model_constraint_is_time_dependent",
    "dirac_model_interaction_count", "dirac_model_interaction_name",
    "dirac_model_interaction_coordinates", "dirac_model_initial_state",
    "dirac_model_simulate_defaults", "dirac_model_analyze", "dirac_model_analysis_free",
    "dirac_model_write_equations",
    "dirac_method_count", "dirac_method", "dirac_sim_create", "dirac_sim_destroy",
    "dirac_sim_step", "dirac_sim_next_step_size", "dirac_sim_set_next_step_size",
    "dirac_sim_last_step_size", "dirac_sim_rejected_steps", "dirac_sim_errmsg", "dirac_sim_time",
    "dirac_sim_step_count", "dirac_sim_q", "dirac_sim_v", "dirac_sim_p", "dirac_sim_mu",
    "dirac_sim_s", "dirac_sim_temperature", "dirac_sim_energy", "dirac_sim_work",
    "dirac_sim_constraint_residual", "dirac_sim_velocity_constraint_residual",
    "dirac_sim_newton_iterations", "dirac_sim_projection_distance",
    "dirac_sim_interaction_force", "dirac_sim_outputs", "dirac_sim_method",
    "dirac_sim_method_requested", "dirac_sim_method_reason", "dirac_sim_quality_get",
    "dirac_sim_warning_count", "dirac_sim_warning", "dirac_model_parameter_count",
    "dirac_model_parameter_name", "dirac_model_parameter_value",
    "dirac_subspace_from_span", "dirac_subspace_from_annihilator", "dirac_subspace_destroy",
    "dirac_subspace_ambient_dim", "dirac_subspace_dim", "dirac_subspace_basis",
    "dirac_subspace_annihilator", "dirac_subspace_sum", "dirac_subspace_intersection",
    "dirac_subspace_direct_sum", "dirac_subspace_distance", "dirac_subspace_largest_angle",
    "dirac_structure_from_two_form", "dirac_structure_from_distribution",
    "dirac_structure_from_poisson", "dirac_structure_induced", "dirac_structure_interaction",
    "dirac_structure_from_kernel", "dirac_structure_from_span", "dirac_structure_destroy",
    "dirac_structure_dim", "dirac_structure_basis", "dirac_structure_isotropy_residual",
    "dirac_structure_membership_residual", "dirac_structure_largest_angle", "dirac_check_dirac",
    "dirac_structure_complement", "dirac_structure_direct_sum", "dirac_structure_tensor",
    "dirac_structure_compose", "dirac_structure_permute",
    "dirac_model_initial_is_fixed", "dirac_model_equilibrium", "dirac_equilibrium_free",
    "dirac_model_linearize", "dirac_linearization_free", "dirac_model_descriptor_rhs",
    "dirac_model_modes", "dirac_modes_free",
    "dirac_spec_file_text", "dirac_model_input_count",
    "dirac_model_input_name", "dirac_model_input_default", "dirac_model_input_index",
    "dirac_sim_set_input", "dirac_sim_input", "dirac_sim_state_size", "dirac_sim_state_save",
    "dirac_sim_state_restore",
};
#define COVERED_COUNT (sizeof covered / sizeof covered[0])

static int is_covered(const char *name)
{
    for (size_t k = 0; k < COVERED_COUNT; k++)
        if (!strcmp(covered[k], name))
            return 1;
    return 0;
}

// Declarations in the headers: an identifier dirac_* directly followed by '(' at the start of
// a declaration's name (not in a comment).
static void headers_declare_nothing_untested(void)
{
    const char *headers[] = { "dirac.h", "status.h", "structure.h", "subspace.h", "model.h",
                              "simulate.h", "version.h", "analysis.h" };
    int declared = 0;
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/include/dirac/%s", DIRAC_SOURCE_DIR, headers[h]);
        FILE *f = fopen(path, "r");
        ENSURE(f != NULL);
        if (!f)
            continue;
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            char *comment = strstr(line, "//");
            if (comment)
                *comment = '\0';
            for (char *p = line; (p = strstr(p, "dirac_")) != NULL;) {
                if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
                    p++;
                    continue;
                }
                char *end = p;
                while (isalnum((unsigned char)*end) || *end == '_')
                    end++;
                if (*end == '(' && !(p > line && p[-1] == '*' && p > line + 1 && p[-2] == '(')) {
                    char name[128];
                    size_t len = (size_t)(end - p) < sizeof name ? (size_t)(end - p)
                                                                 : sizeof name - 1;
                    memcpy(name, p, len);
                    name[len] = '\0';
                    declared++;
                    if (!is_covered(name)) {
                        fprintf(stderr, "  %s declares %s, which this test does not call\n",
                                headers[h], name);
                        ENSURE(!"every public function is tested");
                    }
                }
                p = end;
            }
        }
        fclose(f);
    }
    ENSURE_EQ_INT(declared, COVERED_COUNT);
}

static const char pendulum[] =
    "model pendulum\nparameter m = 1, g = 9.81, l = 1\ncoordinate x, y\n"
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"
    "initial x = 0.6, y = -0.8\noutput angle = atan2(x, -y)\n";

static dirac_model *compile_pendulum(dirac_spec **spec)
{
    dirac_model *model = NULL;
    ENSURE(dirac_spec_parse("p.dirac", pendulum, strlen(pendulum), spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(*spec, &model) == DIRAC_OK);
    return model;
}

static void status_and_version(void)
{
    ENSURE_CONTAINS(dirac_status_string((dirac_status)-1), "unknown");
    ENSURE_CONTAINS(dirac_status_string(DIRAC_STATUS_COUNT), "unknown");
    ENSURE_CONTAINS(dirac_status_string((dirac_status)1000000), "unknown");
    ENSURE(dirac_version() != NULL);
}

// a reader that finds no file (ENOENT)
static int read_nothing(void *context, const char *path, const char **text, size_t *size)
{
    (void)context;
    (void)path;
    *text = NULL;
    *size = 0;
    return 2;
}

static void spec_functions(void)
{
    dirac_spec *spec = (dirac_spec *)1;
    ENSURE_EQ_INT(dirac_spec_load("x.dirac", NULL), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_spec_load(NULL, &spec) != DIRAC_OK);
    dirac_spec_destroy(spec);
    spec = (dirac_spec *)1;
    ENSURE_EQ_INT(dirac_spec_parse("m", pendulum, strlen(pendulum), NULL), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_parse("m", NULL, 10, &spec), DIRAC_ERR_ARGUMENT);
    ENSURE(spec == NULL);
    ENSURE(dirac_spec_parse(NULL, pendulum, strlen(pendulum), &spec) == DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_file_count(NULL), 0);
    ENSURE_EQ_INT(dirac_spec_file_count(spec), 0);   // parsed from memory: no files
    ENSURE(dirac_spec_file(NULL, 0) == NULL);
    ENSURE(dirac_spec_file(spec, -1) == NULL);
    ENSURE(dirac_spec_file(spec, 0) == NULL);
    dirac_spec *loaded = (dirac_spec *)1;
    ENSURE_EQ_INT(dirac_spec_load_with("m.dirac", NULL, NULL, &loaded), DIRAC_ERR_ARGUMENT);
    ENSURE(loaded == NULL);
    ENSURE_EQ_INT(dirac_spec_load_with("m.dirac", read_nothing, NULL, NULL), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_spec_load_with(NULL, read_nothing, NULL, &loaded) != DIRAC_OK);
    dirac_spec_destroy(loaded);
    ENSURE_EQ_INT(dirac_spec_set_parameter(NULL, "m=2"), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_parameter(spec, NULL), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(dirac_spec_errmsg(spec), "NAME=VALUE");
    ENSURE_CONTAINS(dirac_spec_errmsg(NULL), "NULL");
    ENSURE_EQ_INT(dirac_spec_set_memory_limit(NULL, 1e9), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_memory_limit(spec, NAN), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_memory_limit(spec, -1), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_memory_limit(spec, 0), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_codegen(NULL, DIRAC_CODEGEN_OFF), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_codegen(spec, (dirac_codegen_mode)7), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_spec_set_codegen(spec, DIRAC_CODEGEN_AUTO), DIRAC_OK);
    dirac_model *model = (dirac_model *)1;
    ENSURE_EQ_INT(dirac_model_compile(spec, NULL), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_compile(NULL, &model), DIRAC_ERR_ARGUMENT);
    ENSURE(model == NULL);
    dirac_spec_destroy(spec);
    dirac_spec_destroy(NULL);
    dirac_model_destroy(NULL);
}

static void model_queries(void)
{
    dirac_spec *spec = NULL;
    dirac_model *m = compile_pendulum(&spec);
    ENSURE(dirac_model_name(NULL) == NULL);
    dirac_model_evaluation evaluation;
    dirac_model_evaluation_info(NULL, &evaluation);
    ENSURE(!evaluation.compiled && evaluation.reason && evaluation.reason[0]);
    dirac_model_evaluation_info(m, NULL);   // no-op
    ENSURE_EQ_INT(dirac_model_coordinate_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_entropy_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_constraint_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_component_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_output_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_interaction_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_parameter_count(NULL), -1);
    ENSURE(dirac_model_parameter_name(NULL, 0) == NULL);
    ENSURE_EQ_INT(dirac_model_input_count(NULL), -1);
    ENSURE_EQ_INT(dirac_model_input_count(m), 0);
    ENSURE(dirac_model_input_name(NULL, 0) == NULL && dirac_model_input_name(m, 0) == NULL);
    ENSURE(isnan(dirac_model_input_default(NULL, 0)) && isnan(dirac_model_input_default(m, -1)));
    ENSURE_EQ_INT(dirac_model_input_index(NULL, "u"), -1);
    ENSURE_EQ_INT(dirac_model_input_index(m, NULL), -1);
    ENSURE_EQ_INT(dirac_model_input_index(m, "m"), -1);   // a parameter, not an input
    size_t text_size = 1;
    ENSURE(dirac_spec_file_text(NULL, 0, &text_size) == NULL && text_size == 0);
    ENSURE(dirac_spec_file_text(spec, -1, NULL) == NULL);
    ENSURE(dirac_spec_file_text(spec, 0, NULL) == NULL);   // parsed from memory: no files
    ENSURE(isnan(dirac_model_parameter_value(NULL, 0)));
    ENSURE(dirac_model_parameter_name(m, -1) == NULL);
    ENSURE(dirac_model_parameter_name(m, 3) == NULL);   // m, g, l
    ENSURE(isnan(dirac_model_parameter_value(m, 1 << 30)));
    int bad[] = { -1, 1, 7, 1 << 30, -(1 << 30) };   // pendulum: 2 coordinates, 1 constraint
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int i = bad[k];
        ENSURE(dirac_model_coordinate_name(m, i < 0 ? i : i + 1) == NULL);
        ENSURE(dirac_model_coordinate_name(NULL, 0) == NULL);
        ENSURE(dirac_model_entropy_name(m, i) == NULL);
        ENSURE(dirac_model_constraint_name(m, i) == NULL);
        ENSURE(dirac_model_output_name(m, i) == NULL);
        ENSURE_EQ_INT(dirac_model_constraint_kind(m, i), DIRAC_CONSTRAINT_INVALID);
        ENSURE_EQ_INT(dirac_model_constraint_is_time_dependent(m, i), -1);
        ENSURE(dirac_model_interaction_name(m, i) == NULL);
        int count = 99;
        ENSURE(dirac_model_interaction_coordinates(m, i, &count) == NULL);
        ENSURE_EQ_INT(count, 0);
        ENSURE(dirac_model_interaction_coordinates(m, i, NULL) == NULL);
    }
    ENSURE_EQ_INT(dirac_model_constraint_kind(m, 0), DIRAC_CONSTRAINT_HOLONOMIC);
    ENSURE_EQ_INT(dirac_model_constraint_kind(NULL, 0), DIRAC_CONSTRAINT_INVALID);
    ENSURE_EQ_INT(dirac_model_constraint_is_time_dependent(NULL, 0), -1);
    ENSURE(dirac_model_interaction_name(NULL, 0) == NULL);
    ENSURE(dirac_model_interaction_coordinates(NULL, 0, NULL) == NULL);
    double q[2] = { 7, 7 };
    dirac_model_initial_state(NULL, q, q, q);
    ENSURE(q[0] == 7.0);
    dirac_model_initial_state(m, NULL, NULL, NULL);
    dirac_simulate_defaults d;
    memset(&d, 0xff, sizeof d);
    dirac_model_simulate_defaults(NULL, &d);
    ENSURE(d.has_dt == 0 && d.method == NULL);
    dirac_model_simulate_defaults(m, NULL);

    dirac_error err = { 0 };
    dirac_model_analysis a;
    ENSURE_EQ_INT(dirac_model_analyze(m, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_analyze(m, NULL, NULL), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_analyze(NULL, &a, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(err.message, "NULL");
    dirac_model_analysis_free(&a);
    dirac_model_analysis_free(NULL);
    FILE *sink = fopen("/dev/null", "w");
    ENSURE_EQ_INT(dirac_model_write_equations(m, DIRAC_EQUATIONS_TEXT, NULL, &err),
                  DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_write_equations(NULL, DIRAC_EQUATIONS_TEXT, sink, &err),
                  DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_write_equations(m, (dirac_equation_style)99, sink, &err),
                  DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_write_equations(m, (dirac_equation_style)-1, sink, NULL),
                  DIRAC_ERR_ARGUMENT);
    if (sink)
        fclose(sink);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
}

// one invalid option set: refused with DIRAC_ERR_ARGUMENT and a message, no simulation
static void refused(const dirac_model *m, dirac_sim_options o, const char *why)
{
    dirac_sim *sim = (dirac_sim *)1;
    dirac_error err = { 0 };
    dirac_status status = dirac_sim_create(m, &o, &sim, &err);
    if (status != DIRAC_ERR_ARGUMENT)
        fprintf(stderr, "  options with %s: status %d\n", why, (int)status);
    ENSURE_EQ_INT(status, DIRAC_ERR_ARGUMENT);
    ENSURE(sim == NULL);
    ENSURE(err.message[0] != '\0');
    dirac_sim_destroy(status == DIRAC_OK ? sim : NULL);
}

static void sim_options(void)
{
    dirac_spec *spec = NULL;
    dirac_model *m = compile_pendulum(&spec);
    dirac_sim_options good = { .dt = 1e-2 }, o;
    dirac_sim *sim = NULL;
    dirac_error err = { 0 };
    ENSURE_EQ_INT(dirac_sim_create(m, &good, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_create(NULL, &good, &sim, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_create(m, NULL, &sim, NULL), DIRAC_ERR_ARGUMENT);
    double nonfinite[] = { NAN, INFINITY, -INFINITY };
    for (int k = 0; k < 3; k++) {
        o = good, o.dt = nonfinite[k], refused(m, o, "dt non-finite");
        o = good, o.t0 = nonfinite[k], refused(m, o, "t0 non-finite");
        o = good, o.newton_rtol = nonfinite[k], refused(m, o, "newton_rtol non-finite");
        o = good, o.adaptive_rtol = nonfinite[k], refused(m, o, "adaptive_rtol non-finite");
        o = good, o.adaptive_atol = nonfinite[k], refused(m, o, "adaptive_atol non-finite");
    }
    o = good, o.dt = 0, refused(m, o, "dt = 0");
    o = good, o.dt = -1, refused(m, o, "dt < 0");
    o = good, o.newton_rtol = -1, refused(m, o, "newton_rtol < 0");
    o = good, o.newton_max_iterations = -5, refused(m, o, "newton_max_iterations < 0");
    o = good, o.linear_solver = (dirac_linear_solver)99, refused(m, o, "linear_solver 99");
    o = good, o.linear_solver = (dirac_linear_solver)-1, refused(m, o, "linear_solver -1");
    o = good, o.adaptive_rtol = -1, refused(m, o, "adaptive_rtol < 0");
    o = good, o.method = "", refused(m, o, "method \"\"");
    o = good, o.method = "no-such-method", refused(m, o, "unknown method");
    // dt = 0 is the model's `simulate dt`: refused above (the model has none), used here
    dirac_spec *timed_spec = NULL;
    dirac_model *timed = NULL;
    const char timed_text[] = "model timed\ncoordinate x\nlagrangian x'^2/2 - x^2/2\n"
                              "initial x = 1\nsimulate dt = 0.025\n";
    ENSURE(dirac_spec_parse("t.dirac", timed_text, strlen(timed_text), &timed_spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(timed_spec, &timed) == DIRAC_OK);
    o = good, o.dt = 0;
    ENSURE_EQ_INT(dirac_sim_create(timed, &o, &sim, &err), DIRAC_OK);
    ENSURE(dirac_sim_next_step_size(sim) == 0.025);
    ENSURE_EQ_INT(dirac_sim_step(sim), DIRAC_OK);
    ENSURE(dirac_sim_time(sim) == 0.025);   // t0 + 1 h, exactly
    dirac_sim_destroy(sim);
    sim = NULL;
    dirac_model_destroy(timed);
    dirac_spec_destroy(timed_spec);
    ENSURE(dirac_method(-1) == NULL);
    ENSURE(dirac_method(dirac_method_count()) == NULL);
    ENSURE(dirac_method(1 << 30) == NULL);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
}

static void sim_queries(void)
{
    dirac_spec *spec = NULL;
    dirac_model *m = compile_pendulum(&spec);
    dirac_sim_options o = { .dt = 1e-2 };
    dirac_sim *sim = NULL;
    dirac_error err = { 0 };
    ENSURE(dirac_sim_create(m, &o, &sim, &err) == DIRAC_OK);
    ENSURE_EQ_INT(dirac_sim_step(NULL), DIRAC_ERR_ARGUMENT);
    ENSURE(isnan(dirac_sim_next_step_size(NULL)));
    ENSURE_EQ_INT(dirac_sim_set_next_step_size(NULL, 1e-3), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_set_next_step_size(sim, NAN), DIRAC_ERR_ARGUMENT);
    ENSURE(isnan(dirac_sim_last_step_size(NULL)));
    ENSURE_EQ_INT(dirac_sim_rejected_steps(NULL), -1);
    ENSURE_CONTAINS(dirac_sim_errmsg(NULL), "NULL");
    ENSURE(isnan(dirac_sim_time(NULL)));
    ENSURE_EQ_INT(dirac_sim_step_count(NULL), -1);
    ENSURE(dirac_sim_q(NULL) == NULL && dirac_sim_v(NULL) == NULL && dirac_sim_p(NULL) == NULL);
    ENSURE(dirac_sim_mu(NULL) == NULL && dirac_sim_s(NULL) == NULL);
    ENSURE(dirac_sim_temperature(NULL) == NULL);
    ENSURE(isnan(dirac_sim_energy(NULL)) && isnan(dirac_sim_work(NULL)));
    ENSURE(isnan(dirac_sim_constraint_residual(NULL)));
    ENSURE(isnan(dirac_sim_velocity_constraint_residual(NULL)));
    ENSURE_EQ_INT(dirac_sim_newton_iterations(NULL), -1);
    ENSURE(isnan(dirac_sim_projection_distance(NULL)));
    double force[2] = { 7, 7 }, power = 7;
    dirac_sim_interaction_force(NULL, 0, force, &power);
    ENSURE(isnan(power) && force[0] == 7.0);
    dirac_sim_interaction_force(sim, 0, NULL, NULL);
    dirac_sim_interaction_force(sim, 0, force, NULL);
    dirac_sim_interaction_force(sim, -1, force, &power);   // no interactions: zero force
    ENSURE(force[0] == 0.0 && power == 0.0);
    ENSURE(dirac_sim_method(NULL) == NULL);
    ENSURE(dirac_sim_method_requested(NULL) == NULL);
    ENSURE(dirac_sim_method_reason(NULL) == NULL);
    dirac_sim_quality quality;
    dirac_sim_quality_get(NULL, &quality);
    dirac_sim_quality_get(sim, NULL);
    ENSURE_EQ_INT(dirac_sim_warning_count(NULL), -1);
    ENSURE(dirac_sim_warning(NULL, 0) == NULL);
    ENSURE(dirac_sim_warning(sim, -1) == NULL);
    ENSURE(dirac_sim_warning(sim, 1 << 30) == NULL);
    dirac_sim_outputs(NULL, force);
    dirac_sim_outputs(sim, NULL);
    // inputs (the pendulum has none) and snapshots
    ENSURE_EQ_INT(dirac_sim_set_input(NULL, 0, 1.0), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_set_input(sim, 0, 1.0), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(dirac_sim_errmsg(sim), "out of range");
    ENSURE(isnan(dirac_sim_input(NULL, 0)) && isnan(dirac_sim_input(sim, 0)));
    ENSURE(dirac_sim_state_size(NULL) == 0);
    size_t state_size = dirac_sim_state_size(sim);
    ENSURE(state_size > 0);
    unsigned char *state = calloc(state_size, 1);
    ENSURE_EQ_INT(dirac_sim_state_save(NULL, state, state_size), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_state_save(sim, NULL, state_size), DIRAC_ERR_SIZE);
    ENSURE_EQ_INT(dirac_sim_state_save(sim, state, state_size - 1), DIRAC_ERR_SIZE);
    ENSURE_EQ_INT(dirac_sim_state_restore(NULL, state, state_size), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_state_restore(sim, state, state_size), DIRAC_ERR_ARGUMENT);   // zeros
    ENSURE_EQ_INT(dirac_sim_state_restore(sim, NULL, state_size), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_state_save(sim, state, state_size), DIRAC_OK);
    ENSURE_EQ_INT(dirac_sim_state_restore(sim, state, state_size - 1), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_sim_state_restore(sim, state, state_size), DIRAC_OK);
    free(state);
    ENSURE(dirac_sim_step(sim) == DIRAC_OK);   // still usable after all that
    dirac_sim_destroy(sim);
    dirac_sim_destroy(NULL);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
}

static void subspace_functions(void)
{
    double e1[2] = { 1, 0 }, nan2[2] = { NAN, 0 };
    dirac_subspace *s = NULL, *out = (dirac_subspace *)1;
    dirac_error err = { 0 };
    ENSURE_EQ_INT(dirac_subspace_from_span(2, 1, e1, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_subspace_from_span(2, 1, NULL, &out, &err) != DIRAC_OK && out == NULL);
    ENSURE(dirac_subspace_from_span(0, 1, e1, &out, &err) != DIRAC_OK);
    ENSURE(dirac_subspace_from_span(-3, 1, e1, &out, &err) != DIRAC_OK);
    ENSURE(dirac_subspace_from_span(2, -1, e1, &out, &err) != DIRAC_OK);
    ENSURE(dirac_subspace_from_span(2, 3, e1, &out, &err) != DIRAC_OK);
    ENSURE_EQ_INT(dirac_subspace_from_span(2, 1, nan2, &out, &err), DIRAC_ERR_NOT_FINITE);
    ENSURE_EQ_INT(dirac_subspace_from_annihilator(2, 1, e1, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_subspace_from_annihilator(2, 1, NULL, &out, NULL) != DIRAC_OK);
    ENSURE(dirac_subspace_from_span(2, 1, e1, &s, &err) == DIRAC_OK);
    dirac_subspace_destroy(NULL);
    ENSURE_EQ_INT(dirac_subspace_ambient_dim(NULL), -1);
    ENSURE_EQ_INT(dirac_subspace_dim(NULL), -1);
    ENSURE(dirac_subspace_basis(NULL) == NULL);
    ENSURE_EQ_INT(dirac_subspace_annihilator(NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(out == NULL);
    ENSURE_EQ_INT(dirac_subspace_annihilator(s, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_sum(s, NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_sum(s, s, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_intersection(NULL, s, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_intersection(s, s, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_direct_sum(NULL, s, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_subspace_direct_sum(s, s, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(isnan(dirac_subspace_distance(NULL, e1)));
    ENSURE(isnan(dirac_subspace_distance(s, NULL)));
    ENSURE(isnan(dirac_subspace_distance(s, nan2)));
    double angle = 7;
    ENSURE_EQ_INT(dirac_subspace_largest_angle(s, NULL, &angle, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(isnan(angle));
    ENSURE_EQ_INT(dirac_subspace_largest_angle(s, s, NULL, &err), DIRAC_ERR_ARGUMENT);
    dirac_subspace_destroy(s);
}

static void structure_functions(void)
{
    double omega[4] = { 0, 1, -1, 0 }, bad_omega[4] = { 0, NAN, NAN, 0 };
    double pairs[8] = { 1, 0, 0, 0, 0, 1, 0, 0 };   // (e1, 0), (e2, 0): V ⊕ 0
    dirac_structure *d = NULL, *out = (dirac_structure *)1;
    dirac_error err = { 0 };
    ENSURE_EQ_INT(dirac_structure_from_two_form(2, omega, NULL, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_from_two_form(0, omega, NULL, &out, &err) != DIRAC_OK && !out);
    ENSURE(dirac_structure_from_two_form(-1, omega, NULL, &out, &err) != DIRAC_OK);
    ENSURE_EQ_INT(dirac_structure_from_two_form(2, bad_omega, NULL, &out, &err),
                  DIRAC_ERR_NOT_FINITE);
    ENSURE_EQ_INT(dirac_structure_from_distribution(NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_from_distribution(NULL, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_from_poisson(2, omega, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_from_poisson(2, NULL, &out, &err) != DIRAC_OK);
    ENSURE_EQ_INT(dirac_structure_induced(1, NULL, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_induced(0, NULL, &out, &err) != DIRAC_OK);
    ENSURE_EQ_INT(dirac_structure_interaction(NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_interaction(NULL, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_from_kernel(2, omega, omega, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_from_kernel(2, NULL, omega, &out, &err) != DIRAC_OK);
    ENSURE(dirac_structure_from_kernel(2, omega, NULL, &out, &err) != DIRAC_OK);
    ENSURE_EQ_INT(dirac_structure_from_span(2, 2, pairs, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_from_span(2, 2, NULL, &out, &err) != DIRAC_OK);
    ENSURE(dirac_structure_from_span(2, -2, pairs, &out, &err) != DIRAC_OK);
    int dim = 7;
    double residual = 7;
    ENSURE_EQ_INT(dirac_check_dirac(2, 2, pairs, NULL, &residual, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_check_dirac(2, 2, pairs, &dim, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_check_dirac(2, -1, pairs, &dim, &residual, &err) != DIRAC_OK);
    ENSURE(dirac_check_dirac(2, 2, NULL, &dim, &residual, &err) != DIRAC_OK);
    ENSURE(dirac_structure_from_two_form(2, omega, NULL, &d, &err) == DIRAC_OK);
    dirac_structure_destroy(NULL);
    ENSURE_EQ_INT(dirac_structure_dim(NULL), -1);
    ENSURE(dirac_structure_basis(NULL) == NULL);
    ENSURE(isnan(dirac_structure_isotropy_residual(NULL)));
    double v[2] = { 1, 0 };
    ENSURE(isnan(dirac_structure_membership_residual(NULL, v, v)));
    ENSURE(isnan(dirac_structure_membership_residual(d, NULL, v)));
    ENSURE(isnan(dirac_structure_membership_residual(d, v, NULL)));
    double angle = 7;
    ENSURE_EQ_INT(dirac_structure_largest_angle(d, NULL, &angle, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(isnan(angle));
    ENSURE_EQ_INT(dirac_structure_largest_angle(d, d, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_complement(NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(out == NULL);
    ENSURE_EQ_INT(dirac_structure_complement(d, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_direct_sum(d, NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_direct_sum(d, d, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_tensor(NULL, d, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_tensor(d, d, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_compose(d, NULL, 1, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_compose(d, d, 1, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_structure_compose(d, d, -1, &out, &err) != DIRAC_OK);
    ENSURE(dirac_structure_compose(d, d, 3, &out, &err) != DIRAC_OK);
    int perm[2] = { 1, 1 };
    ENSURE_EQ_INT(dirac_structure_permute(NULL, perm, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_permute(d, perm, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_permute(d, NULL, &out, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_structure_permute(d, perm, &out, &err), DIRAC_ERR_ARGUMENT);
    dirac_structure_destroy(d);
}

// Equilibria, linearisation, modes (analysis.h) and the `fixed` start flags.
static void analysis_functions(void)
{
    dirac_spec *spec = NULL;
    dirac_model *m = compile_pendulum(&spec);
    dirac_error err;
    ENSURE_EQ_INT(dirac_model_initial_is_fixed(NULL, 0, 0), -1);
    ENSURE_EQ_INT(dirac_model_initial_is_fixed(m, -1, 0), -1);
    ENSURE_EQ_INT(dirac_model_initial_is_fixed(m, 2, 1), -1);
    ENSURE_EQ_INT(dirac_model_initial_is_fixed(m, 1, 1), 0);
    dirac_equilibrium eq;
    ENSURE_EQ_INT(dirac_model_equilibrium(NULL, NULL, NULL, 0, &eq, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_equilibrium(m, NULL, NULL, 0, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_equilibrium(m, NULL, NULL, NAN, &eq, NULL), DIRAC_ERR_NOT_FINITE);
    double bad_q[2] = { NAN, 0 };
    ENSURE_EQ_INT(dirac_model_equilibrium(m, bad_q, NULL, 0, &eq, &err), DIRAC_ERR_NOT_FINITE);
    dirac_equilibrium_free(NULL);
    dirac_linearization lin;
    ENSURE_EQ_INT(dirac_model_linearize(NULL, NULL, NULL, NULL, NULL, 0, &lin, &err),
                  DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_linearize(m, NULL, NULL, NULL, NULL, 0, NULL, &err),
                  DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_linearize(m, bad_q, NULL, NULL, NULL, 0, &lin, &err),
                  DIRAC_ERR_NOT_FINITE);
    dirac_linearization_free(NULL);
    double x[7] = { 0 }, f[7];
    ENSURE_EQ_INT(dirac_model_descriptor_rhs(NULL, x, NULL, NULL, 0, f, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_descriptor_rhs(m, NULL, NULL, NULL, 0, f, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_descriptor_rhs(m, x, NULL, NULL, 0, NULL, NULL, &err), DIRAC_ERR_ARGUMENT);
    dirac_modes modes;
    ENSURE_EQ_INT(dirac_model_modes(NULL, NULL, 0, 0, &modes, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_modes(m, NULL, 0, 0, &modes, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_model_equilibrium(m, NULL, NULL, 0, &eq, &err) == DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_modes(m, &eq, 0, 0, NULL, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_modes(m, &eq, -3, 1, &modes, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_EQ_INT(dirac_model_modes(m, &eq, 1 << 30, 1, &modes, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_model_modes(m, &eq, 1 << 30, 0, &modes, &err) == DIRAC_OK);   // dense: all
    ENSURE_EQ_INT(modes.count, 1);
    dirac_modes_free(&modes);
    dirac_modes_free(NULL);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
}

TEST_MAIN(TEST(analysis_functions), TEST(headers_declare_nothing_untested), TEST(status_and_version), TEST(spec_functions),
          TEST(model_queries), TEST(sim_options), TEST(sim_queries), TEST(subspace_functions),
          TEST(structure_functions))
