"""Which recorded lessons answer a causal question: the thing the question names, the action
it describes, and what that action led to."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ebbtide import causal
from ebbtide.polarity import outcome_polarity
from ebbtide.text import containment, names, terms


def test_a_question_about_one_product_prefers_its_lessons_over_look_alikes_elsewhere(memory):
    memory.record_decision(
        "Ben removed the size cap on the Caelum emails queue",
        "Caelum emails crashed out of memory",
        task_tag="caelum-emails",
    )
    for what in ("docs site", "billing page", "search index", "login form", "CDN config"):
        memory.record_decision(
            f"Ana rebuilt the Caelum {what}", f"the Caelum {what} loads faster", task_tag="caelum"
        )
    for product in ("Volans", "Regulus"):  # the same failure words, another product
        memory.record_decision(
            f"Ana lifted the {product} jobs queue cap",
            f"{product} jobs workers ran out of memory",
            task_tag=product.lower(),
        )
    hits = memory.search_causal(query="Caelum jobs workers out of memory", limit=5).hits
    assert hits[0].lesson.decision == "Ben removed the size cap on the Caelum emails queue"


def test_names_are_capitalised_words_that_are_not_function_words():
    assert names("Why did Acme escalate the Orion outage?") == terms("acme orion")
    assert names("how to fix it") == set()


def test_an_action_on_another_product_is_not_the_action_asked_about(memory):
    memory.record_decision(
        "Wen set the Scutum analytics log level to info",
        "Scutum analytics storage stayed flat after that",
    )
    memory.record_decision(
        "Eli set up log rotation on Scutum analytics", "Scutum analytics ran out of disk space",
        "prevented",
    )  # fmt: skip
    memory.record_decision(
        "Jonas switched Pictor reporting production logging to info level",
        "Pictor reporting storage use stayed flat for a month",
    )
    result = memory.intervention_query("switch Scutum analytics logging to info")
    assert [n.text for n in result.matched] == ["Wen set the Scutum analytics log level to info"]
    assert result.verdict == "SAFE"


def test_an_action_is_found_even_when_outcomes_with_the_same_words_match_better(memory):
    memory.record_decision("Regulus jobs ran out of memory", "Umbrella escalated a sev-1")
    for n in range(6):  # outcomes that name the failure better but led nowhere recorded
        memory.record_decision(
            f"Change {n} to the Regulus jobs workers", f"Regulus jobs ran out of memory, take {n}"
        )
    result = memory.intervention_query("Regulus jobs out of memory")
    assert any(c.node.text == "Umbrella escalated a sev-1" for c in result.consequences)


def test_an_event_told_in_other_words_is_matched_by_any_of_its_wordings(memory, clock):
    first = {"speaker": "Lena", "text": "Priya turned off the pool limits on Nimbus checkout, "
             "and as a result Nimbus checkout exhausted its database connections."}  # fmt: skip
    memory.remember(messages=[first], date=clock().isoformat(), task_tag="t")
    clock.advance(days=1)
    second = {"speaker": "Lena", "text": "Acme opened a sev-1 ticket about Nimbus checkout "
              "because the Nimbus checkout database ran out of connections."}  # fmt: skip
    memory.remember(messages=[second], date=clock().isoformat(), task_tag="t")
    causes = memory.trace_cause("the Nimbus checkout database ran out of connections").causes
    assert causes[0].lesson.decision.startswith("Priya turned off the pool limits")


def test_a_table_lock_or_a_lock_wait_is_a_bad_outcome():
    assert outcome_polarity("writes waited on a table lock").score < 0
    assert outcome_polarity("queries piled up in lock waits").score < 0


def test_a_verb_meets_its_ing_and_ed_forms_when_texts_are_compared():
    assert terms("caching") == terms("cache") == {"cach"}
    assert terms("the certificate expired") == terms("certificates expire")
    assert containment("give every cache key the same TTL", "Ana switched caching to one TTL")


def test_an_action_asked_in_another_inflection_is_found(memory):
    memory.record_decision(
        "Ana switched Bootes listings caching to a single shared TTL",
        "a cache stampede took the Bootes listings origin down",
    )
    result = memory.intervention_query("give every Bootes listings cache key the same TTL")
    assert result.verdict == "DANGER"


def test_a_problem_back_again_after_a_fix_supersedes_the_fix_that_seemed_to_work(memory, clock):
    memory.record_decision("Hana killed the stuck migration", "writes resumed at once")
    clock.advance(days=7)
    memory.record_decision(
        "Hana killed the stuck migration", "another migration held the lock again"
    )
    updates = memory.resolve_updates(apply=True).updates
    assert [u.old.outcome for u in updates] == ["writes resumed at once"]


def test_a_question_verb_weighs_as_rare_as_all_its_inflections(memory):
    for what in ("a cron job", "an index", "a cache", "a replica", "a queue"):
        memory.record_decision(f"Kai added {what} to Centaurus", f"Centaurus got {what}")
    memory.record_decision("Dario enforced session quotas", "Centaurus stayed up")
    weight = causal.rarity(memory._ctx())
    # the index stems "added" apart from "add"; the weight must not take "add" for unseen
    assert weight("add") == weight("added") == weight("adding") < weight("quotas")


@given(st.sets(st.sampled_from("abcdef"), min_size=1), st.sets(st.sampled_from("abcdefgh")))
def test_an_answer_keeps_more_of_its_score_the_more_asked_names_it_holds(asked, held):
    share = causal.name_share(asked, held)
    assert causal.NAME_MISS <= share <= 1.0
    assert causal.name_share(asked, held | asked) == 1.0
    assert causal.name_share(asked, held - asked) == causal.NAME_MISS
    assert causal.name_share(set(), held) == 1.0
