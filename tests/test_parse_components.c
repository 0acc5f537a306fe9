// Loading model files with components: the motor_drive example with its component files
// (kept in memory, mem_files.h), qualified names, and the loader's errors (missing files,
// errors inside included files with "included from" notes, cycles, depth limit).
#include "mem_files.h"
#include "parse_util.h"

#include <stdio.h>
#include <stdlib.h>

static mem_files files = { .dir = "models" };
static const char *const dir = "models";

static void write_file(const char *name, const char *text)
{
    ENSURE(mem_files_write(&files, name, text) == 0);
}

static spec *load(const char *name, dirac_status *status)
{
    char path[256];
    mem_files_path(&files, name, path, sizeof path);
    spec *s = NULL;
    *status = spec_load_file_with(path, NULL, mem_files_read, &files, &s);
    return s;
}

static void make_dir(void)
{
    if (files.count)
        return;
    write_file("rl_source.dirac", "model rl_source\n"
                                  "parameter R = 1, L = 0.5, V = 1\n"
                                  "coordinate q                 # charge\n"
                                  "lagrangian L/2*q'^2 + V*q\n"
                                  "force q: -R*q'\n");
    write_file("flywheel.dirac", "model flywheel\n"
                                 "parameter J = 0.02\n"
                                 "coordinate theta\n"
                                 "let spin = J*theta'\n"
                                 "lagrangian J/2*theta'^2\n"
                                 "initial theta' = 1\n");
    write_file("slider.dirac", "model slider\nparameter m = 1\ncoordinate x\nlagrangian m/2*x'^2\n");
    write_file("motor_drive.dirac",
               "model motor_drive\n"
               "parameter K = 0.05, r = 0.1, k = 3\n"
               "component circuit = rl_source(R = 1, L = 0.5) from \"rl_source.dirac\"\n"
               "component rotor   = flywheel(J = 0.01)        from \"flywheel.dirac\"\n"
               "component cart    = slider(m = 2)             from \"slider.dirac\"\n"
               "twoform motor: K * d(circuit.q) ^ d(rotor.theta)   # gyrator\n"
               "constraint belt: cart.x' = r * rotor.theta'         # interaction\n"
               "lagrangian -k/2*cart.x^2\n");
}

