#!/usr/bin/env bash
# The compiled kernels under AddressSanitizer and UndefinedBehaviorSanitizer:
# builds bleustream._native._kernels (bleustream/_native/*.c) with
# -fsanitize=address,undefined in a copy of
# the tree, then runs the kernel tests (test_kernels*.py, test_token_bleu.py,
# wherever they are under tests/) and the fuzz on that build.
#
#   tools/asan.sh [all|tests|fuzz] [ITERATIONS_PER_PROCESS [PROCESSES]]
#
# Defaults: all, 500000 iterations in each of 2 processes (10^6 inputs).
# Built with the sanitizer, the kernels' scratch arena gives every
# allocation its own heap block, so that each one's bounds are checked;
# ASAN_ARENA=bump keeps the bump allocator instead, to run that under the
# sanitizer as well.
# Any sanitizer report aborts its process, and the script fails.  The work
# directory (ASAN_WORK, default a new temporary one) keeps the build and the
# logs.  Needs gcc or clang with the sanitizer runtimes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-all}
ITERATIONS=${2:-500000}
PROCESSES=${3:-2}
WORK=${ASAN_WORK:-$(mktemp -d -t bleustream-asan.XXXXXX)}
TREE=$WORK/bleustream
PYTHON=${PYTHON:-python3}
CC=${CC:-gcc}
ARENA_FLAG=""
[ "${ASAN_ARENA:-checked}" = bump ] && ARENA_FLAG=" -DBLEUSTREAM_ARENA_BUMP"

echo "asan: building in $TREE"
rm -rf "$TREE"
mkdir -p "$TREE"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 sh -c 'for f; do [ -e "$f" ] && cp --parents "$f" "$0"; done' "$TREE")
# The real data sets, where the tests look for them: beside the tree.
if [ -d "$ROOT/../shared" ] && [ ! -e "$WORK/shared" ]; then
    ln -s "$(cd "$ROOT/../shared" && pwd)" "$WORK/shared"
fi
(cd "$TREE" &&
    CC=$CC CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1${ARENA_FLAG}" \
        LDFLAGS="-fsanitize=address,undefined" \
        "$PYTHON" setup.py -q build_ext --inplace >"$WORK/build.log" 2>&1) || {
    cat "$WORK/build.log"
    exit 1
}

export PYTHONPATH=$TREE
export PYTHONMALLOC=malloc
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
LD_PRELOAD=$("$CC" -print-file-name=libasan.so)
export LD_PRELOAD
unset BLEUSTREAM_PUREPYTHON
cd "$TREE"
"$PYTHON" -c 'import bleustream, bleustream.kernels as k, sys
assert bleustream.KERNELS == "compiled", bleustream.KERNELS
assert k.native.__file__.startswith(sys.argv[1]), k.native.__file__
print("asan: kernels from", k.native.__file__)' "$TREE"

status=0
if [ "$MODE" = all ] || [ "$MODE" = tests ]; then
    # wherever the test files live in the tree's folders
    mapfile -t TESTS < <(find tests -name 'test_kernels*.py' -o -name test_token_bleu.py | sort)
    echo "asan: ${TESTS[*]}"
    "$PYTHON" -m pytest -q -n 0 -p no:cacheprovider "${TESTS[@]}" 2>&1 |
        tee "$WORK/tests.log" | tail -n 5
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$MODE" = all ] || [ "$MODE" = fuzz ]; then
    echo "asan: fuzz, $PROCESSES x $ITERATIONS inputs (logs in $WORK)"
    pids=()
    for seed in $(seq 1 "$PROCESSES"); do
        "$PYTHON" tools/fuzz_kernels.py "$ITERATIONS" "$seed" >"$WORK/fuzz_$seed.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        if wait "${pids[$i]}"; then
            tail -n 1 "$WORK/fuzz_$((i + 1)).log"
        else
            echo "asan: fuzz seed $((i + 1)) FAILED:"
            tail -n 30 "$WORK/fuzz_$((i + 1)).log"
            status=1
        fi
    done
fi
echo "asan: $([ $status -eq 0 ] && echo OK || echo FAILED) (work directory $WORK)"
exit $status
