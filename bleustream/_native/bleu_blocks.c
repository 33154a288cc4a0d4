/*
 * bleu_blocks.c: BLEU's sum of a block of raw lines (bleu.py_sum_block):
 * the UTF-8 bytes of a hypothesis file's lines and of each reference
 * file's same lines, each line decoded here, right-stripped, tokenized
 * and counted as bleu_lines.c counts a str, without a Python object per
 * line.  A block that is not well-formed UTF-8 gives None: the reader
 * then decodes it the slow way, which says where.
 */
#include "kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The ASCII bytes at the start of [p, p + len) widened into out: how many. */
static Py_ssize_t
widen_ascii(const unsigned char *p, Py_ssize_t len, Py_UCS4 *out)
{
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    while (len - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i)), lo, hi;
        if (_mm_movemask_epi8(v))
            break; /* a byte of 0x80 or more */
        lo = _mm_unpacklo_epi8(v, zero);
        hi = _mm_unpackhi_epi8(v, zero);
        _mm_storeu_si128((__m128i *)(out + i), _mm_unpacklo_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(out + i + 4), _mm_unpackhi_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(out + i + 8), _mm_unpacklo_epi16(hi, zero));
        _mm_storeu_si128((__m128i *)(out + i + 12), _mm_unpackhi_epi16(hi, zero));
        i += 16;
    }
#endif
    while (i < len && p[i] < 0x80) {
        out[i] = p[i];
        i++;
    }
    return i;
}

/*
 * The line [p, p + len) of UTF-8 decoded into out as UCS4, returning its
 * number of characters; -1 where bytes.decode("utf-8") refuses it (a
 * stray or missing continuation byte, an overlong form, a surrogate, a
 * code point past U+10FFFF).  *has: which of '<' and '&' it holds (bytes
 * no sequence of several bytes holds).
 */
