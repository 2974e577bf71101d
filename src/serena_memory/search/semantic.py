"""Meaning vectors for search: the embedded static model, or a person's own model folder.

The default model is WordLlama's ``l2_supercat`` (256 dimensions), whose weights and
tokenizer come inside the ``wordllama`` package: it works offline right after
``pip install``, loads in well under a second and embeds a query in microseconds, because
a static model is a lookup table of token vectors averaged over the text. Nothing here
downloads anything: a file that is not on disk is an error sentence, never a fetch.

A person who has a larger static model (a folder in model2vec's layout: ``model.safetensors``
holding the ``embeddings`` matrix, or a vocabulary-quantized one with its ``mapping`` and
``weights``, and ``tokenizer.json``) names it in their own
``$SERENA_HOME/serena_config.yml`` as ``memory_search_model: PATH``. A project's file may
not: it is untrusted and must not make search read arbitrary files.

numpy and the model are imported here only, and this module only from search, so commands
that don't search never load them.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.process import PROCESS
from serena_memory.search.vocabulary import WHOLE_WORD_TOKEN, Vocabulary, vocabulary_of

if TYPE_CHECKING:
    import numpy as np

    from serena_memory.search.pieces import Learned

# numpy's OpenBLAS keeps its worker threads spinning for about 2^28 cycles after each
# product (the meaning side's, over every memory's vector) before they sleep: a core
# burnt for a tenth of a second after every search, twice the search's own CPU time at
# 100,000 memories. 2^4 cycles instead: they sleep at once, and are woken in microseconds
# for the next product (the same threads, the same results). OpenBLAS reads this once,
# when numpy is first imported, which in a search process is after this module (numpy is
# imported in functions only); a person's own setting is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

SETTING = "memory_search_model"
DEFAULT_MODEL = "wordllama-l2_supercat-256"
MAX_EMBED_CHARS = 2_000  # what a memory is about is in its name, headings and first lines
EMBED_BATCH = 32
MAX_REMEMBERED_NEIGHBOURS = 4_096  # words whose closest words a process keeps (~1 MB)
# A vocabulary entry that is a whole word: lowercase letters, with the word-start mark of
# SentencePiece (U+2581) or byte-level BPE (U+0120) or none (WordPiece's "##" pieces and
# every other fragment are left out: a fragment is not a word a memory holds).
_WORD_STARTS = ("\u2581", "\u0120", "")
_WHOLE_WORD = re.compile("[a-z]{3,24}")


class ModelUnavailableError(MemoryStoreError):
    """The meaning model can't be loaded; search then ranks by words alone."""


