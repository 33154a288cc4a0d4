/*
 * scores.c: sentence-BLEU score objects, a batch of them from their rows.
 *
 * bleu_scores(rows, max_order, smooth, smooth_value, effective_order, cls,
 *             signature, fallback) returns, for each row, what the pure
 * Spec(bleu, settings).score_object(row, signature) returns: a ``cls``
 * (BLEUScore) made as BLEUScore.of_stats makes it, with SacreBLEU's
 * attributes in its order and their text (prec_str, _verbose) formatted as
 * float.__format__ formats them, whose score, bp and
 * precisions are bleustream.metrics.bleu.bleu_of_row's -- SacreBLEU's
 * compute_bleu -- operation for operation:
 *
 * - every whole number of a row is converted to double exactly (rows whose
 *   numbers are not ints within 2**53 go to ``fallback``), so 100.0 * m / t,
 *   ref_len / sys_len and 1 - x are the IEEE operations Python performs;
 * - log and exp are the C library's, which math.log and math.exp call for
 *   finite positive arguments and finite results;
 * - the mean of the logs is Python's sum() of floats started at 0: plain
 *   addition before Python 3.12, Neumaier's compensated sum from 3.12 on.
 *   The first call in a module checks that against the interpreter's sum() and,
 *   should they ever disagree, hands every row to ``fallback``.
 *
 * Whatever the pure code would do otherwise -- SacreBLEU's floor of
 * log(0), a math domain or range error, a row of the wrong length --
 * happens in ``fallback(row, signature)``, the pure Spec.score_object, so errors
 * and rare paths stay the pure code's.  Add-k smoothing and BLEU-1..N are
 * never passed here (the caller keeps them on the pure path).
 *
 * Compile with FMA contraction off (setup.py's -ffp-contract=off): a fused
 * multiply-add would round once where Python rounds twice.
 */
#include "kernels.h"

#include <math.h>
#include <string.h>


enum { SMOOTH_EXP, SMOOTH_FLOOR, SMOOTH_NONE };

/* bleustream.metrics.bleu.MAX_ORDER */
#define MAX_SCORE_ORDER 100

/* ------------------------------------------------------------------ */
/* Python's sum() of floats, started at the int 0                      */
/* ------------------------------------------------------------------ */

typedef struct {
    double hi; /* the running sum */
    double lo; /* Neumaier's compensation (3.12 and later) */
} FloatSum;

static FloatSum
fsum_start(double x)
{
    /* sum() adds its first float to the int 0: 0.0 + x. */
    FloatSum s;
    s.hi = 0.0 + x;
    s.lo = 0.0;
    return s;
}

static void
fsum_add(FloatSum *s, double x)
{
#if PY_VERSION_HEX >= 0x030C0000
    double t = s->hi + x;
    if (fabs(s->hi) >= fabs(x))
        s->lo += (s->hi - t) + x;
    else
        s->lo += (x - t) + s->hi;
    s->hi = t;
#else
    s->hi += x;
#endif
}

static double
fsum_value(const FloatSum *s)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (s->lo != 0.0 && isfinite(s->lo))
        return s->hi + s->lo;
#endif
    return s->hi;
}

/* 1 when fsum_* is this interpreter's sum() on vectors where plain and
 * compensated addition differ; 0 when not; -1 on an error. */
static int
sum_is_builtin_sum(void)
{
    static const double cases[][4] = {
        {1e16, 1.0, -1e16, 0.0},
        {0.1, 0.2, 0.3, 0.0},
        {1.0, 1e100, 1.0, -1e100},
        {4.605170185988091, -0.6931471805599453, 3.2188758248682006, 1e-17},
    };
    PyObject *builtins, *sum;
    size_t c;
    int k, same = 1;
    builtins = PyImport_ImportModule("builtins");
    if (builtins == NULL)
        return -1;
    sum = PyObject_GetAttrString(builtins, "sum");
    Py_DECREF(builtins);
    if (sum == NULL)
        return -1;
    for (c = 0; c < sizeof cases / sizeof cases[0] && same; c++) {
        PyObject *list = PyList_New(4), *got;
        FloatSum s = fsum_start(cases[c][0]);
        double theirs;
        if (list == NULL)
            goto error;
        for (k = 0; k < 4; k++) {
            PyObject *f = PyFloat_FromDouble(cases[c][k]);
            if (f == NULL) {
                Py_DECREF(list);
                goto error;
            }
            PyList_SET_ITEM(list, k, f);
            if (k)
                fsum_add(&s, cases[c][k]);
        }
        got = PyObject_CallOneArg(sum, list);
        Py_DECREF(list);
        if (got == NULL)
            goto error;
        theirs = PyFloat_AsDouble(got);
        Py_DECREF(got);
        if (theirs == -1.0 && PyErr_Occurred())
            goto error;
        same = memcmp(&theirs, &(double){fsum_value(&s)}, sizeof(double)) == 0;
    }
    Py_DECREF(sum);
    return same;
error:
    Py_DECREF(sum);
    return -1;
}

