/*
 * module.c: the module bleustream._native._kernels, the C kernels of
 * bleustream (see kernels.h for the files and their conventions).
 *
 * Multi-phase initialization (PEP 489): the module's state (BsState) holds
 * the Python objects it caches, so each interpreter that imports it has its
 * own, and a module object is created per interpreter.
 */
#include "kernels.h"

#define BS_METHOD(name, doc)                                                                    \
    {#name, (PyCFunction)(void (*)(void))bs_##name, METH_FASTCALL | METH_KEYWORDS, doc}

static PyMethodDef bs_methods[] = {
    BS_METHOD(tokenize_13a, "tokenize_13a(line, /) -> list[str]: registry.py_tokenize_13a."),
    BS_METHOD(tokenize_zh, "tokenize_zh(line, /) -> list[str]: registry.py_tokenize_zh."),
    BS_METHOD(hyp_row, "hyp_row(hyp, refs, max_order) -> tuple[int, ...]: ngrams.hyp_row."),
    BS_METHOD(hyp_row_13a,
              "hyp_row_13a(line, refs, max_order): hyp_row(tokenize_13a(line), refs, max_order)."),
    BS_METHOD(hyp_row_zh,
              "hyp_row_zh(line, refs, max_order): hyp_row(tokenize_zh(line), refs, max_order)."),
    BS_METHOD(bleu_sum_13a,
              "bleu_sum_13a(hyps, refs, max_order) -> tuple[int, ...]: the sum of the BLEU rows "
              "of raw lines, right-stripped and 13a-tokenized (bleu.py_sum_batch)."),
    BS_METHOD(bleu_sum_zh, "bleu_sum_zh(hyps, refs, max_order) -> tuple[int, ...]: bleu_sum_13a "
                           "with the zh tokenizer."),
    BS_METHOD(bleu_rows_13a,
              "bleu_rows_13a(hyps, refs, max_order) -> list[tuple[int, ...]]: each segment's row "
              "of bleu_sum_13a (bleu.py_count_batch)."),
    BS_METHOD(bleu_rows_zh, "bleu_rows_zh(hyps, refs, max_order) -> list[tuple[int, ...]]: "
                            "bleu_rows_13a with the zh tokenizer."),
    BS_METHOD(bleu_sum_block_13a,
              "bleu_sum_block_13a(hyp_block, ref_blocks, max_order) -> ((\"sum\", row), tokenized) "
              "| None: bleu_sum_13a of blocks of UTF-8 lines (bleu.py_sum_block)."),
    BS_METHOD(bleu_sum_block_zh, "bleu_sum_block_zh(hyp_block, ref_blocks, max_order): "
                                 "bleu_sum_block_13a with the zh tokenizer."),
    BS_METHOD(chrf_ref_rows,
              "chrf_ref_rows(hyp, refs, char_order, word_order, whitespace) -> tuple of rows, one "
              "per reference: chrF's (hyp, ref, match) triplets, characters then words."),
    BS_METHOD(chrf_rows,
              "chrf_rows(hyps, refs, char_order, word_order, whitespace, beta, eps_smoothing) -> "
              "list[tuple[int, ...]]: each segment's row of chrf.count (refs[i]: the references "
              "of hyps[i]), the best reference's (chrf.py_count_batch)."),
    BS_METHOD(chrf_sum,
              "chrf_sum(hyps, refs, char_order, word_order, whitespace, beta, eps_smoothing) -> "
              "tuple[int, ...]: the sum of chrf_rows' rows (chrf.py_sum_batch)."),
    BS_METHOD(chrf_sum_block,
              "chrf_sum_block(hyp_block, ref_blocks, char_order, word_order, whitespace, beta, "
              "eps_smoothing) -> ((\"sum\", row), tokenized) | None: chrf_sum of blocks of UTF-8 "
              "lines (chrf.py_sum_block)."),
    BS_METHOD(chrf_scores,
              "chrf_scores(rows, char_order, word_order, beta, eps_smoothing, cls, signature, "
              "fallback) -> list: each row's chrF score object (chrf.py_score_batch)."),
    BS_METHOD(split_words, "split_words(line, /) -> list[str]: chrf.split_words."),
    BS_METHOD(paste_columns,
              "paste_columns(block, nfields, /) -> list[bytes] | None: blocks.py_paste_columns."),
    BS_METHOD(past_newlines,
              "past_newlines(buffer, pos, count, /) -> (offset, found): blocks.py_past_newlines."),
    BS_METHOD(bleu_scores,
              "bleu_scores(rows, max_order, smooth, smooth_value, effective_order, cls, "
              "signature, fallback, /) -> list: each row's BLEU score object "
              "(bleu.py_score_batch)."),
    BS_METHOD(bleu_values,
              "bleu_values(rows, max_order, smooth, smooth_value, effective_order, fallback, /) "
              "-> list[float]: each row's BLEU score (bleu.py_score_values_batch)."),
    BS_METHOD(count_edits, "count_edits(words_hyp, ref, max_exact_cells=..., /) -> int: "
                         "ter_search.py_count_edits."),
    BS_METHOD(token_rows,
              "token_rows(hyps, refs, max_order, pad, start, stop) -> list[tuple[int, ...]]: "
              "BLEU rows of token-ID buffers, without the GIL (token_bleu.py_token_rows)."),
    BS_METHOD(id_lists, "id_lists(batch, /) -> (bytes, bytes) | None: a list of lists of ints "
                        "as int64 ids and lengths (token_ids.id_stream's fast path)."),
    BS_METHOD(add_words,
              "add_words(ref, hyps, systems, ids, words, counts, row=False) -> "
              "list[int] | None: one segment's words added (analysis.words.py_add_words)."),
    BS_METHOD(add_ngram_matches,
              "add_ngram_matches(ref, hyps, low, high, systems, ids, grams, counts) -> None: one "
              "segment's matched "
              "n-grams added (analysis.ngrams.py_add_ngram_matches)."),
    {NULL, NULL, 0, NULL},
};

static int
bs_exec(PyObject *module)
{
    BsState *state = bs_state(module);
    state->sum_exact = -1;
    state->str_vocab = PyUnicode_InternFromString("vocab");
    if (state->str_vocab == NULL)
        return -1;
    state->str_ids = PyUnicode_InternFromString("ids");
    if (state->str_ids == NULL)
        return -1;
    return 0;
}

static int
bs_traverse(PyObject *module, visitproc visit, void *arg)
{
    BsState *state = bs_state(module);
    if (state != NULL) {
        Py_VISIT(state->str_vocab);
        Py_VISIT(state->str_ids);
        Py_VISIT(state->bleu_cache);
    }
    return 0;
}

static int
bs_clear(PyObject *module)
{
    BsState *state = bs_state(module);
    if (state != NULL) {
        Py_CLEAR(state->str_vocab);
        Py_CLEAR(state->str_ids);
        Py_CLEAR(state->bleu_cache);
    }
    return 0;
}

static void
bs_free(void *module)
{
    bs_clear((PyObject *)module);
}

static PyModuleDef_Slot bs_slots[] = {
    {Py_mod_exec, (void *)bs_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* No C global holds a Python object or changes after the module is
     * built (what is cached is in BsState), so each interpreter, with its
     * own GIL, may import it. */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    /* The GIL stays: the kernels read the items of the caller's lists
     * through borrowed references (PySequence_Fast), which another thread
     * could replace under them on a free-threaded build. */
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef bs_module = {
    PyModuleDef_HEAD_INIT,
    "_kernels",
    "The C kernels of bleustream; each function equals the pure one its docstring names.",
    sizeof(BsState),
    bs_methods,
    bs_slots,
    bs_traverse,
    bs_clear,
    bs_free,
};

PyMODINIT_FUNC
PyInit__kernels(void)
{
    return PyModuleDef_Init(&bs_module);
}
