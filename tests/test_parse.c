// The model-language parser on well-formed input: the language's documented examples, expression
// trees (precedence, associativity, postorder, locations), continuation lines, statements.
#include "parse_util.h"

static spec *parse_ok(const char *text)
{
    dirac_status st;
    spec *s = parse_text(text, &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    if (st != DIRAC_OK)
        fprintf(stderr, "%s", spec_errmsg(s));
    return s;
}

// children come before their parents, the root is last
static bool is_postorder(const spec_expr *e)
{
    for (int i = 0; i < e->count; i++) {
        const spec_expr_node *n = &e->nodes[i];
        int kids = n->kind == SPEC_EXPR_UNARY ? 1 : n->kind == SPEC_EXPR_BINARY ? 2
                   : n->kind == SPEC_EXPR_CALL ? n->argc : 0;
        for (int k = 0; k < kids; k++)
            if (!(n->u.arg[k] >= e->nodes && n->u.arg[k] < n))
                return false;
    }
    return true;
}

// the lagrangian expression of "model m / coordinate x, y / parameter a=1, b=2, c=3 / lagrangian EXPR"
static spec *lagrangian_of(const char *expr, const spec_expr **out)
{
    char text[512];
    snprintf(text, sizeof text,
             "model m\ncoordinate x, y\nparameter a = 1, b = 2, c = 3\nlagrangian %s\n", expr);
    spec *s = parse_ok(text);
    const spec_model *m = spec_root(s);
    *out = m && m->lagrangian_count == 1 ? &m->lagrangian[0].value : NULL;
    return s;
}

static void test_pendulum_example(void)
{
    spec *s = NULL;
    ENSURE_EQ_INT(spec_load_file(DIRAC_SOURCE_DIR "/tests/data/pendulum.dirac", NULL, &s),
                  DIRAC_OK);
    ENSURE_EQ_INT(spec_status(s), DIRAC_OK);
    ENSURE(strcmp(spec_errmsg(s), "") == 0);
    const spec_model *m = spec_root(s);
    ENSURE(m != NULL);
    if (!m) {
        spec_destroy(s);
        return;
    }
    ENSURE(strcmp(m->name, "pendulum") == 0);
    ENSURE_EQ_INT(m->param_count, 5);
    ENSURE_EQ_INT(m->coord_count, 2);
    ENSURE_EQ_INT(m->let_count, 1);
    ENSURE_EQ_INT(m->lagrangian_count, 1);
    ENSURE_EQ_INT(m->constraint_count, 1);
    ENSURE_EQ_INT(m->force_count, 1);
    ENSURE_EQ_INT(m->initial_count, 4);
    ENSURE_EQ_INT(m->setting_count, 3);
    ENSURE_EQ_INT(m->output_count, 1);
    ENSURE(strcmp(m->params[2].name, "l") == 0);
    ENSURE_EQ_INT(m->params[2].loc.line, 4);
    ENSURE_EQ_INT(m->params[2].loc.col, 21);
    ENSURE_EQ_INT(m->constraints[0].kind, SPEC_CONSTRAINT_HOLONOMIC);
    ENSURE(m->constraints[0].has_rhs);
    ENSURE(strcmp(m->forces[0].coord.name, "x") == 0);
    ENSURE_EQ_INT(m->forces[0].coord.ref.kind, SPEC_SYM_COORDINATE);
    ENSURE(m->initials[2].velocity && strcmp(m->initials[2].var.name, "x") == 0);
    ENSURE(strcmp(m->settings[0].key, "method") == 0 &&
           strcmp(m->settings[0].word, "midpoint") == 0);
    ENSURE(strcmp(m->settings[1].key, "dt") == 0);
    ENSURE_NEAR(m->settings[1].value.nodes[0].u.number, 1e-3, 0);
    ENSURE(strcmp(m->outputs[0].name, "angle") == 0);
    const spec_expr_node *call = spec_expr_root(&m->outputs[0].value);
    ENSURE_EQ_INT(call->kind, SPEC_EXPR_CALL);
    ENSURE_EQ_INT(call->op, SPEC_FUNC_ATAN2);
    ENSURE_EQ_INT(call->argc, 2);
    // names are bound: m/2*(x'^2 + y'^2) - m*g*y
    const spec_expr *L = &m->lagrangian[0].value;
    ENSURE(is_postorder(L));
    int primes = 0, params = 0;
    for (int i = 0; i < L->count; i++) {
        if (L->nodes[i].kind == SPEC_EXPR_PRIME) {
            primes++;
            ENSURE_EQ_INT(L->nodes[i].u.sym.ref.kind, SPEC_SYM_COORDINATE);
        }
        if (L->nodes[i].kind == SPEC_EXPR_NAME &&
            L->nodes[i].u.sym.ref.kind == SPEC_SYM_PARAMETER)
            params++;
    }
    ENSURE_EQ_INT(primes, 2);
    ENSURE_EQ_INT(params, 3);
    spec_ref ref;
    ENSURE(spec_lookup(m, "theta0", &ref) && ref.kind == SPEC_SYM_PARAMETER && ref.index == 3);
    ENSURE(!spec_lookup(m, "theta", &ref));
    spec_destroy(s);
}

static void test_thermodynamic_example(void)
{
    spec *s = parse_ok("model piston\n"
                       "parameter m = 1, k = 2, U0 = 1, Cv = 1.5, c = 0.1, kappa = 0.5\n"
                       "parameter P0 = 1, w = 2\n"
                       "coordinate x\n"
                       "entropy S, S2                            # entropy variables\n"
                       "lagrangian m/2*x'^2 - k/2*x^2 - U0*exp(S/Cv)\n"
                       "lagrangian -U0*exp(S2/Cv)\n"
                       "friction x -> S: -c*x'                   # friction heats S\n"
                       "heat S, S2: kappa\n");
    spec_destroy(s);
    s = parse_ok("model piston\n"
                 "parameter m = 1, k = 2, U0 = 1, Cv = 1.5, c = 0.1, kappa = 0.5\n"
                 "parameter P0 = 1, w = 2\n"
                 "coordinate x\n"
                 "entropy S, S2\n"
                 "lagrangian m/2*x'^2 - k/2*x^2 - U0*exp(S/Cv)\n"
                 "lagrangian -U0*exp(S2/Cv)\n"
                 "friction x -> S: -c*x'\n"
                 "heat S, S2: kappa\n"
                 "heat_input S: P0*sin(w*t)\n"
                 "initial x = 0.1, S = 1, S2 = 1.2\n");
    const spec_model *m = spec_root(s);
    ENSURE(m != NULL);
    if (m) {
        ENSURE_EQ_INT(m->entropy_count, 2);
        ENSURE_EQ_INT(m->lagrangian_count, 2);
        ENSURE_EQ_INT(m->friction_count, 1);
        ENSURE_EQ_INT(m->frictions[0].entropy.ref.kind, SPEC_SYM_ENTROPY);
        ENSURE_EQ_INT(m->frictions[0].coord.ref.kind, SPEC_SYM_COORDINATE);
        ENSURE_EQ_INT(m->heat_count, 1);
        ENSURE_EQ_INT(m->heats[0].b.ref.index, 1);
        ENSURE_EQ_INT(m->heat_input_count, 1);
        const spec_expr *e = &m->heat_inputs[0].value;
        bool time = false;
        for (int i = 0; i < e->count; i++)
            time |= e->nodes[i].kind == SPEC_EXPR_NAME &&
                    e->nodes[i].u.sym.ref.kind == SPEC_SYM_TIME;
        ENSURE(time);
        ENSURE_EQ_INT(m->initial_count, 3);
        ENSURE_EQ_INT(m->initials[1].var.ref.kind, SPEC_SYM_ENTROPY);
    }
    spec_destroy(s);
}

static void test_precedence(void)
{
    const spec_expr *e;
    // -x^2 = -(x^2)
    spec *s = lagrangian_of("-x^2", &e);
    if (e) {
        const spec_expr_node *r = spec_expr_root(e);
        ENSURE_EQ_INT(r->kind, SPEC_EXPR_UNARY);
        ENSURE_EQ_INT(r->op, SPEC_OP_NEG);
        ENSURE_EQ_INT(r->u.arg[0]->kind, SPEC_EXPR_BINARY);
        ENSURE_EQ_INT(r->u.arg[0]->op, SPEC_OP_POW);
        ENSURE_EQ_INT(e->count, 4);
    }
    spec_destroy(s);
    // a^b^c = a^(b^c)
    s = lagrangian_of("a^b^c", &e);
    if (e) {
        const spec_expr_node *r = spec_expr_root(e);
        ENSURE_EQ_INT(r->op, SPEC_OP_POW);
        ENSURE_EQ_INT(r->u.arg[0]->kind, SPEC_EXPR_NAME);
        ENSURE(strcmp(r->u.arg[0]->u.sym.name, "a") == 0);
        ENSURE_EQ_INT(r->u.arg[1]->op, SPEC_OP_POW);
        ENSURE_EQ_INT(r->loc.col, 13);   // the first ^
    }
    spec_destroy(s);
    // 1 - 2 - 3 = (1 - 2) - 3
    s = lagrangian_of("a - b - c", &e);
    if (e) {
        const spec_expr_node *r = spec_expr_root(e);
        ENSURE_EQ_INT(r->op, SPEC_OP_SUB);
        ENSURE_EQ_INT(r->u.arg[0]->op, SPEC_OP_SUB);
        ENSURE_EQ_INT(r->u.arg[1]->kind, SPEC_EXPR_NAME);
        ENSURE_EQ_INT(r->loc.col, 18);
    }
    spec_destroy(s);
    // x^-2*3 = (x^(-2))*3, and a + b*c
    s = lagrangian_of("x^-2*3 + a*b", &e);
    if (e) {
        const spec_expr_node *r = spec_expr_root(e);
        ENSURE_EQ_INT(r->op, SPEC_OP_ADD);
        const spec_expr_node *l = r->u.arg[0];
        ENSURE_EQ_INT(l->op, SPEC_OP_MUL);
        ENSURE_EQ_INT(l->u.arg[0]->op, SPEC_OP_POW);
        ENSURE_EQ_INT(l->u.arg[0]->u.arg[1]->kind, SPEC_EXPR_UNARY);
        ENSURE_EQ_INT(r->u.arg[1]->op, SPEC_OP_MUL);
        ENSURE(is_postorder(e));
    }
    spec_destroy(s);
    // unary plus disappears; 2*-x is allowed; parentheses leave no node
    s = lagrangian_of("+(2*-x) / ((y))", &e);
    if (e) {
        const spec_expr_node *r = spec_expr_root(e);
        ENSURE_EQ_INT(r->op, SPEC_OP_DIV);
        ENSURE_EQ_INT(r->u.arg[0]->op, SPEC_OP_MUL);
        ENSURE_EQ_INT(r->u.arg[0]->u.arg[1]->op, SPEC_OP_NEG);
        ENSURE_EQ_INT(r->u.arg[1]->kind, SPEC_EXPR_NAME);
        ENSURE_EQ_INT(e->count, 6);
    }
    spec_destroy(s);
}

static void test_numbers_and_names(void)
{
    const spec_expr *e;
    spec *s = lagrangian_of(".5 + 1e-3 + 2.5E+2 + 7. + pi*t + sqrt(abs(x))", &e);
    if (e) {
        double want[] = { 0.5, 1e-3, 250.0, 7.0 };
        int k = 0;
        for (int i = 0; i < e->count; i++)
            if (e->nodes[i].kind == SPEC_EXPR_NUMBER && k < 4) {
                ENSURE_NEAR(e->nodes[i].u.number, want[k], 0);
                k++;
            }
        ENSURE_EQ_INT(k, 4);
        for (int i = 0; i < e->count; i++)
            if (e->nodes[i].kind == SPEC_EXPR_NAME && strcmp(e->nodes[i].u.sym.name, "pi") == 0)
                ENSURE_EQ_INT(e->nodes[i].u.sym.ref.kind, SPEC_SYM_PI);
        ENSURE(is_postorder(e));
    }
    spec_destroy(s);
    // every function of one or two arguments with its arity (the others: test_piecewise.c)
    for (int f = 0; f < SPEC_FUNC_COUNT; f++) {
        if (spec_func_arity((spec_func)f) > 2 || !spec_func_name((spec_func)f)[0])
            continue;
        char expr[64];
        snprintf(expr, sizeof expr, "%s(x%s)", spec_func_name((spec_func)f),
                 spec_func_arity((spec_func)f) == 2 ? ", y" : "");
        s = lagrangian_of(expr, &e);
        if (e) {
            ENSURE_EQ_INT(spec_expr_root(e)->op, f);
            ENSURE_EQ_INT(spec_expr_root(e)->argc, spec_func_arity((spec_func)f));
        }
        spec_destroy(s);
    }
    ENSURE_EQ_INT(spec_func_lookup("atan2", 5), SPEC_FUNC_ATAN2);
    ENSURE_EQ_INT(spec_func_lookup("atan", 4), SPEC_FUNC_ATAN);
    ENSURE_EQ_INT(spec_func_lookup("foo", 3), -1);
}

static void test_continuation_lines(void)
{
    spec *s = parse_ok("model m\n"
                       "coordinate x, y\n"
                       "parameter a = (1 +\n"
                       "    2), b = 3,\n"
                       "  c = 4\n"
                       "lagrangian x'^2 +\n"
                       "\n"
                       "  # a comment between the lines\n"
                       "  y'^2 - atan2(x,\n"
                       "             y) * 0 - atan2(x,\n"
                       "  y)\n"
                       "initial x = 1,\n"
                       "        y = 2\n"
                       "constraint c1: x =\n"
                       "   y\n"
                       "friction x ->\n"
                       "  S: 1\n"
                       "entropy S\n"
                       "twoform B: a * d(x) ^\n"
                       "  d(y)\n");
    const spec_model *m = spec_root(s);
    ENSURE(m != NULL);
    if (m) {
        ENSURE_EQ_INT(m->param_count, 3);
        ENSURE_EQ_INT(m->params[2].loc.line, 5);
        ENSURE_EQ_INT(m->params[2].loc.col, 3);
        ENSURE_EQ_INT(m->lagrangian_count, 1);
        ENSURE_EQ_INT(m->initial_count, 2);
        ENSURE_EQ_INT(m->initials[1].var.loc.line, 13);
        ENSURE_EQ_INT(m->constraint_count, 1);
        ENSURE(m->constraints[0].has_rhs);
        ENSURE_EQ_INT(m->twoform_count, 1);
    }
    spec_destroy(s);
    // a line that does not end inside parentheses or with an operator ends the statement
    ENSURE_PARSE_ERROR("model m\ncoordinate x\nlagrangian x'^2\n  + x^2\n",
                       "t.dirac:4:3: error: expected a statement (such as 'parameter' or "
                       "'lagrangian'), found '+'");
}

static void test_statements(void)
{
    spec *s = parse_ok("model drive\n"
                       "parameter K = 0.05, r = 0.1\n"
                       "component circuit = rl_source(R = 1, L = 2*K) from \"rl_source.dirac\"\n"
                       "component rotor = flywheel\n"
                       "component cart = slider()\n"
                       "twoform motor: K * d(circuit.q) ^ d(rotor.theta) - d(cart.x) ^ d(rotor.theta)"
                       " + (r + 1) * d(cart.x) ^ d(circuit.q)\n"
                       "constraint belt: cart.x' = r * rotor.theta'\n"
                       "lagrangian -r/2*cart.x^2\n"
                       "output power = K*circuit.q'*rotor.theta'\n"
                       "initial rotor.theta' = 1\n"
                       "simulate method = rk4, dt = 1e-3, t_end = 10*K, every = 10, tol = 1e-10,"
                       " max_iter = 20\n");
    const spec_model *m = spec_root(s);
    ENSURE(m != NULL);
    if (m) {
        ENSURE_EQ_INT(m->component_count, 3);
        const spec_component *c = &m->components[0];
        ENSURE(strcmp(c->name, "circuit") == 0 && strcmp(c->model_name, "rl_source") == 0);
        ENSURE(c->file && strcmp(c->file, "rl_source.dirac") == 0);
        ENSURE_EQ_INT(c->file_loc.col, 52);
        ENSURE_EQ_INT(c->arg_count, 2);
        ENSURE(strcmp(c->args[1].name, "L") == 0);
        ENSURE(c->model == NULL);   // spec_parse_buffer does not load components
        ENSURE(m->components[1].file == NULL && m->components[1].arg_count == 0);
        ENSURE_EQ_INT(m->twoform_count, 1);
        const spec_twoform *tf = &m->twoforms[0];
        ENSURE_EQ_INT(tf->term_count, 3);
        ENSURE(tf->term_count == 3 && tf->terms[0].sign == 1 && tf->terms[0].coefficient.count == 1);
        ENSURE(tf->term_count == 3 && strcmp(tf->terms[0].a.name, "circuit.q") == 0 &&
               strcmp(tf->terms[0].b.name, "rotor.theta") == 0);
        ENSURE(tf->term_count == 3 && tf->terms[1].sign == -1 && tf->terms[1].coefficient.count == 0);
        ENSURE(tf->term_count == 3 && tf->terms[2].coefficient.count == 3);
        ENSURE_EQ_INT(tf->terms[0].a.ref.kind, SPEC_SYM_QUALIFIED);
        ENSURE_EQ_INT(tf->terms[0].a.ref.index, 0);
        ENSURE_EQ_INT(m->constraints[0].kind, SPEC_CONSTRAINT_NONHOLONOMIC);
        ENSURE_EQ_INT(m->setting_count, 6);
    }
    spec_destroy(s);
    // a leading minus before d(...)
    s = parse_ok("model m\ncoordinate a, b\nlagrangian a'^2\ntwoform B: -d(a) ^ d(b)\n");
    m = spec_root(s);
    ENSURE(m && m->twoforms[0].terms[0].sign == -1);
    spec_destroy(s);
}

static void test_message_format(void)
{
    dirac_status st;
    spec *s = parse_text("model m\ncoordinate x\n\tlagrangian x'^2 + \tq\n", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    ENSURE(strcmp(spec_errmsg(s), "t.dirac:3:21: error: unknown name 'q'\n"
                                  "\tlagrangian x'^2 + \tq\n"
                                  "\t                  \t^\n") == 0);
    dirac_error err;
    ENSURE_EQ_INT(spec_fill_error(s, &err), DIRAC_ERR_PARSE);
    ENSURE(strcmp(err.message, "t.dirac:3:21: error: unknown name 'q'") == 0);
    spec_destroy(s);
    // several errors are reported, up to the limit
    s = parse_text("model m\ncoordinate x\nlagrangian x'^2\nfoo\nbar\nforce y: 1\n", &st);
    ENSURE_CONTAINS(spec_errmsg(s), "t.dirac:4:1: error: unknown statement 'foo'");
    ENSURE_CONTAINS(spec_errmsg(s), "t.dirac:5:1: error: unknown statement 'bar'");
    spec_destroy(s);
    spec_options opt = { 2, 0 };
    const char *many = "model m\na\nb\nc\nd\n";
    ENSURE_EQ_INT(spec_parse_buffer("t.dirac", many, strlen(many), &opt, &s), DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(spec_errmsg(s), "note: too many errors (2); stopping\n");
    ENSURE(!strstr(spec_errmsg(s), "'c'"));
    spec_destroy(s);
    // long lines are shown around the column
    char line[4096];
    int n = snprintf(line, sizeof line, "model m\ncoordinate x\nlagrangian x'^2");
    for (int i = 0; i < 300; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " + x");
    snprintf(line + n, sizeof line - (size_t)n, " + q");
    s = parse_text(line, &st);
    ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:3:1219: error: unknown name 'q'");
    ENSURE_CONTAINS(spec_errmsg(s), "\n...");
    ENSURE_CONTAINS(spec_errmsg(s), " + q\n");
    const char *caret = strrchr(spec_errmsg(s), '^');
    ENSURE(caret && caret[1] == '\n');
    spec_destroy(s);
}

TEST_MAIN(TEST(test_pendulum_example), TEST(test_thermodynamic_example), TEST(test_precedence),
          TEST(test_numbers_and_names), TEST(test_continuation_lines), TEST(test_statements),
          TEST(test_message_format))
