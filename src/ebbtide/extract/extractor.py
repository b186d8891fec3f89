"""The extractor: a transcript read message by message into items and links, with
anaphors ("That caused …", "the outage") resolved across turns."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..polarity import outcome_polarity
from ..sentences import is_acknowledgement, is_past, rewrite_pronouns, split_sentences, word_set
from ..settings import is_tool, tools_for
from ..text import PRODUCT_NAME, STOPWORDS, normalize, root, shorten, stem, tokens
from ..timeparse import MONTHS, TimeSpan, describe, resolve
from ..transcript import Message
from .cues import (
    _A_DOING,
    _A_MEASURE,
    _A_SPAN_OF,
    _A_TIME,
    _A_TIME_AGO,
    _AFTER,
    _AFTER_THE_CAUSE,
    _AFTER_THE_DOING,
    _AN_OBJECT,
    _ANAPHOR_ACTS,
    _ANAPHORS,
    _AND_THEN_A_CLAUSE,
    _AS,
    _AS_CHOSEN,
    _ASIDES,
    _AVOIDED,
    _BARE_DOING,
    _BARE_SUBJ,
    _BECAUSE,
    _BEFORE_VERB_CUE,
    _BY_GERUND,
    _CAUGHT,
    _CLAUSE_BREAK,
    _CLAUSE_CUES,
    _CLAUSE_LEAD,
    _COMMENT,
    _COMPARED,
    _CONDITION,
    _CONJOINED,
    _COUNTERFACTUAL,
    _CUE_RE,
    _CUE_WORDS,
    _CUES,
    _DID,
    _DID_TO,
    _FOLLOWED_LAST,
    _FUTURE,
    _GERUND_STOP,
    _HAD_IT,
    _HEDGE,
    _HEDGED,
    _IT_CAME_ABOUT,
    _JUDGED,
    _JUST_HAPPENED,
    _LEAD_ALONE,
    _LEAD_CLAUSE,
    _LEAD_FILLER,
    _LEAD_RELATION,
    _MARKUP,
    _MEANT,
    _MEANT_BY_SOMEONE,
    _MODAL,
    _NAMES_A_CAUSE,
    _NEGATED_COUNTERFACTUAL,
    _NO_CLAIM_SUBJECT,
    _NO_VERDICT_BEFORE,
    _NOT_A_CLAIM_AFTER,
    _NOT_A_CLAIM_BEFORE,
    _NOT_DID_BEFORE,
    _NOT_DOING,
    _NOT_KNOWN,
    _ONCE,
    _OPENER,
    _POSSESSIVE,
    _PREVENTED_FROM,
    _RELATIVE_END,
    _REPORTED,
    _RESULT_LAST,
    _ROOT_CAUSE,
    _SINCE,
    _SINCE_CLAUSE,
    _SO_THAT,
    _SOMEONE_DID,
    _SOONER,
    _STEMMED,
    _STOPPED_EARLY,
    _SUBJ,
    _SUPPOSED,
    _SURE,
    _TIME_CLAUSE,
    _TRACED,
    _VERDICT,
    _WEAK_LEADS,
    _WHEN_CLAUSE,
    _WHICH_DID,
    _WITHOUT_LAST,
    _a_measure,
    _after_time,
    _capitalise,
    _clause_cue_holds,
    _clean,
    _Cue,
    _decapitalise,
    _did_as_a_person,
    _is_instruction,
    _is_list_head,
    _says_what_it_did,
    _unopened,
    _without_asides,
)
from .items import (
    ANAPHORIC,
    ANTECEDENT_TURNS,
    CAUSAL,
    EXPLICIT,
    HYPOTHETICAL,
    MAX_CUES,
    MENTION,
    NOTE_REACH,
    NP_LOOKBACK,
    RELATED,
    REPLY,
    UNTOLD_WORDS,
    WEAK,
    WINDOW,
    Extraction,
    Item,
    ItemLink,
    Kind,
    Relation,
    said_in,
)
from .kinds import (
    _BARE_IT,
    _CHOSEN,
    _DECISION,
    _LESSON,
    _PREFERENCE,
    _SWITCHED,
    _VOCATIVE,
    _classify,
    _group_subject,
    _sentiment,
    _subject,
)
from .people import (
    _ADVERB_OR_GERUND,
    _BARE_NAME,
    _DETERMINERS,
    _GERUND_OR_ABSTRACT,
    _KIN,
    _NOBODY,
    _NOT_NAMES,
    _PERSON_PATTERNS,
    _PICTURE,
    _common_plural,
)


@dataclass
class _Found:
    """A cue found in a sentence."""

    start: int  # with the negation and auxiliaries before a verb cue
    end: int
    cue: _Cue
    negated: bool
    weight: float
    # Told as what may, could or would be ("Dropping the index could cause an outage"): the
    # effect is feared, not had.
    hedged: bool = False


@dataclass
class _Draft:
    item: Item
    msg: int  # index of the message it came from
    question: bool = False
    effect_text: str | None = None  # the clause read for polarity, when it is an effect
    # An outcome told whole, its cause's words and all ("Skipping the load test was a mistake"):
    # what happened, even when it goes on to cause something.
    whole: bool = False


class _Extractor:
    def __init__(
        self,
        messages: Sequence[Message],
        date: datetime | None,
        note: bool,
        known: Sequence[str] = (),
    ) -> None:
        self.messages = messages
        self.date = date
        self.turns, self.items = NOTE_REACH if note else (ANTECEDENT_TURNS, NP_LOOKBACK)
        self.speakers = list(dict.fromkeys(m.speaker for m in messages if m.speaker))
        self.drafts: list[_Draft] = []
        self.links: dict[tuple[int, int, str], float] = {}
        # the messages that told each causal link
        self.told: dict[tuple[int, int, str], list[str]] = {}
        self.telling = ""  # the message read now
        self.pairs: set[frozenset[int]] = set()  # linked items, either way
        self.by_text: dict[str, int] = {}
        self.focus: list[tuple[int, int]] = []  # (message, item) each statement ends on
        self.tried: set[int] = set()  # causes of a "did not fix it" claim: measures
        self.lacks: set[int] = set()  # "No disk usage alert": what was missing, no measure
        self.people: dict[str, dict[str, Any]] = {s: {"role": "speaker"} for s in self.speakers}
        self.name_words = frozenset(w for s in self.speakers for w in tokens(s))
        # People the memory already knows ("Rose" spoke last week): a person when named again.
        self.known = frozenset(w for name in known for w in tokens(name))
        # Capitalised where no sentence starts: a name (or a thing) by its spelling.
        self.mid_sentence = frozenset(
            w
            for m in messages
            for sentence in split_sentences(m.text)
            for w in re.findall(r"[A-Za-z]+", sentence)[1:]
            if w[0].isupper()
        )

    # -- per message ---------------------------------------------------------------------------

    def run(self) -> Extraction:
        for k, msg in enumerate(self.messages):
            first = len(self.drafts)
            self.telling = msg.id
            ref = msg.time or self.date
            addressee = self._addressee(k)
            answer = (
                k > 0
                and self.messages[k - 1].speaker != msg.speaker
                and (self.messages[k - 1].text.rstrip().endswith("?"))
            )
            for sentence in split_sentences(msg.text):
                if answer and (tools := tools_for(sentence)):
                    self._tools_told(k, msg, sentence, tools)
                elif not is_acknowledgement(sentence, self.name_words, answer=answer):
                    to = addressee
                    if len(self.speakers) > 2 and msg.speaker:
                        to = self._addressee(k, sentence) or addressee
                    self._sentence(k, msg, sentence, ref, to)
            if msg.caption:
                caption = msg.caption.strip().rstrip(".")
                shared = "shared " if _PICTURE.match(caption) else "shared an image: "
                self._add("note", f"{msg.speaker} {shared}{caption}.", k, msg, {"image": True})
            self._link_turn(k, first)
        return self._finish()

    def _addressee(self, k: int, text: str | None = None) -> str | None:
        """Who "you" is: the other of two speakers; among more, the one `text` (a sentence of
        the message; the whole message when it names no one) names ("Ana, you own the
        checklist", "@Dan your laptop …", "Sorry, Ben, you were right"), else nobody (kept as
        "you")."""
        msg = self.messages[k]
        if not msg.speaker:
            return None
        if len(self.speakers) == 2:
            return next(s for s in self.speakers if s != msg.speaker)
        known = {n.split()[0].casefold(): n for n in self.people if n != msg.speaker}
        for m in _VOCATIVE.finditer(text if text is not None else msg.text):
            name = m["at"] or m["start"] or m["greeted"] or m["end"]
            if name.casefold() in known:  # a handle may be lowercase: "@ben"
                return known[name.casefold()]
            if m["at"] and name[:1].isupper():
                return name
        return None

    def _tools_told(self, k: int, msg: Message, sentence: str, tools: list[str]) -> None:
        """An answer naming tools and what each is for ("Jenkins for CI, Postgres 15 for the
        orders DB"): one item for each, marked as an answer, so each is a setting of its own
        that a later change of that thing alone ends."""
        self._find_people(sentence, msg.speaker)
        for told in tools:
            i = self._add("fact", f"{_capitalise(told)}.", k, msg, {"answer": True})
            self.focus.append((k, i))

    def _sentence(
        self, k: int, msg: Message, sentence: str, ref: datetime | None, addressee: str | None
    ) -> None:
        if _HEDGE.match(sentence):
            bare = _capitalise(_HEDGE.sub("", sentence))
            read = rewrite_pronouns(bare, msg.speaker, addressee) if msg.speaker else bare
            lead = _LEAD_CLAUSE.match(read)
            # A causal claim, hedged; "after dinner, …" and "without a doubt, …" tell no cause.
            if _CUE_RE.search(read) or (lead and lead["cue"].split()[0].lower() not in _WEAK_LEADS):
                sentence = bare
        spans = resolve(sentence, ref) if ref is not None else []
        said = rewrite_pronouns(sentence, msg.speaker, addressee) if msg.speaker else sentence
        text = _annotate(said, spans)
        self._find_people(sentence, msg.speaker)
        question = sentence.rstrip().endswith("?")
        names = [*self.people]
        if question:
            self._add("note", text, k, msg, {"question": True}, spans, question=True)
            return
        if not (_LESSON.search(sentence) or _PREFERENCE.search(sentence)):
            focus = self._causal(k, msg, text, spans)
            if focus is not None:
                self.focus.append((k, focus))
                return
        dated = any(s.precision != "vague" for s in spans)
        kind = _classify(sentence, text, names, dated)
        attrs: dict[str, Any] = {}
        if kind == "preference":
            attrs["sentiment"] = _sentiment(sentence)
        i = self._add(kind, text, k, msg, attrs, spans)
        self.focus.append((k, i))

    def _add(
        self,
        kind: Kind,
        text: str,
        k: int,
        msg: Message,
        attrs: dict[str, Any] | None = None,
        spans: Sequence[TimeSpan] = (),
        *,
        question: bool = False,
        effect_text: str | None = None,
    ) -> int:
        text = _capitalise(text.strip())
        key = normalize(text).rstrip(".!…。！ ")  # "I prefer tabs!" is "I prefer tabs."
        if key in self.by_text:  # said again: one item, several sources
            i = self.by_text[key]
            sources = self.drafts[i].item.sources
            if msg.id not in sources:
                sources.append(msg.id)
            return i
        attributes = {**said_in(self.messages, k, self.date), **(attrs or {})}
        when = None
        mine = [s for s in spans if s.phrase in text and s.precision != "vague"]
        if mine:
            when = mine[0].anchor
            attributes["when_phrase"] = mine[0].phrase
            attributes["when_end"] = mine[0].end.isoformat()
        self.drafts.append(
            _Draft(Item(kind, text, [msg.id], when, attributes), k, question, effect_text)
        )
        self.by_text[key] = len(self.drafts) - 1
        return len(self.drafts) - 1

    def _link(self, src: int, dst: int, relation: Relation, weight: float) -> None:
        if src != dst:
            key = (src, dst, relation)
            self.links[key] = max(weight, self.links.get(key, 0.0))
            if relation in CAUSAL:
                told = self.told.setdefault(key, [])
                if self.telling not in told:
                    told.append(self.telling)
            self.pairs.add(frozenset((src, dst)))

    def _linked(self, a: int, b: int) -> bool:
        return frozenset((a, b)) in self.pairs

    def _link_turn(self, k: int, first: int) -> None:
        """Consecutive items of one turn are related, and so is an answer to its question; a
        reply's opening item is related (more weakly) to each item of the turn it replies to."""
        mine = [i for i in range(first, len(self.drafts)) if self.drafts[i].msg == k]
        for a, b in itertools.pairwise(mine):
            if not self._linked(a, b):
                self._link(a, b, "related", RELATED)
        if mine and first > 0:
            prev = self.drafts[first - 1]
            if prev.question and prev.msg == k - 1 and not self._linked(first - 1, mine[0]):
                self._link(first - 1, mine[0], "related", RELATED)
            i = first - 1
            while i >= 0 and self.drafts[i].msg == k - 1:
                if not self._linked(i, mine[0]):
                    self._link(i, mine[0], "related", REPLY)
                i -= 1

    # -- causal --------------------------------------------------------------------------------

    def _causal(self, k: int, msg: Message, text: str, spans: Sequence[TimeSpan]) -> int | None:
        """Split a causal sentence into linked items; returns the item it ends on, or None."""
        opened = _unopened(text)  # "So", "Well, basically", "Turns out" left out
        root = _ROOT_CAUSE.match(_MARKUP.sub("", opened))
        if root is not None:
            return self._root_cause(k, msg, root, spans)
        lead = _LEAD_CLAUSE.match(_OPENER.sub("", text))  # "Without a doubt, …" is no lead
        if lead is not None and not _after_a_time(lead):
            return self._lead_clause(k, msg, text, lead, spans)
        opening = _CLAUSE_LEAD.match(_OPENER.sub("", text))
        if opening is not None and (focus := self._clause_lead(k, msg, opening, spans)) is not None:
            return focus
        alone = _LEAD_ALONE.match(text)
        if alone is not None and alone["so"] is not None and self._claims_from_start(alone["y"]):
            alone = None  # "So the deploy caused the outage": "so" only carries the talk on
        if alone is not None and (alone["so"] is None or re.match(_SUBJ, alone["y"], re.I)):
            cause = self._antecedent(k)
            if cause is not None:
                relation: Relation = "prevented" if alone["other"] else "caused"
                effect, relation = self._effect(alone["y"], k, msg, spans, relation)
                weight = WEAK if alone["so"] or alone["other"] else ANAPHORIC
                self._link(cause, effect, relation, weight)
                return effect
        text = opened
        last = _RESULT_LAST.match(text)
        if last is not None and not self._find_cues(text):
            return self._result_last(k, msg, last["y"], spans)
        followed = _FOLLOWED_LAST.match(text)
        if followed is not None and not self._find_cues(text):
            focus = self._followed(k, msg, followed, spans)
            if focus is not None:
                return focus
        after = _AFTER_THE_DOING.match(text)
        if after is not None and not self._find_cues(text):
            focus = self._after_the_doing(k, msg, after, spans)
            if focus is not None:
                return focus
        had_it = _HAD_IT.match(text)
        if had_it is not None:
            return self._had_it(k, msg, had_it, spans)
        lacking = _WITHOUT_LAST.match(text)
        if lacking is not None and not self._find_cues(text):
            focus = self._went_without(k, msg, _clean(lacking["x"]), _clean(lacking["y"]), spans)
            if focus is not None:
                return focus
        when = _WHEN_CLAUSE.match(text)
        if when is not None and self._find_cues(when["x"]):
            # "When the migration caused the outage, we rolled back": the claim is the clause
            # "when" opens; what follows it happened then, and is an item of its own.
            focus = self._mid_cues(k, msg, when["x"], spans)
            self._untold(text, [(0, when.end("x"))], k, msg, spans)
            return focus
        focus = self._mid_cues(k, msg, text, spans)
        came = _IT_CAME_ABOUT.match(text)
        if came is not None and not _AN_OBJECT.match(text, came.end()):
            return focus  # "It happened (because …)": the earlier thing came about, did nothing
        if focus is None and _says_what_it_did(text) and self._judges_a_doing(text, k):
            focus = self._segment(text, k, msg, spans)
        return focus

    def _result_last(
        self, k: int, msg: Message, told: str, spans: Sequence[TimeSpan]
    ) -> int | None:
        """'X and Y as a result': X caused Y; 'Y as a result': what was said before did. Not
        'If X and Y as a result', nor 'When X, Y as a result', whose cause is its opening."""
        if _CONDITION.match(told) or _TIME_CLAUSE.match(told) or _NO_CLAIM_SUBJECT.search(told):
            return None
        joins = list(_AND_THEN_A_CLAUSE.finditer(told))
        if joins:
            x, y = _clean(told[: joins[-1].start()]), _clean(told[joins[-1].end() :])
            cause, weight = self._segment(x, k, msg, spans) if y else None, EXPLICIT
        else:
            x, y = "", _clean(told)
            cause, weight = self._antecedent(k), ANAPHORIC
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, "caused")
        if effect == cause:
            return None
        if _SUPPOSED.search(x or y):
            weight *= HYPOTHETICAL
        self._link(cause, effect, relation, weight)
        if x:
            self._done_without(x, effect, weight, k, msg, spans)
        return effect

    def _followed(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'We deployed without a canary and the outage followed': the deploy (and, per
        `_done_without`, the missing canary) led to the outage; 'Then the outage followed':
        what was just done did. Only for a doing followed by something that went wrong."""
        x, y = _clean(m["x"] or ""), _clean(m["y"])
        if outcome_polarity(y).label != "negative":
            return None
        if x:
            if not self._agentive(x, [*self.people]):
                return None
            cause = self._segment(x, k, msg, spans)
        else:
            cause = self._antecedent(k)
            if cause is None or cause != self._antecedent(k, done=True):
                return None  # the latest statement told no doing ("Checkout went down")
            x = self.drafts[cause].item.text
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, "caused")
        if effect == cause:
            return None
        self._link(cause, effect, relation, WEAK)
        self._done_without(x, effect, WEAK, k, msg, spans)
        return effect

    def _after_the_doing(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'Checkout broke after the deploy': what went wrong is an outcome and, when the deploy
        was told (just before, or in the same sentence: "We deployed the new build and checkout
        broke after the deploy"), the deploy weakly led to it, as a doing an outage followed
        does (`_followed`). Not what did not go wrong ("The meeting ran long after lunch"), nor
        how someone was ("Dana was down for a few days after the move")."""
        joins = list(_AND_THEN_A_CLAUSE.finditer(m["y"]))
        x = _clean(m["y"][: joins[-1].start()]) if joins else ""
        opens = m.start("y") + joins[-1].end() if joins else m.start("y")
        y, told = _clean(m["y"][opens - m.start("y") :]), _clean(m.string[opens:])
        if outcome_polarity(y).label != "negative" or _subject(y, [*self.people])[0] is not None:
            return None  # nothing went wrong, or someone ("Dana was down after the move")
        done = self._segment(x, k, msg, spans) if x else None
        cause = done if done is not None and self._names_doing(done, m["head"]) else None
        if cause is None:
            recent = [i for said, i in reversed(self.focus) if k - said < self.turns]
            cause = next((i for i in recent if self._names_doing(i, m["head"])), None)
        effect = self._add("outcome", _capitalise(told), k, msg, {}, spans, effect_text=y)
        if cause is not None and cause != effect:
            self._link(cause, effect, "caused", WEAK)
        return effect

    def _names_doing(self, item: int, head: str) -> bool:
        """Whether an item told of late tells a doing its noun names ("the deploy" is "We
        deployed the new build", "the migration" "Ana migrated the DB")."""
        draft = self.drafts[item]
        want = {root(head), root(head)[:-3], root(head)[:-4]}
        return self._agentive(draft.item.text, [*self.people]) and any(
            root(t) in want for t in tokens(draft.item.text)
        )

    def _had_it(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'If we had had X, Y would not have happened': X would have prevented Y, which
        happened for want of it."""
        measure = self._segment(_clean(m["x"]), k, msg, spans)
        if measure is None:
            return None
        told = _clean(m["y"]) if _JUST_HAPPENED.fullmatch(m["v"]) else f"{m['y']} had {m['v']}"
        effect, _ = self._effect(told, k, msg, spans, "prevented")
        weight = EXPLICIT * HYPOTHETICAL
        self._link(measure, effect, "prevented", weight)
        self._lacked(measure, effect, weight, k, msg, spans)
        return effect

    def _lacked(
        self,
        measure: int,
        effect: int,
        weight: float,
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """What would have prevented `effect` was missing ("A disk usage alert would have
        prevented the outage"): its lack ("No disk usage alert") let the effect happen, and is
        what tracing the effect back finds."""
        lack = self._lack_of(self.drafts[measure].item.text.rstrip(".!?").strip())
        if lack is None:
            return
        item = self._add("event", lack, k, msg, {}, spans)
        self.lacks.add(item)
        self._link(item, effect, "enabled", weight)

    def _done_without(
        self,
        done: str,
        effect: int,
        weight: float,
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """'We shipped the release without tests, which caused the outage': the tests were
        missing, and their lack ("No tests") let the outage happen, as 'Without a disk usage
        alert, the outage went unnoticed' tells (`_went_without`). Only for what went wrong."""
        without = _WITHOUT_LAST.match(done)
        told = self.drafts[effect]
        if (
            without is None
            or not _a_measure(x := _clean(without["x"]))
            or outcome_polarity(told.effect_text or told.item.text).label != "negative"
            or (lack := self._lack_of(x)) is None
        ):
            return
        item = self._add("event", lack, k, msg, {}, spans)
        self.lacks.add(item)
        self._link(item, effect, "enabled", weight * HYPOTHETICAL)

    def _went_without(
        self, k: int, msg: Message, x: str, y: str, spans: Sequence[TimeSpan]
    ) -> int | None:
        """'Without a disk usage alert, the outage went unnoticed': the alert, a thing that was
        missing, would have prevented what went wrong, and its lack let it happen. Not a
        manner or a person ("without warning", "without the kids"), nor what was not bad
        ("without the kids, we went to dinner"), nor what is to be done or will be."""
        if not _a_measure(x):
            return None
        words = re.findall(r"[a-z]+(?:['’][a-z]+)?", y.lower())
        if (
            _is_instruction(y)
            or _FUTURE.search(y)
            or not any(is_past(w) for w in words[1:])
            or outcome_polarity(y).label != "negative"
        ):
            return None
        measure = self._segment(x, k, msg, spans)
        if measure is None:
            return None
        effect, _ = self._effect(y, k, msg, spans, "prevented")
        if effect == measure:
            return None
        weight = EXPLICIT * HYPOTHETICAL
        self._link(measure, effect, "prevented", weight)
        self._lacked(measure, effect, weight, k, msg, spans)
        return effect

    def _lack_of(self, measure: str) -> str | None:
        """How a missing `measure` is told: "No disk usage alert", "No rate limiting", "Not
        running a canary"; none for what no measure is ("Nothing would have prevented it",
        "More testing …"). A person is no cause to begin with ("Ben would have caught it")."""
        m = _A_MEASURE.match(measure)
        if m is not None:
            return f"No {m['thing']}" if m["thing"] else f"Not {_decapitalise(m['doing'])}"
        # "Rate limiting", "Disk usage alerts": a thing with no article; a name keeps its case.
        first = measure.split()[0] if measure else ""
        named = first in self.mid_sentence or is_tool(first) or is_tool(measure)
        bare = measure if named else _decapitalise(measure)
        return f"No {bare}" if re.fullmatch(_BARE_SUBJ, _decapitalise(measure)) else None

    def _judges_a_doing(self, text: str, k: int) -> bool:
        """A verdict ("That was a mistake") judges something done: not "Bob is my brother" or
        "The server crashed"."""
        verdict = _VERDICT.match(text)
        if verdict is None:
            return True
        if _BARE_DOING.fullmatch(verdict["it"]):  # "That decision was a mistake": the latest doing
            return self._antecedent(k, done=True) is not None
        before = self._antecedent(k)
        return before is not None and self._agentive(self.drafts[before].item.text, [*self.people])

    def _lead_clause(
        self, k: int, msg: Message, text: str, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        cue = " ".join(m["cue"].lower().split())
        x, y = _clean(m["x"]), _clean(m["y"])
        if not re.search(r"\w", y):
            return None  # "after Ed, -": nothing follows to be the effect
        if cue != "without" and _is_instruction(y):
            return None  # "After the deploy, check the dashboard": told in order, not a cause;
            # "Because the deploy broke checkout, roll back": what to do, and why
        if cue == "without":
            if not _COUNTERFACTUAL.search(y):
                return self._went_without(k, msg, x, y, spans)
            relation: Relation = "enabled" if _NEGATED_COUNTERFACTUAL.search(y) else "prevented"
            weight = EXPLICIT
        else:
            relation = _LEAD_RELATION[cue]  # type: ignore[assignment]
            weight = WEAK if cue == "after" else EXPLICIT
        if cue == "after" and _tells_no_cause(x):
            return None  # decided before any item is made for it
        cause = self._segment(x, k, msg, spans)
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, relation)
        self._link(cause, effect, relation, weight)
        return effect

    def _clause_lead(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'Since the cache was cold, latency spiked', 'Once we added the index, latency
        dropped': the clause the cue opens caused (or enabled) the one after the comma."""
        cue = _CLAUSE_CUES[m["cue"].lower()]
        x, y = _clean(m["x"]), _clean(m["y"])
        if not re.match(cue.pattern, m.group(), re.IGNORECASE) or not _clause_cue_holds(cue, x, y):
            return None
        if cue is _ONCE and self._find_cues(x):
            return None  # "Once the migration caused the outage, …": as after "when", that claim
        cause = self._segment(x, k, msg, spans)
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, cue.relation)
        if effect == cause:
            return None
        self._link(cause, effect, relation, cue.weight)
        return effect

    def _claims_from_start(self, text: str) -> bool:
        """Whether `text` opens on a cause and its verb ("the deploy caused the outage"; not
        "the database crashed, which caused …", "the game was cancelled because …")."""
        found = self._find_cues(text)
        if not found or not found[0].cue.verb or found[0].cue.direction != "forward":
            return False
        cause = text[: found[0].start]  # a thing ("the deploy"), not a clause ("it crashed and")
        return not re.search(r"[,;:—–]|\s-\s", cause) and not any(
            is_past(w) for w in cause.lower().split()
        )

    def _root_cause(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        x, told = _clean(m["x"]), m["y"] or m["y2"]
        heading = m["hedge"] is None  # "Root cause: expired TLS cert."
        if (not heading and not _NAMES_A_CAUSE.match(x)) or _NOT_KNOWN.search(x):
            return None
        verb = "was" if heading else m["hedge"].split()[0].lower()
        if verb.endswith(("n't", "n’t")):
            x, verb = f"not {x}", verb[:-3]  # "… wasn't the database, it was the network"
        relation: Relation = "caused"
        weight = EXPLICIT if verb in _SURE else EXPLICIT * HYPOTHETICAL
        hedge = re.match(rf"(?i){_HEDGED}\s+", x)
        if hedge:
            x, weight = x[hedge.end() :], EXPLICIT * HYPOTHETICAL
        instead = None
        if re.match(r"(?i)not\s+", x):  # "… was not the load balancer (but DNS)"
            x, *but = re.split(r"(?i),?\s+but\s+|,\s*(?:it|that)\s+was\s+", x[4:], maxsplit=1)
            relation, instead = "no_effect", (but[0] if but else None)
        x = re.sub(r"(?i)^that\s+", "", x)
        # "… was a bad deploy, which caused the pods to crash" / "…; we fixed it in an hour": the
        # cause is the first clause, and the rest is read on its own.
        rest = _AFTER_THE_CAUSE.search(x)
        head = _clean(x[: rest.start()]) if rest else x
        if told:
            effect, relation = self._effect(_clean(told), k, msg, spans, relation)
        else:
            # "The root cause was X" is of what was just told, when that went wrong: not "the
            # cause" of a charity run, nor "the culprit" of a novel.
            found = self._antecedent(k)
            if found is None or outcome_polarity(self.drafts[found].item.text).label != (
                "negative"
            ):
                return None
            effect, weight = found, min(weight, ANAPHORIC)
        cause = self._segment(head, k, msg, spans)
        if cause is None or cause == effect:
            return None
        self._link(cause, effect, relation, weight)
        if instead and (end := _AFTER_THE_CAUSE.search(instead)):
            # "… but DNS; we rolled back": what follows the cause is read on its own
            self._untold(instead, [(0, end.start())], k, msg, spans)
            instead = instead[: end.start()]
        if instead and _NAMES_A_CAUSE.match(instead):
            other = self._segment(_clean(instead), k, msg, spans)
            if other is not None and other != effect:
                self._link(other, effect, "caused", weight)
        if rest and relation == "caused" and self._find_cues(x):
            self._mid_cues(k, msg, x, spans)
        elif rest and relation == "caused":
            self._untold(x, [(0, rest.start())], k, msg, spans)
        return effect

    def _find_cues(self, text: str) -> list[_Found]:
        """The causal cues of a sentence that make a claim, in order."""
        found: list[_Found] = []
        if _CUE_WORDS.isdisjoint(re.findall(r"[a-z]+", text.lower())):
            return found
        for m in _CUE_RE.finditer(text):
            if len(found) == MAX_CUES:
                break
            cue = _CUES[int(m.lastgroup[1:])]  # type: ignore[index]
            f = _Found(m.start(), m.end(), cue, False, cue.weight)
            if cue.verb:
                previous = text[max(0, f.start - 40) : f.start].split()[-1:]
                following = text[f.end : f.end + 40].split()[:1]
                if (
                    not previous
                    or previous[0].lower() in _NOT_A_CLAIM_BEFORE
                    or not following
                    or following[0].lower().strip(".,!?") in _NOT_A_CLAIM_AFTER
                    or _RELATIVE_END.search(text, max(0, f.start - 60), f.start)
                ):
                    continue  # "the cause", "to help", "that she contributed to": no claim
                before = _BEFORE_VERB_CUE.search(text, max(0, f.start - 60), f.start)
                if before is not None:
                    f.start, f.negated = before.start(), before["neg"] is not None
                    if before["aux"] and _MODAL.search(before["aux"].lower()):
                        f.weight *= HYPOTHETICAL
                        f.hedged = True
                lo = max(found[-1].end if found else 0, f.start - WINDOW)
                if cue is _DID and (
                    previous[0].lower() in _NOT_DID_BEFORE
                    or (found and _last_clause(text, lo, f.start) == found[-1].end)
                ):
                    continue  # "one fixed TTL", "was fixed the next day"; "… and as a result a
                    # retry storm took down X": the effect of the cue before, told whole
                subject = _clean(text[_last_clause(text, lo, f.start) : f.start])
                subject = _after_time(_without_asides(subject))  # "Yesterday Ben and I"
                if _CONDITION.match(subject) or (
                    cue.agentive and _KIN.fullmatch(subject) and not _BY_GERUND.search(text, f.end)
                ):
                    continue  # "If the migration breaks …"; "my mom helped me": a person
                if cue is _DID and re.search(r"(?i)\b(?:who|that|which)$|^no\b(?!-)", subject):
                    continue  # "the guy who fixed my bike": who it is, not what happened; "No
                    # deploy broke the login page": nothing did
                if (
                    self._is_agent(subject)
                    and not _BY_GERUND.search(text, f.end)
                    and not self._names_thing(subject, cue)
                ):
                    continue  # "Caroline helped Melanie move": a person acting, not a cause
                if cue is _MEANT and self._someone_meant(subject, cue):
                    continue  # "By Tuesday I meant that …": what someone meant to say
            if not self._gate_passes(text, f, found[-1].end if found else 0):
                continue
            if found and not re.search(r"\w", text[found[-1].end : f.start]):
                found.pop()  # ", which prevented": the verb cue is the one that says how
            found.append(f)
        if len(found) > 1:  # "was a good idea, but it didn't help": a verdict told whole, or none
            found = [f for f in found if f.cue is not _JUDGED]
        return found

    @staticmethod
    def _gate_passes(text: str, f: _Found, lo: int) -> bool:
        """'Traced to' names a cause only of what went wrong (not "the call was traced to a
        payphone"), and "stems from" not an origin in time ("the tradition stems from the
        1800s")."""
        if f.cue is _TRACED:
            told = text[_last_clause(text, lo, f.start) : f.start]
            return outcome_polarity(told).label == "negative"
        if f.cue is _STEMMED:
            origin = text[f.end : _first_clause(text, f.end, len(text))]
            return not _A_TIME_AGO.match(origin)
        if f.cue in (_SINCE, _AS, _AS_CHOSEN, _ONCE):
            told = _last_clause(text, max(0, f.start - WINDOW), f.start)
            cause = text[f.end : _first_clause(text, f.end, len(text))]
            if f.cue is _AS_CHOSEN and not (
                _DECISION.search(text, told, f.start) or _SWITCHED.search(text, told, f.start)
            ):
                return False
            return not (f.cue in (_AS, _AS_CHOSEN) and _COMPARED.search(text, 0, f.start)) and (
                _clause_cue_holds(f.cue, _clean(cause), _clean(text[told : f.start]))
            )
        if f.cue is _JUDGED:
            done = _clean(text[_last_clause(text, lo, f.start) : f.start])
            return not _NO_VERDICT_BEFORE.search(text, 0, f.start) and bool(
                _A_DOING.fullmatch(_after_time(_without_asides(_unopened(done))))
            )
        return True

    def _mid_cues(self, k: int, msg: Message, text: str, spans: Sequence[TimeSpan]) -> int | None:
        found = self._find_cues(text)
        focus = told = None  # told: what the cue before ended on, when it made a link
        doer: tuple[int, str, float] | None = None  # the link before: cause, words, weight
        used: list[tuple[int, int]] = []  # what the links were read from
        for n, f in enumerate(found):
            told_before, told = told, None
            lo = found[n - 1].end if n else 0
            forward = f.cue.direction == "forward"
            hi = found[n + 1].start if n + 1 < len(found) else len(text)
            # "A caused B because C": C explains all of "A caused B"
            left_lo = _last_clause(text, lo if forward else max(0, f.start - WINDOW), f.start)
            if (
                not n
                and forward
                and left_lo > lo
                and _is_list_head(text[lo:left_lo], text[left_lo : f.start])
            ):
                left_lo = lo  # "Good food, laughs, and chats help us stay close": one cause
            right_hi = hi if f.cue.effect == "sentence" else _first_clause(text, f.end, hi)
            if f.cue.passive or "," in text[f.end : right_hi]:
                # "caused by disk, memory, and network problems", "because it builds muscle,
                # increases power, and prevents injuries": one list
                tail = _LIST_END.match(text, right_hi)  # to the end: a cue in it claims nothing
                right_hi = tail.end() if tail else right_hi
            left, right = _clean(text[left_lo : f.start]), _clean(text[f.end : right_hi])
            relation: Relation = "no_effect" if f.negated else f.cue.relation
            cause_text, effect_text = (left, right) if forward else (right, left)
            if f.cue is _CAUGHT:
                effect_text = _SOONER.sub("", effect_text.rstrip(".!"))
            if f.cue is _PREVENTED_FROM:  # "from overloading", not "from Wyoming"
                effect_text = re.sub(r"\bfrom\s+(?=[a-z]\w*ing\b)", "", effect_text, count=1)
            if f.cue.passive:
                cause_text = _by_whom(cause_text)
            if forward:  # "When I was a kid, my dad …", "Priya said the migration …"
                cause_text = _REPORTED.sub("", _without_asides(cause_text))
            shared = (
                doer is not None
                and not cause_text
                and forward
                and _CONJOINED.fullmatch(text[used[-1][1] : f.start]) is not None
            )
            if shared and doer is not None:  # "The rollout fixed the leak but slowed down …"
                cause_text, f.weight = doer[1], min(f.weight, doer[2])
            if f.cue.verb and not cause_text:
                continue  # no subject: an imperative or a fragment
            if f.cue in (_AFTER, _BECAUSE) and _is_instruction(effect_text):
                continue  # "Check the dashboard after the deploy finished": what to do then;
                # "Roll back because the deploy broke checkout": what to do, and why
            if forward and _NO_CLAIM_SUBJECT.search(cause_text):
                continue  # "If the deploy was the root cause …", "Neither X nor Y caused …"
            if (
                forward
                and not f.cue.verb
                and f.cue is not _SO_THAT
                and _SUPPOSED.search(cause_text)
            ):
                f.weight *= HYPOTHETICAL
            acting = self._is_agent(cause_text) or _KIN.fullmatch(cause_text)
            by = _BY_GERUND.search(right) if acting else None
            if by is not None:  # "We avoided the outage by adding a breaker"
                cause_text, effect_text = by.group(1), _clean(right[: by.start()])
            if not re.search(r"\w", effect_text) and f.cue.effect in ("np", "full"):
                continue
            if (
                f.cue.effect in ("np", "full")
                and effect_text.lower().rstrip(".!?") in _ANAPHORS
                and self._antecedent(k) is None
            ):
                continue  # "Stress was the reason for it." with nothing told before
            if _IT_CAME_ABOUT.fullmatch(effect_text.rstrip(".!")) and self._event_before(k) is None:
                continue  # "It happened because …" after small talk, or with nothing before
            also = re.fullmatch(r"(?i)(.*\w)\s*,?\s+and\s+(?:it|this|that)", cause_text)
            if also and forward:  # "Priya merged the change and it broke the login page"
                cause_text = also.group(1)
            anaphoric = not cause_text or cause_text.lower() in _ANAPHORS
            judged = None  # "The migration was a mistake": the migration told before
            if f.cue is _JUDGED and _BARE_DOING.fullmatch(cause_text):
                judged = self._antecedent(k, done=True)
                if judged is None:
                    continue  # no stub "The migration" of its own
                anaphoric = True
            # "A retry storm took down X, so Y": what the cue before told caused Y
            chained = (
                told_before is not None
                and found[n - 1].cue.direction == "forward"
                and left_lo == lo
            )
            if (
                not anaphoric
                and not chained
                and not shared
                and not self._names_thing(cause_text, f.cue)
                # "Melanie's talk", "Rolling back": a thing or a doing, not a nod
                and not re.search(_POSSESSIVE + r"|^\w+ing\s+\w", cause_text)
                and is_acknowledgement(cause_text, self.name_words)
            ):
                continue  # "Wow, so happy you had fun": no cause in "Wow"
            cause_lo = left_lo  # where what the link was read from starts
            hypothetical = relation == "prevented" and bool(
                _COUNTERFACTUAL.search(text, f.start, f.end)
            )
            if anaphoric and forward and left_lo > lo and _clean(text[lo:left_lo]):
                # "X, and that stopped Y": 'that' is the clause before it
                cause_text, anaphoric, cause_lo = _clean(text[lo:left_lo]), False, lo
            if chained:
                cause, left_lo = told_before, used[-1][0]
            elif judged is not None:
                cause = judged
            elif shared and doer is not None:
                cause = doer[0]
            else:
                cause = self._segment(cause_text, k, msg, spans)
            if cause is None:
                continue
            if anaphoric:
                f.weight = min(f.weight, ANAPHORIC)  # the cause was said in an earlier sentence
            # What a cause may, could or would lead to is told whole, hedge and all ("Raising the
            # pool size could cause an outage"), so it is read as feared, not as an outage had;
            # not what happened and may have stemmed from something ("The outage may have …").
            feared = f.hedged and forward and relation in ("caused", "enabled")
            if f.cue.effect in ("clause", "sentence") or feared:
                whole = _clean(text[left_lo:right_hi])
                if f.cue is _WHICH_DID:  # "It (Ben restarted the workers) cleared the queue."
                    what = _clean(text[left_lo : f.start]) or self.drafts[cause].item.text
                    what = shorten(what.rstrip("."), 70)
                    whole = f"It ({what}) {_clean(text[f.end : right_hi])}"
                elif shared:
                    whole = f"{cause_text} {whole}"
                if anaphoric and cause_text:  # "It didn't help" -> "It (adding caching) didn't"
                    antecedent = shorten(self.drafts[cause].item.text.rstrip("."), 70)
                    whole = whole.replace(cause_text, f"{cause_text} ({antecedent})", 1)
                polar = _clean(text[f.start : right_hi])
                polar = polar if feared else _demodalise(polar)
                effect = self._add("outcome", whole, k, msg, {}, spans, effect_text=polar)
                self.drafts[effect].whole = True
            else:
                effect, relation = self._effect(
                    effect_text, k, msg, spans, relation, missed=hypothetical
                )
            if effect == cause:
                continue  # "That was the reason behind it": both ends are what was just told
            self._link(cause, effect, relation, f.weight)
            if hypothetical:
                self._lacked(cause, effect, f.weight, k, msg, spans)
            if relation == "caused":  # "We shipped without tests, which caused the outage"
                self._done_without(cause_text, effect, f.weight, k, msg, spans)
            if f.cue.tried:
                self.tried.add(cause)
            used.append((cause_lo, max(right_hi, f.end)))
            # "That" after a prevention means the measure, not what did not happen; so does
            # ", so …" ("The rain kept us from going out, so we played cards"). A measure that
            # only would have prevented it was never there to lead anywhere: "A canary would
            # have caught it. That led to 40 tickets" goes on with what happened.
            focus = told = cause if relation == "prevented" and not hypothetical else effect
            shown = cause_text  # the subject as the effect tells it: "It (we upgraded Redis)"
            if anaphoric and cause_text:
                shown = f"{cause_text} ({shorten(self.drafts[cause].item.text.rstrip('.'), 70)})"
            doer = (cause, shown, f.weight)
        self._untold(text, used, k, msg, spans)
        return focus

    def _untold(
        self,
        text: str,
        used: Sequence[tuple[int, int]],
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """The clauses of a causal sentence that are neither cause nor effect ("We upgraded
        Postgres last week - the new planner caused a slowdown"; "…; we rolled back at noon")
        are items too: what was said is never only in the audit log."""
        at = 0
        for lo, hi in [*sorted(used), (len(text), len(text))] if used else ():
            rest = _unopened(_clean(text[at:lo])) if lo > at else ""
            words = re.findall(r"[a-z]+", rest.lower())  # "14:20" is a time, not a clause
            if (
                len(words) >= UNTOLD_WORDS
                and not set(words) <= STOPWORDS
                and not is_acknowledgement(rest, self.name_words)
            ):
                dated = any(s.precision != "vague" and s.phrase in rest for s in spans)
                self._add(_classify(rest, rest, [*self.people], dated), rest, k, msg, {}, spans)
            at = max(at, hi)

    def _effect(
        self,
        text: str,
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
        relation: Relation,
        missed: bool = False,
    ) -> tuple[int, Relation]:
        """The item for an effect clause. 'So we avoided the outage' is a prevention.
        `missed`: what a measure would have prevented ("would have caught it")."""
        avoided = _AVOIDED.match(text) if relation == "caused" else None
        if avoided is not None and (not avoided["who"] or self._is_agent(avoided["who"].strip())):
            text, relation = avoided["what"], "prevented"
        text = _STOPPED_EARLY.sub("", text)
        if _IT_CAME_ABOUT.fullmatch(text.rstrip(".!")):
            event = self._event_before(k)
            if event is not None:  # "It happened because …": the outage told just before
                return event, relation
        # "It was caused by …": what was said; "Good, because MySQL kept deadlocking": the
        # assent is to what was said, and the cause is its reason
        if text.lower().rstrip(".!?") in _ANAPHORS or is_acknowledgement(text, self.name_words):
            ant = self._antecedent(k, bad=missed)
            if ant is not None:
                return ant, relation
        known = self._recent_np(text.rstrip(".!?"), k)
        if known is not None:
            return known, relation
        polar = _demodalise(text) if relation == "prevented" else text
        return self._add("outcome", text, k, msg, {}, spans, effect_text=polar), relation

    def _segment(self, text: str, k: int, msg: Message, spans: Sequence[TimeSpan]) -> int | None:
        """The item a cause (or effect) clause stands for: an earlier one, or a new one."""
        if not text or text.lower() in _ANAPHORS:
            # "that change": a doing; "that's what" or "all that": what was said
            return self._antecedent(k, done=bool(_BARE_DOING.fullmatch(text.strip())))
        known = self._recent_np(text, k)
        if known is not None:
            return known
        said = (
            (_VERDICT.match(text) or _ANAPHOR_ACTS.match(text)) if _says_what_it_did(text) else None
        )
        done = said is not None and bool(_BARE_DOING.fullmatch(said["it"]))
        antecedent = self._antecedent(k, done=done) if said is not None else None
        if said is None or antecedent is None:
            return self._add("event", text, k, msg, {}, spans)
        # "It kept the builds reproducible": what was said before did this
        it = said["it"]
        named = f"{it} ({shorten(self.drafts[antecedent].item.text.rstrip('.'), 70)})"
        item = self._add("event", named + text[len(it) :], k, msg, {}, spans)
        self._link(antecedent, item, "caused", WEAK)
        return item

    def _antecedent(self, k: int, done: bool = False, bad: bool = False) -> int | None:
        """What 'that' refers to: where the latest statement of the last few turns ended,
        passing over comments ("It was fun.") that are no event themselves. `done`: what was
        named by what it was ("that migration", "the change"), so the latest thing someone did
        ("We migrated the DB. Checkout went down. That migration caused the outage."). `bad`:
        what a measure would have caught, so the latest thing that went wrong, past a neutral
        remark ("The deploy broke login. The migration ran unreviewed. A canary would have
        caught it."), or else the latest statement."""
        names = [*self.people]
        latest = None
        for msg, item in reversed(self.focus):
            if k - msg >= ANTECEDENT_TURNS:
                break
            draft = self.drafts[item]
            text = draft.item.text
            if done:
                if self._agentive(text, names, known=True):
                    return item
            # ... but a verdict is ("That was a mistake: checkout stalled. That led to …")
            elif not _COMMENT.match(text) or any(
                d == item and r in CAUSAL for _, d, r in self.links
            ):
                if not bad or outcome_polarity(draft.effect_text or text).label == "negative":
                    return item
                latest = item if latest is None else latest
        return latest

    def _event_before(self, k: int) -> int | None:
        """What "It happened" stands for: the event the latest statement told, in this message
        or the one just before ("The checkout outage lasted an hour." / "It happened because
        …"). Not small talk ("Good morning team.", "Hope you had a nice weekend!"): the
        statement told something that went wrong, or something the transcript dated or gave a
        cause for."""
        if not self.focus or self.focus[-1][0] < k - 1:
            return None
        item = self.focus[-1][1]
        said = self.drafts[item].item
        if said.kind in ("preference", "lesson") or _COMMENT.match(said.text):
            return None
        if said.kind in ("event", "outcome") or any(
            d == item and r in CAUSAL for _, d, r in self.links
        ):
            return item
        return item if outcome_polarity(said.text).label == "negative" else None

    def _recent_np(self, text: str, k: int) -> int | None:
        """'The outage': a definite noun phrase naming a recent item's thing. The item names it
        with every word of it and ends on it, or, an outcome, ends on it before a phrase that
        follows ("the outage" is "The checkout outage on Saturday"; not "The outage backlog in
        support", "Our outage cost us $10k" or "The deploy on Friday went fine", and "the
        search outage" is not the checkout outage)."""
        words = _definite_np(text)
        if words is None:
            return None
        said = [stem(w) for w in words]
        for i in range(len(self.drafts) - 1, max(-1, len(self.drafts) - 1 - self.items), -1):
            d = self.drafts[i]
            if k - d.msg > self.turns:
                continue
            there = [stem(t) for t in tokens(d.item.text)]
            if d.item.kind == "outcome":  # an effect told with its time: "… outage on Saturday"
                there = _head_phrase(there)
            if there[-1:] == said[-1:] and set(said) <= set(there):
                return i
        return None

    def _someone_meant(self, subject: str, cue: _Cue) -> bool:
        """Whether who "meant" is a person, right before it ("By Tuesday I meant", "By soon
        Ana meant"), not a thing that came to pass ("The outage meant")."""
        who = _MEANT_BY_SOMEONE.search(subject)
        if who is None:
            return False
        name = who["name"]
        return name is None or (self._is_agent(name) and not self._names_thing(name, cue))

    def _is_agent(self, text: str) -> bool:
        """A bare person ('Ben and others', 'they'): someone acting, not a cause."""
        low = text.lower()
        if low in ("they", "he", "she", "someone", "somebody", "everyone", "people", "the team"):
            return True
        name = re.fullmatch(r"([A-Z][a-z]+)(?:\s+(?:and\s+)?[A-Z][a-z]+)?", text)
        if name and self._may_be_a_name(name.group(1)) and self._may_name_someone(text):
            return True  # a bare name, said by no one here: still a person
        who, rest = _subject(text, [*self.people])
        return who is not None and not rest

    def _names_thing(self, text: str, cue: _Cue) -> bool:
        """A bare name that is a thing, not a person or a nod: one spelt as no person is
        ("PgBouncer", "DNS", "S3", "Node.js"), a word no one is named ("Kafka", "Monitoring",
        "Canaries"; see `_may_name_someone`), or, before a cue people are seldom the subject
        of ("caused", "led to"), a name no one here bears ("Kafka caused the outage"; "Ben
        caused it" stays a person when Ben speaks or is named as someone)."""
        text = text.rstrip(".!?")
        if not _BARE_NAME.fullmatch(text) or text in self.people:
            return False
        words = [w for w in text.split() if w != "and"]
        if any(
            not self._may_be_a_name(w)
            or w.lower() in _NOBODY
            or (  # "Mel" is Melanie; "AI" is not Aiden, nor "Go" Gordon
                len(w) >= 3
                and w.istitle()
                and any(n.startswith(w.lower()) for n in self.name_words)
            )
            for w in words
        ):
            return False
        return (
            not cue.agentive
            or all(PRODUCT_NAME.fullmatch(w) for w in words)
            or not self._may_name_someone(text)
        )

    # -- people --------------------------------------------------------------------------------

    def _find_people(self, sentence: str, speaker: str) -> None:
        start = len(sentence) - len(sentence.lstrip(" \"'“‘([*_"))
        for pattern in _PERSON_PATTERNS:
            for m in pattern.finditer(sentence):
                group = "name" if m["name"] else "name2"
                name = self._name(m[group], at_start=m.start(group) == start)
                if not name or name in self.people:
                    continue
                rel = m.groupdict().get("rel")
                self.people[name] = {"relation": rel, "of": speaker or None} if rel else {}

    def _name(self, found: str, *, at_start: bool) -> str | None:
        """The name in what a person cue found, without the words before it that are no name:
        "Yesterday Dana" -> Dana, "Honestly Priya" -> Priya, "Thankfully" -> none. A word only
        the sentence start capitalises, shaped as an adverb or a gerund, is no name either,
        unless the transcript also writes it capitalised mid-sentence ("… with Beverly").
        After a determiner it is a thing's name: "The Guardian said"."""
        words = found.split()
        if words[0] in _DETERMINERS:
            return None
        while words and (
            not self._may_be_a_name(words[0])
            or words[0].lower() in _LEAD_FILLER
            or (
                at_start
                and _ADVERB_OR_GERUND.fullmatch(words[0])
                and words[0] not in self.mid_sentence
                and not self._known(words[0])
            )
        ):
            words, at_start = words[1:], False
        name = " ".join(words)
        return name if name and self._may_name_someone(name) else None

    def _known(self, word: str) -> bool:
        """A word of the name of someone who speaks here or whom the memory knows."""
        low = word.lower()
        return word in self.people or low in self.name_words or low in self.known

    def _may_be_a_name(self, word: str) -> bool:
        """Not a word no one is named ("The", "Yesterday", "March"), except a month someone who
        speaks here or whom the memory knows is named: "May and I fixed the build"."""
        if word not in _NOT_NAMES:
            return True
        return word.lower() in MONTHS and self._known(word)

    def _may_name_someone(self, name: str) -> bool:
        """Whether a capitalised word or two ("Ben", "Kafka and Ben") may name a person: one who
        speaks here or is known, or any word shaped as a name; not a tool ("Jenkins", "New
        Relic"), even one the memory keeps as a person (an older misreading, unless they speak
        here), nor, where only a sentence's start capitalises it, a gerund, an abstract noun or
        a plural noun ("Monitoring", "Automation", "Canaries", "Backups")."""
        if name in self.people:
            return True
        if is_tool(name):
            return False
        return any(
            self._known(w)
            or not (
                is_tool(w)
                or (
                    w not in self.mid_sentence
                    and (_GERUND_OR_ABSTRACT.fullmatch(w) or _common_plural(w))
                )
            )
            for w in name.split()
            if w != "and"
        )

    # -- finishing -----------------------------------------------------------------------------

    def _finish(self) -> Extraction:
        causal_src = {s for s, _, r in self.links if r in CAUSAL}
        causal_dst = {d for _, d, r in self.links if r in CAUSAL}
        # What prevents or enables, unless itself bad, is a measure someone put in place.
        measures = {
            s
            for s, _, r in self.links
            if r in ("prevented", "enabled")
            and outcome_polarity(self.drafts[s].item.text).score >= 0
            and s not in self.lacks
        } | self.tried
        names = [*self.people]
        for i, d in enumerate(self.drafts):
            item = d.item
            if i not in causal_src and i not in causal_dst and item.kind != "outcome":
                continue  # an outcome told with no cause ("Checkout broke after the deploy") is one
            if item.kind in ("preference", "lesson"):
                continue
            agent = self._agentive(item.text, names) or i in measures
            if i in causal_src and agent and not d.whole:
                item.kind = "decision"
                if i in self.tried:
                    item.attributes["tried"] = True  # a fix said not to have held
            elif i in causal_dst:
                # "We went with SQLite because it needs no server": a choice told with its
                # reason is still a choice, which its own outcomes can follow; a group's too.
                told = _ASIDES.sub("", d.effect_text or item.text)
                who, rest = _subject(told, names)
                if who is None or rest.startswith(
                    "'"
                ):  # not a person, or "Ana's team", "Ana and others' team"
                    who, rest = _group_subject(told) or (who, rest)
                chose = _DECISION.match(rest) or _SWITCHED.match(rest)
                item.kind = "decision" if who is not None and chose else "outcome"
            elif item.kind in ("note", "fact"):
                item.kind = "event"
            if item.kind == "outcome":
                p = outcome_polarity(d.effect_text or item.text, names)
                item.attributes.update(
                    polarity=p.score, polarity_label=p.label, polarity_cues=list(p.cues)
                )
        self._name_the_chosen()
        items = [d.item for d in self.drafts]
        self._people_items(items, names)
        links = []
        for (s, d, r), w in self.links.items():
            told = tuple(self.told.get((s, d, r), ()))
            links.append(ItemLink(s, d, r, round(w, 3), sources=told))  # type: ignore[arg-type]
        return Extraction(items=items, links=links)

    def _name_the_chosen(self) -> None:
        """In "We chose Postgres because it supports JSONB" the reason's "it" is the thing
        chosen, so the reason reads "It (Postgres) supports JSONB" and is found by that name.
        Not after "switched to", whose reason's "it" is as often what was left."""
        for s, d, relation in self.links:
            reason, choice = self.drafts[s], self.drafts[d]
            if relation != "caused" or choice.item.kind != "decision" or reason.msg != choice.msg:
                continue
            chosen = _CHOSEN.search(choice.item.text)
            if re.search(r"\b(?:over|instead|rather\s+than)\b", choice.item.text):
                continue  # "Postgres over Mongo because it kept losing data": "it" may be either
            if chosen is not None and _BARE_IT.match(reason.item.text):
                thing = chosen["what"].rstrip(".!")
                reason.item.text = f"It ({thing}){reason.item.text[2:]}"

    def _agentive(self, text: str, names: Sequence[str], *, known: bool = False) -> bool:
        """Done by someone: a person's action (not being, wishing, not doing or what befell
        them: "Ben was asleep", "We could migrate", "We didn't migrate", "Ben got paged"), a
        gerund ('Adding a cache'), or a decision. `known`: what someone surely did, for "that
        migration" to stand for: not any capitalised first word ("Checkout went down")."""
        # not what an "It (...)" stands for, nor "Ben (on-call)", nor when ("Yesterday Ben …")
        text = _after_time(_ASIDES.sub("", text))
        if _DECISION.search(text):
            return True
        who, rest = _subject(text, names)
        if who is not None and not rest.startswith("'"):  # "Caroline's empathy" acts not
            return _did_as_a_person(rest)
        if re.match(r"(?:I|We|we)\s+(?!(?:was|were|am|are|got|had)\b)[a-z]", text):
            return True  # a note's own "we rolled back", kept as written; "we were hit" is not
        group, rest = _group_subject(text) or (None, "")
        did = _DID_TO.match(rest)
        if (
            group
            and not _NOT_DOING.match(rest)
            and (_SWITCHED.match(rest) or (did and is_past(did["verb"])))
        ):
            return True  # "The team rolled back the deploy", not "The team grew" or "was paged"
        if known:  # "Carol rolled back the deploy": someone, a past verb, what it was done to
            named = _SOMEONE_DID.match(text)
            if (
                named
                and self._may_be_a_name(named["who"])
                and self._may_name_someone(named["who"])
                and is_past(named["verb"])
            ):
                return True
        named = None if known else re.match(r"([A-Z][a-z]+)\s+(?:\w+ly\s+)?([a-z]+)\b", text)
        if (
            named
            and self._may_be_a_name(named.group(1))
            and self._may_name_someone(named.group(1))
            and is_past(named.group(2))
            and _did_as_a_person(text[named.end(1) :].lstrip())
        ):
            return True  # "Esme applied the migration": a name, then what they did; not "Kafka
            # dropped messages", nor what befell them ("Ben got sick")
        first = re.match(r"\s*([A-Za-z]+)\s+\w", text)
        return bool(
            first and first.group(1).lower().endswith("ing")
            and first.group(1).lower() not in _GERUND_STOP
        )  # fmt: skip

    def _people_items(self, items: list[Item], names: list[str]) -> None:
        patterns = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
        n_items = len(items)
        for name in names:
            about = [i for i in range(n_items) if patterns[name].search(items[i].text)]
            if not about:
                continue
            sources = list(dict.fromkeys(s for i in about for s in items[i].sources))
            attrs = {k: v for k, v in self.people[name].items() if v is not None}
            items.append(Item("person", name, sources, None, attrs))
            person = len(items) - 1
            for i in about:
                who, _ = _subject(items[i].text, [name])
                self._link(i, person, "about", 1.0 if who == name else MENTION)


# ", and network problems." ending a sentence: the last of a list, not another clause.
_LIST_END = re.compile(r",\s*(?:and|or)\s+(?:[\w'’-]+\s+){0,2}[\w'’-]+\s*[.!?]?\s*$")


def _by_whom(text: str) -> str:
    """What a passive names after "by", without a comment after a comma (", not the database",
    ", according to Dana", the rest of a sentence a relative clause interrupted) unless the
    commas list causes ("a bug, a missing index and a bad deploy")."""
    parts = re.split(r",\s+", text)
    listed = len(parts) > 1 and bool(
        re.search(r"\b(?:and|or)\s", parts[-1]) or re.match(r"(?i)as\s+well\s+as\b", parts[-1])
    )
    aside = any(
        re.match(
            r"(?i)(?:not|according|as\b(?!\s+well\s+as)|which|who|i|we|\w+\s+(?:said|says|thinks))\b",
            p,
        )
        for p in parts[1:]
    )
    return text if listed and not aside else _clean(parts[0])


_PHRASE_START = word_set(
    "on in at of for with during after before from to by over since about into under near"
)


def _head_phrase(words: list[str]) -> list[str]:
    """The words of a text up to the first phrase after its noun: "the checkout outage on
    Saturday" -> the checkout outage."""
    for i, w in enumerate(words[1:], 1):
        if w in _PHRASE_START:
            return words[:i]
    return words


def _last_clause(text: str, lo: int, hi: int) -> int:
    """Where the last clause of text[lo:hi] starts ("Sorry, but her positivity ..." -> "her")."""
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, lo, hi)]
    # what follows "since" is read to the end of the text: its verb may be the cue at `hi`
    breaks += [m.end() for m in _SINCE_CLAUSE.finditer(text, lo) if m.end() <= hi]
    return max(breaks) if breaks else lo


def _first_clause(text: str, lo: int, hi: int) -> int:
    """Where the first clause of text[lo:hi] ends."""
    m = _CLAUSE_BREAK.search(text, lo, hi)
    return m.start() if m else hi


def _definite_np(text: str) -> list[str] | None:
    """The words of a short definite noun phrase after its determiner ("the checkout outage" ->
    checkout, outage); None for a clause ("the deploy failed") or anything longer."""
    m = re.match(r"(?i)^(?:the|that|this|those|these|our|their)\s+((?:[\w-]+\s+){0,4}[\w-]+)$",
                 text.strip())  # fmt: skip
    if m is None:
        return None
    words = m.group(1).lower().split()
    return None if any(is_past(w) or w in STOPWORDS for w in words) else words


def _tells_no_cause(x: str) -> bool:
    """What follows "after" tells no cause, only what came first: not something done ("we
    migrated", "restarting the workers") nor a thing named as "the deploy" is ("After work",
    "After a deploy", "After the deploy on Friday")."""
    words = x.lower().split()
    return not any(is_past(w) or w.endswith("ing") for w in words) and _definite_np(x) is None


def _after_a_time(lead: re.Match[str]) -> bool:
    """'After the weekend, errors spiked', 'After lunch Ben and I fixed the build, which …': told
    in order, after a time, so no cause; not 'After the deploy, errors spiked'."""
    if lead["cue"].lower() != "after":
        return False
    x = _ASIDES.sub("", _clean(lead["x"]))
    if _A_TIME.fullmatch(x) or _A_SPAN_OF.match(x):
        return True
    rest = _after_time(f"After {x}")
    return rest != f"After {x}" and re.match(rf"{_SUBJ}\s", rest, re.IGNORECASE) is not None


def _demodalise(text: str) -> str:
    """'would have lost data' -> 'had lost data': what was prevented, read as if it happened."""
    return _COUNTERFACTUAL.sub("had", text)


_ACTOR = re.compile(
    r"([A-Z][a-z]+)\s+(?:(?:\w+ly|just|also|even|already|still|then|once|first|ever|never)\s+)?"
    r"([a-z]+)\b"
)


# What "It" stood for, written after it: "It (Ben restarted the workers) cleared the queue".
_IT_STOOD_FOR = re.compile(r"(?:It|That|This)\s+\(((?:[^()]|\([^()]*\))*)\)")


def actor(text: str) -> str | None:
    """Who did it, when a description opens with a name and a past-tense verb ("Ana restarted
    the workers", "Yesterday (28 February 2026) Ana restarted the workers"), or with what they
    did standing for "It" ("It (Ana restarted the workers) cleared the queue"); None for a
    gerund ("Restarting ...") or a noun phrase ("The restart ...")."""
    if stood_for := _IT_STOOD_FOR.match(text.strip()):
        return actor(stood_for[1])
    m = _ACTOR.match(_after_time(text.strip()))
    if m is None or m.group(1).lower() in STOPWORDS or m.group(1).lower().endswith("ing"):
        return None
    return m.group(1) if is_past(m.group(2)) else None


def _annotate(text: str, spans: Sequence[TimeSpan]) -> str:
    """Write the absolute date after each relative phrase: 'yesterday (7 May 2023)'."""
    for span in spans:
        label = describe(span)
        if label is None or re.search(r"\d{4}", span.phrase):
            continue
        at = text.find(span.phrase)
        if at >= 0:
            end = at + len(span.phrase)
            text = f"{text[:end]} ({label}){text[end:]}"
    return text
