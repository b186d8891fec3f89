"""The `ebbtide` command: each subcommand is a thin call of a Memory method."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from . import __version__
from .bench_locomo import add_arguments as add_locomo_arguments
from .clientconfig import (
    CLIENTS,
    SERVER_NAME,
    remote_snippet,
    server_name,
    server_url,
    snippet,
    token_variable,
)
from .clock import ManualClock, to_datetime
from .config import default_store_url
from .errors import EbbtideError, ValidationError
from .memory import Memory, open_memory
from .model import Chain, ReviewItem, Stats
from .server import TOKEN_VARIABLE
from .server.render import explain, summary
from .text import shorten

console = Console()
# What goes to stderr (errors, warnings, notes) is one line however long (a path in it, say),
# so a log or a grep keeps it whole.
err = Console(stderr=True, soft_wrap=True)


def _progress() -> Progress:
    """A progress bar on stderr, drawn only on a terminal: elsewhere (a pipe, a log, a test)
    Rich's bar draws nothing but ends with a blank line, which an error then follows."""
    return Progress(console=err, transient=True, disable=not err.is_interactive)


def _print_json(result: BaseModel) -> None:
    print(result.model_dump_json(indent=2))


TRANSPORTS = ("stdio", "http")
_PORT_RULE = "must be a whole number from 1 to 65535"


def _port(value: str) -> int:
    """A TCP port (1-65535) from its text; ValueError if the text is none."""
    port = int(value) if value.strip().isdigit() else 0
    if not 1 <= port <= 65535:
        raise ValueError(value)
    return port


