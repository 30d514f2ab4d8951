//! Whether a taken discard can be used or opened with this turn, ported from
//! `okey101/table/rules/takes.py` (`can_open_with`, `can_open_pairs_with`,
//! `can_open_points_with`, `opening_within`, `_can_go_elden_with`, `can_use`) and
//! `melds.melds_with`, on the crate's solver (`crate::solve::solve`, the solve the Python
//! solver itself calls when the core is built, and `crate::solver`'s rack tests).
use super::melds::{as_group, make, stands_at, Meld, Placed, RUN};
use super::score::face_value;
use super::{HandSim, FAKE, PAIRS, POINTS};
use std::rc::Rc;

use crate::memo::Solution;
use crate::solver::{holds, meldable, most_pairs};

/// Why a take check cannot be answered natively (the caller raises NotImplementedError).
pub(crate) type Unanswered = String;

/// `melds._shapes_with`: every run (3-5 long) and group shape holding `stands`.
fn shapes_with(stands: u8, wraps: bool) -> Vec<(u8, Vec<u8>, i32)> {
    let (colour, number) = (stands / 13, i32::from(stands % 13) + 1);
    let top = if wraps { 14 } else { 13 };
    let mut shapes = Vec::new();
    let mut positions = vec![number];
    if wraps && number == 1 {
        positions.push(14);
    }
    for pos in positions {
        for length in [3, 4, 5] {
            for start in (pos - length + 1).max(1)..=pos.min(top - length + 1) {
                let need = (start..start + length)
                    .map(|q| stands_at(colour, q))
                    .collect();
                shapes.push((RUN, need, start));
            }
        }
    }
    let others: Vec<u8> = (0..4).filter(|&c| c != colour).collect();
    for size in [2, 3] {
        for i in 0..others.len() {
            for j in i + 1..others.len() {
                let cols: Vec<u8> = if size == 2 {
                    vec![others[i], others[j]]
                } else {
                    others.clone()
                };
                let mut need = vec![stands];
                need.extend(cols.iter().map(|&x| make(x, number)));
                shapes.push((super::melds::GROUP, need, 0));
            }
        }
    }
    shapes
}

/// `melds._fill`: `need` filled from the rack's naturals (`tile` itself where it stands),
/// then jokers.
fn fill(
    need: &[u8],
    have: &[u32; 53],
    jokers: u32,
    tile: u8,
    stands: u8,
    okey: u8,
) -> Option<Vec<Placed>> {
    let mut pool = *have;
    let mut placed = Vec::with_capacity(need.len());
    let (mut spare, mut first) = (jokers, true);
    for &want in need {
        let mut natural = if want == okey && pool[FAKE as usize] > 0 {
            FAKE
        } else {
            want
        };
        if first && want == stands {
            natural = tile;
            first = false;
        }
        if pool[natural as usize] > 0 {
            pool[natural as usize] -= 1;
            placed.push((natural, want));
        } else if spare > 0 {
            spare -= 1;
            placed.push((okey, want));
        } else {
            return None;
        }
    }
    Some(placed)
}

/// `melds.melds_with`: runs (3-5 long) and groups from `rack` that use `tile`.
pub(crate) fn melds_with(rack: &[u8], tile: u8, okey: u8, wraps: bool) -> Vec<Meld> {
    let mut have = [0u32; 53];
    for &t in rack {
        have[t as usize] += 1;
    }
    let jokers = std::mem::take(&mut have[okey as usize]);
    let stands = if tile == FAKE { okey } else { tile };
    let mut out = Vec::new();
    for (kind, need, start) in shapes_with(stands, wraps) {
        let Some(placed) = fill(&need, &have, jokers, tile, stands, okey) else {
            continue;
        };
        if !placed.iter().any(|&(p, _)| p == tile) {
            continue;
        }
        let meld = if kind == RUN {
            Some(Meld {
                kind: RUN,
                tiles: placed,
                start,
            })
        } else {
            as_group(&placed)
        };
        out.extend(meld);
    }
    out
}

fn without(rack: &[u8], taken: impl IntoIterator<Item = u8>) -> Vec<u8> {
    let mut out = rack.to_vec();
    for t in taken {
        if let Some(at) = out.iter().position(|&x| x == t) {
            out.remove(at);
        }
    }
    out
}

/// A solve of `rack` (sorted, as `solver._solve` sorts it).
fn solved(rack: &[u8], okey: u8, wraps: bool, joker_weight: Option<i64>) -> Result<Rc<Solution>, Unanswered> {
    crate::memo::solved(rack, okey, wraps, joker_weight, false)
        .map_err(|e| format!("take_discard's solve of a rack ({e:?})"))
}

impl HandSim {
    /// `takes.opening_within` in the face count: the best opening of `rack`, or None when
    /// even every meldable tile's value cannot reach `need`.
    fn opening_within(
        &self,
        rack: &[u8],
        need: i32,
        ceiling: Option<u32>,
    ) -> Result<Option<Rc<Solution>>, Unanswered> {
        let wraps = self.rules.o.run_wraps_13_to_1;
        let ceiling = ceiling.unwrap_or_else(|| meldable(rack, self.okey, wraps).1);
        if i64::from(ceiling) < i64::from(need) {
            return Ok(None);
        }
        solved(rack, self.okey, wraps, None).map(Some)
    }

