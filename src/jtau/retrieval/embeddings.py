"""Dense retrieval's document embeddings, built from the Japanese documents through any
OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, OpenRouter, vLLM, Ollama, LM Studio, TEI).

`build(documents, endpoint)` embeds each document's `content`, as tau2's `embedding_indexer` does
(the title is not embedded, documents get no instruction), in batches of `Settings.batch_size`,
sequentially, in the documents' id order; `dump()` gives the cache file's bytes and `write()`
replaces the file atomically, so a failed build leaves no file and an old one intact.  The same
documents and answers give the same bytes (no timestamp).

The file is a pickle of one tau2 `EmbeddingsCache` entry (`embeddings`, `doc_ids`, `embedder_type`,
`embedder_config`, `num_documents`: what tau2 1.0.1's `EmbeddingsCache.get` reads), the embeddings
as float32 (what the endpoints compute; half of float64's size), plus `jtau`: the model, the base
URL it was built against (no credentials), the dimension and `doc_hash`, tau2's digest of the
document set (sha256 over `id:md5(content)` sorted by id), which `load()` checks against the
documents it is asked to serve: embeddings of other documents are an error, never a silent miss.

Requests: `POST {base_url}/embeddings` with `{"model", "input": [...], "encoding_format": "float"}`.
429, 408, 409, 5xx, timeouts, dropped connections and malformed bodies (not JSON, a missing or
short `data`, indices not 0..n-1, vectors of another length or with non-numbers) are retried with
exponential backoff honouring Retry-After (capped at `max_wait`: util/endpoint.py); other statuses (401, 404, 400)
stop at once with one line.  The API key ($JTAU_EMBED_API_KEY, else $OPENAI_API_KEY) is sent as a
bearer token and nowhere else: not in errors (an error body quoted back has it masked), not in
the repr of `Endpoint`, not in the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from jtau.arms import split_domain
from jtau.errors import EndpointError, InputError
from jtau.util.endpoint import Endpoint, Transient, masked, public_url, retry_after, transient_status
from jtau.util.endpoint import Settings as EndpointSettings
from jtau.util.files import atomic_write
from jtau.util.listing import counted

__all__ = ["Endpoint", "Settings", "endpoint_from_env", "public_url", "Client", "Embeddings", "load_documents",
           "doc_hash", "build", "dump", "write", "load", "default_file"]

FORMAT = 1
DOMAIN = "banking_knowledge_ja"


def endpoint_from_env(base_url: str, model: str) -> Endpoint:
    """The endpoint at `base_url` (an http(s) URL), the key from $JTAU_EMBED_API_KEY, else
    $OPENAI_API_KEY (a local server needs none)."""
    if not base_url or not urlsplit(base_url).scheme.startswith("http") or not urlsplit(base_url).netloc:
        raise EndpointError(f"--base-url {public_url(base_url)!r}: an http(s) URL, as the OpenAI client takes it "
                         "(https://api.openai.com/v1, http://127.0.0.1:8000/v1)")
    if not model:
        raise EndpointError("--model: the embedding model's name at the endpoint (text-embedding-3-large)")
    key = os.environ.get("JTAU_EMBED_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
    return Endpoint(model, base_url.rstrip("/"), key)


@dataclass(frozen=True)
class Settings(EndpointSettings):
    """The endpoint's settings (util/endpoint.py) and the texts a request embeds."""
    attempts: int = 5
    batch_size: int = 64