class Embedder:
    """Texts to unit vectors (float32), with an identity that changes with the model, so
    vectors made by another model are never compared with this one's."""

    def __init__(self, inference: Any, identity: str) -> None:
        self._inference = inference
        self.identity = identity
        self.dim = int(inference.shape[1])
        self._norms: tuple[Any, Any] | None = None
        self._whole: tuple[Vocabulary, Any, Any, Any] | None = None  # see _whole_rows
        self._words_guard = threading.Lock()
        # a word's closest words, by (word, count, least): the vocabulary never changes,
        # and each costs a product over the whole vocabulary (several ms)
        self._neighbours: dict[tuple[str, int, float], tuple[tuple[str, float], ...]] = {}
        # what the tokenizer said, kept from earlier processes (search/query_cache.py)
        self.vocabulary: Vocabulary | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # lone surrogates (from a file name or a query) can't be tokenized: replaced
        clean = [text.encode("utf-8", "replace").decode("utf-8") for text in texts]
        with np.errstate(invalid="ignore", divide="ignore"):  # a text of no known token
            vectors = self._inference.embed(clean, norm=True, batch_size=EMBED_BATCH)
        return _finished(vectors)

    def query_vector(self, text: str) -> np.ndarray:
        """The vector of one question: from its words' kept token ids when the vocabulary
        says a text's ids are its words' ids one after another (the same ids, so the same
        numbers: no tokenizer loaded), else from the tokenizer."""
        import numpy as np

        ids = self.vocabulary.text_ids(text) if self.vocabulary is not None else None
        if ids is None:
            return self.embed([text])[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            return _finished(self._inference.embed_ids(ids))[0]

    def tokenizer_loaded(self) -> bool:
        return bool(self._inference.tokenizer_loaded)

    def learned(self, words: list[str], whole: bool, every_word: bool = True) -> Vocabulary:
        """What the loaded tokenizer says: the token ids of ``words`` and whether a text's
        ids are its words' ids; with ``whole``, every whole word's row (and, with
        ``every_word``, its ids) as well."""
        tokenizer, size = self._inference.tokenizer, self._inference.shape[0]
        return vocabulary_of(tokenizer, size, words, whole, every_word)

    def pieces(self, sample: list[str]) -> Learned | None:
        """The loaded tokenizer's vocabulary as pieces words can be cut from, when a
        sample of words (``sample`` among them) is cut from them as the tokenizer cuts
        it (search/pieces.py); None otherwise."""
        from serena_memory.search import pieces

        return pieces.learn(self._inference.tokenizer, sample)

    def neighbours(self, word: str, count: int, least: float) -> list[tuple[str, float]]:
        """The model's whole words closest to ``word`` (at most ``count``, cosine at least
        ``least``), closest first; none for a word the vocabulary doesn't hold whole.
        A static model's token vectors are where its sense of "similar" lives: these are
        the words a memory may use for what the query asks."""
        key = (word, count, least)
        found = self._neighbours.get(key)
        if found is None:
            found = tuple(self._closest(word, count, least))
            with self._words_guard:
                if len(self._neighbours) >= MAX_REMEMBERED_NEIGHBOURS:
                    self._neighbours.clear()
                self._neighbours[key] = found
        return list(found)

    def _closest(self, word: str, count: int, least: float) -> list[tuple[str, float]]:
        """The vocabulary's whole words (a word written as several tokens counts once, as
        its first token) closest to ``word`` by cosine: the product is over every token
        (or every whole word's, when they are kept), and only the best few are looked up
        as words, so no pass over the vocabulary's 32,000 entries is made in Python
        (which cost more than the rest of a search)."""
        import numpy as np

        row = self._word_row(word.lower())
        if row is None or count < 1:
            return []
        scores, rows = self._cosines(row)
        found: list[tuple[str, float]] = []
        looked = 0  # whole words looked at: the best count * 8 of them at most
        for i in np.argsort(-scores):
            score = float(scores[i])
            if score < least or len(found) >= count or looked >= count * 8:
                break
            other = self._whole_word(int(i) if rows is None else int(rows[i]))
            if other is None:
                continue
            looked += 1
            # a form of the same word (the index's stemmer joins those) or a piece of it
            # ("leased" in "release") adds nothing
            if other[:4] != word[:4] and other not in word and word not in other:
                found.append((other, score))
        return found

    def _word_row(self, word: str) -> int | None:
        """The first token that is ``word`` whole (with or without a word-start mark)."""
        if not _WHOLE_WORD.fullmatch(word):
            return None
        if self._kept_rows() is not None:
            row = self._kept_rows().rows.get(word)  # type: ignore[union-attr]
            return row if row is not None and row < self._inference.shape[0] else None
        tokenizer, size = self._inference.tokenizer, self._inference.shape[0]
        rows = [tokenizer.token_to_id(mark + word) for mark in _WORD_STARTS]
        rows = [row for row in rows if row is not None and row < size]
        return min(rows) if rows else None

    def _whole_word(self, row: int) -> str | None:
        """The word token ``row`` stands for, if it is a whole word's first token."""
        kept = self._kept_rows()
        if kept is not None:
            return kept.words_of.get(row)
        token = self._inference.tokenizer.id_to_token(row)
        match = WHOLE_WORD_TOKEN.fullmatch(token) if token else None
        if match is None or self._word_row(match.group(1)) != row:
            return None
        return match.group(1)

    def _kept_rows(self) -> Vocabulary | None:
        """The kept vocabulary, when it holds the whole words and no tokenizer is loaded."""
        kept = self.vocabulary
        if kept is None or kept.rows is None or self._inference.tokenizer_loaded:
            return None
        return kept

    def _cosines(self, row: int) -> tuple[Any, Any]:
        """Token ``row``'s cosine with every token, or with every kept whole word's first
        token (then with those rows beside): only whole words are ever answered, and a
        one-off process then makes float32 and multiplies 13,000 rows, not 32,000 (the
        same numbers for those rows: the same products, row by row); itself is -1."""
        import numpy as np

        kept = self._kept_rows()
        if kept is None:
            matrix, norms = self._unit_rows()
            scores = (matrix @ matrix[row]) / (norms * norms[row])
            scores[row] = -1.0
            return scores, None
        rows, matrix, norms = self._whole_rows(kept)
        vector = np.asarray(self._inference.rows[row], dtype=np.float32)
        scores = (matrix @ vector) / (norms * _lengths(vector[np.newaxis, :])[0])
        scores[rows == row] = -1.0
        return scores, rows

    def _whole_rows(self, kept: Vocabulary) -> tuple[Any, Any, Any]:
        """The kept whole words' first rows, their vectors as float32 and their lengths,
        made at the first use."""
        import numpy as np

        with self._words_guard:
            if self._whole is None or self._whole[0] is not kept:
                size = self._inference.shape[0]  # a kept row past the matrix: not ours
                rows = np.array(sorted(r for r in kept.words_of if r < size), dtype=np.int64)
                matrix = np.asarray(self._inference.rows[rows], dtype=np.float32)
                self._whole = (kept, rows, matrix, _lengths(matrix))
            return self._whole[1:]

    def _unit_rows(self) -> tuple[Any, Any]:
        """The token matrix and each row's length (infinite for a row of zeros, which is
        close to nothing), made at the first use."""
        import numpy as np

        with self._words_guard:
            if self._norms is None:
                matrix = np.asarray(self._inference.embedding, dtype=np.float32)
                self._norms = (matrix, _lengths(matrix))
            return self._norms


def _lengths(matrix: Any) -> Any:
    """Each row's length, infinite for a row of zeros (which is then close to nothing)."""
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1)
    norms[~(norms > 0)] = np.inf
    return norms


