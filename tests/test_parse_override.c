// Parameter overrides (-p NAME=VALUE): validation, messages without file location, suggestions.
#include "parse_util.h"

static const char *model = "model m\n"
                           "parameter K = 0.05, mass = 2, gravity = 9.81\n"
                           "coordinate x\n"
                           "component rotor = flywheel(J = 1)\n"
                           "lagrangian mass/2*x'^2 - mass*gravity*x\n";

static void test_valid(void)
{
    spec *s = parse_text(model, NULL);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "K=0.5"), DIRAC_OK);
    ENSURE_EQ_INT(spec_set_parameter_override(s, " mass = 3e-1 "), DIRAC_OK);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "K=-.25"), DIRAC_OK);
    const spec_model *m = spec_root(s);
    ENSURE(m->params[0].overridden);
    ENSURE_NEAR(m->params[0].override_value, -0.25, 0);
    ENSURE(m->params[1].overridden);
    ENSURE_NEAR(m->params[1].override_value, 0.3, 0);
    ENSURE(!m->params[2].overridden);
    int count;
    const spec_override *o = spec_overrides(s, &count);
    ENSURE_EQ_INT(count, 2);
    ENSURE(count == 2 && strcmp(o[0].name, "K") == 0 && o[0].value == -0.25);
    ENSURE_EQ_INT(spec_status(s), DIRAC_OK);
    ENSURE(strcmp(spec_errmsg(s), "") == 0);
    spec_destroy(s);
}

static void test_invalid(void)
{
    spec *s = parse_text(model, NULL);
    struct {
        const char *arg, *message;
    } cases[] = {
        { "Kk=1", "error: unknown parameter 'Kk' in 'Kk=1'; did you mean 'K'?\n" },
        { "gravty=1", "error: unknown parameter 'gravty' in 'gravty=1'; did you mean 'gravity'?\n" },
        { "zeta=1", "error: unknown parameter 'zeta' in 'zeta=1' (model 'm' has no such "
                    "parameter)\n" },
        { "x=1", "error: 'x' is a coordinate, not a parameter (in 'x=1')\n" },
        { "K", "error: invalid parameter override 'K': expected NAME=VALUE\n" },
        { "=1", "error: invalid parameter override '=1': expected NAME=VALUE\n" },
        { "K=abc", "error: invalid value 'abc' for parameter 'K': not a number\n" },
        { "K=", "error: invalid value '' for parameter 'K': not a number\n" },
        { "K=1.5x", "error: invalid value '1.5x' for parameter 'K': not a number\n" },
        { "K=nan", "error: invalid value 'nan' for parameter 'K': not a number\n" },
        { "K=inf", "error: invalid value 'inf' for parameter 'K': not a number\n" },
        { "K=0x10", "error: invalid value '0x10' for parameter 'K': not a number\n" },
        { "K=1e999", "error: invalid value '1e999' for parameter 'K': out of range\n" },
        { "rotor.J=1", "error: cannot set 'rotor.J': component 'rotor' was not loaded\n" },
        { "x.J=1", "error: unknown parameter 'x.J': 'x' is not a component\n" },
        { "K#x=1", "error: invalid parameter override 'K#x=1': expected NAME[INDEX, "
                   "...]=VALUE\n" },
        { "K.=1", "error: invalid parameter override 'K.=1': expected NAME[INDEX, "
                  "...]=VALUE\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ENSURE_EQ_INT(spec_set_parameter_override(s, cases[i].arg), DIRAC_ERR_ARGUMENT);
        ENSURE_EQ_INT(spec_status(s), DIRAC_ERR_ARGUMENT);
        if (strcmp(spec_errmsg(s), cases[i].message) != 0) {
            fprintf(stderr, "override '%s': got '%s', want '%s'\n", cases[i].arg, spec_errmsg(s),
                    cases[i].message);
            ENSURE(0);
        }
    }
    // a failed override leaves the parameters alone; a good one clears the message
    ENSURE(!spec_root(s)->params[0].overridden);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "K=2"), DIRAC_OK);
    ENSURE_EQ_INT(spec_status(s), DIRAC_OK);
    ENSURE(strcmp(spec_errmsg(s), "") == 0);
    spec_destroy(s);
    // not on a model with errors
    s = parse_text("model m\ncoordinate x\n", NULL);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "K=2"), DIRAC_ERR_ARGUMENT);
    ENSURE(strcmp(spec_errmsg(s), "error: cannot set parameters of a model that has errors\n") == 0);
    spec_destroy(s);
}

TEST_MAIN(TEST(test_valid), TEST(test_invalid))
