"""Recall: ranked lists (BM25, vectors) fused by RRF, re-scored by what the candidates say,
spread one hop through the graph, blended with activation.

1. BM25 and vector search each rank candidates, and so does the time a query names (what was
   told of or said then); Reciprocal Rank Fusion merges the lists. The phrase that named the
   time ("last week") is left out of the word search: what says "last week" may tell of any
   week. When the embedding model cannot be reached the vector list is left out and the
   result says so (`degraded`).
2. The best fused candidates (the pool) are read in full and re-scored:
   * a query that names a time ("in May 2023", "on 7 July") lifts items whose `when` (the
     time they tell of) or `said_at` (when they were said) falls in that window; a date
     named without its year means the latest such date the memory holds anything from;
   * a question someone asked is not knowledge: it keeps a fraction of its score, and passes
     one and a half times it on to what it is linked to (its answer).
3. The pool seeds one hop of signed spreading over the graph (`about` links to entities
   excepted: an entity's items are many and mostly unrelated to each other), into nodes the
   query may return only (its filter is applied as the links are read). What a seed is
   linked to (the next sentence, the reply to it, its cause or effect) gains a share of the
   seed's score, capped below the best seed's; items that support each other rise together,
   and an answer can surface through its question. A seed with many links (a note told many
   times, linked to every telling's neighbours) divides what it passes over them.
   Inhibition lowers nothing here: recall asks what is relevant, and a prevented outcome is.
4. A query that names one of the people who spoke in the memory ("what does Melanie do to
   relax?") is after what that person said: their items count double, and the name is left
   out of the word search, where it would match everything they said (their "I" is
   rewritten to their name) and rank by how often they named themselves. A person's (or
   project's) own item, which is just a name, keeps a third of its score unless the query
   asks for no more than that name: for "which cities has Jon visited?" it is no answer.
5. Live, well-used knowledge gets up to `activation_blend` more.
6. An ended item the words or the meaning match that names its successor (a setting a change
   ended, a fact told anew: `superseded_by`) is no answer itself, but what replaced it is: the
   current item at the end of its chain of successors, if the query may return it, takes its
   place in the word (or vector) list at the ended item's score (or its own, when that is
   better), and `why.replaces` names what it stands in for. "What do we use for CI?" (or
   "which build server do we run?") after "We use Jenkins for CI" and "We switched from
   Jenkins to GitHub Actions" finds the switch. Each search finds these items with the
   others, in the same query; when they crowd a full list, the current matches are sought
   again on their own.
7. An item that only repeats the messages a better hit came from (one message often gives a
   fact, an event and a preference) keeps a third of its score, so ten hits tell of about
   ten messages rather than seven; `why.repeats` names the better hit. In a question about
   one speaker, what the other said in reply to a better hit's message ("Wow, sounds like
   you and the kids had a blast!") keeps 0.85 of its score unless that message asked
   something: it is read with that message, so it matches through it, and mostly echoes it;
   `why.replies_to` names the better hit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from . import scoring, text
from .config import DAY, Config
from .embed import Embedder, query_embedding
from .errors import EmbeddingUnavailable
from .graph import ReadAhead, Subgraph, spread_from
from .model import (
    INDEX_KINDS,
    Node,
    RecallHit,
    RecallResult,
    Replaced,
    ViaEdge,
    Why,
    creation_key,
)
from .store import EdgeRow, Matches, NodeBrief, SearchFilter, Store
from .store.base import dated_within, item_dates, window
from .timeparse import TimeSpan, query_time, years_earlier

# The most hits one call returns.
MAX_K = 200
# How many candidates each ranked list contributes, relative to k.
CANDIDATE_FACTOR = 2
MIN_CANDIDATES = 60
# How many fused candidates are read in full, re-scored and used as spreading seeds. The
# minimums make a k=10 call rank its ten as a k=100 call does (LoCoMo dev: with 30 and 30,
# recall_all@10 of the k=10 call was 0.737 against 0.751).
POOL_FACTOR = 1.5
MIN_POOL = 45
RECALL_HOPS = 1
# Share of a linked seed's (normalised) score a node gains by spreading.
CONTEXT_WEIGHT = 2.0
# ... and at most this share of the best seed's: what is only linked to the best match does not
# outrank it.
CONTEXT_CAP = 0.5
# A seed with more links than this divides what it passes over them: a note told many times
# is linked to every telling's neighbours (a dozen links or more), and those notes, linked to
# each other, would lift each other above a fact told once. Most items have 2-4 links (a
# sentence's neighbours, the reply); LoCoMo dev: 3% have more than six, and at 4 or 5 in place
# of 6 multi-hop all@10 lost one or two questions.
FAN_OUT = 6.0
# Multipliers from what a candidate says.
TIME_BOOST = 2.0  # told of or said within the time the query names: x3
WINDOW_DEPTH = 3  # candidates and pool read this many times deeper
YEARLESS_BACK = 5  # years a date named without its year may reach back
# A question someone asked is not knowledge: it keeps a share of its score and passes more
# than all of it on to what it is linked to, since its answer is what its asker wanted.
QUESTION_KEEP = 0.3
QUESTION_PASS = 1.5
# What the one speaker a query names said: x2.
SPEAKER_BOOST = 1.0
# Nearest neighbours exist for any query; below this cosine they are not related to it.
MIN_COSINE = 0.3
# An item whose messages a better hit already stands for keeps this share of its score, so the
# hits tell of more messages; looked for this many times deeper than k.
REPEAT_KEEP = 0.3
REPEAT_DEPTH = 3
# In a question about one speaker, the other's reply to a better hit's message (one that asked
# nothing) keeps this share.
REPLY_KEEP = 0.85
# An index item in a question that asks more than its name (`_index_aside`).
INDEX_ASIDE = 0.3
# The longest chain of successors followed from an ended item a query matched (a value told
# anew that many times in a row); it also ends a chain that loops.
MAX_SUCCESSION = 16
# Ended matches over this share of a full list are set apart: the current matches are sought
# again on their own, so versions of one key told anew dozens of times take no list's places.
CROWDED = 0.1
# Entities are matched by name, not reached by spreading.
NO_SPREAD = frozenset({"about", "supersedes"})
# Query embeddings run here, beside the calling thread; a few at once for concurrent recalls.
_EMBEDDING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ebbtide-embed")


def recall(
    store: Store,
    config: Config,
    query: str,
    *,
    k: int,
    now: datetime,
    flt: SearchFilter,
    activation_ref: float,
    embedder: Embedder | None = None,
    speakers: Sequence[str] = (),
) -> RecallResult:
    """`embedder` adds vector search when embeddings are on; `speakers` are the people who
    spoke in the memory (person nodes with role speaker)."""
    # The model runs outside the GIL: the query is embedded while its words are searched.
    vector = (
        (embedder.name, _EMBEDDING.submit(query_embedding(embedder), [query]))
        if embedder is not None
        else None
    )
    window, words = _window(query, now)
    if window is not None and window.yearless:
        window = _latest_with_content(store, window, flt)
    # A query that names a time reads deeper: what was said then may match its words weakly.
    depth = WINDOW_DEPTH if window is not None else 1
    named = text.named(query, speakers) if speakers else []
    speaker = named[0] if len(named) == 1 else None
    found = _candidates(
        store,
        config,
        text.without_name(words, speaker) if speaker is not None else words,
        window,
        n=max(MIN_CANDIDATES, CANDIDATE_FACTOR * k) * depth,
        pool_size=max(MIN_POOL, int(POOL_FACTOR * k)) * depth,
        flt=flt,
        vector=vector,
    )
    t = now.timestamp()
    weights: dict[str, dict[str, float]] = defaultdict(dict)  # id -> reason -> multiplier
    scores, seeds = _rescore_pool(found, window, weights)
    spread = _spread(store, config, found, scores, seeds, t, flt)
    if not scores:
        return RecallResult(query=query, hits=[], degraded=found.degraded)
    if speaker is not None:
        _prefer_speaker(store, scores, found.nodes, speaker, k, config.activation_blend, weights)
    _index_aside(scores, found.nodes, query, weights)
    ranked = _with_activation(store, config, scores, found, REPEAT_DEPTH * k, activation_ref)
    scored, repeats, replies = _repeats_discounted(ranked, found.nodes, k, speaker)
    for i in repeats:
        weights[i]["repeats"] = REPEAT_KEEP
    for i in replies:
        weights[i]["reply"] = REPLY_KEEP
    hits = _explained(config, scored, found, spread, repeats, replies, t, weights)
    return RecallResult(query=query, hits=hits, degraded=found.degraded)


@dataclass
class _Found:
    """The ranked lists, their fusion, and what was read of the best candidates."""

    lists: dict[str, list[str]]
    fused: dict[str, float]
    text_score: dict[str, float]
    pool: list[str]  # the best fused candidates: re-scored, spreading seeds
    nodes: dict[str, Node]  # every node read in full so far
    relations: frozenset[str]  # what spreading follows
    ahead: ReadAhead | None  # links read with the searches or while the query was embedded
    briefs: dict[str, NodeBrief]  # read with the searches
    degraded: str | None = None  # why there is no vector list, when the model failed
    # a successor in the word list -> the ended item it stands in for
    replaces: dict[str, Node] = field(default_factory=dict)


@dataclass
class _Spread:
    sub: Subgraph | None = None
    via_of: dict[str, str] = field(default_factory=dict)  # node -> the seed it was reached from
    rank: dict[str, int] = field(default_factory=dict)  # node -> rank by what it gained


def _candidates(
    store: Store,
    config: Config,
    words: str,
    window: TimeSpan | None,
    *,
    n: int,
    pool_size: int,
    flt: SearchFilter,
    vector: tuple[str, Future[np.ndarray]] | None,
) -> _Found:
    """BM25, vector and time lists fused by RRF, and the pool read in full."""
    relations = frozenset(config.coefficients) - NO_SPREAD
    # The best word matches are mostly the pool (all of it without vectors or a time): a store
    # across a network reads them, their links and what those reach with the search.
    seek = replace(flt, with_successors=True)
    matches = store.text_search_read(words, n, seek, read=pool_size, relations=relations)
    text_hits, replaces, read = matches.hits, {}, dict(matches.nodes)
    if matches.replaced:
        if _crowded(matches, n):
            text_hits = _live_apart(matches, store.text_search(words, n, flt))
        text_hits, replaces = _standing_in(store, text_hits, matches.replaced, flt, read)
    lists: dict[str, list[str]] = {
        "text": [i for _, i in _best_first([(s, i) for i, s in text_hits])]
    }
    early = lists["text"][:pool_size]
    nodes = {i: read[i] for i in early if i in read}
    ahead = ReadAhead(matches.around, matches.edges) if matches.around else None
    # Work that does not need the query's vector is done while the model runs: what was said
    # in the time the query names, and the best word matches with the links that spreading
    # from them will follow.
    dated = [i for i, _ in store.time_search(*window.bounds, n, flt)] if window is not None else []
    degraded: str | None = None
    briefs = dict(matches.briefs)
    vector_read: dict[str, Node] = {}
    if vector is not None:
        nodes.update(store.get_nodes([i for i in early if i not in nodes]))
        unread = [i for i in early if ahead is None or i not in ahead.ids]
        if RECALL_HOPS > 0 and unread:
            edges = store.adjacent(unread, relations=relations, reach=flt)
            ahead = (
                ReadAhead(frozenset(unread), edges)
                if ahead is None
                else ReadAhead(ahead.ids | frozenset(unread), ahead.edges + edges)
            )
        model, pending = vector
        try:
            # The vector matches that could join the pool and were not read with the words,
            # their links and what those reach are read with the search.
            asked = pending.result()[0]
            near = store.vector_search_read(
                model, asked, n, seek, read=pool_size, relations=relations, words=lists["text"]
            )
        except EmbeddingUnavailable as exc:
            # An unreachable model (or one whose vectors no longer fit) costs the vector list,
            # not the answer.
            degraded = f"no vector search: {exc}"
        else:
            near_hits = near.hits
            if near.replaced:
                if _crowded(near, n):
                    near_hits = _live_apart(near, store.vector_search(model, asked, n, flt))
                near_hits, standing = _standing_in(store, near_hits, near.replaced, flt, read)
                replaces = {**standing, **replaces}
            # Equal cosines (one text stored as two kinds) rank as equal words do, newest
            # first, whatever order the store's index gave them in.
            lists["vector"] = [
                i for _, i in _best_first([(cos, i) for i, cos in near_hits if cos >= MIN_COSINE])
            ]
            vector_read = near.nodes
            briefs.update(near.briefs)
            briefs.update((i, NodeBrief(v.activation, v.q_value)) for i, v in vector_read.items())
            if near.around:
                ahead = (
                    ReadAhead(near.around, near.edges)
                    if ahead is None
                    else ReadAhead(ahead.ids | near.around, ahead.edges + near.edges)
                )
    fused = scoring.rrf(lists, config.rrf_k)
    if window is not None:
        # What was told of or said then, matched or not: a question that is mostly a time
        # ("what did I do last week?") has little else to find it by. Within the window, what
        # the other lists found comes first, so the time alone does not reorder them.
        order = {i: r for r, i in enumerate(dated)}
        lists["time"] = sorted(dated, key=lambda i: (-fused.get(i, 0.0), order[i]))
        fused = scoring.rrf(lists, config.rrf_k)
    pool = [i for _, i in _best_first([(f, i) for i, f in fused.items()])[:pool_size]]
    # Of what the vector search read in full, only the pool joins what is known in full, as
    # if it alone had been read: later steps (`_index_aside`) look only at what is.
    nodes.update((i, vector_read[i]) for i in pool if i in vector_read and i not in nodes)
    nodes.update(store.get_nodes([i for i in pool if i not in nodes]))
    return _Found(
        lists, fused, dict(text_hits), pool, nodes, relations, ahead, briefs, degraded, replaces
    )


def _crowded(found: Matches, n: int) -> bool:
    """Whether ended matches (a key told anew many times over) fill so much of a full list
    that they may have pushed current ones out of it."""
    return len(found.hits) >= n and len(found.replaced) > CROWDED * n


def _live_apart(found: Matches, live: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The current matches of a search without ended items, and the ended ones `found` holds:
    one search's scores, so they rank together."""
    return live + [(i, s) for i, s in found.hits if i in found.replaced]


