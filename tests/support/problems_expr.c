// Zoo problems as expressions (problems_expr.h).
#include "problems_expr.h"

expr_id cartesian_chain_expr(expr_pool *p, int n, expr_id *phi)
{
    expr_id m = expr_const(p, 1.0), g = expr_const(p, 9.81), l = expr_const(p, 1.0);
    expr_id half_m = expr_div(p, m, expr_const(p, 2));
    expr_id lagrangian = expr_const(p, 0), px = expr_const(p, 0), py = expr_const(p, 0);
    for (int i = 0; i < n; i++) {
        expr_id x = expr_var(p, 4 * i), y = expr_var(p, 4 * i + 1);
        expr_id vx = expr_var(p, 4 * i + 2), vy = expr_var(p, 4 * i + 3);
        expr_id kinetic = expr_mul(p, half_m, expr_add(p, expr_powc(p, vx, 2), expr_powc(p, vy, 2)));
        lagrangian = expr_add(p, lagrangian, expr_sub(p, kinetic, expr_mul(p, expr_mul(p, m, g), y)));
        phi[i] = expr_sub(p, expr_add(p, expr_powc(p, expr_sub(p, x, px), 2),
                                      expr_powc(p, expr_sub(p, y, py), 2)),
                          expr_powc(p, l, 2));
        px = x;
        py = y;
    }
    return lagrangian;
}
