"""Every code a client can be answered with, and what it means: one registry.

`REJECTIONS` are the codes of a rejected command's outcome (the rules in `okey101.table`,
`okey101.melds`, `okey101.scoring`, and the processor); `GATEWAY` are the codes a gateway
answers on its WebSocket before anything reaches Kafka; `MATCHMAKING` the matchmaker's
refusals a player's request can get, `OPERATOR` those only an operator's request (the
`okey101 tournament` command) can get, so no page needs words for them. proto/codes.json
is generated from them all, and tests/unit/test_codes.py scans the source so that no code
is raised anywhere without being listed here: add a new code here with its meaning, then
`make proto`.
"""

from __future__ import annotations

REJECTIONS: dict[str, str] = {
    # the envelope: which table, which seat, which version
    "malformed": "the command cannot be understood: a missing or wrong-typed field, an "
                 "unknown tile name, a bad seed; the message names the field or the token",
    "unknown_table": "no table has this table_id (create it first)",
    "table_exists": "create_table named a table_id that already exists",
    "wrong_table": "the command reached a table other than the one it names",
    "stale_seq": "the command was decided against an older version (seq) of the table: "
                 "read the new view and send a new command",
    "seq_gap": "an event does not follow the table's last seq (the log is inconsistent)",
    "bad_seat": "the seat number is not 0-3",
    "not_your_seat": "the player does not sit at the seat the command names",
    "seed_forbidden": "start_match carried a seed or stacked deals: the server chooses the deal",
    # a table's options (create_table): the message names the option
    "unknown_option": "create_table: an option the house's profile does not have",
    "option_locked": "create_table: an option of the house no table may change (its game, "
                     "its ranges)",
    "option_type": "create_table: an option of the wrong type (a string for a number, a "
                   "float for an integer, a nested value)",
    "option_range": "create_table: an option's value is outside what the house allows",
    "too_many_options": "create_table: more options than a profile has fields",
    # seating and the match
    "seat_taken": "somebody already sits at that seat",
    "already_seated": "the player (or bot) already sits at this table",
    "no_bots": "this house (or table) seats no bots",
    "match_started": "the match has already started",
    "match_over": "the match is over",
    "seats_empty": "the match cannot start while a seat is empty",
    # the turn
    "no_hand": "no hand is being played at this table",
    "hand_over": "the hand is over",
    "not_your_turn": "another seat is to act",
    "wrong_phase": "the seat must draw (or take the discard) first, or must now discard",
    "stale_timeout": "a timeout for a turn that has already been played",
    # taking the discard
    "no_discard": "there is no discard to take",
    "put_back_must_draw": "the taken discard was put back this turn: draw from the deck",
    "okey_discard_untakeable": "a discarded okey may not be taken in this house",
    "cannot_open_with_discard": "an unopened seat may take the discard only if it can open "
                                "with it this turn",
    "cannot_use_discard": "this house requires a taken discard to be laid this turn, and it "
                          "cannot be",
    "put_back_not_allowed": "this house does not let a taken discard go back",
    "nothing_to_put_back": "no discard was taken this turn",
    "already_laid": "tiles were laid this turn: the taken discard cannot go back",
    "must_open_with_taken_tile": "the taken discard (or its twin) must be part of the opening",
    "taken_tile_not_used": "the taken discard must be laid this turn before discarding",
    # declarations
    "not_applicable": "this house has no such declaration (pairs declaration, indicator pair)",
    "already_declared": "the seat has already declared pairs or opened",
    "already_shown": "the seat has already shown the indicator's twin",
    "too_late": "the indicator's twin is shown only before the seat first draws",
    "pairs_not_declared": "this house wants pairs declared before opening with pairs",
    # opening and laying
    "already_opened": "the seat has already opened",
    "not_opened": "the seat must open first",
    "open_one_way": "an opening is melds or pairs, never both or neither",
    "lay_one_way": "a lay is melds or pairs, one kind per command",
    "below_threshold": "the opening does not reach what this house needs now",
    "invalid_meld": "the tiles form neither a run nor a group",
    "invalid_pair": "the two tiles do not form a pair",
    "not_a_joker": "only the okey can stand for another tile",
    "fake_okey_is_not_a_joker": "a fake okey plays only as the okey itself",
    "pairs_opener_cannot_lay_melds": "a seat that opened with pairs lays no runs or groups",
    "pairs_not_allowed": "a points-opener lays pairs only after somebody opened with pairs",
    "tile_not_in_rack": "the seat does not hold the tile(s) named",
    "must_keep_a_discard": "a seat must keep one tile to discard",
    # the table's melds
    "no_such_meld": "there is no meld with that index on the table",
    "cannot_lay_off": "the tile(s) do not extend that meld",
    "lay_off_limit": "more tiles than this house allows per turn (pairs-opener, or one run end)",
    "must_wait_a_round": "this house makes a seat wait after opening before touching the table",
    "elden_turn": "an elden opening below the threshold finishes as it is: no lay-off that turn",
    "no_okey_there": "that meld holds no okey",
    "ambiguous_okey": "the okey in a three-tile group cannot be taken in this house",
    "wrong_tiles": "taking the okey needs exactly the tile(s) it stands for",
    # who sits: leaving, substitutes, private rooms, the reconnect window (section 9, 11)
    "left_this_match": "the player left this match (or its reconnect window passed) and may "
                       "not sit at this table again before it ends",
    "bots_not_requested": "a bot may sit in this private room only once its owner asked for "
                          "bots",
    "not_private": "request_bots: the table is not a private room",
    "not_owner": "request_bots: only the private room's owner may ask for bots",
    "bots_already_requested": "request_bots: bots were already asked for at this table",
    "no_reconnect_window": "this house has no reconnect window: a disconnected player's seat "
                           "is not held",
    "already_disconnected": "the seat is already reported disconnected",
    "not_disconnected": "report_reconnect: the seat is not reported disconnected",
    "id_reused": "the command id was already used by this account at this table for a "
                 "different command (another seq or move): nothing was applied; a retry must "
                 "resend the same command, a new command needs a new id",
    "no_such_window": "expire_reconnect_window / close_seeding: no such window is open (it "
                      "was closed, or a later one opened)",
    "reconnect_window_open": "expire_reconnect_window came before the window's end: the "
                             "player may still come back",
    # the deal's entropy, version 2 (proto/DEAL.md)
    "no_seeding": "no seeding window is open at this table",
    "wrong_stage": "commit_seed during the reveal stage, or reveal_seed during the commit "
                   "stage",
    "window_closed": "the seeding window's time is over",
    "seat_empty": "the seat is empty",
    "bot_seat": "a bot sends no seed: its share is the server's",
    "share_forfeited": "the account forfeited its share earlier in this match (it committed "
                       "and did not reveal, or revealed a seed that did not match)",
    "already_committed": "the seat has already committed to a seed for this hand",
    "not_committed": "reveal_seed: the seat committed to no seed for this hand",
    "not_committer": "reveal_seed: another account committed for this seat",
    "already_revealed": "the seat has already revealed (or forfeited) its seed for this hand",
    "seeding_window_open": "close_seeding came before the window's end",
    # düz (classic) Okey (section 12)
    "not_in_duz": "düz okey has no opening, laying, laying off or taking an okey: win with "
                  "'finish'",
    "finish_one_way": "finish: show the rack as melds or as pairs, never both or neither",
    "must_show_whole_rack": "finish: every tile but the discard must be shown in the melds or "
                            "pairs",
    # scoring (internal consistency: a client never causes these)
    "no_void_hand": "this house has no void hands",
    "not_void": "a hand is void only when all four opened with pairs",
    "illegal_move": "a finish that contradicts the openings (an engine consistency check)",
}

