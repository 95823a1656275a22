"""Training-time corruption of a cached line's encoder output, so that the decoder learns what real scans do
to it (docs/decisions/0020).

On real scans the encoder's CTC reading misses and invents characters far more often than on our generated
lines (mostly spaces: "said,what", "00093-0892-01ETODOLAC" missed; "13  for", "Q.  (By" doubled), and each
one shifts every later image token's reading index (line_model.reading_index) one place from the text row
that writes it. Trained only on the generated lines' few, the decoder loses its place after one and writes
"defefendant", "supppliers" for the rest of the line. `drop_readings` takes characters out of the CTC reading
the way a miss looks: the columns that showed the character show blank, so both the folded distribution and
the reading index lose it while the target keeps it. `double_spaces` adds a space the way an invented one
looks: a blank column beside a space, one blank column away from it, shows a space.

The encoder's features of a real scan are also off the distribution of our renders ("Oistrict 5ales" where
the CTC head read "District Sales"); `jitter_features` adds per-channel noise so that the decoder does not
lean on the exact features where the CTC distribution is clear.
"""
import torch


def drop_readings(ctc, blank, space, p_space, p_other, generator):
    """ctc [T, C] folded probabilities -> a copy where each character the greedy reading shows (a run of
    columns with the same non-blank argmax) is, with probability p_space for a space and p_other for any other
    class, moved to blank: in each of its columns the run's class's mass is added to blank's."""
    best = ctc.argmax(-1)
    shown = best != blank
    starts = shown & torch.cat([best.new_ones(1, dtype=torch.bool), best[1:] != best[:-1]])
    run = torch.cumsum(starts.long(), 0) - 1  # the run each shown column belongs to
    runs = int(starts.sum())
    if runs == 0:
        return ctc
    first = torch.nonzero(starts).squeeze(1)
    p = torch.where(best[first] == space, torch.tensor(p_space), torch.tensor(p_other))
    drop_run = torch.rand(runs, generator=generator) < p
    cols = torch.nonzero(shown & drop_run[run.clamp(min=0)]).squeeze(1)
    if cols.numel() == 0:
        return ctc
    out = ctc.clone()
    cls = best[cols]
    out[cols, blank] += out[cols, cls]
    out[cols, cls] = 0
    return out


def double_spaces(ctc, blank, space, p, generator):
    """ctc [T, C] -> a copy where each space of the greedy reading is, with probability p, read twice: the
    blank column two places after it (or else before it) shows a space when the column between is blank too,
    so that the two stay separate characters of the reading."""
    best = ctc.argmax(-1)
    T = best.shape[0]
    is_space = best == space
    starts = is_space & torch.cat([best.new_ones(1, dtype=torch.bool), ~is_space[:-1]])
    ends = is_space & torch.cat([~is_space[1:], best.new_ones(1, dtype=torch.bool)])
    picked = torch.rand(int(starts.sum()), generator=generator) < p
    blank_at = (best == blank).tolist()
    out = None
    for first, last, take in zip(torch.nonzero(starts).squeeze(1).tolist(), torch.nonzero(ends).squeeze(1).tolist(),
                                 picked.tolist()):
        if not take:
            continue
        for gap, col in ((last + 1, last + 2), (first - 1, first - 2)):
            if 0 <= min(gap, col) and max(gap, col) < T and blank_at[gap] and blank_at[col]:
                out = ctc.clone() if out is None else out
                out[col, space] += out[col, blank]
                out[col, blank] = 0
                blank_at[col] = False
                break
    return ctc if out is None else out


def jitter_features(features, scale, generator):
    """features [T, F] -> features plus Gaussian noise of `scale` times each channel's spread over the line."""
    if scale <= 0 or features.shape[0] < 2:
        return features
    spread = features.float().std(0, keepdim=True)
    noise = torch.randn(features.shape, generator=generator) * spread * scale
    return (features.float() + noise).to(features.dtype)