def _standing_in(
    store: Store,
    hits: list[tuple[str, float]],
    replaced: dict[str, str],
    flt: SearchFilter,
    read: dict[str, Node],
) -> tuple[list[tuple[str, float]], dict[str, Node]]:
    """The word matches with each ended one (`replaced`: its successor) given to the current
    item at the end of its chain of successors, when `flt` passes that: at the ended item's
    score, or its own match's when that is better; with, for each successor, the best-matched
    ended item it stands in for. What is read on the way goes into `read`. Costs nothing unless
    an ended item matched: a read per link of the longest chain, and one to filter the ends."""
    at = dict(replaced)  # ended match -> how far its chain has come
    ends: dict[str, str] = {}
    for _ in range(MAX_SUCCESSION):
        want = [i for i in (*replaced, *at.values()) if i not in read]
        if want:
            read.update(store.get_nodes(list(dict.fromkeys(want))))
        onward: dict[str, str] = {}
        for old, i in at.items():
            node = read.get(i)
            if node is None:
                continue
            if node.valid_to is None:
                ends[old] = i
            elif node.superseded_by is not None:
                onward[old] = node.superseded_by
        at = onward
        if not at:
            break
    current = store.filter_ids(set(ends.values()), flt) if ends else set()
    score: dict[str, float] = {}
    replaces: dict[str, Node] = {}
    for i, s in sorted(hits, key=lambda h: -h[1]):
        new = ends.get(i) if i in replaced else i
        if new is None or (i in replaced and new not in current):
            continue
        score[new] = max(score.get(new, s), s)
        if i in replaced and new not in replaces and i in read:
            replaces[new] = read[i]
    return list(score.items()), replaces


