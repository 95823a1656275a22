"""The raw material of the generator: fonts, prose and phrase tables stay inside the vocabulary."""

import random
import re

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
              phrases.identifier, phrases.email, phrases.url, phrases.amount, phrases.date, phrases.receipt_field)
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


def test_amounts_print_as_financial_documents_do():
    """Whole numbers, tenths and cents all occur, dollars far more often than yen, and one table column keeps
    one style: a model that never saw "59.0" reads it as "590"."""
    rng = random.Random(0)
    assert {len(phrases.number(rng).partition(".")[2]) for _ in range(300)} == {0, 1, 2}
    amounts = [phrases.amount(rng) for _ in range(2000)]
    assert sum(a.startswith("$") for a in amounts) > 5 * sum(a.startswith("¥") for a in amounts) > 0
    for seed in range(20):
        column = tables.column_format(random.Random(seed), "amount")
        cells = [column(rng).rstrip(" USDEUR€)") for _ in range(30)]
        # a group separator is followed by three digits, a decimal separator by one or two
        places = {len(m.group(1)) if (m := re.search(r"[.,](\d{1,2})$", c)) else 0 for c in cells}
        assert len(places) == 1, cells


def test_capitals_stay_in_the_vocabulary():
    every = "".join(sorted(CHARSET - {"\n"}))
    capitals = phrases.capitals(every)
    assert set(capitals) <= CHARSET and len(capitals) == len(every)
    assert phrases.capitals("Net 30 days, café") == "NET 30 DAYS, CAFÉ"


def test_catalog_lines_name_their_items_in_capitals_from_the_whole_dictionary():
    """Statement and catalogue rows: an item in capitals, then amounts in one currency with cents; the names
    come from the dictionary, not a short list the model could learn by heart."""
    rng = random.Random(0)
    rows = [phrases.catalog_line(rng) for _ in range(300)]
    items = set()
    for row in rows:
        assert set("".join(row)) <= CHARSET, row
        item = row[0]
        assert item == item.upper() and "'" not in item, row
        items.add(item)
        assert all(re.fullmatch(r"[\d$€£¥RMUSDE()., -]+", col) for col in row[1:]), row
        assert re.search(r"\d[.,]\d\d\D*$", row[-1]), row
    assert len(items) > 250


def test_receipt_fields_print_labels_with_values_in_both_cases():
    rng = random.Random(1)
    lines = [phrases.receipt_field(rng) for _ in range(400)]
    labelled = [ln for ln in lines if any(ln.upper().startswith(label.upper()) for label in phrases.RECEIPT_LABELS)]
    assert len(labelled) > 300
    assert any(ln == ln.upper() for ln in labelled) and any(ln != ln.upper() for ln in labelled)
    assert any(re.search(r"\d\.\d\d$", ln) for ln in labelled)  # totals with cents
