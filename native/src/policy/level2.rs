//! Level 2 (`bots/levels.py`'s `Level2Play`, with `bots/plays.py`'s moves), ported
//! choice for choice: the same command for the same view.
use super::knowledge::{round9, Knowledge};
use super::seat::{keep_one, melds_with, pairs_of, played, without, Seat};
use super::view::{Opened, PMeld, SEATS};
use super::{Command, Fail};
use crate::solver::{meldable, MeldKind, FAKE};

type F<T> = Result<T, Fail>;

fn rack_holds(plan: &[PMeld], t: Option<u8>) -> bool {
    t.is_none_or(|t| played(plan).contains(&t))
}

/// Whether the solves of `rack` would take it (at most two of a kind): a rack the solve
/// refuses keeps its refusal, never a short cut.
fn solvable(rack: &[u8]) -> bool {
    let mut copies = [0u8; FAKE as usize + 1];
    rack.iter().all(|&t| {
        copies[t as usize] += 1;
        copies[t as usize] <= 2
    })
}

/// The most a face-count opening of `rack` can be worth, every meldable tile laid
/// (`solver.meldable`, the bound `takes.opening_within` cuts by), and how many tiles that
/// is; None where the short cut is not to be taken (the "34" count refuses, a rack the
/// solve refuses).
fn ceiling(s: &Seat, rack: &[u8]) -> Option<(usize, i64)> {
    if s.v.p.third || !solvable(rack) {
        return None;
    }
    let (held, most) = meldable(rack, s.okey, s.wraps);
    Some((held as usize, i64::from(most)))
}

/// `plays.points_plan`.
fn points_plan(s: &mut Seat, rack: &[u8], must: Option<u8>) -> F<Option<Vec<PMeld>>> {
    let need = s.me().points_needed;
    // no plan reaches `need`, and none lays all but one tile for elden: the Python's answer
    // (None) without its two solves
    if let Some((held, most)) = ceiling(s, rack) {
        if most < need && (!s.v.elden_open || held + 1 < rack.len()) {
            return Ok(None);
        }
    }
    let arranged = s.arrange(rack)?;
    let mut candidates = vec![arranged.melds.clone()];
    let best = s.opening(rack)?;
    if best.value > s.worth(&arranged.melds) {
        candidates.push(best.melds.clone());
    }
    for melds in &candidates {
        if let Some(plan) = reaches(s, melds, rack, must, need) {
            return Ok(Some(plan));
        }
    }
    let Some(tile) = must else { return Ok(None) };
    if best.value < need {
        return Ok(None);
    }
    for m in melds_with(rack, tile, s.okey, s.wraps) {
        let rest = s.opening(&without(rack, &played(std::slice::from_ref(&m))))?;
        let mut melds = vec![m];
        melds.extend(rest.melds.iter().cloned());
        if let Some(plan) = reaches(s, &melds, rack, must, need) {
            return Ok(Some(plan));
        }
    }
    Ok(None)
}

fn reaches(s: &Seat, melds: &[PMeld], rack: &[u8], must: Option<u8>, need: i64) -> Option<Vec<PMeld>> {
    let plan = keep_one(melds, rack.len(), must);
    if plan.is_empty() || !rack_holds(&plan, must) {
        return None;
    }
    let laid: usize = plan.iter().map(|m| m.tiles.len()).sum();
    if s.worth(&plan) >= need || (laid + 1 == rack.len() && s.v.elden_open) {
        return Some(plan);
    }
    None
}

/// `plays.pairs_in`: most pairs; okeygg's shown indicator twin pairs like an okey.
pub fn pairs_in(s: &Seat, rack: &[u8]) -> Vec<PMeld> {
    let okey = s.okey;
    let wild = s.v.indicator;
    if !s.me().shown_indicator || !rack.contains(&wild) {
        return pairs_of(rack, okey);
    }
    let rest = without(rack, &[wild]);
    let mut found = pairs_of(&rest, okey);
    // Counter(rest) - Counter(played(found)): the kinds left, in first-seen order
    let mut left = without(&rest, &played(&found));
    let mut kinds: Vec<u8> = vec![];
    for &t in &rest {
        if left.contains(&t) && !kinds.contains(&t) {
            kinds.push(t);
        }
    }
    left.clear();
    let mut single: Option<u8> = None;
    for t in kinds {
        if t != okey && single.is_none_or(|b| face(s, t) > face(s, b)) {
            single = Some(t);
        }
    }
    if let Some(single) = single {
        let stands = s.stands(single);
        found.push(PMeld { kind: MeldKind::Pair, tiles: vec![(single, stands), (wild, stands)], start: 0 });
    }
    found
}