def _rescore_pool(
    found: _Found, window: TimeSpan | None, weights: dict[str, dict[str, float]]
) -> tuple[dict[str, float], dict[str, float]]:
    """Every candidate's score, the pool's re-scored by what its items say, and what each pool
    item passes on by spreading."""
    seeds: dict[str, float] = {}  # what a candidate passes on
    own: dict[str, float] = {}  # what it keeps
    for i in found.pool:
        node = found.nodes.get(i)
        if node is None:
            continue
        score = found.fused[i]
        if window is not None and _within(node, window):
            score *= 1.0 + TIME_BOOST
            weights[i]["time"] = 1.0 + TIME_BOOST
        question = bool(node.attributes.get("question"))
        if question:
            weights[i]["question"] = QUESTION_KEEP
        seeds[i] = score * QUESTION_PASS if question else score
        own[i] = score * QUESTION_KEEP if question else score
    # Candidates below the pool keep their fused score; a pool id that is gone is dropped.
    pooled = set(found.pool)
    scores = {i: own.get(i, s) for i, s in found.fused.items() if i in own or i not in pooled}
    return scores, seeds


def _spread(
    store: Store,
    config: Config,
    found: _Found,
    scores: dict[str, float],
    seeds: dict[str, float],
    t: float,
    flt: SearchFilter,
) -> _Spread:
    """One hop of spreading from the pool: what a seed is linked to gains a share of its
    score (added to `scores`), capped at CONTEXT_CAP of the best seed's."""
    top = max(seeds.values(), default=0.0)
    if top <= 0 or RECALL_HOPS <= 0:
        return _Spread()
    start = {i: v / top for i, v in seeds.items()}
    sub, reached = spread_from(
        store,
        start,
        config,
        t,
        direction="both",
        hops=RECALL_HOPS,
        relations=found.relations,
        reach=flt,  # what the query may not return is not reached either
        ahead=found.ahead,
        fan_out=FAN_OUT,
    )
    # Relevance is the size of what arrives: a prevented outcome (reached with a negative
    # sign) is as much what the query is about as a caused one.
    gains = {
        r.node_id: abs(r.activation) - start.get(r.node_id, 0.0)
        for r in reached
        if abs(r.activation) - start.get(r.node_id, 0.0) > 0
    }
    out = _Spread(sub=sub)
    for r in reached:
        if r.hops > 0 and r.via is not None and r.node_id in gains:
            out.via_of[r.node_id] = r.via
    for rank, (gain, i) in enumerate(_best_first([(g, i) for i, g in gains.items()]), 1):
        out.rank[i] = rank
        scores[i] = scores.get(i, 0.0) + top * min(CONTEXT_CAP, CONTEXT_WEIGHT * gain)
    return out