def _cli_port(value: str) -> int:
    try:
        return _port(value)
    except ValueError:
        raise argparse.ArgumentTypeError(_PORT_RULE) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from .server.mcp import build_server

    # The environment is read here, not as parser defaults: a bad EBBTIDE_PORT must not
    # break every other command, and a bad EBBTIDE_TRANSPORT must not pass as stdio.
    transport = args.transport or os.environ.get("EBBTIDE_TRANSPORT") or "stdio"
    if transport not in TRANSPORTS:
        raise ValidationError("EBBTIDE_TRANSPORT", "must be stdio or http", transport)
    port = args.port
    if port is None:
        told = os.environ.get("EBBTIDE_PORT") or "8765"
        try:
            port = _port(told)
        except ValueError:
            raise ValidationError("EBBTIDE_PORT", _PORT_RULE, told) from None
    token = os.environ.get(TOKEN_VARIABLE)
    if transport == "http" and token is not None:
        from .server.http import MIN_TOKEN

        # Set but blank (a secret that failed to load) must not serve an open memory.
        token = token.strip()
        if len(token) < MIN_TOKEN:
            raise ValidationError(TOKEN_VARIABLE, f"must be at least {MIN_TOKEN} characters")
    memory = open_memory(args.store)
    try:
        server = build_server(memory, profile=args.profile)
        if transport == "http":
            from .server.http import serve_http

            serve_http(server, memory, args.host, port, profile=args.profile, token=token)
        else:
            server.run("stdio")
    finally:
        memory.close()
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .clock import ManualClock
    from .demo import STALE_DAYS, build_demo

    path = args.store or str(Path(tempfile.mkdtemp(prefix="ebbtide-demo-")) / "demo.db")
    clock = ManualClock()
    # The demo tells what the rules find: never an LLM, whatever the settings say.
    with open_memory(path, clock=clock, extraction="rules") as memory:
        console.rule("[bold]ebbtide demo[/]: a team's memory over five months")
        console.print(f"Embedded store: [cyan]{escape(memory.store.url)}[/] (SQLite, WAL, FTS5)\n")
        # Paragraphs without line breaks of their own: the console wraps them to its width.
        console.print(
            "January. The platform team decides to run its own Kafka cluster for order events."
            " The decision is linked to 11 things: four people, the project, the client, a"
            " meeting and four notes. Six throwaway notes are written and never read again, and"
            " the on-call policy is pinned.\n"
        )
        console.print(
            f"{STALE_DAYS - 2} days pass. In late May a weekend outage is recorded as the outcome"
            " of keeping Kafka, and the team decides to move to a managed queue: a fresh"
            " decision with only four links. Two days later, maintenance runs.\n"
        )
        demo = build_demo(memory, clock)
        table = Table(title="Decisions ranked by recency-weighted link strength")
        for col in ("rank", "decision", "links", "activation", "tier"):
            table.add_column(
                col, justify="right" if col in ("rank", "links", "activation") else "left"
            )
        for i, (node, links) in enumerate(demo.ranking, 1):
            table.add_row(
                str(i), shorten(node.text, 60), str(links), f"{node.activation:.3f}", node.tier
            )
        console.print(table)
        links = {node.id: n for node, n in demo.ranking}
        console.print(
            f"\nThe fresh decision ([green]{links[demo.fresh_decision.id]} links[/]) outranks the"
            f" stale one ([red]{links[demo.stale_decision.id]} links[/]):"
            " each link counts weight x 2^(-age / 30 days).\n"
        )
        rep = demo.report
        console.print(
            f"Maintenance: {rep.nodes} nodes -> "
            + ", ".join(f"{k} {v}" for k, v in rep.tiers.items())
            + f".\n{len(rep.archived)} archived, {rep.pending_review} waiting for a person's"
            " review:"
        )
        # Grouped by reason, one short line an item, so it reads in an 80-column terminal.
        by_reason: dict[str, list[str]] = {}
        for item in memory.review_queue().items:
            line = f"    [dim]{item.node.id}[/]  {shorten(item.node.text, 48)}"
            by_reason.setdefault(item.reason, []).append(line)
        for reason, lines in by_reason.items():
            console.print(f"  {reason}:", highlight=False)
            console.print("\n".join(lines), highlight=False)
        console.print(
            f"The pinned on-call policy stays [bold]{demo.pinned_note.tier}[/] although nobody read"
            " it.\nNothing is deleted until a person runs `ebbtide review approve`.\n"
        )
        console.print('recall("what did we decide for order events?"):')
        for hit in demo.recall.hits:
            console.print(f"  {hit.score:.4f}  {shorten(hit.node.text, 66)}", highlight=False)
            console.print(f"          [dim]{escape(explain(hit, ids=False))}[/]", highlight=False)
        _chat_part(memory, clock)
    console.rule("Plug ebbtide into your MCP client")
    # Your own memory, as the line below names it (not the demo's store): the client starts
    # the server without this shell's environment, so the snippet must carry it.
    yours = os.environ.get("EBBTIDE_STORE") or None
    for client in CLIENTS:
        console.print(snippet(client, yours), highlight=False, markup=False, soft_wrap=True)
        console.print()
    console.print(
        f"The demo store is kept at {path}; your own memory defaults to {default_store_url()}."
    )
    return 0


def _chat_part(memory: Memory, clock: ManualClock) -> None:
    from .demo import CHAT, CHAT_DAYS, PROVEN, RISKY, TRACED, chat_demo, shown

    console.print(
        f"\n{CHAT_DAYS} days later the team talks the quarter over in chat, and"
        " remember(messages=…) reads it by rules, with no LLM:"
    )
    for who, text in CHAT:
        _hanging(f"  {who}: {text}", "      ")
    chat = chat_demo(memory, clock)
    console.print(f'\ntrace_cause_chain("{TRACED}"), root first:')
    _hanging(f"  {chat.chain.steps[0].decision}", "    ")
    for step in chat.chain.steps:
        _hanging(f"    {step.relation} ({step.polarity:+.2f}) {shown(step.outcome)}", "      ")
    for action, answer in ((RISKY, chat.risky), (PROVEN, chat.proven)):
        colour = "red" if answer.verdict == "DANGER" else "green"
        console.print(f'intervention_query("{action}"): [{colour}]{answer.verdict}[/]')
        for then in answer.consequences[:2]:
            score = then.node.polarity or 0.0
            how = "bad" if score < 0 else "good" if score > 0 else "neutral"
            _hanging(f"    {how}, hop {then.hops}: {shown(then.node.text)}", "      ", style="dim")
    console.print()