fn face(s: &Seat, t: u8) -> i64 {
    super::seat::face_value(t, s.okey)
}

fn pairs_plan(s: &Seat, rack: &[u8], must: Option<u8>) -> Option<Vec<PMeld>> {
    let plan = keep_one(&pairs_in(s, rack), rack.len(), must);
    if (plan.len() as i64) < s.me().pairs_needed || !rack_holds(&plan, must) {
        return None;
    }
    Some(plan)
}

fn can_open_with(s: &mut Seat, tile: u8, pairs: bool) -> F<bool> {
    let mut rack = s.rack().to_vec();
    rack.push(tile);
    if points_plan(s, &rack, Some(tile))?.is_some() {
        return Ok(true);
    }
    Ok(pairs && s.v.may_open_pairs && pairs_plan(s, &rack, Some(tile)).is_some())
}

fn try_open(s: &mut Seat) -> F<Option<Command>> {
    let rack = s.rack().to_vec();
    if let Some(plan) = points_plan(s, &rack, s.v.taken)? {
        return Ok(Some(Command::Open { pairs: false, melds: plan }));
    }
    let Some(pairs) = pairs_plan(s, &rack, s.v.taken) else { return Ok(None) };
    if s.v.allows("declare_pairs") {
        return Ok(Some(Command::DeclarePairs));
    }
    Ok(Some(Command::Open { pairs: true, melds: pairs }))
}

fn must_lay(s: &Seat) -> Option<u8> {
    if s.opened() != Opened::No {
        s.v.owed
    } else {
        None
    }
}

fn try_lay(s: &mut Seat) -> F<Option<Command>> {
    let rack = s.rack().to_vec();
    if rack.len() < 2 {
        return Ok(None);
    }
    let protect = must_lay(s);
    let pairs = if s.opened() == Opened::Points {
        let melds = keep_one(&s.arrange(&rack)?.melds, rack.len(), protect);
        if !melds.is_empty() {
            return Ok(Some(Command::Lay { pairs: false, melds }));
        }
        if !s.anybody_opened_pairs() {
            return Ok(None);
        }
        let naturals: Vec<u8> = rack.iter().copied().filter(|&t| t != s.okey).collect();
        pairs_of(&naturals, s.okey)
    } else {
        pairs_in(s, &rack)
    };
    let pairs = keep_one(&pairs, rack.len(), protect);
    if !pairs.is_empty() {
        return Ok(Some(Command::Lay { pairs: true, melds: pairs }));
    }
    Ok(None)
}

fn try_lay_off(s: &mut Seat) -> F<Option<Command>> {
    if !s.may_touch_table() || !s.may_lay_off_more() || s.rack().len() < 2 {
        return Ok(None);
    }
    let first = must_lay(s);
    let mut order: Vec<u8> = s.rack().to_vec();
    order.sort_unstable();
    order.dedup();
    order.sort_by_key(|&t| (t == s.okey, -s.value(t), t));
    let mut tried: Vec<u8> = first.into_iter().collect();
    tried.extend(order.into_iter().filter(|&t| Some(t) != first));
    for tile in tried {
        if let Some((meld, end)) = s.lay_off_for(tile) {
            return Ok(Some(Command::LayOff { meld, tile, end }));
        }
    }
    Ok(None)
}

