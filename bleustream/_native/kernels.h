/*
 * kernels.h: what the C kernels of bleustream._native._kernels share.
 * Plain C99, Python.h only.  One file a concept:
 *
 *   module.c      the module: its functions, state and multi-phase init
 *   args.c        argument parsing (every function is METH_FASTCALL)
 *   arena.c       scratch memory: a call's bump allocator
 *   ngrams.c      the n-gram engine (clipped matches of interned ids)
 *   tokenize.c    the 13a and zh tokenizers (SacreBLEU's mteval rules)
 *   bleu_rows.c   BLEU rows of tokens, and of one tokenized line
 *   bleu_lines.c  BLEU rows and sums of whole batches of raw lines
 *   line_blocks.c blocks of UTF-8 lines, each line decoded here; paste
 *                 lines cut into a block per field
 *   bleu_blocks.c BLEU sums of such blocks
 *   chrf.c        chrF rows and chrF++ words
 *   chrf_scores.c chrF's f-score and sentence chrF score objects from rows
 *   chrf_blocks.c chrF sums of blocks of UTF-8 lines (line_blocks.c)
 *   newlines.c    line search: where the blocks of -j start
 *   scores.c      sentence-BLEU score objects from rows
 *   ter.c         TER's number of edits
 *   token_bleu.c  BLEU rows of token-ID buffers, counted without the GIL
 *   id_ngrams.c   clipped n-gram matches of 64-bit integer ids (token_bleu's)
 *   analysis.c    one segment's word and matched n-gram counts for --analyze
 *
 * Every function a module exposes is `bs_<its Python name>`, with the
 * METH_FASTCALL | METH_KEYWORDS signature (BS_FASTCALL), and reads its
 * arguments with bs_parse_args.  Every function returns the same Python
 * objects as the pure-Python function it replaces.  Hashes only find
 * candidates: tokens and n-grams are always compared code point by code
 * point or id by id, so a hash collision costs time, never a count.
 *
 * Scratch memory lives in an arena owned by each call, so the functions
 * are re-entrant; no Python code runs while scratch memory is live except
 * the allocation of result objects.  The module keeps no Python object in
 * a C global: what it caches is in its module state (BsState).
 */
#ifndef BLEUSTREAM_KERNELS_H
#define BLEUSTREAM_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Functions shared between the files: not exported from the extension. */
#if defined(__GNUC__) || defined(__clang__)
#define BS_INTERNAL __attribute__((visibility("hidden")))
#else
#define BS_INTERNAL
#endif

/* BS_SETTLED(x): x is computed as a value before it is branched on, where
 * the compiler would otherwise branch on each of its parts (a branch that
 * waits on a load, and is guessed wrong half the time, costs more than the
 * arithmetic).  BS_ALWAYS_INLINE: a function whose constant arguments must
 * reach its loops. */
#if defined(__GNUC__) || defined(__clang__)
#define BS_SETTLED(x) __asm__("" : "+r"(x))
#define BS_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define BS_SETTLED(x) ((void)0)
#define BS_ALWAYS_INLINE static inline
#endif

/* ------------------------------------------------------------------ */
/* the module: its state, its functions                                */
/* ------------------------------------------------------------------ */

/* scores.c's texts of numbers, a direct-mapped cache (see its fixed()) */
#define BS_TEXT_CACHE_SIZE 512
#define BS_TEXT_SIZE 24
typedef struct {
    unsigned long long bits; /* the value's bits */
    int digits;              /* 0: an empty slot */
    char text[BS_TEXT_SIZE];
} BsTextSlot;

/* Per module object (so per interpreter, zeroed when it is made): what the
 * kernels cache. */
typedef struct {
    PyObject *str_vocab; /* "vocab", "ids": the attributes count_edits reads */
    PyObject *str_ids;
    int sum_exact; /* scores.c's sum equals builtins.sum: 1, 0, or -1 unknown yet */
    /* scores.c's score objects' shared parts, made on its first call: (the
     * attribute names, "BLEU", -1.0) */
    PyObject *bleu_cache;
    BsTextSlot texts[BS_TEXT_CACHE_SIZE];
} BsState;

static inline BsState *
bs_state(PyObject *module)
{
    return (BsState *)PyModule_GetState(module);
}

