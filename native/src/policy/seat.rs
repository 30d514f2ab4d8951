//! A seat's reading of its view (`okey101/bots/seat.py`, `plays.py`'s shared pieces, the
//! `melds.py` geometry they use, and the rules' detail `table/viewrules.py` answers:
//! lay-offs, okey takes, penalised discards), computed here from the view alone.
use std::rc::Rc;

pub use crate::memo::Solution;
pub use super::view::PMeld;
use super::view::{End, Opened, Phase, View};
use super::Fail;
use crate::playout::melds as playout_melds;
use crate::solver::{MeldKind, FAKE};

pub fn colour_of(t: u8) -> u8 {
    t / 13
}
pub fn number_of(t: u8) -> i64 {
    i64::from(t % 13) + 1
}
pub fn make(colour: u8, number: i64) -> u8 {
    colour * 13 + (number - 1) as u8
}
pub fn face_value(t: u8, okey: u8) -> i64 {
    if t == FAKE {
        number_of(okey)
    } else {
        number_of(t)
    }
}
pub fn stands_at(colour: u8, position: i64) -> u8 {
    make(colour, if position == 14 { 1 } else { position })
}

impl PMeld {
    /// `Meld.value`: tile values added up, a joker as what it stands for, 14 as 1.
    pub fn value(&self) -> i64 {
        if self.kind == MeldKind::Run {
            let n = self.tiles.len() as i64;
            let end = self.start + n - 1;
            return (self.start + end) * n / 2 - if end == 14 { 13 } else { 0 };
        }
        self.tiles.iter().map(|&(_, s)| number_of(s)).sum()
    }
    pub fn number(&self) -> i64 {
        number_of(self.tiles[0].1)
    }
    pub fn colour(&self) -> u8 {
        colour_of(self.tiles[0].1)
    }
    /// `melds.extension_positions`.
    pub fn extension_positions(&self, wraps: bool) -> Vec<i64> {
        if self.kind != MeldKind::Run {
            return vec![];
        }
        let mut out = vec![];
        let end = self.start + self.tiles.len() as i64 - 1;
        if self.start > 1 {
            out.push(self.start - 1);
        }
        if end < if wraps { 14 } else { 13 } {
            out.push(end + 1);
        }
        out
    }
    /// `melds.missing_colours`.
    pub fn missing_colours(&self) -> Vec<u8> {
        if self.kind != MeldKind::Group {
            return vec![];
        }
        (0..4).filter(|&c| self.tiles.iter().all(|&(_, s)| colour_of(s) != c)).collect()
    }
    /// `melds.lay_off_ends` (through `lay_off_targets`, `extension_positions` and
    /// `missing_colours`, without their lists: it is asked of every meld for every tile).
    pub fn lay_off_ends(&self, tile: u8, okey: u8, wraps: bool) -> Vec<End> {
        let stands = if tile == FAKE { okey } else { tile };
        match self.kind {
            MeldKind::Pair => vec![],
            MeldKind::Group => {
                let missing = |c: u8| self.tiles.iter().all(|&(_, s)| colour_of(s) != c);
                let fits = if tile == okey {
                    (0..4).any(missing)
                } else {
                    number_of(stands) == self.number() && missing(colour_of(stands))
                };
                if fits { vec![End::Group] } else { vec![] }
            }
            MeldKind::Run => {
                let end = self.start + self.tiles.len() as i64 - 1;
                let low = (self.start > 1).then(|| (self.start - 1, End::Low));
                let high = (end < if wraps { 14 } else { 13 }).then(|| (end + 1, End::High));
                low.into_iter()
                    .chain(high)
                    .filter(|&(p, _)| tile == okey || stands_at(self.colour(), p) == stands)
                    .map(|(_, e)| e)
                    .collect()
            }
        }
    }
}

