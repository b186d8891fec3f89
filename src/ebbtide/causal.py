"""The causal layer: lessons (decision -relation-> outcome), why something happened, what an
action leads to, and which of two options went better. No LLM: text matching, polarity rules
and signed spreading over the typed graph."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from . import scoring
from .config import DAY, Config
from .graph import Subgraph, spread_from
from .model import (
    CAUSAL_RELATIONS,
    CausalDirectory,
    CausalSearchResult,
    CauseStep,
    Chain,
    ChainResult,
    Consequence,
    DirectoryEntry,
    Edge,
    Lesson,
    LessonHit,
    Node,
    OptionEvidence,
    TraceResult,
    Verdict,
    Why,
)
from .polarity import outcome_polarity
from .sameness import (
    absent,
    different_choices,
    different_objects,
    other_object,
    same_choice,
    spelt_as_name,
    told,
    undoes,
    verb_told,
    verb_undone,
    weighted_terms,
    words,
)
from .store import EdgeRow, SearchFilter, Store
from .text import chain_line, containment, link_line, names, root, shorten, similarity, terms

# Relations along which one thing brings about another (backward tracing follows these).
PRODUCING = frozenset({"caused", "enabled"})
# What a measure did that its undoing reverses: what it prevented follows once it is gone.
PREVENTING = frozenset({"prevented"})
# A near-duplicate text names the same thing ("Checkout outage" vs "checkout outage.").
SAME_THING = 0.8
# Embedding cosine at which a text names the same thing in other words.
CLOSE_MEANING = 0.75
# A partial match must hold this share of the question's words, weighted by rarity…
MIN_COVER = 0.4
# …and score at least this share of the best partial match.
MIN_RELATIVE = 0.7
# The nodes holding a word that are read for whether the memory spells it as a name.
NAME_READS = 20
# Word rarity is counted up to this many nodes: commoner words all weigh about the same.
RARITY_CAP = 1000
# Endings a word's root takes in its common inflections, for counting how rare it is.
INFLECTIONS = ("", "e", "s", "es", "ed", "ing")
# Kept for pattern queries: share of a query's words a pattern must mention.
MIN_MATCH = 0.5
# A lesson that names none of the names in a question (products, people) keeps this share of
# its score.
NAME_MISS = 0.5
# Questions that ask for a remedy favour lessons that went well.
REMEDY = re.compile(
    r"\b(fix|fixe[sd]|fixing|solve|resolv\w*|prevent\w*|avoid\w*|stop\w*|mitigat\w*|remed\w*|"
    r"workaround|cure|what works|handle|deal with|get rid of)\b",
    re.IGNORECASE,
)
# Nodes an action's consequences are spread from, at most.
SEEDS = 5
# An action's consequences come from the nodes that match it at least this well, relative to
# the best match.
SEED_RELATIVE = 0.8
# An option with a record must be at least this clearly good or bad to beat an unknown one.
KNOWN_MARGIN = 0.5
DANGER_RISK = 0.6
WARNING_RISK = 0.3
# Lessons are knowledge even when cold: causal questions look at every valid one.
CAUSAL_FILTER = SearchFilter(include_cold=True)


@dataclass(frozen=True)
class Ctx:
    store: Store
    config: Config
    now: float
    # The nodes nearest a text by meaning, best first ([] when the model cannot answer).
    nearest: Callable[[str, int, SearchFilter], list[tuple[str, float]]] | None = None
    # Why the model cannot be asked now (it failed moments ago), if it cannot.
    down: str | None = None
    # Why a match by meaning that was wanted could not be made: what results say as degraded.
    unmet: list[str] = field(default_factory=list)
    # Who speaks in the memory: "Dana monitoring" is Dana at work, not a measure to remove.
    # Read only by the questions that ask what an action does.
    people: Callable[[], Sequence[str]] = tuple


def node_polarity(node: Node) -> float:
    return node.polarity if node.polarity is not None else outcome_polarity(node.text).score


def match_nodes(
    ctx: Ctx,
    text: str,
    *,
    k: int = 5,
    kinds: frozenset[str] | None = None,
    eligible: Callable[[list[str]], set[str]] | None = None,
    keep: Callable[[Node], bool] | None = None,
    action: bool = False,
) -> list[tuple[Node, float]]:
    """Nodes that name `text`: near-duplicates if there are any, else partial matches that
    hold enough of its words, weighted by rarity (so the rare words of a question, a
    product's codename say, decide between look-alikes), and score close to the best one.
    `eligible` keeps only the candidates a question can use (an action with a recorded
    consequence, say), before the best is chosen; `keep`, likewise, the nodes it can use.
    `action`: `text` is something to do, its verb first; a node that shares no word of it but
    the verb does another thing ("skip the standup" is not "Skipped the load test"), and one
    that holds its other words only in what another verb was done to does too ("deploy on
    Friday" is not "Deployed the Friday report"); a node that tells its verb in other words
    holds it ("Skipped the canary" holds "bypass", see `sameness.verb_told`), and one that
    does the verb to another thing does another thing ("cache the tokens" is not "Cached the
    sessions": `sameness.different_objects`). A node that names another thing where `text`
    names one is another option (see `sameness.different_choices`; a word opening both is a
    name when the memory spells it as one, `names_in`), not a match."""
    flt = SearchFilter(include_cold=True, kinds=kinds)
    ids = _usable([i for i, _ in ctx.store.text_search(text, 30, flt)], eligible)
    nodes = ctx.store.get_nodes(ids)
    if keep is not None:
        ids = [i for i in ids if i in nodes and keep(nodes[i])]
    asked = names(text)
    weights = weighted_terms(text, rarity(ctx).warm([text])) if ids else {}
    total = sum(weights.values()) or 1.0
    verb = next(iter(weights), None) if action and len(weights) > 1 else None
    people = ctx.people() if action and ids else ()
    named = names_in(ctx.store)

    def other_option(node: Node, said: str) -> bool:
        # "Use SQLite for the CLI" is not "use Postgres for the CLI", nor "Cached the sessions
        # in Redis" "cache the tokens in Redis": another option, however many words (or how
        # much meaning) they share. An outcome is no action done to a thing.
        return different_choices(text, said, named) or (
            action and node.kind != "outcome" and different_objects(text, said)
        )

    scored = []
    for rank, ident in enumerate(ids):
        node = nodes[ident]
        # The event as it was told each time, without what its pronouns stood for: "That (we
        # skipped the load test) was a mistake" is not the skipping.
        said = [x for x in map(told, wordings(node)) if not other_option(node, x)]
        if not said:
            continue
        sim = max(similarity(text, x) for x in said)
        if action:
            # "Deployed the Friday report" is not "deploy on Friday": what they share is when
            # in one and what in the other.
            said = [x for x in said if not other_object(text, x)]
        held = set().union(*(terms(x) for x in said))
        if action:
            # The verb told in other words: "Skipped the canary" for "bypass the canary", "Did
            # not skip the canary" for "keep the canary".
            held.update(root(w.casefold()) for x in said for w in verb_told(text, x, people))
            # Or undone: "Added the alert" holds "remove" for "remove the alert" (what `keep`
            # lets through says whether undone nodes are wanted).
            held.update(root(w.casefold()) for x in said for w in verb_undone(text, x, people))
        cover = sum(w for t, w in weights.items() if t in held) / total
        if verb is not None and held.isdisjoint(weights.keys() - {verb}):
            cover = 0.0
        scored.append((node, sim, cover * name_factor(asked, node), rank))
    # Words first; meaning (embeddings) only when no node shares enough of the words.
    pool = [(n, sim, rank) for n, sim, _, rank in scored if sim >= SAME_THING]
    if not pool:
        partial = [(n, cover, rank) for n, _, cover, rank in scored if cover >= MIN_COVER]
        best = max((c for _, c, _ in partial), default=0.0)
        pool = [p for p in partial if p[1] >= MIN_RELATIVE * best]
    if not pool and ctx.nearest is None and ctx.down is not None:
        ctx.unmet.append(ctx.down)
    if not pool and ctx.nearest is not None:
        found = dict(ctx.nearest(text, 10, flt))
        close = _usable([i for i, c in found.items() if c >= CLOSE_MEANING], eligible)
        near = ctx.store.get_nodes(close)
        if keep is not None:
            near = {i: n for i, n in near.items() if keep(n)}
        near = {
            i: n for i, n in near.items() if not all(other_option(n, told(x)) for x in wordings(n))
        }
        pool = [(near[i], found[i], rank) for rank, i in enumerate(close) if i in near]
    pool.sort(key=lambda s: (-s[1], s[2]))
    return [(n, score) for n, score, _ in pool[:k]]


def names_in(store: Store) -> Callable[[str], bool]:
    """Whether the memory spells a word as a name: capitalised where no sentence starts, in
    some wording of a node that holds it ("We moved Pyxis to the new cluster"), so that it
    is a name where it opens a sentence too ("Pyxis is out of connections"). Each word is
    looked up once, and only when asked."""
    seen: dict[str, bool] = {}

    def named(word: str) -> bool:
        if word not in seen:
            flt = SearchFilter(include_cold=True)
            ids = [i for i, _ in store.text_search(word, NAME_READS, flt)]
            seen[word] = any(
                spelt_as_name(word, w) for n in store.get_nodes(ids).values() for w in wordings(n)
            )
        return seen[word]

    return named


def _usable(ids: list[str], eligible: Callable[[list[str]], set[str]] | None) -> list[str]:
    if eligible is None or not ids:
        return ids
    keep = eligible(ids)
    return [i for i in ids if i in keep]


class Rarity:
    """Word weights from the store: log(1 + cap / (1 + nodes holding the word)), counted up
    to a cap over the word's inflections ("add", "added", "adding": texts are compared by
    roots, and the index stems some forms apart, "added" -> "ad"). Cached for one operation
    (the store changes between them); `warm` counts all the words of some texts in one store
    call, so a question costs one round trip, not one per word."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._cache: dict[str, float] = {}

    def warm(self, texts: Iterable[str]) -> Rarity:
        self._count([w for text in texts for w in words(text)])
        return self

    def __call__(self, word: str) -> float:
        key = root(word.casefold())
        if key not in self._cache:
            self._count([word])
        return self._cache[key]

    def _count(self, found: Iterable[str]) -> None:
        todo: dict[str, str] = {}
        for word in found:
            key = root(word.casefold())
            if key not in self._cache:
                todo.setdefault(key, word)
        if not todo:
            return
        groups = [sorted({w, *(k + end for end in INFLECTIONS)}) for k, w in todo.items()]
        counts = self._store.doc_frequencies(groups, RARITY_CAP, SearchFilter(include_cold=True))
        for key, df in zip(todo, counts, strict=True):
            self._cache[key] = scoring.rarity(df, RARITY_CAP)


def rarity(ctx: Ctx) -> Rarity:
    return Rarity(ctx.store)


def name_factor(asked: set[str], node: Node) -> float:
    """`name_share` for a node, in any of its wordings."""
    return name_share(asked, set().union(*(terms(x) for x in wordings(node))))


def name_share(asked: set[str], held: set[str]) -> float:
    """The share of a match's score kept by an answer holding the words `held`, by how many
    of the names a question asks about it mentions (all: 1; none: NAME_MISS). The product,
    customer or person a question names is the thing it is about; an answer about another
    one is weaker however many other words it shares."""
    if not asked:
        return 1.0
    return NAME_MISS + (1 - NAME_MISS) * len(asked & held) / len(asked)


def wordings(node: Node) -> list[str]:
    """A node's text and the other words it was told in (an episode told again)."""
    return [node.text, *node.attributes.get("aliases", [])]


def strength(ctx: Ctx, weight: float, relation: str, reinforced_at: float) -> float:
    return float(
        scoring.edge_strength(
            weight,
            abs(ctx.config.coefficient(relation)),
            ctx.now - reinforced_at,
            ctx.config.half_life_s,
        )
    )


def lessons(ctx: Ctx, edges: Sequence[Edge | EdgeRow], scope: str | None = None) -> list[Lesson]:
    """Causal edges as lessons, with both ends' texts; edges with a missing end, or with an end
    outside `scope` when one is given, are skipped."""
    full = ctx.store.get_edges([e.id for e in edges])
    nodes = ctx.store.get_nodes([x for e in edges for x in (e.src, e.dst)])
    out = []
    for e in edges:
        edge = full.get(e.id)
        if edge is None or e.src not in nodes or e.dst not in nodes:
            continue
        d, o = nodes[e.src], nodes[e.dst]
        if scope is not None and (d.scope != scope or o.scope != scope):
            continue
        out.append(
            Lesson(
                edge_id=edge.id,
                decision_id=d.id,
                decision=d.text,
                relation=edge.relation,
                outcome_id=o.id,
                outcome=o.text,
                polarity=node_polarity(o),
                confidence=edge.weight,
                strength=strength(
                    ctx, edge.weight, edge.relation, edge.last_reinforced_at.timestamp()
                ),
                task_tag=edge.task_tag,
                recorded_at=edge.created_at,
            )
        )
    return out


def causal_edges(
    ctx: Ctx, node_ids: Iterable[str], direction: str, relations: frozenset[str] = CAUSAL_RELATIONS
) -> list[EdgeRow]:
    return ctx.store.adjacent(node_ids, direction=direction, relations=relations)  # type: ignore[arg-type]


# search ------------------------------------------------------------------------------------


def search_causal(
    ctx: Ctx,
    query: str | None,
    task_tag: str | None,
    limit: int,
    scope: str | None = None,
    untagged: bool = False,
) -> CausalSearchResult:
    """`untagged`: with a task_tag, lessons tagged for no task count too (they hold for any)."""
    remedy = bool(query and REMEDY.search(query))
    asked_names = names(query) if query else set()
    if query:
        flt = CAUSAL_FILTER if scope is None else replace(CAUSAL_FILTER, scope=scope)
        found = ctx.store.text_search(query, 50, flt)
        ids = [i for i, _ in found]
        rank = {ident: r for r, ident in enumerate(ids, 1)}
        top = found[0][1] if found and found[0][1] > 0 else 1.0
        relative = {i: s / top for i, s in found}
        candidates = lessons(ctx, causal_edges(ctx, ids, "both"), scope)
    else:
        rank, relative = {}, {}
        candidates = lessons(
            ctx,
            ctx.store.find_edges(relations=CAUSAL_RELATIONS, task_tag=task_tag, limit=5000),
            scope,
        )
    hits = []
    for lesson in candidates:
        if (
            task_tag is not None
            and lesson.task_tag != task_tag
            and not (untagged and lesson.task_tag is None)
        ):
            continue
        fresh = min(lesson.strength, 1.0)
        if query:
            # BM25 of the better-matching end (so rare words count most), some credit for the
            # other end, and how much of the question the whole lesson covers.
            ends = sorted(
                (relative.get(lesson.decision_id, 0.0), relative.get(lesson.outcome_id, 0.0))
            )
            text = f"{lesson.decision} {lesson.outcome}"
            score = (ends[1] + 0.5 * ends[0] + 0.5 * containment(query, text)) * (
                0.75 + 0.25 * fresh
            )
            if remedy:
                reward = scoring.decision_reward(lesson.relation, lesson.polarity or 0.0)
                score *= 1.5 if reward > 0 else 0.5 if reward < 0 else 1.0
            score *= name_share(asked_names, terms(text))
        else:
            score = lesson.strength
        hits.append(
            LessonHit(
                lesson=lesson,
                score=score,
                why=Why(
                    lists={
                        f"text:{end}": rank[i]
                        for end, i in (
                            ("decision", lesson.decision_id),
                            ("outcome", lesson.outcome_id),
                        )
                        if i in rank
                    },
                    activation=lesson.strength,
                    recency_days=round((ctx.now - lesson.recorded_at.timestamp()) / DAY, 3),
                ),
            )
        )
    hits.sort(key=lambda h: (-h.score, h.lesson.edge_id))
    return CausalSearchResult(query=query, task_tag=task_tag, hits=hits[:limit])


def directory(ctx: Ctx, limit: int) -> CausalDirectory:
    found = lessons(ctx, ctx.store.find_edges(relations=CAUSAL_RELATIONS, limit=100_000))
    # The most useful lessons first: fresh, confident, and with a clear good or bad outcome.
    found.sort(key=lambda x: -(x.strength * (0.5 + abs(x.polarity or 0.0))))
    entries = []
    for x in found[:limit]:
        mark = "+" if (x.polarity or 0) > 0 else "-" if (x.polarity or 0) < 0 else "="
        task = f" [{x.task_tag}]" if x.task_tag else ""
        line = f"{mark} {link_line(x.decision, x.relation, x.outcome, 70)}{task}"
        entries.append(
            DirectoryEntry(
                edge_id=x.edge_id,
                line=line,
                polarity=x.polarity,
                task_tag=x.task_tag,
                strength=x.strength,
            )
        )
    return CausalDirectory(entries=entries, text="\n".join(e.line for e in entries))


# why did it happen ----------------------------------------------------------------------------


def outcomes_matching(ctx: Ctx, description: str) -> list[tuple[Node, float]]:
    """Matched nodes that something produced (they have incoming causal edges)."""
    return match_nodes(ctx, description, k=3, eligible=lambda ids: _ends(ctx, ids, "in"))


def _ends(ctx: Ctx, ids: list[str], direction: str) -> set[str]:
    """Of `ids`, those with a recorded consequence ("out") or a recorded cause ("in")."""
    if direction == "out":
        return {e.src for e in causal_edges(ctx, ids, "out")}
    return {e.dst for e in causal_edges(ctx, ids, "in", PRODUCING)}


def trace_cause(ctx: Ctx, description: str) -> TraceResult:
    matched = outcomes_matching(ctx, description)
    sim = {n.id: s for n, s in matched}
    found = lessons(ctx, causal_edges(ctx, list(sim), "in", PRODUCING))
    steps = [
        CauseStep(lesson=x, score=sim.get(x.outcome_id, 0.0) * x.confidence * _fresh(x))
        for x in found
        if x.outcome_id in sim
    ]
    steps.sort(key=lambda s: (-s.score, s.lesson.edge_id))
    return TraceResult(
        outcome_description=description, matched=[n for n, _ in matched], causes=steps
    )


def _fresh(lesson: Lesson) -> float:
    # Strength already holds confidence and decay; recency alone is strength / confidence.
    return lesson.strength / lesson.confidence if lesson.confidence > 0 else 0.0


def trace_cause_chain(
    ctx: Ctx, description: str, max_depth: int, min_confidence: float, limit: int
) -> ChainResult:
    """Every maximal backward path of caused/enabled links from the matched outcome.

    A chain's confidence is the geometric mean of its links' confidences, so a chain of
    ordinary links does not vanish merely for being long.
    """
    matched = outcomes_matching(ctx, description)
    chains: list[Chain] = []

    def walk(node_id: str, path: list[Lesson], visited: set[str], sim: float) -> None:
        incoming = []
        if len(path) < max_depth:
            incoming = [
                x
                for x in lessons(ctx, causal_edges(ctx, [node_id], "in", PRODUCING))
                if x.outcome_id == node_id and x.decision_id not in visited
            ]
        if not incoming and path:
            steps = list(reversed(path))
            conf = math.exp(sum(math.log(max(s.confidence, 1e-9)) for s in steps) / len(steps))
            if conf >= min_confidence:
                fresh = sum(_fresh(s) for s in steps) / len(steps)
                score = sim * conf * (0.5 + 0.5 * fresh) * (1 + 0.1 * len(steps))
                chains.append(Chain(steps=steps, confidence=conf, score=score))
        for x in incoming:
            walk(x.decision_id, [*path, x], visited | {x.decision_id}, sim)

    for node, sim in matched:
        walk(node.id, [], {node.id}, sim)
    chains.sort(key=lambda c: (-c.score, -len(c.steps)))
    return ChainResult(
        outcome_description=description, matched=[n for n, _ in matched], chains=chains[:limit]
    )


# what will it lead to ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Effects:
    matched: list[Node]
    consequences: list[Consequence]
    good: float
    bad: float
    protective: float
    # The lessons of the matched nodes that the consequences were spread along.
    recorded: list[EdgeRow] = field(default_factory=list)
    # The matched nodes the action undoes (a measure it takes away), spread from negatively.
    undone: list[Node] = field(default_factory=list)

    @property
    def episodes(self) -> int:
        return len(self.recorded)


def effects(ctx: Ctx, action: str, task_tag: str | None, max_depth: int, limit: int) -> Effects:
    """Forward signed spreading from the nodes that name `action`, along causal links only.

    A consequence reached with positive activation happened (or follows); one reached with
    negative activation was prevented. Bad outcomes that were prevented are protective.
    A recorded measure the action undoes ("remove the alert" / "The disk usage alert
    prevented the outage") is a seed too, with negative activation and along what it
    prevented only: what it prevented follows its undoing. What it caused is not said to stop
    with it (something else may bring it about), as the opposite of a cause is not judged on
    what that cause led to. A thing told as missing ("No disk usage alert") is the exception:
    that it was missing is told as what let its consequences happen (it would have prevented
    them), so putting it there ("add the alert") is spread from negatively along all of them.
    """
    # Of the nodes that name the action, those with a recorded consequence (an outcome that
    # matches better but led nowhere does not crowd them out).
    # A decision told as not done is not the action, nor the other way round: "did not skip
    # the load test" asks about another choice than "Skipped the load test". Nor is one done
    # with the opposite verb: "keep the canary" is "Did not skip the canary".
    people = ctx.people()
    done = match_nodes(
        ctx,
        action,
        k=SEEDS,
        eligible=lambda ids: _ends(ctx, ids, "out"),
        keep=lambda n: same_choice(action, n.text, people),
        action=True,
    )
    undone = match_nodes(
        ctx,
        action,
        k=SEEDS,
        eligible=lambda ids: _undoable(ctx, ids),
        keep=lambda n: undoes(action, n.text, people),
        action=True,
    )
    if done or undone:
        # What names the action about as well as the best match does; a weaker partial match
        # is another action that shares some of its words ("ran the queue with no cap" for
        # "use a bounded queue"), and its outcomes are not this action's.
        best = max(s for _, s in [*done, *undone])
        done = [(n, s) for n, s in done if s >= SEED_RELATIVE * best]
        undone = [(n, s) for n, s in undone if s >= SEED_RELATIVE * best]
    undone_ids = {n.id for n, _ in undone if absent(n.text) is None}
    out = causal_edges(ctx, [n.id for n, _ in [*done, *undone]], "out")
    # An undone measure's other lessons are not followed (see above); a lack's all are.
    unfollowed = {e.id for e in out if e.src in undone_ids and e.relation not in PREVENTING}
    recorded = [e for e in out if e.id not in unfollowed]
    other_tasks: frozenset[str] = frozenset()
    if task_tag is not None:
        full = ctx.store.get_edges([e.id for e in recorded])
        tags = {e.id: full[e.id].task_tag for e in recorded if e.id in full}
        in_task = {e.src for e in recorded if tags.get(e.id) == task_tag}
        if in_task:
            # The action has a history in this task: that history (and lessons tagged for no
            # task) is what it leads to here, not what it led to in another task ("spot
            # instances" cut the bill in one, broke the batch jobs in another).
            done = [(n, s) for n, s in done if n.id in in_task]
            undone = [(n, s) for n, s in undone if n.id in in_task]
            other_tasks = frozenset(
                e.id for e in recorded if tags.get(e.id) not in (task_tag, None)
            )
    seeds = {n.id: s for n, s in done} | {n.id: -s for n, s in undone}
    recorded = [e for e in recorded if e.src in seeds and e.id not in other_tasks]
    matched = [n for n, _ in [*done, *undone]]
    if not matched:
        return Effects([], [], 0.0, 0.0, 0.0)
    sub, reached = spread_from(
        ctx.store,
        seeds,
        ctx.config,
        ctx.now,
        direction="forward",
        hops=max_depth,
        relations=CAUSAL_RELATIONS,
        skip=other_tasks | unfollowed,
    )
    later = [r for r in reached if r.hops > 0 and r.node_id not in seeds]
    nodes = ctx.store.get_nodes([r.node_id for r in later])
    good = bad = protective = 0.0
    consequences = []
    by_id = {r.node_id: r for r in reached}
    for r in later:
        node = nodes.get(r.node_id)
        if node is None or node.valid_to is not None:
            continue
        p, a = node_polarity(node), r.activation
        pos, neg = max(a, 0.0), max(-a, 0.0)
        bad += pos * max(-p, 0.0) + neg * max(p, 0.0)
        good += pos * max(p, 0.0)
        protective += neg * max(-p, 0.0)
        consequences.append(
            Consequence(
                node=node, activation=a, hops=r.hops, path=_path(ctx, sub, by_id, r.node_id)
            )
        )
    consequences.sort(key=lambda c: (-abs(c.activation), c.node.id))
    return Effects(
        matched,
        consequences[:limit],
        good,
        bad,
        protective,
        recorded,
        [n for n, _ in undone],
    )


def _undoable(ctx: Ctx, ids: list[str]) -> set[str]:
    """Of `ids`, those an action can undo with a recorded consequence: measures that prevented
    something, and things told as missing that led to anything."""
    out = causal_edges(ctx, ids, "out")
    kept = {e.src for e in out if e.relation in PREVENTING}
    nodes = ctx.store.get_nodes(list({e.src for e in out} - kept))
    return kept | {i for i, n in nodes.items() if absent(n.text) is not None}


def _path(ctx: Ctx, sub: Subgraph, by_id: dict, node_id: str) -> list[Lesson]:
    rows = []
    current = by_id.get(node_id)
    while current is not None and current.via is not None and len(rows) < 10:
        edge = next(
            (e for e in sub.edges if e.src == current.via and e.dst == current.node_id), None
        )
        if edge is None:
            break
        rows.append(edge)
        current = by_id.get(current.via)
    return list(reversed(lessons(ctx, rows)))


def verdict(fx: Effects) -> tuple[Verdict, float, list[str]]:
    harmful, helpful = fx.bad, fx.good + fx.protective
    total = harmful + helpful
    if not fx.matched or total <= 1e-9:
        return "UNKNOWN", 0.5, ["no recorded consequence with a good or bad outcome"]
    risk = harmful / total
    # What the action was read as undoing comes first: it is why what it prevented follows.
    evidence = [
        f"undoes: {shorten(n.text, 80)} (what it prevented follows)"
        if absent(n.text) is None
        else f"ends: {shorten(n.text, 80)} (what that let happen is prevented)"
        for n in fx.undone
    ]
    for c in fx.consequences[:5]:
        p = node_polarity(c.node)
        state = "prevented" if c.activation < 0 else "followed"
        tone = "bad" if p < 0 else "good" if p > 0 else "neutral"
        evidence.append(f"{state} (hop {c.hops}, {tone}): {shorten(c.node.text, 80)}")
    if risk >= DANGER_RISK:
        return "DANGER", risk, evidence
    if risk >= WARNING_RISK:
        return "WARNING", risk, evidence
    return "SAFE", risk, evidence


def option_evidence(ctx: Ctx, option: str, task_tag: str | None, limit: int) -> OptionEvidence:
    fx = effects(ctx, option, task_tag, max_depth=2, limit=limit)
    helpful = fx.good + fx.protective
    total = helpful + fx.bad
    score = (helpful - fx.bad) / total if total > 1e-9 else 0.0
    return OptionEvidence(
        evidence=_deciding(fx, score) if total > 1e-9 else None,
        option=option,
        matched=fx.matched,
        good=fx.good,
        bad=fx.bad,
        protective=fx.protective,
        episodes=fx.episodes,
        score=score,
        lessons=lessons(ctx, fx.recorded)[:limit],
        undoes=fx.undone,
    )


def _deciding(fx: Effects, score: float) -> str:
    """The consequence that weighed most in an option's score, in a line: the chain of lessons
    from what the option matched to it, whether it followed or was prevented, and its tone.
    A consequence counts for the option by activation x polarity (a bad outcome prevented
    counts for it); for an even score, the one that weighed most either way."""
    sign = math.copysign(1.0, score) if abs(score) > 1e-9 else 0.0

    def weight(c: Consequence) -> float:
        toward = c.activation * node_polarity(c.node)
        return toward * sign if sign else abs(toward)

    c = max(fx.consequences, key=lambda c: (weight(c), abs(c.activation)))
    if c.path:
        chain = chain_line([(x.decision, x.relation, x.outcome) for x in c.path], 60)
        start = next((n for n in fx.undone if n.id == c.path[0].decision_id), None)
        if start is not None:
            chain = ("undoes: " if absent(start.text) is None else "ends: ") + chain
    else:
        chain = shorten(c.node.text, 80)
    p = node_polarity(c.node)
    state = "prevented" if c.activation < 0 else "followed"
    return f"{chain} ({state}, {'bad' if p < 0 else 'good' if p > 0 else 'neutral'})"


def prefer(a: OptionEvidence, b: OptionEvidence) -> tuple[str, float]:
    """Compare scores in [-1, 1]. An option with no good or bad record counts as 0 (unknown)
    against one with a record, so a known-bad option loses to an untried one, and a
    known-good one beats it; two unknowns stay unknown."""
    has_a = a.good + a.bad + a.protective > 1e-9
    has_b = b.good + b.bad + b.protective > 1e-9
    if not (has_a or has_b):
        return "unknown", 0.0
    margin = (a.score if has_a else 0.0) - (b.score if has_b else 0.0)
    if not (has_a and has_b) and abs(margin) < KNOWN_MARGIN:
        return "unknown", margin
    if abs(margin) < 0.05:
        return "tie", margin
    return ("decision" if margin > 0 else "alternative"), margin
