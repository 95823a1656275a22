"""The reference model: vision encoder, patch merger and decoder, named and shaped as docs/model-format.md.

The decoder has two entry points: `forward` over whole sequences with an explicit attention mask (training,
all three streams in one pass) and `extend` over a KV cache (greedy AR, draft and verify forwards).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .preprocess import patchify, preprocess


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def inv_freq(head_dim, theta):
    return theta ** (-torch.arange(0, head_dim // 2, dtype=torch.float64) * 2 / head_dim)


def vision_angles(rows, cols, head_dim, theta):
    """Angles [N, head_dim/2] for patches in row-major order: first half of frequencies from the row."""
    freq = inv_freq(head_dim, theta)
    r = torch.arange(rows, dtype=torch.float64).repeat_interleave(cols)
    c = torch.arange(cols, dtype=torch.float64).repeat(rows)
    quarter = head_dim // 4
    pos = torch.where(torch.arange(head_dim // 2) < quarter, r[:, None], c[:, None])
    return pos * freq


def mrope_angles(pos3, head_dim, theta, section):
    """pos3 [..., 3] (t, h, w) -> angles [..., head_dim/2] with each frequency's axis per mrope_section."""
    freq = inv_freq(head_dim, theta).to(pos3.device)
    j = torch.arange(head_dim // 2, device=pos3.device)
    axis = (j >= section[0]).long() + (j >= section[0] + section[1]).long()
    pos = pos3.to(torch.float64)[..., axis]
    return pos * freq


FUSED_ATTENTION = tuple(int(v) for v in torch.__version__.split(".")[:2]) >= (2, 1)


def attention_bias(mask, dtype):
    """Boolean mask (True = may attend) -> additive bias, built once per forward for all layers."""
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(~mask, float("-inf"))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class VisionAttention(nn.Module):
    def __init__(self, dim, heads, eps):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.q_norm = RMSNorm(self.head_dim, eps)
        self.k_norm = RMSNorm(self.head_dim, eps)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, cos, sin, key_mask):
        # x [B, N, Dv]; cos/sin [B, N, hv/2]; key_mask [B, N] True for real patches.
        B, N, _ = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        cos, sin = cos[:, None], sin[:, None]
        q = rotate_half(self.q_norm(q), cos, sin)
        k = rotate_half(self.k_norm(k), cos, sin)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        out = scores.softmax(-1) @ v
        return self.proj(out.transpose(1, 2).reshape(B, N, -1))


class VisionLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        dim, eps = cfg["hidden_size"], cfg["rms_norm_eps"]
        self.norm1 = RMSNorm(dim, eps)
        self.attn = VisionAttention(dim, cfg["num_heads"], eps)
        self.norm2 = RMSNorm(dim, eps)
        self.mlp = SwiGLU(dim, cfg["intermediate_size"])

    def forward(self, x, cos, sin, key_mask):
        x = x + self.attn(self.norm1(x), cos, sin, key_mask)
        return x + self.mlp(self.norm2(x))


def centered(x):
    """x [N, D] minus its mean over the N patches of one image.

    What the decoder can read is how patches differ. Without this, the encoder of a model that has not yet
    learnt to read quiets the image's noise by adding a large component shared by all patches (in run tiny-v3's
    first minutes the patches' differences fell from 37% to 2% of the features' RMS within 300 steps, and to
    0.2% after the merger); centred and then normalised, that difference cannot be scaled down by gradient
    descent, only changed.
    """
    return x - x.mean(0, keepdim=True)


