//! okeygg's feeding charge (`bots/levels.py`'s `feed_charge`) and the part of
//! `bots/inference.py`'s `Knowledge` it reads (no memory at level 2: nothing hidden).
//! The float arithmetic follows the Python's order, operation for operation, so that the
//! charges are the same doubles; one product runs over a Python set, whose iteration order
//! (CPython's, for small ints) is rebuilt by `py_set_order`.
use std::cell::Cell;

use super::seat::{colour_of, make, number_of, Seat};
use super::view::SEATS;
use crate::solver::FAKE;

const OPENS_GIVEN_FEED: f64 = 0.25;
const PAIRS_OPEN_SHARE: f64 = 0.2;
const NEAR_DISCARD: f64 = 0.7;

extern "C" {
    fn pow(x: f64, y: f64) -> f64; // the C library's, as CPython's float ** int calls it
}

fn c_pow(x: f64, y: f64) -> f64 {
    // SAFETY: libm's pow is a pure function of two doubles.
    unsafe { pow(x, std::hint::black_box(y)) }
}

/// The iteration order of a CPython (3.11) set of small ints built by adding `inserts` in
/// order (hash(i) == i): open addressing over 8 slots, 9 linear probes where the table
/// has room for them, then perturbed steps; grown to 4x its size when 3/5 full.
pub fn py_set_order(inserts: &[u8]) -> Vec<u8> {
    const LINEAR_PROBES: usize = 9;
    fn place(table: &mut [Option<u8>], key: u8) -> bool {
        let mask = table.len() - 1;
        let mut perturb = key as usize;
        let mut i = key as usize & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in 0..=probes {
                match table[i + j] {
                    None => {
                        table[i + j] = Some(key);
                        return true;
                    }
                    Some(k) if k == key => return false,
                    _ => {}
                }
            }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
    }
    let mut table: Vec<Option<u8>> = vec![None; 8];
    let mut used = 0usize;
    for &key in inserts {
        if place(&mut table, key) {
            used += 1;
            let mask = table.len() - 1;
            if used * 5 >= mask * 3 {
                let mut size = 8;
                while size <= used * 4 {
                    size <<= 1;
                }
                let old = std::mem::replace(&mut table, vec![None; size]);
                for k in old.into_iter().flatten() {
                    place(&mut table, k);
                }
            }
        }
    }
    table.into_iter().flatten().collect()
}

fn natural_near(wraps: bool, a: u8, b: u8) -> bool {
    if a == b {
        return false;
    }
    let (ca, na, cb, nb) = (colour_of(a), number_of(a), colour_of(b), number_of(b));
    if na == nb {
        return true;
    }
    if ca != cb {
        return false;
    }
    let mut gap = (na - nb).abs();
    if wraps {
        let lift = |n: i64| if n == 1 { 14 } else { n };
        gap = gap.min((lift(na) - lift(nb)).abs());
    }
    gap <= 2
}

/// `inference._near`: could `a` and `b` sit in one run or group?
pub fn near(okey: u8, wraps: bool, a: u8, b: u8) -> bool {
    if a == okey {
        return true;
    }
    if a == FAKE {
        return b != FAKE && (b == okey || natural_near(wraps, okey, b));
    }
    if b == a {
        return false;
    }
    if b == okey {
        return true;
    }
    if b == FAKE {
        return natural_near(wraps, a, okey);
    }
    natural_near(wraps, a, b)
}

pub struct Knowledge {
    live: [i64; 53],
    unseen: i64,
    next: usize,
    next_discards: Vec<u8>,
    /// `p_holds_next` of each kind once asked (the charge asks the same kinds over and over)
    held: [Cell<Option<f64>>; 53],
}

