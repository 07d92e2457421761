//! Depth-first proof-number search (df-pn, Nagai 2002) in its negamax form,
//! for one yes-or-no question about a position: does the side to move reach
//! its goal, a win ([`WIN`]) or at least a draw ([`NOT_LOSE`])?
//!
//! Each node's proof number `pn` is the least number of leaves that must be
//! proven for the side to move to reach its goal, its disproof number `dn`
//! the least that must be disproven to show it cannot. The side to move
//! reaches a win through a child whose mover cannot reach a draw, and at
//! least a draw through a child whose mover cannot win; so a node's
//! children answer the other question: `pn = min(dn(child))` and
//! `dn = sum(pn(child))`. [`Worker::mid`] searches the child with the least
//! disproof number until the node's numbers pass the thresholds it was
//! given, keeping every result in the [`Table`].
//!
//! The standard fixes: the 1 + epsilon trick (Pawlewicz and Lew 2007: a
//! child's threshold is `(1 + epsilon)` times the second-best child's
//! number instead of one more, so the search does not thrash between two
//! close children), and replacement of the table's entries by the work
//! below them. The games' positions hold everything their future depends
//! on (Ultimate Tic-Tac-Toe's send rule through the board to play; Super 1
//! al 5's ply counters), so the search space is a DAG without cycles and
//! there is no graph-history interaction: a position's answer does not
//! depend on the path to it. Shared subtrees are counted once per parent
//! in the numbers (the DAG overestimate), which costs speed, never
//! correctness.
//!
//! A new position's numbers are 1 and [`Game::mobility`]: its number of
//! legal moves where the game counts them cheaply (Ultimate Tic-Tac-Toe),
//! else 1. This is the mobility initialisation (Allis 1994; in the
//! negamax form `dn` is the sum of one proof number per move): a move that
//! leaves the opponent few replies is searched first, and one that sends
//! the opponent to a closed board, where it may play anywhere, last. It
//! made the leaf solver's bench 1.24 times faster, and so 30,000-node
//! middle-game searches, most of whose time is the leaf solver's
//! (docs/search.md, "Legal moves as first disproof numbers").
//!
//! What the game knows is used at every child: the end of the game, a move
//! that wins at once ([`Game::winning_move`]), and whether either side may
//! still win at all ([`Game::may_win`]): a side that cannot win does not
//! reach [`WIN`], and a side whose opponent cannot win reaches
//! [`NOT_LOSE`], both without search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::table::{Entry, INF, MAX_UNSOLVED, NO_DIST, Table, key};
use crate::game::{Game, Verdict};
use crate::search::Control;

/// The goal "the side to move wins".
pub(super) const WIN: u8 = 2;
/// The goal "the side to move does not lose": a draw or a win.
pub(super) const NOT_LOSE: u8 = 1;

/// The goal of the side to move in a child of a node whose mover has
/// `goal`: to reach a win the mover needs a child whose mover cannot reach
/// a draw, and the other way round.
#[inline(always)]
pub(super) const fn child_goal(goal: u8) -> u8 {
    3 - goal
}

/// A verdict as a level: loss 0, draw 1, win 2 (a goal is reached when the
/// level is at least the goal).
#[inline(always)]
pub(super) const fn level(v: Verdict) -> u8 {
    match v {
        Verdict::Loss => 0,
        Verdict::Draw => 1,
        Verdict::Win => 2,
    }
}

/// The verdict of a level.
pub(super) const fn verdict(level: u8) -> Verdict {
    match level {
        0 => Verdict::Loss,
        1 => Verdict::Draw,
        _ => Verdict::Win,
    }
}

/// Generated children between two looks at the clock and the stop flag:
/// a fraction of a millisecond in either game.
const CHECK_EVERY: u64 = 256;

/// Sets `e`'s proof and disproof numbers from its children's (`kids`,
/// each seen from its own mover): solved when a child is disproven (by the
/// shortest such line) or every child is proven (the longest line resists),
/// then `None`; else the child to search next and the second-least
/// disproof number among the children.
#[inline]
fn combine<M>(kids: &[Child<M>], e: &mut Entry) -> Option<(usize, u32)> {
    let (mut pn, mut best, mut dn2) = (INF, 0, INF);
    let mut dn: u64 = 0;
    for (i, c) in kids.iter().enumerate() {
        if c.dn < pn {
            dn2 = pn;
            pn = c.dn;
            best = i;
        } else if c.dn < dn2 {
            dn2 = c.dn;
        }
        dn += c.pn as u64;
    }
    let solved = if pn == 0 {
        kids.iter()
            .enumerate()
            .filter(|(_, c)| c.dn == 0)
            .min_by_key(|(_, c)| c.dist)
            .map(|(i, c)| (i, c.dist, 0, INF))
    } else if dn == 0 {
        kids.iter()
            .enumerate()
            .max_by_key(|(_, c)| c.dist)
            .map(|(i, c)| (i, c.dist, INF, 0))
    } else {
        None
    };
    if let Some((i, dist, epn, edn)) = solved {
        e.pn = epn;
        e.dn = edn;
        e.best = i as u16;
        e.dist = one_more(dist);
        return None;
    }
    e.pn = pn.min(MAX_UNSOLVED);
    e.dn = dn.min(MAX_UNSOLVED as u64) as u32;
    e.best = best as u16;
    Some((best, dn2))
}

