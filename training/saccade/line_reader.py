"""The pretrained line encoder as our model sees it: its dictionary mapped onto our vocabulary, and a crop's
image tokens (encoder features and its CTC distribution per column of 8 pixels).

The CTC head's 6,625 classes (blank, 6,623 dictionary characters, space) are folded onto our vocabulary:
a character we have maps to itself; one whose NFKC form we have maps to that (full-width ( to ( and
so on); blank and everything else (mostly CJK, which our vocabulary lacks) get one class each, appended
after our vocabulary. So each column carries a distribution over vocab_size + 2 classes.
"""
import os
import unicodedata

import torch

from .line_encoder import line_pixels
from .tokenizer import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "..", "..", "node_modules", "@gutenye", "ocr-models", "assets")
ONNX_PATH = os.path.join(PACKAGE, "ch_PP-OCRv4_rec_infer.onnx")
KEYS_PATH = os.path.join(PACKAGE, "ppocr_keys_v1.txt")


def read_charset(path=KEYS_PATH):
    """The CTC head's classes in order: blank, the dictionary's lines, space."""
    with open(path, encoding="utf-8") as f:
        keys = f.read().split("\n")
    if keys and keys[-1] == "":
        keys.pop()
    return ["<blank>"] + keys + [" "]


def class_map(charset, tokenizer, vocab_size):
    """[len(charset)] long: our token id for each CTC class, or vocab_size (blank) / vocab_size + 1 (other)."""
    V, vocab = vocab_size, tokenizer.vocab
    out = []
    for i, ch in enumerate(charset):
        if i == 0:
            out.append(V)
            continue
        nfkc = unicodedata.normalize("NFKC", ch)
        out.append(vocab.get(ch, vocab.get(nfkc, V + 1)))
    return torch.tensor(out, dtype=torch.long)


def fold(probs, mapping, classes):
    """CTC probabilities [..., K] -> [..., classes] summed over the classes that map together."""
    out = probs.new_zeros(*probs.shape[:-1], classes)
    return out.index_add_(-1, mapping, probs)


class LineReader:
    """Encoder + folded CTC readout for 8-bit grey crops (no gradients; the encoder stays frozen)."""

    def __init__(self, encoder, charset, vocab_size):
        self.encoder = encoder.eval()
        self.charset = charset
        self.mapping = class_map(charset, Tokenizer(), vocab_size)
        self.classes = vocab_size + 2

    @torch.no_grad()
    def features(self, gray, max_width=1600):
        """-> dict of backbone [T, C], neck [T, 120], ctc [T, vocab_size + 2] (probabilities), and the raw
        CTC logits [T, K] for the encoder's own readout."""
        out = self.encoder(line_pixels(gray, max_width))
        logits = out["ctc_logits"][0]
        return {"backbone": out["backbone"][0], "neck": out["neck"][0],
                "ctc": fold(torch.softmax(logits, -1), self.mapping, self.classes), "ctc_logits": logits}