fn try_take_okey(s: &mut Seat) -> F<Option<Command>> {
    let okey = s.okey;
    if !s.may_touch_table() || s.rack().contains(&okey) || s.v.laid.contains(&okey) {
        return Ok(None);
    }
    let pairs = s.opened() == Opened::Pairs;
    if pairs && !s.may_lay_off_more() {
        return Ok(None);
    }
    let rack = s.rack().to_vec();
    let now = s.leftover(&rack)?;
    for (meld, put) in s.okey_takes() {
        let mut after_rack = without(&rack, &put);
        after_rack.push(okey);
        let mut after = s.leftover(&after_rack)?;
        if s.arrange(&after_rack)?.leftover.contains(&okey) {
            if pairs || !okey_still_playable(s, meld, &put) {
                continue;
            }
            after -= s.value(okey);
        }
        if pairs {
            after = now - put.iter().map(|&t| s.value(t)).sum::<i64>();
        }
        if after < now {
            return Ok(Some(Command::TakeOkey { meld, tiles: put }));
        }
    }
    Ok(None)
}

fn okey_still_playable(s: &Seat, index: i64, put: &[u8]) -> bool {
    let mut table = s.v.melds.clone();
    let i = index as usize;
    table[i] = super::seat::replace_okey(&table[i], s.okey, put);
    for (i, m) in table.iter().enumerate() {
        if m.kind == MeldKind::Group && !m.missing_colours().is_empty() {
            return true;
        }
        if m.kind == MeldKind::Run {
            for pos in m.extension_positions(s.wraps) {
                let end = if pos == m.start - 1 { super::view::End::Low } else { super::view::End::High };
                if !s.is_full(i as i64, end) {
                    return true;
                }
            }
        }
    }
    false
}

/// `Level2Play.wants`: take the previous discard instead of drawing?
fn wants(s: &mut Seat, top: u8) -> F<bool> {
    let opened = s.opened();
    if opened == Opened::No {
        let pairs = s.v.may_open_pairs;
        return can_open_with(s, top, pairs);
    }
    if s.v.p.take_must_use {
        return usable_now(s, top);
    }
    let rack = s.rack().to_vec();
    if opened == Opened::Pairs {
        return Ok(top != s.okey && rack.contains(&top) && rack.len() >= 2);
    }
    if top == s.okey {
        return Ok(true);
    }
    let mut with = rack.clone();
    with.push(top);
    if s.leftover(&with)? < s.leftover(&rack)? {
        return Ok(true);
    }
    Ok(s.may_touch_table() && s.playable(top) && s.may_lay_off_more())
}

fn usable_now(s: &mut Seat, top: u8) -> F<bool> {
    let rack = s.rack().to_vec();
    if rack.len() < 2 {
        return Ok(false);
    }
    if s.opened() == Opened::Pairs {
        return Ok(top != s.okey && rack.contains(&top));
    }
    let mut with = rack.clone();
    with.push(top);
    let melds = keep_one(&s.arrange(&with)?.melds, with.len(), Some(top));
    if played(&melds).contains(&top) {
        return Ok(true);
    }
    Ok(s.may_touch_table() && s.may_lay_off_more() && s.playable(top))
}

/// `levels.partners`: the other rack tiles `tile` could share a run or group with.
fn has_partners(s: &Seat, tile: u8) -> bool {
    if tile == s.okey {
        return false;
    }
    let me = s.stands(tile);
    let (colour, number) = (me / 13, super::seat::number_of(me));
    let mut seen_self = false;
    for &u in s.rack() {
        if u == tile && !seen_self {
            seen_self = true;
            continue;
        }
        if u == s.okey {
            continue;
        }
        let other = s.stands(u);
        let (oc, on) = (other / 13, super::seat::number_of(other));
        if oc == colour && on != number {
            let mut gap = (on - number).abs();
            if s.wraps {
                let lift = |n: i64| if n == 1 { 14 } else { n };
                gap = gap.min((lift(on) - lift(number)).abs());
            }
            if gap <= 2 {
                return true;
            }
        } else if on == number && oc != colour {
            return true;
        }
    }
    false
}

