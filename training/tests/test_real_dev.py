"""The development scans are read in whichever of the app's formats a source stores them (a scribe page is a
JPEG where the others are PNG)."""
import cv2
import numpy as np
import pytest

from saccade.real_dev import image_of


def test_a_page_is_found_in_any_of_the_apps_formats(tmp_path):
    page = np.full((20, 30), 200, np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), page)
    cv2.imwrite(str(tmp_path / "b.JPG"), page)
    cv2.imwrite(str(tmp_path / "c.tif"), page)
    for stem in "abc":
        assert image_of(str(tmp_path), stem).shape == (20, 30)
    with pytest.raises(FileNotFoundError, match="has no image d"):
        image_of(str(tmp_path), "d")
