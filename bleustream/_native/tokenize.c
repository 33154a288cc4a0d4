/*
 * tokenize.c: the 13a and zh tokenizers, SacreBLEU's tokenize_13a and
 * tokenize_zh: the mteval rules on a UCS4 copy of the line, tokens as spans
 * of it (zh first splits off its CJK characters).
 */
#include "kernels.h"

int
spans_reserve(Arena *a, SpanVec *s, Py_ssize_t more)
{
    Py_ssize_t nc;
    Span *nv;
    if (more <= s->cap - s->n)
        return 0;
    nc = s->cap ? 2 * s->cap : 64;
    if (nc < s->n + more)
        nc = s->n + more;
    nv = ARENA_NEW(a, Span, nc);
    if (nv == NULL)
        return -1;
    if (s->n)
        memcpy(nv, s->v, (size_t)s->n * sizeof(Span));
    s->v = nv;
    s->cap = nc;
    return 0;
}
/* str.replace(pat, rep) in place, rep at most one character (rep < 0: ""). */
static Py_ssize_t
replace_inplace(Py_UCS4 *b, Py_ssize_t n, const char *pat, Py_ssize_t plen, long rep)
{
    Py_ssize_t i = 0, o = 0, k;
    while (i < n) {
        if (b[i] == (Py_UCS4)(unsigned char)pat[0] && i + plen <= n) {
            for (k = 1; k < plen; k++)
                if (b[i + k] != (Py_UCS4)(unsigned char)pat[k])
                    break;
            if (k == plen) {
                if (rep >= 0)
                    b[o++] = (Py_UCS4)rep;
                i += plen;
                continue;
            }
        }
        b[o++] = b[i++];
    }
    return o;
}

static int
has_char(const Py_UCS4 *b, Py_ssize_t n, Py_UCS4 c)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        if (b[i] == c)
            return 1;
    return 0;
}

static const Py_UCS4 zh_ranges[][2] = {
    {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A},
    {0xFA70, 0xFAD9}, {0x2001, 0x2A6D}, {0x2F81, 0x2FA1}, {0xFF00, 0xFFEF}, {0x2E80, 0x2EFF},
    {0x3000, 0x303F}, {0x31C0, 0x31EF}, {0x2F00, 0x2FDF}, {0x2FF0, 0x2FFF}, {0x3100, 0x312F},
    {0x31A0, 0x31BF}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0x2600, 0x26FF}, {0x2700, 0x27BF},
    {0x3200, 0x32FF}, {0x3300, 0x33FF},
};

static inline int
is_zh(Py_UCS4 c)
{
    size_t k;
    if (c < 0x2001 || c > 0xFFEF)
        return 0;
    for (k = 0; k < sizeof(zh_ranges) / sizeof(zh_ranges[0]); k++)
        if (c >= zh_ranges[k][0] && c <= zh_ranges[k][1])
            return 1;
    return 0;
}

enum { C_OTHER = 0, C_DIGIT = 1, C_PUNCT = 2, C_DASH = 3 };
#define C_BREAK 4 /* rule 1's class, or a zh character: spaces go around it */
#define C_SPACE 8 /* str.isspace() */

/*
 * Per ASCII character: its class (bits 0-1: C_DIGIT for 0-9, C_PUNCT for
 * . and ,, C_DASH for -), C_BREAK for SacreBLEU's rule-1 class
 * [\{-\~\[-\` -\&\(-\+\:-\@\/], C_SPACE where str.isspace().  A constant,
 * so that the module writes no C global.
 */
static const unsigned char ascii_tab[128] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8,
    12, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 2, 3, 2, 4,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4,
    4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4,
    4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 0,
};

/*
 * The string a rule pass sees is the buffer's characters with runs of
 * inserted spaces between them.  A space stands before character i (i = n:
 * after the last) when rule 1 or zh put one around character i - 1 or i
 * (C_BREAK in cl, whose cells -1 and n are 0), or an earlier rule pass put
 * one there (x[i]): GAP(i).  More than one space in a run changes nothing
 * any rule tests, so a run acts as one space element.
 *
 * Rules 2-4 as re.sub applies them, left to right, each match consuming
 * both of its elements:
 *   rule 2: ([^0-9])([\.,]) -> \1 \2     rule 3: ([\.,])([^0-9]) ->  \1 \2
 *   rule 4: ([0-9])(-) -> \1 \2
 * Every match holds a [.,] (rules 2, 3) or a '-' (rule 4), so a pass only
 * visits those characters (`at`, in order): whether one matches depends on
 * its neighbouring elements and on whether the match at the character just
 * before consumed it.  A match puts a space before and after the [.,] or
 * '-' (for rule 3 the space after it stands before the next element).  A
 * pass reads the spaces as they were before it: its matches go to `hits`,
 * and are added to x after it.
 */
