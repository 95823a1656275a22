"""The generator reads the pinned files only: packages a machine has besides them change nothing."""

import random

import pytest

from saccade.synth import corpus, fonts, inputs

PROSE = "The party of the first part shall deliver the goods to the buyer within thirty days of the order."


def _clear_caches():
    for cached in (inputs.available, corpus.passages, corpus._cumulative_lengths, corpus.dictionary_words,
                   fonts.catalogue):
        cached.cache_clear()


@pytest.fixture
def pinned_dir(tmp_path, monkeypatch):
    """A pinned folder of the test's own, empty lists at first; every cache built from the real one is dropped
    before and after."""
    folder = tmp_path / "pinned"
    folder.mkdir()
    for kind in inputs.KINDS:
        _pin(folder, kind, [])
    monkeypatch.setattr(inputs, "PINNED_DIR", str(folder))
    _clear_caches()
    yield folder
    _clear_caches()


def _pin(folder, kind, paths):
    (folder / f"{kind}.txt").write_text("".join(f"{p}\n" for p in paths))


def test_prose_comes_from_the_pinned_files_in_their_order(tmp_path, pinned_dir):
    first, second, unpinned = (tmp_path / n for n in ("b-notice", "a-licence", "c-extra"))
    first.write_text("First notice. " + PROSE)
    second.write_text("Second licence. " + PROSE)
    unpinned.write_text("Installed elsewhere. " + PROSE)
    _pin(pinned_dir, "prose", [first, tmp_path / "not-installed", second])

    texts = [" ".join(p) for p in corpus.passages()]
    assert [t.split(".")[0] for t in texts] == ["First notice", "Second licence"]
    report = inputs.report()["prose"]
    assert (report["pinned"], report["found"], report["missing"]) == (3, 2, [str(tmp_path / "not-installed")])


def test_the_digest_changes_with_a_pinned_file_s_bytes(tmp_path, pinned_dir):
    notice = tmp_path / "notice"
    notice.write_text(PROSE)
    _pin(pinned_dir, "prose", [notice])
    before = inputs.report()["prose"]["digest"]
    assert inputs.report()["prose"]["digest"] == before
    notice.write_text(PROSE.replace("thirty", "sixty"))
    assert inputs.report()["prose"]["digest"] != before


def test_fonts_come_from_the_pinned_files_only(pinned_dir):
    folder = "/usr/share/fonts/truetype/dejavu/"  # fonts-dejavu, which the test machines install
    _pin(pinned_dir, "fonts", [folder + "DejaVuSans-Bold.ttf", folder + "DejaVuSans.ttf"])
    catalogue = fonts.catalogue()
    assert list(catalogue) == ["DejaVu Sans"]
    assert [(f.bold, f.path) for f in catalogue["DejaVu Sans"]] == [(True, folder + "DejaVuSans-Bold.ttf"),
                                                                   (False, folder + "DejaVuSans.ttf")]


def test_german_crops_come_from_the_german_files_and_only_when_a_run_asks(tmp_path, pinned_dir, monkeypatch):
    english, german = tmp_path / "licence", tmp_path / "anekdoten"
    english.write_text(PROSE)
    german.write_text("Der Käufer erhält die Ware binnen dreißig Tagen nach der Bestellung.")
    _pin(pinned_dir, "prose", [english])
    _pin(pinned_dir, "prose-de", [german])
    monkeypatch.setattr(corpus, "UNPREDICTABLE_SHARE", 0.0)

    def crop(share):
        monkeypatch.setattr(corpus, "GERMAN_SHARE", share)
        return " ".join(corpus.crop_words(random.Random(3), 4))

    assert crop(0.0) in PROSE
    assert crop(1.0) in german.read_text()
    assert inputs.report()["prose-de"]["found"] == 1
