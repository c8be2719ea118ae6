/*
 * A small dense dual simplex for branch and bound on the turn model's LP relaxation.
 *
 * Why: bnb solves thousands of tiny LPs (about 280 columns, 55 to 80 rows) that differ from the
 * last one by a few column bounds. HiGHS spends 0.3-0.5 ms on fixed work per run (checking the
 * model, reading the CPU topology from sysfs, KKT reports), more than its 15-20 dual simplex
 * iterations cost. Here a run costs only its iterations.
 *
 * The problem: maximise c.x subject to row_lower <= A x <= row_upper, col_lower <= x <= col_upper.
 * As HiGHS does, each row i gets a logical variable s_i = -(A x)_i, so that [A I] (x, s) = 0 and
 * s_i lies in [-row_upper_i, -row_lower_i]. Every structural column is bounded (the caller
 * checks), and an infinite row bound is replaced by the bound its activity cannot pass anyway
 * (from the column bounds): with every variable boxed, any basis is made dual feasible by
 * putting each nonbasic variable at the bound its reduced cost asks for, so the dual simplex
 * needs no phase 1 after a change of costs.
 *
 * The basis inverse is kept explicitly (dense, m x m), updated by each pivot and recomputed from
 * scratch every REFACTOR_EVERY pivots or when an update looks inaccurate. Before an answer is
 * given, the values and reduced costs are computed afresh from the inverse and checked. The
 * bound returned holds whatever the inverse's accuracy (see lagrangian_bound), and "infeasible"
 * comes only with its proof checked (a row of the inverse whose combination of bounds cannot
 * reach zero).
 * The caller does not trust the answer beyond that: bounds are rounded with a slack, and every
 * integral solution is checked row by row in integers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRIMAL_TOL 1e-9
#define DUAL_TOL 1e-9
#define PIVOT_TOL 1e-9
#define SINGULAR_TOL 1e-11
#define INFEASIBLE_MARGIN 1e-6
#define REFACTOR_EVERY 40
#define STALL_LIMIT 20
#define MAX_ITERATIONS 20000

enum { OPTIMAL = 0, INFEASIBLE = 1, FAILED = 2 };

typedef struct {
    PyObject_HEAD
    int n;          /* structural columns */
    int m0;         /* rows given at construction (stored column-wise, sparse) */
    int m;          /* rows now (the later ones dense, in extra) */
    int mcap;       /* room for rows */
    int *start, *index;
    double *value;
    double *extra;  /* (m - m0) dense rows of n */
    double *cost;   /* minimised: minus the caller's costs for the structurals, 0 for logicals */
    double *lower, *upper;  /* n + mcap */
    int *head;      /* basis position -> variable */
    int *position;  /* variable -> basis position, or -1 when nonbasic */
    char *at_upper; /* nonbasic variable sits at its upper bound */
    double *binv;   /* mcap x mcap, row p belongs to basis position p */
    double *x;      /* n + mcap: every variable's value */
    double *d;      /* n + mcap: reduced costs */
    double *work_row, *work_col, *work_m, *matrix;
    double *root_lower, *root_upper; /* n: the bounds given at construction (implied rows use them) */
    int contradictions; /* rows whose lower bound exceeds their upper one */
    double bound;   /* after OPTIMAL: an upper bound on the maximum, see lagrangian_bound */
    long iterations;
    int updates;    /* pivots since the inverse was last computed */
    int duals_stale; /* costs or rows changed since the reduced costs were computed */
    double *weight; /* mcap: squared norm of each row of the inverse (dual steepest edge) */
} Simplex;

static int variables(const Simplex *s) { return s->n + s->m; }

/* out[j] = sum_i v[i] * a_j[i] for every variable j (a logical's column is a unit vector).
 * The added rows are dense and stored row by row: their part goes row by row, contiguously. */
static void row_product(const Simplex *s, const double *v, double *out) {
    int n = s->n;
    for (int j = 0; j < n; j++) {
        double total = 0.0;
        for (int k = s->start[j]; k < s->start[j + 1]; k++) total += v[s->index[k]] * s->value[k];
        out[j] = total;
    }
    for (int r = s->m0; r < s->m; r++) {
        double f = v[r];
        if (f == 0.0) continue;
        const double *row = s->extra + (size_t)(r - s->m0) * n;
        for (int j = 0; j < n; j++) out[j] += f * row[j];
    }
    for (int i = 0; i < s->m; i++) out[n + i] = v[i];
}

