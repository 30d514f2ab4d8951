"""The gateway's bookkeeping, without sockets: one answer per command however many
connections sent it, an acknowledgement held until the update that shows it, a reused id
refused, and nothing kept for a connection or table nobody will ask about again."""

from __future__ import annotations

from okey101.app.gateway.bookkeeping import ANSWER_WITHIN, FORGET_AFTER, Bookkeeping


def test_the_same_command_in_flight_is_published_once_and_answered_to_each() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    assert books.publishing("t1", "ayse/c1", "phone", "c1", "discard", now=0.0)
    assert not books.publishing("t1", "ayse/c1", "laptop", "c1", "discard", now=0.1)
    waiting = books.answered("t1", "ayse/c1")
    assert waiting is not None and waiting.conns == [("phone", "c1"), ("laptop", "c1")]
    assert books.answered("t1", "ayse/c1") is None  # answered once


def test_an_id_used_for_another_command_is_reused_and_a_retry_is_not() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.remember("ayse", "c1", b"discard R7", "t1")
    assert not books.is_reused("ayse", "c1", b"discard R7")
    assert books.is_reused("ayse", "c1", b"discard B3")
    assert not books.is_reused("mehmet", "c1", b"discard B3")  # ids are per account


def test_a_retried_create_table_names_the_table_it_named_first() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.remember("ayse", "new", b"create", "t1")
    books.remember("ayse", "new", b"create", "t2")
    sent = books.sent_before("ayse", "new")
    assert sent is not None and sent.table_id == "t1"


def test_only_the_newest_ids_are_kept() -> None:
    books: Bookkeeping[str] = Bookkeeping(ids_kept=2)
    for i in range(3):
        books.remember("ayse", f"c{i}", b"x", "t1")
    assert books.sent_before("ayse", "c0") is None
    assert books.sent_before("ayse", "c2") is not None


def test_a_failed_publish_frees_the_id_and_nobody_waits() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.remember("ayse", "c1", b"x", "t1")
    books.publishing("t1", "ayse/c1", "phone", "c1", "draw", now=0.0)
    books.not_published("t1", "ayse/c1", "ayse", "c1")
    assert books.answered("t1", "ayse/c1") is None
    assert books.sent_before("ayse", "c1") is None


def test_an_ack_is_held_until_its_seat_is_shown_the_update() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    seats = {"phone": 2, "watcher": -1}
    books.hold("t1", "phone", 7, b"ack")
    assert books.release("t1", 6, 2, seats.__getitem__) == []  # an older update
    assert books.release("t1", 7, 1, seats.__getitem__) == []  # another seat's view
    assert books.release("t1", 7, 2, seats.__getitem__) == [("phone", b"ack")]
    assert books.release("t1", 8, 2, seats.__getitem__) == []  # released once


def test_a_disconnected_connection_watches_nothing_and_counts_once() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.connected("ayse", "phone")
    books.connected("ayse", "laptop")
    books.watch("phone", "t1")
    assert books.connections("ayse") == 2 and books.watchers_of("t1") == ["phone"]
    assert books.disconnected("ayse", "phone")
    assert not books.disconnected("ayse", "phone")  # already forgotten
    assert books.watchers_of("t1") == [] and not books.is_watching("phone", "t1")
    assert books.connections("ayse") == 1 and books.everyone() == ["laptop"]


def test_unwatching_leaves_the_other_tables_watched() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.connected("ayse", "phone")
    books.watch("phone", "t1")
    books.watch("phone", "t2")
    books.unwatch("phone", "t1")
    assert not books.is_watching("phone", "t1") and books.is_watching("phone", "t2")


def test_a_sweep_forgets_old_waits_closed_acks_and_unwatched_finished_tables() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.publishing("t1", "ayse/c1", "phone", "c1", "draw", now=0.0)
    books.hold("t1", "gone", 3, b"ack")
    books.seen_over("t1", 0.0)
    books.seen_over("t2", 0.0)
    books.connected("mehmet", "tablet")
    books.watch("tablet", "t2")
    forget = books.sweep(max(ANSWER_WITHIN, FORGET_AFTER) + 1, lambda c: c == "gone")
    assert forget == ["t1"]  # t2 is still watched
    assert books.answered("t1", "ayse/c1") is None and books.acks == {}
    assert list(books.finished) == ["t2"]


def test_a_watch_ahead_of_the_gateway_is_due_once_at_its_version_of_its_seat() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.connected("ayse", "phone")
    books.watch("phone", "t1")
    books.await_version("phone", "t1", 2, 40)
    assert books.due("t1", 2, 39) == []  # not there yet
    assert books.due("t1", 1, 45) == []  # another seat's view
    assert books.due("t1", 2, 41) == [("phone", 40)]  # passed in one batch: its events
    assert books.due("t1", 2, 50) == [] and books.awaiting == {}  # answered once


def test_a_watch_awaited_is_dropped_by_unwatching_disconnecting_or_watching_again() -> None:
    books: Bookkeeping[str] = Bookkeeping()
    books.connected("ayse", "phone")
    books.watch("phone", "t1")
    books.await_version("phone", "t1", 0, 40)
    books.watch("phone", "t1")  # watching again (with the newest version, or none)
    assert books.due("t1", 0, 40) == []
    books.await_version("phone", "t1", 0, 40)
    books.unwatch("phone", "t1")
    assert books.due("t1", 0, 40) == []
    books.watch("phone", "t1")
    books.await_version("phone", "t1", 0, 40)
    books.disconnected("ayse", "phone")
    assert books.due("t1", 0, 40) == [] and books.awaiting == {}
