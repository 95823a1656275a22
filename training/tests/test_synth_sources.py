"""The raw material of the generator: fonts, prose and phrase tables stay inside the vocabulary."""

import random

from saccade.synth import corpus, fonts, formulas, phrases, tables
from saccade.vocab import CHARSET


def _strings(module) -> list[str]:
    found = []
    for value in vars(module).values():
        items = value if isinstance(value, (tuple, list)) else [value]
        for item in items:
            if isinstance(item, tuple):
                found += [x for x in item if isinstance(x, str)]
            elif isinstance(item, str):
                found.append(item)
    return found


def test_phrase_tables_use_only_vocabulary_characters():
    for module in (phrases, tables):
        for text in _strings(module):
            if not text.startswith(("/", "_")) and "\n" not in text:
                assert set(text) <= CHARSET, (module.__name__, text)


def test_every_character_has_a_font():
    families = fonts.catalogue()
    for ch in sorted(CHARSET - {" ", "\n"}):
        assert any(face.covers(ch) for faces in families.values() for face in faces), ch


def test_several_genres_and_styles_are_available():
    faces = [f for family in fonts.catalogue().values() for f in family]
    assert {f.genre for f in faces} == {"serif", "sans", "mono"}
    assert sum(f.bold for f in faces) >= 10 and sum(f.italic for f in faces) >= 10
    assert len(fonts.catalogue()) >= 20


def test_prose_and_generated_phrases_stay_in_the_vocabulary():
    for passage in corpus.passages()[:3000]:
        assert set("".join(passage)) <= CHARSET
    rng = random.Random(0)
    makers = (phrases.sentence, phrases.field, phrases.short_crop, phrases.measurement, phrases.heading,
              phrases.identifier, phrases.email, phrases.url, phrases.amount, phrases.date)
    for _ in range(300):
        for make in makers:
            text = make(rng)
            assert text and set(text) <= CHARSET, (make.__name__, text)
    assert set(phrases.typographic('"a" -- \'b\'...')) <= CHARSET


def test_formula_templates_render():
    for template in formulas.TEMPLATES:
        tokens = template.replace("@n", "2").replace("@v", "x").replace("@g", "\\alpha").replace("@i", "i").split()
        assert formulas.render_formula(tokens, "cm", 10, 72).max() > 0, template


def test_formulas_render_identically_after_the_font_reload():
    """render_formula drops matplotlib's font cache now and then to stop it growing; output must not change."""
    from matplotlib import font_manager
    from matplotlib.mathtext import MathTextParser

    tokens = [formulas.formula_tokens(random.Random(i)) for i in range(6)]
    before = [formulas.render_formula(t, fs, 12.0, 150).tobytes() for t in tokens for fs in ("cm", "stixsans")]
    font_manager._get_font.cache_clear()
    MathTextParser._parse_cached.cache_clear()
    after = [formulas.render_formula(t, fs, 12.0, 150).tobytes() for t in tokens for fs in ("cm", "stixsans")]
    assert before == after
