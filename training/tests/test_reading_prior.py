"""The reading prior (saccade/reading_prior.py): its prefix scores equal a brute-force sum over every CTC path
of a short line (the engine's native/test/reading_prior_test.cc checks the same line), its joint choice lets
a clear reading outweigh a decoder that lost its place, and the stand-ins are the characters the encoder
shows."""
import itertools

import numpy as np
import torch

from saccade.reading_prior import ReadingPrior, draft, read_as, verify

# Tokens: end of text, a, b, c; columns over blank, a, b, c (as in the engine's test).
COLUMNS = [[0.1, 0.7, 0.1, 0.1], [0.5, 0.3, 0.1, 0.1], [0.2, 0.1, 0.6, 0.1], [0.6, 0.1, 0.2, 0.1],
           [0.3, 0.4, 0.1, 0.2]]
TOKENS = ["<eos>", "a", "b", "c"]
EOS = 0


def prior(weight=0.5):
    # Folded layout [T, V + 2]: our four tokens, blank at V, "a character we lack" at V + 1.
    folded = torch.tensor([[0.0, a, b, c, blank, 0.0] for blank, a, b, c in COLUMNS], dtype=torch.float64)
    return ReadingPrior(folded, TOKENS, [4, 1, 2, 3], 4, EOS, weight, {})


def brute(prefix, exactly=False):
    total = 0.0
    for path in itertools.product(range(4), repeat=len(COLUMNS)):  # 0 = blank, else the token
        p = np.prod([COLUMNS[t][s] for t, s in enumerate(path)])
        text = [s for t, s in enumerate(path) if s and (t == 0 or s != path[t - 1])]
        if text[:len(prefix)] == prefix and (not exactly or len(text) == len(prefix)):
            total += p
    return total


def certain(token):
    z = torch.zeros(4)
    z[token] = 1000.0
    return z


def test_prefix_scores_are_the_sum_over_ctc_paths():
    for prefix in ([], [1], [1, 2], [1, 1], [2, 1], [1, 2, 1]):
        p = prior()
        for c in prefix:
            assert p.choose(certain(c)) == c
            p.commit(c)
        scores, base = p.scores(), brute(prefix)
        for c in (1, 2, 3):
            np.testing.assert_allclose(scores[c], brute(prefix + [c]) / base, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(scores[EOS], brute(prefix, exactly=True) / base, rtol=1e-9, atol=1e-12)


def test_a_clear_reading_outweighs_the_decoder():
    z = torch.tensor([0.0, 0.0, 1.0, 0.0])  # the decoder prefers b by a nat; the reading starts with a
    assert prior(0.5).choose(z) == 1
    assert prior(0.0).choose(z) == 2


def test_stand_ins_are_what_the_encoder_shows():
    tokens = ["<eos>", "o", "ö", "-", "\u2013", "€", "1", "¹", "a", "ä", "'", "\u2019"]
    ctc_map = [12, 1, 3, 6, 8, 9, 10, 11]  # the CTC classes fold onto blank (id V), o, -, 1, a, ä, ' and ’
    assert read_as(tokens, ctc_map, 12) == {"ö": "o", "\u2013": "-", "¹": "1", "ä": "a", "\u2019": "'"}


def test_drafts_follow_the_verifier_and_leave_the_prior_as_it_was():
    rows = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.3]])
    p = prior()
    before = (p.rn.copy(), p.rb.copy(), p.last)
    drafted = draft(p, rows)
    assert (p.rn == before[0]).all() and (p.rb == before[1]).all() and p.last == before[2]
    assert drafted == verify(p, rows, drafted)  # the verifier, row by row, takes every draft
    assert draft(None, rows) == [2, 1, 3]