def _finished(vectors: Any) -> Any:
    """Vectors as float32 rows, those of texts of no known token (NaN) zeros."""
    import numpy as np

    return np.ascontiguousarray(np.nan_to_num(np.asarray(vectors, dtype=np.float32)))


class _Models:
    """The meaning models this process has loaded, by folder (loading one takes seconds)."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.by_folder: dict[str, Embedder] = {}


def model_held() -> bool:
    """Whether this process holds a model already (it is a server, or searched before)."""
    return bool(PROCESS.owned(_Models).by_folder)


def model_for(home: Path | None) -> Embedder | None:
    """The meaning model of the user whose home is ``home``. A model folder the user
    named that can't be loaded is their error to fix, said in one sentence; the embedded
    model missing (a broken install) leaves search to rank by words alone rather than
    fail."""
    folder = configured_model(home) if home is not None else None
    if folder is not None:
        return load_model(folder)
    try:
        return load_model()
    except ModelUnavailableError:
        return None


def configured_model(home: Path) -> str | None:
    """The model folder the user's own configuration names, or None for the embedded one."""
    from serena_memory.core.config import GLOBAL_CONFIG_NAME, load_mapping

    path = home / GLOBAL_CONFIG_NAME
    value = load_mapping(path).get(SETTING)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ModelUnavailableError(
            f"{path}: key '{SETTING}': expected the path of a model folder, got {value!r}"
        )
    return str((path.parent / Path(value).expanduser()).resolve())


def load_model(folder: str | None = None) -> Embedder:
    """The embedded model (``folder`` None) or the static model in ``folder``; loaded once
    per process."""
    key = folder or DEFAULT_MODEL
    models = PROCESS.owned(_Models)
    with models.guard:
        model = models.by_folder.get(key)
        if model is None:
            model = models.by_folder[key] = _load_folder(folder) if folder else _load_embedded()
        return model


