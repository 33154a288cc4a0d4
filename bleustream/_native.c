/*
 * _native: C kernels for bleustream (BLEU n-gram rows, chrF rows, the 13a
 * and zh tokenizers).  Plain C, Python.h only.
 *
 * Every function returns the same Python objects as the pure-Python
 * function it replaces.  Hashes are only used to find candidates: tokens
 * and n-grams are always compared code point by code point (tokens) or id
 * by id (n-grams of interned tokens / code points), so a hash collision
 * costs time, never a count.
 *
 * Scratch memory lives in an arena owned by each call (see "scratch
 * memory"), so the functions are re-entrant; no Python code runs while
 * scratch memory is live except the allocation of result objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_native_scores.h"
#include "_native_ter.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                       */
/* ------------------------------------------------------------------ */

static inline uint64_t
mix64(uint64_t x)
{
    /* splitmix64 finalizer */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

#define NGRAM_MUL 0x9E3779B97F4A7C15ULL

static int
ensure_ready(PyObject *s)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0)
        return -1;
#else
    (void)s;
#endif
    return 0;
}

/* A token: a run of code points in some PyUnicode kind. */
typedef struct {
    const void *data;
    Py_ssize_t len;
    int kind;
} TokView;

static inline uint64_t
tok_hash(const TokView *t)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    Py_ssize_t i, n = t->len;
    switch (t->kind) {
    case PyUnicode_1BYTE_KIND: {
        const Py_UCS1 *p = (const Py_UCS1 *)t->data;
        for (i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ULL;
        break;
    }
    case PyUnicode_2BYTE_KIND: {
        const Py_UCS2 *p = (const Py_UCS2 *)t->data;
        for (i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ULL;
        break;
    }
    default: {
        const Py_UCS4 *p = (const Py_UCS4 *)t->data;
        for (i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ULL;
        break;
    }
    }
    return mix64(h ^ (uint64_t)n);
}

static inline int
tok_equal(const TokView *a, const TokView *b)
{
    Py_ssize_t i, n = a->len;
    if (n != b->len)
        return 0;
    if (a->kind == b->kind)
        return memcmp(a->data, b->data, (size_t)n * (size_t)a->kind) == 0;
    if (a->kind == PyUnicode_4BYTE_KIND && b->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS4 *p = (const Py_UCS4 *)a->data;
        const Py_UCS1 *q = (const Py_UCS1 *)b->data;
        for (i = 0; i < n; i++)
            if (p[i] != q[i])
                return 0;
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (PyUnicode_READ(a->kind, a->data, i) != PyUnicode_READ(b->kind, b->data, i))
            return 0;
    }
    return 1;
}

static Py_ssize_t
pow2_at_least(Py_ssize_t n)
{
    Py_ssize_t c = 8;
    while (c < n)
        c <<= 1;
    return c;
}

/* ------------------------------------------------------------------ */
/* scratch memory                                                      */
/* ------------------------------------------------------------------ */

/*
 * A bump allocator for a call's scratch memory.  It starts in a buffer the
 * caller provides (on its stack) and takes blocks from the heap, each twice
 * the last, when that is full; everything is freed at once.  A batch
 * resets it per segment and keeps its largest block, so a steady stream of
 * segments allocates nothing.  `arena_mark`/`arena_release` give back what
 * was allocated after a mark.
 *
 * Built with AddressSanitizer, every allocation is its own heap block of
 * exactly the size asked for, so the sanitizer sees each one's bounds.
 */
#if defined(BLEUSTREAM_ARENA_BUMP)
/* the bump allocator even so: tools/asan.sh runs it under the sanitizer too */
#elif defined(__SANITIZE_ADDRESS__)
#define ARENA_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_CHECKED 1
#endif
#endif

typedef struct ArenaBlock {
    struct ArenaBlock *next; /* the block allocated before this one */
    size_t size;             /* usable bytes after the header */
} ArenaBlock;

#define ARENA_ALIGN 16
#define ARENA_HEADER ((sizeof(ArenaBlock) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

typedef struct {
    char *cur;          /* the next free byte */
    size_t left;        /* bytes free from cur */
    ArenaBlock *blocks; /* heap blocks, newest first */
    char *first;        /* the caller's buffer */
    size_t first_size;
} Arena;

typedef struct {
    char *cur;
    size_t left;
    ArenaBlock *blocks;
} ArenaMark;

static void
arena_init(Arena *a, void *buf, size_t size)
{
    /* the buffer, aligned */
    uintptr_t p = (uintptr_t)buf, q = (p + ARENA_ALIGN - 1) & ~(uintptr_t)(ARENA_ALIGN - 1);
    a->first = (char *)q;
    a->first_size = size > (size_t)(q - p) ? size - (size_t)(q - p) : 0;
#ifdef ARENA_CHECKED
    a->first_size = 0;
#endif
    a->cur = a->first;
    a->left = a->first_size;
    a->blocks = NULL;
}

static void
arena_free_until(Arena *a, ArenaBlock *keep)
{
    while (a->blocks != keep) {
        ArenaBlock *b = a->blocks;
        a->blocks = b->next;
        PyMem_RawFree(b);
    }
}

/* n bytes, aligned to ARENA_ALIGN; NULL with MemoryError set. */
static void *
arena_alloc(Arena *a, size_t n)
{
    void *p;
    if (n > ((size_t)PY_SSIZE_T_MAX >> 1)) {
        PyErr_NoMemory();
        return NULL;
    }
    n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (n > a->left) {
        size_t size = n;
        ArenaBlock *b;
#ifndef ARENA_CHECKED
        size_t grow = a->blocks ? 2 * a->blocks->size : 4 * a->first_size + 4096;
        if (size < grow)
            size = grow;
#endif
        b = PyMem_RawMalloc(ARENA_HEADER + (size ? size : 1));
        if (b == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        b->next = a->blocks;
        b->size = size;
        a->blocks = b;
        a->cur = (char *)b + ARENA_HEADER;
        a->left = size;
    }
    p = a->cur;
    a->cur += n;
    a->left -= n;
    return p;
}

#define ARENA_NEW(a, type, count)                                                               \
    ((size_t)(count) > ((size_t)PY_SSIZE_T_MAX >> 1) / sizeof(type)                            \
         ? (PyErr_NoMemory(), (type *)NULL)                                                     \
         : (type *)arena_alloc((a), sizeof(type) * (size_t)(count)))

static ArenaMark
arena_mark(const Arena *a)
{
    ArenaMark m;
    m.cur = a->cur;
    m.left = a->left;
    m.blocks = a->blocks;
    return m;
}

/* Gives back everything allocated since the mark. */
static void
arena_release(Arena *a, ArenaMark m)
{
    arena_free_until(a, m.blocks);
    a->cur = m.cur;
    a->left = m.left;
}

/* Gives back everything, keeping the newest (largest) heap block. */
static void
arena_reset(Arena *a)
{
#ifdef ARENA_CHECKED
    arena_free_until(a, NULL);
#else
    if (a->blocks != NULL) {
        ArenaBlock *newest = a->blocks;
        a->blocks = newest->next;
        arena_free_until(a, NULL);
        newest->next = NULL;
        a->blocks = newest;
        a->cur = (char *)newest + ARENA_HEADER;
        a->left = newest->size;
        return;
    }
#endif
    a->cur = a->first;
    a->left = a->first_size;
}

static void
arena_free(Arena *a)
{
    arena_free_until(a, NULL);
}

/* A call's arena over a buffer on its stack. */
#define ARENA_STACK 16384
#define ARENA_ON_STACK(name)                                                                     \
    union {                                                                                      \
        double d;                                                                                \
        void *p;                                                                                 \
        char b[ARENA_STACK];                                                                     \
    } name##_buf;                                                                                \
    Arena name;                                                                                  \
    arena_init(&name, name##_buf.b, sizeof(name##_buf.b))

/* ------------------------------------------------------------------ */
/* token vocabulary: interns the reference tokens to ids 0..V-1          */
/* ------------------------------------------------------------------ */

typedef struct {
    uint64_t h;
    int32_t id; /* -1: empty */
} VSlot;

typedef struct {
    VSlot *slots;
    Py_ssize_t mask;
    TokView *views; /* by id */
    int32_t size;
} Vocab;

/* A vocabulary for up to max_tokens tokens, in the arena. */
static int
vocab_init(Vocab *v, Arena *a, Py_ssize_t max_tokens)
{
    Py_ssize_t cap, i;
    v->size = 0;
    if (max_tokens > (Py_ssize_t)(INT32_MAX / 4)) {
        PyErr_SetString(PyExc_OverflowError, "too many tokens");
        return -1;
    }
    cap = pow2_at_least(2 * max_tokens + 1);
    v->mask = cap - 1;
    v->slots = ARENA_NEW(a, VSlot, cap);
    v->views = v->slots == NULL ? NULL : ARENA_NEW(a, TokView, max_tokens + 1);
    if (v->views == NULL)
        return -1;
    for (i = 0; i < cap; i++)
        v->slots[i].id = -1;
    return 0;
}

/* The id of token t; inserted if `insert`, else -1 when absent. */
static inline int32_t
vocab_id(Vocab *v, const TokView *t, int insert)
{
    uint64_t h = tok_hash(t);
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)v->mask);
    for (;;) {
        VSlot *s = &v->slots[i];
        if (s->id < 0) {
            if (!insert)
                return -1;
            s->h = h;
            s->id = v->size;
            v->views[v->size] = *t;
            return v->size++;
        }
        if (s->h == h && tok_equal(&v->views[s->id], t))
            return s->id;
        i = (i + 1) & v->mask;
    }
}

/* ------------------------------------------------------------------ */
/* the n-gram engine                                                   */
/* ------------------------------------------------------------------ */

/*
 * For n = 1 .. max_n: out[n-1] = sum over distinct n-grams g of
 * min(count of g in hyp, max over refs of count of g in that ref).
 * An n-gram is a run of n int32 ids; hyp ids < 0 never match.  Stops at
 * the first order with no match (all higher orders are 0 too).
 */
typedef struct {
    uint64_t h;
    int32_t pos; /* index into the flat reference ids */
    int32_t maxc;
    int32_t curc;
    int32_t last; /* reference that curc counts */
    int32_t hypc;
    uint32_t gen; /* occupied at order `gen` */
} NSlot;

static inline int
ids_equal(const int32_t *a, const int32_t *b, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* nids > 0: every id is below nids (unigrams are then counted in arrays) */
static int
clipped_matches(Arena *a, const int32_t *hyp, Py_ssize_t hlen, const int32_t *flat,
                const Py_ssize_t *offs, const Py_ssize_t *rlens, Py_ssize_t nrefs,
                Py_ssize_t max_n, Py_ssize_t *out, Py_ssize_t nids)
{
    ArenaMark mark = arena_mark(a);
    int32_t *uni = NULL;
    Py_ssize_t P = 0, maxr = 0, r, i, n, cap, mask, top;
    uint64_t *hh = NULL, *rh = NULL;
    unsigned char *found = NULL;
    NSlot *tab = NULL;
    int rc = -1;

    for (n = 0; n < max_n; n++)
        out[n] = 0;
    for (r = 0; r < nrefs; r++) {
        P += rlens[r];
        if (rlens[r] > maxr)
            maxr = rlens[r];
    }
    top = max_n;
    if (hlen < top)
        top = hlen;
    if (maxr < top)
        top = maxr;
    if (top <= 0)
        return 0;
    if (P > (Py_ssize_t)(INT32_MAX / 4) || hlen > (Py_ssize_t)INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "segment too long");
        return -1;
    }
    cap = pow2_at_least(2 * P + 1);
    mask = cap - 1;
    if ((hh = ARENA_NEW(a, uint64_t, hlen)) == NULL ||
        (found = ARENA_NEW(a, unsigned char, hlen + 1)) == NULL ||
        (rh = ARENA_NEW(a, uint64_t, P)) == NULL || (tab = ARENA_NEW(a, NSlot, cap)) == NULL)
        goto done;
    memset(tab, 0, (size_t)cap * sizeof(NSlot));
    for (i = 0; i < hlen; i++) {
        found[i] = hyp[i] >= 0;
        hh[i] = (uint64_t)(uint32_t)hyp[i] + 1;
    }
    found[hlen] = 0;
    for (i = 0; i < P; i++)
        rh[i] = (uint64_t)(uint32_t)flat[i] + 1;

    n = 1;
    if (nids > 0) {
        /* unigrams by id: uni[0..nids) the highest count in one reference,
         * uni[nids..2 nids) the count in the current one, then the hypothesis' */
        Py_ssize_t matched = 0;
        int32_t *best, *cur;
        uni = ARENA_NEW(a, int32_t, nids * 2);
        if (uni == NULL)
            goto done;
        memset(uni, 0, (size_t)nids * 2 * sizeof(int32_t));
        best = uni;
        cur = uni + nids;
        for (r = 0; r < nrefs; r++) {
            const int32_t *ids = flat + offs[r];
            for (i = 0; i < rlens[r]; i++)
                cur[ids[i]]++;
            for (i = 0; i < rlens[r]; i++) {
                int32_t id = ids[i];
                if (cur[id] > best[id])
                    best[id] = cur[id];
                cur[id] = 0;
            }
        }
        for (i = 0; i < hlen; i++) {
            int32_t id = hyp[i];
            if (id >= 0 && best[id] > 0) {
                found[i] = 1;
                if (++cur[id] <= best[id])
                    matched++;
            }
            else {
                found[i] = 0;
            }
        }
        out[0] = matched;
        if (!matched)
            goto finished;
        n = 2;
    }
    for (; n <= top; n++) {
        uint32_t gen = (uint32_t)n;
        Py_ssize_t matched = 0, nh;
        if (n > 1) {
            for (r = 0; r < nrefs; r++) {
                uint64_t *h = rh + offs[r];
                const int32_t *ids = flat + offs[r];
                Py_ssize_t cnt = rlens[r] - n + 1;
                for (i = 0; i < cnt; i++)
                    h[i] = h[i] * NGRAM_MUL + (uint64_t)(uint32_t)ids[i + n - 1] + 1;
            }
        }
        /* the references' n-grams: the highest count in any one reference */
        for (r = 0; r < nrefs; r++) {
            const uint64_t *h = rh + offs[r];
            Py_ssize_t cnt = rlens[r] - n + 1, base = offs[r];
            for (i = 0; i < cnt; i++) {
                uint64_t hv = h[i];
                Py_ssize_t k = (Py_ssize_t)(mix64(hv) & (uint64_t)mask);
                for (;;) {
                    NSlot *s = &tab[k];
                    if (s->gen != gen) {
                        s->gen = gen;
                        s->h = hv;
                        s->pos = (int32_t)(base + i);
                        s->maxc = 1;
                        s->curc = 1;
                        s->last = (int32_t)r;
                        s->hypc = 0;
                        break;
                    }
                    if (s->h == hv && ids_equal(flat + s->pos, flat + base + i, n)) {
                        if (s->last != (int32_t)r) {
                            s->last = (int32_t)r;
                            s->curc = 0;
                        }
                        s->curc++;
                        if (s->curc > s->maxc)
                            s->maxc = s->curc;
                        break;
                    }
                    k = (k + 1) & mask;
                }
            }
        }
        /* the hypothesis: an n-gram can only be in a reference if both of
         * its (n-1)-grams are */
        nh = hlen - n + 1;
        for (i = 0; i < nh; i++) {
            int cand = (n == 1) ? found[i] : (found[i] && found[i + 1]);
            int hit = 0;
            if (cand) {
                uint64_t hv;
                Py_ssize_t k;
                if (n > 1)
                    hh[i] = hh[i] * NGRAM_MUL + (uint64_t)(uint32_t)hyp[i + n - 1] + 1;
                hv = hh[i];
                k = (Py_ssize_t)(mix64(hv) & (uint64_t)mask);
                for (;;) {
                    NSlot *s = &tab[k];
                    if (s->gen != gen)
                        break;
                    if (s->h == hv && ids_equal(flat + s->pos, hyp + i, n)) {
                        hit = 1;
                        s->hypc++;
                        if (s->hypc <= s->maxc)
                            matched++;
                        break;
                    }
                    k = (k + 1) & mask;
                }
            }
            found[i] = (unsigned char)hit;
        }
        found[nh] = 0;
        out[n - 1] = matched;
        if (!matched)
            break;
    }
finished:
    rc = 0;
done:
    arena_release(a, mark);
    return rc;
}

/* ------------------------------------------------------------------ */
/* 13a / zh tokenization on a UCS4 buffer                              */
/* ------------------------------------------------------------------ */

typedef struct {
    Py_ssize_t start, len;
} Span;

typedef struct {
    Span *v;
    Py_ssize_t n, cap;
} SpanVec;

/* Room for `more` spans beyond those held, in the arena. */
static int
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

static inline int
spans_push(Arena *a, SpanVec *s, Py_ssize_t start, Py_ssize_t len)
{
    if (s->n == s->cap && spans_reserve(a, s, 1) < 0)
        return -1;
    s->v[s->n].start = start;
    s->v[s->n].len = len;
    s->n++;
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

/* SacreBLEU's rule-1 class [\{-\~\[-\` -\&\(-\+\:-\@\/] */
static inline int
is_rule1(Py_UCS4 c)
{
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
           (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
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

/* per ASCII character: its class (bits 0-1), C_BREAK and C_SPACE */
static unsigned char ascii_tab[128];
static int ascii_tab_done = 0;

static int cls_of(Py_UCS4 c);

static void
init_ascii_tab(void)
{
    Py_UCS4 c;
    if (ascii_tab_done)
        return;
    for (c = 0; c < 128; c++)
        ascii_tab[c] = (unsigned char)(cls_of(c) | (is_rule1(c) ? C_BREAK : 0) |
                                       (Py_UNICODE_ISSPACE(c) ? C_SPACE : 0));
    ascii_tab_done = 1;
}

static int
cls_of(Py_UCS4 c)
{
    if (c >= '0' && c <= '9')
        return C_DIGIT;
    if (c == '.' || c == ',')
        return C_PUNCT;
    if (c == '-')
        return C_DASH;
    return C_OTHER;
}

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
 * The tokens of SacreBLEU's _post_tokenizer (rules 1-4, then split) on
 * b[0..n), with zh characters split off first if `zh`.  Tokens go to out
 * as spans of b.
 */
static int
mteval_spans(Arena *a, const Py_UCS4 *b, Py_ssize_t n, int zh, SpanVec *out)
{
    unsigned char *x = NULL, *cl;
    Py_ssize_t i, start, *punct = NULL, *dash, *hits, npunct = 0, ndash = 0;
    int any_digit = 0, rc = -1;
    ArenaMark mark;

    init_ascii_tab();

    /* a token has at least one character: room for them all before the
     * scratch, which is given back at the end */
    if (spans_reserve(a, out, n + 1) < 0)
        return -1;
    mark = arena_mark(a);
    if ((x = ARENA_NEW(a, unsigned char, 2 * n + 3)) == NULL ||
        (punct = ARENA_NEW(a, Py_ssize_t, 3 * n + 3)) == NULL)
        goto done;
    dash = punct + n + 1;
    hits = dash + n + 1;
    cl = x + (n + 2); /* cl[-1] .. cl[n] */
    memset(x, 0, 2 * (size_t)n + 3);
    for (i = 0; i < n; i++) {
        Py_UCS4 c = b[i];
        unsigned char k;
        if (c < 128) {
            k = ascii_tab[c];
            if (k & 3) {
                if ((k & 3) == C_PUNCT)
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
        }
        cl[i] = k;
    }
    if (npunct) {
        rule_pass(2, cl, x, n, punct, npunct, hits);
        rule_pass(3, cl, x, n, punct, npunct, hits);
    }
    if (ndash && any_digit)
        rule_pass(4, cl, x, n, dash, ndash, hits);
    start = -1;
    for (i = 0; i < n; i++) {
        unsigned char k = cl[i];
        if (k & C_SPACE) {
            if (start >= 0)
                SPAN_PUT(out, start, i - start);
            start = -1;
            continue;
        }
        if (start >= 0 && (x[i] || ((cl[i - 1] | k) & C_BREAK))) {
            SPAN_PUT(out, start, i - start);
            start = -1;
        }
        if (start < 0)
            start = i;
    }
    if (start >= 0)
        SPAN_PUT(out, start, n - start);
    rc = 0;
done:
    arena_release(a, mark);
    return rc;
}

/* A copy of the first n characters of the str (n at most its length) as
 * UCS4 in the arena, with `pad` spare cells at each end. */
static Py_UCS4 *
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

enum { TOK_13A = 0, TOK_ZH = 1 };

/*
 * Tokenizes the first n characters of `line` as tokenize_13a / tokenize_zh.
 * On success *bufp holds the buffer the spans index and spans the tokens,
 * both in the arena.
 */
static int
tokenize_spans(Arena *a, PyObject *line, Py_ssize_t n, int which, Py_UCS4 **bufp,
               SpanVec *spans)
{
    Py_UCS4 *buf = to_ucs4(a, line, n, 1), *t;
    *bufp = NULL;
    if (buf == NULL)
        return -1;
    t = buf + 1;
    if (which == TOK_13A) {
        /* memchr-fast searches of the str (-2: an error) */
        Py_ssize_t lt = PyUnicode_FindChar(line, '<', 0, n, 1);
        Py_ssize_t nl = lt == -2 ? -2 : PyUnicode_FindChar(line, '\n', 0, n, 1);
        Py_ssize_t amp = nl == -2 ? -2 : PyUnicode_FindChar(line, '&', 0, n, 1);
        if (amp == -2)
            return -1;
        lt = lt >= 0;
        nl = nl >= 0;
        amp = amp >= 0;
        if (lt)
            n = replace_inplace(t, n, "<skipped>", 9, -1);
        if (nl && has_char(t, n, '\n')) {
            n = replace_inplace(t, n, "-\n", 2, -1);
            n = replace_inplace(t, n, "\n", 1, ' ');
        }
        if (amp) {
            n = replace_inplace(t, n, "&quot;", 6, '"');
            n = replace_inplace(t, n, "&amp;", 5, '&');
            n = replace_inplace(t, n, "&lt;", 4, '<');
            n = replace_inplace(t, n, "&gt;", 4, '>');
        }
        /* 13a pads the line with a space at each end */
        buf[0] = ' ';
        buf[n + 1] = ' ';
        if (mteval_spans(a, buf, n + 2, 0, spans) < 0)
            return -1;
    }
    else {
        /* zh: line.strip(), no padding */
        Py_ssize_t lo = 0, z = n;
        while (lo < z && Py_UNICODE_ISSPACE(t[lo]))
            lo++;
        while (z > lo && Py_UNICODE_ISSPACE(t[z - 1]))
            z--;
        if (mteval_spans(a, t + lo, z - lo, 1, spans) < 0)
            return -1;
        {
            Py_ssize_t k, shift = 1 + lo;
            for (k = 0; k < spans->n; k++)
                spans->v[k].start += shift;
        }
    }
    *bufp = buf;
    return 0;
}

static PyObject *
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
/* argument parsing (METH_FASTCALL | METH_KEYWORDS)                     */
/* ------------------------------------------------------------------ */

static int
parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
           const char *const *names, Py_ssize_t nparams, PyObject **out)
{
    Py_ssize_t i, k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs > nparams) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given",
                     fname, nparams, nargs);
        return -1;
    }
    for (i = 0; i < nparams; i++)
        out[i] = i < nargs ? args[i] : NULL;
    for (k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        for (i = 0; i < nparams; i++)
            if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
                break;
        if (i == nparams) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (i = 0; i < nparams; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                         names[i]);
            return -1;
        }
    }
    return 0;
}

static int
check_str(PyObject *o, const char *what)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    return ensure_ready(o);
}

