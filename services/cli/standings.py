"""`okey101 standings`: a house's board folded from the events topic in process.

For analysts, and to compare with the leaderboards service: the same fold
(okey101.standings.Ledger) over every committed event, matches applied sorted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import msgspec

from okey101.app import topics
from okey101.errors import MalformedInput
from okey101.standings import HOUSE_RULES, BoardRow, Ledger, StandingRules
from okey101.standings.ledger import BAD_INPUT
from okey101.standings.week import check_week
from services.common.kafka import admin_client, bootstrap_servers


async def fold_events(bootstrap: str, prefix: str) -> Ledger:
    """Every committed event of the prefix's events topic, folded (matches sorted)."""

    from services.leaderboards.reading import read_records

    topic = topics.EVENTS.name(prefix)
    admin = admin_client(bootstrap)
    await admin.start()
    try:
        described = await admin.describe_topics([topic])
    finally:
        await admin.close()
    partitions = sorted(p["partition"] for d in described if not d["error_code"]
                        for p in d["partitions"])
    if not partitions:
        raise MalformedInput(f"topic {topic!r} does not exist on {bootstrap}")
    ledger = Ledger(buffering=True)
    read = await read_records(bootstrap, [(topic, p) for p in partitions])
    for (_, partition), records in sorted(read.items()):
        for record in records:
            for notice in ledger.read(record.value, partition, record.offset).notices:
                print(f"okey101 standings: {notice.kind} at {topic}[{partition}]@"
                      f"{notice.offset} {notice.table_id}: {notice.detail}", file=sys.stderr)
    ledger.flush()
    return ledger


def render(rules: StandingRules, rows: list[BoardRow], week: str | None,
           excluded: int = 0) -> str:
    """A board as a plain-text table."""
    number = {"rating": "rating", "sp": "SP", "none": "-"}[rules.points]
    title = f"{rules.house}: " + (f"league week {week}" if week else
                                  f"all time by {'skill' if rules.points == 'none' else number}")
    head = (f"{'#':>3}  {'account':<28} {number:>7} {'league':>6} {'skill':>7} {'lvl':>3} "
            f"{'played':>6} {'won':>4} {'left':>4}")
    lines = [title, head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.rank:>3}  {r.account[:28]:<28} "
                     f"{r.points if rules.points != 'none' else '-':>7} {r.league:>6} "
                     f"{r.skill_ordinal:>7.2f} {r.level:>3} {r.played:>6} {r.won:>4} "
                     f"{r.left:>4}" + ("  (bot)" if r.bot else ""))
    if not rows:
        lines.append("   (nobody ranked yet)")
    if excluded:
        lines.append(f"   {excluded} bot account(s) not ranked: this house lists no bots")
    return "\n".join(lines)


def _standings(args: argparse.Namespace) -> int:
    if args.week is not None:
        check_week(args.week)
    if args.top < 1:
        raise MalformedInput(f"--top {args.top}: must be at least 1")
    ledger = asyncio.run(fold_events(bootstrap_servers(args.bootstrap), args.prefix))
    rows = ledger.board.top(args.house, args.top, week=args.week,
                            with_bots=True if args.bots else None)
    if args.json:
        out: dict[str, Any] = {"house": args.house, "week": args.week,
                               "rows": msgspec.to_builtins(rows),
                               "matches": ledger.counts["matches"],
                               "unranked": ledger.counts["unranked"],
                               "bad_input": {k: ledger.counts[k] for k in BAD_INPUT
                                             if ledger.counts[k]}}
        print(json.dumps(out))
    else:
        board = ledger.board
        print(render(board.rules[args.house], rows, args.week,
                     0 if args.bots else board.excluded_bots(args.house)))
    return 0


def register(commands: Any) -> None:
    p = commands.add_parser("standings", help="a house's board from the events topic")
    p.add_argument("--house", required=True, choices=sorted(HOUSE_RULES))
    p.add_argument("--week", help="league points of this week (YYYY-Www, Istanbul weeks)")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--bots", action="store_true", help="list bots even where the house does not")
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    p.add_argument("--prefix", default="okey", help="topic name prefix")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_standings)