class StaticModel:
    """A static embedding model: each token a row of ``embedding``, a text the mean of its
    tokens' rows. WordLlama's ``WordLlamaInference`` computes the very same mean (padded
    batches, masked sum over the tokens, then scaled to unit length) and gives the same
    numbers; it is not used because importing any part of the ``wordllama`` package
    imports the whole package, and with it requests, pydantic and its model registry
    (0.2 s of a 0.3 s load), none of which a search needs: the package's files are read
    here with the libraries it reads them with (safetensors, tokenizers).

    The rows are kept as the file has them (the embedded model's are float16): a text's
    tokens' rows are made float32 when looked up, which gives the same numbers as a
    float32 copy of the whole matrix; that copy (32 MB, tens of ms) is made only when
    something asks for ``embedding`` (the closest words of a word) or for the vectors of
    more texts than one batch."""

    def __init__(self, embedding: Any, tokenizer: Any) -> None:
        """``tokenizer``: the tokenizer, or a function reading it, called at its first use
        (a question whose words' token ids are kept needs none: 80 ms of JSON parsed)."""
        self._rows = embedding
        self._float32: Any = None
        self.shape: tuple[int, int] = (int(embedding.shape[0]), int(embedding.shape[1]))
        self._read_tokenizer = tokenizer if callable(tokenizer) else lambda: tokenizer
        self._tokenizer: Any = None
        self._guard = threading.Lock()

    @property
    def tokenizer(self) -> Any:
        with self._guard:
            if self._tokenizer is None:
                tokenizer = self._read_tokenizer()
                tokenizer.enable_padding()
                tokenizer.no_truncation()
                self._tokenizer = tokenizer
            return self._tokenizer

    @property
    def tokenizer_loaded(self) -> bool:
        return self._tokenizer is not None

    @property
    def rows(self) -> Any:
        """The token matrix as the file has it (float16 for the embedded model)."""
        return self._rows

    @property
    def embedding(self) -> Any:
        """The whole matrix as float32 (made at the first use)."""
        import numpy as np

        if self._float32 is None:
            self._float32 = np.ascontiguousarray(self._rows, dtype=np.float32)
        return self._float32

    def embed(self, texts: list[str], norm: bool = True, batch_size: int = EMBED_BATCH) -> Any:
        import numpy as np

        # many texts: the float32 copy made once costs less than their rows made float32
        few = self._float32 is None and len(texts) <= batch_size
        rows_of = self._rows if few else self.embedding
        out = np.empty((len(texts), self.shape[1]), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            encoded = self.tokenizer.encode_batch(
                texts[start : start + batch_size], add_special_tokens=False
            )
            ids = np.array([e.ids for e in encoded], dtype=np.int32)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            pooled = self._pooled(rows_of, ids, mask, norm)
            out[start : start + len(pooled)] = pooled
        return out

    def embed_ids(self, ids: list[int]) -> Any:
        """The unit vector of one text given its token ids, as ``embed`` makes it."""
        import numpy as np

        rows_of = self._rows if self._float32 is None else self._float32
        matrix = np.array([ids], dtype=np.int32)
        return self._pooled(rows_of, matrix, np.ones(matrix.shape, dtype=np.float32), True)

    def _pooled(self, rows_of: Any, ids: Any, mask: Any, norm: bool) -> Any:
        """The masked mean of the rows of ``ids`` (one text a line), scaled to unit length."""
        import numpy as np

        np.clip(ids, 0, self.shape[0] - 1, out=ids)
        rows = rows_of[ids].astype(np.float32, copy=False)
        count = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
        pooled = np.sum(rows * mask[..., np.newaxis], axis=1, dtype=np.float32) / count
        if norm:
            pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled


# The embedded model's files inside the wordllama package
_EMBEDDED_WEIGHTS = ("weights", "l2_supercat_256.safetensors", "embedding.weight")
_EMBEDDED_TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")


def _embedded_package() -> Path | None:
    """The wordllama package's folder, found without importing it (see StaticModel)."""
    import importlib.util

    spec = importlib.util.find_spec("wordllama")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(places[0]) if places else None


def _load_embedded() -> Embedder:
    """The model shipped in the wordllama package, read from its files."""
    package = _embedded_package()
    if package is None:
        raise ModelUnavailableError(
            "the embedded search model is missing (package 'wordllama'); reinstall "
            "serena-memory to search by meaning"
        )

    def read() -> StaticModel:
        from safetensors import safe_open

        with safe_open(str(package.joinpath(*_EMBEDDED_WEIGHTS[:2])), framework="np") as file:
            matrix = file.get_tensor(_EMBEDDED_WEIGHTS[2])
        return StaticModel(matrix, lambda: _read_model(tokenizer, *messages))

    def tokenizer() -> Any:
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(package.joinpath(*_EMBEDDED_TOKENIZER)))

    messages = (
        "the embedded search model",
        "the embedded search model could not be loaded ({}); reinstall wordllama",
    )
    return Embedder(_read_model(read, *messages), DEFAULT_MODEL)