/* ------------------------------------------------------------------ */
/* tokenize_13a / tokenize_zh                                          */
/* ------------------------------------------------------------------ */

static PyObject *
tokenize_common(PyObject *line, int which)
{
    Py_UCS4 *buf;
    SpanVec spans = {NULL, 0, 0};
    PyObject *res = NULL;
    if (check_str(line, "line") < 0)
        return NULL;
    {
        ARENA_ON_STACK(arena);
        if (tokenize_spans(&arena, line, PyUnicode_GET_LENGTH(line), which, &buf, &spans) == 0)
            res = spans_to_list(buf, &spans);
        arena_free(&arena);
    }
    return res;
}

static PyObject *
py_tokenize_13a(PyObject *self, PyObject *line)
{
    (void)self;
    return tokenize_common(line, TOK_13A);
}

static PyObject *
py_tokenize_zh(PyObject *self, PyObject *line)
{
    (void)self;
    return tokenize_common(line, TOK_ZH);
}

/* ------------------------------------------------------------------ */
/* BLEU: hyp_row                                                       */
/* ------------------------------------------------------------------ */

/* The references of a RefNgrams, as token views. */
typedef struct {
    PyObject *refs_fast;   /* PySequence_Fast of refs.refs */
    PyObject **ref_fast;   /* per used reference: PySequence_Fast of its tokens */
    Py_ssize_t nrefs;      /* references used */
    Py_ssize_t cap;        /* orders cap (len(orders)) or -1 */
    PyObject *lens;        /* refs.lens (borrowed) */
    int single;
} RefsIn;

