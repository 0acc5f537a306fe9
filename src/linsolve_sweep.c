// A kept sparse LU of one diagonal block solved in two sweeps (linsolve_sweep.h).
#include "linsolve_sweep.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

enum { LINK_BELOW = 1, LINK_ABOVE = 2 };

void linsolve_sweep_free(linsolve_sweep *s)
{
    free(s->below);
    free(s->above);
    free(s->pivot);
    free(s->scale);
    free(s->links);
    free(s->l_col);
    free(s->l_row);
    free(s->l_value);
    free(s->u_col);
    free(s->u_row);
    free(s->u_value);
    *s = (linsolve_sweep){ 0 };
}

// Room for `count` (at least 1) entries in one list; 0 when out of memory.
static int reserve_list(int **col, int **row, double **value, int *capacity, int count)
{
    if (count <= *capacity)
        return 1;
    size_t c = (size_t)(count > 0 ? count : 1);
    int *cs = realloc(*col, c * sizeof *cs);
    if (cs)
        *col = cs;
    int *rs = realloc(*row, c * sizeof *rs);
    if (rs)
        *row = rs;
    double *vs = realloc(*value, c * sizeof *vs);
    if (vs)
        *value = vs;
    if (!cs || !rs || !vs)
        return 0;
    *capacity = (int)c;
    return 1;
}

int linsolve_sweep_build(linsolve_sweep *s, int n, const int *Lp, const int *Li,
                         const double *Lx, const int *Up, const int *Ui, const double *Ux,
                         const double *Rs)
{
    s->n = 0;
    if (n > s->n_capacity) {
        size_t c = (size_t)n;
        double *below = realloc(s->below, c * sizeof *below);
        if (below)
            s->below = below;
        double *above = realloc(s->above, c * sizeof *above);
        if (above)
            s->above = above;
        double *pivot = realloc(s->pivot, c * sizeof *pivot);
        if (pivot)
            s->pivot = pivot;
        double *scale = realloc(s->scale, c * sizeof *scale);
        if (scale)
            s->scale = scale;
        unsigned char *links = realloc(s->links, c * sizeof *links);
        if (links)
            s->links = links;
        if (!below || !above || !pivot || !scale || !links)
            return 0;
        s->n_capacity = n;
    }
    // the entries off the neighbours' diagonals
    int l_count = 0, u_count = 0;
    for (int k = 0; k < n; k++) {
        for (int p = Lp[k] + 1; p < Lp[k + 1]; p++)
            l_count += Li[p] != k + 1;
        for (int p = Up[k]; p < Up[k + 1] - 1; p++)
            u_count += Ui[p] != k - 1;
    }
    if (!reserve_list(&s->l_col, &s->l_row, &s->l_value, &s->l_capacity, l_count) ||
        !reserve_list(&s->u_col, &s->u_row, &s->u_value, &s->u_capacity, u_count))
        return 0;
    s->l_count = s->u_count = 0;
    for (int k = 0; k < n; k++) {
        unsigned char links = 0;
        s->below[k] = s->above[k] = 0.0;
        for (int p = Lp[k] + 1; p < Lp[k + 1]; p++)   // after the unit diagonal
            if (Li[p] == k + 1) {
                s->below[k] = Lx[p];
                links |= LINK_BELOW;
            } else {
                s->l_col[s->l_count] = k;
                s->l_row[s->l_count] = Li[p];
                s->l_value[s->l_count++] = Lx[p];
            }
        int diagonal = Up[k + 1] - 1;
        s->pivot[k] = 1.0 / Ux[diagonal];
        s->scale[k] = 1.0 / Rs[k];
        for (int p = Up[k]; p < diagonal; p++)
            if (Ui[p] == k - 1) {
                s->above[k] = Ux[p];
                links |= LINK_ABOVE;
            } else {
                s->u_col[s->u_count] = k;
                s->u_row[s->u_count] = Ui[p];
                s->u_value[s->u_count++] = Ux[p];
            }
        s->links[k] = links;
    }
    // U[k-1][k] / U[k-1][k-1], the coupling of pivot k - 1 to k in the back sweep
    for (int k = 1; k < n; k++)
        s->above[k] *= s->pivot[k - 1];
    s->n = n;
    return 1;
}

// Forward: x_k = b_{P_k} / Rs_k, then L's column updates in column order; the update of row
// k + 1 by column k is the last its row receives (every other column of L reaching it is
// left of k), so it is applied in the register as row k + 1 is reached. Rows reached by an
// entry of the lists before their turn are made ready (scaled) first. Back: after U's updates
// from the columns right of k + 1, x_k ← x_k / U_kk − (U_k,k+1 / U_kk) x_{k+1}; then
// b_{Q_k} = x_k. The divisions are multiplications by reciprocals made with the factors.
bool linsolve_sweep_solve(const linsolve_sweep *s, const int *restrict P, const int *restrict Q,
                          double *restrict x, double *restrict b)
{
    const int n = s->n;
    const double *restrict below = s->below, *restrict above = s->above,
                           *restrict pivot = s->pivot, *restrict scale = s->scale;
    const unsigned char *restrict links = s->links;
    const int *restrict l_col = s->l_col, *restrict l_row = s->l_row;
    const int *restrict u_col = s->u_col, *restrict u_row = s->u_row;
    const double *restrict l_value = s->l_value, *restrict u_value = s->u_value;
    // forward, in runs of columns up to the next column with entries in the list
    int ready = 0, e = 0;   // x[0 .. ready) hold their scaled right-hand sides (and updates)
    double previous = 0.0;
    for (int k = 0; k < n;) {
        int stop = e < s->l_count ? l_col[e] + 1 : n;
        for (; k < stop && k < ready; k++) {   // rows an entry of the list reached early
            double xk = x[k];
            if (k > 0 && (links[k - 1] & LINK_BELOW))
                xk -= below[k - 1] * previous;
            x[k] = xk;
            previous = xk;
        }
        for (; k < stop; k++) {
            double xk = b[P[k]] * scale[k];
            if (k > 0 && (links[k - 1] & LINK_BELOW))
                xk -= below[k - 1] * previous;
            x[k] = xk;
            previous = xk;
        }
        ready = ready > k ? ready : k;
        for (; e < s->l_count && l_col[e] == k - 1; e++) {   // column k − 1's list entries
            int row = l_row[e];
            for (; ready <= row; ready++)
                x[ready] = b[P[ready]] * scale[ready];
            x[row] -= l_value[e] * previous;
        }
    }
    // back, in runs of columns down to the next column with entries in the list
    double next = 0.0, bad = 0.0;
    e = s->u_count - 1;
    for (int k = n - 1; k >= 0;) {
        int stop = e >= 0 ? u_col[e] - 1 : -1;
        for (; k > stop; k--) {
            double xk = x[k] * pivot[k];
            if (k + 1 < n && (links[k + 1] & LINK_ABOVE))
                xk -= above[k + 1] * next;
            b[Q[k]] = xk;
            next = xk;
            bad = fabs(xk) <= DBL_MAX ? bad : 1.0;   // false for infinities and NaN
        }
        for (; e >= 0 && u_col[e] == k + 1; e--)   // column k + 1's list entries
            x[u_row[e]] -= u_value[e] * next;
    }
    return bad == 0.0;
}
