"""processes.readiness: which answers to a readiness check mean ready, still starting, or up and broken."""

from serverbench.processes.readiness import GRACE_S, ReadinessWatch


def test_a_2xx_answer_is_ready_at_once():
    """Any 2xx is ready, even after errors."""
    watch = ReadinessWatch()
    assert watch.see(500, 0.0) == "starting"
    assert watch.see(204, 0.1) == "ready" and watch.last_status == 204


def test_no_answer_and_gateway_statuses_wait_for_the_start_timeout():
    """No answer, 502, 503 and 504 never end the wait, however long they last."""
    watch = ReadinessWatch()
    seen = [watch.see(status, t * 10.0) for t, status in enumerate([None, 502, 503, 504] * 5)]
    assert set(seen) == {"starting"} and watch.last_status == 504


def test_a_persisting_error_status_is_broken_after_the_grace():
    """A 500 answered again and again is broken once it has lasted the grace and been seen three times."""
    watch = ReadinessWatch()
    assert watch.see(500, 0.0) == "starting"
    assert watch.see(500, GRACE_S - 0.01) == "starting"
    assert watch.see(500, GRACE_S) == "broken" and watch.last_status == 500


def test_the_grace_needs_enough_answers_not_only_time():
    """Two answers far apart are not enough: a server that blipped once while booting may still get ready."""
    watch = ReadinessWatch()
    assert watch.see(404, 0.0) == "starting"
    assert watch.see(404, 100.0) == "starting"
    assert watch.see(404, 100.1) == "broken"


def test_a_gateway_status_or_silence_between_errors():
    """A 503 starts the error streak again; no answer does not (a worker restarting between two 500s)."""
    watch = ReadinessWatch()
    watch.see(500, 0.0)
    watch.see(500, 1.0)
    assert watch.see(503, 1.5) == "starting"
    assert watch.see(500, 2.0) == "starting" and watch.see(500, 3.0) == "starting"
    assert watch.see(None, 3.5) == "starting"
    assert watch.see(500, 4.0) == "broken"  # three 500s since the 503, over 2 s