static void
refs_release(RefsIn *r)
{
    Py_ssize_t k;
    if (r->ref_fast) {
        for (k = 0; k < r->nrefs; k++)
            Py_XDECREF(r->ref_fast[k]);
        PyMem_Free(r->ref_fast);
    }
    Py_XDECREF(r->refs_fast);
    r->ref_fast = NULL;
    r->refs_fast = NULL;
}

static int
refs_acquire(PyObject *refs, RefsIn *r)
{
    PyObject *orders;
    Py_ssize_t k;
    memset(r, 0, sizeof(*r));
    if (!PyTuple_Check(refs) || PyTuple_GET_SIZE(refs) < 3) {
        PyErr_SetString(PyExc_TypeError, "refs must be a RefNgrams (lens, refs, orders)");
        return -1;
    }
    r->lens = PyTuple_GET_ITEM(refs, 0);
    orders = PyTuple_GET_ITEM(refs, 2);
    r->refs_fast = PySequence_Fast(PyTuple_GET_ITEM(refs, 1), "RefNgrams.refs must be a sequence");
    if (r->refs_fast == NULL)
        return -1;
    r->single = orders == Py_None;
    if (r->single) {
        if (PySequence_Fast_GET_SIZE(r->refs_fast) < 1) {
            PyErr_SetString(PyExc_IndexError, "RefNgrams.refs is empty");
            goto fail;
        }
        r->nrefs = 1;
        r->cap = -1;
    }
    else {
        r->nrefs = PySequence_Fast_GET_SIZE(r->refs_fast);
        r->cap = PyObject_Length(orders);
        if (r->cap < 0)
            goto fail;
    }
    r->ref_fast = PyMem_Calloc((size_t)r->nrefs + 1, sizeof(PyObject *));
    if (r->ref_fast == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (k = 0; k < r->nrefs; k++) {
        PyObject *f = PySequence_Fast(PySequence_Fast_GET_ITEM(r->refs_fast, k),
                                      "a reference must be a list of str");
        Py_ssize_t j, m;
        if (f == NULL)
            goto fail;
        r->ref_fast[k] = f;
        m = PySequence_Fast_GET_SIZE(f);
        for (j = 0; j < m; j++)
            if (check_str(PySequence_Fast_GET_ITEM(f, j), "a reference token") < 0)
                goto fail;
    }
    return 0;
fail:
    refs_release(r);
    return -1;
}

/* min(lens, key=lambda r: (abs(hyp_len - r), r)) */
static int
closest_len(PyObject *lens, Py_ssize_t hyp_len, Py_ssize_t *res)
{
    PyObject *f = PySequence_Fast(lens, "RefNgrams.lens must be a sequence");
    Py_ssize_t k, m, best = 0, bestd = 0;
    if (f == NULL)
        return -1;
    m = PySequence_Fast_GET_SIZE(f);
    if (m == 0) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "min() arg is an empty sequence");
        return -1;
    }
    for (k = 0; k < m; k++) {
        Py_ssize_t v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(f, k)), d;
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
        d = hyp_len > v ? hyp_len - v : v - hyp_len;
        if (k == 0 || d < bestd || (d == bestd && v < best)) {
            best = v;
            bestd = d;
        }
    }
    Py_DECREF(f);
    *res = best;
    return 0;
}