/* ------------------------------------------------------------------ */
/* bleu_of_row                                                         */
/* ------------------------------------------------------------------ */

/* A row's numbers, when they are doubles exactly (see kernels.h); the
 * chrF score objects read their rows with it too. */
int
bs_exact_row(PyObject *row, Py_ssize_t size, long long *out)
{
    Py_ssize_t k;
    if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != size)
        return 0;
    for (k = 0; k < size; k++) {
        PyObject *item = PyTuple_GET_ITEM(row, k);
        int overflow;
        long long x;
        if (!PyLong_CheckExact(item))
            return 0;
        x = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || x > BS_EXACT_LIMIT || x < -BS_EXACT_LIMIT)
            return 0;
        out[k] = x;
    }
    return 1;
}

typedef struct {
    Py_ssize_t order;
    int smooth;
    double smooth_value;
    int effective_order;
} Settings;

/* bleu_of_row's score, bp and precisions: 1; 0 where the pure code must
 * score the row (a zero precision among those averaged, a precision that
 * is negative or not finite, an exp that overflows). */
static int
bleu_of_row(const Settings *st, const long long *row, double *score, double *bp, double *prec)
{
    const Py_ssize_t order = st->order;
    const long long sys_len = row[0], ref_len = row[1];
    const long long *matches = row + 2, *totals = row + 2 + order;
    Py_ssize_t n, eff_order = order;
    int all_nonzero = 1, any_match = 0;
    double brevity = 1.0, mean, growth;
    FloatSum logs;

    if (sys_len < ref_len)
        brevity = sys_len > 0 ? exp(1.0 - (double)ref_len / (double)sys_len) : 0.0;
    for (n = 0; n < order; n++) {
        if (matches[n] == 0 || totals[n] == 0)
            all_nonzero = 0;
        if (matches[n] != 0)
            any_match = 1;
    }
    if (all_nonzero) {
        /* Every order matched: no smoothing, every order counts. */
        for (n = 0; n < order; n++)
            prec[n] = 100.0 * (double)matches[n] / (double)totals[n];
    }
    else if (!any_match) {
        for (n = 0; n < order; n++)
            prec[n] = 0.0;
        *score = 0.0;
        *bp = brevity;
        return 1;
    }
    else {
        double smooth_mteval = 1.0;
        for (n = 0; n < order; n++)
            prec[n] = 0.0;
        for (n = 0; n < order; n++) {
            if (totals[n] == 0)
                break;
            if (st->effective_order)
                eff_order = n + 1;
            if (matches[n] == 0) {
                if (st->smooth == SMOOTH_EXP) {
                    smooth_mteval *= 2;
                    prec[n] = 100.0 / (smooth_mteval * (double)totals[n]);
                }
                else if (st->smooth == SMOOTH_FLOOR) {
                    prec[n] = 100.0 * st->smooth_value / (double)totals[n];
                }
            }
            else {
                prec[n] = 100.0 * (double)matches[n] / (double)totals[n];
            }
        }
    }
    for (n = 0; n < eff_order; n++)
        if (!(prec[n] > 0.0) || !isfinite(prec[n]))
            return 0;
    logs = fsum_start(log(prec[0]));
    for (n = 1; n < eff_order; n++)
        fsum_add(&logs, log(prec[n]));
    mean = fsum_value(&logs) / (double)eff_order;
    growth = exp(mean);
    if (!isfinite(growth))
        return 0;
    *score = brevity * growth;
    *bp = brevity;
    return 1;
}

/* ------------------------------------------------------------------ */
/* the score objects                                                   */
/* ------------------------------------------------------------------ */

