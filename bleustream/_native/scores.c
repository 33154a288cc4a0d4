/*
 * scores.c: sentence-BLEU score objects, a batch of them from their rows.
 * (For now the code is bleustream/_native_scores.c's, built here.)
 */
#include "kernels.h"

#include "../_native_scores.c"