    /// `takes.can_open_with`: could `seat` open this turn with `tile` in the opening?
    pub(crate) fn can_open_with(&self, seat: usize, tile: u8) -> Result<bool, Unanswered> {
        if self.rules.third {
            return Err("take_discard's can_open_with in the \"34\" count".into());
        }
        let mut rack = self.seats[seat].rack.clone();
        rack.push(tile);
        if rack
            .iter()
            .any(|t| rack.iter().filter(|&x| x == t).count() > 2)
        {
            return Err(
                "take_discard's can_open_with of a rack holding a third copy of a \
                        tile (the Python solver's malformed)"
                    .into(),
            );
        }
        if self.can_open_pairs_with(seat, &rack, tile) {
            return Ok(true);
        }
        let wraps = self.rules.o.run_wraps_13_to_1;
        if tile != self.okey && !holds(&rack, tile, self.okey, wraps) {
            return Ok(false);
        }
        self.can_open_points_with(seat, &rack, tile)
    }

    fn can_open_pairs_with(&self, seat: usize, rack: &[u8], tile: u8) -> bool {
        let me = &self.seats[seat];
        if self.rules.o.pairs_need_declaration && !me.declared_pairs {
            return false;
        }
        let extra = u32::from(me.shown_indicator && me.rack.contains(&self.indicator));
        let pool = if extra == 1 {
            without(rack, [self.indicator])
        } else {
            rack.to_vec()
        };
        let twin = rack.iter().filter(|&&t| t == tile).count() >= 2
            || me.rack.contains(&self.okey)
            || (extra == 1 && tile != self.indicator);
        twin && most_pairs(&pool, self.okey, extra) as i32 >= self.threshold(seat, PAIRS)
    }

    fn can_open_points_with(&self, seat: usize, rack: &[u8], tile: u8) -> Result<bool, Unanswered> {
        let need = self.threshold(seat, POINTS);
        let wraps = self.rules.o.run_wraps_13_to_1;
        let (held, ceiling) = meldable(rack, self.okey, wraps);
        let best = self.opening_within(rack, need, Some(ceiling))?;
        if let Some(found) = &best {
            if found.value >= i64::from(need) {
                if found
                    .melds
                    .iter()
                    .any(|m| m.tiles.iter().any(|&(p, _)| p == tile))
                {
                    return Ok(true);
                }
                for m in melds_with(rack, tile, self.okey, wraps) {
                    let rest = without(rack, m.tiles.iter().map(|&(p, _)| p));
                    let value = m.value();
                    if let Some(rest) = self.opening_within(&rest, need - value, None)? {
                        if i64::from(value) + rest.value >= i64::from(need) {
                            return Ok(true);
                        }
                    }
                }
            }
        }
        let most = match &best {
            Some(found) => found.value,
            None => i64::from(ceiling),
        };
        self.can_go_elden_with(seat, rack, tile, held, most)
    }

    /// `takes._can_go_elden_with`: could `rack` be laid whole bar one discard, `tile` laid?
    fn can_go_elden_with(
        &self,
        seat: usize,
        rack: &[u8],
        tile: u8,
        held: u32,
        most: i64,
    ) -> Result<bool, Unanswered> {
        if !self.is_elden_open(seat) {
            return Ok(false);
        }
        let (okey, wraps) = (self.okey, self.rules.o.run_wraps_13_to_1);
        if (held as usize) + 1 < rack.len() {
            return Ok(false);
        }
        let naturals: Vec<i64> = rack
            .iter()
            .filter(|&&t| t != okey)
            .map(|&t| i64::from(face_value(t, okey)))
            .collect();
        if let Some(&top) = naturals.iter().max() {
            if most < naturals.iter().sum::<i64>() - top {
                return Ok(false);
            }
        }
        let leftover_value = |left: &[u8]| -> i64 {
            left.iter()
                .map(|&t| {
                    if t == okey {
                        101
                    } else {
                        i64::from(face_value(t, okey))
                    }
                })
                .sum()
        };
        let count = |t: u8| rack.iter().filter(|&&x| x == t).count();
        let first = &solved(rack, okey, wraps, Some(101))?.leftover;
        if first.len() == 1 && (first[0] != tile || count(tile) > 1) {
            return Ok(true);
        }
        let least = leftover_value(first);
        let mut kinds = rack.to_vec();
        kinds.sort_unstable();
        kinds.dedup();
        for u in kinds {
            if (u == tile && count(tile) < 2) || leftover_value(&[u]) < least {
                continue;
            }
            if solved(&without(rack, [u]), okey, wraps, Some(101))?.leftover.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `takes.can_use`: could an opened `seat` lay `tile` this turn?
    pub(crate) fn can_use(&self, seat: usize, tile: u8) -> bool {
        let (okey, wraps) = (self.okey, self.rules.o.run_wraps_13_to_1);
        if super::is_playable(tile, &self.melds, okey, wraps) {
            return true;
        }
        let me = &self.seats[seat];
        let pairs_open = me.opened == PAIRS || self.seats.iter().any(|s| s.opened == PAIRS);
        if pairs_open
            && me.rack.len() >= 2
            && (me.rack.contains(&tile) || me.rack.contains(&okey) || tile == okey)
        {
            return true;
        }
        if me.opened == PAIRS {
            return false;
        }
        let mut rack = me.rack.clone();
        rack.push(tile);
        melds_with(&rack, tile, okey, wraps)
            .iter()
            .any(|m| m.tiles.len() <= me.rack.len())
    }
}
