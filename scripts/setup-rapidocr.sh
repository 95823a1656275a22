#!/usr/bin/env bash
# The evaluation's second peer: a virtual environment in .venv-rapidocr with RapidOCR (PP-OCRv6 small, a plain
# CTC pipeline) and onnxruntime from PyPI, pinned so that its figures are comparable from run to run.
# `npm run eval` runs it beside Tesseract where this environment exists and says so where it does not.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-rapidocr
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'rapidocr==3.10.0' 'onnxruntime==1.32.0'
"$venv/bin/python" -c 'import rapidocr, onnxruntime; print("rapidocr", rapidocr.__version__ if hasattr(rapidocr, "__version__") else "3.10.0", "onnxruntime", onnxruntime.__version__)'
