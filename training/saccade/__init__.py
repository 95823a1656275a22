"""Saccade OCR model: reference implementation, training recipe and export (see docs/model-format.md)."""
