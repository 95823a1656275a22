"""The line model: the pretrained line encoder (frozen) under our dual-mode decoder (docs/decisions/0019).

Each column of 8 pixels of a 48-pixel-high line becomes one image token: the encoder's neck and backbone
features through a two-layer projector, plus the encoder's own CTC distribution over our vocabulary
(line_reader.fold) read through the decoder's token embeddings (two extra rows for blank and for
characters we lack). So a column that the encoder reads as "a" arrives near the embedding of "a": reading
starts as copying, and the decoder learns what the CTC head gets wrong (spaces, case, punctuation, the
characters its Chinese-first training flattened). The image is one row of columns: rows = 1, cols = T.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

from . import reading_prior
from .config import DEFAULT_CONFIG
from . import ppocr_onnx, ppocr_v6_onnx, rapidocr_package
from .line_encoder import COLUMN, HEIGHT, LineEncoder, ctc_greedy, line_pixels
from .line_encoder_v6 import LineEncoderV6
from .line_reader import ONNX_PATH, class_map, fold, read_charset
from .model import RMSNorm, SaccadeOCR
from .tokenizer import Tokenizer

FORMAT_VERSION = 4
# The pretrained line encoders a line model can stand on, by vision_config.encoder.kind (absent: PP-OCRv4's).
ENCODERS = {"pp_ocrv4": LineEncoder, "pp_ocrv6": LineEncoderV6}


def encoder_kind(encoder_config):
    return encoder_config.get("kind", "pp_ocrv4")


def feature_dims(encoder_config):
    """The width of each encoder output an image token can read."""
    return {"neck": encoder_config["neck"]["dim"], "backbone": encoder_config["blocks"][-1]["out"]}


def load_encoder(kind="pp_ocrv4"):
    """A pretrained encoder from its package's ONNX file: (config, state dict, CTC charset). PP-OCRv4's comes
    from the npm package, PP-OCRv6's from RapidOCR's wheel in .venv-rapidocr (npm run setup:rapidocr)."""
    if kind == "pp_ocrv4":
        config, state = ppocr_onnx.read_graph(ONNX_PATH)
        return config, state, read_charset()
    path = rapidocr_package.rec_onnx()
    if path is None:
        raise FileNotFoundError("PP-OCRv6's recogniser is not installed: run 'npm run setup:rapidocr'")
    config, state, charset = ppocr_v6_onnx.read_graph(path)
    return {"kind": kind, **config}, state, charset


def charset_codes(charset):
    """A CTC charset (blank first, one character a class) as code points, the blank's 0."""
    return torch.tensor([0] + [ord(c) for c in charset[1:]], dtype=torch.long)


def encoder_charset(encoder_config):
    """The CTC classes of a line model's encoder, in order (blank first, space last)."""
    return load_encoder(encoder_kind(encoder_config))[2]


def line_config(encoder_config, features, positions="reading", charset=None, **text_overrides):
    """config.json of a line model: the converted encoder's structure, the features its image tokens read,
    where its image tokens sit ("reading": sequence.prefix; "grid": at their columns), and the decoder
    (DEFAULT_CONFIG's text_config with overrides)."""
    config = copy.deepcopy(DEFAULT_CONFIG)
    config["format_version"] = FORMAT_VERSION
    config["vision_config"] = {"type": "pp_ocr_line", "encoder": encoder_config, "features": list(features),
                               "positions": positions}
    config["image"] = {"height": HEIGHT, "column": COLUMN, "max_width": 1600, "mean": 0.5, "std": 0.5}
    config["text_config"].update(text_overrides)
    V = config["text_config"]["vocab_size"]
    charset = charset if charset is not None else encoder_charset(encoder_config)
    stand_ins = reading_prior.read_as(Tokenizer().tokens, class_map(charset, Tokenizer(), V).tolist(), V)
    config["reading_prior"] = {"weight": reading_prior.WEIGHT, "read_as": stand_ins}
    return config


