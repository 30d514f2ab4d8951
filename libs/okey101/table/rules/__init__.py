"""What the rules allow a seat now: the one place where legality is written. Pure.

`decide` asks these queries before it emits anything; `views` publishes their answers in
each seat's `PlayerView` (`SeatRules`: the commands allowed now, the lay-offs and okey
takes open to it, the discards that would be penalised), so bots and gateways choose
among what the engine enumerates and never re-implement a rule.

Gates (`check_*`) raise `IllegalMove` with a stable code and a message naming the seat and
the tile; predicates (`is_*`, `can_*`, `may_*`) answer yes or no; the rest compute a value
(a threshold, a penalty, a finish kind, the house's time-out move).

Düz (classic) Okey (RULES.md §12, `Profile.game` "duz") is a game of the same engine: its
seats draw (or take the discard, free to keep it) and discard, and win with `finish`,
showing the whole rack; nothing else touches the table, so the opening's gates refuse it.

The sections of RULES.md, one module each: `common`, `addressing`, `seats`, `seeding`,
`thresholds`, `takes`, `turn`, `discards`, `options`, `laying`; every query and gate is
importable from `okey101.table.rules` itself."""

from __future__ import annotations

from okey101.table.rules.addressing import (
    check_addressed,
    check_exists,
    check_new,
    check_seat_exists,
    check_seated,
)
from okey101.table.rules.common import (
    fail,
    is_duz,
    playing_hand,
)
from okey101.table.rules.discards import (
    discard_penalty,
    finish_kind,
    timeout_discard,
)
from okey101.table.rules.laying import (
    can_open_now,
    check_holds,
    check_lay_form,
    check_lay_off_room,
    check_lay_off_target,
    check_may_open_with_pairs,
    check_okey_swap,
    check_one_form,
    check_opens_with_taken,
    check_reaches_threshold,
    check_run_end_room,
    meld_at,
)
from okey101.table.rules.options import (
    allowed_commands,
    lay_off_options,
    okey_take_options,
    okey_take_tiles,
    penalised_discards,
    tokens_in_rack,
)
from okey101.table.rules.seats import (
    check_bot_level,
    check_bot_may_sit,
    check_reconnect_window_passed,
    check_report_disconnect,
    check_report_reconnect,
    check_request_bots,
    check_seat_free_for,
    check_sit,
    check_start_match,
    has_left,
    is_new_turn,
    may_seat_bot,
    turn_seconds,
)
from okey101.table.rules.seeding import (
    are_commits_complete,
    are_reveals_complete,
    check_close_seeding,
    check_commit_seed,
    check_reveal_seed,
    is_awaited_commit,
    may_contribute,
    opens_seeding,
    seeding_window_ms,
)
from okey101.table.rules.takes import (
    can_open_pairs_with,
    can_open_points_with,
    can_open_with,
    can_use,
    opening_within,
)
from okey101.table.rules.thresholds import (
    is_elden_open,
    is_elden_opening,
    threshold,
)
from okey101.table.rules.turn import (
    available_discard,
    best_finish,
    check_declare_pairs,
    check_discard,
    check_draw,
    check_finish,
    check_lay,
    check_open,
    check_owed_take,
    check_put_back,
    check_show_indicator,
    check_shows_whole_rack,
    check_table_access,
    check_take_discard,
    check_timeout,
    check_touch_table,
    check_turn,
    full_run_ends,
    lay_off_room,
    may_lay_pairs,
    may_open_with_pairs,
    may_touch_table,
    owed_take,
    run_end_room,
    shown_finish_kind,
)

__all__ = [
    "allowed_commands",
    "are_commits_complete",
    "are_reveals_complete",
    "available_discard",
    "best_finish",
    "can_open_now",
    "can_open_pairs_with",
    "can_open_points_with",
    "can_open_with",
    "can_use",
    "check_addressed",
    "check_bot_level",
    "check_bot_may_sit",
    "check_close_seeding",
    "check_commit_seed",
    "check_declare_pairs",
    "check_discard",
    "check_draw",
    "check_exists",
    "check_finish",
    "check_holds",
    "check_lay",
    "check_lay_form",
    "check_lay_off_room",
    "check_lay_off_target",
    "check_may_open_with_pairs",
    "check_new",
    "check_okey_swap",
    "check_one_form",
    "check_open",
    "check_opens_with_taken",
    "check_owed_take",
    "check_put_back",
    "check_reaches_threshold",
    "check_reconnect_window_passed",
    "check_report_disconnect",
    "check_report_reconnect",
    "check_request_bots",
    "check_reveal_seed",
    "check_run_end_room",
    "check_seat_exists",
    "check_seat_free_for",
    "check_seated",
    "check_show_indicator",
    "check_shows_whole_rack",
    "check_sit",
    "check_start_match",
    "check_table_access",
    "check_take_discard",
    "check_timeout",
    "check_touch_table",
    "check_turn",
    "discard_penalty",
    "fail",
    "finish_kind",
    "full_run_ends",
    "has_left",
    "is_awaited_commit",
    "is_duz",
    "is_elden_open",
    "is_elden_opening",
    "is_new_turn",
    "lay_off_options",
    "lay_off_room",
    "may_contribute",
    "may_lay_pairs",
    "may_open_with_pairs",
    "may_seat_bot",
    "may_touch_table",
    "meld_at",
    "okey_take_options",
    "okey_take_tiles",
    "opening_within",
    "opens_seeding",
    "owed_take",
    "penalised_discards",
    "playing_hand",
    "run_end_room",
    "seeding_window_ms",
    "shown_finish_kind",
    "threshold",
    "timeout_discard",
    "tokens_in_rack",
    "turn_seconds",
]
