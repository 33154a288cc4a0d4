/*
 * chrf_scores.c: chrF's f-score, and a batch of chrF score objects from
 * their rows (chrf_scores).
 *
 * chrf_f_score is bleustream.metrics.chrf.f_score -- SacreBLEU's
 * CHRF._compute_f_score -- operation for operation: every count is a whole
 * number within 2**53, so converting it to double is exact and m / h is
 * the correctly rounded quotient Python's int / int gives; beta**2 and
 * 1 + beta**2 are exact too, and the sums are plain additions in the pure
 * code's order.  (Built without FMA contraction: setup.py's
 * -ffp-contract=off.)
 *
 * chrf_scores(rows, char_order, word_order, beta, eps_smoothing, cls,
 * signature, fallback) returns for each row what the pure
 * Spec(chrf, settings).score_object(row, signature) returns: a ``cls``
 * (CHRFScore) with SacreBLEU's attributes in its order, then ``stats`` and
 * ``signature``.  A row that is not a tuple of the right number of ints
 * within 2**53 goes to ``fallback(row, signature)``, the pure method, so
 * its errors and rare paths stay the pure code's.
 */
#include "kernels.h"

#define EPS 1e-16 /* chrf._EPS, SacreBLEU's */

int
chrf_f_settings(ChrfF *f, const ChrfOrders *o, PyObject *beta, PyObject *eps_smoothing)
{
    Py_ssize_t b = PyNumber_AsSsize_t(beta, PyExc_OverflowError);
    if (b == -1 && PyErr_Occurred())
        return -1;
    if (b < 0 || b > CHRF_MAX_BETA) {
        PyErr_Format(PyExc_ValueError, "beta must be from 0 to %d, not %zd", CHRF_MAX_BETA, b);
        return -1;
    }
    f->order = o->char_order + o->word_order;
    if (f->order == 0) {
        PyErr_SetString(PyExc_ValueError, "the character and word n-gram orders cannot both be 0");
        return -1;
    }
    f->factor = (double)(b * b);
    f->one_plus_factor = (double)(1 + b * b);
    f->eps_smoothing = PyObject_IsTrue(eps_smoothing);
    return f->eps_smoothing < 0 ? -1 : 0;
}

double
chrf_f_score(const ChrfF *f, const Py_ssize_t *stats)
{
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    Py_ssize_t n, effective_order = 0;
    for (n = 0; n < f->order; n++) {
        Py_ssize_t n_hyp = stats[3 * n], n_ref = stats[3 * n + 1], n_match = stats[3 * n + 2];
        double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : EPS;
        double rec = n_ref > 0 ? (double)n_match / (double)n_ref : EPS;
        if (f->eps_smoothing) {
            double denom = f->factor * prec + rec;
            score += denom > 0 ? f->one_plus_factor * prec * rec / denom : EPS;
        }
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective_order++;
        }
    }
    if (f->eps_smoothing)
        return 100.0 * score / (double)f->order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    }
    else {
        avg_prec /= (double)effective_order;
        avg_rec /= (double)effective_order;
    }
    if (avg_prec + avg_rec != 0.0) {
        score = f->one_plus_factor * avg_prec * avg_rec;
        score /= (f->factor * avg_prec) + avg_rec;
        return 100.0 * score;
    }
    return 0.0;
}

/* ------------------------------------------------------------------ */
/* the score objects                                                   */
/* ------------------------------------------------------------------ */

/* CHRFScore's attributes in its order (its own, then Score's), then
 * Spec.score_object's: vars() of the two objects list the same keys. */
enum {
    A_BETA,
    A_CHAR_ORDER,
    A_WORD_ORDER,
    A_NAME,
    A_SCORE,
    A_MEAN,
    A_CI,
    A_VERBOSE,
    A_STATS,
    A_SIGNATURE,
    N_ATTRS
};
static const char *const attr_names[N_ATTRS] = {
    "beta", "char_order", "word_order", "name",  "score",
    "_mean", "_ci",       "_verbose",   "stats", "signature"};

/* A row's counts, when it is a tuple of `size` ints within 2**53: 1;
 * 0 when the pure code must read it. */
static int
row_counts(PyObject *row, Py_ssize_t size, Py_ssize_t *out)
{
    long long exact[3 * 2 * CHRF_MAX_ORDER];
    Py_ssize_t k;
    if (size > 3 * 2 * CHRF_MAX_ORDER || !bs_exact_row(row, size, exact))
        return 0;
    for (k = 0; k < size; k++)
        out[k] = (Py_ssize_t)exact[k];
    return 1;
}

/* The attributes every object of a call shares; the score and the row are
 * each object's own. */
static PyObject *
score_object(PyTypeObject *cls, PyObject *const *names, PyObject *empty, PyObject **values,
             double score, PyObject *row)
{
    PyObject *obj, *value;
    int k, ok = 1;
    if ((value = PyFloat_FromDouble(score)) == NULL)
        return NULL;
    /* object.__new__(cls), then the attributes in CHRFScore's order */
    obj = PyBaseObject_Type.tp_new(cls, empty, NULL);
    for (k = 0; k < N_ATTRS && ok && obj != NULL; k++)
        ok = PyObject_SetAttr(obj, names[k],
                              k == A_SCORE ? value : k == A_STATS ? row : values[k]) == 0;
    Py_DECREF(value);
    if (!ok)
        Py_CLEAR(obj);
    return obj;
}