static PyObject *
bleu_row_tuple(Py_ssize_t hyp_len, Py_ssize_t ref_len, const Py_ssize_t *matches,
               Py_ssize_t N)
{
    Py_ssize_t k;
    PyObject *t = PyTuple_New(2 + 2 * N), *v;
    if (t == NULL)
        return NULL;
#define PUT(idx, val)                                                                            \
    do {                                                                                         \
        v = PyLong_FromSsize_t(val);                                                             \
        if (v == NULL) {                                                                         \
            Py_DECREF(t);                                                                        \
            return NULL;                                                                         \
        }                                                                                        \
        PyTuple_SET_ITEM(t, (idx), v);                                                           \
    } while (0)
    PUT(0, hyp_len);
    PUT(1, ref_len);
    for (k = 0; k < N; k++)
        PUT(2 + k, matches[k]);
    for (k = 0; k < N; k++)
        PUT(2 + N + k, hyp_len > k ? hyp_len - k : 0);
#undef PUT
    return t;
}

/*
 * The row of hypothesis tokens `hv[0..hlen)` against prepared refs.
 */
static PyObject *
bleu_row_views(Arena *a, const TokView *hv, Py_ssize_t hlen, PyObject *refs,
               Py_ssize_t max_order)
{
    RefsIn r;
    Vocab voc;
    Py_ssize_t N = max_order > 0 ? max_order : 0, total = 0, k, j, ref_len, top;
    int32_t *hyp_ids = NULL, *flat = NULL;
    Py_ssize_t *offs = NULL, *rlens = NULL, *matches = NULL;
    PyObject *res = NULL;

    if (refs_acquire(refs, &r) < 0)
        return NULL;
    for (k = 0; k < r.nrefs; k++)
        total += PySequence_Fast_GET_SIZE(r.ref_fast[k]);
    if (r.single) {
        ref_len = PySequence_Fast_GET_SIZE(r.ref_fast[0]);
    }
    else if (closest_len(r.lens, hlen, &ref_len) < 0) {
        goto done;
    }
    top = N;
    if (r.cap >= 0 && r.cap < top)
        top = r.cap;
    if ((matches = ARENA_NEW(a, Py_ssize_t, N + 1)) == NULL ||
        (offs = ARENA_NEW(a, Py_ssize_t, r.nrefs + 1)) == NULL ||
        (rlens = ARENA_NEW(a, Py_ssize_t, r.nrefs + 1)) == NULL ||
        (hyp_ids = ARENA_NEW(a, int32_t, hlen + 1)) == NULL ||
        (flat = ARENA_NEW(a, int32_t, total + 1)) == NULL)
        goto done;
    memset(matches, 0, (size_t)(N + 1) * sizeof(Py_ssize_t));
    if (top > 0 && hlen > 0 && total > 0) {
        Py_ssize_t pos = 0;
        if (vocab_init(&voc, a, total) < 0)
            goto done;
        for (k = 0; k < r.nrefs; k++) {
            PyObject *f = r.ref_fast[k];
            Py_ssize_t m = PySequence_Fast_GET_SIZE(f);
            offs[k] = pos;
            rlens[k] = m;
            for (j = 0; j < m; j++) {
                PyObject *s = PySequence_Fast_GET_ITEM(f, j);
                TokView tv;
                tv.data = PyUnicode_DATA(s);
                tv.len = PyUnicode_GET_LENGTH(s);
                tv.kind = PyUnicode_KIND(s);
                flat[pos++] = vocab_id(&voc, &tv, 1);
            }
        }
        for (j = 0; j < hlen; j++)
            hyp_ids[j] = vocab_id(&voc, &hv[j], 0);
        if (clipped_matches(a, hyp_ids, hlen, flat, offs, rlens, r.nrefs, top, matches,
                            voc.size) < 0)
            goto done;
    }
    res = bleu_row_tuple(hlen, ref_len, matches, N);
done:
    refs_release(&r);
    return res;
}