/* BLEUScore.of_stats's attributes, in its order (SacreBLEU's BLEUScore's,
 * then Spec.score_object's): vars() of the two objects list the same keys. */
enum {
    A_NAME,
    A_SCORE,
    A_MEAN,
    A_CI,
    A_VERBOSE,
    A_BP,
    A_COUNTS,
    A_TOTALS,
    A_SYS_LEN,
    A_REF_LEN,
    A_PRECISIONS,
    A_PREC_STR,
    A_RATIO,
    A_STATS,
    A_SIGNATURE,
    N_ATTRS
};
static const char *const attr_names[N_ATTRS] = {
    "name",    "score",   "_mean",      "_ci",      "_verbose", "bp",    "counts",   "totals",
    "sys_len", "ref_len", "precisions", "prec_str", "ratio",    "stats", "signature"};

/* Py_NewRef, which Python 3.9 lacks */
static PyObject *
new_ref(PyObject *obj)
{
    Py_INCREF(obj);
    return obj;
}

/* What every object of a call shares: "BLEU", -1.0, the module's texts and
 * the attribute names. */
typedef struct {
    PyObject *name;
    PyObject *minus_one;
    BsTextSlot *texts;
    PyObject *const *names;
} Shared;

/* The module's BsState.bleu_cache, made on its first call: (the attribute
 * names, "BLEU", -1.0), which every call would otherwise make again (the
 * names' interning costs more than a sentence's score object); a borrowed
 * reference, or NULL on an error. */
static PyObject *
bleu_cache(BsState *state)
{
    PyObject *names, *name = NULL, *minus_one = NULL;
    int k;
    if (state->bleu_cache != NULL)
        return state->bleu_cache;
    if ((names = PyTuple_New(N_ATTRS)) == NULL)
        return NULL;
    for (k = 0; k < N_ATTRS; k++) {
        PyObject *one = PyUnicode_InternFromString(attr_names[k]);
        if (one == NULL)
            goto error;
        PyTuple_SET_ITEM(names, k, one);
    }
    if ((name = PyUnicode_InternFromString("BLEU")) == NULL ||
        (minus_one = PyFloat_FromDouble(-1.0)) == NULL)
        goto error;
    state->bleu_cache = PyTuple_Pack(3, names, name, minus_one);
error:
    Py_DECREF(names);
    Py_XDECREF(name);
    Py_XDECREF(minus_one);
    return state->bleu_cache;
}

/* s's chars appended at buf + *len (the caller sized buf). */
static void
append(char *buf, size_t *len, const char *s, size_t n)
{
    memcpy(buf + *len, s, n);
    *len += n;
}

/* "%lld" of x appended at buf + *len. */
static void
append_ll(char *buf, size_t *len, long long x)
{
    char digits[24];
    size_t n = 0;
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0)
        buf[(*len)++] = '-';
    while (n)
        buf[(*len)++] = digits[--n];
}

/* format(x, spec) of a float for a fixed-point spec ('.1f', '.3f'): the
 * C function float.__format__ calls for it, into out (size chars).
 *
 * Sentence scores repeat a few values (100.0, 50.0, a bp of 1.0), and
 * PyOS_double_to_string costs more than the rest of an object: the texts
 * are kept in a small direct-mapped cache, keyed by the value's bits and
 * the digits (the text is a function of those alone).  The cache is the
 * module's (BsState.texts: one per interpreter), guarded by the GIL the
 * module asks for (Py_MOD_GIL_USED). */
static int
fixed(BsTextSlot *fixed_cache, char *out, size_t size, double x, int digits)
{
    unsigned long long bits, slot;
    char *text;
    size_t len;
    memcpy(&bits, &x, sizeof bits);
    slot = (bits ^ (bits >> 29) ^ (bits >> 47) ^ (unsigned long long)digits) % BS_TEXT_CACHE_SIZE;
    if (fixed_cache[slot].digits == digits && fixed_cache[slot].bits == bits) {
        len = strlen(fixed_cache[slot].text);
        if (len < size) {
            memcpy(out, fixed_cache[slot].text, len + 1);
            return 0;
        }
    }
    text = PyOS_double_to_string(x, 'f', digits, 0, NULL);
    if (text == NULL)
        return -1;
    len = strlen(text);
    if (len >= size) {
        PyMem_Free(text);
        PyErr_SetString(PyExc_OverflowError, "bleu_scores: a number too long to format");
        return -1;
    }
    memcpy(out, text, len + 1);
    PyMem_Free(text);
    if (len < BS_TEXT_SIZE) {
        fixed_cache[slot].bits = bits;
        fixed_cache[slot].digits = digits;
        memcpy(fixed_cache[slot].text, out, len + 1);
    }
    return 0;
}