#define GAP(cl, x, i) ((x)[i] || (((cl)[(i) - 1] | (cl)[i]) & C_BREAK))

static void
rule_pass(int rule, const unsigned char *cl, unsigned char *x, Py_ssize_t n,
          const Py_ssize_t *at, Py_ssize_t nat, Py_ssize_t *hits)
{
    Py_ssize_t k, nhits = 0, last = -2; /* the character the previous match was at */
    for (k = 0; k < nat; k++) {
        Py_ssize_t p = at[k];
        int match;
        if (rule == 2) {
            /* the element before: a space (never consumed), or character
             * p - 1, consumed if it is a [.,] that matched (at p - 1) */
            match = GAP(cl, x, p) || (p > 0 && (cl[p - 1] & 3) != C_DIGIT && last != p - 1);
        }
        else if (rule == 3) {
            /* consumed: the second element of a match at p - 1 */
            int consumed = !GAP(cl, x, p) && last == p - 1;
            match = !consumed && (GAP(cl, x, p + 1) || (p + 1 < n && (cl[p + 1] & 3) != C_DIGIT));
        }
        else {
            /* a digit is never consumed by rule 4 (its second element is '-') */
            match = !GAP(cl, x, p) && p > 0 && (cl[p - 1] & 3) == C_DIGIT;
        }
        if (match) {
            hits[nhits++] = p;
            last = p;
        }
    }
    for (k = 0; k < nhits; k++) {
        x[hits[k]] = 1;
        x[hits[k] + 1] = 1;
    }
}

/* A span into room reserved for it. */
#define SPAN_PUT(s, st, ln)                                                                      \
    do {                                                                                         \
        (s)->v[(s)->n].start = (st);                                                             \
        (s)->v[(s)->n].len = (ln);                                                               \
        (s)->n++;                                                                                \
    } while (0)

/*
 * The spans between the boundaries of a rule pass's string: a boundary
 * before each x-marked character (the rule passes' spaces), and around
 * each rule-1 or zh character (C_BREAK), which is a token of its own; a
 * white-space character (C_SPACE) is no token's.  The walk visits only
 * those characters (`sep`, in order) and the [.,] and '-' the passes
 * looked at (`cand`, in order: a mark stands at one of them or just
 * after), not every character: `start` is where the token being read
 * began, and a boundary ends it.
 */
#define BOUNDARY(q)                                                                              \
    do {                                                                                         \
        if (start < (q)) {                                                                       \
            SPAN_PUT(out, start, (q) - start);                                                   \
            start = (q);                                                                         \
        }                                                                                        \
    } while (0)

static void
split_at_boundaries(const unsigned char *cl, const unsigned char *x, Py_ssize_t n,
                    const Py_ssize_t *sep, Py_ssize_t nsep, const Py_ssize_t *cand,
                    Py_ssize_t ncand, SpanVec *out)
{
    Py_ssize_t si = 0, ci = 0, start = 0;
    while (si < nsep || ci < ncand) {
        if (si == nsep || (ci < ncand && cand[ci] < sep[si])) {
            Py_ssize_t p = cand[ci++];
            if (x[p])
                BOUNDARY(p);
            if (x[p + 1])
                BOUNDARY(p + 1);
        }
        else {
            Py_ssize_t p = sep[si++];
            BOUNDARY(p);
            if (!(cl[p] & C_SPACE))
                SPAN_PUT(out, p, 1);
            start = p + 1;
        }
    }
    if (start < n)
        SPAN_PUT(out, start, n - start);
}

/* The positions of two ascending lists as one ascending list: how many. */
static Py_ssize_t
merge_positions(const Py_ssize_t *a, Py_ssize_t na, const Py_ssize_t *b, Py_ssize_t nb,
                Py_ssize_t *out)
{
    Py_ssize_t i = 0, j = 0, o = 0;
    while (i < na || j < nb)
        out[o++] = (j == nb || (i < na && a[i] < b[j])) ? a[i++] : b[j++];
    return o;
}

