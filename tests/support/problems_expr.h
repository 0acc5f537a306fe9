// Problems of the zoo (problems.h) built directly as expressions of the symbolic pool, for the
// tests and benchmarks of the expression engine (src/expr.h).
#ifndef DIRAC_TEST_PROBLEMS_EXPR_H
#define DIRAC_TEST_PROBLEMS_EXPR_H

#include "expr.h"

/// N-link pendulum in Cartesian coordinates: x_i, y_i, x_i', y_i' are inputs 4i .. 4i+3
///     L = sum_i m/2 (x_i'^2 + y_i'^2) - m g y_i                (m = 1, g = 9.81)
///     phi_i = (x_i - x_{i-1})^2 + (y_i - y_{i-1})^2 - l^2      (x_0 = y_0 = 0, l = 1)
/// Returns L and fills phi[0..n-1].
expr_id cartesian_chain_expr(expr_pool *p, int n, expr_id *phi);

#endif
