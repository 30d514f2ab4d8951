//! The packed view (`okey101.native_policy.pack`): what level 2 reads of a `PlayerView`,
//! its `SeatRules` and the house's options, as one flat list of ints. Every field is
//! checked here; a list that is not one raises ValueError naming the field, never a panic.
use crate::solver::{MeldKind, FAKE};

pub const VERSION: i64 = 1;
pub const SEATS: usize = 4;

/// `rules.allowed`: the commands' wire types, a bit each in this order.
pub const ALLOWED: [&str; 13] = [
    "draw", "take_discard", "put_back", "declare_pairs", "show_indicator", "open", "lay",
    "lay_off", "take_okey", "discard", "finish", "commit_seed", "reveal_seed",
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    Draw,
    Play,
    #[default]
    Other,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Opened {
    #[default]
    No,
    Points,
    Pairs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Low,
    High,
    Group,
}

impl End {
    pub fn code(self) -> i64 {
        match self {
            End::Low => 0,
            End::High => 1,
            End::Group => 2,
        }
    }
}

/// The house's options the policy reads (`okey101.profiles.Profile`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub duz: bool,
    pub penalties: bool,
    pub feed_multiplier: i64, // opened_with_discard_multiplier
    pub okey_value: i64,      // okey_in_rack_value
    pub wraps: bool,          // run_wraps_13_to_1
    pub third: bool,          // meld_value == "third"
    pub take_must_use: bool,  // opened_take_must_use
    pub playable_penalty: i64,
    pub okey_penalty: i64,
    pub run_end_limit: Option<i64>,
    pub groups_complete_all: bool, // take_okey_from_groups == "complete_all_colours"
    pub multiplier_cap: i64,
}

/// One seat's public part (`SeatView`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatPub {
    pub opened: Opened,
    pub rack_size: i64,
    pub shown_indicator: bool,
    pub points_needed: i64,
    pub pairs_needed: i64,
    pub discards: Vec<u8>,
}

/// A meld on the table (`MeldView`, as `viewrules.meld_of_view` reads it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PMeld {
    pub kind: MeldKind,
    pub tiles: Vec<(u8, u8)>, // (played, stands)
    pub start: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    pub p: Options,
    pub seat: usize,
    pub to_act: i64,
    pub turn: i64,
    pub okey: u8,
    pub indicator: u8,
    pub phase: Phase,
    pub top: Option<u8>,
    pub taken: Option<u8>,
    pub owed: Option<u8>,
    pub allowed: u32,
    pub may_lay_off: bool,
    pub lay_off_room: Option<i64>,
    pub elden_open: bool,
    pub may_open_pairs: bool,
    pub rack: Vec<u8>,
    pub laid: Vec<u8>,
    pub end_counts: Vec<(i64, End, i64)>,
    pub full_run_ends: Vec<(i64, End)>,
    pub seats: Vec<SeatPub>,
    pub melds: Vec<PMeld>,
    pub owners: Vec<i64>,
}

impl View {
    pub fn allows(&self, name: &str) -> bool {
        ALLOWED.iter().position(|&a| a == name).is_some_and(|i| self.allowed >> i & 1 == 1)
    }
}

struct Reader<'a> {
    data: &'a [i64],
    at: usize,
}

type R<T> = Result<T, String>;

impl Reader<'_> {
    fn int(&mut self, what: &str) -> R<i64> {
        let v = *self
            .data
            .get(self.at)
            .ok_or_else(|| format!("packed view ends at {} before {what}", self.at))?;
        self.at += 1;
        Ok(v)
    }
    fn range(&mut self, what: &str, lo: i64, hi: i64) -> R<i64> {
        let v = self.int(what)?;
        if !(lo..=hi).contains(&v) {
            return Err(format!("{what}: {v} at {} is outside {lo}..{hi}", self.at - 1));
        }
        Ok(v)
    }
    fn flag(&mut self, what: &str) -> R<bool> {
        Ok(self.range(what, 0, 1)? == 1)
    }
    fn tile(&mut self, what: &str) -> R<u8> {
        Ok(self.range(what, 0, i64::from(FAKE))? as u8)
    }
    fn kind(&mut self, what: &str) -> R<u8> {
        Ok(self.range(what, 0, i64::from(FAKE) - 1)? as u8)
    }
    fn maybe_tile(&mut self, what: &str) -> R<Option<u8>> {
        let v = self.range(what, -1, i64::from(FAKE))?;
        Ok(if v < 0 { None } else { Some(v as u8) })
    }
    fn maybe(&mut self, what: &str, hi: i64) -> R<Option<i64>> {
        let v = self.range(what, -1, hi)?;
        Ok(if v < 0 { None } else { Some(v) })
    }
    fn len(&mut self, what: &str, most: i64) -> R<usize> {
        Ok(self.range(what, 0, most)? as usize)
    }
    fn tiles(&mut self, what: &str, most: i64) -> R<Vec<u8>> {
        let n = self.len(what, most)?;
        (0..n).map(|_| self.tile(what)).collect()
    }
    fn end(&mut self, what: &str) -> R<End> {
        Ok(match self.range(what, 0, 2)? {
            0 => End::Low,
            1 => End::High,
            _ => End::Group,
        })
    }
}

