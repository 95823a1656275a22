#!/usr/bin/env bash
# The OCRmyPDF plugin's environment: a virtual environment in .venv-ocrmypdf with OCRmyPDF 17 from PyPI and
# the plugin (integrations/ocrmypdf) installed from this checkout in editable mode, so that it finds the
# Saccade it was installed from. `npm test` runs the plugin's tests in it; `.ci/run` makes it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-ocrmypdf
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'ocrmypdf>=17,<18' -e 'integrations/ocrmypdf[test]'
"$venv/bin/ocrmypdf" --version
