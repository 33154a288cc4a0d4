/*
 * chrf.c: chrF rows, one per reference (chrf_ref_rows), and chrF++'s words
 * (split_words).
 */
#include "kernels.h"

/* ------------------------------------------------------------------ */
/* chrF                                                                */
/* ------------------------------------------------------------------ */

/* string.punctuation */
static inline int
is_ascii_punct(Py_UCS4 c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}

/* A side of chrF: its characters (as ids) and its words (as spans). */
typedef struct {
    Py_UCS4 *buf;   /* the whole string */
    Py_ssize_t n;
    int32_t *chars; /* code points, white space removed unless kept */
    Py_ssize_t nchars;
    SpanVec words;
} ChrfSide;

/* SacreBLEU's chrF++ words: split(), then one ASCII punctuation mark off the
 * end, or else off the start, of a word longer than one character. */
static int
split_words_spans(Arena *a, const Py_UCS4 *b, Py_ssize_t n, SpanVec *out)
{
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t s, e;
        while (i < n && Py_UNICODE_ISSPACE(b[i]))
            i++;
        if (i >= n)
            break;
        s = i;
        while (i < n && !Py_UNICODE_ISSPACE(b[i]))
            i++;
        e = i;
        if (e - s > 1 && is_ascii_punct(b[e - 1])) {
            if (spans_push(a, out, s, e - s - 1) < 0 || spans_push(a, out, e - 1, 1) < 0)
                return -1;
        }
        else if (e - s > 1 && is_ascii_punct(b[s])) {
            if (spans_push(a, out, s, 1) < 0 || spans_push(a, out, s + 1, e - s - 1) < 0)
                return -1;
        }
        else if (spans_push(a, out, s, e - s) < 0) {
            return -1;
        }
    }
    return 0;
}

static int
side_init(Arena *a, ChrfSide *s, PyObject *str, int whitespace, int words)
{
    Py_ssize_t i, o = 0;
    memset(s, 0, sizeof(*s));
    s->n = PyUnicode_GET_LENGTH(str);
    s->buf = to_ucs4(a, str, s->n, 0);
    if (s->buf == NULL || (s->chars = ARENA_NEW(a, int32_t, s->n + 1)) == NULL)
        return -1;
    for (i = 0; i < s->n; i++) {
        Py_UCS4 c = s->buf[i];
        if (whitespace || !Py_UNICODE_ISSPACE(c))
            s->chars[o++] = (int32_t)c;
    }
    s->nchars = o;
    if (words && split_words_spans(a, s->buf, s->n, &s->words) < 0)
        return -1;
    return 0;
}

static int
put_triplets(PyObject *t, Py_ssize_t at, Py_ssize_t hlen, Py_ssize_t rlen, const Py_ssize_t *m,
             Py_ssize_t orders)
{
    Py_ssize_t n;
    for (n = 1; n <= orders; n++) {
        Py_ssize_t ht = hlen >= n ? hlen - n + 1 : 0, rt = rlen >= n ? rlen - n + 1 : 0;
        Py_ssize_t vals[3], q;
        vals[0] = rt ? ht : 0;
        vals[1] = rt;
        vals[2] = m[n - 1];
        for (q = 0; q < 3; q++) {
            PyObject *v = PyLong_FromSsize_t(vals[q]);
            if (v == NULL)
                return -1;
            PyTuple_SET_ITEM(t, at + 3 * (n - 1) + q, v);
        }
    }
    return 0;
}