def _hanging(line: str, indent: str, style: str = "") -> None:
    """One line of the demo, wrapped to the terminal with its continuation indented."""
    width = max(40, min(console.width, 100))
    text = textwrap.fill(line, width=width, subsequent_indent=indent)
    console.print(Text(text, style=style), highlight=False)


def cmd_recall(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        result = memory.recall(
            args.query,
            k=args.k,
            kinds=args.kind,
            scope=args.scope,
            task_tag=args.task_tag,
            include_cold=args.include_cold,
            touch=args.touch,
        )
    if args.json:
        _print_json(result)
        return 0
    if result.degraded:
        err.print(f"[yellow]degraded[/] {escape(result.degraded)}")
    if not result.hits:
        console.print(f"nothing found for {args.query!r}", highlight=False, markup=False)
        return 0
    # A hit per paragraph, not a table: texts are long and terminals narrow.
    for i, hit in enumerate(result.hits, 1):
        node = hit.node
        console.print(f"{i:>2}. {hit.score:.4f}  {node.kind}  {node.id}", highlight=False)
        sources = f"; sources {', '.join(node.sources[:5])}" if node.sources else ""
        more = " …" if len(node.sources) > 5 else ""
        console.print(Text(_indented(shorten(node.text, 300))))
        console.print(Text(_indented(f"{explain(hit)}{sources}{more}"), style="dim"))
    return 0


def _indented(text: str) -> str:
    """Wrapped to the terminal under a four-space indent, so a long hit reads as one block."""
    return textwrap.fill(
        text, max(40, console.width), initial_indent="    ", subsequent_indent="    "
    )


def cmd_trace(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        result = memory.trace_cause_chain(args.outcome, max_depth=args.depth, limit=args.limit)
        told = [_told_in(memory, chain) for chain in result.chains]
    if args.json:
        _print_json(result)
        return 0
    if result.degraded:
        err.print(f"[yellow]degraded[/] {escape(result.degraded)}")
    if not result.chains:
        matched = "; ".join(shorten(n.text, 50) for n in result.matched[:3])
        console.print(
            f"no recorded chain leads to {args.outcome!r}"
            + (f" (matched: {matched})" if matched else " (no outcome matched)"),
            highlight=False,
            markup=False,
        )
        return 0
    for i, chain in enumerate(result.chains, 1):
        console.print(
            f"{i}. confidence {chain.confidence:.2f}, score {chain.score:.3f}", highlight=False
        )
        console.print(Text(f"    {shorten(chain.steps[0].decision, 100)}"))
        for step in chain.steps:
            console.print(Text(f"      -{step.relation}-> {shorten(step.outcome, 100)}"))
        if told[i - 1]:
            console.print(Text(f"    from {', '.join(told[i - 1])}", style="dim"))
    return 0


def _told_in(memory: Memory, chain: Chain, most: int = 3) -> list[str]:
    """Where a chain was told (a note's path and section, a message's id): each step's cause
    and effect's first source, once each, the first `most`."""
    ids = dict.fromkeys(i for s in chain.steps for i in (s.decision_id, s.outcome_id))
    found = [memory.get(i).sources[:1] for i in ids]
    return list(dict.fromkeys(s for sources in found for s in sources))[:most]


def cmd_remember(args: argparse.Namespace) -> int:
    if args.chat:
        return _remember_chat(args)
    if args.date is not None:
        raise ValidationError("--date", "goes with --chat (a note is dated now)")
    with open_memory(args.store) as memory:
        node = memory.remember(args.text, args.kind or "note", pinned=args.pin, scope=args.scope)
    if args.json:
        _print_json(node)
    else:
        console.print(summary(node), highlight=False, markup=False)
    return 0


_CHAT_LINE = re.compile(r"lines\[(\d+)\](.*)")


def _remember_chat(args: argparse.Namespace) -> int:
    """A chat's "speaker: text" lines (`-`: stdin) remembered as the MCP tool's messages are:
    what they say is extracted. Checked before the store is opened, so a refusal makes none."""
    from .transcript import parse_transcript

    for option, given in (("--kind", args.kind is not None), ("--pin", args.pin)):
        if given:
            raise ValidationError(option, "goes with one item, not --chat (kinds are extracted)")
    date = None
    if args.date is not None:
        try:
            date = to_datetime(args.date)
        except ValueError:
            raise ValidationError(
                "--date", "must be a date, YYYY-MM-DD (or an ISO 8601 date-time)", args.date
            ) from None
    try:
        text = sys.stdin.buffer.read().decode("utf-8") if args.text == "-" else args.text
    except UnicodeDecodeError as exc:
        raise ValidationError("--chat", f"must be UTF-8 text (byte {exc.start} is not)") from None
    try:
        if not parse_transcript(text):
            raise ValidationError("--chat", "must hold at least one 'speaker: text' line")
    except ValidationError as exc:
        line = _CHAT_LINE.fullmatch(exc.field)
        if line is None:
            raise
        told = f" ({exc.value!r})" if isinstance(exc.value, str) else ""
        raise ValidationError(
            f"--chat line {int(line[1]) + 1}{line[2].replace('.', ' ')}{told}", exc.rule, exc.value
        ) from None
    with open_memory(args.store) as memory:
        result = memory.remember(messages=text, date=date, scope=args.scope)
    if args.json:
        _print_json(result)
    else:
        # An item a line, however long: a console's wrapping would split its id from its text.
        console.print(summary(result), highlight=False, markup=False, soft_wrap=True)
    return 0


def cmd_maintain(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        report = memory.maintain()
    if args.json:
        _print_json(report)
    else:
        console.print(
            f"{report.nodes} nodes: "
            + ", ".join(f"{k} {v}" for k, v in report.tiers.items())
            + f"; {len(report.changed)} changed tier, {len(report.archived)} archived, "
            f"{report.pending_review} waiting for review"
        )
    return 0


def cmd_sleep(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        report = memory.sleep()
    if args.json:
        _print_json(report)
    else:
        console.print(summary(report), markup=False)
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import ingest_chat, ingest_markdown_folder

    path = Path(args.path)
    if not path.exists():  # checked before the store is opened: a typo creates no store
        raise ValidationError("path", "does not exist", str(path))
    with open_memory(args.store) as memory, _progress() as bar:
        task = bar.add_task(f"ingesting {path.name}", total=None)

        def progress(advance: int, total: int) -> None:
            bar.update(task, advance=advance, total=total)

        if path.is_dir():
            summary = ingest_markdown_folder(memory, path, progress=progress, reread=args.reread)
        else:
            summary = ingest_chat(memory, path, progress=progress)
    if args.json:
        print(json.dumps(dataclasses.asdict(summary), indent=2))
        return 0
    if summary.warning:
        err.print(f"[yellow]warning[/] {escape(summary.warning)}")
    if summary.degraded:
        err.print(f"[yellow]warning[/] {escape(summary.degraded)}")
    console.print(
        f"{summary.files} file(s), {summary.nodes} node(s), {summary.links} link(s)"
        + (f", {summary.causal_links} causal" if summary.causal_links else "")
        + (
            f", {summary.unresolved_links} link(s) to notes not in the folder"
            if summary.unresolved_links
            else ""
        )
        + (f", {summary.gone} gone (waiting for review)" if summary.gone else "")
        + (f", {summary.known} message(s) known already" if summary.known else "")
        + f" in {summary.seconds:.1f} s"
    )
    return 0


def cmd_reembed(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory, _progress() as bar:
        model = memory.embedder.name if memory.embedder else "none"
        task = bar.add_task(f"embedding with {model}", total=None)
        n = memory.reembed(
            progress=lambda adv, total: bar.update(task, advance=adv, total=total),
            everything=args.all,
        )
        dropped = memory.drop_unowed_vectors()
    if args.json:
        print(json.dumps({"embedded": n, "model": model, "dropped": dropped}, indent=2))
    else:
        stray = f"; dropped {dropped} vector(s) of nodes never searched (predictions)"
        line = f"embedded {n} node(s) with {model}" + (stray if dropped else "")
        console.print(line, soft_wrap=True)
    return 0


def _review_table(title: str, items: Sequence[ReviewItem]) -> Table:
    table = Table(title=title)
    # Whole, on one line, however narrow the terminal: it is what `review approve` takes.
    table.add_column("id", no_wrap=True, min_width=max((len(i.node.id) for i in items), default=0))
    table.add_column("kind")
    # A path in the text or reason is one long word: folded onto lines, not cut off.
    table.add_column("text", overflow="fold")
    table.add_column("reason", overflow="fold")
    table.add_column("asked by")
    for item in items:
        # Text, not markup: a note may hold "[b]" or "[/url]".
        table.add_row(
            *map(
                Text,
                (
                    item.node.id,
                    item.node.kind,
                    shorten(item.node.text, 50),
                    item.reason,
                    item.requested_by,
                ),
            )
        )
    return table


def cmd_review(args: argparse.Namespace) -> int:
    if args.all and args.ids:
        err.print(f"review {args.action}: give node ids or --all, not both")
        return 2
    if args.yes and not (args.action == "approve" and args.all):
        err.print("review: --yes goes with approve --all")
        return 2
    with open_memory(args.store) as memory:
        if args.action == "list":
            queue = memory.review_queue()
            if args.json:
                _print_json(queue)
                return 0
            if not queue.items:
                console.print("nothing is waiting for review")
                return 0
            console.print(
                _review_table(f"{len(queue.items)} deletion(s) waiting for approval", queue.items)
            )
            return 0
        if args.action == "approve" and args.all:
            return _approve_all(memory, yes=args.yes)
        ids = [i.node.id for i in memory.review_queue().items] if args.all else args.ids
        if not ids:
            err.print(f"review {args.action}: nothing to do (give node ids or --all)")
            return 2
        act = memory.approve if args.action == "approve" else memory.reject
        with _progress() as progress:
            task = progress.add_task(f"{args.action}…", total=len(ids))
            for ident in ids:
                decision = act(ident)
                console.print(f"{decision.action}: {ident}")
                progress.advance(task)
    return 0


def _approve_all(memory: Memory, *, yes: bool) -> int:
    """Show what is waiting, ask, and delete exactly what was shown: what a maintain queues
    meanwhile waits for the next look, and what was kept or used meanwhile stays."""
    shown = memory.review_queue().items
    if not shown:
        console.print("nothing is waiting for review")
        return 0
    console.print(_review_table(f"{len(shown)} deletion(s) to approve", shown))
    if not yes:
        if not sys.stdin.isatty():
            err.print(
                "review approve --all: no terminal to confirm on; nothing was deleted"
                " (give --yes to approve what is listed without asking)"
            )
            return 2
        try:
            answer = console.input(
                f"Delete these {len(shown)} and their links? [y/N] ", markup=False
            )
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            console.print("nothing was deleted")
            return 1
    decisions = memory.approve_shown(shown)
    for d in decisions:
        said = "approved" if d.action == "approved" else "not deleted"
        console.print(f"{said}: {d.node_id}" + (f" ({d.reason})" if d.reason else ""), markup=False)
    kept = sum(d.action != "approved" for d in decisions)
    if kept:
        err.print(f"{kept} of {len(decisions)} not deleted: run `ebbtide review` to look again")
    return 1 if kept else 0


def cmd_stats(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        stats = memory.stats()
    if args.json:
        _print_json(stats)
    else:
        console.print(_stats_text(stats), highlight=False, markup=False, soft_wrap=True)
    return 0


_TIER_ORDER = ("hot", "warm", "cold", "frozen")


def _stats_text(stats: Stats) -> str:
    def counts(by: dict[str, int], order: Sequence[str] = ()) -> str:
        keys = [*(k for k in order if k in by), *sorted(set(by) - set(order))]
        return ", ".join(f"{k} {by[k]}" for k in keys) or "none"

    when = stats.last_maintain
    vectors = (
        "not kept (embeddings off)"
        if stats.vectors_missing is None
        else f"{stats.vectors_missing} owed" + (" (ebbtide reembed)" * bool(stats.vectors_missing))
    )
    rows = [
        ("store", stats.store),
        (
            "nodes",
            f"{stats.nodes} ({stats.archived} archived, {stats.forgotten} forgotten, "
            f"{stats.pinned} pinned)",
        ),
        ("links", str(stats.edges)),
        ("kinds", counts(stats.by_kind)),
        ("tiers", counts(stats.by_tier, _TIER_ORDER)),
        ("links by relation", counts(stats.by_relation)),
        ("review", f"{stats.pending_review} waiting for a person"),
        ("last maintain", when.isoformat(timespec="seconds") if when else "never"),
        ("vectors", vectors),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def cmd_export(args: argparse.Namespace) -> int:
    with open_memory(args.store) as memory:
        if args.path == "-":
            n = memory.export_jsonl(sys.stdout)
        else:
            try:
                out = open(args.path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise ValidationError(
                    "path", f"cannot be written ({exc.strerror}: {args.path})", args.path
                ) from exc
            with out:
                n = memory.export_jsonl(out)
    err.print(f"exported {n} records")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    source: TextIO = sys.stdin
    if args.path != "-":
        # Opened before the store, so that a mistyped path creates no store.
        path = Path(args.path)
        if not path.exists():
            raise ValidationError("path", "does not exist", args.path)
        if path.is_dir():
            raise ValidationError("path", "is a folder, not a file", args.path)
        try:
            source = path.open(encoding="utf-8")
        except OSError as exc:
            raise ValidationError(
                "path", f"cannot be read ({exc.strerror}: {args.path})", args.path
            ) from exc
    with source, open_memory(args.store) as memory:
        n = memory.import_jsonl(source)
    err.print(f"imported {n} records" + _VECTORS_HINT)
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    clients = CLIENTS if args.client == "all" else (args.client,)
    name = server_name(args.name)  # everything is checked before anything is printed
    if args.url is not None:
        if args.store:
            raise ValidationError(
                "--store", "goes with a local server; the one at --url opens its own store"
            )
        token_env = token_variable(TOKEN_VARIABLE if args.token_env is None else args.token_env)
        url = server_url(args.url, token_env)
        texts = [remote_snippet(client, url, name, token_env) for client in clients]
    else:
        if args.token_env is not None:
            raise ValidationError(
                "--token-env",
                "goes with --url; a local server started by the client takes no token",
            )
        # The store this shell would open, so the client's server opens the same memory.
        store = args.store or os.environ.get("EBBTIDE_STORE") or None
        texts = [snippet(client, store, name) for client in clients]
    for text in texts:
        # Plain print: a console wraps long lines, and a command or JSON string cut in two
        # no longer works when pasted.
        print(text, end="\n\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ebbtide", description="Long-term memory for AI agents, served over MCP."
    )
    parser.add_argument("--version", action="version", version=f"ebbtide {__version__}")
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument(
        "--store", default=None, help="store URL or path (default: $EBBTIDE_STORE or user data dir)"
    )
    # Only commands that print a result as JSON take --json; elsewhere it would be ignored.
    common = argparse.ArgumentParser(add_help=False, parents=[store])
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", parents=[store], help="MCP server (stdio, or HTTP)")
    p.add_argument(
        "--profile",
        default=os.environ.get("EBBTIDE_PROFILE", "default"),
        choices=["default", "ebb", "causal-memory", "all"],
        help="tool set: compact default, Ebb's names, causal-memory's 17, or all",
    )
    p.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="stdio for one client; http (streamable HTTP at /mcp, stateless) for replicas "
        "(default: $EBBTIDE_TRANSPORT, else stdio)",
    )
    p.add_argument("--host", default=os.environ.get("EBBTIDE_HOST", "127.0.0.1"))
    p.add_argument("--port", type=_cli_port, help="HTTP port (default: $EBBTIDE_PORT, else 8765)")
    p.set_defaults(fn=cmd_serve)
    sub.add_parser("demo", parents=[store], help="narrated demo, then client setup").set_defaults(
        fn=cmd_demo
    )
    p = sub.add_parser("recall", parents=[common], help="what the memory finds for a query")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many hits (1-200, default 10)")
    p.add_argument("--kind", action="append", help="only this kind (repeatable)")
    p.add_argument("--scope", default=None, help="only this scope")
    p.add_argument("--task-tag", default=None, help="only this task's knowledge, and untagged")
    p.add_argument("--include-cold", action="store_true", help="cold and frozen knowledge too")
    p.add_argument(
        "--touch",
        action="store_true",
        help="count this recall as a use (an agent's recall does; a look from the shell, not)",
    )
    p.set_defaults(fn=cmd_recall)
    p = sub.add_parser(
        "trace", parents=[common], help="the recorded chains of causes that led to an outcome"
    )
    p.add_argument("outcome", help="the outcome, in words (it is matched like a recall)")
    p.add_argument("--depth", type=int, default=3, help="most links in a chain (1-10, default 3)")
    p.add_argument("--limit", type=int, default=5, help="most chains shown (default 5)")
    p.set_defaults(fn=cmd_trace)
    p = sub.add_parser(
        "remember",
        parents=[common],
        help="store one piece of knowledge, or (--chat) what a conversation said",
    )
    p.add_argument("text", help="the item; with --chat, 'speaker: text' lines (-: stdin)")
    p.add_argument(
        "--chat",
        action="store_true",
        help="TEXT is a conversation: facts, events, preferences, lessons and causes are "
        "extracted from it, as the MCP remember tool does with messages",
    )
    p.add_argument(
        "--date", help="with --chat: when the conversation happened, YYYY-MM-DD (default now)"
    )
    p.add_argument("--kind", help="fact, note, decision, lesson, … (default note)")
    p.add_argument("--pin", action="store_true", help="never decays or archives")
    p.add_argument("--scope", default="default")
    p.set_defaults(fn=cmd_remember)
    sub.add_parser("maintain", parents=[common], help="re-tier and archive now").set_defaults(
        fn=cmd_maintain
    )
    p = sub.add_parser(
        "ingest", parents=[common], help="a Markdown folder or a chat transcript (JSON/JSONL)"
    )
    p.add_argument("path")
    p.add_argument(
        "--reread",
        action="store_true",
        help="read every Markdown file again even if unchanged since the last ingest (after "
        "changing extraction settings, say); it rewrites the same notes and claims, never "
        "copies them. A chat file is always read whole",
    )
    p.set_defaults(fn=cmd_ingest)
    p = sub.add_parser(
        "reembed",
        parents=[common],
        help="embed nodes that lack a vector for the current model, and drop the vectors "
        "earlier runs gave predictions, which no search reads",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="embed every node anew (the model changed under the same name)",
    )
    p.set_defaults(fn=cmd_reembed)
    sub.add_parser(
        "sleep", parents=[common], help="consolidate: maintain, mine patterns, find updates"
    ).set_defaults(fn=cmd_sleep)
    p = sub.add_parser(
        "review", parents=[common], help="approve or reject deletions (a person's act)"
    )
    p.add_argument("action", choices=["list", "approve", "reject"], nargs="?", default="list")
    p.add_argument("ids", nargs="*")
    p.add_argument(
        "--all",
        action="store_true",
        help="every pending item (approve: those it lists, once confirmed)",
    )
    p.add_argument("--yes", action="store_true", help="approve --all without asking (for scripts)")
    p.set_defaults(fn=cmd_review)
    sub.add_parser("stats", parents=[common], help="counts").set_defaults(fn=cmd_stats)
    p = sub.add_parser("export", parents=[store], help="every node and edge as JSONL")
    p.add_argument("path", nargs="?", default="-", help="file to write (default -: stdout)")
    p.set_defaults(fn=cmd_export)
    p = sub.add_parser("import", parents=[store], help="load a JSONL export")
    p.add_argument("path", help="file to read (-: stdin)")
    p.set_defaults(fn=cmd_import)
    p = sub.add_parser("config", parents=[store], help="MCP client config snippets")
    p.add_argument("--client", default="all", choices=["all", *CLIENTS])
    p.add_argument(
        "--url",
        help="a shared ebbtide served over HTTP (`serve --transport http`), e.g. "
        "https://memory.example.com/mcp (a bare host gets /mcp); clients send "
        "$EBBTIDE_HTTP_TOKEN (or --token-env) as the bearer token",
    )
    p.add_argument(
        "--name",
        default=SERVER_NAME,
        help=f"the server's name in the client's config (default {SERVER_NAME}): up to 32 "
        "letters, digits, - and _; give each server its own to connect to several",
    )
    p.add_argument(
        "--token-env",
        metavar="VAR",
        help="with --url: the variable the client reads the token from (default "
        "EBBTIDE_HTTP_TOKEN), e.g. one per server",
    )
    p.set_defaults(fn=cmd_config)
    p = sub.add_parser("migrate", help="copy a memory to another store, e.g. SQLite to Neo4j")
    p.add_argument("source", help="store URL or path to copy from")
    p.add_argument("target", help="store URL or path to copy into (empty unless --merge)")
    p.add_argument("--merge", action="store_true", help="update a non-empty target by id")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(fn=cmd_migrate)
    p = sub.add_parser("bench", help="benchmarks")
    bench = p.add_subparsers(dest="bench", required=True)
    p = bench.add_parser(
        "locomo", help="turn retrieval on LoCoMo conversations: ebbtide, BM25, causal-memory"
    )
    add_locomo_arguments(p)
    p.set_defaults(fn=cmd_bench_locomo)
    return parser


def cmd_bench_locomo(args: argparse.Namespace) -> int:
    from .bench_locomo import run_from_args

    return run_from_args(args)


def cmd_migrate(args: argparse.Namespace) -> int:
    from .migrate import migrate

    with _progress() as bar:
        tasks = {phase: bar.add_task(phase, total=None) for phase in ("export", "import")}
        report = migrate(
            args.source,
            args.target,
            merge=args.merge,
            progress=lambda phase, done, total: bar.update(
                tasks[phase], completed=done, total=total
            ),
        )
    if args.json:
        _print_json(report)
    else:
        err.print(
            f"migrated {report.nodes} nodes, {report.edges} edges, {report.reviews} reviews "
            f"from {report.source} to {report.target} in {report.seconds:.1f} s" + _VECTORS_HINT,
            markup=False,
        )
    return 0


# Exports carry no vectors (they are derived from the text by a model).
_VECTORS_HINT = "; vectors are filled in by later writes, or at once by `ebbtide reembed`"


# The options that carry an API field, so a refusal names what the person typed.
_OPTIONS = {"max_depth": "--depth", "kinds": "--kind", "kind": "--kind", "task_tag": "--task-tag",
            "limit": "--limit", "k": "-k", "scope": "--scope"}  # fmt: skip


def _refusal(exc: EbbtideError) -> str:
    if isinstance(exc, ValidationError):
        field, sep, rest = exc.field.partition("[")
        if field in _OPTIONS:
            return f"{_OPTIONS[field]}{sep}{rest}: {exc.rule}"
    return str(exc)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except EbbtideError as exc:
        err.print(f"[red]error[/] {escape(_refusal(exc))}")
        return 2
    except BrokenPipeError:
        # The reader left (`ebbtide export | head`): stop quietly, as other tools do. Stdout
        # goes to devnull so that flushing it at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
