// The problem zoo (problems.h): model texts and exact solutions.
#include "problems.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const double pi = 3.14159265358979323846;

double elliptic_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && a != b; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return pi / (2.0 * a);
}

void jacobi_elliptic(double u, double k, double *sn, double *cn, double *dn)
{
    double a[16], c[16], b = sqrt(1.0 - k * k);
    a[0] = 1.0;
    c[0] = k;
    int n = 0;
    while (n < 15 && fabs(c[n]) > 1e-17) {
        a[n + 1] = 0.5 * (a[n] + b);
        c[n + 1] = 0.5 * (a[n] - b);
        b = sqrt(a[n] * b);
        n++;
    }
    double phi = ldexp(a[n] * u, n), previous = phi;   // φ_1 when n ≥ 1
    int levels = n;
    for (; n > 0; n--) {
        previous = phi;
        phi = 0.5 * (phi + asin(c[n] / a[n] * sin(phi)));
    }
    if (sn)
        *sn = sin(phi);
    if (cn)
        *cn = cos(phi);
    if (dn)
        *dn = levels > 0 ? cos(phi) / cos(previous - phi) : 1.0;   // dn(u | 0) = 1
}

double pendulum_period(double g, double l, double theta0)
{
    return 4.0 * sqrt(l / g) * elliptic_k(sin(0.5 * theta0));
}

double pendulum_angle(double g, double l, double theta0, double t, double *rate)
{
    double k = sin(0.5 * theta0), w = sqrt(g / l), sn, cn;
    jacobi_elliptic(elliptic_k(k) - w * t, k, &sn, &cn, NULL);
    if (rate)
        *rate = -2.0 * k * w * cn;
    return 2.0 * asin(k * sn);
}

void pendulum_exact(double g, double l, double theta0, double t, double q[2], double v[2])
{
    double rate, theta = pendulum_angle(g, l, theta0, t, &rate);
    q[0] = l * sin(theta);
    q[1] = -l * cos(theta);
    if (v) {
        v[0] = l * cos(theta) * rate;
        v[1] = l * sin(theta) * rate;
    }
}

double_pendulum double_pendulum_default(void)
{
    double_pendulum p = { DOUBLE_PENDULUM_M1, DOUBLE_PENDULUM_M2, DOUBLE_PENDULUM_L1,
                          DOUBLE_PENDULUM_L2, DOUBLE_PENDULUM_G };
    return p;
}

void double_pendulum_rhs(const double_pendulum *p, const double *y, double *dy)
{
    double a1 = y[0], a2 = y[1], w1 = y[2], w2 = y[3], d = a1 - a2;
    // [A B; C D] [a1''; a2''] = [e; f]
    double A = (p->m1 + p->m2) * p->l1, B = p->m2 * p->l2 * cos(d), C = p->l1 * cos(d), D = p->l2;
    double e = -p->m2 * p->l2 * w2 * w2 * sin(d) - (p->m1 + p->m2) * p->g * sin(a1);
    double f = p->l1 * w1 * w1 * sin(d) - p->g * sin(a2);
    double det = A * D - B * C;
    dy[0] = w1;
    dy[1] = w2;
    dy[2] = (e * D - B * f) / det;
    dy[3] = (A * f - C * e) / det;
}

void double_pendulum_reference(const double_pendulum *p, double a1, double a2, double t_end,
                               long steps, double *y)
{
    y[0] = a1, y[1] = a2, y[2] = 0.0, y[3] = 0.0;
    double h = t_end / (double)steps, k1[4], k2[4], k3[4], k4[4], tmp[4];
    for (long s = 0; s < steps; s++) {
        double_pendulum_rhs(p, y, k1);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
        double_pendulum_rhs(p, tmp, k2);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
        double_pendulum_rhs(p, tmp, k3);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + h * k3[i];
        double_pendulum_rhs(p, tmp, k4);
        for (int i = 0; i < 4; i++) y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

double double_pendulum_angle_error(const double *q, const double *y)
{
    double a1 = atan2(q[0], -q[1]), a2 = atan2(q[2] - q[0], -(q[3] - q[1]));
    return fmax(fabs(a1 - y[0]), fabs(a2 - y[1]));
}

// A growing text; on overflow or out of memory `text` becomes NULL and stays so.
typedef struct text_buffer {
    char *text;
    size_t len, cap;
} text_buffer;

static void put(text_buffer *b, const char *format, ...)
{
    if (!b->text)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(b->text + b->len, b->cap - b->len, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= b->cap - b->len) {
        free(b->text);
        b->text = NULL;
        return;
    }
    b->len += (size_t)n;
}

static text_buffer buffer(size_t cap)
{
    text_buffer b = { malloc(cap), 0, cap };
    return b;
}

char *lc_line_model(int cells, double inductance, double capacitance, const double *charge)
{
    text_buffer b = buffer(512 + (size_t)cells * 260);
    put(&b, "model line\nparameter Lc = %.17g, C = %.17g\n", inductance, capacitance);
    for (int i = 1; i <= cells; i++) {
        put(&b, "coordinate q%d, c%d\nlagrangian Lc/2*q%d'^2 - c%d^2/(2*C)\n", i, i, i, i);
        if (i < cells)
            put(&b, "constraint kcl%d: c%d' = q%d' - q%d'\n", i, i, i, i + 1);
        else
            put(&b, "constraint kcl%d: c%d' = q%d'\n", i, i, i);
        if (charge && charge[i - 1] != 0.0)
            put(&b, "initial c%d = %.17g\n", i, charge[i - 1]);
    }
    return b.text;
}

char *pendulum_chain_model(int links, double length, double tilt)
{
    text_buffer b = buffer(512 + (size_t)links * 260);
    put(&b, "model chain\nparameter m = 1, g = 9.81, l = %.17g\n", length);
    for (int i = 1; i <= links; i++) {
        put(&b, "coordinate x%d, y%d\nlagrangian m/2*(x%d'^2 + y%d'^2) - m*g*y%d\n", i, i, i, i,
            i);
        if (i == 1)
            put(&b, "constraint rod1: x1^2 + y1^2 = l^2\n");
        else
            put(&b, "constraint rod%d: (x%d - x%d)^2 + (y%d - y%d)^2 = l^2\n", i, i, i - 1, i,
                i - 1);
        put(&b, "initial x%d = %.17g, y%d = %.17g\n", i, length * sin(tilt) * i, i,
            -length * cos(tilt) * i);
    }
    return b.text;
}