class Client:
    """Embeds lists of texts; one `httpx.Client`, requests one after another."""

    def __init__(self, endpoint: Endpoint, settings: Settings = Settings(),
                 sleep: Callable[[float], None] = time.sleep):
        import httpx  # here: the CLI's --help and the BM25 path never need it

        self.endpoint, self.settings, self.sleep = endpoint, settings, sleep
        headers = {"Content-Type": "application/json"}
        if endpoint.api_key:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        self.http = httpx.Client(headers=headers, timeout=settings.timeout)
        self.url = f"{endpoint.base_url}/embeddings"
        self.requests = 0

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def embed(self, texts: Sequence[str], dimension: int | None = None) -> np.ndarray:
        """One request's vectors (float32, one row per text), retried until valid."""
        last, hint = "no attempt", ""
        for attempt in range(self.settings.attempts):
            try:
                return self._request(list(texts), dimension)
            except Transient as exc:
                last, hint = str(exc), ": is the endpoint running?" if exc.unreachable else ""
                if attempt + 1 < self.settings.attempts:
                    self.sleep(self.settings.wait(attempt, exc))
        raise EndpointError(f"embeddings endpoint {public_url(self.endpoint.base_url)} failed "
                            f"{counted(self.settings.attempts, 'attempt')} (last: {last}{hint}); nothing written")

    def _request(self, texts: list[str], dimension: int | None) -> np.ndarray:
        import httpx

        self.requests += 1
        payload = {"model": self.endpoint.model, "input": texts, "encoding_format": "float"}
        try:
            response = self.http.post(self.url, json=payload)
        except httpx.TimeoutException:
            raise Transient(f"timeout after {self.settings.timeout:g} s") from None
        except httpx.TransportError:
            raise Transient(f"cannot connect to {public_url(self.endpoint.base_url)}", unreachable=True) from None
        status = response.status_code
        if transient_status(status):
            raise Transient(f"HTTP {status}", retry_after(response.headers))
        if status != 200:
            raise EndpointError(f"the embeddings endpoint refused the request: HTTP {status} (model "
                             f"{self.endpoint.model!r}, base URL {public_url(self.endpoint.base_url)})"
                             + self._reason(response))
        try:
            data = response.json()["data"]
        except (ValueError, KeyError, TypeError):
            raise Transient("malformed response body (no JSON object with `data`)") from None
        return vectors(data, len(texts), dimension)

    def _reason(self, response) -> str:
        """The error message a refusal carries, short, with the key masked."""
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            return ""
        return f": {masked(str(message)[:200], self.endpoint.api_key)}"


def vectors(data, count: int, dimension: int | None) -> np.ndarray:
    """The `data` of an embeddings answer as a (count, dimension) float32 array, or Transient."""
    if not isinstance(data, list) or len(data) != count:
        raise Transient(f"malformed response body ({len(data) if isinstance(data, list) else 'no'} "
                        f"embeddings for {count} inputs)")
    rows: dict[int, list] = {}
    for position, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
            raise Transient("malformed response body (an item without an `embedding` list)")
        index = item.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool) or index in rows or not 0 <= index < count:
            raise Transient("malformed response body (indices are not 0..n-1)")
        rows[index] = item["embedding"]
    lengths = {len(row) for row in rows.values()}
    if len(lengths) != 1 or 0 in lengths or (dimension is not None and lengths != {dimension}):
        raise Transient(f"malformed response body (vectors of lengths {sorted(lengths)}"
                        + (f", expected {dimension}" if dimension else "") + ")")
    if not all(type(x) in (float, int) for row in rows.values() for x in row):
        raise Transient("malformed response body (an embedding holds a non-number)")
    array = np.array([rows[i] for i in range(count)], dtype=np.float32)
    if not np.isfinite(array).all():
        raise Transient("malformed response body (an embedding is not finite)")
    return array


# --- documents -----------------------------------------------------------------------------------

def load_documents(folder: Path) -> list[dict]:
    """The knowledge base's documents (`*.json`: id, title, content), sorted by id; InputError
    naming the file for anything tau2's KnowledgeBase would not load or could not embed."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder of documents (J-tau's knowledge base is "
                         "data/domains/banking_knowledge/documents once it is localized; --documents DIR for another)")
    docs: list[dict] = []
    seen: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read ({exc})") from None
        if not isinstance(doc, dict):
            raise InputError(f"{path}: a document is a JSON object with id, title and content")
        for key in ("id", "title", "content"):
            if not isinstance(doc.get(key), str):
                raise InputError(f"{path}: $.{key} must be a string")
        if not doc["content"].strip():
            raise InputError(f"{path}: $.content is empty (an endpoint cannot embed it)")
        if doc["id"] in seen:
            raise InputError(f"{path}: $.id {doc['id']!r} is also the id of {seen[doc['id']]}")
        seen[doc["id"]] = path.name
        docs.append({"id": doc["id"], "title": doc["title"], "content": doc["content"]})
    if not docs:
        raise InputError(f"{folder}: no *.json documents")
    return sorted(docs, key=lambda d: d["id"])


def doc_hash(documents: Sequence[dict]) -> str:
    """tau2's digest of a document set (EmbeddingsCache._compute_document_hash, over the content)."""
    parts = [f"{doc['id']}:{hashlib.md5(text_of(doc).encode('utf-8')).hexdigest()}"
             for doc in sorted(documents, key=lambda d: d["id"])]
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def text_of(doc: dict) -> str:
    """What tau2's embedding_indexer embeds: `text`, else `content`."""
    return doc.get("text") or doc.get("content") or ""


