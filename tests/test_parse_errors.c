// Every error class of the model-language front end: exact message text and LINE:COL.
#include "parse_util.h"

// lines 1-3 of most inputs; the line under test is line 4
#define HEAD "model m\ncoordinate x, y\nparameter k = 1\n"
#define LAG "lagrangian x'^2 + y'^2\n"

static void test_statements(void)
{
    ENSURE_PARSE_ERROR("model m\nparamter a = 1\n",
                       "t.dirac:2:1: error: unknown statement 'paramter'; did you mean 'parameter'?");
    ENSURE_PARSE_ERROR("model m\nfoo\n", "t.dirac:2:1: error: unknown statement 'foo'");
    ENSURE_PARSE_ERROR("coordinate x\n",
                       "t.dirac:1:1: error: a model file must start with 'model NAME'");
    ENSURE_PARSE_ERROR("model m\nmodel n\n",
                       "t.dirac:2:1: error: only one model per file ('m' was named on line 1)");
    ENSURE_PARSE_ERROR(HEAD "constraint x^2 = 1\n",
                       "t.dirac:4:13: error: expected ':' after the constraint name "
                       "(constraint NAME: EXPR = EXPR), found '^'");
    ENSURE_PARSE_ERROR(HEAD "coordinate z w\n",
                       "t.dirac:4:14: error: expected ',' or end of line, found 'w'");
    ENSURE_PARSE_ERROR(HEAD "parameter a 1\n",
                       "t.dirac:4:13: error: expected '=' after the name (parameter NAME = EXPR), "
                       "found number '1'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x y\n",
                       "t.dirac:4:14: error: expected an operator before 'y'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'^2 +\nparameter a = 1\n",
                       "t.dirac:5:1: error: expected an expression, found the statement "
                       "'parameter' (the line before ends with an operator, so it continues here)");
    ENSURE_PARSE_ERROR(HEAD "lagrangian\n",
                       "t.dirac:4:11: error: expected an expression, found end of line");
    ENSURE_PARSE_ERROR(HEAD "parameter t = 1\n",
                       "t.dirac:4:11: error: 't' is reserved for time and cannot be defined");
    ENSURE_PARSE_ERROR(HEAD "parameter pi = 3\n",
                       "t.dirac:4:11: error: 'pi' is a built-in constant and cannot be defined");
    ENSURE_PARSE_ERROR(HEAD "coordinate sin\n",
                       "t.dirac:4:12: error: 'sin' is a built-in function and cannot be defined");
    ENSURE_PARSE_ERROR(HEAD "parameter a.b = 1\n",
                       "t.dirac:4:11: error: the name of a parameter cannot contain '.' ('a.b')");
    ENSURE_PARSE_ERROR(HEAD "simulate metod = rk4\n",
                       "t.dirac:4:10: error: unknown simulate setting 'metod'; did you mean "
                       "'method'?");
    ENSURE_PARSE_ERROR(HEAD "simulate dt = 1, dt = 2\n",
                       "t.dirac:4:18: error: duplicate simulate setting 'dt'");
    ENSURE_PARSE_ERROR(HEAD "simulate method = 3\n",
                       "t.dirac:4:19: error: expected the name of an integration method, found "
                       "number '3'");
    ENSURE_PARSE_ERROR(HEAD "component c = M(a = 1, a = 2)\n",
                       "t.dirac:4:24: error: parameter 'a' is set twice");
    ENSURE_PARSE_ERROR(HEAD "component c = M(a = 1) from rl.dirac\n",
                       "t.dirac:4:29: error: expected a file name in double quotes after 'from', "
                       "found 'rl.dirac'");
    ENSURE_PARSE_ERROR(HEAD "component c = M from \"rl.dirac\n",
                       "t.dirac:4:22: error: unterminated string");
}

static void test_empty_and_missing(void)
{
    ENSURE_PARSE_ERROR("", "t.dirac:1:1: error: expected 'model NAME': the file has no statements");
    ENSURE_PARSE_ERROR("# only a comment\n\n",
                       "t.dirac:2:1: error: expected 'model NAME': the file has no statements");
    ENSURE_PARSE_ERROR("# nothing\n  ",
                       "t.dirac:2:3: error: expected 'model NAME': the file has no statements");
    ENSURE_PARSE_ERROR("model m\n",
                       "t.dirac:1:7: error: model 'm' is empty: it declares no coordinates, "
                       "entropy variables or components");
    ENSURE_PARSE_ERROR("model m\nparameter a = 1\n",
                       "t.dirac:1:7: error: model 'm' is empty: it declares no coordinates, "
                       "entropy variables or components");
    ENSURE_PARSE_ERROR("model pend\ncoordinate x\n",
                       "t.dirac:1:7: error: model 'pend' has no lagrangian");
    // a model of components needs no lagrangian of its own
    ENSURE_PARSES("model m\ncomponent a = A()\n");
}