class ConvStem(nn.Module):
    """3x3 convolutions of stride 2 from pixels to one feature vector per patch (format 3).

    A linear embedding of a 16-pixel patch has to learn every glyph at every offset inside the patch; the
    convolutions see a stroke the same wherever it falls and reach across patch borders, where characters
    cut in two lie. Measured on the glyph objective alone, from scratch, at equal samples (5,600 regions):
    2.8 nats per character against 3.6 for the linear embedding (decision 0011)."""

    def __init__(self, patch_size, in_channels, channels):
        super().__init__()
        if 2 ** len(channels) != patch_size:
            raise ValueError(f"{len(channels)} stride-2 convolutions cannot make {patch_size}-pixel patches")
        self.P, self.C = patch_size, in_channels
        ins = [in_channels] + list(channels[:-1])
        self.convs = nn.ModuleList(nn.Conv2d(i, o, 3, stride=2, padding=1) for i, o in zip(ins, channels))

    def forward(self, patches, grid):
        """patches [Hp*Wp, P*P*C] row-major (the contract's patch vectors) -> [Hp*Wp, channels[-1]]."""
        (hp, wp), P, C = grid, self.P, self.C
        x = patches.view(hp, wp, C, P, P).permute(2, 0, 3, 1, 4).reshape(1, C, hp * P, wp * P)
        for conv in self.convs:
            x = F.gelu(conv(x))
        return x[0].flatten(1).T


class VisionEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        P, C, dim = cfg["patch_size"], cfg["in_channels"], cfg["hidden_size"]
        stem = cfg.get("stem_channels")
        self.stem = ConvStem(P, C, stem) if stem else None
        self.patch_embed = nn.Linear(stem[-1] if stem else P * P * C, dim)
        self.layers = nn.ModuleList(VisionLayer(cfg) for _ in range(cfg["num_layers"]))
        self.post_norm = RMSNorm(dim, cfg["rms_norm_eps"])

    def forward(self, patch_list, grids):
        """patch_list: per image [N_i, P*P]; grids: per image (Hp, Wp). Returns per image [N_i, Dv]."""
        cfg = self.cfg
        hv = cfg["hidden_size"] // cfg["num_heads"]
        n_max = max(p.shape[0] for p in patch_list)
        B = len(patch_list)
        dtype = self.patch_embed.weight.dtype
        if self.stem is not None:
            patch_list = [self.stem(p, g) for p, g in zip(patch_list, grids)]
        device = patch_list[0].device
        x = torch.zeros(B, n_max, patch_list[0].shape[1], dtype=dtype, device=device)
        angles = torch.zeros(B, n_max, hv // 2, dtype=torch.float64, device=device)
        key_mask = torch.zeros(B, n_max, dtype=torch.bool, device=device)
        for i, (p, (hp, wp)) in enumerate(zip(patch_list, grids)):
            n = p.shape[0]
            x[i, :n] = p
            angles[i, :n] = vision_angles(hp, wp, hv, cfg["rope_theta"])
            key_mask[i, :n] = True
        cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)
        x = self.patch_embed(x)
        for layer in self.layers:
            x = layer(x, cos, sin, key_mask)
        return [self.post_norm(centered(x[i, :p.shape[0]])) for i, p in enumerate(patch_list)]


