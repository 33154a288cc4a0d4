/*
 * line_blocks.c: the blocks of bytes a reader hands over (the protocol's
 * sum_block): a hypothesis block and each reference block, the UTF-8 of
 * the same lines joined by "\n", held as buffers and read a line at a
 * time, each line decoded into UCS4 and right-stripped here.
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
next_line(BlockCursor *c, const unsigned char **start, Py_ssize_t *len)
{
    const unsigned char *base = c->view.buf, *p = base + c->pos, *nl;
    nl = memchr(p, '\n', (size_t)(c->view.len - c->pos));
    *start = p;
    *len = nl == NULL ? c->view.len - c->pos : nl - p;
    c->pos += *len + 1;
}

int
blocks_open(Blocks *b, PyObject *hyp_block, PyObject *ref_blocks)
{
    Py_ssize_t k;
    Py_buffer hyp;
    memset(b, 0, sizeof(*b));
    /* in the order decode_blocks checks them: the hypotheses' buffer, the
     * references' */
    if (PyObject_GetBuffer(hyp_block, &hyp, PyBUF_SIMPLE) < 0)
        return -1;
    b->refs = PySequence_Fast(ref_blocks, "ref_blocks must be a sequence of bytes");
    b->n = b->refs == NULL ? 0 : 1 + PySequence_Fast_GET_SIZE(b->refs);
    if (b->n > 0 && (b->cur = PyMem_Calloc((size_t)b->n, sizeof(BlockCursor))) == NULL)
        PyErr_NoMemory();
    if (b->cur == NULL) {
        PyBuffer_Release(&hyp);
        return -1;
    }
    b->cur[0].view = hyp;
    b->held = 1;
    for (k = 1; k < b->n; k++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(b->refs, k - 1), &b->cur[k].view,
                               PyBUF_SIMPLE) < 0)
            return -1;
        b->held++;
    }
    if (b->n < 2) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        return -1;
    }
    b->lines = lines_of(&b->cur[0].view);
    for (k = 1; k < b->n; k++) {
        if (lines_of(&b->cur[k].view) != b->lines) {
            PyErr_SetString(PyExc_ValueError, "the blocks have different numbers of lines");
            return -1;
        }
    }
    return 0;
}

void
blocks_close(Blocks *b)
{
    Py_ssize_t k;
    for (k = 0; k < b->held; k++)
        PyBuffer_Release(&b->cur[k].view);
    PyMem_Free(b->cur);
    Py_XDECREF(b->refs);
    memset(b, 0, sizeof(*b));
}

PyObject *
blocks_result(int rc, const Py_ssize_t *sums, Py_ssize_t size, Py_ssize_t tokenized)
{
    PyObject *row;
    if (rc < 0)
        return NULL;
    if (rc > 0) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    if ((row = sums_tuple(sums, size)) == NULL)
        return NULL;
    return Py_BuildValue("((sN)n)", "sum", row, tokenized);
}

int
blocks_next_line(Arena *a, Blocks *b, Py_ssize_t k, Py_UCS4 **bufp, Py_ssize_t *np, int *has)
{
    const unsigned char *p;
    Py_ssize_t len, n;
    Py_UCS4 *buf;
    next_line(&b->cur[k], &p, &len);
    if ((buf = ARENA_NEW(a, Py_UCS4, len + 2)) == NULL)
        return -1;
    n = utf8_line(p, len, buf + 1, has);
    if (n < 0)
        return 1;
    while (n > 0 && Py_UNICODE_ISSPACE(buf[n]))
        n--;
    *bufp = buf;
    *np = n;
    return 0;
}

/*
 * The fields of the lines of [base, end), every line's nfields of them,
 * field f's bytes added up into sizes[f] or, where `at` is given, copied
 * to at[f] (a line end after each line's but the last): 0 where a line has
 * other than nfields fields.  memchr finds the tabs and the line ends.
 */
static int
cut_fields(const char *base, const char *end, Py_ssize_t nfields, Py_ssize_t *sizes, char **at)
{
    const char *p = base;
    Py_ssize_t f;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        for (f = 0; f < nfields; f++) {
            const char *fe = f + 1 < nfields ? memchr(p, '\t', (size_t)(le - p)) : le;
            if (fe == NULL || (f + 1 == nfields && memchr(p, '\t', (size_t)(le - p))))
                return 0; /* fewer fields, or more */
            if (at != NULL) {
                memcpy(at[f], p, (size_t)(fe - p));
                at[f] += fe - p;
            }
            else {
                sizes[f] += fe - p;
            }
            p = fe + 1;
        }
        if (nl == NULL)
            return 1;
        for (f = 0; f < nfields; f++) {
            if (at != NULL)
                *at[f]++ = '\n';
            else
                sizes[f]++;
        }
        p = nl + 1;
    }
}

/* paste_columns(block, nfields, /) -> list[bytes] | None */
BS_FASTCALL(bs_paste_columns)
{
    PyObject *a[2], *res = NULL;
    Py_buffer view;
    Py_ssize_t nfields, f, *sizes = NULL;
    const char *base, *end;
    char **at = NULL;
    (void)module;
    if (bs_parse_args("paste_columns", args, nargs, kwnames, NULL, 2, 2, a) < 0)
        return NULL;
    nfields = PyNumber_AsSsize_t(a[1], PyExc_OverflowError);
    if (nfields == -1 && PyErr_Occurred())
        return NULL;
    if (nfields < 1) {
        PyErr_SetString(PyExc_ValueError, "a line has at least one field");
        return NULL;
    }
    if (PyObject_GetBuffer(a[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    base = view.buf;
    end = base + view.len;
    if (nfields > view.len + 1) { /* more fields than a line can hold */
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    if ((sizes = PyMem_Calloc((size_t)nfields, sizeof(Py_ssize_t))) == NULL ||
        (at = PyMem_Calloc((size_t)nfields, sizeof(char *))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (!cut_fields(base, end, nfields, sizes, NULL)) {
        Py_INCREF(Py_None);
        res = Py_None;
        goto done;
    }
    if ((res = PyList_New(nfields)) == NULL)
        goto done;
    for (f = 0; f < nfields; f++) {
        PyObject *column = PyBytes_FromStringAndSize(NULL, sizes[f]);
        if (column == NULL) {
            Py_CLEAR(res);
            goto done;
        }
        PyList_SET_ITEM(res, f, column);
        at[f] = PyBytes_AS_STRING(column);
    }
    cut_fields(base, end, nfields, NULL, at);
done:
    PyMem_Free(sizes);
    PyMem_Free(at);
    PyBuffer_Release(&view);
    return res;
}
