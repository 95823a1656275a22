"""A small byte-level BPE with GLM-OCR's 36 added tokens, for the tiny test checkpoint.

It has the real tokenizer.json's structure (docs/glm-ocr.md, "Tokenizer"): a Split on a GPT-4-style
regex, then ByteLevel without its own regex, BPE with `ignore_merges`, the added tokens after the learned
vocabulary in the real order, so the ids the config names (image, begin/end of image, EOS) are the real
ones minus an offset. It stands in until the real tokenizer's reproduction (make_bpe_golden.py) exists;
make_tiny.py takes any tokenizer.json with these added tokens instead (--tokenizer).
"""
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

# GLM-OCR's added tokens in id order (the real ids are 59246 + index). The ten tool/think tags are stripped
# from the copies of the real tokenizer_config.json we could read; their order here is GLM-4.x's.
ADDED_TOKENS = [
    "<|endoftext|>", "[MASK]", "[gMASK]", "[sMASK]", "<sop>", "<eop>",
    "<|system|>", "<|user|>", "<|assistant|>", "<|observation|>",
    "<|begin_of_image|>", "<|end_of_image|>", "<|begin_of_video|>", "<|end_of_video|>",
    "<|begin_of_audio|>", "<|end_of_audio|>", "<|begin_of_transcription|>", "<|end_of_transcription|>",
    "<|code_prefix|>", "<|code_middle|>", "<|code_suffix|>",
    "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
    "/nothink", "<|begin_of_box|>", "<|end_of_box|>", "<|image|>", "<|video|>",
]
# Added but not special in the real file, so decoding with skip_special_tokens keeps them.
NOT_SPECIAL = {"<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
               "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|image|>", "<|video|>"}

SPLIT_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

# Our own text: the three tasks' kinds of output, so the merges look like an OCR model's.
_CORPUS = [
    "Text Recognition: Table Recognition: Formula Recognition:",
    "The quick brown fox jumps over the lazy dog. Invoice 2024-03-17, total 1,284.50 EUR.",
    "Receipt no. 00731 - Coffee 3.20, Bagel 2.75, Tax 0.60. Thank you for shopping with us!",
    "Chapter 3. Results: the model reads 95.16 points; the baseline 86.17 at tau 0.7.",
    "<table><tr><td>Name</td><td>Qty</td><td>Price</td></tr>"
    "<tr><td>Paper</td><td>12</td><td>4.99</td></tr></table>",
    "\\frac{a+b}{2} \\geq \\sqrt{ab}, \\sum_{i=1}^{n} x_i^2, \\int_0^1 f(x)\\,dx = F(1) - F(0)",
    "# Heading\n\n- item one\n- item two\n\n**bold** and *italic* text, `code` and [link](url).",
    "Jürgen's café on Main St. opened at 7:30; Épées, naïve façades, Straße, Ærø.",
]


def build_tokenizer(vocab_size: int) -> Tokenizer:
    """vocab_size counts the learned entries (256 bytes + merges); the added tokens come after."""
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False, min_frequency=1)
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    tok.add_tokens([AddedToken(t, special=t not in NOT_SPECIAL, normalized=False) for t in ADDED_TOKENS])
    return tok
