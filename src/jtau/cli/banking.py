"""`jtau banking`: what J-tau's banking_knowledge_ja needs beside its data (the dense retrieval's embeddings)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from jtau.cli.common import app, arm_named, checked_path, err_console, fail, out_console
from jtau.errors import InputError, JtauError
from jtau.util.listing import counted

banking_app = typer.Typer(help="banking_knowledge_ja's retrieval: the embeddings its dense search reads.",
                          no_args_is_help=True)
app.add_typer(banking_app, name="banking")


@banking_app.command("embed")
def embed(
    model: Annotated[str, typer.Option("--model", help="Embedding model as the endpoint names it "
                                       "(text-embedding-3-large; qwen/qwen3-embedding-8b on OpenRouter).")],
    base_url: Annotated[Optional[str], typer.Option(
        "--base-url", help="OpenAI-compatible endpoint (https://api.openai.com/v1, http://127.0.0.1:8000/v1). "
                           "Default: $JTAU_EMBED_BASE_URL, then $OPENAI_BASE_URL.")] = None,
    documents: Annotated[Optional[Path], typer.Option(
        "--documents", callback=checked_path, help="The Japanese documents (*.json: id, title, content). "
        "Default: data/domains/banking_knowledge/documents.")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", callback=checked_path, help="File to write. Default: where banking_knowledge_ja reads it, "
        "$JTAU_EMBEDDINGS or ~/.cache/jtau/embeddings/banking_knowledge_ja.MODEL.pkl.")] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, max=2048, help="Documents per request.")] = 64,
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="Seconds per request.")] = 60.0,
    attempts: Annotated[int, typer.Option("--attempts", min=1, help="Tries per request (429, 5xx, timeouts, "
                                          "malformed answers are retried).")] = 5,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be sent; send and write nothing.")] = False,
    arm: Annotated[str, typer.Option("--arm", help="The arm whose documents to embed (ja, ja-text, "
                                     "ja-entities; docs/ARMS.md): built first if needed.")] = "ja",
) -> None:
    """Embed the Japanese knowledge base for dense retrieval (the key: $JTAU_EMBED_API_KEY or $OPENAI_API_KEY)."""
    from jtau.project import Project
    from jtau.retrieval import embeddings as emb
    from jtau.util.files import ensure_writable

    try:
        if arm_named(arm) == "en":  # an arm, whether or not --documents names the folder
            raise InputError("--arm en is tau2's own banking_knowledge, which embeds its documents itself")
        if documents is None:
            from jtau.arm_cache import arm_folder

            documents = arm_folder("banking_knowledge", arm, Project.find()) / "documents"
        folder = documents
        docs = emb.load_documents(folder)
        endpoint = emb.endpoint_from_env(base_url or os.environ.get("JTAU_EMBED_BASE_URL")
                                         or os.environ.get("OPENAI_BASE_URL") or "", model)
        target = out or emb.default_file(model, f"banking_knowledge_{arm}")
        ensure_writable(target, folder=False)
        chars = sum(len(doc["content"]) for doc in docs)
        requests = -(-len(docs) // batch_size)
        if dry_run:
            out_console.print(f"banking_knowledge_ja: would embed {len(docs)} documents ({chars:,} characters) "
                              f"in {counted(requests, 'request')} to {emb.public_url(endpoint.base_url)} with {model}; "
                              f"would write {target} (nothing sent)", soft_wrap=True)
            return
        settings = emb.Settings(batch_size=batch_size, timeout=timeout, attempts=attempts)
        done = 0

        def progress(count: int) -> None:
            nonlocal done
            done += count
            err_console.print(f"  {done}/{len(docs)} documents embedded", soft_wrap=True)

        with emb.Client(endpoint, settings) as client:
            built = emb.build(docs, endpoint, settings, on_batch=progress, client=client)
        emb.write(target, built)
        out_console.print(f"banking_knowledge_ja: {len(docs)} documents embedded with {model} at {built.base_url} "
                          f"({built.vectors.shape[1]} dimensions, {counted(client.requests, 'request')}) -> {target}",
                          soft_wrap=True)
    except JtauError as exc:
        fail(exc)
    except OSError as exc:
        fail(InputError(f"{exc.filename}: {exc.strerror}"))