static PyObject *
py_hyp_row(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"hyp", "refs", "max_order"};
    PyObject *a[3], *hf, *res = NULL;
    Py_ssize_t max_order, hlen, j;
    TokView *hv = NULL;
    (void)self;
    if (parse_args("hyp_row", args, nargs, kwnames, names, 3, a) < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    hf = PySequence_Fast(a[0], "hyp must be a list of str");
    if (hf == NULL)
        return NULL;
    hlen = PySequence_Fast_GET_SIZE(hf);
    ARENA_ON_STACK(arena);
    if ((hv = ARENA_NEW(&arena, TokView, hlen + 1)) == NULL)
        goto done;
    for (j = 0; j < hlen; j++) {
        PyObject *s = PySequence_Fast_GET_ITEM(hf, j);
        if (check_str(s, "a hypothesis token") < 0)
            goto done;
        hv[j].data = PyUnicode_DATA(s);
        hv[j].len = PyUnicode_GET_LENGTH(s);
        hv[j].kind = PyUnicode_KIND(s);
    }
    res = bleu_row_views(&arena, hv, hlen, a[1], max_order);
done:
    arena_free(&arena);
    Py_DECREF(hf);
    return res;
}

static PyObject *
hyp_row_tok(const char *fname, int which, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames)
{
    static const char *const names[] = {"line", "refs", "max_order"};
    PyObject *a[3], *res = NULL;
    Py_ssize_t max_order, j;
    Py_UCS4 *buf = NULL;
    SpanVec spans = {NULL, 0, 0};
    TokView *hv = NULL;
    if (parse_args(fname, args, nargs, kwnames, names, 3, a) < 0)
        return NULL;
    if (check_str(a[0], "line") < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    ARENA_ON_STACK(arena);
    if (tokenize_spans(&arena, a[0], PyUnicode_GET_LENGTH(a[0]), which, &buf, &spans) < 0)
        goto done;
    if ((hv = ARENA_NEW(&arena, TokView, spans.n + 1)) == NULL)
        goto done;
    for (j = 0; j < spans.n; j++) {
        hv[j].data = buf + spans.v[j].start;
        hv[j].len = spans.v[j].len;
        hv[j].kind = PyUnicode_4BYTE_KIND;
    }
    res = bleu_row_views(&arena, hv, spans.n, a[1], max_order);
done:
    arena_free(&arena);
    return res;
}

static PyObject *
py_hyp_row_13a(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return hyp_row_tok("hyp_row_13a", TOK_13A, args, nargs, kwnames);
}

static PyObject *
py_hyp_row_zh(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return hyp_row_tok("hyp_row_zh", TOK_ZH, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ */
/* BLEU: the summed rows of a batch of raw lines                       */
/* ------------------------------------------------------------------ */

/* One line, right-stripped (str.rstrip()) and tokenized, as spans of the
 * buffer `*bufp`, both in the arena. */
static int
line_views(Arena *a, PyObject *line, int which, Py_UCS4 **bufp, SpanVec *spans)
{
    Py_ssize_t n;
    int kind;
    const void *data;
    if (check_str(line, "a line") < 0)
        return -1;
    n = PyUnicode_GET_LENGTH(line);
    kind = PyUnicode_KIND(line);
    data = PyUnicode_DATA(line);
    while (n > 0 && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)))
        n--;
    return tokenize_spans(a, line, n, which, bufp, spans);
}

/*
 * sum over segments i of hyp_row(tokenize(hyps[i].rstrip()),
 * reference_ngrams([tokenize(r.rstrip()) for r in refs[i]]), max_order),
 * added into `sums` (2 + 2 N Py_ssize_t).
 */
static int
bleu_add_segment(Arena *a, PyObject *hyp, PyObject *seg_refs, int which, Py_ssize_t N,
                 Py_ssize_t *sums)
{
    PyObject *rf = NULL;
    Py_UCS4 *hbuf = NULL, **rbufs = NULL;
    SpanVec hs = {NULL, 0, 0}, *rs = NULL;
    Py_ssize_t nrefs = 0, k, j, total = 0, pos = 0, ref_len = 0, bestd = 0, maxr = 0;
    Py_ssize_t *offs = NULL, *rlens = NULL, *matches = NULL;
    int32_t *hyp_ids = NULL, *flat = NULL;
    Vocab voc;
    int rc = -1;

    rf = PySequence_Fast(seg_refs, "a segment's references must be a sequence of str");
    if (rf == NULL)
        return -1;
    nrefs = PySequence_Fast_GET_SIZE(rf);
    if (nrefs < 1) {
        PyErr_SetString(PyExc_ValueError, "a segment needs at least one reference");
        goto done;
    }
    if ((rbufs = ARENA_NEW(a, Py_UCS4 *, nrefs)) == NULL ||
        (rs = ARENA_NEW(a, SpanVec, nrefs)) == NULL ||
        (offs = ARENA_NEW(a, Py_ssize_t, nrefs)) == NULL ||
        (rlens = ARENA_NEW(a, Py_ssize_t, nrefs)) == NULL ||
        (matches = ARENA_NEW(a, Py_ssize_t, N + 1)) == NULL)
        goto done;
    memset(rs, 0, (size_t)nrefs * sizeof(SpanVec));
    memset(matches, 0, (size_t)(N + 1) * sizeof(Py_ssize_t));
    for (k = 0; k < nrefs; k++) {
        if (line_views(a, PySequence_Fast_GET_ITEM(rf, k), which, &rbufs[k], &rs[k]) < 0)
            goto done;
        rlens[k] = rs[k].n;
        offs[k] = total;
        total += rs[k].n;
        if (rs[k].n > maxr)
            maxr = rs[k].n;
    }
    if (line_views(a, hyp, which, &hbuf, &hs) < 0)
        goto done;
    /* min(lens, key=lambda r: (abs(hyp_len - r), r)) */
    for (k = 0; k < nrefs; k++) {
        Py_ssize_t v = rlens[k], d = hs.n > v ? hs.n - v : v - hs.n;
        if (k == 0 || d < bestd || (d == bestd && v < ref_len)) {
            ref_len = v;
            bestd = d;
        }
    }
    if (N > 0 && hs.n > 0 && total > 0) {
        TokView tv;
        tv.kind = PyUnicode_4BYTE_KIND;
        if ((hyp_ids = ARENA_NEW(a, int32_t, hs.n + 1)) == NULL ||
            (flat = ARENA_NEW(a, int32_t, total + 1)) == NULL || vocab_init(&voc, a, total) < 0)
            goto done;
        for (k = 0; k < nrefs; k++) {
            for (j = 0; j < rs[k].n; j++) {
                tv.data = rbufs[k] + rs[k].v[j].start;
                tv.len = rs[k].v[j].len;
                flat[pos++] = vocab_id(&voc, &tv, 1);
            }
        }
        for (j = 0; j < hs.n; j++) {
            tv.data = hbuf + hs.v[j].start;
            tv.len = hs.v[j].len;
            hyp_ids[j] = vocab_id(&voc, &tv, 0);
        }
        if (clipped_matches(a, hyp_ids, hs.n, flat, offs, rlens, nrefs, N, matches, voc.size) <
            0)
            goto done;
    }
    sums[0] += hs.n;
    sums[1] += ref_len;
    for (k = 0; k < N; k++) {
        sums[2 + k] += matches[k];
        sums[2 + N + k] += hs.n > k ? hs.n - k : 0;
    }
    rc = 0;
done:
    Py_DECREF(rf);
    return rc;
}

static PyObject *
sums_tuple(const Py_ssize_t *sums, Py_ssize_t size)
{
    Py_ssize_t k;
    PyObject *res = PyTuple_New(size);
    if (res == NULL)
        return NULL;
    for (k = 0; k < size; k++) {
        PyObject *v = PyLong_FromSsize_t(sums[k]);
        if (v == NULL) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, k, v);
    }
    /* Whole numbers only, so never in a cycle: the collector need not
     * visit it (it would untrack it at its first pass anyway). */
    PyObject_GC_UnTrack(res);
    return res;
}