GATEWAY: dict[str, str] = {
    "unauthenticated": "the first message must be `hello` with a token; nothing else is "
                       "accepted before it",
    "bad_token": "the token is not one this service signed (forged, altered or garbled)",
    "token_expired": "the token has expired: get a new one and connect again",
    "token_lifetime": "the token is valid for longer than this gateway accepts (its "
                      "token_max_hours, 24 h by default): get a shorter-lived one",
    "malformed": "the frame (or an HTTP body) is not JSON, nests too deep, or is not a "
                 "message of the API; the message names the field",
    "unsupported_version": "the frame's `v` is a version of the contract this gateway no "
                           "longer speaks (version 1 sent whole views; version 2 sends "
                           "patches): upgrade the client (proto/VERSIONING.md)",
    "rate_limited": "more commands per second than this connection may send: this one was "
                    "dropped, nothing was published; a connection that keeps sending past "
                    "the limit is closed (1008) after a bounded number of these",
    "id_reused": "the command id was already used by this account for a different command "
                 "(another table, seq or move): nothing was published; a retry must resend "
                 "the same command, a new command needs a new id",
    "too_many_connections": "this account already holds as many connections as it may",
    "too_slow": "the client did not read its messages fast enough and was disconnected",
    "not_your_seat": "the command needs a seat at a table where the player does not sit; "
                     "or `rules` asked for a seat not the player's (only your own seat's "
                     "rules are answered)",
    "unknown_table": "the gateway knows no table with this id",
    "not_watching": "`rules` for a table this connection does not watch: watch it first",
    "stale_version": "`rules` named a version of the view other than the gateway's newest "
                     "of the seat (an older one, or one not yet shown): apply the patches "
                     "you were sent (or watch again) and ask with the version you hold",
    "rules_unavailable": "`rules` at the gateway's newest version of the seat, but the "
                         "gateway could not rebuild the table from that view (a view it "
                         "cannot read: a fault of the server, not of the frame); nothing was "
                         "published: ask again at the next version",
    "pending": "the leaderboards have not folded this match for this account yet (or it "
               "was not the account's): ask again shortly",
    "shutting_down": "the gateway is stopping: connect again (the view resumes from its "
                     "version)",
    "unavailable": "the command could not be handed to Kafka; it was not published",
}