#define BS_FASTCALL(name)                                                                       \
    PyObject *name(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)

BS_INTERNAL BS_FASTCALL(bs_tokenize_13a);
BS_INTERNAL BS_FASTCALL(bs_tokenize_zh);
BS_INTERNAL BS_FASTCALL(bs_hyp_row);
BS_INTERNAL BS_FASTCALL(bs_hyp_row_13a);
BS_INTERNAL BS_FASTCALL(bs_hyp_row_zh);
BS_INTERNAL BS_FASTCALL(bs_bleu_sum_13a);
BS_INTERNAL BS_FASTCALL(bs_bleu_sum_zh);
BS_INTERNAL BS_FASTCALL(bs_bleu_rows_13a);
BS_INTERNAL BS_FASTCALL(bs_bleu_rows_zh);
BS_INTERNAL BS_FASTCALL(bs_bleu_sum_block_13a);
BS_INTERNAL BS_FASTCALL(bs_bleu_sum_block_zh);
BS_INTERNAL BS_FASTCALL(bs_chrf_sum_block);
BS_INTERNAL BS_FASTCALL(bs_paste_columns);
BS_INTERNAL BS_FASTCALL(bs_chrf_ref_rows);
BS_INTERNAL BS_FASTCALL(bs_chrf_rows);
BS_INTERNAL BS_FASTCALL(bs_chrf_sum);
BS_INTERNAL BS_FASTCALL(bs_chrf_scores);
BS_INTERNAL BS_FASTCALL(bs_split_words);
BS_INTERNAL BS_FASTCALL(bs_past_newlines);
BS_INTERNAL BS_FASTCALL(bs_bleu_scores);
BS_INTERNAL BS_FASTCALL(bs_bleu_values);
BS_INTERNAL BS_FASTCALL(bs_count_edits);
BS_INTERNAL BS_FASTCALL(bs_token_rows);
BS_INTERNAL BS_FASTCALL(bs_id_lists);
BS_INTERNAL BS_FASTCALL(bs_add_words);
BS_INTERNAL BS_FASTCALL(bs_add_ngram_matches);

/* ------------------------------------------------------------------ */
/* argument parsing (args.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * The arguments of fname(...) into out[0 .. nparams): the first nrequired
 * must be given, the others are NULL when not.  `names` are the
 * parameters' names, which may be given by keyword; NULL: positional only.
 */
BS_INTERNAL int bs_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *const *names,
                              Py_ssize_t nrequired, Py_ssize_t nparams, PyObject **out);

/* o is a str, ready to read; else TypeError naming `what`. */
BS_INTERNAL int bs_check_str(PyObject *o, const char *what);

/* ------------------------------------------------------------------ */
/* score rows (scores.c)                                               */
/* ------------------------------------------------------------------ */

/* Every whole number of at most 2**53 in magnitude is a double exactly. */
#define BS_EXACT_LIMIT 9007199254740992LL

/* A score row's numbers into out[0 .. size), when it is a tuple of `size`
 * ints within BS_EXACT_LIMIT (each a double exactly): 1; 0 when the pure
 * code must read it.  BLEU's and chrF's score objects read rows with it. */
BS_INTERNAL int bs_exact_row(PyObject *row, Py_ssize_t size, long long *out);

/* ------------------------------------------------------------------ */
/* hashing and token views                                             */
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

/* The first slot of `key` in a table of 2^(64 - shift) slots: the top bits
 * of a multiplicative hash, which spreads the slot numbers an exact n-gram
 * key is built from (ngrams.c, id_ngrams.c). */
static inline Py_ssize_t
first_probe(uint64_t key, int shift)
{
    return (Py_ssize_t)((key * NGRAM_MUL) >> shift);
}

static inline int
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

/* ------------------------------------------------------------------ */
/* scratch memory (arena.c)                                            */
/* ------------------------------------------------------------------ */