/* out = a_j (dense, m). */
static void column_dense(const Simplex *s, int j, double *out) {
    memset(out, 0, sizeof(double) * s->m);
    if (j >= s->n) {
        out[j - s->n] = 1.0;
        return;
    }
    for (int k = s->start[j]; k < s->start[j + 1]; k++) out[s->index[k]] = s->value[k];
    for (int r = s->m0; r < s->m; r++) out[r] = s->extra[(size_t)(r - s->m0) * s->n + j];
}

/* out = Binv a_j. */
static void ftran(const Simplex *s, int j, double *out) {
    int m = s->m, stride = s->mcap;
    if (j >= s->n) {
        int i = j - s->n;
        for (int p = 0; p < m; p++) out[p] = s->binv[(size_t)p * stride + i];
        return;
    }
    for (int p = 0; p < m; p++) out[p] = 0.0;
    for (int k = s->start[j]; k < s->start[j + 1]; k++) {
        int i = s->index[k];
        double a = s->value[k];
        for (int p = 0; p < m; p++) out[p] += s->binv[(size_t)p * stride + i] * a;
    }
    for (int r = s->m0; r < m; r++) {
        double a = s->extra[(size_t)(r - s->m0) * s->n + j];
        if (a == 0.0) continue;
        for (int p = 0; p < m; p++) out[p] += s->binv[(size_t)p * stride + r] * a;
    }
}

static void slack_basis(Simplex *s) {
    int total = variables(s);
    for (int j = 0; j < total; j++) s->position[j] = -1;
    for (int p = 0; p < s->m; p++) {
        s->head[p] = s->n + p;
        s->position[s->n + p] = p;
    }
}

/* Binv from the basis columns, by Gauss-Jordan with partial pivoting; 0 if singular. */
static int invert(Simplex *s) {
    int m = s->m, stride = s->mcap;
    double *a = s->matrix; /* m x m, row-major: a[i][p] = column head[p], row i */
    for (int p = 0; p < m; p++) {
        column_dense(s, s->head[p], s->work_m);
        for (int i = 0; i < m; i++) a[(size_t)i * m + p] = s->work_m[i];
    }
    /* Solve a * Binv^T... simpler: invert a into inv (row-major), then Binv = inv. */
    double *inv = s->binv;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < m; k++) inv[(size_t)i * stride + k] = (i == k) ? 1.0 : 0.0;
    for (int c = 0; c < m; c++) {
        int best = c;
        double size = fabs(a[(size_t)c * m + c]);
        for (int i = c + 1; i < m; i++) {
            double v = fabs(a[(size_t)i * m + c]);
            if (v > size) size = v, best = i;
        }
        if (size < SINGULAR_TOL) return 0;
        if (best != c) {
            for (int k = 0; k < m; k++) {
                double t = a[(size_t)c * m + k];
                a[(size_t)c * m + k] = a[(size_t)best * m + k];
                a[(size_t)best * m + k] = t;
                t = inv[(size_t)c * stride + k];
                inv[(size_t)c * stride + k] = inv[(size_t)best * stride + k];
                inv[(size_t)best * stride + k] = t;
            }
        }
        double pivot = a[(size_t)c * m + c];
        for (int k = 0; k < m; k++) {
            a[(size_t)c * m + k] /= pivot;
            inv[(size_t)c * stride + k] /= pivot;
        }
        for (int i = 0; i < m; i++) {
            if (i == c) continue;
            double f = a[(size_t)i * m + c];
            if (f == 0.0) continue;
            for (int k = 0; k < m; k++) {
                a[(size_t)i * m + k] -= f * a[(size_t)c * m + k];
                inv[(size_t)i * stride + k] -= f * inv[(size_t)c * stride + k];
            }
        }
    }
    /* Row reduction turned a = B into I, so inv = B^-1 with rows in basis-position order. */
    for (int p = 0; p < m; p++) {
        double w = 0.0;
        for (int k = 0; k < m; k++) w += inv[(size_t)p * stride + k] * inv[(size_t)p * stride + k];
        s->weight[p] = w;
    }
    s->updates = 0;
    s->duals_stale = 1;
    return 1;
}

/* A fresh inverse; a singular basis falls back to the slack basis (the identity). */
static void refactor(Simplex *s) {
    if (!invert(s)) {
        slack_basis(s);
        invert(s);
    }
}

/* work_row[j] = y . a_j for every variable, y = cost_B Binv the basis's duals (in work_m). */
static void dual_products(Simplex *s) {
    int m = s->m, stride = s->mcap;
    double *y = s->work_m;
    for (int i = 0; i < m; i++) y[i] = 0.0;
    for (int p = 0; p < m; p++) {
        double c = s->cost[s->head[p]];
        if (c == 0.0) continue;
        for (int i = 0; i < m; i++) y[i] += c * s->binv[(size_t)p * stride + i];
    }
    row_product(s, y, s->work_row);
}

