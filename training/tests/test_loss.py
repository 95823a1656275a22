import torch

from saccade.loss import dual_loss
from saccade.masks import build_sample
from saccade.vocab import MASK


def test_diffusion_loss_only_on_masked_positions():
    g = torch.Generator().manual_seed(0)
    s = build_sample(1, 2, 5, list(range(40, 60)), 8, g)
    T = len(s["input_ids"])
    logits = torch.randn(1, T, 384, requires_grad=True)
    _, _, diff = dual_loss(logits, s["ar_labels"][None], s["diff_labels"][None])
    diff.backward()
    has_grad = logits.grad[0].abs().sum(-1) > 0
    assert torch.equal(has_grad, s["input_ids"] == MASK)


def test_ar_loss_only_on_prompt_and_clean_stream():
    g = torch.Generator().manual_seed(0)
    s = build_sample(1, 2, 5, list(range(40, 50)), 8, g)
    P, L = s["prefix_len"], s["stream_len"]
    T = len(s["input_ids"])
    logits = torch.randn(1, T, 384, requires_grad=True)
    _, ar, _ = dual_loss(logits, s["ar_labels"][None], s["diff_labels"][None])
    ar.backward()
    rows = (logits.grad[0].abs().sum(-1) > 0).nonzero().squeeze(1).tolist()
    assert rows == list(range(P - 1, P + 10))  # prompt, then clean slots up to the one predicting EOS


def test_total_is_half_and_half():
    g = torch.Generator().manual_seed(0)
    s = build_sample(1, 2, 5, list(range(40, 50)), 8, g)
    logits = torch.randn(1, len(s["input_ids"]), 384)
    total, ar, diff = dual_loss(logits, s["ar_labels"][None], s["diff_labels"][None])
    assert torch.allclose(total, 0.5 * ar + 0.5 * diff)
