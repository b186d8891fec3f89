"""Who a sentence names: people by name, by relation ("my sister Ana") and by role, and the
capitalised words that name no one."""

from __future__ import annotations

import re

from ..sentences import word_set
from ..text import STOPWORDS, is_word

_REL_NOUN = (
    r"(?:best\s+friend|friend|buddy|sister|brother|sis|bro|mom|mum|mother|dad|father|son|"
    r"daughter|husband|wife|partner|boyfriend|girlfriend|fianc[ée]e?|boss|manager|colleague|"
    r"co-?worker|teammate|neighbou?r|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|"
    r"niece|nephew|kid|child|baby|teacher|mentor|coach|therapist|roommate|classmate)"
)
_NAME = r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
# Who people are by what they do: "the mechanic fixed the brakes" is someone acting.
_ROLE_NOUN = (
    r"(?:mechanic|plumber|electrician|doctor|nurse|surgeon|vet|dentist|detective|police|officer|"
    r"cop|firefighter|chef|cook|waiter|pilot|band|singer|champion|referee|judge|lawyer|"
    r"landlord|neighbor|city|council|government|restaurant|shop|store|staff|guy|girl|man|woman|"
    r"lady|folks|people|engineer|developer|dev|admin|intern|contractor|vendor|customer|manager|"
    r"team|crew|boss)"
)
# "my mom", "Ana's brother", "the kids", "the mechanic": someone, by who they are
_KIN = re.compile(
    rf"(?:[Mm]y|[Oo]ur|[Yy]our|[Hh]is|[Hh]er|[Tt]heir|[Tt]he|[A-Z][a-z]+"
    rf"(?:['’]s|\s+and\s+others['’]s?))\s+(?:[\w-]+\s+)?(?:{_REL_NOUN}|{_ROLE_NOUN})(?:s|es)?"
)
_PERSON_PATTERNS = [
    re.compile(
        rf"\b(?:[Mm]y|[Oo]ur|[Yy]our|[Hh]is|[Hh]er|[Tt]heir)\s+(?:(?:best|old|good|close|new|little|big|older|"
        rf"younger)\s+)?(?P<rel>{_REL_NOUN})\s*,?\s+(?P<name>{_NAME})"
    ),
    # "Priya, my friend, …": an appositive ends where the relation does; "Thankfully, my son's
    # ok" and "Marrying my partner and …" put a word before the relation, not a name.
    re.compile(
        rf"\b(?P<name>{_NAME}),?\s+(?:my|our)\s+(?P<rel>{_REL_NOUN})\b"
        r"(?=\s*(?:[,.!?;:)—–]|-\s|$)|\s+who\b)"
    ),
    re.compile(rf"\b(?P<name>{_NAME})\s+and\s+(?:I|me)\b|\b(?:[Mm]e|I)\s+and\s+(?P<name2>{_NAME})"),
    re.compile(
        rf"\b(?P<name>{_NAME})\s+(?:said|says|told|tells|asked|asks|texted|invited|visited|"
        r"suggested|mentioned|recommended|called\s+me)\b"
    ),
    # Time spent with someone: "went hiking with Bo", "caught up with Bo"; not "went with
    # Postgres" (a choice) nor "dealing with Kafka".
    re.compile(
        r"\b(?:(?:hung|hang|hanging)\s+out|(?:met|meet|meeting|caught|catch|catching)\s+up|"
        r"(?:went|go|going|goes)\s+\w+ing|talked|spoke|chatted|had\s+(?:lunch|dinner|coffee|"
        rf"drinks|breakfast))\s+with\s+(?P<name>{_NAME})\b"
    ),
]
_DETERMINERS = word_set("The A An My Our Your His Her Their Its This That These Those")
# Shaped as an adverb or a gerund: "Thankfully", "Honestly", "Marrying". A shorter word may be a
# name ("Kelly", "King") and is left one.
_ADVERB_OR_GERUND = re.compile(r"[A-Z][a-z]{3,}ly|[A-Z][a-z]{2,}ing")
# Shaped as a gerund or an abstract noun, as no given name is: "Monitoring", "Alerting",
# "Automation", "Observability", "Redundancy".
_GERUND_OR_ABSTRACT = re.compile(r"[A-Z][a-z]{2,}(?:ing|tion|sion|ment|ness|bility|ancy|ency|ism)")


def _common_plural(word: str) -> bool:
    """A plural common noun: "Canaries", "Retries"; "Backups", "Alerts", "Caches", "Indexes",
    as the word without its ending is a word. Not "James", "Jules", "Lucas", "Doris", "Ross",
    "Marcus", which end as no such plural does or are no word without their "s"."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return True
    if re.search(r"(?:ch|sh|x|z)es$", low) and is_word(low[:-2]):
        return True
    return len(low) > 3 and re.search(r"[^aiosu]s$", low) is not None and is_word(low[:-1])


# One or two capitalised words ("Redis and Kafka"), as a product may be spelt ("Node.js", "S3").
_BARE_NAME = re.compile(r"[A-Z][\w.+#-]*(?:\s+(?:and\s+)?[A-Z][\w.+#-]*)?")
# Who or what no one in particular is: "Nothing caused the outage" claims no cause.
_NOBODY = STOPWORDS | word_set(
    """nothing nobody none neither either everything everybody everyone something somebody
    someone anything anybody anyone whatever whoever many several every another others"""
)
_NOT_NAMES = word_set(
    """I The A An My Our Your His Her Their It This That These Those We You They He She Me Us
    Them Mom Mum Dad God Hey Hi Oh Yes No So And But Then Well Also Just Lol Haha Wow Thanks Ok
    Okay Today Yesterday Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    Christmas Easter There Here What When Where Why How Who Which Someone Everyone"""
)


_PICTURE = re.compile(r"an?\s+(?:photo|picture|image|screenshot|photograph)\b", re.IGNORECASE)