static void compute_duals(Simplex *s) {
    s->duals_stale = 0;
    int total = variables(s);
    dual_products(s);
    for (int j = 0; j < total; j++) s->d[j] = s->position[j] >= 0 ? 0.0 : s->cost[j] - s->work_row[j];
}

/* Each nonbasic variable at the bound its reduced cost asks for (minimising). */
static void dual_feasible_bounds(Simplex *s) {
    int total = variables(s);
    for (int j = 0; j < total; j++) {
        if (s->position[j] >= 0) continue;
        if (s->d[j] < -DUAL_TOL) s->at_upper[j] = 1;
        else if (s->d[j] > DUAL_TOL) s->at_upper[j] = 0;
        s->x[j] = s->at_upper[j] ? s->upper[j] : s->lower[j];
    }
}

static void compute_primal(Simplex *s) {
    int m = s->m, stride = s->mcap, total = variables(s);
    double *v = s->work_col;
    for (int i = 0; i < m; i++) v[i] = 0.0;
    for (int j = 0; j < total; j++) {
        if (s->position[j] >= 0 || s->x[j] == 0.0) continue;
        double xj = s->x[j];
        if (j >= s->n) {
            v[j - s->n] += xj;
            continue;
        }
        for (int k = s->start[j]; k < s->start[j + 1]; k++) v[s->index[k]] += s->value[k] * xj;
        for (int r = s->m0; r < m; r++) v[r] += s->extra[(size_t)(r - s->m0) * s->n + j] * xj;
    }
    for (int p = 0; p < m; p++) {
        double total_p = 0.0;
        for (int i = 0; i < m; i++) total_p += s->binv[(size_t)p * stride + i] * v[i];
        s->x[s->head[p]] = -total_p;
    }
}

static void fresh(Simplex *s) {
    refactor(s);
    compute_duals(s);
    dual_feasible_bounds(s);
    compute_primal(s);
}

static double infeasibility(const Simplex *s, int j) {
    double v = s->x[j];
    if (v < s->lower[j] - PRIMAL_TOL) return s->lower[j] - v;
    if (v > s->upper[j] + PRIMAL_TOL) return v - s->upper[j];
    return 0.0;
}

/* Whether row p of the inverse proves the LP infeasible: the combination of [A I] it makes is
 * zero at every solution, yet over the variables' bounds it cannot reach zero. */
static int proves_infeasible(Simplex *s, int p) {
    int total = variables(s);
    double *row = s->binv + (size_t)p * s->mcap;
    double low = 0.0, high = 0.0;
    row_product(s, row, s->work_row);
    for (int j = 0; j < total; j++) {
        double a = s->work_row[j];
        if (a > 0) low += a * s->lower[j], high += a * s->upper[j];
        else low += a * s->upper[j], high += a * s->lower[j];
    }
    return low > INFEASIBLE_MARGIN || high < -INFEASIBLE_MARGIN;
}

/* A bound on the LP's optimum (maximising) that holds whatever the accuracy of the inverse:
 * for any y, every solution z of [A I] z = 0 has cost.z = (cost - [A I]^T y).z, which over
 * the box is at least the sum of each term's least value. y is the current basis's duals. */
static double lagrangian_bound(Simplex *s) {
    int total = variables(s);
    double least = 0.0;
    dual_products(s);
    for (int j = 0; j < total; j++) {
        double dj = s->cost[j] - s->work_row[j];
        least += dj > 0 ? dj * s->lower[j] : dj * s->upper[j];
    }
    return -least;
}