def _with_activation(
    store: Store,
    config: Config,
    scores: dict[str, float],
    found: _Found,
    n: int,
    activation_ref: float,
) -> list[tuple[float, str]]:
    """The best n by score blended with activation, their nodes read into `found.nodes`."""
    # Activation lifts a score by at most `activation_blend`: what cannot reach the n-th best
    # score even so is left out before its activation is read.
    nodes, known = found.nodes, found.briefs
    floor = sorted(scores.values(), reverse=True)[min(n, len(scores)) - 1]
    contenders = [i for i, s in scores.items() if s * (1.0 + config.activation_blend) >= floor]
    activation = {i: nodes[i].activation for i in contenders if i in nodes}
    activation.update(
        (i, known[i].activation) for i in contenders if i not in activation and i in known
    )
    briefs = store.briefs([i for i in contenders if i not in activation])
    activation.update((i, b.activation) for i, b in briefs.items())
    ranked = _best_first(
        [
            (
                scoring.blend(
                    scores[i],
                    scoring.relative_activation(activation[i], activation_ref),
                    config.activation_blend,
                ),
                i,
            )
            for i in contenders
            if i in activation
        ]
    )[:n]
    missing = [i for _, i in ranked if i not in nodes]
    if missing:
        nodes.update(store.get_nodes(missing))
    return ranked


