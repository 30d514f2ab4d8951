//! A whole playout in the compiled core (issue 39): level 2 (`crate::policy`) in every seat,
//! each from its own view of the simulator's state, until the hand ends, as
//! `okey101.bots.level4.playout` plays it in Python. The view is built here straight from
//! the simulator, field for field what `okey101.native_policy.pack(player_view(state,
//! seat))` gives (the `SeatRules` answered as `table.views.seat_rules` does).
//! tests/properties/test_native_whole_playout.py checks it against the Python.
use pyo3::exceptions::PyAssertionError;
use pyo3::prelude::*;

use super::melds::{GROUP_END, PAIR, RUN};
use super::{refuse, HandSim, Rejected, Tokens, DRAW, FAKE, NONE, OVER, PAIRS, PLAY, POINTS, SEATS};
use crate::policy::view::{self, End, Opened, Options as ViewOptions, Phase, SeatPub, View};
use crate::policy::{self, Command, Fail, PMeld};
use crate::solver::MeldKind;

// `okey101.native_policy.ALLOWED`'s bits
const A_DRAW: u32 = 1 << 0;
const A_TAKE: u32 = 1 << 1;
const A_PUT_BACK: u32 = 1 << 2;
const A_DECLARE: u32 = 1 << 3;
const A_SHOW: u32 = 1 << 4;
const A_OPEN: u32 = 1 << 5;
const A_LAY: u32 = 1 << 6;
const A_LAY_OFF: u32 = 1 << 7;
const A_TAKE_OKEY: u32 = 1 << 8;
const A_DISCARD: u32 = 1 << 9;
const A_FINISH: u32 = 1 << 10;

fn opt(v: Option<i64>) -> i64 {
    v.unwrap_or(-1)
}

fn refill<T>(v: &mut Vec<T>, items: impl IntoIterator<Item = T>) {
    v.clear();
    v.extend(items);
}

/// The view's fields computed from the rules (`view_fields`).
struct Shared {
    top: Option<u8>,
    owed: Option<u8>,
    allowed: u32,
    may_lay_off: bool,
    lay_off_room: Option<i64>,
    elden_open: bool,
    may_open_pairs: bool,
}

impl HandSim {
    /// `table.views.hand_fields`' available_discard.
    fn available_discard(&self) -> Option<u8> {
        if self.put_back || self.phase != DRAW {
            return None;
        }
        self.seats[(self.to_act + SEATS - 1) % SEATS].discards.last().copied()
    }

    /// `rules.owed_take` for the seat to act.
    fn owed_tile(&self) -> Option<u8> {
        let taken = self.taken?;
        if self.rules.duz {
            return None;
        }
        if self.seats[self.to_act].opened == NONE {
            return Some(taken);
        }
        (self.rules.o.opened_take_must_use && !self.laid.contains(&taken)).then_some(taken)
    }

    /// `rules.check_take_discard`'s gate, changing nothing.
    fn may_take_discard(&self, seat: usize) -> PyResult<bool> {
        let Some(tile) = self.available_discard_any(seat) else {
            return Ok(false);
        };
        if self.put_back {
            return Ok(false);
        }
        let o = &self.rules.o;
        if tile == self.okey && !o.discarded_okey_takeable {
            return Ok(false);
        }
        if self.rules.duz {
            return Ok(true);
        }
        let opened = self.seats[seat].opened != NONE;
        if !opened && !o.put_back_allowed && !self.can_open_with(seat, tile).map_err(|e| refuse(&e))? {
            return Ok(false);
        }
        if opened && o.opened_take_must_use && !self.can_use(seat, tile) {
            return Ok(false);
        }
        Ok(true)
    }

    fn available_discard_any(&self, seat: usize) -> Option<u8> {
        self.seats[(seat + SEATS - 1) % SEATS].discards.last().copied()
    }