const BIG: i64 = 1 << 40;

/// Whether `unpack` takes the packing of `v` (every range it checks), so that a view
/// built without the packing is the one unpacked; false sends the caller through the
/// packing for its refusal.
pub fn within_packing(v: &View) -> bool {
    let p = &v.p;
    let big = |x: i64| (0..=BIG).contains(&x);
    // a fold, not `all`: it runs branch-free over the whole list (every command, every list)
    let tiles = |ts: &[u8], most: usize| ts.len() <= most && ts.iter().fold(0, |a, &t| a.max(t)) <= FAKE;
    let maybe_tile = |t: Option<u8>| t.is_none_or(|t| t <= FAKE);
    let mut copies = [0u8; FAKE as usize + 1];
    let rack_ok = tiles(&v.rack, 106)
        && v.rack.iter().all(|&t| {
            copies[t as usize] += 1;
            copies[t as usize] <= 2
        });
    (0..=1000).contains(&p.feed_multiplier)
        && (0..=crate::solve::MAX_JOKER_WEIGHT).contains(&p.okey_value)
        && big(p.playable_penalty)
        && big(p.okey_penalty)
        && p.run_end_limit.is_none_or(big)
        && big(p.multiplier_cap)
        && v.seat < SEATS
        && v.to_act == v.seat as i64
        && (-BIG..=BIG).contains(&v.turn)
        && v.okey < FAKE
        && v.indicator < FAKE
        && maybe_tile(v.top)
        && maybe_tile(v.taken)
        && maybe_tile(v.owed)
        && v.allowed < 1 << ALLOWED.len()
        && v.lay_off_room.is_none_or(big)
        && rack_ok
        && tiles(&v.laid, 106)
        && v.end_counts.len() <= 1000
        && v.end_counts.iter().all(|&(m, _, n)| big(m) && big(n))
        && v.full_run_ends.len() <= 1000
        && v.full_run_ends.iter().all(|&(m, _)| big(m))
        && v.seats.len() == SEATS
        && v.seats.iter().all(|s| {
            (0..=106).contains(&s.rack_size)
                && (-BIG..=BIG).contains(&s.points_needed)
                && (-BIG..=BIG).contains(&s.pairs_needed)
                && tiles(&s.discards, 106)
        })
        && v.melds.len() <= 106
        && v.owners.len() == v.melds.len()
        && v.owners.iter().all(|&o| (0..SEATS as i64).contains(&o))
        && v.melds.iter().all(|m| {
            (1..=14).contains(&m.tiles.len())
                && m.tiles.iter().fold(0, |a, &(p, s)| a.max(p).max(s.saturating_add(1))) <= FAKE
                && if m.kind == MeldKind::Run { (1..=14).contains(&m.start) } else { (0..=14).contains(&m.start) }
        })
}