/* 1 when every precision's '.1f' text fits prec_text's buffer (a floor
 * smoothing value can make one as long as 1e308's); 0 sends the row to the
 * pure code. */
static int
short_texts(const double *prec, Py_ssize_t order)
{
    Py_ssize_t n;
    for (n = 0; n < order; n++)
        if (!(fabs(prec[n]) < 1e15))
            return 0;
    return 1;
}

/* SacreBLEU's prec_str, "/".join(f"{p:.1f}" for p in precisions), into
 * buf (PREC_TEXT_SIZE chars): its length, or -1 on an error. */
#define PREC_TEXT_SIZE (MAX_SCORE_ORDER * 20)
static Py_ssize_t
prec_text(BsTextSlot *texts, char *buf, const double *prec, Py_ssize_t order)
{
    /* Each text is at most 18 chars (short_texts), and a '/'. */
    char one[64];
    size_t len = 0, k;
    Py_ssize_t n;
    for (n = 0; n < order; n++) {
        if (fixed(texts, one, sizeof one, prec[n], 1) < 0)
            return -1;
        k = strlen(one);
        if (len + k + 2 > PREC_TEXT_SIZE) {
            PyErr_SetString(PyExc_OverflowError, "bleu_scores: precisions too long to format");
            return -1;
        }
        if (n)
            buf[len++] = '/';
        memcpy(buf + len, one, k);
        len += k;
    }
    buf[len] = '\0';
    return (Py_ssize_t)len;
}