    /// `rules.allowed_commands` for the seat to act (the hand not over), as bits.
    fn allowed_bits(&self) -> PyResult<u32> {
        let (seat, o) = (self.to_act, &self.rules.o);
        let me = &self.seats[seat];
        let mut bits = 0;
        if self.phase == DRAW {
            bits |= A_DRAW;
            if self.may_take_discard(seat)? {
                bits |= A_TAKE;
            }
        }
        if self.phase == PLAY {
            if o.put_back_allowed && self.taken.is_some() && self.laid.is_empty() {
                bits |= A_PUT_BACK;
            }
            if !self.rules.duz && me.opened == NONE {
                bits |= A_OPEN;
            }
            if !self.rules.duz && me.opened != NONE {
                bits |= A_LAY;
            }
            if self.table_access(seat).is_none() {
                bits |= A_LAY_OFF | A_TAKE_OKEY;
            }
            if self.owed_take().is_none() {
                bits |= A_DISCARD;
            }
            if self.rules.duz {
                bits |= A_FINISH;
            }
        }
        if o.pairs_need_declaration && me.opened == NONE && !me.declared_pairs {
            bits |= A_DECLARE;
        }
        if (o.indicator_pair || o.indicator_show_cost != 0)
            && !me.has_played
            && self.taken.is_none()
            && (seat == self.starter || self.phase == DRAW)
            && !me.shown_indicator
            && me.rack.contains(&self.indicator)
        {
            bits |= A_SHOW;
        }
        Ok(bits)
    }

    /// `rules.run_end_room` == 0 for the scratch's run ends: `rules.full_run_ends`.
    fn full_run_ends(&self) -> Vec<(usize, u8)> {
        let Some(limit) = self.rules.o.run_end_lay_off_limit else {
            return vec![];
        };
        self.end_counts
            .iter()
            .filter(|&&(m, e, _)| {
                e != GROUP_END && {
                    let before = self
                        .end_counts
                        .iter()
                        .find(|&&(m2, e2, _)| (m2, e2) == (m, e))
                        .map_or(0, |&(_, _, n)| n);
                    (limit - before).max(0) == 0
                }
            })
            .map(|&(m, e, _)| (m, e))
            .collect()
    }

    /// The fields `packed_view` and `view` share, computed once.
    fn view_fields(&self) -> PyResult<Shared> {
        let (o, me) = (&self.rules.o, &self.seats[self.to_act]);
        Ok(Shared {
            top: self.available_discard(),
            owed: self.owed_tile(),
            allowed: self.allowed_bits()?,
            may_lay_off: self.table_access(self.to_act).is_none(),
            lay_off_room: (me.opened == PAIRS)
                .then_some(o.pairs_opener_lay_off_limit)
                .flatten()
                .map(|limit| i64::from((limit - self.lay_offs).max(0))),
            elden_open: self.is_elden_open(self.to_act),
            may_open_pairs: !self.rules.duz
                && me.opened == NONE
                && (!o.pairs_need_declaration || me.declared_pairs),
        })
    }

    /// What `okey101.native_policy.pack(player_view(state, to_act))` gives for this state.
    pub(crate) fn packed_view(&self) -> PyResult<Vec<i64>> {
        let (o, seat) = (&self.rules.o, self.to_act);
        let me = &self.seats[seat];
        let f = self.view_fields()?;
        let mut out: Vec<i64> = vec![
            1,
            i64::from(self.rules.duz),
            i64::from(o.penalties),
            i64::from(o.opened_with_discard_multiplier),
            i64::from(o.okey_in_rack_value),
            i64::from(o.run_wraps_13_to_1),
            i64::from(self.rules.third),
            i64::from(o.opened_take_must_use),
            i64::from(o.playable_discard_penalty),
            i64::from(o.okey_discard_penalty),
            opt(o.run_end_lay_off_limit.map(i64::from)),
            i64::from(self.rules.complete_all_colours),
            i64::from(o.multiplier_cap),
            seat as i64,
            self.to_act as i64,
            self.turn,
            i64::from(self.okey),
            i64::from(self.indicator),
            i64::from(self.phase),
            opt(f.top.map(i64::from)),
            opt(self.taken.map(i64::from)),
            opt(f.owed.map(i64::from)),
            i64::from(f.allowed),
            i64::from(f.may_lay_off),
            opt(f.lay_off_room),
            i64::from(f.elden_open),
            i64::from(f.may_open_pairs),
        ];
        out.push(me.rack.len() as i64);
        out.extend(me.rack.iter().map(|&t| i64::from(t)));
        out.push(self.laid.len() as i64);
        out.extend(self.laid.iter().map(|&t| i64::from(t)));
        out.push(self.end_counts.len() as i64);
        for &(m, e, n) in &self.end_counts {
            out.extend([m as i64, i64::from(e), i64::from(n)]);
        }
        let full = self.full_run_ends();
        out.push(full.len() as i64);
        for (m, e) in full {
            out.extend([m as i64, i64::from(e)]);
        }
        for (i, s) in self.seats.iter().enumerate() {
            out.extend([
                i64::from(s.opened),
                s.rack.len() as i64,
                i64::from(s.shown_indicator),
                i64::from(self.threshold(i, POINTS)),
                i64::from(self.threshold(i, PAIRS)),
                s.discards.len() as i64,
            ]);
            out.extend(s.discards.iter().map(|&t| i64::from(t)));
        }
        out.push(self.melds.len() as i64);
        for m in &self.melds {
            let kind = match m.meld.kind {
                RUN => 0,
                PAIR => 2,
                _ => 1,
            };
            out.extend([kind, i64::from(m.meld.start), m.owner as i64, m.meld.tiles.len() as i64]);
            for &(played, stands) in &m.meld.tiles {
                out.extend([i64::from(played), i64::from(self.seen_stands(played, stands))]);
            }
        }
        Ok(out)
    }

