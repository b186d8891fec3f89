"""Outcome polarity without an LLM: was this recorded outcome good, bad or neutral?

Agents record ``decision -> outcome`` episodes; the outcome text ("rolled back
after a 2h outage", "shipped on time, no data loss") decides whether the
decision should be repeated.  This module scores that text with a small,
readable rule engine:

1. normalise + tokenise  (lowercase, ``n't`` -> ``not``, hyphens split,
   numbers keep their unit: ``800ms``, ``40%``, ``500s``)
2. match lexicon phrases, longest first; inflections come from generated word
   forms, so ``crash`` also matches ``crashes/crashed/crashing``
3. context rules, each a small function:
     meta use      "error handler", "incident review"  -> not an event
     irrealis      "supposed to fix", "if it fails", "we might get an outage"
                   -> not an outcome ("nobody could log in", "in May", "after the
                   fix we could deploy in minutes" are told)
     away          "Ben was offline all weekend"        -> a person away, no outage
     direction     "latency dropped", "cut errors"      -> sign(qty) * sign(dir);
                   with no quantity named, a time or size reached is one ("it
                   dropped to 40 ms" +, "ballooned to 2 GB" -; "grew to 12" 0);
                   a bad noun counts as a cost ("flakiness dropped", "fewer
                   outages"); "dropped requests" is a loss, not a decrease
     done more     "customers bought more" (+), "users complained more" (-):
                   the doing's sign; "done less" the opposite
     holding       "held a 99% hit rate", "met the SLO" -> good; "storage stayed
                   flat" -> good, "throughput was flat" -> no verdict
     pace          "took minutes", "in seconds" (+, when nothing else in the
                   sentence tells how it went); "took hours", "takes forever",
                   "took three days" (-); "took an hour", "in May" (0)
     tickets       "40 support tickets from customers", "a flood of tickets" (-);
                   "we closed 40 tickets" (0)
     effort        "zero setup", "no config needed" (+), "lots of boilerplate" (-);
                   "we changed the config" (0)
     "-free"       "incident-free", "error free"        -> the bad noun is absent
     negation      "no data loss", "did not crash"      -> flipped
     recurrence    "the errors came back" (-), "got its free space back" (+),
                   "customers came back" (+), "the errors did not come back" (+),
                   "customers never came back" (-), "it came back" (0)
     fix verbs     "fixed the leak", "incident resolved" -> the bad noun is the
                   thing that got fixed, so it stops counting against
     circumstance  "worked during the outage"           -> damped
     intensity     "far longer", "slightly slower", "broke again" -> scaled
     neutral       "results were mixed", "within noise" -> damped
4. sum, snap small sums to 0, squash with tanh into [-1, 1].

Pure (stdlib and the project's text helpers); everything is compiled at import.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from .sameness import told

__all__ = ["BAD_JUDGEMENTS", "GOOD_JUDGEMENTS", "VERDICT_NOUNS", "Polarity", "outcome_polarity"]

# A verdict on something done: "the right call", "a terrible choice". Extraction reads a
# sentence that gives one as the outcome of what it judges.
VERDICT_NOUNS = ("call", "choice", "decision", "move", "idea", "bet", "approach")
GOOD_JUDGEMENTS = ("right", "good", "great", "smart", "wise", "brilliant", "excellent",
                   "correct", "best")  # fmt: skip
BAD_JUDGEMENTS = ("wrong", "bad", "poor", "terrible", "dumb", "stupid", "worst", "awful",
                  "horrible")  # fmt: skip

Label = Literal["negative", "neutral", "positive"]


@dataclass(frozen=True)
class Polarity:
    score: float  # in [-1.0, 1.0]; <0 bad, >0 good, 0 neutral
    label: Label
    cues: tuple[str, ...]  # the words/phrases that decided it


# fmt: off
# ---------------------------------------------------------------------------
# Lexicon.  Phrase syntax:  words separated by spaces; a plain word also
# matches its inflections (s/es/ed/ing, e-drop, doubled consonant, y->ies);
# "=word" matches exactly; "word*" matches any word starting with it;
# "~" skips 0-3 words inside the clause ("closed ~ deal").
# Values are magnitudes; the table decides the sign.
# ---------------------------------------------------------------------------

BAD_TERMS: dict[str, float] = {
    # availability / incidents
    "outage": 1.5, "downtime": 1.0, "incident": 1.0, "security incident": 1.5,
    "sev1": 1.5, "sev2": 1.0, "meltdown": 1.5, "blew up": 1.0, "blown up": 1.0,
    "blew through": 1.0, "degrade": 1.0, "degradation": 1.0, "unavailable": 1.0,
    "unresponsive": 1.0, "unreachable": 1.0, "unstable": 1.0, "=500": 1.0,
    "go =offline": 1.0, "=went =offline": 1.0, "=was =offline": 1.0, "=were =offline": 1.0,
    "=is =offline": 1.0, "=are =offline": 1.0,
    "=500s": 1.0, "=5xx": 1.0, "=502s": 1.0, "=503s": 1.0, "disaster": 1.0,
    "catastrophic": 1.5, "halt": 1.0, "overloaded": 1.0, "overwhelm": 1.0,
    "saturated": 0.7, "saturation": 0.7, "thrash": 1.0,
    # resource exhaustion and collapse under load
    "exhaust": 1.0, "exhaustion": 1.0, "collapse": 1.0, "starve": 1.0,
    "starvation": 1.0, "swamp": 1.0, "drown": 1.0, "stampede": 1.0, "cascade": 0.7,
    "thundering herd": 1.0, "storm": 1.0, "=froze": 1.0, "freeze up": 1.0,
    "=froze up": 1.0, "=freezes": 1.0, "=freezing": 1.0, "wedged": 1.0,
    "livelock": 1.0, "refuse": 0.7, "flap": 0.7,
    "memory pressure": 0.7, "disk pressure": 0.7,
    "full disk": 1.0, "hit ~ limit": 1.0, "hit ~ ceiling": 1.0, "pile up": 1.0,
    "=backed up": 0.7, "suffer": 0.7,
    "trouble": 0.7, "hassle": 0.7, "hiccup": 0.5, "glitch": 0.7, "hitch": 0.7,
    "push back": 0.7, "pushback": 0.7, "setback": 1.0,
    # excess: "too many connections", "took too long"
    "=too much": 0.7, "=too many": 0.7, "=too long": 1.0, "=too high": 0.7,
    "=too low": 0.7, "=too slow": 1.0, "=too few": 0.7, "=too little": 0.7,
    # data & security
    "data loss": 1.5, "lost data": 1.5, "corrupt": 1.5, "corruption": 1.5,
    "breach": 1.5, "leak": 1.0, "memory leak": 1.0, "leakage": 1.0,
    "exposed": 1.0, "exposure": 1.0, "vulnerability": 1.0, "vulnerable": 1.0,
    "cve": 1.0, "exploit": 1.0, "exploitation": 1.0, "hacked": 1.0,
    "compromised": 1.0, "stale": 0.7, "overwritten": 0.7, "overwrote": 0.7,
    "double charge": 1.0, "double billed": 1.0, "incorrect": 0.7,
    "incorrectly": 0.7, "garbage": 0.7, "missing": 0.7, "unprocessed": 0.7,
    # software failure
    "fail": 1.0, "failure": 1.0, "error": 1.0, "errored": 1.0, "exception": 0.7,
    "crash": 1.0, "crashloop*": 1.0, "deadlock": 1.0, "race condition": 1.0,
    "timeout": 1.0, "timed out": 1.0, "time out": 1.0, "panic": 1.0,
    "=panicked": 1.0, "=panicking": 1.0, "=broke": 1.0, "=broken": 1.0,
    "break": 1.0, "bug": 1.0, "buggy": 1.0, "regression": 1.0, "regress": 1.0,
    "flaky": 1.0, "flakiness": 1.0, "flake": 1.0, "oom": 1.0,
    "out of memory": 1.0, "ran out": 1.0, "run out": 1.0, "=hung": 1.0,
    "=hang": 1.0, "=hangs": 1.0, "=hanging": 1.0, "stuck": 1.0, "stall": 1.0,
    "=locked": 0.7, "locked up": 1.0, "contention": 0.7, "misfire": 1.0,
    "table lock": 0.7, "lock wait": 0.7,
    "misconfigured": 0.7, "diverge": 1.0, "divergence": 1.0, "=nan": 1.0,
    "hallucinat*": 1.0, "overfit*": 0.7, "underperform*": 1.0, "plateau": 0.5,
    "restart": 0.5, "rollback": 1.0, "roll back": 1.0, "rolled back": 1.0,
    "rolling back": 1.0, "intermittent": 0.5, "intermittently": 0.5,
    "silently": 0.5, "unbounded": 0.7, "incomplete": 0.7, "bottleneck": 0.7,
    "disk full": 1.0, "fill up": 0.7, "expire": 0.7, "=red": 0.7,
    "bounce": 0.7, "rate limited": 0.7, "throttled": 0.7, "noise": 0.5,
    "noisy": 0.5, "slow": 1.0, "=slower": 1.0, "=slowest": 1.0,
    "slowdown": 1.0, "slowness": 1.0, "sluggish": 1.0, "=longer": 1.0,
    # "the dashboard crawled", "slowed to a crawl"; not "the crawler crawled 2M pages"
    "=crawled": 1.0, "=crawls": 1.0, "=crawling": 1.0, "to a crawl": 1.0,
    # on-call / process
    "=paged": 1.0, "=paging": 1.0, "pager": 0.5, "escalate": 1.0,
    "escalation": 1.0, "firefight*": 1.0, "=blocked": 1.0, "blocker": 1.0,
    "issue": 0.7, "problem": 0.7, "mess": 1.0, "messy": 0.7, "wrong": 1.0,
    "worse": 1.0, "worsen": 1.0, "worst": 1.0, "unusable": 1.0,
    "violation": 1.0, "violate": 1.0, "burned out": 1.0, "burnout": 1.0,
    # schedule / money
    "delay": 1.0, "=late": 0.7, "behind schedule": 1.0, "behind": 0.7,
    "fell behind": 1.0, "slip": 1.0, "missed": 1.0, "miss ~ deadline": 1.0,
    "over budget": 1.0, "overrun": 1.0, "overran": 1.0, "exceed ~ budget": 1.0,
    "nowhere near": 1.0, "fell short": 1.0, "short of": 0.7, "overdue": 1.0,
    "penalty": 1.0, "chargeback": 1.0, "layoff": 1.0,
    # customers / people / deals
    "churn": 1.0, "complaint": 1.0, "complain": 1.0, "cancel": 1.0,
    "cancellation": 1.0, "threaten": 1.0, "angry": 1.0, "frustrated": 1.0,
    "frustration": 1.0, "upset": 1.0, "unhappy": 1.0, "confused": 0.7,
    "confusing": 0.7, "downsell": 1.0, "=ghosted": 1.0, "quit": 1.0,
    "resign": 1.0, "resignation": 1.0, "walked away": 1.0, "pulled out": 1.0,
    "fell through": 1.0, "dried up": 1.0, "dry up": 1.0, "rejected": 1.0,
    "rejection": 1.0, "lost": 1.0, "lose": 1.0, "=loses": 1.0, "=losing": 1.0,
    "fell over": 1.0, "fall over": 1.0, "concern": 0.5, "at risk": 1.0,
    "red flag": 0.7,
    # bare "fix" is usually a noun ("the fix"), so only its negated verb uses
    "not fix": 1.0, "never fix": 1.0, "unable to fix": 1.0, "failed to fix": 1.0,
    # remedies that did not take: "did not help", "the fix didn't hold up / stick"
    "not help": 1.0, "never help": 1.0, "=no help": 1.0, "not hold up": 1.0,
    "not stick": 1.0, "not last": 0.7, "not pan out": 1.0,
    # a verdict on a decision: "that was a mistake", "the rewrite backfired"
    "mistake": 1.5, "regret": 1.0, "backfire": 1.5, "blunder": 1.5, "waste of": 1.0,
    **{f"{bad} {thing}": 1.5 for bad in BAD_JUDGEMENTS for thing in VERDICT_NOUNS},
    # a load carried: "no ops burden" is good, "eased the burden" too (FIX_TERMS)
    "burden": 0.7,
    # effort a thing asks: "setup was painful", "installing it was tedious"
    "painful": 1.0, "=pain": 0.7, "tedious": 0.7, "cumbersome": 0.7, "fiddly": 0.7,
    "friction": 0.7,
}

GOOD_TERMS: dict[str, float] = {
    # a verdict on a decision: "it paid off", "that was the right call"
    "pay off": 1.5, "=paid off": 1.5,
    "worth it": 0.7,
    **{f"{good} {thing}": 1.5 for good in GOOD_JUDGEMENTS for thing in VERDICT_NOUNS},
    "=shipped": 1.0, "=ships": 1.0, "=shipping": 1.0, "=launched": 1.0,
    "=released": 0.5, "go live": 1.0, "went live": 1.0, "stable": 1.0,
    "faster": 1.0, "fast": 0.7, "fastest": 1.0, "quick": 0.5, "=quicker": 0.7,
    "quickly": 0.5, "improve": 1.0, "improvement": 1.0, "better": 1.0,
    "best": 1.0, "pass": 1.0, "succeed": 1.0, "green": 0.7, "on time": 1.0,
    "on schedule": 1.0, "on track": 0.7, "ahead of schedule": 1.0,
    "ahead of": 0.7, "early": 0.5, "earlier than": 0.5, "under budget": 1.0,
    "within ~ budget": 1.0, "within ~ slo": 1.0, "within ~ sla": 1.0,
    "within ~ rto": 1.0, "within ~ rpo": 1.0, "save": 1.0, "happy": 1.0,
    "=happier": 1.0, "pleased": 1.0, "delighted": 1.0, "thrilled": 1.0,
    "satisfied": 1.0,
    "love": 1.0, "=thanked": 1.0, "thank": 1.0, "=thanks": 1.0, "praise": 1.0,
    "impressed": 1.0, "kudos": 1.0, "great": 0.7, "excellent": 1.0,
    "awesome": 0.7, "good": 0.5, "healthy": 0.7, "fine": 0.5, "work": 0.7,
    "as designed": 0.7, "as expected": 0.7, "as intended": 0.7,
    "converge": 1.0, "=renewed": 1.0, "expand": 1.0, "expansion": 1.0,
    "upsell": 1.0, "uplift": 1.0, "=signed": 1.0, "sign up": 1.0, "=won": 1.0, "=win": 0.7,
    "=wins": 0.7, "=accepted": 1.0, "approved": 0.7, "approval": 0.7,
    "hired": 0.7, "=filled": 0.7, "promoted": 0.5, "close ~ deal": 1.0,
    "deal closed": 1.0, "closed won": 1.0, "=beat": 1.0, "=beats": 1.0,
    "=beating": 1.0, "outperform*": 1.0, "exceeded ~ expectations": 1.0,
    "achieve": 1.0, "=delivered": 0.7, "=done": 0.5, "complete": 0.5,
    "=finished": 0.5, "verified": 0.7, "validated": 0.7, "quiet": 0.5,
    "calm": 0.5, "keep up": 0.7, "=kept up": 0.7, "catch up": 0.7,
    "=caught up": 0.7, "ramp up": 0.5, "went well": 1.0, "robust": 0.7,
    "reliable": 0.7, "resilient": 0.7, "efficient": 0.5, "profitable": 1.0,
    "gain": 0.7, "useful": 0.5, "valuable": 0.5, "recovery": 0.5,
    # recovery and continuity: "writes resumed", "back online", "stayed up"
    "=resumed": 1.0, "=resumes": 1.0, "regain": 1.0, "bounce back": 1.0,
    "=bounced back": 1.0, "back online": 1.0, "come online": 0.7,
    "=came online": 0.7, "back in service": 1.0, "up and running": 1.0,
    "=is =back =up": 1.0, "=are =back =up": 1.0, "=was =back =up": 1.0,
    "=were =back =up": 1.0, "=came =back =up": 1.0, "=came =back online": 1.0,
    "normalize": 0.7, "normalise": 0.7, "=steady": 0.7, "flawless": 1.0,
    "flawlessly": 1.0, "=helped": 0.7, "pan out": 0.5, "hold up under": 0.7, "=held up under": 0.7,
    "=held up well": 1.0, "=held up fine": 1.0, "met ~ deadline": 1.0,
    # no effort asked: "nothing to configure", "runs out of the box", "setup was a breeze"
    **{f"{lead} {chore}": 0.7 for lead in ("nothing to", "no need to")
       for chore in ("configure", "set up", "install")},
    "out of the box": 0.5, "run out of the box": 0.5, "=ran out of the box": 0.5,
    "=breeze": 0.7, "effortless": 0.7, "effortlessly": 0.7,
    "frictionless": 0.7,
}

# Verbs/predicates that act on a bad noun and make the pair good: "fixed the
# leak", "incident resolved", "rollback was clean".  They govern every bad cue
# in their clause (before or after), because passive and active both occur.
FIX_TERMS: dict[str, float] = {
    "=fixed": 1.0, "=fixes": 1.0, "=fixing": 1.0, "resolve": 1.0,
    "restore": 1.0, "repair": 1.0, "=patched": 1.0, "=patching": 1.0,
    "mitigate": 1.0, "eliminate": 1.0, "remediate": 1.0, "defuse": 1.0,
    "avert": 1.0, "avoid": 1.0, "prevent": 1.0, "=addressed": 0.7,
    "squash": 1.0, "=cleared": 1.0, "unblock": 1.0, "recover": 1.0,
    "stabilize": 1.0, "stabilise": 1.0, "=contained": 1.0, "=caught": 0.7,
    "=traced": 0.5, "root caused": 0.5, "solve": 1.0, "=solved": 1.0,
    "plug": 1.0, "closed out": 1.0, "=removed": 0.5,
    "ease": 1.0, "=eased": 1.0,  # "eased the burden on on-call"
    # coming through a bad event: "weathered the spike", "survived the failover"
    "survive": 1.0, "withstand": 1.0, "=withstood": 1.0, "=weathered": 1.0,
    "=absorbed": 0.7, "ride out": 1.0, "=rode out": 1.0, "served ~ spike": 1.0,
    "handled ~ spike": 1.0, "served ~ peak": 1.0, "handled ~ peak": 1.0,
    # success adjectives describe how an action went: "rollback was clean"
    "clean": 0.7, "cleanly": 0.7, "smooth": 1.0, "smoothly": 1.0,
    "success": 1.0, "successful": 1.0, "successfully": 1.0, "uneventful": 0.7,
    "seamless": 1.0, "seamlessly": 1.0, "painless": 0.7,
}

# Like fix verbs, but only mean something when they follow a bad noun:
# "the crash no longer reproduces", "the alert noise is gone".
RESOLUTION_TERMS: dict[str, float] = {
    "no longer reproduce": 1.0, "no longer happen": 1.0,
    "no longer occur": 1.0, "no longer appear": 1.0, "no longer fire": 1.0,
    "stopped happening": 1.0, "stopped occurring": 1.0, "went away": 1.0,
    "=gone": 1.0, "disappeared": 1.0, "under control": 1.0, "subside": 1.0,
    "vanish": 1.0, "die down": 1.0, "=died down": 1.0, "calm down": 1.0,
    "settle down": 1.0, "clear up": 1.0, "=stopped recurring": 1.0,
    "false positive": 0.7, "false alarm": 0.7,
}

# Verbs that turn a bad noun into a topic, not an outcome ("a test that
# reproduces the crash").  They govern like fix verbs but add nothing.
TOPIC_VERBS: tuple[str, ...] = ("reproduce", "repro", "simulate")

# Quantities: the sign says whether MORE of it is good (+1) or bad (-1).
MORE_IS_BAD: tuple[str, ...] = (
    "latency", "=p50", "=p90", "=p95", "=p99", "=p999", "error rate",
    "=errors", "failure rate", "=failures", "crash rate", "=crashes",
    "=incidents", "=bugs", "defect", "=churn", "=complaints", "ticket",
    "cost", "spend", "spending", "=bill", "=bills", "budget", "burn rate", "lag",
    "backlog", "time", "duration", "=hours", "=minutes", "memory",
    "memory usage", "cpu", "footprint", "downtime", "loss",
    "fraud", "wait", "response time", "cold start", "attrition",
    "turnover", "debt", "=timeouts", "noise", "storage", "storage use",
    "storage usage", "disk usage", "disk use", "=disk", "bug count", "error count",
    "crash count", "incident count", "refund",
    # what a build ships: "the image size halved", "the bundle grew"
    "image size", "bundle size", "binary size", "build size", "artifact size", "package size",
    "download size", "=image", "=bundle",
)
MORE_IS_GOOD: tuple[str, ...] = (
    "revenue", "sales", "bookings", "=arr", "=mrr", "conversion", "signup",
    "accuracy", "precision", "recall", "=f1", "=auc", "margin", "uptime",
    "availability", "=nps", "=csat", "satisfaction", "throughput", "=qps",
    "=rps", "retention", "engagement", "adoption", "win rate", "hit rate",
    "success rate", "coverage", "score", "quality", "morale", "cost savings",
    "savings", "profit", "velocity", "goal", "target", "quota", "forecast",
    "expectations", "=slo", "=sla", "free space", "free disk", "headroom",
    "payment", "traffic",  # what a business lives on: "payments stopped", "less traffic"
)
# Effort a thing asks of the people using it: more is bad like any cost ("lots of
# boilerplate", "less setup"), none is good ("zero setup", "no config needed"), and only
# mentioning it says nothing ("we changed the config").
EFFORT_NOUNS: tuple[str, ...] = (
    "setup", "=config", "=configs", "configuration", "boilerplate", "manual step", "toil",
    "overhead",
)
EFFORT_ABSENT = 0.7
# Load as much as business: losing it is bad (visitors gone, or an outage), gaining it
# is the condition a system ran under, no verdict ("latency spiked when traffic doubled").
LOAD_QUANTITIES: tuple[str, ...] = ("traffic",)

# Direction words.  Value = fallback weight when no quantity is nearby
# ("the site went down" is an outage; "the bill went down" is good).
INCREASE_TERMS: dict[str, float] = {
    "increase": 0.0, "=up": 0.0, "went up": 0.0, "go up": 0.0, "rise": 0.0,
    "=rose": 0.0, "=risen": 0.0, "=grew": 0.0, "grow": 0.0, "growth": 0.0,
    "double": 0.0, "triple": 0.0, "quadruple": 0.0, "climb": 0.0,
    "spike": -0.7, "jump": 0.0, "soar": 0.0, "balloon": -0.5, "=higher": 0.0,
    "=highest": 0.0, "=high": 0.0, "=more": 0.0, "=hit": 0.0, "peak": 0.0,
    "=exceeded": 0.0, "surge": 0.0, "shot up": 0.0, "boost": 0.0,
    "plenty of": 0.0, "lots of": 0.0, "=a lot of": 0.0, "tons of": 0.0,
}
DECREASE_TERMS: dict[str, float] = {
    "=down": -1.0, "went down": -1.5, "go down": -1.5, "goes down": -1.5,
    "going down": -1.5, "=brought down": -1.5, "bring down": -1.5,
    "=took down": -1.5, "=taken down": -1.5, "drop": -0.7, "=fell": 0.0,
    "fall": 0.0, "decline": -0.7, "decrease": 0.0, "reduce": 0.0,
    "reduction": 0.0, "=cut": 0.0, "=cuts": 0.0, "=cutting": 0.0,
    "=lower": 0.0, "=lowered": 0.0, "=lowest": 0.0, "=low": 0.0,
    "=less": 0.0, "=fewer": 0.0, "=shrank": 0.0, "=shrunk": 0.0,
    "shrink": 0.0, "halve": 0.0, "dip": 0.0, "slash": 0.0, "trim": 0.0,
    "shave": 0.0, "=below": 0.0, "back under": 0.0, "well under": 0.0,
    "drain": 0.0, "plummet": -1.0, "tank": -1.0, "=rarer": 0.0,
}

# "no X", "did not X", "without X", "X instead of Y" (=> not Y) ...
DETERMINER_DIRECTIONS = frozenset({"more", "less", "fewer", "plenty of", "lots of", "a lot of",
                                   "tons of"})
# Things a system passes along: "dropped requests" lost them, it did not reduce them.
PAYLOAD_NOUNS: tuple[str, ...] = (
    "request", "message", "packet", "event", "call", "connection", "job",
    "write", "frame", "record", "row", "delivery", "webhook", "order", "span",
)
PAYLOAD_DROPS = frozenset({"drop", "drops", "dropped", "dropping"})

# Recovery, stability and recurrence.
# "back to normal", "returned to baseline": a state word after a return verb.
RECOVERY_STATES: tuple[str, ...] = (
    "normal", "baseline", "usual", "healthy", "green", "steady", "nominal",
    "=pre", "full speed", "full capacity", "full strength",
)
RECOVERY_VERBS: tuple[str, ...] = ("back to", "return to")
# "stayed up", "remained available", "held steady": continuity is good.
STAY_VERBS: tuple[str, ...] = ("stay", "remain")
STAY_STATES: tuple[str, ...] = (
    "up", "online", "available", "responsive", "reachable", "steady", "stable",
    "healthy", "green", "solid", "fast",
)
STEADY_EXTRA: dict[str, float] = {
    "=held steady": 1.0, "hold steady": 1.0, "=held stable": 1.0,
    "=kept ~ green": 0.7, "keep ~ green": 0.7, "=kept ~ stable": 0.7,
    "keep ~ stable": 0.7, "=kept ~ healthy": 0.7, "keep ~ healthy": 0.7,
}
# Holding or meeting a good quantity is good ("held a 99% hit rate", "kept 98% of
# quality", "met the SLO"); holding a bad one says nothing ("kept latency at 200ms").
KEEP_VERBS: tuple[str, ...] = (
    "hold", "=held", "keep", "=kept", "maintain", "sustain", "retain",
    "preserve", "=met", "=meets",
)
# "Flat" is good for a cost ("storage stayed flat") and no verdict for a goal
# ("throughput was flat").
STEADY_TERMS: tuple[str, ...] = ("=flat", "level off", "=leveled off", "=levelled off")
# Return verbs: with a bad noun the problem recurred ("the errors came back"); with a
# good quantity it was regained ("got its free space back"); alone they say nothing.
# Value = fallback for words that only ever describe problems ("it recurred").
RECURRENCE_TERMS: dict[str, float] = {
    "come back": 0.0, "=came back": 0.0, "=back": 0.0, "return": 0.0,
    "creep back": 0.0, "=crept back": 0.0, "=recur": -0.7, "=recurs": -0.7,
    "=recurred": -0.7, "recurrence": -0.7, "reoccur": -0.7, "resurface": -0.7,
    "reappear": -0.7,
}
RECURRENCE_WINDOW = 6  # tokens back to the thing that came back
# Who coming back is good for a business: "customers came back", "the users returned".
RETURNING_DOERS: tuple[str, ...] = (
    "customer", "user", "visitor", "buyer", "shopper", "subscriber", "client",
)
AGAIN: tuple[str, ...] = ("=again",)  # "broke again", "green again": x INTENSIFY

NEGATORS: tuple[str, ...] = (
    "=not", "=no", "=never", "=without", "=zero", "=none", "=nothing",
    "=nobody", "no one", "=neither", "=nor", "=unable", "=lack", "=lacks",
    "=lacked", "=lacking", "instead of", "no longer", "no more", "stop",
    "=stopped", "=0",
)
NEGATION_SCOPE = 4  # tokens after the negator that it can reach

# What customers do for a business, and doing more of it is good ("customers bought more").
# Paying is not among them: paying more is as often a cost of ours ("we paid more for hosting").
BUSINESS_DOINGS: tuple[str, ...] = (
    "buy", "=bought", "purchase", "=ordered", "=ordering", "subscribe", "engage",
)
# Good-by-default capabilities and safeguards: saying they exist is neutral
# ("the job runs nightly"), saying they are absent is bad ("backups hadn't
# run", "we had no alerting", "two interviewers didn't show").
ABSENT_IS_BAD: tuple[str, ...] = (
    "run", "=ran", "start", "load", "respond", "boot", "connect", "log in",
    "login", "sync", "deliver", "arrive", "show", "live", "handle", "tested",
    "alerting", "monitoring", "backup", "tests", "redundancy",
    # what customers do for a business: "customers stopped buying", "users engaged less"
    *BUSINESS_DOINGS, "pay", "=paid",
)

# Hypotheticals, plans and questions are not outcomes.
IRREALIS: tuple[str, ...] = (
    "supposed to", "meant to", "tried to", "try to", "trying to",
    "attempt to", "attempted to", "hope to", "hoped to", "hoping to",
    "plan to", "plans to", "planned to", "planning to", "going to",
    "expected to", "expect to", "want to", "wants to", "need to",
    "needs to", "aim to", "aiming to", "=should", "=would", "=will",
    "=if", "=unless", "=whether", "=asked", "=ask", "=asks", "=asking",
    # a hedge: "we might get 40 support tickets" is feared, not had
    "=might", "=could", "=may",
)
# ... but "could" denied tells what did not work ("nobody could log in", "we could not
# deploy"), and "may" after these, or before a day, is the month ("in May", "May 3").
_TOLD_INABILITY = frozenset({"not", "never", "no", "nobody", "none", "nothing", "barely",
                             "hardly"})
# ... and "could" after a time or a means, or before "again", tells what one became able to
# do ("After the fix we could deploy in minutes", "With the cache, users could log in", "we
# could ship on Fridays again"), unless what follows reads bad: a harm is feared, not had
# ("Now this could break checkout").
_ABILITY_ANCHORS = frozenset({"after", "finally", "now", "since", "once", "with", "eventually"})
# An ability told as won is itself good, whatever was done with it: reached at last ("Finally
# we could ship on Fridays") or won back after a time or a means ("Now we could release on
# Fridays again"). "again" alone may offer a try ("We could try again next week").
_AT_LAST = frozenset({"finally", "eventually"})
_MONTH_BEFORE = frozenset({"in", "of", "since", "until", "till", "by", "early", "mid", "late",
                           "last", "next", "this", "during", "from", "to", "through", "on",
                           "before", "after"})

# Who is away, not what is down: "Ben was offline all weekend", "my manager went offline".
PERSON_SUBJECTS = frozenset({
    "i", "he", "she", "you", "everyone", "everybody", "somebody", "someone", "nobody",
    "manager", "engineer", "developer", "dev", "lead", "boss", "colleague", "teammate",
    "coworker", "intern", "contractor", "admin", "oncall", "on-call", "reviewer", "approver",
    "owner", "founder", "cto", "ceo", "pm", "designer", "tester", "sre",
})

# Markers of "no clear verdict".  They damp every cue in their sentence.
NEUTRAL_MARKERS: tuple[str, ...] = (
    "mixed results", "results were mixed", "was mixed", "were mixed",
    "mixed bag", "unchanged", "no change", "no difference", "about the same",
    "roughly the same", "the same as", "same as before", "within noise",
    "within the noise", "in the noise", "comparable", "on par",
    "inconclusive", "not enough data", "too early to tell", "halfway",
    "in progress",
)
NEUTRAL_DAMPING = 0.3

# Phrases that contain a polar word but are names of things.
SHIELDED_COMPOUNDS: tuple[str, ...] = (
    "disaster recovery", "root cause", "fine tune", "fine tuned",
    "fine tuning", "blue green", "break glass", "dry run", "game day",
    "kill switch", "hot fix", "bug bounty", "bug bash", "on call",
    "fix version", "failure modes", "error budget", "all time",
    "code freeze", "feature freeze", "=froze ~ code", "=froze ~ branch",
    "=froze ~ release",
    # a thing made ready, not a rise: "it took 40 minutes to set up" is no "minutes up"
    "set ~ up", "spin ~ up", "=spun ~ up",
)

# "the incident review", "error handler", "timeout test": a topic noun that
# only names the artifact after it.  Applies to TOPIC_NOUNS only, so "flaky
# tests" and "failing tests" still count.
TOPIC_NOUNS: tuple[str, ...] = (
    "incident", "outage", "error", "crash", "timeout", "regression",
    "failure", "rollback", "roll back", "leak", "memory leak", "bug",
    "deadlock", "panic", "exception", "escalation", "breach", "downtime",
    "churn", "complaint", "disaster", "success", "recovery", "oom",
    "security incident", "data loss", "corruption",
)
META_HEADS: tuple[str, ...] = (
    "handler", "handling", "budget", "log", "logging", "reporter", "report",
    "reporting", "detector", "detection", "test", "testing", "suite",
    "review", "template", "procedure", "runbook", "playbook", "plan",
    "planning", "criteria", "mode", "simulation", "drill", "dashboard",
    "policy", "policies", "alarm", "alert", "alerting", "postmortem",
    "retro", "code", "tracking", "tracker", "monitor", "monitoring",
    "metric", "class", "type", "communication", "comms", "response",
    "management", "commander", "channel", "ticket", "bounty", "bash",
    "triage", "path", "page", "process", "tooling", "tool", "scenario",
    "threshold", "value", "setting", "config", "configuration",
    "parameter", "knob", "rate",
)
PRE_META: tuple[str, ...] = (
    "=default", "=max", "=maximum", "=min", "=minimum", "=configurable",
    "=simulated", "=mock", "=mocked", "=fake", "=synthetic", "=injected",
    "=pre", "=post",
)

INTENSIFIERS: tuple[str, ...] = (
    "=very", "=really", "=badly", "=severely", "=completely", "=totally",
    "=fully", "=far", "=much", "=extremely", "=massively", "=hugely",
    "=major", "=huge", "=massive", "=critical", "=severe", "=entire",
    "=whole", "=still", "=significantly", "=dramatically", "=seriously",
    "=well",
)
DIMINISHERS: tuple[str, ...] = (
    "=slightly", "=minor", "=small", "=little", "=somewhat", "=marginally",
    "=partially", "a bit",
)
# "worked during the outage": the PP is background, not the outcome.
CIRCUMSTANCE: tuple[str, ...] = (
    "=during", "=amid", "=amidst", "=despite", "in spite of", "=throughout",
)

INTENSIFY, DIMINISH, CIRCUMSTANCE_DAMPING = 1.5, 0.5, 0.3
NEGATED_BAD_FACTOR = 0.8  # "no errors" is good, but weaker evidence than "errors"
NEUTRAL_BAND = 0.5  # |sum| below this is neutral
DIRECTION_WINDOW = 6  # max tokens between a direction word and its subject quantity
OBJECT_WINDOW = 4  # ... and its object quantity ("reduced cold start time")
OBJECT_STOPS = frozenset({"for", "at", "to", "by", "from", "after", "since", "with", "on",
                          "during", "until", "over", "of", "per"})
GAP_MAX = 3  # "~" in a phrase skips up to this many tokens ("served the launch-week spike")
MAX_SENTENCE = 200  # tokens; longer runs without . ; ! ? are split

# Clause structure.
BOUNDARY_PUNCT = frozenset(".;:!?,()")
SEGMENT_PUNCT = frozenset(".;!?")
CLAUSE_WORDS = frozenset({"but", "while", "although", "though", "however", "whereas"})
NEGATION_STOPS = CLAUSE_WORDS | {
    "and", "because", "so", "until", "after", "before", "since", "when",
    "if", "then", "once", "unless",
}

# fmt: on

# ---------------------------------------------------------------------------
# Tokenising
# ---------------------------------------------------------------------------

_APOSTROPHES = re.compile(r"[\u2018\u2019\u02bc`]")
_CONTRACTIONS = (
    (re.compile(r"\bcan'?t\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bshan'?t\b"), "shall not"),
    (re.compile(r"\b([a-z]+)n't\b"), r"\1 not"),
)
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*[a-z%]*|[a-z][a-z0-9]*(?:'[a-z]+)?|[.;:!?,()]")
_NUMBER_RE = re.compile(r"^(\d+(?:[.,]\d+)*)([a-z%]*)$")


def _tokenize(text: str) -> list[str]:
    text = _APOSTROPHES.sub("'", text.lower())
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    tokens = _TOKEN_RE.findall(text)
    # possessive "'s" never changes polarity ("the monolith's auth module")
    return [t[:-2] if t.endswith("'s") else t for t in tokens]


# ---------------------------------------------------------------------------
# Lexicon compilation
# ---------------------------------------------------------------------------

_GAP = "~"


def _forms(word: str) -> frozenset[str]:
    """Inflections of a lexicon word.  Over-generation is harmless: a made-up
    form like "crashs" never occurs in text."""
    if word.startswith("="):
        return frozenset({word[1:]})
    forms = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing"}
    if word.endswith("e"):  # resolve -> resolving
        forms |= {word[:-1] + "ing", word[:-1] + "ed"}
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}  # flaky -> flakies (harmless)
    if word[-1] not in "aeiouwxy":  # ship -> shipped, slip -> slipping
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    return frozenset(forms)


@dataclass(frozen=True)
class _Entry:
    kind: str  # cue | qty | dir | fix | resolve | topic_verb | absent | neg | ...
    weight: float = 0.0  # signed contribution (fallback for "dir")
    qty: int = 0  # +1 more is good, -1 more is bad
    direction: int = 0  # +1 increase, -1 decrease


_LEXICON: dict[str, _Entry] = {}


def _register(phrase: str, entry: _Entry) -> None:
    old = _LEXICON.get(phrase)
    if old is None:
        _LEXICON[phrase] = entry
    elif old.kind == "cue" and entry.kind == "qty" and old.qty == 0:
        _LEXICON[phrase] = _Entry("cue", old.weight, qty=entry.qty)  # "errors"
    elif old.kind == "qty" and entry.kind == "cue":
        _LEXICON[phrase] = _Entry("cue", entry.weight, qty=old.qty)
    else:  # pragma: no cover - a lexicon authoring mistake
        raise ValueError(f"lexicon conflict for {phrase!r}: {old} vs {entry}")


def _build_lexicon() -> None:
    for phrase, w in BAD_TERMS.items():
        _register(phrase, _Entry("cue", -w))
    for phrase, w in GOOD_TERMS.items():
        _register(phrase, _Entry("cue", w))
    for phrase, w in FIX_TERMS.items():
        _register(phrase, _Entry("fix", w))
    for phrase, w in RESOLUTION_TERMS.items():
        _register(phrase, _Entry("resolve", w))
    for phrase in MORE_IS_BAD:
        _register(phrase, _Entry("qty", qty=-1))
    for phrase in MORE_IS_GOOD:
        _register(phrase, _Entry("qty", qty=+1))
    for phrase in EFFORT_NOUNS:
        _register(phrase, _Entry("effort", qty=-1))
    for phrase, w in INCREASE_TERMS.items():
        _register(phrase, _Entry("dir", w, direction=+1))
    for phrase, w in DECREASE_TERMS.items():
        _register(phrase, _Entry("dir", w, direction=-1))
    for verb in RECOVERY_VERBS:
        for state in RECOVERY_STATES:
            _register(f"{verb} ~ {state}", _Entry("cue", 1.0))
    for verb in STAY_VERBS:
        for state in STAY_STATES:
            phrase = f"{verb} {state}" if state == "up" else f"{verb} ~ {state}"
            _register(phrase, _Entry("cue", 1.0))
    for phrase, w in STEADY_EXTRA.items():
        _register(phrase, _Entry("cue", w))
    for phrase, w in RECURRENCE_TERMS.items():
        _register(phrase, _Entry("recur", w))
    simple_kinds = (
        (TOPIC_VERBS, "topic_verb"),
        (NEGATORS, "neg"),
        (ABSENT_IS_BAD, "absent"),
        (IRREALIS, "irrealis"),
        (NEUTRAL_MARKERS, "neutral"),
        (SHIELDED_COMPOUNDS, "shield"),
        (INTENSIFIERS, "intens"),
        (DIMINISHERS, "dimin"),
        (CIRCUMSTANCE, "circum"),
        (KEEP_VERBS, "keep"),
        (STEADY_TERMS, "steady"),
        (AGAIN, "again"),
    )
    for phrases, kind in simple_kinds:
        for phrase in phrases:
            _register(phrase, _Entry(kind))


_build_lexicon()

# A compiled phrase: tuple of word matchers; each is a frozenset of forms,
# a ("*", prefix) pair, or _GAP.
_Matcher = frozenset[str] | tuple[str, str] | str


def _compile(phrase: str) -> tuple[_Matcher, ...]:
    parts: list[_Matcher] = []
    for word in phrase.split():
        if word == _GAP:
            parts.append(_GAP)
        elif word.endswith("*"):
            parts.append(("*", word[:-1]))
        else:
            parts.append(_forms(word))
    return tuple(parts)


_COMPILED: dict[str, tuple[_Matcher, ...]] = {p: _compile(p) for p in _LEXICON}
_BY_FIRST_FORM: dict[str, list[str]] = {}  # token -> phrases that can start there
_BY_FIRST_PREFIX: list[tuple[str, str]] = []  # ("crashloop", "crashloop*")
for _phrase, _parts in _COMPILED.items():
    if isinstance(_parts[0], tuple):
        _BY_FIRST_PREFIX.append((_parts[0][1], _phrase))
    else:
        for _form in _parts[0]:
            _BY_FIRST_FORM.setdefault(_form, []).append(_phrase)
del _phrase, _parts, _form


def _noun_forms(word: str) -> frozenset[str]:
    """Singular and plural only: "log" must not match "logged"."""
    if word.startswith("="):
        return frozenset({word[1:]})
    plural = word[:-1] + "ies" if word.endswith("y") and word[-2] not in "aeiou" else word + "s"
    return frozenset({word, plural, word + "es"})


_META_HEAD_FORMS = frozenset().union(*(_noun_forms(w) for w in META_HEADS))
_PRE_META_FORMS = frozenset().union(*(_forms(w) for w in PRE_META))
_TOPIC_NOUN_FORMS: tuple[tuple[frozenset[str], ...], ...] = tuple(
    tuple(_noun_forms(word) for word in noun.split()) for noun in TOPIC_NOUNS
)


def _is_topic_noun(tokens: list[str], start: int, end: int) -> bool:
    """True if tokens[start:end] is (an inflection of) one of TOPIC_NOUNS."""
    words = tokens[start:end]
    return any(
        len(parts) == len(words) and all(w in forms for w, forms in zip(words, parts, strict=True))
        for parts in _TOPIC_NOUN_FORMS
    )


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------


@dataclass
class _Span:
    """A lexicon hit; the context rules below mutate it."""

    start: int
    end: int  # exclusive
    text: str
    kind: str
    weight: float = 0.0
    qty: int = 0
    direction: int = 0
    active: bool = True
    negated: bool = False
    paired: bool = False
    prefix: str = ""  # "not", "no" ... shown in the cue
    governed: list[str] = field(default_factory=list)

    @property
    def cue(self) -> str:
        text = f"{self.prefix} {self.text}" if self.prefix else self.text
        return " ".join([text, *self.governed])


def _is_boundary(token: str) -> bool:
    return token in BOUNDARY_PUNCT or token in CLAUSE_WORDS


def _match_from(tokens: list[str], i: int, parts: tuple[_Matcher, ...]) -> int | None:
    """End index if parts match starting at tokens[i] (longest gap first)."""
    if not parts:
        return i
    head, rest = parts[0], parts[1:]
    if head == _GAP:
        for skip in range(GAP_MAX, -1, -1):
            j = i + skip
            if j <= len(tokens) and not any(_is_boundary(t) for t in tokens[i:j]):
                end = _match_from(tokens, j, rest)
                if end is not None:
                    return end
        return None
    if i >= len(tokens):
        return None
    token = tokens[i]
    ok = token.startswith(head[1]) if isinstance(head, tuple) else token in head
    return _match_from(tokens, i + 1, rest) if ok else None


def _merge(entries: list[_Entry]) -> _Entry:
    """Equally long matches: a cue may also be a quantity ("churn", "errors")."""
    cue = next((e for e in entries if e.kind != "qty"), entries[0])
    qty = next((e.qty for e in entries if e.qty), 0)
    if cue.kind == "cue" and qty:
        return _Entry("cue", cue.weight, qty=qty)
    return cue


def _find_spans(tokens: list[str]) -> list[_Span]:
    spans: list[_Span] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        candidates = list(_BY_FIRST_FORM.get(token, ()))
        candidates += [p for prefix, p in _BY_FIRST_PREFIX if token.startswith(prefix)]
        ends = {p: _match_from(tokens, i, _COMPILED[p]) for p in candidates}
        ends = {p: e for p, e in ends.items() if e is not None}
        if not ends:
            i += 1
            continue
        end = max(ends.values())  # longest match wins
        entry = _merge([_LEXICON[p] for p, e in ends.items() if e == end])
        spans.append(
            _Span(
                i,
                end,
                " ".join(tokens[i:end]),
                entry.kind,
                entry.weight,
                entry.qty,
                entry.direction,
            )
        )
        i = end
    spans.extend(_numeric_directions(tokens))
    for pace in _paces(tokens):
        # the time told is the pace, not a quantity nor a negator ("in no time"); a direction
        # begun before it keeps its own reading ("lag is back under a second")
        for s in spans:
            if pace.start <= s.start < pace.end:
                s.active = False
        spans.append(pace)
    spans.sort(key=lambda s: s.start)
    return spans


# fmt: off
_UNITS: dict[str, tuple[str, float]] = {
    "": ("n", 1), "k": ("n", 1e3), "x": ("n", 1), "%": ("pct", 1),
    "ms": ("t", 1e-3), "s": ("t", 1), "sec": ("t", 1), "secs": ("t", 1),
    "second": ("t", 1), "seconds": ("t", 1), "min": ("t", 60),
    "mins": ("t", 60), "minute": ("t", 60), "minutes": ("t", 60),
    "h": ("t", 3600), "hr": ("t", 3600), "hrs": ("t", 3600),
    "hour": ("t", 3600), "hours": ("t", 3600), "d": ("t", 86400),
    "day": ("t", 86400), "days": ("t", 86400), "week": ("t", 604800),
    "weeks": ("t", 604800), "kb": ("b", 1e3), "mb": ("b", 1e6),
    "gb": ("b", 1e9), "tb": ("b", 1e12),
}
# fmt: on


def _quantity_at(tokens: list[str], i: int) -> tuple[str, float] | None:
    """Parse "800ms", "1.4s", "40%", "2 hours" at tokens[i] -> (unit kind, value)."""
    if i >= len(tokens):
        return None
    m = _NUMBER_RE.match(tokens[i])
    if not m:
        return None
    number, unit = m.group(1).replace(",", ""), m.group(2)
    if not unit and i + 1 < len(tokens) and tokens[i + 1] in _UNITS:
        unit = tokens[i + 1]
    if unit not in _UNITS:
        return None
    try:
        value = float(number)
    except ValueError:
        return None
    kind, scale = _UNITS[unit]
    return kind, value * scale


def _numeric_directions(tokens: list[str]) -> list[_Span]:
    """ "went from 200ms to 1.4s" is an increase even without a direction word."""
    spans = []
    for i, token in enumerate(tokens):
        if token != "from":
            continue
        before = _quantity_at(tokens, i + 1)
        if before is None:
            continue
        for j in range(i + 2, min(i + 5, len(tokens))):
            if tokens[j] == "to":
                after = _quantity_at(tokens, j + 1)
                if after and after[0] == before[0] and after[1] != before[1]:
                    direction = 1 if after[1] > before[1] else -1
                    spans.append(
                        _Span(
                            i, j + 2, " ".join(tokens[i : j + 2]), "dir", 0.0, direction=direction
                        )
                    )
                break
    return spans


# How long a thing took, told as its pace: "onboarding took minutes", "finishes in seconds",
# "under a second" are quick; "took hours", "takes forever", "spent days" are slow, and so is
# a whole day or more counted ("took three days", "all week"). A time counted in hours or less
# ("the meeting took an hour", "the build took 40 minutes") tells no pace.
# fmt: off
TAKE_VERBS = frozenset({"take", "takes", "took", "taken", "taking"})
SPEND_VERBS = frozenset({"spend", "spends", "spent", "spending", "waste", "wastes", "wasted",
                         "wasting"})
QUICK_UNITS = frozenset({"seconds", "minutes", "secs", "mins"})
SLOW_UNITS = frozenset({"hours", "days", "weeks", "months", "years", "ages", "forever"})
LONG_UNITS = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years",
                        "weekend"})
UNDER_UNITS = frozenset({"ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute",
                         "minutes", "hour"})
COUNT_WORDS = frozenset({"a", "an", "one", "two", "three", "four", "five", "six", "seven",
                         "eight", "nine", "ten", "eleven", "twelve", "all", "whole"})
# between a taking and its time: "took (us) (just) (a few) minutes", "took them two weeks"
_PACE_FILLER = COUNT_WORDS | {
    "us", "me", "them", "him", "her", "you", "everyone", "just", "only", "mere", "few", "couple",
    "of", "several", "many", "literally", "barely", "nearly", "almost", "about", "around", "over",
}
_QUICK_FILLER = frozenset({"just", "only", "mere", "a", "few", "couple", "of", "literally"})
# "in seconds" names a unit after these, not a pace: "durations are given in seconds"
_UNIT_NAMERS = frozenset({"is", "are", "was", "were", "be", "been", "given", "measured",
                          "expressed", "reported", "stored", "specified", "counted", "shown",
                          "listed", "written", "set"})
_NOT_A_PACE_AFTER = frozenset({"off", "of", "at"})
# fmt: on
QUICK, SLOW, LONG = 0.7, -1.0, -0.7


def _pace_span(tokens: list[str], start: int, end: int, weight: float) -> _Span:
    return _Span(start, end, " ".join(tokens[start:end]), "pace", weight)


def _counted(word: str) -> bool:
    return word in COUNT_WORDS or bool(_NUMBER_RE.match(word))


def _paces(tokens: list[str]) -> list[_Span]:
    spans = []
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token in TAKE_VERBS or token in SPEND_VERBS:
            j = i + 1
            while j < n and j - i <= 5 and (tokens[j] in _PACE_FILLER or _counted(tokens[j])):
                j += 1
            # "took two days off" is leave, "takes minutes of the meeting" notes
            if j >= n or (j + 1 < n and tokens[j + 1] in _NOT_A_PACE_AFTER):
                continue
            unit, between = tokens[j], tokens[i + 1 : j]
            # "a few days" and "several hours" are not counted; "a (whole) day", "3 days" and
            # "all week" are
            counted = any(_counted(w) and w not in ("a", "whole") for w in between) or (
                between[-1:] in (["a"], ["whole"])
            )
            if unit in LONG_UNITS and (counted or unit in SLOW_UNITS):
                spans.append(_pace_span(tokens, i, j + 1, SLOW if not counted else LONG))
            elif unit in SLOW_UNITS and not counted:
                spans.append(_pace_span(tokens, i, j + 1, SLOW))
            elif unit in QUICK_UNITS and token in TAKE_VERBS and not counted:
                spans.append(_pace_span(tokens, i, j + 1, QUICK))
        elif token in ("in", "within") and (i == 0 or tokens[i - 1] not in _UNIT_NAMERS):
            j = i + 1
            while j < n and tokens[j] in _QUICK_FILLER:
                j += 1
            if tokens[j : j + 2] == ["no", "time"]:
                spans.append(_pace_span(tokens, i, j + 2, QUICK))
            elif j < n and tokens[j] in QUICK_UNITS:
                spans.append(_pace_span(tokens, i, j + 1, QUICK))
        elif token == "under" or tokens[i : i + 2] == ["less", "than"]:
            j = i + (1 if token == "under" else 2)
            if j >= n:
                continue
            m = _NUMBER_RE.match(tokens[j])
            if m and m.group(2) in UNDER_UNITS:  # "under 200ms"
                spans.append(_pace_span(tokens, i, j + 1, QUICK))
            elif _counted(tokens[j]) and j + 1 < n and tokens[j + 1] in UNDER_UNITS:
                spans.append(_pace_span(tokens, i, j + 2, QUICK))
    return spans


# ---------------------------------------------------------------------------
# Context rules
# ---------------------------------------------------------------------------

_POLAR = ("cue", "fix", "resolve", "absent", "dir", "recur", "keep", "steady", "pace", "effort")
_SCORING = ("cue", "fix", "resolve", "recur", "pace", "effort")


def _clause_ids(tokens: list[str]) -> list[int]:
    ids, current = [], 0
    for token in tokens:
        if _is_boundary(token):
            current += 1
        ids.append(current)
    return ids


def _drop_meta_uses(spans: list[_Span], tokens: list[str]) -> None:
    """'error handler', 'default timeout': the bad noun names a thing."""
    for s in spans:
        if s.kind != "cue" or not s.active:
            continue
        nxt = tokens[s.end] if s.end < len(tokens) else ""
        prev = tokens[s.start - 1] if s.start > 0 else ""
        named = nxt in _META_HEAD_FORMS and _is_topic_noun(tokens, s.start, s.end)
        if named or prev in _PRE_META_FORMS:
            s.active = False


def _hedges(marker: _Span, tokens: list[str]) -> bool:
    """Whether an irrealis word is one here: not "could" denied ("we could not deploy", told as
    what happened) nor "may" the month."""
    before = tokens[marker.start - 1] if marker.start else ""
    after = tokens[marker.end] if marker.end < len(tokens) else ""
    if marker.text == "could":
        return after not in _TOLD_INABILITY and before not in _TOLD_INABILITY
    if marker.text == "may":
        return before not in _MONTH_BEFORE and not after[:1].isdigit()
    return True


def _told_ability(marker: _Span, tokens: list[str], clause: list[int]) -> bool:
    """Whether a hedging "could" tells an ability had: a time or a means before it in its
    sentence, or "again" after it in its clause; never "could have" (what did not happen)."""
    if marker.text != "could" or tokens[marker.end : marker.end + 1] == ["have"]:
        return False
    again = any(
        t == "again" and clause[j] == clause[marker.start]
        for j, t in enumerate(tokens[marker.end :], marker.end)
    )
    return again or not _ABILITY_ANCHORS.isdisjoint(tokens[: marker.start])


def _after_in_clause(marker: _Span, spans: list[_Span], clause: list[int]) -> list[_Span]:
    return [s for s in spans if s.start >= marker.end and clause[s.start] == clause[marker.start]]


def _apply_irrealis(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'supposed to fix the leak', 'if it fails', 'we might get an outage': not something that
    happened. A told ability ('After the fix we could deploy in minutes') waits for
    `_apply_feared_ability`."""
    for marker in (s for s in spans if s.kind == "irrealis" and _hedges(s, tokens)):
        if _told_ability(marker, tokens, clause):
            continue
        for s in _after_in_clause(marker, spans, clause):
            if s.kind in _POLAR or s.kind == "qty":
                s.active = False