static PyObject *
score_object(PyTypeObject *cls, PyObject *empty, const Shared *shared, double score, double bp,
             const double *precisions, Py_ssize_t order, PyObject *row, PyObject *signature)
{
    PyObject *values[N_ATTRS] = {NULL};
    PyObject *obj = NULL;
    long long sys_len, ref_len;
    double ratio;
    char bp_text[64], ratio_text[64], prec[PREC_TEXT_SIZE], verbose[PREC_TEXT_SIZE + 256];
    Py_ssize_t prec_len;
    size_t verbose_len = 0;
    PyObject *const *names = shared->names;
    Py_ssize_t n;
    int k, ok = 1;
    /* The row's numbers are exact ints (bs_exact_row): int(x) is x. */
    sys_len = PyLong_AsLongLong(PyTuple_GET_ITEM(row, 0));
    ref_len = PyLong_AsLongLong(PyTuple_GET_ITEM(row, 1));
    ratio = ref_len ? (double)sys_len / (double)ref_len : 0.0;
    values[A_NAME] = new_ref(shared->name);
    values[A_MEAN] = new_ref(shared->minus_one);
    values[A_CI] = new_ref(shared->minus_one);
    values[A_SYS_LEN] = new_ref(PyTuple_GET_ITEM(row, 0));
    values[A_REF_LEN] = new_ref(PyTuple_GET_ITEM(row, 1));
    values[A_STATS] = new_ref(row);
    values[A_SIGNATURE] = new_ref(signature);
    values[A_SCORE] = PyFloat_FromDouble(score);
    values[A_BP] = PyFloat_FromDouble(bp);
    /* sys_len / ref_len if ref_len else 0: the int 0 */
    values[A_RATIO] = ref_len ? PyFloat_FromDouble(ratio) : PyLong_FromLong(0);
    values[A_PRECISIONS] = PyList_New(order);
    /* counts and totals: list(stats[2:2 + order]), list(stats[2 + order:]) */
    values[A_COUNTS] = PyList_New(order);
    values[A_TOTALS] = PyList_New(order);
    for (k = 0; k < N_ATTRS; k++)
        if (values[k] == NULL && k != A_VERBOSE && k != A_PREC_STR)
            goto done;
    for (n = 0; n < order; n++) {
        PyObject *p = PyFloat_FromDouble(precisions[n]);
        if (p == NULL)
            goto done;
        PyList_SET_ITEM(values[A_PRECISIONS], n, p);
        PyList_SET_ITEM(values[A_COUNTS], n, new_ref(PyTuple_GET_ITEM(row, 2 + n)));
        PyList_SET_ITEM(values[A_TOTALS], n, new_ref(PyTuple_GET_ITEM(row, 2 + order + n)));
    }
    /* prec_str and _verbose: SacreBLEU's f-strings, with float.__format__'s digits */
    if ((prec_len = prec_text(shared->texts, prec, precisions, order)) < 0 ||
        fixed(shared->texts, bp_text, sizeof bp_text, bp, 3) < 0 ||
        fixed(shared->texts, ratio_text, sizeof ratio_text, ratio, 3) < 0)
        goto done;
    /* f"{prec_str} (BP = {bp:.3f} ratio = {ratio:.3f} hyp_len = {sys_len:d}
     * ref_len = {ref_len:d})": prec is at most PREC_TEXT_SIZE chars, the
     * .3f texts under 64 each, the ints 20, so the rest fits in 256. */
    append(verbose, &verbose_len, prec, (size_t)prec_len);
    append(verbose, &verbose_len, " (BP = ", 7);
    append(verbose, &verbose_len, bp_text, strlen(bp_text));
    append(verbose, &verbose_len, " ratio = ", 9);
    append(verbose, &verbose_len, ratio_text, strlen(ratio_text));
    append(verbose, &verbose_len, " hyp_len = ", 11);
    append_ll(verbose, &verbose_len, sys_len);
    append(verbose, &verbose_len, " ref_len = ", 11);
    append_ll(verbose, &verbose_len, ref_len);
    append(verbose, &verbose_len, ")", 1);
    values[A_PREC_STR] = PyUnicode_DecodeASCII(prec, prec_len, NULL);
    values[A_VERBOSE] = PyUnicode_DecodeASCII(verbose, (Py_ssize_t)verbose_len, NULL);
    if (values[A_PREC_STR] == NULL || values[A_VERBOSE] == NULL)
        goto done;
    /* object.__new__(cls), as of_stats */
    obj = PyBaseObject_Type.tp_new(cls, empty, NULL);
    if (obj == NULL)
        goto done;
    for (k = 0; k < N_ATTRS && ok; k++)
        ok = PyObject_SetAttr(obj, names[k], values[k]) == 0;
    if (!ok)
        Py_CLEAR(obj);
done:
    for (k = 0; k < N_ATTRS; k++)
        Py_XDECREF(values[k]);
    return obj;
}

static int
smooth_code(PyObject *smooth)
{
    if (PyUnicode_Check(smooth)) {
        if (PyUnicode_CompareWithASCIIString(smooth, "exp") == 0)
            return SMOOTH_EXP;
        if (PyUnicode_CompareWithASCIIString(smooth, "floor") == 0)
            return SMOOTH_FLOOR;
        if (PyUnicode_CompareWithASCIIString(smooth, "none") == 0)
            return SMOOTH_NONE;
    }
    PyErr_Format(PyExc_ValueError, "bleu_scores: smooth must be 'exp', 'floor' or 'none', not %R",
                 smooth);
    return -1;
}

/* The settings (max_order, smooth, smooth_value, effective_order) of
 * bleu_scores and bleu_values: 0, or -1 with an error set. */
static int
parse_settings(PyObject *const *a, Settings *st)
{
    st->order = PyNumber_AsSsize_t(a[0], PyExc_OverflowError);
    if (st->order == -1 && PyErr_Occurred())
        return -1;
    if (st->order < 1 || st->order > MAX_SCORE_ORDER) {
        PyErr_Format(PyExc_ValueError, "bleu_scores: max_order must be from 1 to %d, not %zd",
                     MAX_SCORE_ORDER, st->order);
        return -1;
    }
    if ((st->smooth = smooth_code(a[1])) < 0)
        return -1;
    st->smooth_value = PyFloat_AsDouble(a[2]);
    if (st->smooth_value == -1.0 && PyErr_Occurred())
        return -1;
    if ((st->effective_order = PyObject_IsTrue(a[3])) < 0)
        return -1;
    return 0;
}

/* Once per module: whether fsum_* is this interpreter's sum() (state->sum_exact
 * 1 or 0); -1 with an error set. */