static void test_unknown_names(void)
{
    ENSURE_PARSE_ERROR("model m\ncoordinate theta\nlagrangian thta'^2\n",
                       "t.dirac:3:12: error: unknown name 'thta'; did you mean 'theta'?");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'^2 - q\n", "t.dirac:4:19: error: unknown name 'q'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'^2 - tt\n",
                       "t.dirac:4:19: error: unknown name 'tt'; did you mean 't'?");
    ENSURE_PARSE_ERROR(HEAD "constraint rod: x = 1\n" LAG "output o = rod\n",
                       "t.dirac:6:12: error: 'rod' is a constraint, not a value");
    ENSURE_PARSE_ERROR(HEAD "component rotor = R()\nlagrangian rotor\n",
                       "t.dirac:5:12: error: 'rotor' is a component; name its members as "
                       "rotor.NAME");
    ENSURE_PARSE_ERROR(HEAD "component rotor = R()\nlagrangian rotr.theta'^2\n",
                       "t.dirac:5:12: error: unknown component 'rotr' in 'rotr.theta'; did you "
                       "mean 'rotor'?");
    ENSURE_PARSE_ERROR(HEAD LAG "force x.y: 1\n",
                       "t.dirac:5:7: error: 'x' is a coordinate, not a component, in 'x.y'");
}