/*
 * A bump allocator for a call's scratch memory.  It starts in a buffer the
 * caller provides (on its stack) and takes blocks from the heap, each twice
 * the last, when that is full; everything is freed at once.  A batch
 * resets it per segment and keeps its largest block, so a steady stream of
 * segments allocates nothing.  `arena_mark`/`arena_release` give back what
 * was allocated after a mark.  A quiet arena (`quiet` set after arena_init)
 * returns NULL on failure without setting MemoryError, so code that runs
 * with the GIL released can use it and set the error once it holds the GIL.
 *
 * Built with AddressSanitizer, every allocation is its own heap block of
 * exactly the size asked for, so the sanitizer sees each one's bounds.
 */
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
    int quiet; /* 1: a failure sets no Python error (the GIL may be released) */
} Arena;

typedef struct {
    char *cur;
    size_t left;
    ArenaBlock *blocks;
} ArenaMark;

BS_INTERNAL void arena_init(Arena *a, void *buf, size_t size);
BS_INTERNAL void *arena_alloc(Arena *a, size_t n);
BS_INTERNAL ArenaMark arena_mark(const Arena *a);
BS_INTERNAL void arena_release(Arena *a, ArenaMark m);
BS_INTERNAL void arena_reset(Arena *a);
BS_INTERNAL void arena_free(Arena *a);

#define ARENA_NEW(a, type, count)                                                               \
    ((size_t)(count) > ((size_t)PY_SSIZE_T_MAX >> 1) / sizeof(type)                            \
         ? ((a)->quiet ? NULL : PyErr_NoMemory(), (type *)NULL)                                 \
         : (type *)arena_alloc((a), sizeof(type) * (size_t)(count)))

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

BS_INTERNAL int vocab_init(Vocab *v, Arena *a, Py_ssize_t max_tokens);

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
/* the n-gram engine (ngrams.c)                                        */
/* ------------------------------------------------------------------ */

/*
 * For n = 1 .. max_n: out[n-1] = sum over distinct n-grams g of
 * min(count of g in hyp, max over refs of count of g in that ref).
 * An n-gram is a run of n int32 ids; hyp ids < 0 never match.  Stops at
 * the first order with no match (all higher orders are 0 too).
 */
BS_INTERNAL int clipped_matches(Arena *a, const int32_t *hyp, Py_ssize_t hlen,
                                const int32_t *flat, const Py_ssize_t *offs,
                                const Py_ssize_t *rlens, Py_ssize_t nrefs, Py_ssize_t max_n,
                                Py_ssize_t *out, Py_ssize_t nids);

/* ------------------------------------------------------------------ */
/* the n-gram matcher of integer ids (id_ngrams.c)                     */
/* ------------------------------------------------------------------ */

typedef struct IdSlot IdSlot;

#define MAX_TOKEN_ORDER 100 /* bleustream.metrics.bleu.MAX_ORDER */

/* Scratch for a batch's sentences: its tables, in an arena. */
typedef struct {
    IdSlot *uni;                /* the unigram table */
    void *high;                 /* the higher orders' table: narrow slots or wide */
    Py_ssize_t ucap, hcap;      /* their slots */
    int narrow;                 /* every sentence's n-gram keys fit 32 bits, counts 16 */
    uint32_t gen, last_gen;     /* the sentence being matched; the last before a clearing */
    int32_t *hyp_uni, *ref_uni; /* each id's unigram slot */
    int32_t *cnt, *seen;        /* several references: one's counts, the slots it filled */
    int64_t budget;             /* the sentence's probes past the first left; < 0: ran long */
    uint64_t key;               /* the call's hash key, for a sentence whose probes ran long */
    int64_t *keyed;             /* its ids keyed: the hypothesis', then the references' */
} IdMatcher;

/* How many n-grams of orders 1 .. max_n a sequence of len ids has. */
BS_INTERNAL int64_t bs_id_ngram_count(int64_t len, Py_ssize_t max_n);

/* A hash key for a call's matchers, unknown outside the process (see
 * id_ngrams.c); with the GIL held. */
BS_INTERNAL uint64_t bs_id_hash_key(void);

/* A matcher for hypotheses of up to max_hyp ids and references of up to
 * max_ref_ids ids (all of a sentence's) and max_ngrams n-grams (counted by
 * bs_id_ngram_count, summed over a sentence's references), with the hash
 * key `key` (bs_id_hash_key's); -1 when the arena (quiet or not) has no room. */
