"""A prediction is settled by a lesson that stands: when the lesson that settled it is
retracted, superseded, forgotten or drawn from words since edited, the prediction is settled by
the next outcome that still stands, or is open again, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from ebbtide import open_memory

ACTION = "Skipped the load test before the sale"


@pytest.fixture
def memory(store_url, clock):
    with open_memory(store_url(), clock=clock, embeddings="none") as mem:
        yield mem


@pytest.fixture
def asked(memory, clock):
    """An outage was recorded after skipping the load test; an agent asks whether to skip it
    again, and is told DANGER."""
    memory.record_decision(ACTION, "Checkout outage on Saturday")
    clock.advance(hours=1)
    result = memory.intervention_query("skip the load test before the sale")
    assert result.verdict == "DANGER"
    clock.advance(hours=1)
    return result.prediction_id


def prediction(memory, pid):
    (item,) = [i for i in memory.prediction_report().items if i.prediction_id == pid]
    return item


def test_a_prediction_settled_by_a_retracted_lesson_is_open_again(memory, asked):
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    assert prediction(memory, asked).status == "correct"
    memory.invalidate_decision(seen.edge.id, "the outage had another cause")
    item = prediction(memory, asked)
    assert (item.status, item.observed, item.resolved_at) == ("open", None, None)
    report = memory.prediction_report()
    assert report.resolved == 0 and report.accuracy is None
    stored = memory.get(asked).attributes  # the record itself, as exported, says so too
    assert stored["status"] == "open" and "observed" not in stored


def test_a_prediction_is_settled_by_the_next_outcome_that_still_stands(memory, clock, asked):
    first = memory.record_decision(ACTION, "Another outage in checkout")
    clock.advance(hours=1)
    memory.record_decision(ACTION, "Release went smoothly and stayed stable")
    assert prediction(memory, asked).observed == "Another outage in checkout"
    memory.invalidate_decision(first.edge.id, "measured wrongly")
    item = prediction(memory, asked)
    assert item.status == "wrong"  # DANGER was predicted; what stands went well
    assert item.observed == "Release went smoothly and stayed stable"
    assert item.resolved_at == clock()


def test_a_prediction_settled_by_a_superseded_lesson_follows_the_newer_outcome(
    memory, clock, asked
):
    memory.record_decision(ACTION, "Checkout held up fine")
    assert prediction(memory, asked).status == "wrong"
    clock.advance(days=3)
    memory.record_decision(ACTION, "The site went down during the promo")
    memory.resolve_updates(apply=True)
    item = prediction(memory, asked)
    assert (item.status, item.observed) == ("correct", "The site went down during the promo")


@pytest.mark.parametrize("keep", ["reject", "pin"])
def test_a_prediction_settled_by_a_forgotten_outcome_is_open_until_a_person_keeps_it(
    memory, asked, keep
):
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    memory.forget(seen.outcome.id, "recorded by mistake")
    assert prediction(memory, asked).status == "open"
    getattr(memory, keep)(seen.outcome.id)
    assert prediction(memory, asked).status == "correct"


def test_a_prediction_settled_by_an_outcome_a_person_deleted_after_it_decayed_is_open(
    memory, clock, asked
):
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    clock.advance(days=400)
    memory.remember("The on-call rota moved to Mondays")  # in use, while the rest fades
    memory.maintain()
    assert seen.outcome.id in {i.node.id for i in memory.review_queue().items}
    assert prediction(memory, asked).status == "correct"  # faded, not gone: it still holds
    memory.approve(seen.outcome.id)
    assert prediction(memory, asked).status == "open"


def test_a_forgotten_outcome_told_again_settles_its_prediction_again(memory, asked):
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    memory.forget(seen.outcome.id)
    assert prediction(memory, asked).status == "open"
    memory.remember("Another outage in checkout", "outcome")
    assert prediction(memory, asked).status == "correct"


def test_a_forgotten_outcome_recorded_again_settles_its_prediction_and_leaves_the_queue(
    memory, clock, asked
):
    """Seen again, what was asked to be forgotten is in use, as when it is told again: the
    episode just recorded is not hidden with it, nor deleted when the old request is approved."""
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    memory.forget(seen.outcome.id, "recorded by mistake")
    clock.advance(hours=1)
    again = memory.record_decision(ACTION, "Another outage in checkout")
    assert again.outcome.id == seen.outcome.id
    assert prediction(memory, asked).status == "correct"
    assert memory.get(seen.outcome.id).status == "active"
    assert memory.review_queue().items == []
    causes = memory.trace_cause("another outage in checkout").causes
    assert ACTION in [c.lesson.decision for c in causes]


def test_a_prediction_settled_by_words_since_edited_is_open_again(memory, asked):
    said = {"id": "d1", "speaker": "Ana", "time": "2026-03-02T11:30:00Z"}
    told = "We skipped the load test before the sale, so the payment page timed out."
    memory.remember(messages=[{**said, "text": told}])
    assert prediction(memory, asked).status == "correct"
    edited = "We ran the load test before the sale, and the payment page held up."
    memory.remember(messages=[{**said, "text": edited}])
    assert prediction(memory, asked).status == "open"


def test_a_prediction_settled_by_a_recorded_lesson_stays_so_when_words_retelling_it_are_edited(
    memory, clock
):
    memory.record_decision("Skipped the load test before the promo", "Checkout crashed")
    pid = memory.intervention_query("skip the load test before the promo").prediction_id
    clock.advance(hours=1)
    said = {"id": "d1", "speaker": "Ana", "time": "2026-03-02T10:30:00Z"}
    told = "We skipped the load test before the promo, so checkout crashed."
    memory.remember(messages=[{**said, "text": told}])
    assert prediction(memory, pid).status == "correct"
    edited = "We ran the load test before the promo, and checkout held up."
    memory.remember(messages=[{**said, "text": edited}])
    assert prediction(memory, pid).status == "correct", "record_decision still says it"


def test_a_prediction_settled_before_episodes_were_kept_stays_as_it_was(memory, asked):
    node = memory.get(asked)  # as an earlier version settled it, naming no lesson
    legacy = {k: v for k, v in node.attributes.items() if k != "episodes"}
    legacy |= {"status": "correct", "observed": "An outage", "resolved_at": "2026-03-02T10:00Z"}
    memory.store.update_node(node.model_copy(update={"attributes": legacy}))
    seen = memory.record_decision(ACTION, "Release went smoothly and stayed stable")
    memory.invalidate_decision(seen.edge.id)
    item = prediction(memory, asked)
    assert (item.status, item.observed) == ("correct", "An outage")


def figures(report):
    return report.total, report.resolved, report.correct, report.accuracy


def read_every_prediction(memory):
    """The report's figures as an earlier ebbtide computed them: from every prediction read."""
    statuses = [n.attributes["status"] for n in memory.store.iter_nodes() if n.kind == "prediction"]
    resolved = [s for s in statuses if s != "open"]
    correct = resolved.count("correct")
    return len(statuses), len(resolved), correct, correct / len(resolved) if resolved else None