/// `levels.safe_choice`.
fn safe_choice(s: &Seat, pool: &[u8]) -> Vec<u8> {
    let okey = s.okey;
    let rack = s.rack();
    let mut base: Vec<u8> = pool.iter().copied().filter(|&t| t != okey).collect();
    if base.is_empty() {
        base = rack.iter().copied().filter(|&t| t != okey).collect();
    }
    if base.is_empty() {
        base = rack.to_vec();
    }
    let safe: Vec<u8> = base.iter().copied().filter(|&t| !s.penalised(t)).collect();
    if safe.is_empty() {
        base
    } else {
        safe
    }
}

/// `levels.pairs_mode`.
fn pairs_mode(s: &mut Seat) -> F<bool> {
    match s.opened() {
        Opened::Pairs => return Ok(true),
        Opened::Points => return Ok(false),
        Opened::No => {}
    }
    let rack = s.rack().to_vec();
    let pairs = pairs_in(s, &rack).len() as i64;
    let far = s.me().points_needed - s.in_count(30);
    // the opening's value is asked only where the answer turns on it (the "34" count still
    // refuses here, as the opening does)
    if let Some((_, most)) = ceiling(s, &rack) {
        if pairs < s.me().pairs_needed - 1 {
            return Ok(false);
        }
        if most < far {
            return Ok(true);
        }
    }
    let value = s.opening(&rack)?.value;
    Ok(pairs >= s.me().pairs_needed - 1 && value < far)
}

fn feeding_charged(s: &Seat) -> bool {
    s.v.p.penalties && s.v.p.feed_multiplier != 0 && s.v.seats[(s.v.seat + 1) % SEATS].opened == Opened::No
}

/// The first element of `pool` with the greatest key (Python's `max`).
fn first_max<K: PartialOrd>(pool: &[u8], key: impl Fn(u8) -> K) -> u8 {
    let mut best = pool[0];
    let mut best_key = key(best);
    for &t in &pool[1..] {
        let k = key(t);
        if k > best_key {
            best = t;
            best_key = k;
        }
    }
    best
}

/// `Level2Play.discard`.
fn discard(s: &mut Seat) -> F<u8> {
    let rack = s.rack().to_vec();
    if rack.len() == 1 {
        return Ok(rack[0]);
    }
    let loose = if pairs_mode(s)? {
        without(&rack, &played(&pairs_in(s, &rack)))
    } else {
        s.arrange(&rack)?.leftover.clone()
    };
    let pool = safe_choice(s, &loose);
    let unopened = s.opened() == Opened::No;
    if feeding_charged(s) {
        let k = Knowledge::new(s);
        let charge: Vec<f64> = pool.iter().map(|&t| k.feed_charge(s, t)).collect();
        let at = |t: u8| charge[pool.iter().position(|&u| u == t).unwrap_or(0)];
        if unopened {
            return Ok(first_max(&pool, |t| {
                (!has_partners(s, t), -at(t).round_ties_even(), s.value(t), -i64::from(t))
            }));
        }
        return Ok(first_max(&pool, |t| (round9(s.value(t) as f64 - at(t)), s.value(t), -i64::from(t))));
    }
    if unopened {
        return Ok(first_max(&pool, |t| (!has_partners(s, t), s.value(t), -i64::from(t))));
    }
    Ok(first_max(&pool, |t| (s.value(t), -i64::from(t))))
}

/// `Level2Play.command`: the command level 2 sends for this view.
pub fn command(s: &mut Seat) -> F<Command> {
    if s.v.allows("show_indicator") {
        return Ok(Command::ShowIndicator);
    }
    if s.drawing() {
        if s.v.allows("take_discard") {
            if let Some(top) = s.v.top {
                if wants(s, top)? {
                    return Ok(Command::TakeDiscard);
                }
            }
        }
        return Ok(Command::Draw);
    }
    if s.opened() == Opened::No {
        if let Some(c) = try_open(s)? {
            return Ok(c);
        }
        if s.v.allows("put_back") {
            return Ok(Command::PutBack);
        }
    } else {
        if let Some(c) = try_lay(s)? {
            return Ok(c);
        }
        if let Some(c) = try_take_okey(s)? {
            return Ok(c);
        }
        if let Some(c) = try_lay_off(s)? {
            return Ok(c);
        }
    }
    Ok(Command::Discard(discard(s)?))
}