def _apply_feared_ability(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """A told ability that reads bad once every other rule has run is a harm feared, not had
    ('Now this could break checkout', 'After the migration it could take hours')."""
    for marker in spans:
        if marker.kind != "irrealis" or not _hedges(marker, tokens):
            continue
        if not _told_ability(marker, tokens, clause):
            continue
        scoring = [s for s in _after_in_clause(marker, spans, clause) if s.active]
        if sum(s.weight for s in scoring if s.kind in _SCORING) < 0:
            for s in scoring:
                s.active = False


def _ability_won(spans: list[_Span], tokens: list[str], clause: list[int]) -> list[_Span]:
    """'Finally we could ship on Fridays (again)': an ability reached at last or won back is a
    good outcome when nothing else in its clause gives a verdict. Returns the spans it adds."""
    won = []
    for marker in spans:
        if marker.kind != "irrealis" or not _hedges(marker, tokens):
            continue
        if not _told_ability(marker, tokens, clause) or marker.end >= len(tokens):
            continue
        before = set(tokens[: marker.start])
        again = any(
            t == "again" and clause[j] == clause[marker.start]
            for j, t in enumerate(tokens[marker.end :], marker.end)
        )
        at_last = not before.isdisjoint(_AT_LAST)
        won_back = again and not before.isdisjoint(_ABILITY_ANCHORS)
        if not (at_last or won_back):
            continue
        if any(
            s.active and s.weight and s.kind in _SCORING
            for s in _after_in_clause(marker, spans, clause)
        ):
            continue
        won.append(_Span(marker.start, marker.end, "could", "cue", weight=1.0))
    return won


def _nearest_quantity(
    spans: list[_Span], d: _Span, tokens: list[str], clause: list[int]
) -> _Span | None:
    """Subject first ('latency dropped'), then object ('reduced latency');
    determiners only look right ('fewer errors', 'more headcount')."""
    same = [
        s
        for s in spans
        if s.active and s.qty and s is not d and clause[s.start] == clause[d.start] and not s.paired
    ]
    if d.direction > 0 or d.weight <= -1.0:  # a load grows, or takes a system down
        same = [s for s in same if s.text not in _LOAD_FORMS]
    left = [s for s in same if s.end <= d.start and d.start - s.end < DIRECTION_WINDOW]
    if left and d.text not in DETERMINER_DIRECTIONS:
        return max(left, key=lambda s: s.end)
    # an object sits close, never behind a negator ("peaked ... with no errors") or a
    # duration/place preposition ("went down for 2 hours" is an outage, not a drop)
    limit = min(d.end + OBJECT_WINDOW, len(tokens))
    for j in range(d.end, limit):
        if tokens[j] in OBJECT_STOPS or any(s.kind == "neg" and s.start == j for s in spans):
            limit = j
            break
    right = [s for s in same if d.end <= s.start < limit]
    return min(right, key=lambda s: s.start) if right else None


_PAYLOAD_FORMS = frozenset().union(*(_noun_forms(w) for w in PAYLOAD_NOUNS))
_LOAD_FORMS = frozenset().union(*(_noun_forms(w) for w in LOAD_QUANTITIES))
_FILLER = frozenset({"the", "a", "an", "some", "all", "every", "its", "their", "our", "of"})


def _payload_near(d: _Span, tokens: list[str]) -> str | None:
    """'dropped 2% of the requests', 'messages were dropped': a loss, not a decrease."""
    if d.text not in PAYLOAD_DROPS:
        return None
    j = d.end  # object: skip determiners and numbers
    while j < min(d.end + 4, len(tokens)) and (tokens[j] in _FILLER or _NUMBER_RE.match(tokens[j])):
        j += 1
    if j < len(tokens) and tokens[j] in _PAYLOAD_FORMS:
        return tokens[j]
    for j in range(d.start - 1, max(d.start - 3, -1), -1):  # subject: "requests (were) dropped"
        if tokens[j] in _PAYLOAD_FORMS:
            return tokens[j]
    return None


# What may follow a direction word used of its subject: "flakiness dropped to 1%",
# "complaints fell sharply", "outages decreased."; not "the outage dropped traffic"
# (an object) or "the outage fell on a Friday" (when it happened).
# fmt: off
_INTRANSITIVE_NEXT = frozenset({
    "to", "by", "from", "below", "under", "off", "again", "further", "and", "so",
    "after", "since", "until", "once", "because", "when", "but",
})
# fmt: on


def _intransitive(d: _Span, tokens: list[str]) -> bool:
    if d.end >= len(tokens):
        return True
    nxt = tokens[d.end]
    return (
        nxt in BOUNDARY_PUNCT
        or nxt in _INTRANSITIVE_NEXT
        or nxt.endswith("ly")
        or bool(_NUMBER_RE.match(nxt))
    )


def _bad_noun_as_quantity(
    spans: list[_Span], d: _Span, tokens: list[str], clause: list[int]
) -> _Span | None:
    """A bad noun is a more-is-bad quantity for a pure direction word: 'flakiness
    dropped', 'fewer outages', 'reduced flakiness'.  Not for the outage senses of
    'went down' / 'took down' ('a bug took down the API')."""
    if d.weight <= -1.0:
        return None
    bad = [
        s
        for s in spans
        if s.active
        and s.kind == "cue"
        and s.weight < 0
        and not s.paired
        and not s.negated
        and clause[s.start] == clause[d.start]
    ]
    if d.text not in DETERMINER_DIRECTIONS and _intransitive(d, tokens):
        left = [s for s in bad if s.end <= d.start and d.start - s.end <= 2]
        if left:
            return max(left, key=lambda s: s.end)
    if d.weight == 0.0:  # transitive direction verbs and determiners: the object
        right = [s for s in bad if d.end <= s.start < d.end + OBJECT_WINDOW]
        right = [s for s in right if not any(t in OBJECT_STOPS for t in tokens[d.end : s.start])]
        if right:
            return min(right, key=lambda s: s.start)
    return None


def _pair_directions(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'latency dropped' -> good; 'revenue dropped' -> bad; 'went down' alone -> outage."""
    for d in [s for s in spans if s.kind == "dir" and s.active]:
        payload = _payload_near(d, tokens)
        d.kind = "cue"
        if payload:
            d.text, d.weight, d.paired = f"{d.text} {payload}", -1.0, True
            continue
        q = _nearest_quantity(spans, d, tokens, clause) or _bad_noun_as_quantity(
            spans, d, tokens, clause
        )
        if q is None:
            reached = _unit_reached(d, tokens)
            if reached:  # otherwise keep the fallback weight
                d.text = " ".join(tokens[d.start : reached])
                d.weight, d.paired = float(-d.direction), True
            continue
        d.text = f"{q.text} {d.text}" if q.start < d.start else f"{d.text} {q.text}"
        d.weight = float((q.qty or -1) * d.direction)
        d.paired = True  # d.start stays on the direction word: negation scope uses it
        if q.kind in ("cue", "effort"):
            q.active = False  # "errors" in "errors doubled" now lives inside the pair
        elif q.text in _TIME_SPENT:
            _absorb_time_spent_on(spans, d, q, tokens, clause)


_REACHED = frozenset({"to", "by"})
# after an amount, these make it a rate ("went up to 100 MB/s"), which is no cost
_RATE_NEXT = frozenset({"s", "sec", "per", "a", "second"})


def _unit_reached(d: _Span, tokens: list[str]) -> int:
    """'it dropped to 40 ms', 'ballooned to 2 GB', 'doubled by 3 s': with no quantity named, a
    time or a size reached is a cost, more of it bad. Returns where the amount ends, or 0 for
    none or a count or share reached ('grew to 12', 'fell to 2%'), which says nothing."""
    if d.end >= len(tokens) or tokens[d.end] not in _REACHED:
        return 0
    amount = _quantity_at(tokens, d.end + 1)
    if amount is None or amount[0] not in ("t", "b"):
        return 0
    number = _NUMBER_RE.match(tokens[d.end + 1])
    end = d.end + 2 if number and number.group(2) else d.end + 3
    if end < len(tokens) and tokens[end] in _RATE_NEXT:
        return 0
    return end


# "less time (spent) (on) firefighting": the chore is what the time measured
_TIME_SPENT = frozenset({"time", "hours", "minutes"})
_SPENT_ON = frozenset({"spent", "on", "in", "doing"})


def _absorb_time_spent_on(
    spans: list[_Span], d: _Span, q: _Span, tokens: list[str], clause: list[int]
) -> None:
    """'we spent less time firefighting' (+), 'more hours on incidents' (-): the bad chore
    right after a time that grew or shrank is what the time was spent on, told by the
    time, not a second event."""
    j = q.end
    while j < len(tokens) and tokens[j] in _SPENT_ON and j - q.end < 2:
        j += 1
    chore = next((s for s in spans if s.start == j and s.active), None)
    if (
        chore is not None
        and chore.kind == "cue"
        and chore.weight < 0
        and not chore.paired
        and clause[chore.start] == clause[q.start]
    ):
        chore.active = False
        d.governed.append(chore.text)


# "complained (a lot) less (often)": how much a doing was done, not a noun after "less"
_LESS_MODIFIERS = frozenset({"much", "far", "way", "a", "lot", "bit", "little", "slightly", "even"})
_LESS_AFTER = frozenset({"often", "frequently"})


def _apply_done_less(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'customers complained less' (+), 'we got paged much less often' (+), 'it worked less'
    (-), 'customers bought less' (-): a doing done less is the opposite of the doing. Not
    'failed less gracefully', where "less" grades a manner."""
    for d in [s for s in spans if s.kind == "dir" and s.active and s.text == "less"]:
        nxt = tokens[d.end] if d.end < len(tokens) else ""
        frequency = nxt in _LESS_AFTER
        if nxt.endswith("ly") and not frequency:
            continue
        j = d.start
        while j > 0 and tokens[j - 1] in _LESS_MODIFIERS:
            j -= 1
        done = next(
            (
                s
                for s in spans
                if s.end == j
                and s.active
                and ((s.kind == "cue" and s.weight) or s.kind == "absent")
                and not s.negated
                and clause[s.start] == clause[d.start]
            ),
            None,
        )
        if done is not None:
            _negate(done, "")
            done.text, done.end = " ".join(tokens[done.start : d.end]), d.end
            done.paired, d.active = True, False
        elif frequency:
            _pair_how_often(spans, d, tokens, clause)


_BUSINESS_FORMS = frozenset().union(*(_forms(w) for w in BUSINESS_DOINGS))
# What may follow "more" told of how much a doing was done, not of its object ("bought more
# disks") nor of a manner ("ran more slowly"): "customers bought more", "complained more about
# latency", "went off more often".
_MORE_AFTER = (
    _LESS_AFTER
    | OBJECT_STOPS
    | NEGATION_STOPS
    | BOUNDARY_PUNCT
    | {"than", "about", "in", "this", "last", "again", "overall", "today", "yesterday", "now"}
)


def _apply_done_more(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'customers bought more' (+), 'users complained more' (-), 'the pager went off more
    often' (-): a doing done more has the doing's sign, and what customers do for a business,
    no verdict when only said, is good done more."""
    for d in [s for s in spans if s.kind == "dir" and s.active and s.text == "more"]:
        nxt = tokens[d.end] if d.end < len(tokens) else "."
        if nxt not in _MORE_AFTER:
            continue
        j = d.start
        while j > 0 and tokens[j - 1] in _LESS_MODIFIERS:
            j -= 1
        done = next(
            (
                s
                for s in spans
                if s.end == j
                and s.active
                and not s.negated
                and clause[s.start] == clause[d.start]
                and (
                    (s.kind == "cue" and s.weight)
                    or (s.kind == "absent" and s.text in _BUSINESS_FORMS)
                )
            ),
            None,
        )
        if done is not None:
            if done.kind == "absent":
                done.kind, done.weight = "cue", 1.0
            done.text, done.end = " ".join(tokens[done.start : d.end]), d.end
            done.paired, d.active = True, False
        elif nxt in _LESS_AFTER:
            _pair_how_often(spans, d, tokens, clause)


def _pair_how_often(spans: list[_Span], d: _Span, tokens: list[str], clause: list[int]) -> None:
    """'the pager went off less often' (+), 'payments came in less often' (-): whatever verb
    tells it happening, the subject happened less, like 'fewer pages'; and 'more often' more,
    like 'more pages'."""
    subjects = [
        s
        for s in spans
        if s.active
        and not s.negated
        and not s.paired
        and ((s.kind == "cue" and s.weight) or s.kind == "qty")
        and s.end <= d.start
        and d.start - s.end < DIRECTION_WINDOW
        and clause[s.start] == clause[d.start]
        and not any(t in NEGATION_STOPS for t in tokens[s.end : d.start])
        and not any(n.kind == "neg" and s.end <= n.start < d.start for n in spans)
    ]
    if not subjects:
        return
    q = max(subjects, key=lambda s: s.end)
    more_is_good = q.qty or (1 if q.weight > 0 else -1)
    d.kind, d.weight, d.paired = "cue", float(more_is_good * d.direction), True
    d.text = f"{q.text} {d.text} {tokens[d.end]}"
    if q.kind == "cue":
        q.active = False
    else:
        q.paired = True


_COMPLAINED = re.compile(r"complain")
_TOPIC_OF = frozenset({"about", "of", "over"})


def _apply_complaint_topics(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'complained less about slow checkout': the slowness is what the complaints were about,
    told by them, not a second event."""
    for c in [s for s in spans if s.active and s.kind == "cue" and _COMPLAINED.match(s.text)]:
        if c.end >= len(tokens) or tokens[c.end] not in _TOPIC_OF:
            continue
        topic = next((s for s in spans if s.start > c.end and s.active), None)
        if (
            topic is not None
            and topic.kind == "cue"
            and topic.weight < 0
            and topic.start - c.end <= OBJECT_WINDOW
            and clause[topic.start] == clause[c.start]
        ):
            topic.active = False
            c.governed.append(topic.text)


def _apply_fewer_doers(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'fewer customers renewed' (-), 'fewer users complained' (+), 'fewer tests pass' (-):
    "fewer" or "less" left unpaired counts who did it, so the doing after it is reduced."""
    for d in spans:
        if not (d.active and d.text in ("fewer", "less") and d.kind == "cue" and not d.paired):
            continue
        near = [s for s in spans if s.active and 0 <= s.start - d.end <= 3]
        # "fewer tests pass": the doing, not a doer that names a capability ("tests")
        done = next((s for s in near if s.kind == "cue"), None) or next(
            (s for s in near if s.kind == "absent"), None
        )
        if (
            done is None
            or done.paired
            or done.negated
            or not (done.weight or done.kind == "absent")
            or clause[done.start] != clause[d.start]
            or any(t in OBJECT_STOPS or t in NEGATION_STOPS for t in tokens[d.end : done.start])
        ):
            continue
        _negate(done, "")
        done.text = " ".join(tokens[d.start : done.end])
        done.paired = d.paired = True


# "the crashes (finally) stopped", "signups stopped after the redesign": what stopped is the
# subject, and "stopped" takes no object
_STOPPED_BETWEEN = frozenset(
    {"have", "has", "had", "finally", "eventually", "just", "all", "completely", "mostly",
     "almost", "suddenly", "basically", "then"}
)  # fmt: skip
_STOPPED_NEXT = frozenset(
    {"yesterday", "today", "overnight", "altogether", "now", "soon", "for", "within", "once", "at"}
)


# Tickets told by how many came in are customer pain: "40 support tickets from customers", "we
# got a flood of tickets", "customers filed 40 tickets". Not tickets the team wrote or worked
# ("we closed 40 tickets", "Ben opened 3 tickets for the cleanup"), nor a count with a direction
# ("tickets dropped", which the quantity rules read), nor tickets with no sign they came in
# ("the sprint has 12 tickets").
_MANY_OF = frozenset(
    {"flood", "wave", "deluge", "barrage", "torrent", "spate", "avalanche", "surge", "influx",
     "stream", "dozens", "hundreds", "thousands", "scores"}
)  # fmt: skip
_BY_CUSTOMERS = frozenset(
    {"support", "customer", "customers", "user", "users", "client", "clients", "helpdesk",
     "merchant", "merchants", "angry", "urgent"}
)  # fmt: skip
_CAME_IN = frozenset().union(
    *(_forms(w) for w in ("get", "receive", "come", "pour", "flood", "roll", "=got", "=came"))
)
_FILED_BY_THEM = frozenset().union(
    *(_forms(w) for w in ("file", "open", "raise", "submit", "send", "log", "=sent"))
)
_TICKET_WORK = _FILED_BY_THEM | frozenset().union(
    *(_forms(w) for w in ("close", "resolve", "triage", "answer", "handle", "clear", "fix",
                          "assign", "review", "process", "groom", "create", "write", "=wrote",
                          "=written", "merge", "burn", "work"))
)  # fmt: skip
TICKETS_CAME_IN = -1.0


def _counted_tickets(tokens: list[str], i: int) -> bool:
    """'40 tickets', '40 new support tickets', 'a flood of tickets', 'dozens of tickets'."""
    for k in range(i - 1, max(i - 4, -1), -1):
        word = tokens[k]
        if _is_boundary(word):
            return False
        number = _NUMBER_RE.match(word)
        if (number is not None and not number[2]) or word in _MANY_OF:
            return True
    return False


def _tickets_came_in(tokens: list[str], spans: list[_Span], clause: list[int]) -> list[_Span]:
    """A bad cue for each count of tickets that came in (see _BY_CUSTOMERS, _CAME_IN)."""
    if any(s.kind == "dir" for s in spans):
        return []
    out = []
    for i, token in enumerate(tokens):
        if token != "tickets" or not _counted_tickets(tokens, i):
            continue
        said = [k for k in range(len(tokens)) if clause[k] == clause[i]]
        words = [tokens[k] for k in said]
        by_them = any(w in _BY_CUSTOMERS for w in words)
        work = [w for w in words if w in _TICKET_WORK]
        if work and not (by_them and all(w in _FILED_BY_THEM for w in work)):
            continue
        came_in = any(w in _CAME_IN for w in words) or any(
            tokens[k] in _MANY_OF for k in range(max(i - 4, 0), i)
        )
        if by_them or came_in:
            out.append(_Span(i, i + 1, token, "cue", TICKETS_CAME_IN))
    return out


def _apply_stopped(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'the errors stopped' (+): a bad thing ended; 'signups stopped' (-): a good quantity
    did. Not 'the outage stopped the deploy', whose "stopped" has an object."""
    for stop in [s for s in spans if s.kind == "neg" and s.text in ("stop", "stops", "stopped")]:
        nxt = tokens[stop.end] if stop.end < len(tokens) else ""
        if not (_intransitive(stop, tokens) or nxt in _STOPPED_NEXT):
            continue
        j = stop.start
        while j > 0 and tokens[j - 1] in _STOPPED_BETWEEN and stop.start - j < 2:
            j -= 1
        what = next(
            (
                s
                for s in spans
                if s.end == j
                and s.active
                and not s.negated
                and not s.paired
                and clause[s.start] == clause[stop.start]
                and ((s.kind == "cue" and s.weight < 0) or (s.kind == "qty" and s.qty > 0))
            ),
            None,
        )
        if what is None:
            continue
        if what.kind == "cue":
            _negate(what, "")
        else:
            what.kind, what.weight = "cue", -1.0
        what.text = f"{what.text} {stop.text}"
        what.paired, stop.active = True, False


_KEEP_STOPS = OBJECT_STOPS - {"of", "on"}


def _pair_holds(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'held a 99% hit rate', 'kept 98% of quality', 'met the SLO' -> good (a good
    quantity was kept); 'storage stayed flat' -> good (a cost did not grow).  The
    other pairings ('kept latency at 200ms', 'throughput was flat') are no verdict."""
    for h in [s for s in spans if s.kind in ("keep", "steady") and s.active]:
        same = [
            s
            for s in spans
            if s.active
            and s.qty
            and not s.paired
            and s is not h
            and clause[s.start] == clause[h.start]
        ]
        limit = min(h.end + OBJECT_WINDOW, len(tokens))
        stops = _KEEP_STOPS if h.kind == "keep" else OBJECT_STOPS
        for j in range(h.end, limit):
            if tokens[j] in stops:
                limit = j
                break
        right = [s for s in same if h.end <= s.start < limit]
        left = [s for s in same if s.end <= h.start and h.start - s.end < DIRECTION_WINDOW]
        if h.kind == "keep":  # transitive: the object first
            q = min(right, key=lambda s: s.start) if right else None
            q = q or (max(left, key=lambda s: s.end) if left else None)
            wanted = +1
        else:  # "storage stayed flat", then "kept flat storage use"
            q = max(left, key=lambda s: s.end) if left else None
            q = q or (min(right, key=lambda s: s.start) if right else None)
            wanted = -1
        if q is None or q.qty != wanted:
            h.active = False
            continue
        h.kind, h.weight, h.paired = "cue", 1.0, True
        h.text = f"{q.text} {h.text}" if q.start < h.start else f"{h.text} {q.text}"
        if q.kind == "cue":
            q.active = False
        else:
            q.paired = True


def _apply_free_compounds(spans: list[_Span], tokens: list[str]) -> None:
    """'incident-free', 'error free', 'hassle-free': the bad noun is absent."""
    for s in spans:
        if (
            s.active
            and s.kind == "cue"
            and s.weight < 0
            and s.end < len(tokens)
            and tokens[s.end] == "free"
        ):
            _negate(s, "")
            s.text = f"{s.text} free"


def _apply_negation(spans: list[_Span], tokens: list[str]) -> None:
    """'no data loss' (+), 'not stable' (-), 'backups hadn't run' (-)."""
    for neg in [s for s in spans if s.kind == "neg" and s.active]:
        stop = neg.end
        while stop < len(tokens) and stop - neg.end < NEGATION_SCOPE:
            if tokens[stop] in BOUNDARY_PUNCT or tokens[stop] in NEGATION_STOPS:
                break
            stop += 1
        in_scope = [
            s
            for s in spans
            if s.active and not s.negated and neg.end <= s.start < stop and s.kind in _POLAR
        ]
        real = [s for s in in_scope if s.kind not in ("absent", "effort")]
        if real and real[0].kind in ("fix", "resolve", "recur"):
            real = real[:1]  # "didn't resolve the outage": the fix failed, the outage stays
        # absent-is-bad words and effort only count when nothing more specific is negated
        # ("we never finished the setup" is bad)
        for s in real or in_scope:
            _negate(s, neg.text)


def _negate(s: _Span, negator: str) -> None:
    if s.kind == "recur":  # "the errors did not come back": a resolution
        s.kind, s.weight, s.negated, s.prefix = "resolve", 1.0, True, negator
        return
    if s.kind == "absent":
        s.weight = -1.0
    elif s.kind == "effort":
        s.weight = EFFORT_ABSENT
    elif s.weight < 0:
        s.weight = -s.weight * NEGATED_BAD_FACTOR
    else:
        s.weight = -s.weight
    s.kind = "cue" if s.kind in ("fix", "resolve", "absent") else s.kind
    s.negated = True
    s.prefix = negator


_RETURNER_FORMS = frozenset().union(*(_noun_forms(w) for w in RETURNING_DOERS))
# between who came back and the verb: "visitors are back", "the users have finally returned",
# "customers did not come back"
_RETURN_BETWEEN = frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "did", "not", "never", "finally",
     "eventually", "slowly"}
)  # fmt: skip


def _returner(r: _Span, tokens: list[str]) -> str | None:
    """Who came back when it is good for a business: 'customers came back', 'the users
    returned after the fix'. Not 'the users returned the devices', which has an object."""
    j = r.start - 1
    while j >= 0 and tokens[j] in _RETURN_BETWEEN:
        j -= 1
    if j < 0 or tokens[j] not in _RETURNER_FORMS:
        return None
    nxt = tokens[r.end] if r.end < len(tokens) else "."
    if "back" not in r.text and not (_intransitive(r, tokens) or nxt in OBJECT_STOPS):
        return None
    return tokens[j]


def _apply_recurrence(spans: list[_Span], tokens: list[str], clause: list[int]) -> None:
    """'the errors came back' (-), 'got its free space back' (+), 'the traffic came back' (+),
    'customers came back' (+), 'it returned' (0); 'customers never came back' (-), as
    'the errors did not come back' (+, a resolution) is. A recurring problem outlives any
    fix earlier in its clause ('the leak we patched came back'), so the fix and the noun
    are taken out of the fix rule."""
    # a negated recurrence is a resolution by now (`_negate`)
    returns = [
        s for s in spans if s.active and (s.kind == "recur" or (s.kind == "resolve" and s.negated))
    ]
    for r in returns:
        same = [
            s
            for s in spans
            if s.active
            and s is not r
            and clause[s.start] == clause[r.start]
            and (0 <= r.start - s.end < RECURRENCE_WINDOW or 0 <= s.start - r.end < OBJECT_WINDOW)
        ]
        bad = [s for s in same if s.kind == "cue" and s.weight < 0 and not s.negated]
        # a load after the verb is what it came back under, not what came back ("the memory
        # pressure came back as soon as traffic picked up")
        good_qty = [
            s
            for s in same
            if s.qty > 0
            and not s.paired
            and s.kind == "qty"
            and (s.end <= r.start or s.text not in _LOAD_FORMS)
        ]
        returner = _returner(r, tokens)
        if r.kind == "resolve":
            if not bad and (good_qty or returner):  # a good thing lost, not a problem gone
                r.kind, r.weight = "cue", -1.0
                if good_qty:
                    good_qty[0].paired = True
                r.governed.append(good_qty[0].text if good_qty else returner)
        elif bad:
            r.weight = min(r.weight, -0.5)
            r.governed.extend(s.text for s in bad)
            for s in bad:
                s.paired = True  # belongs to the recurrence, not to a fix
            for f in spans:
                if f.kind == "fix" and f.start < r.start and clause[f.start] == clause[r.start]:
                    f.active = False
        elif good_qty:
            q = good_qty[0]
            r.weight, q.paired = 1.0, True
            r.governed.append(q.text)
        elif returner:
            r.weight = 1.0
            r.governed.append(returner)
        elif not r.weight:
            r.active = False


def _apply_again(spans: list[_Span], clause: list[int]) -> None:
    """'broke again' x1.5, 'green again' x1.5: the nearest polar cue before 'again'."""
    for a in (s for s in spans if s.kind == "again"):
        before = [
            s
            for s in spans
            if s.active
            and s.weight
            and s.kind in _SCORING
            and s.end <= a.start
            and clause[s.start] == clause[a.start]
        ]
        if before:
            max(before, key=lambda s: s.end).weight *= INTENSIFY


def _apply_fixes(spans: list[_Span], clause: list[int]) -> None:
    """'fixed the leak', 'incident resolved': the bad noun is what got fixed."""
    for fix in [s for s in spans if s.active and s.kind in ("fix", "resolve", "topic_verb")]:
        for s in spans:
            if (
                s.active
                and s.kind == "cue"
                and s.weight < 0
                and not s.negated
                and not s.paired
                and clause[s.start] == clause[fix.start]
            ):
                s.active = False
                fix.governed.append(s.text)
        if fix.kind == "resolve" and not fix.governed:
            fix.weight = 0.0  # "gone" with nothing bad before it says nothing
        if fix.kind == "topic_verb":
            fix.active = False


def _apply_circumstance(spans: list[_Span], tokens: list[str]) -> None:
    """'failover worked during the outage': the PP is background."""
    for marker in (s for s in spans if s.kind == "circum"):
        stop = marker.end
        while (
            stop < len(tokens)
            and tokens[stop] not in BOUNDARY_PUNCT
            and tokens[stop] not in NEGATION_STOPS
        ):
            stop += 1
        for s in spans:
            if marker.end <= s.start < stop:
                s.weight *= CIRCUMSTANCE_DAMPING


def _apply_intensity(spans: list[_Span], clause: list[int]) -> None:
    """'far longer' x1.5, 'slightly slower' x0.5 (first polar cue within 2 words)."""
    for mod in (s for s in spans if s.kind in ("intens", "dimin")):
        factor = INTENSIFY if mod.kind == "intens" else DIMINISH
        for s in spans:
            if (
                s.active
                and s.weight
                and s.start >= mod.end
                and s.start - mod.end <= 2
                and clause[s.start] == clause[mod.start]
            ):
                s.weight *= factor
                break


def _apply_ease_told_in_passing(spans: list[_Span]) -> None:
    """'errors spiked within seconds', 'without any config the service crashed': a quick pace
    or a chore not needed is how the bad thing beside it came, not a good of its own. A quick
    pace beside any other verdict is told by that verdict ('finished in seconds')."""
    for e in [s for s in spans if s.kind in ("pace", "effort") and s.weight > 0 and s.active]:
        others = [s for s in spans if s is not e and s.active and s.kind in _SCORING]
        if any(s.weight < 0 or (e.kind == "pace" and s.weight) for s in others):
            e.active = False


_CRAWLS = frozenset({"crawled", "crawls", "crawling"})
_CRAWL_NEXT = BOUNDARY_PUNCT | NEGATION_STOPS | {"under", "along", "through", "during", "for",
                                                 "all", "to", "again", "now", "today"}  # fmt: skip


def _apply_transitive_crawl(spans: list[_Span], tokens: list[str]) -> None:
    """'the dashboard crawled (under load)' is slow; 'the crawler crawled 2M pages' has an
    object and says nothing."""
    for s in spans:
        if s.active and s.text in _CRAWLS and s.end < len(tokens):
            nxt = tokens[s.end]
            if nxt not in _CRAWL_NEXT and not nxt.endswith("ly"):
                s.active = False


def _apply_neutral_markers(spans: list[_Span]) -> None:
    """'results were mixed: ...' damps its whole sentence."""
    if any(s.kind == "neutral" for s in spans):
        for s in spans:
            s.weight *= NEUTRAL_DAMPING


def _progressive_fix(spans: list[_Span], tokens: list[str]) -> None:
    """'restoring from backup' is not done yet: half credit."""
    for s in spans:
        if s.kind == "fix" and tokens[s.end - 1].endswith("ing"):
            s.weight *= 0.5


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def _sentences(tokens: list[str]) -> list[list[str]]:
    """Every rule is scoped to a sentence, so each is scored on its own; this keeps
    long pasted logs linear.  A 'sentence' longer than MAX_SENTENCE is split."""
    out: list[list[str]] = [[]]
    for token in tokens:
        if len(out[-1]) >= MAX_SENTENCE:
            out.append([])
        out[-1].append(token)
        if token in SEGMENT_PUNCT:
            out.append([])
    return [sentence for sentence in out if sentence]


def _apply_person_away(spans: list[_Span], tokens: list[str], people: frozenset[str]) -> None:
    """'Ben was offline all weekend', 'I went offline': a person away, not a system down ('The
    API was offline' is). Who is a person: a pronoun, a role, or one of `people`."""
    for s in spans:
        if s.kind == "cue" and "offline" in s.text.split():
            subject = tokens[s.start - 1] if s.start else ""
            if subject in PERSON_SUBJECTS or subject in people:
                s.active = False


def _sentence_spans(tokens: list[str], people: frozenset[str]) -> list[_Span]:
    """Lexicon hits of one sentence after all context rules, in order."""
    clause = _clause_ids(tokens)
    spans = _find_spans(tokens)
    spans = sorted([*spans, *_tickets_came_in(tokens, spans, clause)], key=lambda s: s.start)
    _drop_meta_uses(spans, tokens)
    _apply_transitive_crawl(spans, tokens)
    _apply_irrealis(spans, tokens, clause)
    _apply_person_away(spans, tokens, people)
    _progressive_fix(spans, tokens)
    _apply_free_compounds(spans, tokens)
    _apply_done_less(spans, tokens, clause)
    _apply_done_more(spans, tokens, clause)
    _apply_stopped(spans, tokens, clause)
    _pair_directions(spans, tokens, clause)
    _apply_fewer_doers(spans, tokens, clause)
    _apply_complaint_topics(spans, tokens, clause)
    _pair_holds(spans, tokens, clause)
    _apply_negation(spans, tokens)
    _apply_recurrence(spans, tokens, clause)
    _apply_fixes(spans, clause)
    _apply_circumstance(spans, tokens)
    _apply_intensity(spans, clause)
    _apply_again(spans, clause)
    _apply_feared_ability(spans, tokens, clause)
    spans = sorted([*spans, *_ability_won(spans, tokens, clause)], key=lambda s: s.start)
    _apply_ease_told_in_passing(spans)
    _apply_neutral_markers(spans)
    return spans


def outcome_polarity(text: str, people: Collection[str] = ()) -> Polarity:
    """Score an outcome description: <0 bad, >0 good, 0 neutral. A pronoun's antecedent counts
    only when the rest gives no verdict: "It (the site went down) lasted three hours" is bad.
    `people`: names the caller knows are people ("Ben was offline all weekend" is no outage)."""
    known = frozenset(w for name in people for w in _tokenize(name))
    # What a pronoun stood for ("It (we rolled back the deploy) was the right call") is no
    # verdict of its own: it counts only when the rest gives none.
    bare = told(text)
    if bare != text:
        verdict = _score(bare, known)
        if verdict.label != "neutral":
            return verdict
    return _score(text, known)


def _score(text: str, people: frozenset[str]) -> Polarity:
    spans = [
        s for sentence in _sentences(_tokenize(text)) for s in _sentence_spans(sentence, people)
    ]
    scoring = [s for s in spans if s.active and s.kind in _SCORING]
    raw = sum(s.weight for s in scoring)
    cues = [s.cue for s in scoring if s.weight]
    cues += [s.text for s in spans if s.kind == "neutral"]
    cues_t = tuple(dict.fromkeys(cues))
    if abs(raw) < NEUTRAL_BAND:
        return Polarity(0.0, "neutral", cues_t)
    score = max(-1.0, min(1.0, math.tanh(raw / 2)))
    return Polarity(score, "positive" if score > 0 else "negative", cues_t)