/// `melds.is_playable`.
pub fn is_playable(tile: u8, melds: &[PMeld], okey: u8, wraps: bool) -> bool {
    if tile == okey {
        return melds.iter().any(|m| {
            m.kind != MeldKind::Pair
                && (!m.extension_positions(wraps).is_empty() || !m.missing_colours().is_empty())
        });
    }
    let stands = if tile == FAKE { okey } else { tile };
    let (colour, number) = (colour_of(stands), number_of(stands));
    let top = if wraps { 14 } else { 13 };
    melds.iter().any(|m| match m.kind {
        MeldKind::Run => {
            if m.tiles[0].1 / 13 != colour {
                return false;
            }
            let (low, high) = (m.start - 1, m.start + m.tiles.len() as i64);
            (low >= 1 && low == number) || (high <= top && (high == number || (high == 14 && number == 1)))
        }
        MeldKind::Group => {
            m.tiles.len() < 4
                && number_of(m.tiles[0].1) == number
                && m.tiles.iter().all(|&(_, s)| s / 13 != colour)
        }
        MeldKind::Pair => false,
    })
}

/// `melds.replace_okey`, as the simulator swaps an okey (`playout::melds::replace_okey`).
pub fn replace_okey(meld: &PMeld, okey: u8, put: &[u8]) -> PMeld {
    from_playout(crate::playout::melds::replace_okey(&to_playout(meld), okey, put))
}

pub fn played(melds: &[PMeld]) -> Vec<u8> {
    melds.iter().flat_map(|m| m.tiles.iter().map(|&(t, _)| t)).collect()
}

pub fn without(rack: &[u8], gone: &[u8]) -> Vec<u8> {
    let mut out = rack.to_vec();
    for t in gone {
        if let Some(i) = out.iter().position(|u| u == t) {
            out.remove(i);
        }
    }
    out
}

/// `seat.keep_one`: `melds` trimmed so that a tile stays in the rack for the discard.
pub fn keep_one(melds: &[PMeld], rack_size: usize, protect: Option<u8>) -> Vec<PMeld> {
    let mut melds = melds.to_vec();
    if melds.iter().map(|m| m.tiles.len()).sum::<usize>() < rack_size {
        return melds;
    }
    let prot = |t: u8| protect == Some(t);
    for i in 0..melds.len() {
        let m = &melds[i];
        if m.kind == MeldKind::Run && m.tiles.len() >= 4 {
            if !prot(m.tiles[m.tiles.len() - 1].0) {
                let t = m.tiles[..m.tiles.len() - 1].to_vec();
                melds[i] = PMeld { kind: MeldKind::Run, tiles: t, start: m.start };
                return melds;
            }
            if !prot(m.tiles[0].0) && m.start < 14 {
                let t = m.tiles[1..].to_vec();
                melds[i] = PMeld { kind: MeldKind::Run, tiles: t, start: m.start + 1 };
                return melds;
            }
        }
        if m.kind == MeldKind::Group && m.tiles.len() == 4 {
            for j in 0..4 {
                if !prot(m.tiles[j].0) {
                    let mut rest = m.tiles.clone();
                    rest.remove(j);
                    melds[i] = PMeld { kind: MeldKind::Group, tiles: rest, start: 0 };
                    return melds;
                }
            }
        }
    }
    if melds.is_empty() {
        return melds;
    }
    let key = |m: &PMeld| (protect.is_some_and(|p| m.tiles.iter().any(|&(t, _)| t == p)), m.value());
    let mut first = 0;
    for i in 1..melds.len() {
        if key(&melds[i]) < key(&melds[first]) {
            first = i;
        }
    }
    melds.remove(first);
    melds
}

/// `solver.pairs_of`: one largest set of pairs, jokers matched with the highest singles.
pub fn pairs_of(rack: &[u8], okey: u8) -> Vec<PMeld> {
    let mut pool = rack.to_vec();
    pool.sort_by_key(|&t| if t != okey { -face_value(t, okey) } else { 0 });
    let mut jokers = pool.iter().filter(|&&t| t == okey).count();
    // the tiles standing for one kind are alike (a fake okey's kind is the fakes'): each
    // kind as (stands, its tile, copies), in the order first met
    let mut by_stands: Vec<(u8, u8, usize)> = Vec::with_capacity(pool.len());
    for &t in &pool {
        if t != okey {
            let s = if t == FAKE { okey } else { t };
            match by_stands.iter_mut().find(|k| k.0 == s) {
                Some(k) => k.2 += 1,
                None => by_stands.push((s, t, 1)),
            }
        }
    }
    let mut out = Vec::with_capacity(by_stands.len() / 2 + 2);
    let mut singles = Vec::with_capacity(by_stands.len());
    for &(stands, tile, copies) in &by_stands {
        if copies == 2 {
            out.push(PMeld { kind: MeldKind::Pair, tiles: vec![(tile, stands), (tile, stands)], start: 0 });
        } else {
            singles.push(tile);
        }
    }
    for single in singles {
        if jokers == 0 {
            break;
        }
        jokers -= 1;
        let stands = if single == FAKE { okey } else { single };
        out.push(PMeld { kind: MeldKind::Pair, tiles: vec![(single, stands), (okey, stands)], start: 0 });
    }
    if jokers == 2 {
        out.push(PMeld { kind: MeldKind::Pair, tiles: vec![(okey, okey), (okey, okey)], start: 0 });
    }
    out
}

