"""Text layouts: the features that make crops look like real ones must keep targets and boxes exact."""

import random

import numpy as np
import pytest

from saccade.synth import corpus, fonts, phrases, text_blocks
from saccade.synth.text_blocks import TextLayout, render_text
from saccade.synth.typeset import TextStyle, typeset
from saccade.synth.fonts import covering_face, pick_family


def test_underline_draws_a_rule_below_the_words():
    ink, target = render_text(random.Random(1), TextLayout(lines=[["Total amount"]], underline=True), size=30)
    assert target == "Total amount"
    bottom = max(b[3] for _, b in ink.words)
    below = ink.coverage[bottom - 2:]
    left, right = ink.words[0][1][0], ink.words[-1][1][2]
    assert (below[:, left:right] > 128).all(axis=1).any()


def test_quotes_by_face_are_typeset_in_proportional_faces_and_straight_in_monospaced_ones(monkeypatch):
    monkeypatch.setattr(text_blocks, "QUOTES", "by-face")
    plain = 'Don\'t say "yes" -- it\'s late...'
    typeset_form = "Don’t say “yes” — it’s late…"

    def targets(genre: str) -> set[str]:
        return {render_text(random.Random(seed), TextLayout(lines=[[plain]], genre=genre))[1] for seed in range(30)}

    assert targets("mono") == {plain}
    assert targets("serif") == {plain, typeset_form}


def test_mono_share_sets_how_often_a_monospaced_family_is_drawn(monkeypatch):
    monkeypatch.setattr(fonts, "GENRE_WEIGHTS", dict(fonts.GENRE_WEIGHTS))
    fonts.set_mono_share(0.6)
    assert fonts.GENRE_WEIGHTS["mono"] == 0.6
    assert fonts.GENRE_WEIGHTS["serif"] / fonts.GENRE_WEIGHTS["sans"] == pytest.approx(0.45 / 0.4)
    rng = random.Random(0)
    drawn = [pick_family(rng)[0].genre for _ in range(400)]
    assert 0.5 < drawn.count("mono") / len(drawn) < 0.7
    with pytest.raises(ValueError):
        fonts.set_mono_share(1.5)


def test_a_glyph_stand_in_draws_one_character_and_records_the_other():
    face = covering_face(random.Random(0), "l937", genre="mono")
    plain = TextStyle(face=face, size=32)
    struck = TextStyle(face=face, size=32, glyphs=(("1", "l"),))
    drawn, typed = typeset([["l937"]], plain), typeset([["1937"]], struck)
    assert np.array_equal(drawn.coverage, typed.coverage)
    assert [w for w, _ in typed.words] == ["1937"]
    assert [c for c, _ in typed.chars] == list("1937")
    assert [b for _, b in typed.chars] == [b for _, b in drawn.chars]


def test_typewriter_ones_strike_ones_with_l_only_in_monospaced_faces(monkeypatch):
    monkeypatch.setattr(text_blocks, "TYPEWRITER_ONES", 1.0)

    def glyphs(genre: str) -> set:
        return {text_blocks._style(random.Random(seed), TextLayout(lines=[["1937"]], genre=genre), "1937", 32).glyphs
                for seed in range(10)}

    assert glyphs("mono") == {(("1", "l"),)}
    assert glyphs("serif") == {()}
    with pytest.raises(ValueError):
        text_blocks.set_typewriter_ones(-0.1)


def test_neighbouring_lines_are_inked_but_not_in_the_target():
    layout = TextLayout(lines=[["Payment is due within thirty days"]], neighbour_share=1.0)
    for seed in range(5):
        ink, target = render_text(random.Random(seed), layout, size=28)
        assert target == "Payment is due within thirty days"
        assert [w for w, _ in ink.words] == target.split()
        x0, y0, x1, y1 = ink.focus
        outside = ink.coverage.copy()
        outside[y0:y1, x0:x1] = 0
        assert outside.max() > 0  # another line was printed around the focus


def test_paragraphs_keep_at_most_max_lines_and_wrap_to_width():
    words = corpus.words_span(random.Random(4), 200)
    ink, target = render_text(random.Random(4), TextLayout(prose=words, max_lines=6), size=20, width=400)
    lines = target.split("\n")
    assert len(lines) == 6 and " ".join(lines).split() == words[:len(" ".join(lines).split())]
    assert max(b[2] for _, b in ink.words) - min(b[0] for _, b in ink.words) <= 400 + 2


def test_hanging_list_item_indents_continuation_lines():
    words = corpus.words_span(random.Random(5), 40)
    ink, target = render_text(random.Random(5), TextLayout(prose=words, list_marker="(a)", align="left"), size=20,
                              width=300)
    first, second = target.split("\n")[:2]
    assert first.startswith("(a) ")
    marker_left = ink.words[0][1][0]
    second_left = ink.words[len(first.split())][1][0]
    assert second_left > marker_left + 10


def test_multi_column_lines_put_amounts_flush_right():
    rng = random.Random(2)
    rows = [["Coffee beans 1kg", "12.50"], ["Bread", "3.10"], ["TOTAL", "115.60"]]
    ink = typeset(rows, TextStyle(covering_face(rng, "x", "mono"), 24))
    rights = [b[2] for w, b in ink.words if w in ("12.50", "3.10", "115.60")]
    assert max(rights) - min(rights) <= 2


def test_character_boxes_are_tight_for_thin_glyphs():
    rng = random.Random(3)
    ink = typeset([["a — b . c"]], TextStyle(covering_face(rng, "a — b . c", "serif"), 40), pad=4)
    for ch, (x0, y0, x1, y1) in ink.chars:
        patch = ink.coverage[y0:y1, x0:x1]
        assert patch.max() > 100, ch
        if ch in "—.":
            # at most a pixel of paper above and below the ink, not the whole line height
            rows = np.flatnonzero(patch.max(axis=1) > 0)
            assert rows[0] <= 1 and rows[-1] >= patch.shape[0] - 2, ch


def test_form_fields_pair_labels_with_fitting_values():
    rng = random.Random(0)
    for _ in range(200):
        text = phrases.field(rng)
        if text.startswith("Email"):
            assert "@" in text
        if text.startswith(("Amount Due", "Total", "Balance")):
            assert any(c.isdigit() for c in text)


def test_bold_label_shares_the_baseline_with_its_value():
    layout = TextLayout(lines=[["Invoice No.: INV-2024-00042"]], bold_label_words=2)
    ink, target = render_text(random.Random(7), layout, size=32)
    assert target == "Invoice No.: INV-2024-00042"
    assert [w for w, _ in ink.words] == target.split()
    (_, label), (_, value) = ink.words[1], ink.words[2]
    assert label[2] < value[0]  # value starts after the label
    assert abs(label[3] - value[3]) <= 2  # no descenders here: bottoms sit on one baseline
    for _, (x0, y0, x1, y1) in ink.words:
        assert ink.coverage[y0:y1, x0:x1].max() > 100


def test_crop_words_mixes_prose_spans_with_words_a_decoder_cannot_guess():
    rng = random.Random(7)
    draws = [corpus.crop_words(rng, 6) for _ in range(400)]
    assert all(1 <= len(w) <= 6 for w in draws)  # a prose span may come from a shorter passage
    assert all(c in corpus.CHARSET for w in draws for word in w for c in word)
    # Spans are consecutive words of one passage; independent draws almost never are.
    def in_some_passage(words):
        text = " ".join(words)
        return any(text in " ".join(p) for p in corpus.passages())
    spans = sum(in_some_passage(w) for w in draws[:60])
    assert 20 <= spans <= 50, spans  # about 60% prose