class PatchMerger(nn.Module):
    """Ends in an RMSNorm: the decoder's pre-norm layers cannot see the image embeddings' scale, so without
    it the scale drifts freely (to an RMS of ~550 in run tiny-v2), the decoder layers' additions to the image
    positions vanish beside it, and the gradient reaching the vision encoder shrinks by the same factor."""

    def __init__(self, vision_dim, text_dim, merge, eps):
        super().__init__()
        self.merge = merge
        self.fc1 = nn.Linear(merge * merge * vision_dim, text_dim)
        self.fc2 = nn.Linear(text_dim, text_dim)
        self.norm = RMSNorm(text_dim, eps)

    def forward(self, x, grid):
        """x [Hp*Wp, Dv] row-major -> [rows*cols, D], each cell's m x m patches concatenated row-major."""
        (hp, wp), m = grid, self.merge
        x = x.view(hp // m, m, wp // m, m, -1).permute(0, 2, 1, 3, 4).reshape((hp // m) * (wp // m), -1)
        return self.norm(self.fc2(F.gelu(self.fc1(x))))


class DecoderAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        D, d = cfg["hidden_size"], cfg["head_dim"]
        self.hq, self.hkv, self.d = cfg["num_attention_heads"], cfg["num_key_value_heads"], d
        self.q_proj = nn.Linear(D, self.hq * d, bias=False)
        self.k_proj = nn.Linear(D, self.hkv * d, bias=False)
        self.v_proj = nn.Linear(D, self.hkv * d, bias=False)
        self.o_proj = nn.Linear(self.hq * d, D, bias=False)

    def keys(self, x, cos, sin):
        """The (k, v) [B, Hkv, T, d] that rows x [B, T, D] add to the cache."""
        B, T, _ = x.shape
        k = self.k_proj(x).view(B, T, self.hkv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.hkv, self.d).transpose(1, 2)
        return rotate_half(k, cos[:, None], sin[:, None]), v

    def forward(self, x, cos, sin, bias, past=None, watch=False):
        # x [B, T, D]; cos/sin [B, T, d/2]; bias [B, T, S] additive (0 or -inf), S = past + T. With watch,
        # also returns every query head's attention probabilities [B, Hq, T, S] (None otherwise).
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.hq, self.d).transpose(1, 2)
        q = rotate_half(q, cos[:, None], sin[:, None]) / math.sqrt(self.d)
        k, v = new_kv = self.keys(x, cos, sin)
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        group = self.hq // self.hkv
        if not watch and FUSED_ATTENTION:
            # The same arithmetic in one fused kernel (PyTorch >= 2.1): training's three-stream sequences are
            # several hundred rows long, where the explicit form below spends most of the step.
            out = F.scaled_dot_product_attention(q, k.repeat_interleave(group, 1), v.repeat_interleave(group, 1),
                                                 attn_mask=bias[:, None], scale=1.0)
            return self.o_proj(out.transpose(1, 2).reshape(B, T, -1)), new_kv, None
        # Query head j uses kv head j // group: stack each kv head's queries instead of copying k and v.
        q = q.reshape(B, self.hkv, group * T, self.d)
        scores = (q @ k.transpose(-1, -2)).view(B, self.hkv, group, T, -1) + bias[:, None, None]
        probs = scores.softmax(-1)
        out = (probs.view(B, self.hkv, group * T, -1) @ v).view(B, self.hq, T, self.d)
        watched = probs.view(B, self.hq, T, -1) if watch else None
        return self.o_proj(out.transpose(1, 2).reshape(B, T, -1)), new_kv, watched


class DecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = DecoderAttention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.mlp = SwiGLU(cfg["hidden_size"], cfg["intermediate_size"])

    def forward(self, x, cos, sin, bias, past=None, watch=False):
        h, new_kv, watched = self.self_attn(self.input_layernorm(x), cos, sin, bias, past, watch)
        x = x + h
        return x + self.mlp(self.post_attention_layernorm(x)), new_kv, watched


class TextModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg["num_layers"]))
        self.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])


class MtpHead(nn.Module):
    """Multi-token prediction (DeepSeek-V3's MTP module, the drafter GLM-OCR ships): one more decoder layer
    whose position i reads the trunk's last hidden state h_i and the embedding of the token at i + 1, and
    predicts the token at i + 2 through the shared LM head. Drafting applies it again to its own output and
    its own guess, as often as the draft is long (docs/decisions/0018)."""

    def __init__(self, cfg):
        super().__init__()
        D, eps = cfg["hidden_size"], cfg["rms_norm_eps"]
        self.hnorm = RMSNorm(D, eps)
        self.enorm = RMSNorm(D, eps)
        self.eh_proj = nn.Linear(2 * D, D, bias=False)
        self.layer = DecoderLayer(cfg)
        self.norm = RMSNorm(D, eps)

    def fuse(self, h, next_embeds):
        return self.eh_proj(torch.cat([self.hnorm(h), self.enorm(next_embeds)], dim=-1))