def _explained(
    config: Config,
    scored: list[tuple[float, str]],
    found: _Found,
    spread: _Spread,
    repeats: dict[str, str],
    replies: dict[str, str],
    t: float,
    weights: dict[str, dict[str, float]],
) -> list[RecallHit]:
    """The hits, each with why it surfaced."""
    ranks = {name: {i: r for r, i in enumerate(ids, 1)} for name, ids in found.lists.items()}
    if spread.rank:
        ranks["graph"] = spread.rank
    listed = set(found.fused)
    via_of = spread.via_of
    edges = _edges_for(
        spread.sub, [(via_of[i], i) for _, i in scored if i in via_of and i not in listed]
    )
    hits: list[RecallHit] = []
    for score, ident in scored:
        node = found.nodes.get(ident)
        if node is None:
            continue
        seed = ident in listed
        via: list[ViaEdge] = []
        edge = edges.get((via_of.get(ident, ""), ident))
        if not seed and edge is not None:
            strength = scoring.edge_strength(
                edge.weight,
                config.coefficient(edge.relation),
                t - edge.last_reinforced_at,
                config.half_life_s,
            )
            via.append(
                ViaEdge(
                    edge_id=edge.id,
                    src=edge.src,
                    relation=edge.relation,
                    dst=edge.dst,
                    contribution=float(strength),
                )
            )
        # Not `updated_at`: that is when the memory wrote it (a file read today, a pin), and
        # an old note would seem used today; told again or read, `last_read_at` says so.
        last_use = max(node.created_at, node.last_read_at or node.created_at).timestamp()
        why = Why(
            lists={name: r[ident] for name, r in ranks.items() if ident in r},
            text_match=found.text_score.get(ident),
            origin="seed" if seed else "hop",
            hops=0 if seed else RECALL_HOPS,
            via=via,
            activation=node.activation,
            tier=node.tier,
            recency_days=round((t - last_use) / DAY, 3),
            repeats=repeats.get(ident),
            replies_to=replies.get(ident),
            replaces=_replaced(found.replaces.get(ident)),
            weights=dict(weights.get(ident, {})),
        )
        hits.append(RecallHit(node=node, score=score, why=why))
    return hits