    /// `view::unpack(packed_view())`, built without the packing (the playout's hot path).
    pub(crate) fn view(&self) -> PyResult<View> {
        let mut v = View::default();
        self.view_into(&mut v)?;
        Ok(v)
    }

    /// `view` written over `v`, its buffers kept (a playout builds one a command): a state
    /// the packing's ranges would refuse goes through the packing, for the same refusal.
    pub(crate) fn view_into(&self, v: &mut View) -> PyResult<()> {
        let (o, seat) = (&self.rules.o, self.to_act);
        let f = self.view_fields()?;
        let end = |e: u8| match e {
            0 => End::Low,
            1 => End::High,
            _ => End::Group,
        };
        v.p = ViewOptions {
            duz: self.rules.duz,
            penalties: o.penalties,
            feed_multiplier: i64::from(o.opened_with_discard_multiplier),
            okey_value: i64::from(o.okey_in_rack_value),
            wraps: o.run_wraps_13_to_1,
            third: self.rules.third,
            take_must_use: o.opened_take_must_use,
            playable_penalty: i64::from(o.playable_discard_penalty),
            okey_penalty: i64::from(o.okey_discard_penalty),
            run_end_limit: o.run_end_lay_off_limit.map(i64::from),
            groups_complete_all: self.rules.complete_all_colours,
            multiplier_cap: i64::from(o.multiplier_cap),
        };
        v.seat = seat;
        v.to_act = seat as i64;
        v.turn = self.turn;
        v.okey = self.okey;
        v.indicator = self.indicator;
        v.phase = match self.phase {
            DRAW => Phase::Draw,
            PLAY => Phase::Play,
            _ => Phase::Other,
        };
        v.top = f.top;
        v.taken = self.taken;
        v.owed = f.owed;
        v.allowed = f.allowed;
        v.may_lay_off = f.may_lay_off;
        v.lay_off_room = f.lay_off_room;
        v.elden_open = f.elden_open;
        v.may_open_pairs = f.may_open_pairs;
        refill(&mut v.rack, self.seats[seat].rack.iter().copied());
        refill(&mut v.laid, self.laid.iter().copied());
        refill(&mut v.end_counts, self.end_counts.iter().map(|&(m, e, n)| (m as i64, end(e), i64::from(n))));
        refill(&mut v.full_run_ends, self.full_run_ends().into_iter().map(|(m, e)| (m as i64, end(e))));
        v.seats.resize_with(SEATS, SeatPub::default);
        for (i, (to, s)) in v.seats.iter_mut().zip(&self.seats).enumerate() {
            to.opened = match s.opened {
                NONE => Opened::No,
                POINTS => Opened::Points,
                _ => Opened::Pairs,
            };
            to.rack_size = s.rack.len() as i64;
            to.shown_indicator = s.shown_indicator;
            to.points_needed = i64::from(self.threshold(i, POINTS));
            to.pairs_needed = i64::from(self.threshold(i, PAIRS));
            refill(&mut to.discards, s.discards.iter().copied());
        }
        v.melds.truncate(self.melds.len());
        for (i, m) in self.melds.iter().enumerate() {
            if i == v.melds.len() {
                v.melds.push(PMeld { kind: MeldKind::Run, tiles: Vec::with_capacity(m.meld.tiles.len()), start: 0 });
            }
            let to = &mut v.melds[i];
            to.kind = match m.meld.kind {
                RUN => MeldKind::Run,
                PAIR => MeldKind::Pair,
                _ => MeldKind::Group,
            };
            refill(&mut to.tiles, m.meld.tiles.iter().map(|&(p, s)| (p, self.seen_stands(p, s))));
            to.start = i64::from(m.meld.start);
        }
        refill(&mut v.owners, self.melds.iter().map(|m| m.owner as i64));
        if !view::within_packing(v) {
            *v = view::unpack(&self.packed_view()?).map_err(|why| policy::py_error(Fail::Malformed(why)))?;
        }
        Ok(())
    }