static void test_duplicates(void)
{
    dirac_status st;
    spec *s = parse_text("model m\nparameter g = 9.81\ncoordinate x\nparameter g = 1\n", &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:4:11: error: duplicate definition of 'g'");
    ENSURE_CONTAINS(spec_errmsg(s),
                    "t.dirac:2:11: note: 'g' was first defined here, on line 2, as a parameter\n"
                    "parameter g = 9.81\n"
                    "          ^\n");
    spec_destroy(s);
    ENSURE_PARSE_ERROR(HEAD "let x = 2\n", "t.dirac:4:5: error: duplicate definition of 'x'");
    ENSURE_PARSE_ERROR(HEAD LAG "initial x = 1, y = 0\ninitial x = 2\n",
                       "t.dirac:6:9: error: duplicate initial value for x");
    ENSURE_PARSE_ERROR(HEAD LAG "initial x' = 1, x' = 2\n",
                       "t.dirac:5:17: error: duplicate initial value for x'");
}

static void test_dependencies(void)
{
    ENSURE_PARSE_ERROR(HEAD "parameter c = 2*x\n",
                       "t.dirac:4:17: error: parameter 'c' must be constant but depends on "
                       "coordinate 'x'");
    ENSURE_PARSE_ERROR(HEAD "parameter c = x'\n",
                       "t.dirac:4:15: error: parameter 'c' must be constant but depends on the "
                       "velocity x'");
    ENSURE_PARSE_ERROR(HEAD "parameter c = sin(t)\n",
                       "t.dirac:4:19: error: parameter 'c' must be constant but depends on time t");
    ENSURE_PARSE_ERROR(HEAD "entropy S\nparameter c = S\n",
                       "t.dirac:5:15: error: parameter 'c' must be constant but depends on entropy "
                       "variable 'S'");
    ENSURE_PARSE_ERROR(HEAD "let r2 = x^2 + y^2\nlet r = sqrt(r2)\nparameter c = 1 + r\n",
                       "t.dirac:6:19: error: parameter 'c' must be constant but depends on 'r', "
                       "which depends on coordinate 'x'");
    // a let of parameters only is a constant
    ENSURE_PARSES(HEAD "let k2 = k^2\nparameter c = k2\n" LAG);
    ENSURE_PARSE_ERROR(HEAD "parameter a = b + 1, b = 2\n",
                       "t.dirac:4:15: error: 'b' is used before its definition on line 4");
    ENSURE_PARSE_ERROR(HEAD "let a = 2*a\n",
                       "t.dirac:4:11: error: 'a' is used in its own definition");
    ENSURE_PARSE_ERROR(HEAD "let a = b\nlet b = 1\n",
                       "t.dirac:4:9: error: 'b' is used before its definition on line 5");
    ENSURE_PARSE_ERROR(HEAD "let a = z\ncoordinate z\n",
                       "t.dirac:4:9: error: 'z' is used before its definition on line 5");
    // other statements may use names defined later
    ENSURE_PARSES("model m\nlagrangian x'^2/2 - k*x^2/2\ncoordinate x\nparameter k = 1\n");
    ENSURE_PARSE_ERROR(HEAD LAG "initial x = y\n",
                       "t.dirac:5:13: error: initial value of x must be constant but depends on "
                       "coordinate 'y'");
    ENSURE_PARSE_ERROR(HEAD LAG "simulate dt = 1e-3*x\n",
                       "t.dirac:5:20: error: simulate setting 'dt' must be constant but depends on "
                       "coordinate 'x'");
    ENSURE_PARSE_ERROR(HEAD "component c = M(R = t)\n",
                       "t.dirac:4:21: error: parameter 'R' of component 'c' must be constant but "
                       "depends on time t");
}

static void test_velocities(void)
{
    ENSURE_PARSE_ERROR(HEAD "lagrangian k'^2\n",
                       "t.dirac:4:12: error: 'k' is a parameter; only coordinates have velocities "
                       "(k')");
    ENSURE_PARSE_ERROR(HEAD "entropy S\nlagrangian x'^2 - S'\n",
                       "t.dirac:5:19: error: 'S' is an entropy variable; only coordinates have "
                       "velocities (S')");
    ENSURE_PARSE_ERROR(HEAD "lagrangian t'\n",
                       "t.dirac:4:12: error: 't' is the time; only coordinates have velocities (t')");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'''\n",
                       "t.dirac:4:12: error: only first and second time derivatives (x', x'') "
                       "can be written");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x''\n",
                       "t.dirac:4:12: error: the acceleration x'' can be used only in outputs "
                       "(it is a result of the simulation, like mu.C)");
    ENSURE_PARSE_ERROR(HEAD "lagrangian (x)'\n",
                       "t.dirac:4:15: error: a prime (') must follow a name directly, as in x'");
    ENSURE_PARSE_ERROR(HEAD LAG "initial k' = 1\n",
                       "t.dirac:5:9: error: 'k' is a parameter, not a coordinate");
}

static void test_functions(void)
{
    ENSURE_PARSE_ERROR(HEAD "lagrangian sinn(x)\n",
                       "t.dirac:4:12: error: unknown function 'sinn'; did you mean 'sin'?");
    ENSURE_PARSE_ERROR(HEAD "lagrangian foo(x)\n", "t.dirac:4:12: error: unknown function 'foo'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian 1 + atan2(x)\n",
                       "t.dirac:4:16: error: atan2() takes 2 arguments, got 1");
    ENSURE_PARSE_ERROR(HEAD "lagrangian sin(x, y)\n",
                       "t.dirac:4:12: error: sin() takes 1 argument, got 2");
    ENSURE_PARSE_ERROR(HEAD "lagrangian exp()\n",
                       "t.dirac:4:16: error: expected an expression, found ')'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian k(x + 1)\n",
                       "t.dirac:4:12: error: 'k' is not a function (write k*(...) for a product)");
    ENSURE_PARSE_ERROR(HEAD "lagrangian d(x)\n",
                       "t.dirac:4:12: error: d(...) is only allowed in a two-form: twoform NAME: "
                       "EXPR * d(A) ^ d(B)");
}

static void test_parentheses_and_numbers(void)
{
    ENSURE_PARSE_ERROR(HEAD "lagrangian (x'^2 + 1\n",
                       "t.dirac:4:12: error: unbalanced parentheses: '(' is not closed");
    ENSURE_PARSE_ERROR(HEAD "lagrangian sin(x\n" LAG,
                       "t.dirac:4:12: error: unbalanced parentheses: '(' is not closed");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'^2)\n",
                       "t.dirac:4:16: error: unbalanced parentheses: unmatched ')'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian (x, y)\n",
                       "t.dirac:4:14: error: unexpected ',' inside parentheses");
    ENSURE_PARSE_ERROR(HEAD "lagrangian 1e999*x\n",
                       "t.dirac:4:12: error: number '1e999' is out of range");
    ENSURE_PARSE_ERROR(HEAD "lagrangian 2x\n",
                       "t.dirac:4:12: error: invalid number '2x' (write 2*x for a product)");
    ENSURE_PARSE_ERROR(HEAD "lagrangian 1.2.3\n", "t.dirac:4:12: error: invalid number '1.2.3'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian 1e+\n", "t.dirac:4:12: error: invalid number '1e+'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x. + 1\n",
                       "t.dirac:4:12: error: invalid name 'x.': a name must follow '.'");
    ENSURE_PARSE_ERROR(HEAD "lagrangian x $ 1\n", "t.dirac:4:14: error: unexpected character '$'");
    // tiny numbers underflow to zero silently
    ENSURE_PARSES(HEAD "lagrangian x'^2 + 1e-999*x\n");
}

static void test_bytes(void)
{
    const char nul[] = "model m\ncoordinate x\0\nlagrangian x'^2\n";
    spec *s = NULL;
    ENSURE_EQ_INT(spec_parse_buffer("t.dirac", nul, sizeof nul - 1, NULL, &s), DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:2:13: error: NUL byte in the file (is it a text file?)");
    spec_destroy(s);
    const char nul_comment[] = "model m # a\0b\ncoordinate x\nlagrangian x'^2\n";
    ENSURE_EQ_INT(spec_parse_buffer("t.dirac", nul_comment, sizeof nul_comment - 1, NULL, &s),
                  DIRAC_ERR_PARSE);
    ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:1:12: error: NUL byte in the file (is it a text file?)");
    spec_destroy(s);
    ENSURE_PARSE_ERROR(HEAD "lagrangian x'^2 \xff\n", "t.dirac:4:17: error: invalid UTF-8 byte 0xFF");
    ENSURE_PARSE_ERROR(HEAD "lagrangian \xce\xb8'^2\n",
                       "t.dirac:4:12: error: unexpected character '\xce\xb8' (names and operators "
                       "are ASCII)");
    // overlong encoding and a lone continuation byte are invalid too
    ENSURE_PARSE_ERROR(HEAD "lagrangian \xc0\xaf\n", "t.dirac:4:12: error: invalid UTF-8 byte 0xC0");
    ENSURE_PARSE_ERROR(HEAD "lagrangian \x80\n", "t.dirac:4:12: error: invalid UTF-8 byte 0x80");
    // anything goes in comments, columns count characters
    ENSURE_PARSES(HEAD "# \xff\xfe Grüße θ\n" LAG);
    ENSURE_PARSE_ERROR("model m\ncomponent c = M from \"d\xc3\xa9j\xc3\xa0.dirac\" x\n",
                       "t.dirac:2:35: error: unexpected 'x' after the component statement");
    ENSURE_PARSE_ERROR("model m\ncomponent c = M from \"a\xff\"\n",
                       "t.dirac:2:24: error: invalid UTF-8 byte 0xFF");
    // a tab counts one column
    ENSURE_PARSE_ERROR(HEAD "\tlagrangian\tq\n", "t.dirac:4:13: error: unknown name 'q'");
}

static void test_constraints(void)
{
    ENSURE_PARSE_ERROR(HEAD "constraint c: x'*y' = 0\n",
                       "t.dirac:4:17: error: constraint 'c' is not linear in the velocities: it "
                       "multiplies velocities");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x' = y'^2\n",
                       "t.dirac:4:22: error: constraint 'c' is not linear in the velocities: it "
                       "raises a velocity to a power");
    ENSURE_PARSE_ERROR(HEAD "constraint c: x + 1/y' = 0\n",
                       "t.dirac:4:20: error: constraint 'c' is not linear in the velocities: it "
                       "divides by a velocity");
    ENSURE_PARSE_ERROR(HEAD "constraint c: sqrt(x'^2 + y'^2) = 1\n",
                       "t.dirac:4:22: error: constraint 'c' is not linear in the velocities: it "
                       "raises a velocity to a power");
    ENSURE_PARSE_ERROR(HEAD "constraint c: cos(x') = 1\n",
                       "t.dirac:4:15: error: constraint 'c' is not linear in the velocities: a "
                       "velocity appears inside a function");
    ENSURE_PARSE_ERROR(HEAD "constraint c: 2^x' = 1\n",
                       "t.dirac:4:16: error: constraint 'c' is not linear in the velocities: a "
                       "velocity appears in an exponent");
    ENSURE_PARSE_ERROR(HEAD "let v2 = x'^2 + y'^2\nconstraint c: v2 = 1\n",
                       "t.dirac:5:15: error: constraint 'c' is not linear in the velocities: it "
                       "uses 'v2', which is not linear in the velocities");
    // linear ones are fine, and classified
    dirac_status st;
    spec *s = parse_text(HEAD LAG "constraint rod: x^2 + y^2 = k^2\n"
                              "constraint roll: x'*cos(x) - (y'/2 + x'^1)*k^2 = sin(t)\n"
                              "let w = 3*y'\nconstraint c3: w + x'^0 = 0\n", &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    const spec_model *m = spec_root(s);
    ENSURE(m && m->constraint_count == 3);
    if (m && m->constraint_count == 3) {
        ENSURE_EQ_INT(m->constraints[0].kind, SPEC_CONSTRAINT_HOLONOMIC);
        ENSURE_EQ_INT(m->constraints[1].kind, SPEC_CONSTRAINT_NONHOLONOMIC);
        ENSURE_EQ_INT(m->constraints[2].kind, SPEC_CONSTRAINT_NONHOLONOMIC);
        ENSURE(!m->constraints[0].has_rhs == false);
    }
    spec_destroy(s);
}

static void test_statement_targets(void)
{
    ENSURE_PARSE_ERROR("model m\ncoordinate theta\nlagrangian theta'^2\nforce thta: 1\n",
                       "t.dirac:4:7: error: force on unknown coordinate 'thta'; did you mean "
                       "'theta'?");
    ENSURE_PARSE_ERROR(HEAD LAG "force k: 1\n",
                       "t.dirac:5:7: error: 'k' is a parameter, not a coordinate");
    ENSURE_PARSE_ERROR(HEAD LAG "entropy S\nfriction z -> S: -x'\n",
                       "t.dirac:6:10: error: friction on unknown coordinate 'z'");
    ENSURE_PARSE_ERROR(HEAD LAG "entropy S1\nfriction x -> S2: -x'\n",
                       "t.dirac:6:15: error: friction heating unknown entropy variable 'S2'; did "
                       "you mean 'S1'?");
    ENSURE_PARSE_ERROR(HEAD LAG "friction x -> y: -x'\n",
                       "t.dirac:5:15: error: 'y' is a coordinate, not an entropy variable "
                       "(declare entropy variables with 'entropy NAME')");
    ENSURE_PARSE_ERROR(HEAD LAG "entropy S\nheat S, k: 1\n",
                       "t.dirac:6:9: error: 'k' is a parameter, not an entropy variable (declare "
                       "entropy variables with 'entropy NAME')");
    ENSURE_PARSE_ERROR(HEAD LAG "entropy S\nheat S, S: 1\n",
                       "t.dirac:6:9: error: heat exchange needs two different entropy variables");
    ENSURE_PARSE_ERROR(HEAD LAG "heat_input Q: 1\n",
                       "t.dirac:5:12: error: heat input into unknown entropy variable 'Q'");
    ENSURE_PARSE_ERROR(HEAD LAG "initial z = 1\n",
                       "t.dirac:5:9: error: initial value for unknown coordinate or entropy "
                       "variable 'z'");
    ENSURE_PARSE_ERROR(HEAD LAG "entropy S\ninitial S' = 1\n",
                       "t.dirac:6:9: error: 'S' is an entropy variable, not a coordinate");
}

static void test_twoforms(void)
{
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: k * d(x) ^ d(x)\n",
                       "t.dirac:5:25: error: d(x) ^ d(x) is zero: a two-form term needs two "
                       "different coordinates");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: k * d(x)\n",
                       "t.dirac:5:20: error: expected '^' between the differentials (d(A) ^ d(B)), "
                       "found end of line");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: k + d(x) ^ d(y)\n",
                       "t.dirac:5:14: error: expected '* d(A) ^ d(B)' after the coefficient, found "
                       "'+'");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: x' * d(x) ^ d(y)\n",
                       "t.dirac:5:12: error: the coefficient of two-form 'B' must not depend on "
                       "velocities (x')");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: d(x) ^ d(z)\n",
                       "t.dirac:5:21: error: d() of unknown coordinate 'z'");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: sin(d(x)) ^ d(y)\n",
                       "t.dirac:5:16: error: misplaced d(...): a two-form term is EXPR * d(A) ^ "
                       "d(B)");
    ENSURE_PARSE_ERROR(HEAD LAG "twoform B: d(x') ^ d(y)\n",
                       "t.dirac:5:14: error: expected a coordinate inside d(...), found the "
                       "velocity 'x''");
}

TEST_MAIN(TEST(test_statements), TEST(test_empty_and_missing), TEST(test_unknown_names),
          TEST(test_duplicates), TEST(test_dependencies), TEST(test_velocities),
          TEST(test_functions), TEST(test_parentheses_and_numbers), TEST(test_bytes),
          TEST(test_constraints), TEST(test_statement_targets), TEST(test_twoforms))
