"""A line encoder's PyTorch reference against a committed onnxruntime golden (line_encoder_golden.py writes them)."""
import numpy as np
import torch

from saccade.line_encoder import line_pixels


def close(ours, ref):
    """Max difference relative to the reference's own scale."""
    return float(np.abs(ours - ref).max()) <= 1e-4 * max(1.0, float(np.abs(ref).max()))


def check_golden(encoder, path):
    """Backbone and neck within 1e-4 of scale, the same best class per column, its probability within 1e-3."""
    golden = np.load(path)
    for i in range(3):
        with torch.no_grad():
            out = encoder(line_pixels(golden[f"image{i}"]))
        assert close(out["backbone"][0].numpy(), golden[f"backbone{i}"])
        assert close(out["neck"][0].numpy(), golden[f"neck{i}"])
        probs = torch.softmax(out["ctc_logits"][0], -1)
        assert (probs.argmax(-1).numpy() == golden[f"best{i}"]).all()
        assert np.abs(probs.max(-1).values.numpy() - golden[f"best_prob{i}"]).max() < 1e-3