    /// What a placed tile stands for in the public notation (`melds.placed_name`, read
    /// back by `melds.place`): a joker what it is named, a fake okey the okey, any other
    /// tile itself (an indicator twin pairing as a joker shows as itself).
    fn seen_stands(&self, played: u8, stands: u8) -> u8 {
        if played == self.okey {
            stands
        } else if played == FAKE {
            self.okey
        } else {
            played
        }
    }

    /// The policy's command as `native_table.native_call` gives it to the simulator (via
    /// `native_policy.command_of`'s tokens).
    fn apply(&mut self, seat: usize, c: Command) -> PyResult<Rejected> {
        let okey = self.okey;
        let token = |(played, stands): (u8, u8)| -> (i64, i64) {
            let named = played == okey && stands != okey;
            (i64::from(played), if named { i64::from(stands) } else { -1 })
        };
        let groups = |melds: Vec<PMeld>| -> Vec<Tokens> {
            melds.into_iter().map(|m| m.tiles.into_iter().map(token).collect()).collect()
        };
        let split = |pairs: bool, melds: Vec<PMeld>| {
            let g = groups(melds);
            if pairs { (vec![], g) } else { (g, vec![]) }
        };
        let s = seat as i64;
        match c {
            Command::ShowIndicator => self.show_indicator(s),
            Command::Draw => self.draw(s),
            Command::TakeDiscard => self.take_discard(s),
            Command::PutBack => self.put_back(s),
            Command::DeclarePairs => self.declare_pairs(s),
            Command::Open { pairs, melds } => {
                let (m, p) = split(pairs, melds);
                self.open(s, m, p)
            }
            Command::Lay { pairs, melds } => {
                let (m, p) = split(pairs, melds);
                self.lay(s, m, p)
            }
            Command::LayOff { meld, tile, end } => {
                let end = match end.code() {
                    0 => Some("low"),
                    1 => Some("high"),
                    _ => None,
                };
                self.lay_off(s, meld, vec![(i64::from(tile), -1)], end)
            }
            Command::TakeOkey { meld, tiles } => {
                self.take_okey(s, meld, tiles.iter().map(|&t| i64::from(t)).collect())
            }
            Command::Discard(t) => self.discard(s, i64::from(t)),
            Command::Finish { tile, pairs, melds } => {
                let (m, p) = split(pairs, melds);
                self.finish(s, i64::from(tile), m, p)
            }
        }
    }
}

impl HandSim {
    /// The packed view of the seat to act (`native_policy.pack(player_view(...))`), and
    /// a check that `view` builds what it unpacks to.
    pub(crate) fn view_of_to_act(&self) -> PyResult<Vec<i64>> {
        if self.phase == OVER {
            return Err(refuse("a view of a hand that is over"));
        }
        let packed = self.packed_view()?;
        if let Ok(unpacked) = view::unpack(&packed) {
            let built = self.view()?;
            if built != unpacked {
                return Err(PyAssertionError::new_err(format!(
                    "the view built from the state {built:?} is not the packed view unpacked {unpacked:?}"
                )));
            }
        }
        Ok(packed)
    }

    /// `HandSim.play_out`'s body.
    pub(crate) fn play_out_native(&mut self, cap: usize) -> PyResult<(bool, usize, Vec<i32>)> {
        crate::memo::scoped(|| self.play_out_in_scope(cap))
    }

    fn play_out_in_scope(&mut self, cap: usize) -> PyResult<(bool, usize, Vec<i32>)> {
        let mut played = 0;
        let mut view = View::default();
        while played < cap && self.phase != OVER {
            let seat = self.to_act;
            self.view_into(&mut view)?;
            let command = policy::command_of(&view).map_err(policy::py_error)?;
            played += 1;
            if let Some(code) = self.apply(seat, command)? {
                return Err(refuse(&format!("a rejected command ({code})'s time-out")));
            }
        }
        Ok((self.phase == OVER, played, self.penalties.to_vec()))
    }
}