/* SacreBLEU's name of the score: chrF<beta>, then a '+' per word order. */
static PyObject *
score_name(Py_ssize_t beta, Py_ssize_t word_order)
{
    char text[64 + CHRF_MAX_ORDER];
    int len = snprintf(text, 64, "chrF%zd", beta);
    Py_ssize_t n;
    if (len < 0 || len >= 64) {
        PyErr_SetString(PyExc_OverflowError, "chrf_scores: beta too long to format");
        return NULL;
    }
    for (n = 0; n < word_order; n++)
        text[len++] = '+';
    return PyUnicode_DecodeASCII(text, len, NULL);
}

BS_FASTCALL(bs_chrf_scores)
{
    static const char *const names_[] = {"rows", "char_order",   "word_order", "beta",
                                         "eps_smoothing", "cls", "signature",  "fallback"};
    PyObject *a[8], *rows = NULL, *list = NULL, *empty = NULL, *res = NULL;
    PyObject *names[N_ATTRS] = {NULL}, *values[N_ATTRS] = {NULL};
    Py_ssize_t counts[3 * 2 * CHRF_MAX_ORDER];
    Py_ssize_t i, n, beta;
    ChrfOrders o;
    ChrfF f;
    int k;
    (void)module;

    if (bs_parse_args("chrf_scores", args, nargs, kwnames, names_, 8, 8, a) < 0)
        return NULL;
    o.whitespace = 0;
    if ((o.char_order = PyNumber_AsSsize_t(a[1], PyExc_OverflowError)) == -1 && PyErr_Occurred())
        return NULL;
    if ((o.word_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError)) == -1 && PyErr_Occurred())
        return NULL;
    if (o.char_order < 0 || o.word_order < 0 || o.char_order > CHRF_MAX_ORDER ||
        o.word_order > CHRF_MAX_ORDER) {
        PyErr_Format(PyExc_ValueError, "chrf_scores: orders must be from 0 to %d",
                     CHRF_MAX_ORDER);
        return NULL;
    }
    if (chrf_f_settings(&f, &o, a[3], a[4]) < 0)
        return NULL;
    beta = PyNumber_AsSsize_t(a[3], PyExc_OverflowError); /* checked by chrf_f_settings */
    /* object.__new__(cls) is only safe for a class whose instances object
     * itself makes (object.__new__'s own check): CHRFScore and its kind. */
    if (!PyType_Check(a[5]) || ((PyTypeObject *)a[5])->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError,
                        "chrf_scores: cls must be a class whose instances object.__new__ makes");
        return NULL;
    }
    if (!PyCallable_Check(a[7])) {
        PyErr_SetString(PyExc_TypeError, "chrf_scores: fallback must be callable");
        return NULL;
    }
    /* A tuple of the rows: ``fallback`` runs Python code, which must not be
     * able to change what is being read. */
    if ((rows = PySequence_Tuple(a[0])) == NULL)
        return NULL;
    for (k = 0; k < N_ATTRS; k++)
        if ((names[k] = PyUnicode_InternFromString(attr_names[k])) == NULL)
            goto done;
    Py_INCREF(a[3]);
    values[A_BETA] = a[3];
    Py_INCREF(a[1]);
    values[A_CHAR_ORDER] = a[1];
    Py_INCREF(a[2]);
    values[A_WORD_ORDER] = a[2];
    Py_INCREF(a[6]);
    values[A_SIGNATURE] = a[6];
    values[A_NAME] = score_name(beta, o.word_order);
    values[A_MEAN] = PyFloat_FromDouble(-1.0);
    values[A_CI] = PyFloat_FromDouble(-1.0);
    values[A_VERBOSE] = PyUnicode_New(0, 0);
    empty = PyTuple_New(0);
    if (values[A_NAME] == NULL || values[A_MEAN] == NULL || values[A_CI] == NULL ||
        values[A_VERBOSE] == NULL || empty == NULL)
        goto done;
    n = PyTuple_GET_SIZE(rows);
    if ((list = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i), *obj;
        if (row_counts(row, 3 * f.order, counts))
            obj = score_object((PyTypeObject *)a[5], names, empty, values,
                               chrf_f_score(&f, counts), row);
        else {
            PyObject *call[2] = {row, a[6]};
            obj = PyObject_Vectorcall(a[7], call, 2, NULL);
        }
        if (obj == NULL)
            goto done;
        PyList_SET_ITEM(list, i, obj);
    }
    res = list;
    list = NULL;
done:
    Py_XDECREF(list);
    Py_XDECREF(empty);
    for (k = 0; k < N_ATTRS; k++) {
        Py_XDECREF(names[k]);
        Py_XDECREF(values[k]);
    }
    Py_DECREF(rows);
    return res;
}