def reading_index(ctc, blank):
    """Per column, the index of the character the encoder reads there: greedy CTC over the folded
    distribution ctc [T, V + 2] (argmax per column; a new character starts where the argmax is not blank and
    differs from the column before). A character's columns get its index; blank columns get the index of the
    next character, so the gap before character n (a space the encoder may have missed) sits with it."""
    best = ctc.argmax(-1)
    shown = best != blank
    starts = shown & torch.cat([best.new_ones(1, dtype=torch.bool), best[1:] != best[:-1]])
    return torch.cumsum(starts.long(), 0) - shown.long()


class LineProjector(nn.Module):
    def __init__(self, feature_dim, text_dim, eps):
        super().__init__()
        self.fc1 = nn.Linear(feature_dim, text_dim)
        self.fc2 = nn.Linear(text_dim, text_dim)
        self.ctc_extra = nn.Parameter(torch.zeros(2, text_dim))  # blank, and characters we lack
        self.norm = RMSNorm(text_dim, eps)

    def forward(self, features, ctc, token_embeddings):
        """features [T, F], ctc [T, V + 2] probabilities, token_embeddings [V, D] -> image embeddings [T, D]."""
        table = torch.cat([token_embeddings, self.ctc_extra], dim=0)
        return self.norm(self.fc2(F.gelu(self.fc1(features))) + ctc.to(table.dtype) @ table)


class LineOCR(SaccadeOCR):
    def build_vision(self, config):
        vc, tc = config["vision_config"], config["text_config"]
        self.encoder = ENCODERS[encoder_kind(vc["encoder"])](vc["encoder"]).requires_grad_(False)
        dims = feature_dims(vc["encoder"])
        dim = sum(dims[f] for f in vc["features"])
        self.projector = LineProjector(dim, tc["hidden_size"], tc["rms_norm_eps"])
        # Which of our classes each CTC class folds onto (line_reader.class_map); shipped with the weights.
        self.register_buffer("ctc_map", torch.zeros(vc["encoder"]["num_classes"], dtype=torch.long))
        # Each CTC class's code point (the blank's 0): the engine writes a line the decoder cannot write from
        # the encoder's own reading (docs/model-format.md "Format 4").
        self.register_buffer("encoder_charset", torch.zeros(vc["encoder"]["num_classes"], dtype=torch.long))

    def set_charset(self, charset):
        self.ctc_map = class_map(charset, Tokenizer(), self.config["text_config"]["vocab_size"])
        self.encoder_charset = charset_codes(charset)

    def project(self, features, ctc):
        """Cached encoder output of one line -> its image embeddings [T, D]."""
        return self.projector(features, ctc, self.model.embed_tokens.weight)

    def encoder_features(self, pixels):
        """pixels [1, 3, 48, W] -> (features [T, F] in vision_config.features order, folded ctc [T, V + 2])."""
        out = self.encoder(pixels.to(self.lm_head.weight.dtype))
        feats = torch.cat([out[f][0] for f in self.config["vision_config"]["features"]], dim=-1)
        V = self.config["text_config"]["vocab_size"]
        return feats, fold(torch.softmax(out["ctc_logits"][0].float(), -1), self.ctc_map, V + 2)

    def encoder_written(self, pixels):
        """The line as the encoder's own CTC head reads it, where its folded greedy reading holds a character the
        decoder lacks: the engine writes such a line from that reading instead of decoding it
        (docs/model-format.md "Format 4"). None for any other line."""
        probs = torch.softmax(self.encoder(pixels.to(self.lm_head.weight.dtype))["ctc_logits"][0].float(), -1)
        V = self.config["text_config"]["vocab_size"]
        if not bool((fold(probs, self.ctc_map, V + 2).argmax(-1) == V + 1).any()):
            return None
        return ctc_greedy(probs, [chr(c) if c else "" for c in self.encoder_charset.tolist()])

    def prepare(self, gray):
        return line_pixels(gray, self.config["image"]["max_width"])

    def image_grid(self, pixels):
        return 1, pixels.shape[-1] // self.config["image"]["column"]

    def image_tokens(self, pixels):
        feats, ctc = self.encoder_features(pixels)
        return self.project(feats, ctc), (1, feats.shape[0]), self.reading(ctc), ctc

    def reading(self, ctc):
        """The image tokens' positions (sequence.prefix) when vision_config.positions is "reading", else None."""
        if self.config["vision_config"].get("positions") != "reading":
            return None
        return reading_index(ctc, self.config["text_config"]["vocab_size"])
