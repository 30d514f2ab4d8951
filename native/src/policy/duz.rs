//! Düz at level 2 (`bots/duz.py`'s `DuzPlay` with level 2, and `rules.best_finish` /
//! `solver.finishes` for the finish it shows).
use super::knowledge::near;
use super::seat::{face_value, pairs_of, played, without, PMeld, Seat};
use super::{Command, Fail};
use crate::solver::most_pairs;

type F<T> = Result<T, Fail>;

fn distance(s: &mut Seat, rack: &[u8]) -> F<i64> {
    let melds = s.fewest_left(rack)?.leftover.len() as i64;
    let pairs = rack.len() as i64 - 2 * i64::from(most_pairs(rack, s.okey, 0));
    Ok(melds.min(pairs))
}

fn partners(s: &Seat, tile: u8) -> i64 {
    without(s.rack(), &[tile])
        .into_iter()
        .filter(|&t| t != s.okey && t != tile && near(s.okey, s.wraps, tile, t))
        .count() as i64
}

fn key(s: &Seat, d: u8) -> (i64, i64, i64) {
    (partners(s, d), -face_value(d, s.okey), -i64::from(d))
}

fn discard(s: &mut Seat) -> F<u8> {
    let rack = s.rack().to_vec();
    let mut pool: Vec<u8> = rack.iter().copied().filter(|&t| t != s.okey).collect();
    pool.sort_unstable();
    pool.dedup();
    if pool.is_empty() {
        pool = rack.clone();
    }
    let melds = s.fewest_left(&rack)?;
    let singles = without(&rack, &played(&pairs_of(&rack, s.okey)));
    let mut loose = if singles.len() < melds.leftover.len() { singles } else { melds.leftover.clone() };
    loose.retain(|&t| t != s.okey);
    loose.sort_unstable();
    loose.dedup();
    let best = if loose.is_empty() {
        let mut cost = vec![];
        for &d in &pool {
            cost.push(distance(s, &without(&rack, &[d]))?);
        }
        let least = *cost.iter().min().unwrap_or(&0);
        pool.iter().zip(&cost).filter(|&(_, &c)| c == least).map(|(&d, _)| d).collect()
    } else {
        loose
    };
    let mut pick = best[0];
    for &d in &best[1..] {
        if key(s, d) < key(s, pick) {
            pick = d;
        }
    }
    Ok(pick)
}

/// `rules.best_finish` over `solver.finishes`: (discard, pairs, shown) costing the others most.
fn best_finish(s: &mut Seat, rack: &[u8]) -> F<Option<(u8, bool, Vec<PMeld>)>> {
    let okey = s.okey;
    let odd = rack.len() % 2 == 1;
    let near_melds = s.fewest_left(rack)?.leftover.len() <= usize::from(odd);
    let near_pairs = most_pairs(rack, okey, 0) as usize * 2 + usize::from(odd) >= rack.len();
    if !near_melds && !near_pairs {
        return Ok(None);
    }
    let discards: Vec<Option<u8>> = if odd {
        let mut d = rack.to_vec();
        d.sort_unstable_by_key(|&t| (t != okey, t));
        d.dedup();
        d.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    let mut found: Vec<(Option<u8>, bool, Vec<PMeld>)> = vec![];
    for d in discards {
        let rest = match d {
            Some(t) => without(rack, &[t]),
            None => rack.to_vec(),
        };
        if near_pairs && most_pairs(&rest, okey, 0) as usize * 2 == rest.len() {
            found.push((d, true, pairs_of(&rest, okey)));
        }
        if near_melds {
            let arranged = s.fewest_left(&rest)?;
            if arranged.leftover.is_empty() {
                found.push((d, false, arranged.melds.clone()));
            }
        }
    }
    let cap = s.v.p.multiplier_cap;
    let others = |f: &(Option<u8>, bool, Vec<PMeld>)| {
        let mut m = 1;
        if f.0 == Some(okey) {
            m *= 2;
        }
        if f.1 {
            m *= 2;
        }
        m.min(cap)
    };
    let mut best: Option<&(Option<u8>, bool, Vec<PMeld>)> = None;
    for f in &found {
        if best.is_none_or(|b| others(f) > others(b)) {
            best = Some(f);
        }
    }
    Ok(match best {
        Some((Some(t), pairs, melds)) => Some((*t, *pairs, melds.clone())),
        _ => None,
    })
}

pub fn command(s: &mut Seat) -> F<Command> {
    if s.v.allows("show_indicator") {
        return Ok(Command::ShowIndicator);
    }
    if s.drawing() {
        if s.v.allows("take_discard") {
            if let Some(top) = s.v.top {
                let rack = s.rack().to_vec();
                let mut with = rack.clone();
                with.push(top);
                if top == s.okey || distance(s, &with)? <= distance(s, &rack)? {
                    return Ok(Command::TakeDiscard);
                }
            }
        }
        return Ok(Command::Draw);
    }
    if s.v.allows("finish") {
        let rack = s.rack().to_vec();
        if let Some((tile, pairs, melds)) = best_finish(s, &rack)? {
            return Ok(Command::Finish { tile, pairs, melds });
        }
    }
    Ok(Command::Discard(discard(s)?))
}