BS_INTERNAL int bs_id_matcher_init(IdMatcher *m, Arena *a, Py_ssize_t max_hyp,
                                   Py_ssize_t max_ref_ids, int64_t max_ngrams,
                                   int several_refs, uint64_t key);

/*
 * clipped_matches for int64 ids, all compared (none is absent): out[n-1]
 * for n = 1 .. max_n.  Reference r is refs[offs[r] .. offs[r] + rlens[r]),
 * every offset below 2**31, max_n at most MAX_TOKEN_ORDER.  -1 if the
 * sentence is larger than the matcher was made for.  Calls no Python API.
 */
BS_INTERNAL int bs_id_matches(IdMatcher *m, const int64_t *hyp, Py_ssize_t hlen,
                              const int64_t *refs, const Py_ssize_t *offs,
                              const Py_ssize_t *rlens, Py_ssize_t nrefs, Py_ssize_t max_n,
                              Py_ssize_t *out);

/* ------------------------------------------------------------------ */
/* spans of a buffer, and the 13a and zh tokenizers (tokenize.c)       */
/* ------------------------------------------------------------------ */

typedef struct {
    Py_ssize_t start, len;
} Span;

typedef struct {
    Span *v;
    Py_ssize_t n, cap;
} SpanVec;

/* Room for `more` spans beyond those held, in the arena. */
BS_INTERNAL int spans_reserve(Arena *a, SpanVec *s, Py_ssize_t more);

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

enum { TOK_13A = 0, TOK_ZH = 1 };

/* A copy of the first n characters of the str (n at most its length) as
 * UCS4 in the arena, with `pad` spare cells at each end. */
BS_INTERNAL Py_UCS4 *to_ucs4(Arena *a, PyObject *s, Py_ssize_t n, Py_ssize_t pad);

/*
 * Tokenizes the first n characters of `line` as tokenize_13a / tokenize_zh
 * (which: TOK_13A, TOK_ZH).  On success *bufp holds the buffer the spans
 * index and spans the tokens, both in the arena.
 */
BS_INTERNAL int tokenize_spans(Arena *a, PyObject *line, Py_ssize_t n, int which,
                               Py_UCS4 **bufp, SpanVec *spans);

/* Which of the characters 13a replaces a text holds (tokenize_ucs4's `has`). */
#define HAS_LT 1  /* '<' */
#define HAS_NL 2  /* '\n' */
#define HAS_AMP 4 /* '&' */

/*
 * tokenize_spans of a text already in UCS4: its n characters at buf[1 ..
 * n], with a spare cell at each end; `has` says which of '<', '\n' and '&'
 * it may hold (13a; 0 for zh).  The spans index buf.
 */
BS_INTERNAL int tokenize_ucs4(Arena *a, Py_UCS4 *buf, Py_ssize_t n, int which, int has,
                              SpanVec *spans);

/* The spans of buf as a list of str. */
BS_INTERNAL PyObject *spans_to_list(const Py_UCS4 *buf, const SpanVec *spans);

/* ------------------------------------------------------------------ */
/* BLEU rows of raw lines (bleu_lines.c, bleu_blocks.c)                 */
/* ------------------------------------------------------------------ */

/*
 * hyp_row of one segment's tokens, spans of UCS4 buffers (the hypothesis's
 * `hs` of hbuf, reference k's rs[k] of rbufs[k]), added into `sums`
 * (2 + 2 N Py_ssize_t).
 */
BS_INTERNAL int bleu_add_spans(Arena *a, const Py_UCS4 *hbuf, const SpanVec *hs,
                               Py_UCS4 *const *rbufs, const SpanVec *rs, Py_ssize_t nrefs,
                               Py_ssize_t N, Py_ssize_t *sums);

/* The first `size` sums as a tuple of ints. */
BS_INTERNAL PyObject *sums_tuple(const Py_ssize_t *sums, Py_ssize_t size);

/* The BLEU kernels' max_order: *N = max(0, it), a ValueError above 1024. */
BS_INTERNAL int bleu_orders(PyObject *max_order, Py_ssize_t *N);

/* ------------------------------------------------------------------ */
/* blocks of UTF-8 lines (line_blocks.c)                                */
/* ------------------------------------------------------------------ */

/* A block's bytes, and where its next line starts. */
typedef struct {
    Py_buffer view;
    Py_ssize_t pos;
} BlockCursor;