/// One more ply on a distance (an unknown one stays unknown).
#[inline(always)]
pub(super) fn one_more(dist: u16) -> u16 {
    if dist == NO_DIST {
        NO_DIST
    } else {
        dist.saturating_add(1).min(NO_DIST - 1)
    }
}

/// The answer without search for the side to move in `pos` and `goal`, as
/// `(pn, dn, dist)`: the game is over, or the side to move wins at once,
/// or [`Game::may_win`] settles it.
#[inline]
pub(super) fn settled<G: Game>(pos: &G, goal: u8) -> Option<(u32, u32, u16)> {
    if let Some(outcome) = pos.outcome() {
        let reached = level(outcome.verdict_for(pos.side_to_move())) >= goal;
        return Some(if reached { (0, INF, 0) } else { (INF, 0, 0) });
    }
    if pos.winning_move().is_some() {
        return Some((0, INF, 1));
    }
    let me = pos.side_to_move();
    if goal == WIN {
        if !pos.may_win(me) {
            return Some((INF, 0, NO_DIST));
        }
    } else if !pos.may_win(me.opponent()) {
        return Some((0, INF, NO_DIST));
    }
    None
}

/// A child as its parent's search keeps it.
#[derive(Copy, Clone, Debug)]
struct Child<M> {
    mv: M,
    key: u64,
    pn: u32,
    dn: u32,
    work: u32,
    dist: u16,
    /// Its [`Game::mobility`], where neither the game nor the table knows
    /// it yet: its disproof number while it is new.
    mobility: u32,
}

/// What ends a search early.
pub(super) struct Stops<'a> {
    /// Stopped by another thread.
    pub control: &'a Control,
    /// The clock's limit.
    pub deadline: Option<Instant>,
    /// Raised by the solver's other thread once the answer is known.
    pub cancel: Option<&'a AtomicBool>,
}

/// One thread's search: the table, the children of the nodes on the
/// current path (one stack for all), and the counters.
pub(super) struct Worker<'a, G: Game> {
    pub tt: &'a Table,
    children: Vec<Child<G::Move>>,
    stops: Stops<'a>,
    /// Nodes searched (calls of [`Worker::mid`]).
    pub nodes: u64,
    /// Children generated (looked at without search).
    pub generated: u64,
    next_check: u64,
    /// The search ends when `nodes` reaches this.
    node_limit: u64,
    /// Set once a limit or the stop flag ends the search; every node on
    /// the path then stores what it knows and returns.
    pub aborted: bool,
    /// Set when the stop flag or the clock ended the search (not a node
    /// limit of one run).
    pub stopped: bool,
    /// The 1 + epsilon trick's epsilon, in 1/256ths.
    epsilon: u64,
}

impl<'a, G: Game> Worker<'a, G> {
    /// A worker on `tt`; `epsilon` in 1/256ths.
    pub fn new(tt: &'a Table, stops: Stops<'a>, epsilon: u64) -> Self {
        Worker {
            tt,
            children: Vec::new(),
            stops,
            nodes: 0,
            generated: 0,
            next_check: 0,
            node_limit: u64::MAX,
            aborted: false,
            stopped: false,
            epsilon,
        }
    }

    /// Searches `goal` for the side to move in `pos` until it is answered,
    /// `nodes` more nodes have been searched, or a stop; returns the root's
    /// entry (solved or not).
    pub fn run(&mut self, pos: &G, goal: u8, nodes: u64) -> Entry {
        let key = key(pos, goal);
        if let Some((pn, dn, dist)) = settled(pos, goal) {
            let mut e = Entry::new(key, pn, dn);
            e.dist = dist;
            return e;
        }
        let e = self.tt.get(key).unwrap_or(Entry::new(key, 1, 1));
        self.check();
        if e.solved() || self.stopped {
            return e;
        }
        self.node_limit = self.nodes.saturating_add(nodes);
        self.aborted = false;
        self.mid(pos, e, goal, INF, INF)
    }