def _replaced(node: Node | None) -> Replaced | None:
    return None if node is None else Replaced(id=node.id, text=node.text)


def _prefer_speaker(
    store: Store,
    scores: dict[str, float],
    nodes: dict[str, Node],
    speaker: str,
    k: int,
    blend: float,
    weights: dict[str, dict[str, float]],
) -> None:
    """Multiply the scores of what `speaker` said, among the items that could reach the top k."""
    floor = sorted(scores.values(), reverse=True)[min(k, len(scores)) - 1]
    reach = (1.0 + SPEAKER_BOOST) * (1.0 + blend)
    near = [i for i, s in scores.items() if s * reach >= floor]
    nodes.update(store.get_nodes([i for i in near if i not in nodes]))
    for i in near:
        node = nodes.get(i)
        if node is not None and node.attributes.get("speaker") == speaker:
            scores[i] *= 1.0 + SPEAKER_BOOST
            weights[i]["speaker"] = 1.0 + SPEAKER_BOOST


def _index_aside(
    scores: dict[str, float],
    nodes: dict[str, Node],
    query: str,
    weights: dict[str, dict[str, float]],
) -> None:
    """An index item (a person, a project) answers a question about itself; in a question that
    asks more ("which cities has Jon visited?") its name alone is no answer and only takes a
    hit's place, so it keeps INDEX_ASIDE of its score unless its name is all the question's
    content words ("Jon", "who is Jon?")."""
    asked = text.terms(query)
    if not asked:
        return
    for i in scores:
        node = nodes.get(i)
        if node is not None and node.kind in INDEX_KINDS and not asked <= text.terms(node.text):
            scores[i] *= INDEX_ASIDE
            weights[i]["index"] = INDEX_ASIDE