/*
 * The tokens of SacreBLEU's _post_tokenizer (rules 1-4, then split) on
 * b[0..n), with zh characters split off first if `zh`.  Tokens go to out
 * as spans of b.
 */
static int
mteval_spans(Arena *a, const Py_UCS4 *b, Py_ssize_t n, int zh, SpanVec *out)
{
    unsigned char *x = NULL, *cl;
    Py_ssize_t i, *punct = NULL, *dash, *hits, *sep, *cand, npunct = 0, ndash = 0, nsep = 0;
    Py_ssize_t ncand = 0;
    int any_digit = 0, rc = -1;
    ArenaMark mark;

    /* a token has at least one character: room for them all before the
     * scratch, which is given back at the end */
    if (spans_reserve(a, out, n + 1) < 0)
        return -1;
    mark = arena_mark(a);
    if ((x = ARENA_NEW(a, unsigned char, 2 * n + 3)) == NULL ||
        (punct = ARENA_NEW(a, Py_ssize_t, 5 * n + 5)) == NULL)
        goto done;
    dash = punct + n + 1;
    hits = dash + n + 1;
    sep = hits + n + 1;
    cand = sep + n + 1;
    cl = x + (n + 2); /* cl[-1] .. cl[n] */
    memset(x, 0, 2 * (size_t)n + 3);
    for (i = 0; i < n; i++) {
        Py_UCS4 c = b[i];
        unsigned char k;
        if (c < 128) {
            k = ascii_tab[c];
            if (k) {
                if (k & (C_SPACE | C_BREAK))
                    sep[nsep++] = i;
                else if ((k & 3) == C_PUNCT)
                    punct[npunct++] = i;
                else if ((k & 3) == C_DASH)
                    dash[ndash++] = i;
                else
                    any_digit = 1;
            }
        }
        else {
            k = (unsigned char)(((zh && is_zh(c)) ? C_BREAK : 0) |
                                (Py_UNICODE_ISSPACE(c) ? C_SPACE : 0));
            if (k)
                sep[nsep++] = i;
        }
        cl[i] = k;
    }
    if (npunct) {
        rule_pass(2, cl, x, n, punct, npunct, hits);
        rule_pass(3, cl, x, n, punct, npunct, hits);
    }
    if (ndash && any_digit) {
        rule_pass(4, cl, x, n, dash, ndash, hits);
        ncand = merge_positions(punct, npunct, dash, ndash, cand);
    }
    else {
        memcpy(cand, punct, (size_t)npunct * sizeof(Py_ssize_t));
        ncand = npunct;
    }
    split_at_boundaries(cl, x, n, sep, nsep, cand, ncand, out);
    rc = 0;
done:
    arena_release(a, mark);
    return rc;
}

/* A copy of the first n characters of the str (n at most its length) as
 * UCS4 in the arena, with `pad` spare cells at each end. */
Py_UCS4 *
to_ucs4(Arena *a, PyObject *s, Py_ssize_t n, Py_ssize_t pad)
{
    Py_UCS4 *buf, *o;
    Py_ssize_t i;
    int kind;
    const void *data;
    if (ensure_ready(s) < 0)
        return NULL;
    if (n > (PY_SSIZE_T_MAX / 8) - 2 * pad - 4) {
        PyErr_NoMemory();
        return NULL;
    }
    buf = ARENA_NEW(a, Py_UCS4, n + 2 * pad + 1);
    if (buf == NULL)
        return NULL;
    kind = PyUnicode_KIND(s);
    data = PyUnicode_DATA(s);
    o = buf + pad;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        for (i = 0; i < n; i++)
            o[i] = ((const Py_UCS1 *)data)[i];
        break;
    case PyUnicode_2BYTE_KIND:
        for (i = 0; i < n; i++)
            o[i] = ((const Py_UCS2 *)data)[i];
        break;
    default:
        if (n)
            memcpy(o, data, (size_t)n * sizeof(Py_UCS4));
        break;
    }
    return buf;
}


/*
 * Tokenizes the first n characters of `line` as tokenize_13a / tokenize_zh.
 * On success *bufp holds the buffer the spans index and spans the tokens,
 * both in the arena.
 */