/* The summed row of a batch (`rows` 0), or the list of its rows. */
static PyObject *
bleu_lines_tok(const char *fname, int which, int rows, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    static const char *const names[] = {"hyps", "refs", "max_order"};
    PyObject *a[3], *hf = NULL, *rf = NULL, *res = NULL, *list = NULL;
    Py_ssize_t max_order, N, i, n;
    Py_ssize_t *sums = NULL;
    ARENA_ON_STACK(arena);
    if (parse_args(fname, args, nargs, kwnames, names, 3, a) < 0)
        return NULL;
    max_order = PyNumber_AsSsize_t(a[2], PyExc_OverflowError);
    if (max_order == -1 && PyErr_Occurred())
        return NULL;
    N = max_order > 0 ? max_order : 0;
    if (N > 1024) {
        PyErr_SetString(PyExc_ValueError, "max_order is too large");
        return NULL;
    }
    hf = PySequence_Fast(a[0], "hyps must be a sequence of str");
    if (hf == NULL)
        return NULL;
    rf = PySequence_Fast(a[1], "refs must be a sequence of sequences of str");
    if (rf == NULL)
        goto done;
    n = PySequence_Fast_GET_SIZE(hf);
    if (PySequence_Fast_GET_SIZE(rf) != n) {
        PyErr_SetString(PyExc_ValueError, "hyps and refs must have the same length");
        goto done;
    }
    sums = PyMem_Calloc((size_t)(2 + 2 * N), sizeof(Py_ssize_t));
    if (sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (rows && (list = PyList_New(n)) == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        int rc;
        if (rows)
            memset(sums, 0, (size_t)(2 + 2 * N) * sizeof(Py_ssize_t));
        rc = bleu_add_segment(&arena, PySequence_Fast_GET_ITEM(hf, i),
                              PySequence_Fast_GET_ITEM(rf, i), which, N, sums);
        arena_reset(&arena);
        if (rc < 0)
            goto done;
        if (rows) {
            PyObject *row = sums_tuple(sums, 2 + 2 * N);
            if (row == NULL)
                goto done;
            PyList_SET_ITEM(list, i, row);
        }
    }
    if (rows) {
        res = list;
        list = NULL;
    }
    else {
        res = sums_tuple(sums, 2 + 2 * N);
    }
done:
    arena_free(&arena);
    Py_XDECREF(list);
    PyMem_Free(sums);
    Py_XDECREF(rf);
    Py_DECREF(hf);
    return res;
}

static PyObject *
py_bleu_sum_13a(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return bleu_lines_tok("bleu_sum_13a", TOK_13A, 0, args, nargs, kwnames);
}

static PyObject *
py_bleu_sum_zh(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return bleu_lines_tok("bleu_sum_zh", TOK_ZH, 0, args, nargs, kwnames);
}

static PyObject *
py_bleu_rows_13a(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return bleu_lines_tok("bleu_rows_13a", TOK_13A, 1, args, nargs, kwnames);
}

static PyObject *
py_bleu_rows_zh(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    return bleu_lines_tok("bleu_rows_zh", TOK_ZH, 1, args, nargs, kwnames);
}

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

static PyObject *
py_chrf_ref_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"hyp", "refs", "char_order", "word_order", "whitespace"};
    PyObject *a[5], *rf = NULL, *out = NULL;
    Py_ssize_t char_order, word_order, nrefs, k, j, NW, maxo;
    int whitespace;
    ChrfSide hyp, *rs = NULL;
    Py_ssize_t *m = NULL;
    int32_t *hyp_wids = NULL, **ref_wids = NULL;
    Vocab voc;
    (void)self;
    ARENA_ON_STACK(arena);

    memset(&hyp, 0, sizeof(hyp));
    if (parse_args("chrf_ref_rows", args, nargs, kwnames, names, 5, a) < 0)
        return NULL;
    if (check_str(a[0], "hyp") < 0)
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
        if (check_str(PySequence_Fast_GET_ITEM(rf, k), "a reference") < 0)
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