BS_FASTCALL(bs_chrf_ref_rows)
{
    static const char *const names[] = {"hyp", "refs", "char_order", "word_order", "whitespace"};
    PyObject *a[5], *rf = NULL, *out = NULL;
    Py_ssize_t char_order, word_order, nrefs, k, j, NW, maxo;
    int whitespace;
    ChrfSide hyp, *rs = NULL;
    Py_ssize_t *m = NULL;
    int32_t *hyp_wids = NULL, **ref_wids = NULL;
    Vocab voc;
    (void)module;
    ARENA_ON_STACK(arena);

    memset(&hyp, 0, sizeof(hyp));
    if (bs_parse_args("chrf_ref_rows", args, nargs, kwnames, names, 5, 5, a) < 0)
        return NULL;
    if (bs_check_str(a[0], "hyp") < 0)
        return NULL;
    char_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (char_order == -1 && PyErr_Occurred())
        return NULL;
    word_order = PyNumber_AsSsize_t(a[3], PyExc_OverflowError);
    if (word_order == -1 && PyErr_Occurred())
        return NULL;
    if (char_order < 0 || word_order < 0) {
        PyErr_SetString(PyExc_ValueError, "orders must not be negative");
        return NULL;
    }
    if (char_order > PY_SSIZE_T_MAX / 8 || word_order > PY_SSIZE_T_MAX / 8) {
        PyErr_SetString(PyExc_OverflowError, "order too large");
        return NULL;
    }
    whitespace = PyObject_IsTrue(a[4]);
    if (whitespace < 0)
        return NULL;
    rf = PySequence_Fast(a[1], "refs must be a sequence of str");
    if (rf == NULL)
        return NULL;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if (nrefs == 0) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        goto done;
    }
    for (k = 0; k < nrefs; k++)
        if (bs_check_str(PySequence_Fast_GET_ITEM(rf, k), "a reference") < 0)
            goto done;
    maxo = char_order > word_order ? char_order : word_order;
    if ((m = ARENA_NEW(&arena, Py_ssize_t, maxo + 1)) == NULL ||
        (rs = ARENA_NEW(&arena, ChrfSide, nrefs)) == NULL ||
        (ref_wids = ARENA_NEW(&arena, int32_t *, nrefs)) == NULL)
        goto done;
    if (side_init(&arena, &hyp, a[0], whitespace, word_order > 0) < 0)
        goto done;
    for (k = 0; k < nrefs; k++)
        if (side_init(&arena, &rs[k], PySequence_Fast_GET_ITEM(rf, k), whitespace,
                      word_order > 0) < 0)
            goto done;
    NW = 0;
    if (word_order > 0) {
        for (k = 0; k < nrefs; k++)
            NW += rs[k].words.n;
        if (vocab_init(&voc, &arena, NW) < 0)
            goto done;
        for (k = 0; k < nrefs; k++) {
            if ((ref_wids[k] = ARENA_NEW(&arena, int32_t, rs[k].words.n + 1)) == NULL)
                goto done;
            for (j = 0; j < rs[k].words.n; j++) {
                TokView tv;
                tv.data = rs[k].buf + rs[k].words.v[j].start;
                tv.len = rs[k].words.v[j].len;
                tv.kind = PyUnicode_4BYTE_KIND;
                ref_wids[k][j] = vocab_id(&voc, &tv, 1);
            }
        }
        if ((hyp_wids = ARENA_NEW(&arena, int32_t, hyp.words.n + 1)) == NULL)
            goto done;
        for (j = 0; j < hyp.words.n; j++) {
            TokView tv;
            tv.data = hyp.buf + hyp.words.v[j].start;
            tv.len = hyp.words.v[j].len;
            tv.kind = PyUnicode_4BYTE_KIND;
            hyp_wids[j] = vocab_id(&voc, &tv, 0);
        }
    }
    out = PyTuple_New(nrefs);
    if (out == NULL)
        goto done;
    for (k = 0; k < nrefs; k++) {
        PyObject *row = PyTuple_New(3 * (char_order + word_order));
        Py_ssize_t zero = 0;
        if (row == NULL)
            goto fail;
        PyTuple_SET_ITEM(out, k, row);
        if (clipped_matches(&arena, hyp.chars, hyp.nchars, rs[k].chars, &zero, &rs[k].nchars,
                            1, char_order, m, 0) < 0)
            goto fail;
        if (put_triplets(row, 0, hyp.nchars, rs[k].nchars, m, char_order) < 0)
            goto fail;
        if (word_order > 0) {
            if (clipped_matches(&arena, hyp_wids, hyp.words.n, ref_wids[k], &zero,
                                &rs[k].words.n, 1, word_order, m, voc.size) < 0)
                goto fail;
            if (put_triplets(row, 3 * char_order, hyp.words.n, rs[k].words.n, m, word_order) < 0)
                goto fail;
        }
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    arena_free(&arena);
    Py_XDECREF(rf);
    return out;
}

/* split_words(line, /) -> list[str] */
BS_FASTCALL(bs_split_words)
{
    PyObject *line;
    Py_UCS4 *buf;
    Py_ssize_t n;
    SpanVec spans = {NULL, 0, 0};
    PyObject *res = NULL;
    (void)module;
    if (bs_parse_args("split_words", args, nargs, kwnames, NULL, 1, 1, &line) < 0)
        return NULL;
    if (bs_check_str(line, "line") < 0)
        return NULL;
    n = PyUnicode_GET_LENGTH(line);
    {
        ARENA_ON_STACK(arena);
        buf = to_ucs4(&arena, line, n, 0);
        if (buf != NULL && split_words_spans(&arena, buf, n, &spans) == 0)
            res = spans_to_list(buf, &spans);
        arena_free(&arena);
    }
    return res;
}