static Py_ssize_t
utf8_line(const unsigned char *p, Py_ssize_t len, Py_UCS4 *out, int *has)
{
    Py_ssize_t i = 0, o = 0;
    *has = 0;
    if (len > 0)
        *has = (memchr(p, '<', (size_t)len) ? HAS_LT : 0) | (memchr(p, '&', (size_t)len) ? HAS_AMP : 0);
    while (i < len) {
        unsigned int c, lo = 0x80, hi = 0xBF;
        Py_ssize_t k = widen_ascii(p + i, len - i, out + o);
        i += k;
        o += k;
        if (i == len)
            break;
        c = p[i]; /* 0x80 or more */
        if (c < 0xC2) {
            return -1;
        }
        else if (c < 0xE0) {
            if (len - i < 2 || (p[i + 1] & 0xC0) != 0x80)
                return -1;
            out[o++] = ((c & 0x1F) << 6) | (p[i + 1] & 0x3F);
            i += 2;
        }
        else if (c < 0xF0) {
            if (c == 0xE0)
                lo = 0xA0; /* no overlong form */
            else if (c == 0xED)
                hi = 0x9F; /* no surrogate */
            if (len - i < 3 || p[i + 1] < lo || p[i + 1] > hi || (p[i + 2] & 0xC0) != 0x80)
                return -1;
            out[o++] = ((c & 0x0F) << 12) | ((p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
            i += 3;
        }
        else if (c < 0xF5) {
            if (c == 0xF0)
                lo = 0x90; /* no overlong form */
            else if (c == 0xF4)
                hi = 0x8F; /* nothing past U+10FFFF */
            if (len - i < 4 || p[i + 1] < lo || p[i + 1] > hi || (p[i + 2] & 0xC0) != 0x80 ||
                (p[i + 3] & 0xC0) != 0x80)
                return -1;
            out[o++] = ((c & 0x07) << 18) | ((p[i + 1] & 0x3F) << 12) |
                       ((p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
            i += 4;
        }
        else {
            return -1;
        }
    }
    return o;
}

/* A block's bytes, and where its next line starts (past the end: no more). */
typedef struct {
    Py_buffer view;
    Py_ssize_t pos;
} Cursor;

/* The number of lines of a block: its line ends, and one. */
static Py_ssize_t
lines_of(const Py_buffer *view)
{
    const char *p = view->buf, *end = p + view->len;
    Py_ssize_t n = 1;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        p++;
        n++;
    }
    return n;
}

/* The cursor's next line, [*start, *start + *len), the cursor moved past it. */
static void
next_line(Cursor *c, const unsigned char **start, Py_ssize_t *len)
{
    const unsigned char *base = c->view.buf, *p = base + c->pos, *nl;
    nl = memchr(p, '\n', (size_t)(c->view.len - c->pos));
    *start = p;
    *len = nl == NULL ? c->view.len - c->pos : nl - p;
    c->pos += *len + 1;
}

/*
 * One line decoded, right-stripped and tokenized: *bufp the buffer the
 * spans index, in the arena; *dot: whether it ends in " ." (before the
 * tokenizer rewrites the buffer).  1: not UTF-8.
 */
static int
line_spans(Arena *a, const unsigned char *p, Py_ssize_t len, int which, Py_UCS4 **bufp,
           SpanVec *spans, int *dot)
{
    Py_UCS4 *buf = ARENA_NEW(a, Py_UCS4, len + 2);
    Py_ssize_t n;
    int has = 0;
    if (buf == NULL)
        return -1;
    n = utf8_line(p, len, buf + 1, &has);
    if (n < 0)
        return 1;
    while (n > 0 && Py_UNICODE_ISSPACE(buf[n]))
        n--;
    *bufp = buf;
    *dot = n >= 2 && buf[n - 1] == ' ' && buf[n] == '.';
    memset(spans, 0, sizeof(SpanVec));
    return tokenize_ucs4(a, buf, n, which, which == TOK_13A ? has : 0, spans);
}

/*
 * Counts every line of the blocks into sums: 0, or 1 where a line is not
 * UTF-8, -1 on an error.  *tokenized: the hypotheses that end in " .".
 */
static int
count_block(Arena *a, Cursor *cur, Py_ssize_t nrefs, Py_ssize_t nlines, int which,
            Py_ssize_t N, Py_ssize_t *sums, Py_ssize_t *tokenized)
{
    Py_UCS4 *hbuf, **rbufs;
    SpanVec hs, *rs;
    Py_ssize_t i, k, len;
    const unsigned char *p;
    int rc, dot;
    for (i = 0; i < nlines; i++) {
        if ((rbufs = ARENA_NEW(a, Py_UCS4 *, nrefs)) == NULL ||
            (rs = ARENA_NEW(a, SpanVec, nrefs)) == NULL)
            return -1;
        for (k = 0; k < nrefs; k++) {
            next_line(&cur[1 + k], &p, &len);
            if ((rc = line_spans(a, p, len, which, &rbufs[k], &rs[k], &dot)) != 0)
                return rc;
        }
        next_line(&cur[0], &p, &len);
        if ((rc = line_spans(a, p, len, which, &hbuf, &hs, &dot)) != 0)
            return rc;
        *tokenized += dot;
        if (bleu_add_spans(a, hbuf, &hs, rbufs, rs, nrefs, N, sums) < 0)
            return -1;
        arena_reset(a);
    }
    return 0;
}

/* bleu_sum_block_13a(hyp_block, ref_blocks, max_order) -> (("sum", row), tokenized) | None */
static PyObject *
bleu_block(const char *fname, int which, PyObject *const *args, Py_ssize_t nargs,
           PyObject *kwnames)
{
    static const char *const names[] = {"hyp_block", "ref_blocks", "max_order"};
    PyObject *a[3], *rf = NULL, *res = NULL, *row;
    Cursor *cur = NULL;
    Py_ssize_t max_order, N, nrefs, held = 0, k, nlines, tokenized = 0, *sums = NULL;
    int rc;
    ARENA_ON_STACK(arena);
    if (bs_parse_args(fname, args, nargs, kwnames, names, 3, 3, a) < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    N = max_order > 0 ? max_order : 0;
    if (N > 1024) {
        PyErr_SetString(PyExc_ValueError, "max_order is too large");
        return NULL;
    }
    rf = PySequence_Fast(a[1], "ref_blocks must be a sequence of bytes");
    if (rf == NULL)
        return NULL;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if (nrefs < 1) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        goto done;
    }
    if ((cur = PyMem_Calloc((size_t)nrefs + 1, sizeof(Cursor))) == NULL ||
        (sums = PyMem_Calloc((size_t)(2 + 2 * N), sizeof(Py_ssize_t))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (k = 0; k <= nrefs; k++) {
        PyObject *block = k == 0 ? a[0] : PySequence_Fast_GET_ITEM(rf, k - 1);
        if (PyObject_GetBuffer(block, &cur[k].view, PyBUF_SIMPLE) < 0)
            goto done;
        held++;
    }
    nlines = lines_of(&cur[0].view);
    for (k = 1; k <= nrefs; k++) {
        if (lines_of(&cur[k].view) != nlines) {
            PyErr_SetString(PyExc_ValueError, "the blocks have different numbers of lines");
            goto done;
        }
    }
    rc = count_block(&arena, cur, nrefs, nlines, which, N, sums, &tokenized);
    if (rc < 0)
        goto done;
    if (rc > 0) {
        Py_INCREF(Py_None);
        res = Py_None;
        goto done;
    }
    if ((row = sums_tuple(sums, 2 + 2 * N)) != NULL)
        res = Py_BuildValue("((sN)n)", "sum", row, tokenized);
done:
    arena_free(&arena);
    for (k = 0; k < held; k++)
        PyBuffer_Release(&cur[k].view);
    PyMem_Free(cur);
    PyMem_Free(sums);
    Py_DECREF(rf);
    return res;
}

/* bleu_sum_block_13a(hyp_block, ref_blocks, max_order) */
BS_FASTCALL(bs_bleu_sum_block_13a)
{
    (void)module;
    return bleu_block("bleu_sum_block_13a", TOK_13A, args, nargs, kwnames);
}

/* bleu_sum_block_zh(hyp_block, ref_blocks, max_order) */
BS_FASTCALL(bs_bleu_sum_block_zh)
{
    (void)module;
    return bleu_block("bleu_sum_block_zh", TOK_ZH, args, nargs, kwnames);
}