static PyObject *
py_split_words(PyObject *self, PyObject *line)
{
    Py_UCS4 *buf;
    Py_ssize_t n;
    SpanVec spans = {NULL, 0, 0};
    PyObject *res = NULL;
    (void)self;
    if (check_str(line, "line") < 0)
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

/* ------------------------------------------------------------------ */
/* newlines: where the blocks of -j start                              */
/* ------------------------------------------------------------------ */

/* past_newlines(buffer, pos, count) -> (offset, found): blocks.past_newlines */
static PyObject *
py_past_newlines(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t pos, count, found = 0;
    const char *base, *p, *end;
    PyObject *res;
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "past_newlines() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    pos = PyNumber_AsSsize_t(args[1], PyExc_OverflowError);
    if (pos == -1 && PyErr_Occurred())
        return NULL;
    count = PyNumber_AsSsize_t(args[2], PyExc_OverflowError);
    if (count == -1 && PyErr_Occurred())
        return NULL;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (pos < 0 || pos > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "pos is outside the buffer");
        return NULL;
    }
    base = (const char *)view.buf;
    p = base + pos;
    end = base + view.len;
    while (found < count && p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (q == NULL)
            break;
        p = q + 1;
        found++;
    }
    res = Py_BuildValue("(nn)", (Py_ssize_t)(p - base), found);
    PyBuffer_Release(&view);
    return res;
}