static int solve(Simplex *s, long max_iterations) {
    int m = s->m, stride = s->mcap, total = variables(s);
    double *alpha = s->work_row, *column = s->work_col;
    if (s->contradictions) return INFEASIBLE;
    int suspicions = 0, stalled = 0;
    if (s->updates >= REFACTOR_EVERY) refactor(s);
    /* The inverse and the reduced costs hold across bound changes: the values are recomputed,
     * and the reduced costs after a change of costs or rows. */
    if (s->duals_stale) {
        compute_duals(s);
        dual_feasible_bounds(s);
    }
    compute_primal(s);
    for (long iteration = 0;; iteration++) {
        if (iteration >= max_iterations) return FAILED;
        if (s->updates >= REFACTOR_EVERY) fresh(s);
        /* Leaving row: the largest infeasibility relative to its row of the inverse (dual
         * steepest edge, with exact weights: the inverse is at hand). */
        int r = -1;
        double best = 0.0;
        for (int p = 0; p < m; p++) {
            double gap = infeasibility(s, s->head[p]);
            if (gap <= 0.0) continue;
            double score = gap * gap / s->weight[p];
            if (score > best) best = score, r = p;
        }
        if (r < 0) {
            /* Feasible on the updated values: check again on values computed afresh from the
             * inverse, and the duals' signs too (a wrong one is flipped, which moves x). */
            compute_primal(s);
            int infeasible = 0;
            for (int p = 0; p < m && !infeasible; p++) infeasible = infeasibility(s, s->head[p]) > 0.0;
            if (infeasible) continue;
            compute_duals(s);
            int wrong = 0;
            for (int j = 0; j < total && !wrong; j++) {
                if (s->position[j] >= 0 || s->lower[j] == s->upper[j]) continue;
                wrong = (s->d[j] < -DUAL_TOL && !s->at_upper[j]) || (s->d[j] > DUAL_TOL && s->at_upper[j]);
            }
            if (wrong) {
                dual_feasible_bounds(s);
                compute_primal(s);
                continue;
            }
            s->bound = lagrangian_bound(s);
            s->iterations += iteration;
            return OPTIMAL;
        }
        int leaving = s->head[r];
        double value = s->x[leaving];
        int to_upper = value > s->upper[leaving];
        double target = to_upper ? s->upper[leaving] : s->lower[leaving];
        const double *row = s->binv + (size_t)r * stride;
        /* Ratio test, two passes (Harris): the longest dual step that keeps every reduced
         * cost's sign within the tolerance, then the entering column among those within it. */
        double limit = INFINITY;
        row_product(s, row, alpha);
        for (int j = 0; j < total; j++) {
            if (s->position[j] >= 0 || s->lower[j] == s->upper[j]) {
                alpha[j] = 0.0;
                continue;
            }
            double a = alpha[j];
            /* The basic variable must rise (to lower) or fall (to upper): x_B[r] = -sum a_j x_j. */
            double direction = to_upper ? a : -a;  /* > 0: raising x_j moves it the right way */
            int eligible = s->at_upper[j] ? direction < -PIVOT_TOL : direction > PIVOT_TOL;
            if (!eligible) continue;
            double ratio = (fabs(s->d[j]) + DUAL_TOL) / fabs(a);
            if (ratio < limit) limit = ratio;
        }
        if (limit == INFINITY) {
            /* The proof is checked on the row as it is: valid whatever the inverse's accuracy. */
            if (proves_infeasible(s, r)) {
                s->iterations += iteration;
                return INFEASIBLE;
            }
            if (++suspicions > 3) return FAILED;
            fresh(s);
            continue;
        }
        /* Among the candidates, the least ratio, the first column on a tie: the vertices it
         * leads to are integral more often (hard set: 32 of 240 roots against 23 for the
         * largest pivot), which halves bnb's LP solves there. It can stall, though: after
         * STALL_LIMIT dual steps of zero length in a row, the largest pivot until one moves. */
        int textbook = stalled < STALL_LIMIT;
        int q = -1;
        double largest = 0.0;
        for (int j = 0; j < total; j++) {
            double a = alpha[j];
            if (a == 0.0) continue;
            double direction = to_upper ? a : -a;
            int eligible = s->at_upper[j] ? direction < -PIVOT_TOL : direction > PIVOT_TOL;
            if (!eligible || fabs(s->d[j]) / fabs(a) > limit) continue;
            double merit = textbook ? -fabs(s->d[j]) / fabs(a) : fabs(a);
            if (q < 0 || merit > largest) largest = merit, q = j;
        }
        ftran(s, q, column);
        double pivot = column[r];
        if (fabs(pivot - alpha[q]) > 1e-7 * (1.0 + fabs(pivot))) {
            /* The updated inverse drifted: start again from a fresh one. */
            if (++suspicions > 3) return FAILED;
            fresh(s);
            continue;
        }
        /* Primal step: x_q moves by delta, the basic variables by -column * delta. */
        double delta = (value - target) / pivot;
        for (int p = 0; p < m; p++) s->x[s->head[p]] -= column[p] * delta;
        s->x[q] += delta;
        s->x[leaving] = target;
        /* Dual step; a run of steps of zero length is a stall. */
        double theta = s->d[q] / pivot;
        stalled = fabs(theta) <= DUAL_TOL ? stalled + 1 : 0;
        for (int j = 0; j < total; j++)
            if (alpha[j] != 0.0) s->d[j] -= theta * alpha[j];
        s->d[q] = 0.0;
        s->d[leaving] = -theta;
        s->at_upper[leaving] = (char)to_upper;
        /* Basis change. */
        s->position[leaving] = -1;
        s->position[q] = r;
        s->head[r] = q;
        double *pivot_row = s->binv + (size_t)r * stride;
        for (int i = 0; i < m; i++) pivot_row[i] /= pivot;
        s->weight[r] /= pivot * pivot;
        for (int p = 0; p < m; p++) {
            if (p == r || column[p] == 0.0) continue;
            double f = column[p], w = 0.0;
            double *target_row = s->binv + (size_t)p * stride;
            for (int i = 0; i < m; i++) {
                target_row[i] -= f * pivot_row[i];
                w += target_row[i] * target_row[i];
            }
            s->weight[p] = w;
        }
        s->updates++;
    }
}