    /// Looks at the stop flag, the clock and the node limit.
    #[cold]
    fn check(&mut self) {
        self.next_check = self.generated + CHECK_EVERY;
        if self.stops.control.is_stopped()
            || self.stops.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.stops.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stopped = true;
            self.aborted = true;
        }
    }

    /// Stores and returns `e` proven by its move `i`, whose child's mover
    /// cannot reach its goal in `dist` plies.
    fn proven_at_once(&mut self, mut e: Entry, i: usize, dist: u16) -> Entry {
        e.pn = 0;
        e.dn = INF;
        e.best = i as u16;
        e.dist = one_more(dist);
        e.work = e.work.saturating_add(1);
        self.tt.put(e);
        e
    }

    /// Pushes `pos`'s children (for `cgoal`) onto the stack from `base`,
    /// with what the game and the table know of them: the children the
    /// game settles first, the table's buckets of the others asked for,
    /// then the others looked up, their buckets loaded meanwhile. A move
    /// that reaches our goal at once ends it: its index and its child's
    /// distance (the stack cut back to `base`).
    #[inline]
    fn expand(&mut self, pos: &G, cgoal: u8, base: usize) -> Option<(usize, u16)> {
        let moves = pos.legal_moves();
        self.generated += moves.len() as u64;
        if self.generated >= self.next_check {
            self.check();
        }
        for (i, &mv) in moves.iter().enumerate() {
            let mut c = *pos;
            c.play_unchecked(mv);
            let key = key(&c, cgoal);
            let (pn, dn, dist, mobility) = match settled(&c, cgoal) {
                Some((pn, dn, dist)) => (pn, dn, dist, 0),
                None => {
                    self.tt.prefetch(key);
                    (0, 0, NO_DIST, c.mobility())
                }
            };
            if dn == 0 && pn != 0 {
                // The child's mover cannot reach its goal: this move
                // reaches ours.
                self.children.truncate(base);
                return Some((i, dist));
            }
            self.children.push(Child {
                mv,
                key,
                pn,
                dn,
                work: 0,
                dist,
                mobility,
            });
        }
        for i in base..self.children.len() {
            let c = &mut self.children[i];
            if c.pn != 0 || c.dn != 0 {
                continue;
            }
            match self.tt.get(c.key) {
                Some(t) => (c.pn, c.dn, c.dist, c.work) = (t.pn, t.dn, t.dist, t.work),
                // New: one of its moves may prove it; all must be refuted
                // to disprove it.
                None => (c.pn, c.dn) = (1, c.mobility.max(1)),
            }
            if c.dn == 0 {
                let dist = c.dist;
                self.children.truncate(base);
                return Some((i - base, dist));
            }
        }
        None
    }

    /// The multiple-iterative-deepening step: searches `pos` (entry `e`,
    /// not solved, the game not over) until its proof number reaches `thp`
    /// or its disproof number `thd`, it is solved, or the search ends;
    /// stores and returns its entry.
    fn mid(&mut self, pos: &G, mut e: Entry, goal: u8, thp: u32, thd: u32) -> Entry {
        let start = self.nodes;
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.aborted = true;
        }
        let base = self.children.len();
        let cgoal = child_goal(goal);
        if let Some((i, dist)) = self.expand(pos, cgoal, base) {
            return self.proven_at_once(e, i, dist);
        }
        loop {
            let kids = &self.children[base..];
            let Some((best, dn2)) = combine(kids, &mut e) else {
                break;
            };
            if e.pn >= thp || e.dn >= thd || self.aborted {
                break;
            }
            let c = kids[best];
            // The child's disproof number may grow until ours passes our
            // proof threshold or it is no longer the least; its proof
            // number until our disproof number reaches our threshold.
            let cthp = (thd as u64 - e.dn as u64 + c.pn as u64).min(INF as u64) as u32;
            let above = (dn2 as u64 + 1).max(dn2 as u64 * (256 + self.epsilon) / 256);
            let cthd = above.min(thp as u64) as u32;
            let mut child = *pos;
            child.play_unchecked(c.mv);
            let ce = Entry {
                key: c.key,
                pn: c.pn,
                dn: c.dn,
                work: c.work,
                best: super::table::NO_MOVE,
                dist: c.dist,
            };
            let r = self.mid(&child, ce, cgoal, cthp, cthd);
            let slot = &mut self.children[base + best];
            slot.pn = r.pn;
            slot.dn = r.dn;
            slot.work = r.work;
            slot.dist = r.dist;
        }
        self.children.truncate(base);
        let spent = (self.nodes - start).min(u32::MAX as u64) as u32;
        e.work = e.work.saturating_add(spent);
        self.tt.put(e);
        e
    }
}