pub fn unpack(data: &[i64]) -> R<View> {
    let mut r = Reader { data, at: 0 };
    let version = r.int("version")?;
    if version != VERSION {
        return Err(format!("version: {version}, this core reads {VERSION}"));
    }
    let p = Options {
        duz: r.flag("game")?,
        penalties: r.flag("penalties")?,
        feed_multiplier: r.range("opened_with_discard_multiplier", 0, 1000)?,
        okey_value: r.range("okey_in_rack_value", 0, crate::solve::MAX_JOKER_WEIGHT)?,
        wraps: r.flag("run_wraps_13_to_1")?,
        third: r.flag("meld_value")?,
        take_must_use: r.flag("opened_take_must_use")?,
        playable_penalty: r.range("playable_discard_penalty", 0, BIG)?,
        okey_penalty: r.range("okey_discard_penalty", 0, BIG)?,
        run_end_limit: r.maybe("run_end_lay_off_limit", BIG)?,
        groups_complete_all: r.flag("take_okey_from_groups")?,
        multiplier_cap: r.range("multiplier_cap", 0, BIG)?,
    };
    let seat = r.range("seat", 0, SEATS as i64 - 1)? as usize;
    let to_act = r.range("to_act", -1, SEATS as i64 - 1)?;
    let turn = r.range("turn", -BIG, BIG)?;
    let okey = r.kind("okey")?;
    let indicator = r.kind("indicator")?;
    let phase = match r.range("phase", 0, 2)? {
        0 => Phase::Draw,
        1 => Phase::Play,
        _ => Phase::Other,
    };
    let top = r.maybe_tile("available_discard")?;
    let taken = r.maybe_tile("current.taken")?;
    let owed = r.maybe_tile("rules.owed_tile")?;
    let allowed = r.range("rules.allowed", 0, (1 << ALLOWED.len()) - 1)? as u32;
    let may_lay_off = r.flag("rules.may_lay_off")?;
    let lay_off_room = r.maybe("rules.lay_off_room", BIG)?;
    let elden_open = r.flag("rules.is_elden_open")?;
    let may_open_pairs = r.flag("rules.may_open_pairs")?;
    let rack = r.tiles("rack", 106)?;
    let (rack, _) = crate::solver::check(&rack.iter().map(|&t| i64::from(t)).collect::<Vec<_>>(),
                                         i64::from(okey), 106)?;
    let laid = r.tiles("current.laid", 106)?;
    let n = r.len("current.end_counts", 1000)?;
    let mut end_counts = Vec::with_capacity(n);
    for _ in 0..n {
        end_counts.push((r.range("end_counts meld", 0, BIG)?, r.end("end_counts end")?,
                         r.range("end_counts tiles", 0, BIG)?));
    }
    let n = r.len("rules.full_run_ends", 1000)?;
    let mut full_run_ends = Vec::with_capacity(n);
    for _ in 0..n {
        full_run_ends.push((r.range("full_run_ends meld", 0, BIG)?, r.end("full_run_ends end")?));
    }
    let mut seats = Vec::with_capacity(SEATS);
    for _ in 0..SEATS {
        seats.push(SeatPub {
            opened: match r.range("seat opened", 0, 2)? {
                0 => Opened::No,
                1 => Opened::Points,
                _ => Opened::Pairs,
            },
            rack_size: r.range("seat rack_size", 0, 106)?,
            shown_indicator: r.flag("seat shown_indicator")?,
            points_needed: r.range("seat points_needed", -BIG, BIG)?,
            pairs_needed: r.range("seat pairs_needed", -BIG, BIG)?,
            discards: r.tiles("seat discards", 106)?,
        });
    }
    let n = r.len("melds", 106)?;
    let mut melds = Vec::with_capacity(n);
    let mut owners = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = match r.range("meld kind", 0, 2)? {
            0 => MeldKind::Run,
            1 => MeldKind::Group,
            _ => MeldKind::Pair,
        };
        let start = r.range("meld start", 0, 14)?;
        owners.push(r.range("meld owner", 0, SEATS as i64 - 1)?);
        let k = r.len("meld tiles", 14)?;
        if k == 0 {
            return Err("meld tiles: an empty meld".into());
        }
        let mut tiles = Vec::with_capacity(k);
        for _ in 0..k {
            let played = r.tile("meld played")?;
            let stands = r.kind("meld stands")?;
            tiles.push((played, stands));
        }
        if kind == MeldKind::Run && !(1..=14).contains(&start) {
            return Err(format!("meld start: a run starting at {start}"));
        }
        melds.push(PMeld { kind, tiles, start });
    }
    if r.at != data.len() {
        return Err(format!("packed view: {} ints left over after the melds", data.len() - r.at));
    }
    Ok(View {
        p, seat, to_act, turn, okey, indicator, phase, top, taken, owed, allowed, may_lay_off,
        lay_off_room, elden_open, may_open_pairs, rack, laid, end_counts, full_run_ends, seats,
        melds, owners,
    })
}