/// `melds.melds_with`: runs (3-5 long) and groups from `rack` that use `tile`, as the
/// simulator finds them (`playout::takes::melds_with`, the one port of it).
pub fn melds_with(rack: &[u8], tile: u8, okey: u8, wraps: bool) -> Vec<PMeld> {
    crate::playout::takes::melds_with(rack, tile, okey, wraps).into_iter().map(from_playout).collect()
}

/// The simulator's meld (`playout::melds::Meld`, whose ports of `melds.py` this reading
/// shares) as the policy holds it, and back.
fn from_playout(m: playout_melds::Meld) -> PMeld {
    let kind = match m.kind {
        playout_melds::RUN => MeldKind::Run,
        playout_melds::GROUP => MeldKind::Group,
        _ => MeldKind::Pair,
    };
    PMeld { kind, tiles: m.tiles, start: i64::from(m.start) }
}

fn to_playout(m: &PMeld) -> playout_melds::Meld {
    let kind = match m.kind {
        MeldKind::Run => playout_melds::RUN,
        MeldKind::Group => playout_melds::GROUP,
        MeldKind::Pair => playout_melds::PAIR,
    };
    // a run starts at 1..14, the rest at 0: within i32
    playout_melds::Meld { kind, tiles: m.tiles.clone(), start: m.start as i32 }
}

/// One seat at one command (`bots/seat.py`'s `Seat`), over a packed view.
pub struct Seat<'v> {
    pub v: &'v View,
    pub okey: u8,
    pub wraps: bool,
}

impl<'v> Seat<'v> {
    pub fn new(v: &'v View) -> Self {
        Seat { v, okey: v.okey, wraps: v.p.wraps }
    }

    /// The solve of `rack` (from the memo of the scope the policy runs in).
    fn solve(&self, rack: &[u8], weight: Option<i64>, unit: bool) -> Result<Rc<Solution>, Fail> {
        crate::memo::solved(rack, self.okey, self.wraps, weight, unit)
            .map_err(|e| match e {
                crate::solve::SolveError::Malformed(why) => Fail::Malformed(format!("rack: {why}")),
                crate::solve::SolveError::Inconsistent(why) => Fail::Inconsistent(why),
            })
    }

    pub fn value(&self, t: u8) -> i64 {
        if t == self.okey {
            self.v.p.okey_value
        } else {
            face_value(t, self.okey)
        }
    }
    pub fn stands(&self, t: u8) -> u8 {
        if t == FAKE {
            self.okey
        } else {
            t
        }
    }

    pub fn arrange(&mut self, rack: &[u8]) -> Result<Rc<Solution>, Fail> {
        self.solve(rack, Some(self.v.p.okey_value), false)
    }
    pub fn leftover(&mut self, rack: &[u8]) -> Result<i64, Fail> {
        Ok(self.arrange(rack)?.leftover.iter().map(|&t| self.value(t)).sum())
    }
    /// `solver.fewest_left` (düz).
    pub fn fewest_left(&mut self, rack: &[u8]) -> Result<Rc<Solution>, Fail> {
        self.solve(rack, Some(1), true)
    }
    /// `Seat.opening` (exact): the best opening in the house's count.
    pub fn opening(&mut self, rack: &[u8]) -> Result<Rc<Solution>, Fail> {
        if self.v.p.third {
            return Err(Fail::NotPorted("the \"34\" count's opening (solver._opening_third)"));
        }
        self.solve(rack, None, false)
    }
    pub fn worth(&self, melds: &[PMeld]) -> i64 {
        melds.iter().map(|m| if self.v.p.third { m.value() / 3 } else { m.value() }).sum()
    }
    pub fn in_count(&self, points: i64) -> i64 {
        if self.v.p.third {
            points / 3
        } else {
            points
        }
    }