/* ------------------------------------------------------------------ Python glue */

static void release(Simplex *s) {
    free(s->start); free(s->index); free(s->value); free(s->extra); free(s->cost);
    free(s->lower); free(s->upper); free(s->head); free(s->position); free(s->at_upper);
    free(s->binv); free(s->x); free(s->d); free(s->work_row); free(s->work_col);
    free(s->work_m); free(s->matrix); free(s->root_lower); free(s->root_upper); free(s->weight);
    s->root_lower = s->root_upper = s->weight = NULL;
    s->start = s->index = s->head = s->position = NULL;
    s->value = s->extra = s->cost = s->lower = s->upper = s->binv = s->x = s->d = NULL;
    s->work_row = s->work_col = s->work_m = s->matrix = NULL;
    s->at_upper = NULL;
}

static void Simplex_dealloc(Simplex *s) {
    release(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* field resized to count items, its contents kept; ok cleared if out of memory (field untouched). */
#define RESIZE(field, count)                                                   \
    do {                                                                       \
        void *resized_ = realloc(s->field, sizeof(*s->field) * (size_t)(count)); \
        if (resized_) s->field = resized_;                                     \
        else ok = 0;                                                           \
    } while (0)

/* Room for mcap rows in every per-row array (old contents kept). */
static int make_room(Simplex *s, int mcap) {
    int n = s->n, old = s->mcap, ok = 1;
    size_t variables = (size_t)(n + mcap), extra_rows = mcap - s->m0 > 0 ? (size_t)(mcap - s->m0) : 1;
    RESIZE(lower, variables);
    RESIZE(upper, variables);
    RESIZE(cost, variables);
    RESIZE(x, variables);
    RESIZE(d, variables);
    RESIZE(position, variables);
    RESIZE(at_upper, variables);
    RESIZE(work_row, variables);
    RESIZE(head, mcap);
    RESIZE(work_col, mcap);
    RESIZE(work_m, mcap);
    RESIZE(weight, mcap);
    RESIZE(extra, (size_t)n * extra_rows);
    RESIZE(matrix, (size_t)mcap * mcap);
    double *binv = calloc((size_t)mcap * mcap, sizeof(double));
    if (!ok || !binv) {
        free(binv);
        PyErr_NoMemory();
        return 0;
    }
    if (s->binv) {
        for (int p = 0; p < s->m; p++) memcpy(binv + (size_t)p * mcap, s->binv + (size_t)p * old, sizeof(double) * s->m);
        free(s->binv);
    }
    s->binv = binv;
    s->mcap = mcap;
    return 1;
}

/* A Simplex made by __new__ alone has no arrays: every method refuses it. */
#define REQUIRE_READY(s)                                                   \
    if (!(s)->binv) {                                                      \
        PyErr_SetString(PyExc_RuntimeError, "Simplex was not initialised"); \
        return NULL;                                                       \
    }

static int check_buffer(Py_buffer *b, Py_ssize_t count, Py_ssize_t item, const char *name) {
    if (b->len != count * item) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes", name, count, item);
        return 0;
    }
    return 1;
}

/* The activity bounds of an extra row that the columns' root bounds imply. */
static void implied(const Simplex *s, const double *row, double *low, double *high) {
    *low = *high = 0.0;
    for (int j = 0; j < s->n; j++) {
        double a = row[j];
        if (a > 0) *low += a * s->root_lower[j], *high += a * s->root_upper[j];
        else if (a < 0) *low += a * s->root_upper[j], *high += a * s->root_lower[j];
    }
}

/* The logical of row i: s_i = -activity, within the row's bounds or the implied ones. */
static void set_row_bounds(Simplex *s, int i, double row_lower, double row_upper, double low, double high) {
    double lo = row_lower > low ? row_lower : low;
    double hi = row_upper < high ? row_upper : high;
    if (row_lower > row_upper) {
        s->contradictions++;  /* no activity at all: every solve answers infeasible */
        lo = hi = row_lower;
    } else if (lo > hi) {
        /* The columns cannot reach the row's range: pin the activity at the bound they miss,
         * and the simplex finds (and proves) the LP infeasible. */
        lo = hi = row_upper < low ? row_upper : row_lower;
    }
    s->lower[s->n + i] = -hi;
    s->upper[s->n + i] = -lo;
}

static int Simplex_init(Simplex *s, PyObject *args, PyObject *kwargs) {
    Py_buffer start, index, value, cost, col_lower, col_upper, row_lower, row_upper;
    int n, m;
    if (!PyArg_ParseTuple(args, "iiy*y*y*y*y*y*y*y*", &n, &m, &start, &index, &value, &cost, &col_lower,
                          &col_upper, &row_lower, &row_upper))
        return -1;
    int ok = 0;
    release(s);
    s->n = n, s->m0 = m, s->m = m, s->mcap = 0, s->contradictions = 0;
    Py_ssize_t nnz = value.len / (Py_ssize_t)sizeof(double);
    if (!check_buffer(&start, n + 1, sizeof(int), "start") || !check_buffer(&index, nnz, sizeof(int), "index") ||
        !check_buffer(&cost, n, sizeof(double), "cost") || !check_buffer(&col_lower, n, sizeof(double), "col_lower") ||
        !check_buffer(&col_upper, n, sizeof(double), "col_upper") ||
        !check_buffer(&row_lower, m, sizeof(double), "row_lower") ||
        !check_buffer(&row_upper, m, sizeof(double), "row_upper"))
        goto done;
    s->start = malloc(sizeof(int) * (n + 1));
    s->index = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
    s->value = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    if (!s->start || !s->index || !s->value) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(s->start, start.buf, sizeof(int) * (n + 1));
    memcpy(s->index, index.buf, sizeof(int) * nnz);
    memcpy(s->value, value.buf, sizeof(double) * nnz);
    if (!make_room(s, m + 24)) goto done;
    const double *c = cost.buf, *cl = col_lower.buf, *cu = col_upper.buf, *rl = row_lower.buf, *ru = row_upper.buf;
    s->root_lower = malloc(sizeof(double) * (n > 0 ? n : 1));
    s->root_upper = malloc(sizeof(double) * (n > 0 ? n : 1));
    double *low = calloc(m > 0 ? m : 1, sizeof(double)), *high = calloc(m > 0 ? m : 1, sizeof(double));
    if (!s->root_lower || !s->root_upper || !low || !high) {
        free(low), free(high);
        PyErr_NoMemory();
        goto done;
    }
    for (int j = 0; j < n; j++) {
        if (!isfinite(cl[j]) || !isfinite(cu[j]) || cl[j] > cu[j]) {
            free(low), free(high);
            PyErr_SetString(PyExc_ValueError, "every column needs finite, ordered bounds");
            goto done;
        }
        s->cost[j] = -c[j], s->lower[j] = s->root_lower[j] = cl[j], s->upper[j] = s->root_upper[j] = cu[j];
        for (int k = s->start[j]; k < s->start[j + 1]; k++) {
            int i = s->index[k];
            double a = s->value[k];
            if (i < 0 || i >= m) {
                free(low), free(high);
                PyErr_SetString(PyExc_ValueError, "a row index out of range");
                goto done;
            }
            if (a > 0) low[i] += a * cl[j], high[i] += a * cu[j];
            else low[i] += a * cu[j], high[i] += a * cl[j];
        }
    }
    for (int i = 0; i < m; i++) {
        s->cost[n + i] = 0.0;
        set_row_bounds(s, i, rl[i], ru[i], low[i], high[i]);
    }
    free(low), free(high);
    memset(s->at_upper, 0, (size_t)(n + s->mcap));
    slack_basis(s);
    for (int j = 0; j < n + m; j++) s->x[j] = 0.0;
    s->iterations = 0;
    s->updates = REFACTOR_EVERY;  /* no inverse yet: computed by the first solve */
    ok = 1;
done:
    PyBuffer_Release(&start); PyBuffer_Release(&index); PyBuffer_Release(&value); PyBuffer_Release(&cost);
    PyBuffer_Release(&col_lower); PyBuffer_Release(&col_upper); PyBuffer_Release(&row_lower);
    PyBuffer_Release(&row_upper);
    return ok ? 0 : -1;
}

static PyObject *Simplex_set_bounds(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer columns, lower, upper;
    if (!PyArg_ParseTuple(args, "y*y*y*", &columns, &lower, &upper)) return NULL;
    Py_ssize_t k = columns.len / (Py_ssize_t)sizeof(int);
    PyObject *result = NULL;
    if (check_buffer(&lower, k, sizeof(double), "lower") && check_buffer(&upper, k, sizeof(double), "upper")) {
        const int *at = columns.buf;
        const double *lo = lower.buf, *hi = upper.buf;
        int bad = 0;
        for (Py_ssize_t t = 0; t < k; t++) {
            int j = at[t];
            /* Only within the root bounds: the rows' implied bounds rest on them. */
            if (j < 0 || j >= s->n || lo[t] < s->root_lower[j] || hi[t] > s->root_upper[j] || lo[t] > hi[t]) {
                bad = 1;
                break;
            }
            s->lower[j] = lo[t], s->upper[j] = hi[t];
            if (s->position[j] < 0) s->x[j] = s->at_upper[j] ? hi[t] : lo[t];
        }
        if (bad) PyErr_SetString(PyExc_ValueError, "a column index out of range, or bounds crossed or beyond the root's");
        else result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&columns); PyBuffer_Release(&lower); PyBuffer_Release(&upper);
    return result;
}

static PyObject *Simplex_set_cost(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer cost;
    if (!PyArg_ParseTuple(args, "y*", &cost)) return NULL;
    PyObject *result = NULL;
    if (check_buffer(&cost, s->n, sizeof(double), "cost")) {
        const double *c = cost.buf;
        for (int j = 0; j < s->n; j++) s->cost[j] = -c[j];
        s->duals_stale = 1;
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&cost);
    return result;
}

static PyObject *Simplex_add_row(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer row;
    double lower, upper;
    if (!PyArg_ParseTuple(args, "y*dd", &row, &lower, &upper)) return NULL;
    PyObject *result = NULL;
    if (check_buffer(&row, s->n, sizeof(double), "row")) {
        if (s->m == s->mcap && !make_room(s, s->mcap + s->mcap / 2 + 8)) goto done;
        int i = s->m;
        memcpy(s->extra + (size_t)(i - s->m0) * s->n, row.buf, sizeof(double) * s->n);
        s->m++;
        s->cost[s->n + i] = 0.0;
        s->d[s->n + i] = 0.0;
        s->at_upper[s->n + i] = 0;
        double low, high;
        implied(s, row.buf, &low, &high);
        set_row_bounds(s, i, lower, upper, low, high);
        /* The new logical is basic in the new position i. With c the row's coefficients on the
         * old basic columns, the new basis is [[B, 0], [c, 1]] and its inverse
         * [[Binv, 0], [-c Binv, 1]]. */
        s->head[i] = s->n + i;
        s->position[s->n + i] = i;
        size_t stride = (size_t)s->mcap;
        double *new_row = s->binv + (size_t)i * stride;
        for (int k = 0; k <= i; k++) new_row[k] = 0.0;
        for (int p = 0; p < i; p++) {
            s->binv[(size_t)p * stride + i] = 0.0;
            int j = s->head[p];
            double c = j < s->n ? ((const double *)row.buf)[j] : 0.0;
            if (c == 0.0) continue;
            for (int k = 0; k < i; k++) new_row[k] -= c * s->binv[(size_t)p * stride + k];
        }
        new_row[i] = 1.0;
        double w = 0.0;
        for (int k = 0; k <= i; k++) w += new_row[k] * new_row[k];
        s->weight[i] = w;
        s->duals_stale = 1;
        result = Py_NewRef(Py_None);
    }
done:
    PyBuffer_Release(&row);
    return result;
}

static PyObject *Simplex_solve(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    long max_iterations = MAX_ITERATIONS;
    if (!PyArg_ParseTuple(args, "|l", &max_iterations)) return NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = solve(s, max_iterations);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}

/* The one argument, a writable buffer of count items of this size: 1, or 0 with an error set. */
static int parse_out(PyObject *args, Py_buffer *out, Py_ssize_t count, Py_ssize_t item) {
    if (!PyArg_ParseTuple(args, "w*", out)) return 0;
    if (check_buffer(out, count, item, "out")) return 1;
    PyBuffer_Release(out);
    return 0;
}

static PyObject *Simplex_solution(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer out;
    if (!parse_out(args, &out, s->n, sizeof(double))) return NULL;
    memcpy(out.buf, s->x, sizeof(double) * s->n);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* HiGHS's convention: a column's index, or -(1 + i) for row i's logical. */
static PyObject *Simplex_basic_variables(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer out;
    if (!parse_out(args, &out, s->m, sizeof(int))) return NULL;
    int *o = out.buf;
    for (int p = 0; p < s->m; p++) o[p] = s->head[p] < s->n ? s->head[p] : -(1 + s->head[p] - s->n);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *Simplex_inverse_row(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    int p;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "iw*", &p, &out)) return NULL;
    PyObject *result = NULL;
    if (p < 0 || p >= s->m) PyErr_SetString(PyExc_IndexError, "basis position out of range");
    else if (check_buffer(&out, s->m, sizeof(double), "out")) {
        memcpy(out.buf, s->binv + (size_t)p * s->mcap, sizeof(double) * s->m);
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&out);
    return result;
}

/* The reduced costs behind the last bound (minimising, structurals only): the bound falls by
 * at least |d_j| for each unit a column moves off the bound its d_j picks (reduced-cost fixing). */
static PyObject *Simplex_reduced_costs(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer out;
    if (!parse_out(args, &out, s->n, sizeof(double))) return NULL;
    dual_products(s);
    double *o = out.buf;
    for (int j = 0; j < s->n; j++) o[j] = s->cost[j] - s->work_row[j];
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* The row activities' bounds as solved: the caller's, or tighter implied ones where infinite. */
static PyObject *Simplex_row_bounds(Simplex *s, PyObject *args) {
    REQUIRE_READY(s);
    Py_buffer lower, upper;
    if (!PyArg_ParseTuple(args, "w*w*", &lower, &upper)) return NULL;
    PyObject *result = NULL;
    if (check_buffer(&lower, s->m, sizeof(double), "lower") && check_buffer(&upper, s->m, sizeof(double), "upper")) {
        double *lo = lower.buf, *hi = upper.buf;
        for (int i = 0; i < s->m; i++) lo[i] = -s->upper[s->n + i], hi[i] = -s->lower[s->n + i];
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&lower); PyBuffer_Release(&upper);
    return result;
}

static PyObject *Simplex_get_rows(Simplex *s, void *Py_UNUSED(closure)) { return PyLong_FromLong(s->m); }
static PyObject *Simplex_get_bound(Simplex *s, void *Py_UNUSED(closure)) { return PyFloat_FromDouble(s->bound); }
static PyObject *Simplex_get_iterations(Simplex *s, void *Py_UNUSED(closure)) { return PyLong_FromLong(s->iterations); }

static PyMethodDef Simplex_methods[] = {
    {"set_bounds", (PyCFunction)Simplex_set_bounds, METH_VARARGS, "set_bounds(columns int32, lower, upper)"},
    {"set_cost", (PyCFunction)Simplex_set_cost, METH_VARARGS, "set_cost(cost): maximised"},
    {"add_row", (PyCFunction)Simplex_add_row, METH_VARARGS, "add_row(dense coefficients, lower, upper)"},
    {"solve", (PyCFunction)Simplex_solve, METH_VARARGS, "solve([max_iterations]) -> 0 optimal, 1 infeasible, 2 failed"},
    {"solution", (PyCFunction)Simplex_solution, METH_VARARGS, "solution(out float64[n])"},
    {"basic_variables", (PyCFunction)Simplex_basic_variables, METH_VARARGS, "basic_variables(out int32[m])"},
    {"inverse_row", (PyCFunction)Simplex_inverse_row, METH_VARARGS, "inverse_row(position, out float64[m])"},
    {"row_bounds", (PyCFunction)Simplex_row_bounds, METH_VARARGS, "row_bounds(lower out, upper out)"},
    {"reduced_costs", (PyCFunction)Simplex_reduced_costs, METH_VARARGS, "reduced_costs(out float64[n]): minimising"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Simplex_getset[] = {
    {"rows", (getter)Simplex_get_rows, NULL, "rows now", NULL},
    {"bound", (getter)Simplex_get_bound, NULL, "after an optimal solve: a safe upper bound on the maximum", NULL},
    {"iterations", (getter)Simplex_get_iterations, NULL, "pivots so far", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SimplexType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "solver.backends._dualsimplex.Simplex",
    .tp_doc = "Simplex(n, m, start, index, value, cost, col_lower, col_upper, row_lower, row_upper)",
    .tp_basicsize = sizeof(Simplex),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Simplex_init,
    .tp_dealloc = (destructor)Simplex_dealloc,
    .tp_methods = Simplex_methods,
    .tp_getset = Simplex_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dualsimplex", "A dense dual simplex for small bounded LPs.", -1, NULL,
};

PyMODINIT_FUNC PyInit__dualsimplex(void) {
    if (PyType_Ready(&SimplexType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Simplex", (PyObject *)&SimplexType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
