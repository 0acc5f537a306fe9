// Internal: the built-in functions of the model language, in two X-macro lists that everything
// else reads: the parser (names, argument counts), the lowering into the expression DAG
// (model_lower.c), the node kinds of the DAG (expr.h) with their scalar values (expr_apply.c),
// simplification (expr_pool.c), derivatives (expr_diff.c), tape instructions (expr_tape.c)
// and printing (expr_print.c), and the scalar evaluator of the syntax tree (spec_call_value).
// Adding a function of one C call is one row of BUILTIN_MATH_LIST, its derivative included.
//
// BUILTIN_MATH_LIST: functions that are one DAG node (kind EXPR_<ID>) and one call of a C
// function. X(ID, name, arity, c_call, latex, symmetry, domain, d_x, d_y):
//   c_call     the C function computing it (math.h, or builtin_sign below); generated C code
//              calls it by this name
//   latex      the LaTeX operator name (sqrt and abs print as \sqrt{x} and |x| instead)
//   symmetry   EVEN f(-x) = f(x), ODD f(-x) = -f(x), or NONE (the simplifier uses it)
//   domain     TOTAL: defined and finite for every finite argument; PARTIAL: undefined
//              somewhere (the simplifier never drops a PARTIAL subexpression, expr_pool.c)
//   d_x, d_y   s * (∂f/∂x) and s * (∂f/∂y) for the seed s, the arguments x (and y), and the
//              node's own value f (d exp x = f dx), in the vocabulary MUL, DIV, ADD, SUB, NEG,
//              SQR, FN(ID, a), ONE, TWO, ZERO that expr_diff.c defines; d_y is - for arity 1
//
// BUILTIN_PIECEWISE_LIST: functions that lowering builds from comparisons and selections
// (docs/model-language.md, "Piecewise functions"). X(ID, name, min_args, max_args); max_args
// -1: any number (pwl). A call with more than two arguments keeps its first argument as
// arg[0] and chains the others through LIST nodes in arg[1]: f(a, b, c, d) is
// CALL f(a, LIST(b, LIST(c, d))), so every node has at most two children.
#ifndef DIRAC_SRC_BUILTIN_FUNCTIONS_H
#define DIRAC_SRC_BUILTIN_FUNCTIONS_H

// clang-format off
#define BUILTIN_MATH_LIST(X)                                                                     \
    X(SIN,   "sin",   1, sin,   "\\sin",    ODD,  TOTAL,   MUL(s, FN(COS, x)), -)               \
    X(COS,   "cos",   1, cos,   "\\cos",    EVEN, TOTAL,   NEG(MUL(s, FN(SIN, x))), -)          \
    X(TAN,   "tan",   1, tan,   "\\tan",    ODD,  PARTIAL, MUL(s, ADD(ONE, SQR(f))), -)         \
    X(ASIN,  "asin",  1, asin,  "\\arcsin", ODD,  PARTIAL, DIV(s, FN(SQRT, SUB(ONE, SQR(x)))), -) \
    X(ACOS,  "acos",  1, acos,  "\\arccos", NONE, PARTIAL,                                       \
      NEG(DIV(s, FN(SQRT, SUB(ONE, SQR(x))))), -)                                                \
    X(ATAN,  "atan",  1, atan,  "\\arctan", ODD,  TOTAL,   DIV(s, ADD(ONE, SQR(x))), -)         \
    X(ATAN2, "atan2", 2, atan2, "\\operatorname{atan2}", NONE, TOTAL,                            \
      DIV(MUL(s, y), ADD(SQR(x), SQR(y))), NEG(DIV(MUL(s, x), ADD(SQR(x), SQR(y)))))            \
    X(SINH,  "sinh",  1, sinh,  "\\sinh",   ODD,  TOTAL,   MUL(s, FN(COSH, x)), -)              \
    X(COSH,  "cosh",  1, cosh,  "\\cosh",   EVEN, TOTAL,   MUL(s, FN(SINH, x)), -)              \
    X(TANH,  "tanh",  1, tanh,  "\\tanh",   ODD,  TOTAL,   MUL(s, SUB(ONE, SQR(f))), -)         \
    X(EXP,   "exp",   1, exp,   "\\exp",    NONE, TOTAL,   MUL(s, f), -)                        \
    X(LOG,   "log",   1, log,   "\\log",    NONE, PARTIAL, DIV(s, x), -)                        \
    X(SQRT,  "sqrt",  1, sqrt,  "\\sqrt",   NONE, PARTIAL, DIV(s, MUL(TWO, f)), -)              \
    X(ABS,   "abs",   1, fabs,  "\\operatorname{abs}", EVEN, TOTAL, MUL(s, FN(SIGN, x)), -)     \
    X(SIGN,  "sign",  1, builtin_sign, "\\operatorname{sign}", ODD, TOTAL, ZERO, -)

#define BUILTIN_PIECEWISE_LIST(X) \
    X(STEP,  "step",  1, 1)       \
    X(MIN,   "min",   2, 2)       \
    X(MAX,   "max",   2, 2)       \
    X(IF,    "if",    3, 3)       \
    X(CLAMP, "clamp", 3, 3)       \
    X(PWL,   "pwl",   3, -1)      \
    X(TABLE, "table", 3, 3)       \
    X(LIST,  "",      2, 2)
// clang-format on

/// c_call(x) for a function of arity 1, c_call(x, y) for arity 2.
#define BUILTIN_CALL(arity, c_call, x, y) BUILTIN_CALL_##arity(c_call, x, y)
#define BUILTIN_CALL_1(c_call, x, y) c_call(x)
#define BUILTIN_CALL_2(c_call, x, y) c_call(x, y)

/// sign(x): -1, 0 or 1 (NaN stays NaN; 0 and NaN give x itself); the C function of the
/// built-in `sign`. Its body is a macro so that generated code defines the same function
/// (codegen_emit.c writes BUILTIN_STRING(BUILTIN_SIGN_BODY(x)) into its prelude).
#define BUILTIN_SIGN_BODY(x) ((x) > 0.0 ? 1.0 : (x) < 0.0 ? -1.0 : (x))
static inline double builtin_sign(double x)
{
    return BUILTIN_SIGN_BODY(x);
}

/// The text of a macro's expansion, as a string literal.
#define BUILTIN_STRING(...) BUILTIN_STRING_(__VA_ARGS__)
#define BUILTIN_STRING_(...) #__VA_ARGS__

#endif