# --- the cache file ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Embeddings:
    model: str
    base_url: str
    doc_hash: str
    doc_ids: list[str]
    vectors: np.ndarray  # float32, one row per doc id

    def rows_for(self, doc_ids: Sequence[str]) -> np.ndarray:
        """The vectors in the order of `doc_ids` (a pipeline's document order)."""
        where = {doc_id: i for i, doc_id in enumerate(self.doc_ids)}
        return self.vectors[[where[doc_id] for doc_id in doc_ids]]


def build(documents: Sequence[dict], endpoint: Endpoint, settings: Settings = Settings(),
          on_batch: Callable[[int], None] = lambda n: None, client: Client | None = None) -> Embeddings:
    """Embed every document's content (id order), batch by batch; InputError when the endpoint fails."""
    docs = sorted(documents, key=lambda d: d["id"])
    own = client is None
    client = client or Client(endpoint, settings)
    try:
        parts: list[np.ndarray] = []
        dimension = None
        for start in range(0, len(docs), settings.batch_size):
            batch = docs[start:start + settings.batch_size]
            part = client.embed([text_of(doc) for doc in batch], dimension)
            dimension = part.shape[1]
            parts.append(part)
            on_batch(len(batch))
    finally:
        if own:
            client.close()
    return Embeddings(endpoint.model, public_url(endpoint.base_url), doc_hash(docs), [d["id"] for d in docs],
                      np.ascontiguousarray(np.vstack(parts), dtype=np.float32))


def dump(embeddings: Embeddings) -> bytes:
    """The cache file's bytes: a tau2 EmbeddingsCache entry and jtau's fields, deterministic."""
    entry = {
        "embeddings": embeddings.vectors,
        "doc_ids": list(embeddings.doc_ids),
        "embedder_type": "openai",  # the protocol; which server and model are in `jtau`
        "embedder_config": {"model": embeddings.model},
        "num_documents": len(embeddings.doc_ids),
        "jtau": {"format": FORMAT, "domain": DOMAIN, "model": embeddings.model, "base_url": embeddings.base_url,
                 "dimension": int(embeddings.vectors.shape[1]), "doc_hash": embeddings.doc_hash,
                 "embedded": "content"},
    }
    return pickle.dumps(entry, protocol=4)


def write(path: Path, embeddings: Embeddings) -> None:
    atomic_write(path, dump(embeddings))


def load(path: Path, documents: Sequence[dict] | None = None, model: str | None = None) -> Embeddings:
    """The embeddings in `path`, checked: built by jtau, for `model` and for exactly `documents`
    (their ids and contents) when given.  InputError naming the file and what to run otherwise."""
    _, arm = split_domain(path.name.split(".")[0])
    of_arm = f" --arm {arm.name}" if arm and arm.name != "ja" else ""
    rebuild = f"jtau banking embed{of_arm} --base-url URL --model {model or 'MODEL'} --out {path}"
    if not path.is_file():
        raise InputError(f"{path}: no embeddings file (dense retrieval needs the embeddings of the "
                         f"knowledge base's documents): {rebuild}")
    try:
        entry = pickle.loads(path.read_bytes())
        meta = entry["jtau"]
        vectors = np.asarray(entry["embeddings"], dtype=np.float32)
        doc_ids = list(entry["doc_ids"])
        if meta["format"] != FORMAT or vectors.shape != (len(doc_ids), meta["dimension"]):
            raise ValueError("shape")
    except Exception:
        raise InputError(f"{path}: not an embeddings file of this jtau (rebuild it: {rebuild})") from None
    found = Embeddings(meta["model"], meta["base_url"], meta["doc_hash"], doc_ids, vectors)
    if model is not None and found.model != model:
        raise InputError(f"{path}: embeddings of model {found.model!r}, not {model!r}: {rebuild}")
    if documents is not None and (doc_hash(documents) != found.doc_hash
                                  or sorted(d["id"] for d in documents) != sorted(doc_ids)):
        raise InputError(f"{path}: built from other documents than the {len(documents)} of this knowledge base "
                         f"(changed since?): {rebuild}")
    return found


def default_file(model: str, domain: str = DOMAIN) -> Path:
    """Where `jtau banking embed` writes and banking_knowledge_ja (or another arm, `domain`) reads
    a model's embeddings: $JTAU_EMBEDDINGS, else ~/.cache/jtau/embeddings ($XDG_CACHE_HOME), one
    file per model and arm."""
    folder = os.environ.get("JTAU_EMBEDDINGS")
    if folder:
        base = Path(folder)
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jtau" / "embeddings"
    return base / f"{domain}.{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}.pkl"