def test_the_report_counts_every_prediction_as_it_is_settled_reopened_forgotten_and_deleted(
    memory, clock, asked
):
    again = memory.intervention_query("skip the load test before the sale").prediction_id
    clock.advance(hours=1)
    seen = []

    def counted():
        report = memory.prediction_report()
        assert figures(report) == read_every_prediction(memory)
        seen.append(figures(report))
        return report

    counted()
    fine = memory.record_decision(ACTION, "Checkout held up fine")  # DANGER was wrong
    counted()
    memory.invalidate_decision(fine.edge.id, "measured wrongly")  # both open again
    outage = memory.record_decision(ACTION, "Another outage in checkout")
    counted()
    memory.forget(outage.outcome.id, "recorded by mistake")  # open until a person keeps it
    counted()
    memory.reject(outage.outcome.id)
    counted()
    memory.unpin(again)
    memory.forget(again, "asked by mistake")
    memory.approve(again)  # the prediction itself deleted
    report = counted()
    assert seen == [
        (2, 0, 0, None),
        (2, 2, 0, 0.0),
        (2, 2, 2, 1.0),
        (2, 0, 0, None),
        (2, 2, 2, 1.0),
        (1, 1, 1, 1.0),
    ]
    assert [i.prediction_id for i in report.items] == [asked]


def test_the_report_lists_the_latest_predictions_oldest_first_even_when_made_at_once(memory):
    """A frozen clock makes every prediction at the same instant: the latest are the last
    logged."""
    memory.record_decision(ACTION, "Checkout outage on Saturday")
    asked = [
        memory.intervention_query("skip the load test before the sale").prediction_id
        for _ in range(5)
    ]
    report = memory.prediction_report(limit=3)
    assert [i.prediction_id for i in report.items] == asked[-3:]
    assert report.total == 5


class RecordingEmbedder:
    """A model of one's own that keeps every text it was asked to embed."""

    name = "recording@1"
    dim = 2

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return np.tile(np.array([0.6, 0.8], dtype=np.float32), (len(texts), 1))


def test_predictions_are_never_owed_a_vector_nor_embedded_by_reembed(store_url, clock):
    """Searches never return predictions, so they are not embedded: stats does not count
    them as missing a vector, and `reembed` has nothing to do for them."""
    model = RecordingEmbedder()
    with open_memory(store_url("vectors"), clock=clock, embeddings=model) as memory:
        memory.record_decision(ACTION, "Checkout outage on Saturday")
        asked = memory.intervention_query("skip the load test before the sale")
        compared = memory.counterfactual_query("skip the load test", "run the load test")
        assert asked.prediction_id and compared.prediction_id
        assert memory.stats().by_kind["prediction"] == 2
        assert memory.stats().vectors_missing == 0
        assert memory.reembed() == 0
        assert memory.reembed(everything=True) == memory.stats().nodes - 2
        assert not [t for t in model.texts if t.startswith("Prediction")]


def test_reembed_drops_the_vectors_earlier_runs_gave_predictions(store_url, clock):
    """Before predictions were exempt, `reembed` embedded them; no search reads those vectors,
    so they are dropped (of every model), and only they."""
    model = RecordingEmbedder()
    with open_memory(store_url("stray"), clock=clock, embeddings=model) as memory:
        memory.record_decision(ACTION, "Checkout outage on Saturday")
        asked = memory.intervention_query("skip the load test before the sale")
        stray = np.array([0.6, 0.8], dtype=np.float32)
        memory.store.put_vectors(model.name, [(asked.prediction_id, stray)])
        memory.store.put_vectors("older@1", [(asked.prediction_id, stray)])
        owed = memory.store.vector_counts()[model.name] - 1
        assert memory.drop_unowed_vectors() == 2
        assert memory.store.vector_counts().get(model.name) == owed
        assert "older@1" not in memory.store.vector_counts()
        assert memory.drop_unowed_vectors() == 0
        assert memory.stats().vectors_missing == 0