def model_stamp(home: Path | None) -> tuple[str, str] | None:
    """The user's model's identity (as its Embedder will have it) and what answers it
    gave stay valid for: that identity with its files' paths, sizes and modification
    times. Read from the files' stats, nothing loaded; None when a file can't be found
    (the model is then loaded, and says what is wrong)."""
    folder = configured_model(home) if home is not None else None
    if folder is not None:
        files = [os.path.join(folder, "model.safetensors"), os.path.join(folder, "tokenizer.json")]
    else:
        package = _embedded_package()
        if package is None:
            return None
        files = [str(package.joinpath(*_EMBEDDED_WEIGHTS[:2]))]
        files.append(str(package.joinpath(*_EMBEDDED_TOKENIZER)))
    parts = []
    for path in files:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        parts.append(f"{path}\0{stat.st_mtime_ns}\0{stat.st_size}")
    identity = _folder_identity(folder, files[0]) if folder is not None else DEFAULT_MODEL
    return identity, "\0".join([identity, *parts])


def _folder_identity(folder: str, weights: str) -> str:
    """A model folder's identity: its path and its weights file's stamp."""
    stat = os.stat(weights)
    stamp = f"{folder}\0{stat.st_mtime_ns}\0{stat.st_size}".encode("utf-8", "surrogatepass")
    return "static:" + hashlib.sha256(stamp).hexdigest()[:16]


def _read_model(read: Callable[[], Any], what: str, broken: str) -> Any:
    """``read()``, its failures as one sentence each: a package missing, or ``broken``
    (formatted with the error: a file missing, damaged or foreign), never a traceback."""
    try:
        return read()
    except ImportError:
        raise ModelUnavailableError(
            f"{what} needs the packages safetensors and tokenizers; reinstall serena-memory"
        ) from None
    except Exception as exc:
        raise ModelUnavailableError(broken.format(exc)) from None


def _load_folder(folder: str) -> Embedder:
    """A static model folder: ``model.safetensors`` (``embeddings``) and ``tokenizer.json``."""
    weights = os.path.join(folder, "model.safetensors")
    tokenizer_file = os.path.join(folder, "tokenizer.json")
    for needed in (weights, tokenizer_file):
        if not os.path.isfile(needed):
            raise ModelUnavailableError(
                f"the search model folder {folder} has no {os.path.basename(needed)}; "
                f"point '{SETTING}' at a static model folder (model2vec layout)"
            )

    def read() -> StaticModel:
        from safetensors.numpy import load_file

        matrix = _token_matrix(load_file(weights))
        return StaticModel(matrix, lambda: _read_model(lambda: tokenizer(matrix), *messages))

    def tokenizer(matrix: Any) -> Any:
        from tokenizers import Tokenizer

        found = Tokenizer.from_file(tokenizer_file)
        if found.get_vocab_size() > matrix.shape[0]:
            raise ValueError(
                f"the tokenizer has {found.get_vocab_size()} tokens, the matrix "
                f"{matrix.shape[0]} rows"
            )
        return found

    messages = (
        "a search model folder",
        f"the search model folder {folder} can't be loaded ({{}}); check '{SETTING}' in "
        "your serena_config.yml",
    )
    return Embedder(_read_model(read, *messages), _folder_identity(folder, weights))


def _token_matrix(tensors: dict[str, Any]) -> Any:
    """One row per token from a model file's tensors: ``embeddings`` itself, or, in a
    vocabulary-quantized model (model2vec's ``mapping`` and ``weights``), the shared row
    each token maps to, times the token's weight."""
    import numpy as np

    matrix = tensors.get("embeddings")
    if matrix is None and len(tensors) == 1:
        matrix = next(iter(tensors.values()))
    if matrix is None or matrix.ndim != 2:
        raise ValueError("no 2-dimensional 'embeddings' tensor")
    mapping = tensors.get("mapping")
    if mapping is None:
        return matrix
    if mapping.ndim != 1 or not len(mapping) or mapping.min() < 0:
        raise ValueError("'mapping' is not one row number per token")
    if mapping.max() >= len(matrix):
        raise ValueError(f"'mapping' names row {mapping.max()} of {len(matrix)}")
    rows = matrix.astype(np.float32)[mapping]
    weights = tensors.get("weights")
    if weights is not None:
        if weights.shape != mapping.shape:
            raise ValueError("'weights' is not one number per token")
        rows *= weights.astype(np.float32)[:, None]
    return rows


def document_text(name_words: str, headings: str, text: str) -> str:
    """What a memory's vector is made from: its name and headings, which say what it is
    about, then the start of its text."""
    return f"{name_words}\n{headings}\n{text[:MAX_EMBED_CHARS]}"