/* A call's blocks: cur[0] the hypotheses', cur[1 .. n) the references'. */
typedef struct {
    PyObject *refs; /* the fast sequence of reference blocks */
    BlockCursor *cur;
    Py_ssize_t n, held; /* blocks, buffers held */
    Py_ssize_t lines;   /* each block's lines */
} Blocks;

/* The blocks of a call's arguments, held; a ValueError unless there are
 * references with as many lines as the hypotheses.  blocks_close after,
 * whatever this returns. */
BS_INTERNAL int blocks_open(Blocks *b, PyObject *hyp_block, PyObject *ref_blocks);
BS_INTERNAL void blocks_close(Blocks *b);

/* What a block's sum function returns after counting (rc: -1 an error, 1
 * a line not UTF-8, 0 the sums): (("sum", the size sums), tokenized), None
 * where a line is not UTF-8, or NULL with the error set. */
BS_INTERNAL PyObject *blocks_result(int rc, const Py_ssize_t *sums, Py_ssize_t size,
                                    Py_ssize_t tokenized);

/*
 * The next line of block k, decoded from UTF-8 and right-stripped into a
 * buffer of the arena: its n characters at (*bufp)[1 .. n], a spare cell
 * at each end; *has: which of '<' and '&' it holds (HAS_LT, HAS_AMP).
 * 1 where the line is not UTF-8, -1 on an error.
 */
BS_INTERNAL int blocks_next_line(Arena *a, Blocks *b, Py_ssize_t k, Py_UCS4 **bufp,
                                 Py_ssize_t *np, int *has);

/* ------------------------------------------------------------------ */
/* chrF (chrf.c, chrf_scores.c, chrf_blocks.c)                         */
/* ------------------------------------------------------------------ */

#define CHRF_MAX_ORDER 100 /* chrf.MAX_ORDER */
#define CHRF_MAX_BETA 1000 /* chrf.MAX_BETA */

typedef struct {
    Py_ssize_t char_order, word_order;
    int whitespace; /* keep white space in character n-grams */
} ChrfOrders;

/* What chrF's f-score needs besides the statistics. */
typedef struct {
    Py_ssize_t order;       /* char_order + word_order */
    double factor;          /* beta**2 */
    double one_plus_factor; /* 1 + beta**2 */
    int eps_smoothing;
} ChrfF;

/*
 * The chrF statistics of `hyp` against each of the nrefs `refs` (str,
 * ready): for reference k, stats[k * 3 * order ..] holds (hyp, ref, match)
 * per character order, then per word order, as chrf.py_count's rows.
 */
BS_INTERNAL int chrf_stats(Arena *a, PyObject *hyp, PyObject *const *refs, Py_ssize_t nrefs,
                           const ChrfOrders *o, Py_ssize_t *stats);

/* chrf_stats of texts in UCS4: bufs[0] the hypothesis's lens[0]
 * characters, bufs[1 + k] reference k's. */
BS_INTERNAL int chrf_stats_ucs4(Arena *a, Py_UCS4 *const *bufs, const Py_ssize_t *lens,
                                Py_ssize_t nrefs, const ChrfOrders *o, Py_ssize_t *stats);

/* The best of nrefs rows of chrf_stats into best: the first with the
 * highest f-score, as chrf.py_count chooses. */
BS_INTERNAL void chrf_best(const ChrfF *f, const Py_ssize_t *stats, Py_ssize_t nrefs,
                           Py_ssize_t *best);

/* The orders and white space of chrF from three arguments (at most `most`). */
BS_INTERNAL int chrf_orders(ChrfOrders *o, PyObject *char_order, PyObject *word_order,
                            PyObject *whitespace, Py_ssize_t most);

/* f's settings from beta and eps_smoothing (Python objects) and the orders. */
BS_INTERNAL int chrf_f_settings(ChrfF *f, const ChrfOrders *o, PyObject *beta,
                                PyObject *eps_smoothing);

/* chrf.f_score of one row of 3 * f->order whole numbers within 2**53. */
BS_INTERNAL double chrf_f_score(const ChrfF *f, const Py_ssize_t *stats);

#endif /* BLEUSTREAM_KERNELS_H */
