"""Rule-based extraction from chat transcripts: no model, no network, deterministic.

A transcript becomes typed items (each a self-contained sentence) and links between them:

1. turns (`transcript.Message`) are split into sentences; bare acknowledgements ("haha",
   "thanks!") are dropped, and everything else is kept (as a `note` when no other kind fits):
   recall needs it;
2. first- and second-person pronouns become names ("I adopted a dog", said by Caroline ->
   "Caroline adopted a dog"), verbs agreeing (both in `sentences.py`); a message no one is
   named as saying (a paragraph of a note, speaker "") keeps its pronouns;
3. time phrases are resolved against the message time (or the session date) and the absolute
   date is written next to them ("yesterday (7 May 2023)"); the item's `when` is that date;
4. causal cues split a sentence into cause and effect clauses linked `caused`, `enabled`,
   `prevented` or `no_effect` (a negated cue). Anaphors link to what was said before, across
   turns: "That caused ..." to the previous sentence, "The outage led to ..." to the item that
   mentioned an outage. Causes done by someone become decisions, effects become outcomes
   (with polarity from `polarity.py`);
5. other sentences are typed by cue: lesson, preference, decision, event, fact, note;
6. speakers and named people become person items, linked `about` from the items naming them.

Where each part lives: `items.py` (what extraction yields, and how sure each rule is),
`kinds.py` (step 5), `cues.py` (the causal and time cues of step 4), `people.py` (who a
sentence names, step 6) and `extractor.py` (the reading itself, turn by turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from ..text import normalize, similarity
from ..transcript import Message
from .extractor import _Extractor, actor
from .items import CAUSAL, Extraction, Item, ItemLink, said_in

__all__ = [
    "CAUSAL",
    "Extraction",
    "Item",
    "ItemLink",
    "actor",
    "causal_only",
    "extract",
    "merge",
    "said_in",
]


def extract(
    messages: Sequence[Message],
    date: datetime | None = None,
    *,
    note: bool = False,
    people: Sequence[str] = (),
) -> Extraction:
    """Items and links from a transcript; `date` stands in for messages without a time.
    `note`: the messages are a note's paragraphs, whose "that" and "the outage" reach further
    back (`NOTE_REACH`). `people`: whom the memory already knows, a person when named even by
    a word ("Rose", "Will", "Miles")."""
    return _Extractor(messages, date, note, people).run()


def causal_only(found: Extraction) -> Extraction:
    """Only the items that cause or are caused, and the causal links between them (what a note
    is read for)."""
    keep = sorted(
        {i for link in found.links if link.relation in CAUSAL for i in (link.src, link.dst)}
    )
    at = {old: new for new, old in enumerate(keep)}
    items = [found.items[i] for i in keep]
    links = [
        replace(link, src=at[link.src], dst=at[link.dst])
        for link in found.links
        if link.relation in CAUSAL
    ]
    return Extraction(items=items, links=links)


# An item another extractor found is the rules' item when they share a message and this share
# of their words.
SAME_ITEM = 0.8


def merge(rules: Extraction, more: Extraction) -> Extraction:
    """The rules' extraction plus what `more` adds: its items that no rule item with a
    common message already says, and its links (between the merged items) not already there."""
    items = list(rules.items)
    where: list[int] = []  # more's item i is items[where[i]]
    for item in more.items:
        same = next(
            (
                j
                for j, known in enumerate(rules.items)
                if set(known.sources) & set(item.sources)
                and (
                    normalize(known.text) == normalize(item.text)
                    or similarity(known.text, item.text) >= SAME_ITEM
                )
            ),
            None,
        )
        if same is None:
            items.append(item)
            same = len(items) - 1
        where.append(same)
    links = list(rules.links)
    have = {(link.src, link.dst) for link in links}
    for link in more.links:
        pair = (where[link.src], where[link.dst])
        if pair[0] != pair[1] and pair not in have:
            have.add(pair)
            links.append(replace(link, src=pair[0], dst=pair[1]))
    return Extraction(items, links)