class SaccadeOCR(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        tc = config["text_config"]
        self.build_vision(config)
        self.model = TextModel(tc)
        self.lm_head = nn.Linear(tc["hidden_size"], tc["vocab_size"], bias=False)
        self.mtp = MtpHead(tc) if tc.get("num_mtp_layers", 0) else None
        self.apply(self._init)

    def build_vision(self, config):
        vc, tc = config["vision_config"], config["text_config"]
        self.vision = VisionEncoder(vc)
        self.merger = PatchMerger(vc["hidden_size"], tc["hidden_size"], vc["merge_size"], tc["rms_norm_eps"])

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)

    def encode_images(self, patch_list, grids):
        """Per image: merged image embeddings [rows*cols, D] in row-major order."""
        feats = self.vision(patch_list, grids)
        return [self.merger(f, g) for f, g in zip(feats, grids)]

    def prepare(self, gray):
        """An 8-bit grey crop -> the model's input pixels (docs/model-format.md, "Image preprocessing")."""
        return preprocess(gray, self.config["image"])

    def image_grid(self, pixels):
        """(rows, cols) of image tokens that preprocessed pixels give."""
        unit = self.config["image"]["unit"]
        return pixels.shape[0] // unit, pixels.shape[1] // unit

    def image_tokens(self, pixels):
        """One preprocessed image -> its image embeddings [rows*cols, D], the merged grid (rows, cols), the
        image tokens' reading positions (None: grid positions; sequence.prefix) and the encoder's folded CTC
        distribution (None: the encoder has no CTC head; reading_prior)."""
        vc = self.config["vision_config"]
        patches, grid = patchify(pixels.to(self.lm_head.weight.dtype), vc["patch_size"])
        m = vc["merge_size"]
        return self.encode_images([patches], [grid])[0], (grid[0] // m, grid[1] // m), None, None

    def _rope(self, pos3):
        tc = self.config["text_config"]
        angles = mrope_angles(pos3, tc["head_dim"], tc["rope_theta"], tc["mrope_section"])
        dtype = self.lm_head.weight.dtype
        return angles.cos().to(dtype), angles.sin().to(dtype)

    def embed(self, input_ids, image_embeds=None):
        """Token embeddings with the IMG slots replaced, in order, by each row's image embeddings."""
        x = self.model.embed_tokens(input_ids)
        if image_embeds is not None:
            img = self.config["image_token_id"]
            x = x.clone()
            for b, emb in enumerate(image_embeds):
                slots = (input_ids[b] == img).nonzero().squeeze(1)
                x[b, slots] = emb.to(x.dtype)
        return x

    def forward(self, input_ids, pos3, mask, image_embeds=None, watch=None, fixation=None):
        """Whole sequences: input_ids [B, T], pos3 [B, T, 3], mask [B, T, T] bool -> logits [B, T, V].

        watch=(layer, head) also returns that head's attention probabilities [B, T, T]: (logits, probs).
        fixation (fixation.SparseImageAttention) narrows each layer's image keys as the engine's pruning does."""
        x, watched = self.trunk(input_ids, pos3, mask, image_embeds, watch, fixation)
        logits = self.lm_head(self.model.norm(x))
        return logits if watch is None else (logits, watched)

    def trunk(self, input_ids, pos3, mask, image_embeds=None, watch=None, fixation=None):
        """forward's last hidden states before the final norm [B, T, D] (what the MTP head reads), and the
        watched head's attention probabilities (None without watch)."""
        x = self.embed(input_ids, image_embeds)
        cos, sin = self._rope(pos3)
        bias = attention_bias(mask, x.dtype)
        watched = None
        for i, layer in enumerate(self.model.layers):
            layer_bias = bias
            if fixation is not None and (narrowed := fixation.layer_mask(i, mask)) is not mask:
                layer_bias = attention_bias(narrowed, x.dtype)
            scored = fixation is not None and i == fixation.focal
            watched_here = bool(watch) and watch[0] == i
            x, _, probs = layer(x, cos, sin, layer_bias, watch=scored or watched_here)
            if scored:  # the engine scores image tokens by the focal layer's attention summed over heads
                fixation.observe(probs.sum(1))
            if watched_here:
                watched = probs[:, watch[1]]
        return x, watched

    def extend(self, x, pos3, mask, cache):
        """Batch-1 forward of new embeddings x [1, T, D] after `cache` (list of per-layer (k, v) or None).

        mask [1, T, S] covers cache + new tokens. Returns logits [1, T, V], the new tokens' per-layer (k, v)
        (the caller decides how many of them to commit to the cache) and the last hidden states [1, T, D]
        before the final norm (the MTP head's input).
        """
        cos, sin = self._rope(pos3)
        bias = attention_bias(mask, x.dtype)
        new = []
        for i, layer in enumerate(self.model.layers):
            x, kv, _ = layer(x, cos, sin, bias, None if cache is None else cache[i])
            new.append(kv)
        return self.lm_head(self.model.norm(x)), new, x


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())