/* ------------------------------------------------------------------ */
/* module                                                              */
/* ------------------------------------------------------------------ */

static PyMethodDef native_methods[] = {
    {"tokenize_13a", (PyCFunction)py_tokenize_13a, METH_O,
     "tokenize_13a(line) -> list[str]: bleustream's tokenize_13a."},
    {"tokenize_zh", (PyCFunction)py_tokenize_zh, METH_O,
     "tokenize_zh(line) -> list[str]: bleustream's tokenize_zh."},
    {"hyp_row", (PyCFunction)(void (*)(void))py_hyp_row, METH_FASTCALL | METH_KEYWORDS,
     "hyp_row(hyp, refs, max_order) -> tuple[int, ...]: ngrams.hyp_row."},
    {"hyp_row_13a", (PyCFunction)(void (*)(void))py_hyp_row_13a, METH_FASTCALL | METH_KEYWORDS,
     "hyp_row_13a(line, refs, max_order): hyp_row(tokenize_13a(line), refs, max_order)."},
    {"hyp_row_zh", (PyCFunction)(void (*)(void))py_hyp_row_zh, METH_FASTCALL | METH_KEYWORDS,
     "hyp_row_zh(line, refs, max_order): hyp_row(tokenize_zh(line), refs, max_order)."},
    {"bleu_sum_13a", (PyCFunction)(void (*)(void))py_bleu_sum_13a, METH_FASTCALL | METH_KEYWORDS,
     "bleu_sum_13a(hyps, refs, max_order) -> tuple[int, ...]: the sum of the BLEU rows of "
     "raw lines, right-stripped and 13a-tokenized (bleu.sum_rows_of_lines)."},
    {"bleu_sum_zh", (PyCFunction)(void (*)(void))py_bleu_sum_zh, METH_FASTCALL | METH_KEYWORDS,
     "bleu_sum_zh(hyps, refs, max_order) -> tuple[int, ...]: bleu_sum_13a with the zh "
     "tokenizer."},
    {"bleu_rows_13a", (PyCFunction)(void (*)(void))py_bleu_rows_13a,
     METH_FASTCALL | METH_KEYWORDS,
     "bleu_rows_13a(hyps, refs, max_order) -> list[tuple[int, ...]]: each segment's row of "
     "bleu_sum_13a (bleu.count_lines)."},
    {"bleu_rows_zh", (PyCFunction)(void (*)(void))py_bleu_rows_zh, METH_FASTCALL | METH_KEYWORDS,
     "bleu_rows_zh(hyps, refs, max_order) -> list[tuple[int, ...]]: bleu_rows_13a with the zh "
     "tokenizer."},
    {"chrf_ref_rows", (PyCFunction)(void (*)(void))py_chrf_ref_rows,
     METH_FASTCALL | METH_KEYWORDS,
     "chrf_ref_rows(hyp, refs, char_order, word_order, whitespace) -> tuple of rows, one per "
     "reference: chrF's (hyp, ref, match) triplets, characters then words."},
    {"split_words", (PyCFunction)py_split_words, METH_O,
     "split_words(line) -> list[str]: chrf.split_words."},
    {"past_newlines", (PyCFunction)(void (*)(void))py_past_newlines, METH_FASTCALL,
     "past_newlines(buffer, pos, count) -> (offset, found): blocks.past_newlines."},
    {"bleu_scores", (PyCFunction)(void (*)(void))bs_bleu_scores, METH_FASTCALL | METH_KEYWORDS,
     "bleu_scores(rows, max_order, smooth, smooth_value, effective_order, cls, signature, "
     "fallback) -> list: each row's BLEU score object (bleu.score_objects)."},
    {"ter_edits", (PyCFunction)(void (*)(void))bs_ter_edits, METH_FASTCALL,
     "ter_edits(words_hyp, ref[, max_exact_cells]) -> int: tercom.translation_edit_rate."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "C kernels for bleustream.", -1, native_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    return PyModule_Create(&native_module);
}