# the matchmaker's `refused` decisions (okey101.app.matchmaker): quick play and tournaments
MATCHMAKING: dict[str, str] = {
    "unknown_house": "quick play or a tournament for a house this service does not have",
    "unknown_hall": "the house has no hall of that name",
    "hall_above_level": "the hall needs a higher account level than the player's",
    "role_missing": "the hall is open to a role (VIP: Has Oda) the identity token does not "
                    "carry",
    "already_waiting": "the player already waits for a seat in this house: one request at a "
                       "time",
    "nothing_waiting": "cancel_quick_play: the player is not waiting in this house",
    "in_tournament": "the player plays in a running tournament of this house",
    "no_tournaments": "this house holds no tournaments",
    "unknown_tournament": "the house has no tournament with this id",
    "tournament_exists": "a tournament with this id is already scheduled",
    "bad_schedule": "the tournament's size, hands or bot level is not one the house allows",
    "registration_closed": "the tournament has started (or ended): registration is closed",
    "tournament_full": "the tournament has as many entrants as its size",
    "already_registered": "the player is already registered for this tournament",
    "not_registered": "unregister: the player is not registered for this tournament",
}


# the matchmaker's `refused` decisions of an operator's request, never a player's
OPERATOR: dict[str, str] = {
    "tournament_over": "cancel_tournament: the tournament has ended or is already cancelled",
}


def meaning(code: str) -> str:
    """What `code` means, for a client or an operator."""
    return REJECTIONS.get(code) or GATEWAY.get(code) or MATCHMAKING.get(code) or \
        OPERATOR.get(code) or f"unknown code {code!r}"