    pub fn me(&self) -> &super::view::SeatPub {
        &self.v.seats[self.v.seat]
    }
    pub fn opened(&self) -> Opened {
        self.me().opened
    }
    pub fn rack(&self) -> &[u8] {
        &self.v.rack
    }
    pub fn drawing(&self) -> bool {
        self.v.phase == Phase::Draw
    }
    pub fn anybody_opened_pairs(&self) -> bool {
        self.v.seats.iter().any(|s| s.opened == Opened::Pairs)
    }
    pub fn may_touch_table(&self) -> bool {
        self.v.may_lay_off
    }
    pub fn may_lay_off_more(&self) -> bool {
        self.v.lay_off_room != Some(0)
    }
    pub fn playable(&self, t: u8) -> bool {
        is_playable(t, &self.v.melds, self.okey, self.wraps)
    }
    pub fn is_full(&self, meld: i64, end: End) -> bool {
        self.v.full_run_ends.iter().any(|&(m, e)| m == meld && e == end)
    }
    /// The rules' detail is answered only for the seat to act in its play phase.
    fn has_detail(&self) -> bool {
        self.v.to_act == self.v.seat as i64 && self.v.phase == Phase::Play
    }

    /// `rules.penalised_discards` (through `Seat.penalised`).
    pub fn penalised(&self, t: u8) -> bool {
        let p = &self.v.p;
        if !self.has_detail() || !p.penalties || self.v.rack.len() == 1 || !self.v.rack.contains(&t) {
            return false;
        }
        if t == self.okey {
            return p.okey_penalty != 0;
        }
        p.playable_penalty != 0 && self.playable(t)
    }

    fn run_end_room_open(&self, meld: i64, end: End) -> bool {
        let Some(limit) = self.v.p.run_end_limit else { return true };
        if end == End::Group {
            return true;
        }
        let before = self.v.end_counts.iter().find(|&&(m, e, _)| m == meld && e == end).map_or(0, |x| x.2);
        (limit - before).max(0) != 0
    }

    /// `Seat.lay_off_for` over `rules.lay_off_options`: the first option for `tile`.
    pub fn lay_off_for(&self, tile: u8) -> Option<(i64, End)> {
        if !self.has_detail() || !self.v.may_lay_off || self.v.rack.len() < 2 || self.v.lay_off_room == Some(0) {
            return None;
        }
        if !self.v.rack.contains(&tile) {
            return None;
        }
        for (i, m) in self.v.melds.iter().enumerate() {
            for end in m.lay_off_ends(tile, self.okey, self.wraps) {
                if self.run_end_room_open(i as i64, end) {
                    return Some((i as i64, end));
                }
            }
        }
        None
    }

    /// `rules.okey_take_options`: (meld, tiles to put) for each okey this seat may take.
    pub fn okey_takes(&self) -> Vec<(i64, Vec<u8>)> {
        if !self.has_detail() || !self.v.may_lay_off {
            return vec![];
        }
        let mut have = [0usize; 53];
        for &t in &self.v.rack {
            have[t as usize] += 1;
        }
        let mut out = vec![];
        for (i, m) in self.v.melds.iter().enumerate() {
            let jokers: Vec<u8> = m.tiles.iter().filter(|&&(p, _)| p == self.okey).map(|&(_, s)| s).collect();
            if jokers.is_empty() {
                continue;
            }
            let put = if m.kind == MeldKind::Group && m.tiles.len() == 3 {
                if !self.v.p.groups_complete_all {
                    continue;
                }
                let mut need = m.missing_colours();
                need.push(colour_of(jokers[0]));
                let mut put: Vec<u8> = need.into_iter().map(|c| make(c, m.number())).collect();
                put.sort_unstable();
                put
            } else {
                vec![jokers[0]]
            };
            let mut want = [0usize; 53];
            for &t in &put {
                want[t as usize] += 1;
            }
            if (0..53).all(|t| have[t] >= want[t]) {
                out.push((i as i64, put));
            }
        }
        out
    }
}
