"""BERT uncased WordPiece tokenisation in pure Python (no `tokenizers`, no hub).

It reproduces the `tokenizer.json` that ships with all-MiniLM-L6-v2
(BertNormalizer with clean_text, handle_chinese_chars, lowercase and accent
stripping; BertPreTokenizer; WordPiece with ``##`` continuations and
``[CLS] … [SEP]``), id for id. Checked against Hugging Face `tokenizers`
0.23 on the LoCoMo texts and on every single Unicode code point: the only
differences are characters whose Unicode properties changed after the Unicode
version built into `tokenizers` (they are rare scripts and new symbols, and
both sides map them to ``[UNK]`` or drop them).

Costs ≈ 0.1 ms for a chat-sized text, against ≈ 5–10 ms for the model run.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable

_PUNCT_CATEGORIES = frozenset({"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"})
# Removed by clean_text (tab, newline and carriage return are whitespace instead).
_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Co"})
# ASCII text: controls other than \t \n \r go; punctuation is every printable
# character that is not a letter, digit or space.
_ASCII_DROP = {i: None for i in (*range(0, 9), 11, 12, *range(14, 32), 127)}
_ASCII_SPACE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9 ]")
_WORD_CACHE_LIMIT = 65_536


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch) in _PUNCT_CATEGORIES


def _normalise(text: str) -> str:
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        dropped = cp == 0 or cp == 0xFFFD or unicodedata.category(ch) in _CONTROL_CATEGORIES
        if dropped and ch not in "\t\n\r":
            continue
        if ch.isspace():
            out.append(" ")
        elif _is_cjk(cp):
            out.extend((" ", ch, " "))
        else:
            out.append(ch)
    text = unicodedata.normalize("NFD", "".join(out))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    # Lower-case character by character, as `tokenizers` does: str.lower() would
    # turn a word-final capital sigma into "ς" where the vocabulary has "σ".
    return "".join(ch.lower() for ch in text) if "Σ" in text else text.lower()


def _split_words(text: str) -> list[str]:
    words: list[str] = []
    for chunk in text.split():
        start = 0
        for i, ch in enumerate(chunk):
            if _is_punct(ch):
                if i > start:
                    words.append(chunk[start:i])
                words.append(ch)
                start = i + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


def pre_tokenise(text: str) -> list[str]:
    """Normalised, lower-cased words and punctuation marks, in order."""
    if text.isascii():
        text = text.translate(_ASCII_DROP).translate(_ASCII_SPACE).lower()
        return _ASCII_WORDS.findall(text)
    return _split_words(_normalise(text))


class WordPieceTokenizer:
    """Turns text into the input ids of an uncased BERT model.

    ``max_length`` counts ``[CLS]`` and ``[SEP]``; longer texts are truncated.
    Safe to share between threads (the word cache is only ever added to).
    """

    def __init__(self, vocab: Iterable[str], max_length: int = 256) -> None:
        self.vocab: dict[str, int] = {}
        for i, token in enumerate(vocab):
            self.vocab.setdefault(token.rstrip("\r\n"), i)
        for special in ("[PAD]", "[UNK]", "[CLS]", "[SEP]"):
            if special not in self.vocab:
                raise ValueError(f"vocabulary lacks the special token {special}")
        if max_length < 3:
            raise ValueError("max_length must be at least 3")
        self.max_length = max_length
        self.pad_id = self.vocab["[PAD]"]
        self.unk_id = self.vocab["[UNK]"]
        self.cls_id = self.vocab["[CLS]"]
        self.sep_id = self.vocab["[SEP]"]
        self._words: dict[str, tuple[int, ...]] = {}
        self._lock = threading.Lock()

    def _word_ids(self, word: str) -> tuple[int, ...]:
        ids = self._words.get(word)
        if ids is not None:
            return ids
        ids = self._greedy(word)
        if len(self._words) < _WORD_CACHE_LIMIT:
            with self._lock:
                self._words[word] = ids
        return ids

    def _greedy(self, word: str) -> tuple[int, ...]:
        if len(word) > 100:
            return (self.unk_id,)
        vocab = self.vocab
        pieces: list[int] = []
        start, n = 0, len(word)
        while start < n:
            end = n
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk_id,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def encode(self, text: str) -> list[int]:
        """``[CLS]`` + word pieces (truncated) + ``[SEP]``."""
        limit = self.max_length - 1
        ids = [self.cls_id]
        for word in pre_tokenise(text):
            ids.extend(self._word_ids(word))
            if len(ids) >= limit:
                del ids[limit:]
                break
        ids.append(self.sep_id)
        return ids
