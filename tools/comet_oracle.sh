#!/usr/bin/env bash
# Builds unbabel-comet 2.2.7 in a virtual environment of its own: the oracle
# the COMET parity tests compare bleustream's loader with.  Its pins cannot sit
# beside a current stack (numpy < 2, transformers < 5, protobuf 4), and two of
# them break it as installed: torchmetrics 0.10 imports pkg_resources
# (setuptools < 81 has it) and sentencepiece's generated code needs protobuf 7.
#
#   tools/comet_oracle.sh DIR      # prints DIR/bin/python when it works
#
# Idempotent: a DIR whose python already imports comet 2.2.7 is left alone.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: tools/comet_oracle.sh DIR" >&2
    exit 64
fi
dir=$1
python=${PYTHON:-python3}
check='import comet, sentencepiece, torch, importlib.metadata as m; assert m.version("unbabel-comet") == "2.2.7"'

if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" >/dev/null 2>&1; then
    echo "$dir/bin/python"
    exit 0
fi

rm -rf "$dir"
"$python" -m venv "$dir"
pip=("$dir/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" 'unbabel-comet==2.2.7' 'torch==2.13.0'
"${pip[@]}" 'setuptools<81' 'protobuf>=7'
"$dir/bin/python" -c "$check"
echo "$dir/bin/python"
