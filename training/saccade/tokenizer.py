"""Token ids <-> text, in the tokenizer.json format of docs/model-format.md."""
import json

from .vocab import ALL_TOKENS, SPECIAL_TOKENS


class Tokenizer:
    def __init__(self, tokens=ALL_TOKENS, special=SPECIAL_TOKENS):
        self.tokens = list(tokens)
        self.special = set(special)
        self.vocab = {tok: i for i, tok in enumerate(self.tokens)}
        self._max_len = max(len(t) for t in self.tokens if t not in self.special)

    def encode(self, text):
        """Greedy longest match over the non-special vocabulary."""
        ids, i = [], 0
        while i < len(text):
            for n in range(min(self._max_len, len(text) - i), 0, -1):
                piece = text[i:i + n]
                if piece in self.vocab and piece not in self.special:
                    ids.append(self.vocab[piece])
                    i += n
                    break
            else:
                raise ValueError(f"character {text[i]!r} at {i} is not in the vocabulary")
        return ids

    def decode(self, ids):
        out = []
        for i in ids:
            if 0 <= i < len(self.tokens) and self.tokens[i] not in self.special:
                out.append(self.tokens[i])
        return "".join(out)

    def to_json(self):
        return {
            "version": "1.0",
            "model": {"type": "SaccadeGreedy", "vocab": dict(self.vocab)},
            "added_tokens": [{"id": self.vocab[t], "content": t, "special": True}
                             for t in self.tokens if t in self.special],
        }

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, ensure_ascii=False, indent=1)

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        vocab = data["model"]["vocab"]
        tokens = [None] * (max(vocab.values()) + 1)
        for tok, i in vocab.items():
            tokens[i] = tok
        special = {a["content"] for a in data.get("added_tokens", []) if a.get("special")}
        return cls(tokens, special)