int
tokenize_spans(Arena *a, PyObject *line, Py_ssize_t n, int which, Py_UCS4 **bufp,
               SpanVec *spans)
{
    Py_UCS4 *buf = to_ucs4(a, line, n, 1);
    int has = 0;
    *bufp = NULL;
    if (buf == NULL)
        return -1;
    if (which == TOK_13A) {
        /* memchr-fast searches of the str (-2: an error) */
        Py_ssize_t lt = PyUnicode_FindChar(line, '<', 0, n, 1);
        Py_ssize_t nl = lt == -2 ? -2 : PyUnicode_FindChar(line, '\n', 0, n, 1);
        Py_ssize_t amp = nl == -2 ? -2 : PyUnicode_FindChar(line, '&', 0, n, 1);
        if (amp == -2)
            return -1;
        has = (lt >= 0 ? HAS_LT : 0) | (nl >= 0 ? HAS_NL : 0) | (amp >= 0 ? HAS_AMP : 0);
    }
    if (tokenize_ucs4(a, buf, n, which, has, spans) < 0)
        return -1;
    *bufp = buf;
    return 0;
}

int
tokenize_ucs4(Arena *a, Py_UCS4 *buf, Py_ssize_t n, int which, int has, SpanVec *spans)
{
    Py_UCS4 *t = buf + 1;
    if (which == TOK_13A) {
        if (has & HAS_LT)
            n = replace_inplace(t, n, "<skipped>", 9, -1);
        if ((has & HAS_NL) && has_char(t, n, '\n')) {
            n = replace_inplace(t, n, "-\n", 2, -1);
            n = replace_inplace(t, n, "\n", 1, ' ');
        }
        if (has & HAS_AMP) {
            n = replace_inplace(t, n, "&quot;", 6, '"');
            n = replace_inplace(t, n, "&amp;", 5, '&');
            n = replace_inplace(t, n, "&lt;", 4, '<');
            n = replace_inplace(t, n, "&gt;", 4, '>');
        }
        /* 13a pads the line with a space at each end */
        buf[0] = ' ';
        buf[n + 1] = ' ';
        return mteval_spans(a, buf, n + 2, 0, spans);
    }
    else {
        /* zh: line.strip(), no padding */
        Py_ssize_t lo = 0, z = n, k, shift;
        while (lo < z && Py_UNICODE_ISSPACE(t[lo]))
            lo++;
        while (z > lo && Py_UNICODE_ISSPACE(t[z - 1]))
            z--;
        if (mteval_spans(a, t + lo, z - lo, 1, spans) < 0)
            return -1;
        shift = 1 + lo;
        for (k = 0; k < spans->n; k++)
            spans->v[k].start += shift;
        return 0;
    }
}

PyObject *
spans_to_list(const Py_UCS4 *buf, const SpanVec *spans)
{
    Py_ssize_t k;
    PyObject *list = PyList_New(spans->n);
    if (list == NULL)
        return NULL;
    for (k = 0; k < spans->n; k++) {
        PyObject *s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf + spans->v[k].start,
                                                spans->v[k].len);
        if (s == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, s);
    }
    return list;
}

/* ------------------------------------------------------------------ */
/* tokenize_13a / tokenize_zh                                          */
/* ------------------------------------------------------------------ */

static PyObject *
tokenize(const char *fname, int which, PyObject *const *args, Py_ssize_t nargs,
         PyObject *kwnames)
{
    PyObject *line;
    Py_UCS4 *buf;
    SpanVec spans = {NULL, 0, 0};
    PyObject *res = NULL;
    if (bs_parse_args(fname, args, nargs, kwnames, NULL, 1, 1, &line) < 0)
        return NULL;
    if (bs_check_str(line, "line") < 0)
        return NULL;
    {
        ARENA_ON_STACK(arena);
        if (tokenize_spans(&arena, line, PyUnicode_GET_LENGTH(line), which, &buf, &spans) == 0)
            res = spans_to_list(buf, &spans);
        arena_free(&arena);
    }
    return res;
}

/* tokenize_13a(line, /) -> list[str] */
BS_FASTCALL(bs_tokenize_13a)
{
    (void)module;
    return tokenize("tokenize_13a", TOK_13A, args, nargs, kwnames);
}

/* tokenize_zh(line, /) -> list[str] */
BS_FASTCALL(bs_tokenize_zh)
{
    (void)module;
    return tokenize("tokenize_zh", TOK_ZH, args, nargs, kwnames);
}
