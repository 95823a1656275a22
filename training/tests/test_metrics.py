from saccade.metrics import cer, normalize_formula, teds


def test_cer_counts_edits_per_truth_character():
    assert cer("hello", "hello") == 0
    assert cer("helo", "hello") == 0.2
    assert cer("", "abcd") == 1


def test_teds_is_one_for_identical_and_drops_with_structure_and_text_errors():
    t = "<table><tr><td>a</td><td>b</td></tr><tr><td colspan=\"2\">c</td></tr></table>"
    assert teds(t, t) == 1.0
    assert teds(t.replace("<thead>", ""), "<table><thead>" + t[7:-8] + "</thead></table>") == 1.0
    wrong_text = t.replace(">b<", ">x<")
    missing_row = "<table><tr><td>a</td><td>b</td></tr></table>"
    assert 0.8 < teds(wrong_text, t) < 1.0
    assert teds(missing_row, t) < teds(wrong_text, t)
    assert teds("", t) < 0.2


def test_formula_match_ignores_spacing_only():
    assert normalize_formula("x ^ { 2 }  +1") == normalize_formula("x ^ { 2 } +1")
    assert normalize_formula("x^{2}") != normalize_formula("x ^ { 2 }")
