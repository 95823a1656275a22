"""Saccade as an OCRmyPDF OCR engine: ``ocrmypdf --ocr-engine saccade in.pdf out.pdf``."""
