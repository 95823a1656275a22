"""pytest puts this folder on the path, so the tests score with compare_engines.py's word F1."""
