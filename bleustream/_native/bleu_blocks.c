/*
 * bleu_blocks.c: BLEU's sum of a block of raw lines (bleu.py_sum_block):
 * each line of the blocks (line_blocks.c) decoded, right-stripped,
 * tokenized and counted as bleu_lines.c counts a str, without a Python
 * object per line.  A block that is not well-formed UTF-8 gives None: the
 * reader then decodes it the slow way, which says where.
 */
#include "kernels.h"

/*
 * The next line of block k tokenized: *bufp the buffer the spans index, in
 * the arena; *dot: whether it ends in " ." (before the tokenizer rewrites
 * the buffer).  1: not UTF-8.
 */
static int
line_spans(Arena *a, Blocks *b, Py_ssize_t k, int which, Py_UCS4 **bufp, SpanVec *spans, int *dot)
{
    Py_ssize_t n;
    int has = 0, rc = blocks_next_line(a, b, k, bufp, &n, &has);
    if (rc != 0)
        return rc;
    *dot = n >= 2 && (*bufp)[n - 1] == ' ' && (*bufp)[n] == '.';
    memset(spans, 0, sizeof(SpanVec));
    return tokenize_ucs4(a, *bufp, n, which, which == TOK_13A ? has : 0, spans);
}

/*
 * Counts every line of the blocks into sums: 0, or 1 where a line is not
 * UTF-8, -1 on an error.  *tokenized: the hypotheses that end in " .".
 */
static int
count_block(Arena *a, Blocks *b, int which, Py_ssize_t N, Py_ssize_t *sums, Py_ssize_t *tokenized)
{
    Py_UCS4 *hbuf, **rbufs;
    SpanVec hs, *rs;
    Py_ssize_t i, k, nrefs = b->n - 1;
    int rc, dot;
    for (i = 0; i < b->lines; i++) {
        if ((rbufs = ARENA_NEW(a, Py_UCS4 *, nrefs)) == NULL ||
            (rs = ARENA_NEW(a, SpanVec, nrefs)) == NULL)
            return -1;
        for (k = 0; k < nrefs; k++)
            if ((rc = line_spans(a, b, 1 + k, which, &rbufs[k], &rs[k], &dot)) != 0)
                return rc;
        if ((rc = line_spans(a, b, 0, which, &hbuf, &hs, &dot)) != 0)
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
    PyObject *a[3], *res = NULL;
    Py_ssize_t N, tokenized = 0, *sums = NULL;
    Blocks blocks;
    int rc;
    ARENA_ON_STACK(arena);
    if (bs_parse_args(fname, args, nargs, kwnames, names, 3, 3, a) < 0)
        return NULL;
    if (bleu_orders(a[2], &N) < 0)
        return NULL;
    if (blocks_open(&blocks, a[0], a[1]) < 0)
        goto done;
    if ((sums = PyMem_Calloc((size_t)(2 + 2 * N), sizeof(Py_ssize_t))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    rc = count_block(&arena, &blocks, which, N, sums, &tokenized);
    res = blocks_result(rc, sums, 2 + 2 * N, tokenized);
done:
    arena_free(&arena);
    blocks_close(&blocks);
    PyMem_Free(sums);
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