def _repeats_discounted(
    ranked: list[tuple[float, str]], nodes: dict[str, Node], k: int, speaker: str | None = None
) -> tuple[list[tuple[float, str]], dict[str, str], dict[str, str]]:
    """The best k of `ranked` once an item whose sources are all sources of better items keeps
    REPEAT_KEEP of its score (ten hits should tell of more than three messages), and, when the
    query names one `speaker`, what another said in reply to a better item's message keeps
    REPLY_KEEP, unless that message asks something (then the reply is its answer); with, for
    each item so discounted, the better item it repeats or replies to."""
    told_by: dict[str, str] = {}  # source -> the best item from it
    said_in: dict[str, str] = {}  # a message that asks nothing -> the best item from it
    repeats: dict[str, str] = {}
    replies: dict[str, str] = {}
    out: list[tuple[float, str]] = []
    for score, ident in ranked:
        node = nodes.get(ident)
        if node is None:
            continue
        sources = node.sources if node.kind not in INDEX_KINDS else []
        message, answered = node.attributes.get("message"), node.attributes.get("in_reply_to")
        if sources and all(s in told_by for s in sources):
            score *= REPEAT_KEEP
            repeats[ident] = told_by[sources[0]]
        elif (
            isinstance(answered, str)
            and answered in said_in
            and speaker is not None
            and node.attributes.get("speaker") != speaker
        ):
            score *= REPLY_KEEP
            replies[ident] = said_in[answered]
        for s in sources:
            told_by.setdefault(s, ident)
        if isinstance(message, str) and not (node.attributes.get("asks") or "?" in message):
            said_in.setdefault(message, ident)
        out.append((score, ident))
    return _best_first(out)[:k], repeats, replies


def _best_first(scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """(score, id) pairs by score, a tie going to the item made later: between two equally
    good matches, the newer is the better guess, and every run ranks alike."""
    return sorted(scored, key=lambda p: (p[0], creation_key(p[1])), reverse=True)


def _window(query: str, now: datetime) -> tuple[TimeSpan | None, str]:
    """The time the query names, and the words to search for. Once its time is a window,
    the phrase that named it is a filter, not content: "what happened last week?" is after
    what was told of or said last week (the time list, the boost), not what says "last week"
    (an item told last October that "last week we had a picnic" tells of October). A question
    that is all time ("what did we do last week?") searches no words; a time alone ("Tuesday")
    is also a word to find ("the deploy window is Tuesday")."""
    # A query carries no offset of its own: what it counts from the present ("yesterday",
    # "last week") counts from the memory clock's date in the clock's offset, the memory's
    # present. The days so found, like days named outright ("on 12 May"), are each item's
    # own days: what was said at 22:30 on the 12th in New York was said on the 12th.
    span, rest = query_time(query, now)
    if span is None or span.precision == "vague":
        return None, query
    if text.content_tokens(rest):
        return span, rest
    return span, "" if text.tokens(rest) else query


def _latest_with_content(store: Store, window: TimeSpan, flt: SearchFilter) -> TimeSpan:
    """A date named without its year ("in June", "on Aug 15th") means the latest such date
    the memory holds anything from, up to YEARLESS_BACK years back; the most recent one when
    none holds anything."""
    spans = [years_earlier(window, back) for back in range(YEARLESS_BACK + 1)]
    first = store.first_dated([s.bounds for s in spans], flt)
    return window if first is None else spans[first]


def _within(node: Node, span: TimeSpan) -> bool:
    """The node tells of, or was said in, the window, as `Store.time_search` finds them."""
    return dated_within(item_dates(node.attributes), window(*span.bounds)) is not None


def _edges_for(
    sub: Subgraph | None, pairs: list[tuple[str, str]]
) -> dict[tuple[str, str], EdgeRow]:
    """The strongest-weighted edge joining each (a, b) pair, either way, in one pass."""
    if sub is None or not pairs:
        return {}
    wanted = {frozenset(p): p for p in pairs}
    out: dict[tuple[str, str], EdgeRow] = {}
    for e in sub.edges:
        pair = wanted.get(frozenset((e.src, e.dst)))
        if pair is not None and (pair not in out or e.weight > out[pair].weight):
            out[pair] = e
    return out