impl Knowledge {
    pub fn new(s: &Seat) -> Self {
        let v = s.v;
        let mut seen = [0i64; 53];
        for &t in &v.rack {
            seen[t as usize] += 1;
        }
        for seat in &v.seats {
            for &t in &seat.discards {
                seen[t as usize] += 1;
            }
        }
        for m in &v.melds {
            for &(t, _) in &m.tiles {
                seen[t as usize] += 1;
            }
        }
        seen[v.indicator as usize] += 1;
        let mut live = [0i64; 53];
        for t in 0..53 {
            live[t] = (2 - seen[t]).max(0);
        }
        let next = (v.seat + 1) % SEATS;
        Knowledge {
            live,
            unseen: live.iter().sum::<i64>().max(1),
            next,
            next_discards: v.seats[next].discards.clone(),
            held: std::array::from_fn(|_| Cell::new(None)),
        }
    }

    /// `Knowledge.p_holds`, for the next seat (the only one the charge asks about).
    fn p_holds_next(&self, s: &Seat, kind: u8) -> f64 {
        let cell = &self.held[kind as usize];
        if let Some(p) = cell.get() {
            return p;
        }
        let p = self.p_holds_next_made(s, kind);
        cell.set(Some(p));
        p
    }

    fn p_holds_next_made(&self, s: &Seat, kind: u8) -> f64 {
        let n = self.live[kind as usize];
        if n == 0 {
            return 0.0;
        }
        let ratio = s.v.seats[self.next].rack_size as f64 / self.unseen as f64;
        let share = if ratio < 1.0 { ratio } else { 1.0 };
        let mut p = 1.0 - c_pow(1.0 - share, n as f64);
        if self.next_discards.iter().any(|&t| near(s.okey, s.wraps, kind, t)) {
            p *= NEAR_DISCARD;
        }
        p
    }

    /// `Knowledge.p_feeds`: the chance the next player can meld `tile` with two of its own.
    fn p_feeds(&self, s: &Seat, tile: u8) -> f64 {
        if tile == s.okey {
            return 1.0;
        }
        let me = s.stands(tile);
        let (colour, number) = (colour_of(me), number_of(me));
        let top = if s.wraps { 14 } else { 13 };
        let mut positions = vec![number];
        if s.wraps && number == 1 {
            positions.push(14);
        }
        let at = |q: i64| make(colour, if q == 14 { 1 } else { q });
        let mut combos: Vec<(u8, u8)> = vec![];
        let mut inserts: Vec<u8> = vec![];
        for pos in positions {
            for (a, b) in [(pos - 2, pos - 1), (pos - 1, pos + 1), (pos + 1, pos + 2)] {
                if a >= 1 && b <= top {
                    combos.push((at(a), at(b)));
                    inserts.push(at(a));
                    inserts.push(at(b));
                }
            }
        }
        let others: Vec<u8> = (0..4).filter(|&c| c != colour).map(|c| make(c, number)).collect();
        for i in 0..3 {
            for j in i + 1..3 {
                combos.push((others[i], others[j]));
            }
        }
        inserts.extend(&others);
        let mut miss = 1.0;
        for (a, b) in combos {
            miss *= 1.0 - self.p_holds_next(s, a) * self.p_holds_next(s, b);
        }
        let mut lone = 1.0;
        for a in py_set_order(&inserts) {
            lone *= 1.0 - self.p_holds_next(s, a);
        }
        let with_okey = self.p_holds_next(s, s.okey) * (1.0 - lone);
        1.0 - miss * (1.0 - with_okey)
    }

    /// `levels.feed_charge`.
    pub fn feed_charge(&self, s: &Seat, tile: u8) -> f64 {
        if tile == s.okey {
            return 0.0;
        }
        let mut p = self.p_feeds(s, tile);
        let twin = self.p_holds_next(s, tile);
        p = 1.0 - (1.0 - p) * (1.0 - PAIRS_OPEN_SHARE * twin);
        OPENS_GIVEN_FEED * p * s.v.p.feed_multiplier as f64 * s.value(tile) as f64
    }
}

/// Python's `round(x, 9)`: the double nearest the decimal rounded (half to even) to 9 places.
pub fn round9(x: f64) -> f64 {
    format!("{x:.9}").parse().unwrap_or(x)
}