static int
sum_checked(BsState *state)
{
    if (state->sum_exact < 0 && (state->sum_exact = sum_is_builtin_sum()) < 0) {
        state->sum_exact = -1;
        return -1;
    }
    return 0;
}

/* bleu_scores(rows, max_order, smooth, smooth_value, effective_order, cls, signature,
 *             fallback, /) -> list */
BS_FASTCALL(bs_bleu_scores)
{
    BsState *state = bs_state(module);
    PyObject *a[8];
    PyObject *rows = NULL, *list = NULL, *empty = NULL, *res = NULL;
    PyObject *cls, *signature, *fallback, *cache;
    Shared shared = {NULL, NULL, NULL, NULL};
    long long numbers[2 + 2 * MAX_SCORE_ORDER];
    double prec[MAX_SCORE_ORDER];
    Settings st;
    Py_ssize_t i, n, size;

    if (bs_parse_args("bleu_scores", args, nargs, kwnames, NULL, 8, 8, a) < 0)
        return NULL;
    if (parse_settings(a + 1, &st) < 0 || sum_checked(state) < 0)
        return NULL;
    cls = a[5];
    signature = a[6];
    fallback = a[7];
    /* object.__new__(cls) is only safe for a class whose instances object
     * itself makes (object.__new__'s own check): BLEUScore and its kind. */
    if (!PyType_Check(cls) || ((PyTypeObject *)cls)->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError,
                        "bleu_scores: cls must be a class whose instances object.__new__ makes");
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "bleu_scores: fallback must be callable");
        return NULL;
    }
    if ((cache = bleu_cache(state)) == NULL)
        return NULL;
    /* A tuple of the rows: ``fallback`` runs Python code, which must not be
     * able to change what is being read. */
    rows = PySequence_Tuple(a[0]);
    if (rows == NULL)
        return NULL;
    if ((empty = PyTuple_New(0)) == NULL)
        goto done;
    shared.texts = state->texts;
    shared.names = &PyTuple_GET_ITEM(PyTuple_GET_ITEM(cache, 0), 0);
    shared.name = PyTuple_GET_ITEM(cache, 1);
    shared.minus_one = PyTuple_GET_ITEM(cache, 2);
    n = PyTuple_GET_SIZE(rows);
    size = 2 + 2 * st.order;
    if ((list = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i), *obj;
        double score, bp;
        if (state->sum_exact == 1 && bs_exact_row(row, size, numbers) &&
            bleu_of_row(&st, numbers, &score, &bp, prec) && short_texts(prec, st.order))
            obj = score_object((PyTypeObject *)cls, empty, &shared, score, bp, prec, st.order,
                               row, signature);
        else {
            PyObject *call[2] = {row, signature};
            obj = PyObject_Vectorcall(fallback, call, 2, NULL);
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
    Py_DECREF(rows);
    return res;
}

/* bleu_values(rows, max_order, smooth, smooth_value, effective_order, fallback, /)
 * -> list[float]: the score of each row, bleu_scores' objects' .score without
 * the objects; a row the C code does not score is fallback(row), a float. */
BS_FASTCALL(bs_bleu_values)
{
    BsState *state = bs_state(module);
    PyObject *a[6];
    PyObject *rows, *list = NULL, *fallback;
    long long numbers[2 + 2 * MAX_SCORE_ORDER];
    double prec[MAX_SCORE_ORDER];
    Settings st;
    Py_ssize_t i, n, size;

    if (bs_parse_args("bleu_values", args, nargs, kwnames, NULL, 6, 6, a) < 0)
        return NULL;
    if (parse_settings(a + 1, &st) < 0 || sum_checked(state) < 0)
        return NULL;
    fallback = a[5];
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "bleu_values: fallback must be callable");
        return NULL;
    }
    if ((rows = PySequence_Tuple(a[0])) == NULL) /* fallback cannot change it */
        return NULL;
    n = PyTuple_GET_SIZE(rows);
    size = 2 + 2 * st.order;
    if ((list = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i), *value;
        double score, bp;
        if (state->sum_exact == 1 && bs_exact_row(row, size, numbers) &&
            bleu_of_row(&st, numbers, &score, &bp, prec))
            value = PyFloat_FromDouble(score);
        else
            value = PyObject_CallOneArg(fallback, row);
        if (value == NULL) {
            Py_CLEAR(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, value);
    }
done:
    Py_DECREF(rows);
    return list;
}
