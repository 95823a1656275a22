"""Where PP-OCRv6 small's recogniser is on this machine: inside RapidOCR's wheel from PyPI (rapidocr==3.10.0,
Apache-2.0, its MODEL_LICENSES.md records the weights' provenance), as installed into .venv-rapidocr by
`npm run setup:rapidocr`. The file is never copied into the repository; the exporter converts it.
"""
import glob
import os

VERSION = "3.10.0"
REC_ONNX = "PP-OCRv6_rec_small.onnx"
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def package_dir():
    """The installed rapidocr package folder, or None. SACCADE_RAPIDOCR names another one."""
    named = os.environ.get("SACCADE_RAPIDOCR")
    if named:
        return named if os.path.isdir(named) else None
    hits = sorted(glob.glob(os.path.join(ROOT, ".venv-rapidocr", "lib", "python3*", "site-packages", "rapidocr")))
    return hits[-1] if hits else None


def rec_onnx():
    """The recogniser's ONNX file, or None where the package is not installed."""
    d = package_dir()
    path = os.path.join(d, "models", REC_ONNX) if d else None
    return path if path and os.path.exists(path) else None


def model_licenses():
    """The wheel's model licence notice (MODEL_LICENSES.md), or None."""
    d = package_dir()
    if not d:
        return None
    hits = glob.glob(os.path.join(d, "..", f"rapidocr-{VERSION}.dist-info", "licenses", "MODEL_LICENSES.md"))
    return hits[0] if hits else None
