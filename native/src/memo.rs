//! Solves already made within a scope (one playout, one policy call), shared by the
//! policy and the simulator's take checks. A solve is a function of its arguments alone,
//! so answering from the memo changes no result; within a playout the same racks come back
//! command after command (the rack a seat arranged while drawing is the one it opens with).
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::policy::PMeld;
use crate::solve::{solve, NativeMeld, SolveError};
use crate::solver::{MeldKind, FAKE};

#[derive(Clone, Debug)]
pub struct Solution {
    pub value: i64,
    pub melds: Vec<PMeld>,
    pub leftover: Vec<u8>,
}

fn to_solution(found: (i64, Vec<NativeMeld>, Vec<u8>)) -> Solution {
    let (value, melds, leftover) = found;
    let melds = melds
        .into_iter()
        .map(|(kind, tiles, start)| PMeld {
            kind: match kind {
                "run" => MeldKind::Run,
                "group" => MeldKind::Group,
                _ => MeldKind::Pair,
            },
            tiles,
            start: i64::from(start),
        })
        .collect();
    Solution { value, melds, leftover }
}

/// The rack as a multiset, 2 bits a tile kind (the solve takes it sorted, so its order
/// is no part of the question); None for a rack holding more than three of a kind.
fn counts(rack: &[u8]) -> Option<u128> {
    let mut key = 0u128;
    for &t in rack {
        if t > FAKE {
            return None;
        }
        let at = 2 * u32::from(t);
        if key >> at & 3 == 3 {
            return None;
        }
        key += 1 << at;
    }
    Some(key)
}

type Key = (u128, u8, bool, Option<i64>, bool);
type Memo = HashMap<Key, Rc<Solution>, BuildHasherDefault<Fx>>;

/// A multiply-rotate hash (the std one, SipHash, costs more than a lookup here).
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        // the product's high bits depend on every bit of the key: bring them low
        self.0.rotate_left(26)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }
}

thread_local! {
    static MEMO: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// The end of a scope: its memo dropped, whatever way `f` returned.
struct Scope;

impl Drop for Scope {
    fn drop(&mut self) {
        MEMO.with(|m| *m.borrow_mut() = None);
    }
}

/// `f` with a memo of its solves (within a scope already open, that scope's).
pub fn scoped<R>(f: impl FnOnce() -> R) -> R {
    if MEMO.with(|m| m.borrow().is_some()) {
        return f();
    }
    MEMO.with(|m| *m.borrow_mut() = Some(Memo::default()));
    let _scope = Scope;
    f()
}

/// `solve::solve` of `rack` sorted, from the scope's memo where it was made before.
pub fn solved(
    rack: &[u8],
    okey: u8,
    wraps: bool,
    weight: Option<i64>,
    unit: bool,
) -> Result<Rc<Solution>, SolveError> {
    let key = counts(rack).map(|c| (c, okey, wraps, weight, unit));
    if let Some(k) = &key {
        if let Some(found) = MEMO.with(|m| m.borrow().as_ref().and_then(|m| m.get(k).cloned())) {
            return Ok(found);
        }
    }
    let mut sorted = rack.to_vec();
    sorted.sort_unstable();
    let found = Rc::new(to_solution(solve(&sorted, okey, wraps, weight, unit)?));
    if let Some(k) = key {
        MEMO.with(|m| {
            if let Some(m) = m.borrow_mut().as_mut() {
                m.insert(k, Rc::clone(&found));
            }
        });
    }
    Ok(found)
}
