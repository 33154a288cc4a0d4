/*
 * chrf_blocks.c: chrF's sum of a block of raw lines (chrf.py_sum_block):
 * each line of the blocks (line_blocks.c) decoded and right-stripped, its
 * best reference's row added, as chrf_sum adds a batch of str, without a
 * Python object per line.  A block that is not well-formed UTF-8 gives
 * None: the reader then decodes it the slow way, which says where.
 */
#include "kernels.h"

/*
 * Adds every line's best row into sums: 0, or 1 where a line is not UTF-8,
 * -1 on an error.  *tokenized: the hypotheses that end in " .".
 */
static int
sum_block(Arena *a, Blocks *b, const ChrfOrders *o, const ChrfF *f, Py_ssize_t *sums,
          Py_ssize_t *tokenized)
{
    Py_ssize_t i, k, q, width = 3 * f->order, nrefs = b->n - 1;
    Py_ssize_t *lens, *stats, best[3 * 2 * CHRF_MAX_ORDER];
    Py_UCS4 **bufs;
    int rc, has;
    for (i = 0; i < b->lines; i++) {
        if ((lens = ARENA_NEW(a, Py_ssize_t, b->n)) == NULL ||
            (bufs = ARENA_NEW(a, Py_UCS4 *, b->n)) == NULL ||
            (stats = ARENA_NEW(a, Py_ssize_t, nrefs * width + 1)) == NULL)
            return -1;
        for (k = 0; k < b->n; k++) {
            if ((rc = blocks_next_line(a, b, k, &bufs[k], &lens[k], &has)) != 0)
                return rc;
            bufs[k]++; /* the text, from its first character */
        }
        *tokenized += lens[0] >= 2 && bufs[0][lens[0] - 2] == ' ' && bufs[0][lens[0] - 1] == '.';
        if (chrf_stats_ucs4(a, bufs, lens, nrefs, o, stats) < 0)
            return -1;
        chrf_best(f, stats, nrefs, best);
        /* each count is at most a line's length: a block's sum fits */
        for (q = 0; q < width; q++)
            sums[q] += best[q];
        arena_reset(a);
    }
    return 0;
}

/* chrf_sum_block(hyp_block, ref_blocks, char_order, word_order, whitespace, beta,
 * eps_smoothing) -> (("sum", row), tokenized) | None */
BS_FASTCALL(bs_chrf_sum_block)
{
    static const char *const names[] = {"hyp_block",  "ref_blocks", "char_order",   "word_order",
                                        "whitespace", "beta",       "eps_smoothing"};
    PyObject *a[7], *res = NULL;
    Py_ssize_t tokenized = 0, sums[3 * 2 * CHRF_MAX_ORDER];
    ChrfOrders o;
    ChrfF f;
    Blocks blocks;
    int rc;
    (void)module;
    ARENA_ON_STACK(arena);
    if (bs_parse_args("chrf_sum_block", args, nargs, kwnames, names, 7, 7, a) < 0)
        return NULL;
    if (chrf_orders(&o, a[2], a[3], a[4], CHRF_MAX_ORDER) < 0 ||
        chrf_f_settings(&f, &o, a[5], a[6]) < 0)
        return NULL;
    memset(sums, 0, sizeof(sums));
    if (blocks_open(&blocks, a[0], a[1]) < 0)
        goto done;
    rc = sum_block(&arena, &blocks, &o, &f, sums, &tokenized);
    res = blocks_result(rc, sums, 3 * f.order, tokenized);
done:
    arena_free(&arena);
    blocks_close(&blocks);
    return res;
}