static void test_motor_drive(void)
{
    make_dir();
    dirac_status st;
    spec *s = load("motor_drive.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    if (st != DIRAC_OK)
        fprintf(stderr, "%s", spec_errmsg(s));
    const spec_model *m = spec_root(s);
    ENSURE(m != NULL);
    if (m) {
        ENSURE_EQ_INT(m->component_count, 3);
        const spec_model *rl = m->components[0].model, *fw = m->components[1].model;
        ENSURE(rl && strcmp(rl->name, "rl_source") == 0);
        ENSURE(fw && strcmp(fw->name, "flywheel") == 0 && fw->initial_count == 1);
        ENSURE(m->components[2].model && m->components[2].model->coord_count == 1);
        const spec_wedge *w = &m->twoforms[0].terms[0];
        ENSURE_EQ_INT(w->a.ref.kind, SPEC_SYM_QUALIFIED);
        ENSURE_EQ_INT(w->a.ref.member, SPEC_SYM_COORDINATE);
        ENSURE_EQ_INT(w->b.ref.index, 1);
        const spec_constraint *belt = &m->constraints[0];
        ENSURE_EQ_INT(belt->kind, SPEC_CONSTRAINT_NONHOLONOMIC);
        ENSURE_EQ_INT(belt->lhs.nodes[0].u.sym.ref.member, SPEC_SYM_COORDINATE);
        const spec_model *owner;
        spec_ref ref;
        ENSURE(spec_lookup_qualified(m, "rotor.J", &owner, &ref));
        ENSURE(owner == fw && ref.kind == SPEC_SYM_PARAMETER && ref.index == 0);
        ENSURE(!spec_lookup_qualified(m, "rotor.K", &owner, &ref));
        ENSURE(!spec_lookup_qualified(m, "K.x", &owner, &ref));
        // overrides reach the components' parameters
        ENSURE_EQ_INT(spec_set_parameter_override(s, "rotor.J=0.5"), DIRAC_OK);
        ENSURE_EQ_INT(spec_set_parameter_override(s, "K=1"), DIRAC_OK);
        int count;
        const spec_override *o = spec_overrides(s, &count);
        ENSURE(count == 2 && strcmp(o[0].name, "rotor.J") == 0 && o[0].value == 0.5);
        ENSURE(m->params[0].overridden && !fw->params[0].overridden);
        ENSURE_EQ_INT(spec_set_parameter_override(s, "rotor.JJ=1"), DIRAC_ERR_ARGUMENT);
        ENSURE(strcmp(spec_errmsg(s), "error: unknown parameter 'rotor.JJ' in 'rotor.JJ=1'; did "
                                      "you mean 'rotor.J'?\n") == 0);
        ENSURE_EQ_INT(spec_set_parameter_override(s, "rotor.theta=1"), DIRAC_ERR_ARGUMENT);
        ENSURE(strcmp(spec_errmsg(s), "error: 'rotor.theta' is a coordinate, not a parameter (in "
                                      "'rotor.theta=1')\n") == 0);
    }
    spec_destroy(s);
}

static void test_shared_and_nested(void)
{
    make_dir();
    char expect[512];
    write_file("pair.dirac", "model pair\n"
                             "component left = flywheel from \"flywheel.dirac\"\n"
                             "component right = flywheel           # from flywheel.dirac\n"
                             "constraint gear: left.theta' = 2*right.theta'\n"
                             "let total = left.spin + right.spin\n");
    write_file("outer.dirac", "model outer\n"
                              "component p = pair()\n"
                              "parameter J2 = 2*p.left.J\n"
                              "constraint c: p.left.theta' + p.total = 0\n"
                              "output w = p.right.theta'\n");
    dirac_status st;
    spec *s = load("outer.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    if (st != DIRAC_OK)
        fprintf(stderr, "%s", spec_errmsg(s));
    const spec_model *m = spec_root(s);
    if (m && m->components[0].model) {
        const spec_model *pair = m->components[0].model;
        ENSURE(pair->components[0].model == pair->components[1].model);   // loaded once
        ENSURE_EQ_INT(m->constraints[0].kind, SPEC_CONSTRAINT_NONHOLONOMIC);
    }
    spec_destroy(s);
    // state through a qualified let is caught once the components are loaded
    write_file("outer2.dirac", "model outer2\ncomponent p = pair()\nparameter a = p.total\n");
    s = load("outer2.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    snprintf(expect, sizeof expect, "%s/outer2.dirac:3:15: error: parameter 'a' must be constant "
             "but depends on 'p.total', which depends on the velocity theta' (at "
             "%s/flywheel.dirac:4:14)", dir, dir);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
    write_file("outer3.dirac", "model outer3\ncomponent p = pair()\nconstraint c: p.total^2 = 1\n");
    s = load("outer3.dirac", &st);
    ENSURE_CONTAINS(spec_errmsg(s), "outer3.dirac:3:22: error: constraint 'c' is not linear in the "
                                    "velocities: it raises a velocity to a power");
    spec_destroy(s);
}

// Writes NAME with `text` and loads it: the first message line is "DIR/WHERE: error: MESSAGE".
// Returns the status of the load.
static dirac_status ensure_first_error(const char *name, const char *text, const char *where,
                                       const char *message)
{
    write_file(name, text);
    dirac_status st;
    spec *s = load(name, &st);
    char expect[512];
    snprintf(expect, sizeof expect, "%s/%s: error: %s", dir, where, message);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
    return st;
}

static void test_errors_in_components(void)
{
    make_dir();
    // unknown members and parameters, with suggestions
    ENSURE_EQ_INT(ensure_first_error("bad_member.dirac",
                                     "model bad_member\n"
                                     "component rotor = flywheel()\n"
                                     "lagrangian rotor.thta'^2\n",
                                     "bad_member.dirac:3:12",
                                     "unknown name 'rotor.thta': model 'flywheel' has no 'thta'; "
                                     "did you mean 'rotor.theta'?"),
                  DIRAC_ERR_PARSE);
    ensure_first_error("bad_arg.dirac", "model bad_arg\ncomponent rotor = flywheel(JJ = 1)\n",
                       "bad_arg.dirac:2:28",
                       "model 'flywheel' has no parameter 'JJ'; did you mean 'J'?");
    ensure_first_error("bad_arg2.dirac", "model bad_arg2\ncomponent rotor = flywheel(theta = 1)\n",
                       "bad_arg2.dirac:2:28",
                       "'theta' is a coordinate of model 'flywheel', not a parameter");
    ensure_first_error("bad_velocity.dirac",
                       "model bad_velocity\ncomponent rotor = flywheel()\nlagrangian rotor.J'\n",
                       "bad_velocity.dirac:3:12",
                       "'rotor.J' is a parameter; only coordinates have velocities (rotor.J')");
    ensure_first_error("bad_force.dirac",
                       "model bad_force\ncomponent rotor = flywheel()\nforce rotor.J: 1\n",
                       "bad_force.dirac:3:7", "'rotor.J' is a parameter, not a coordinate");
    // the file defines another model
    char message[256];
    snprintf(message, sizeof message, "file '%s/flywheel.dirac' defines model 'flywheel', not "
             "'wheel'", dir);
    ensure_first_error("wrong_name.dirac",
                       "model wrong_name\ncomponent w = wheel from \"flywheel.dirac\"\n",
                       "wrong_name.dirac:2:15", message);
}

static void test_included_errors(void)
{
    make_dir();
    char expect[1024];
    dirac_status st;
    // an error inside a component file names that file, then where it was included from
    write_file("broken.dirac", "model broken\ncoordinate x\nlagrangian x'^2 + y\n");
    write_file("mid.dirac", "model mid\n\ncomponent b = broken()\n");
    write_file("top.dirac", "model top\ncomponent m = mid()\n");
    spec *s = load("top.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    snprintf(expect, sizeof expect,
             "%s/broken.dirac:3:19: error: unknown name 'y'\n"
             "lagrangian x'^2 + y\n"
             "                  ^\n"
             "note: included from %s/mid.dirac:3\n"
             "note: included from %s/top.dirac:2\n", dir, dir, dir);
    ENSURE(strcmp(spec_errmsg(s), expect) == 0);
    if (strcmp(spec_errmsg(s), expect) != 0)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", spec_errmsg(s), expect);
    spec_destroy(s);
    // a missing component file
    write_file("missing.dirac", "model missing\ncomponent g = ghost() from \"ghost.dirac\"\n");
    s = load("missing.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_IO);
    snprintf(expect, sizeof expect, "%s/missing.dirac:2:28: error: cannot read component file "
             "'%s/ghost.dirac': No such file or directory", dir, dir);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
    // without `from`, MODEL.dirac next to the including file
    write_file("missing2.dirac", "model missing2\ncomponent g = phantom(a = 1)\n");
    s = load("missing2.dirac", &st);
    snprintf(expect, sizeof expect, "%s/missing2.dirac:2:15: error: cannot read component file "
             "'%s/phantom.dirac': No such file or directory", dir, dir);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
    // the root file itself
    s = NULL;
    ENSURE_EQ_INT(spec_load_file("/nonexistent/model.dirac", NULL, &s), DIRAC_ERR_IO);
    ENSURE_FIRST_LINE(spec_errmsg(s),
                      "error: cannot read '/nonexistent/model.dirac': No such file or directory");
    ENSURE(spec_root(s) == NULL);
    spec_destroy(s);
    const char *directory = DIRAC_SOURCE_DIR "/examples";
    ENSURE_EQ_INT(spec_load_file(directory, NULL, &s), DIRAC_ERR_IO);
    snprintf(expect, sizeof expect, "error: cannot read '%s': Is a directory", directory);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
}

static void test_cycles_and_depth(void)
{
    make_dir();
    char expect[1024];
    dirac_status st;
    write_file("cyc_a.dirac", "model cyc_a\ncomponent b = cyc_b()\n");
    write_file("cyc_b.dirac", "model cyc_b\ncoordinate x\nlagrangian x'^2\ncomponent a = cyc_a()\n");
    spec *s = load("cyc_a.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    snprintf(expect, sizeof expect,
             "%s/cyc_b.dirac:4:15: error: component cycle: %s/cyc_a.dirac -> %s/cyc_b.dirac -> "
             "%s/cyc_a.dirac\n"
             "component a = cyc_a()\n"
             "              ^\n"
             "note: included from %s/cyc_a.dirac:2\n", dir, dir, dir, dir, dir);
    ENSURE(strcmp(spec_errmsg(s), expect) == 0);
    if (strcmp(spec_errmsg(s), expect) != 0)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", spec_errmsg(s), expect);
    spec_destroy(s);
    write_file("self.dirac", "model self\ncomponent me = self()\n");
    s = load("self.dirac", &st);
    snprintf(expect, sizeof expect, "%s/self.dirac:2:16: error: component cycle: %s/self.dirac -> "
             "%s/self.dirac", dir, dir, dir);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    spec_destroy(s);
    // a chain deeper than the limit: deep0 includes deep1 ... includes deepN
    char name[64], text[256];
    for (int i = 0; i <= SPEC_COMPONENT_DEPTH_MAX + 2; i++) {
        snprintf(name, sizeof name, "deep%d.dirac", i);
        snprintf(text, sizeof text, "model deep%d\ncomponent c = deep%d()\n", i, i + 1);
        write_file(name, text);
    }
    s = load("deep0.dirac", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    snprintf(expect, sizeof expect, "%s/deep%d.dirac:2:15: error: components nested too deeply "
             "(limit %d)", dir, SPEC_COMPONENT_DEPTH_MAX, SPEC_COMPONENT_DEPTH_MAX);
    ENSURE_FIRST_LINE(spec_errmsg(s), expect);
    snprintf(expect, sizeof expect, "note: included from %s/deep0.dirac:2\n", dir);
    ENSURE_CONTAINS(spec_errmsg(s), expect);
    spec_destroy(s);
}

// every allocation of a load failing in turn: a clean status, nothing leaked (sanitizer build);
// the motor drive through the reader, and a model with components read from the file system
static void test_out_of_memory(void)
{
    make_dir();
    char path[256];
    mem_files_path(&files, "motor_drive.dirac", path, sizeof path);
    const char *example = DIRAC_SOURCE_DIR "/examples/interconnect/dc_motor/dc_motor.dirac";
    for (int from_files = 0; from_files < 2; from_files++) {
        int failures = 0;
        for (long n = 1; n < 300; n++) {
            spec_options opt = { 0, n };
            spec *s = NULL;
            dirac_status st = from_files
                                  ? spec_load_file(example, &opt, &s)
                                  : spec_load_file_with(path, &opt, mem_files_read, &files, &s);
            ENSURE(st == DIRAC_OK || st == DIRAC_ERR_NOMEM);
            failures += st == DIRAC_ERR_NOMEM;
            spec_destroy(s);
        }
        ENSURE(failures > 0);
    }
}

static void test_cleanup(void)
{
    mem_files_clear(&files);
}

TEST_MAIN(TEST(test_motor_drive), TEST(test_shared_and_nested), TEST(test_errors_in_components),
          TEST(test_included_errors), TEST(test_cycles_and_depth), TEST(test_out_of_memory), TEST(test_cleanup))
