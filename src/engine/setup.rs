//! [`Setup`]: the search options, the evaluator and the evaluator's search
//! parameters, chosen together.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::game::{Game, Notation};
use crate::net::{Net, NetError};
use crate::search::{Evaluator, Options, Params, SearchError, Searcher};
use crate::solve::Leaves;

/// How the search values its leaves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Eval {
    /// Playouts (random games with winning moves taken).
    Playout,
    /// The learned net with its move priors (games without one keep
    /// playouts).
    #[default]
    Net,
}

impl Eval {
    /// The name the protocol and the command line use: `playout` or `net`.
    pub const fn name(self) -> &'static str {
        match self {
            Eval::Playout => "playout",
            Eval::Net => "net",
        }
    }
}

/// The net's default exploration constant, in hundredths.
const NET_EXPLORATION: i64 = 50;
/// The net's default first-play urgency, in hundredths.
const NET_FPU: i64 = 110;
/// The net's default weight in a leaf's value, in hundredths.
const NET_WEIGHT: i64 = 100;
/// The net's default PUCT constant, in hundredths.
const NET_POLICY: i64 = 50;
/// The net's default first-play urgency reduction with PUCT, in
/// hundredths.
const NET_FPU_REDUCTION: i64 = 20;
/// The net's default softmax temperature of its priors with PUCT, in
/// hundredths: flatter priors than the net's own, measured stronger
/// (nets/README.md, "Prior temperature").
const NET_POLICY_TEMP: i64 = 160;

/// The search parameters that replace the playouts' when the net values
/// the leaves (the protocol's `Net...` options).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct NetParams {
    /// The UCT exploration constant.
    pub exploration: f32,
    /// The first-play urgency.
    pub fpu: f32,
    /// The net's weight in a leaf's value, the rest a playout's result.
    pub weight: f32,
    /// The PUCT constant with the net's policy; 0 searches with UCT and no
    /// priors.
    pub policy: f32,
    /// With PUCT: how much less than its parent's an unvisited move is
    /// worth.
    pub fpu_reduction: f32,
    /// With PUCT: the softmax temperature of the policy's priors.
    pub policy_temperature: f32,
}

impl Default for NetParams {
    fn default() -> Self {
        NetParams {
            exploration: NET_EXPLORATION as f32 / 100.0,
            fpu: NET_FPU as f32 / 100.0,
            weight: NET_WEIGHT as f32 / 100.0,
            policy: NET_POLICY as f32 / 100.0,
            fpu_reduction: NET_FPU_REDUCTION as f32 / 100.0,
            policy_temperature: NET_POLICY_TEMP as f32 / 100.0,
        }
    }
}

impl NetParams {
    /// `params` with these in place of the playouts' own, and leaves
    /// expanded at their first visit (a net gives the same value twice).
    pub fn apply(&self, params: Params) -> Params {
        Params {
            exploration: self.exploration,
            fpu: self.fpu,
            expand_visits: 1,
            eval_weight: self.weight,
            policy: self.policy,
            fpu_reduction: self.fpu_reduction,
            policy_temperature: self.policy_temperature,
            ..params
        }
    }
}

/// A game's net, loaded, and its version (e.g. `gen1-5e3a9c21`).
pub struct LoadedNet<G: Game> {
    /// The net, as the search calls it.
    pub evaluator: Arc<dyn Evaluator<G>>,
    /// Its version: name and checksum.
    pub version: String,
}

impl<G: Game> Clone for LoadedNet<G> {
    fn clone(&self) -> Self {
        LoadedNet {
            evaluator: Arc::clone(&self.evaluator),
            version: self.version.clone(),
        }
    }
}

/// Which net a game has.
pub trait NetGame: Notation {
    /// The game's net: built in (`file` is `None`) or read from `file`;
    /// `None` for a game without one (it keeps playouts, whatever `file`).
    fn net(file: Option<&Path>) -> Result<Option<LoadedNet<Self>>, NetError>;
}

impl NetGame for crate::rules::Position {
    fn net(file: Option<&Path>) -> Result<Option<LoadedNet<Self>>, NetError> {
        let net = match file {
            Some(f) => Net::load(f)?,
            None => Net::builtin().clone(),
        };
        let version = net.version();
        Ok(Some(LoadedNet {
            evaluator: Arc::new(net),
            version,
        }))
    }
}

impl NetGame for crate::super15::Position {
    fn net(_: Option<&Path>) -> Result<Option<LoadedNet<Self>>, NetError> {
        Ok(None)
    }
}

/// How the engine searches: the search options (with the playouts'
/// parameters), how leaves are valued, the net's parameters and the net's
/// file. Every searcher is built here ([`Setup::searcher`]), so that the
/// evaluator and its parameters always go together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setup {
    /// Threads, memory, seed, move overhead, and the parameters used with
    /// playouts.
    pub search: Options,
    /// How the leaves are valued.
    pub eval: Eval,
    /// The parameters used with the net.
    pub net: NetParams,
    /// The net's file; `None` for the built-in net.
    pub net_file: Option<PathBuf>,
}

impl Setup {
    /// `search` with `eval`, the net's default parameters and the built-in
    /// net.
    pub fn new(search: Options, eval: Eval) -> Setup {
        Setup {
            search,
            eval,
            ..Setup::default()
        }
    }

    /// The net of [`Setup::net_file`] for game `G` (whatever
    /// [`Setup::eval`] says: the protocol names it even while playouts
    /// value the leaves).
    pub fn load_net<G: NetGame>(&self) -> Result<Option<LoadedNet<G>>, NetError> {
        G::net(self.net_file.as_deref())
    }

    /// The evaluator [`Setup::eval`] asks for, if the game has a net.
    pub fn evaluator<G: Game>(&self, net: Option<&LoadedNet<G>>) -> Option<Arc<dyn Evaluator<G>>> {
        match (net, self.eval) {
            (Some(net), Eval::Net) => Some(Arc::clone(&net.evaluator)),
            _ => None,
        }
    }

    /// The search options for a searcher with or without the net: with
    /// it, the net's parameters.
    pub fn search_options(&self, with_net: bool) -> Options {
        match with_net {
            true => Options {
                params: self.net.apply(self.search.params),
                ..self.search.clone()
            },
            false => self.search.clone(),
        }
    }

    /// The evaluator for `net` and the search options that go with it.
    pub fn choose<G: Game>(
        &self,
        net: Option<&LoadedNet<G>>,
    ) -> (Options, Option<Arc<dyn Evaluator<G>>>) {
        let evaluator = self.evaluator(net);
        (self.search_options(evaluator.is_some()), evaluator)
    }

    /// A searcher at `root` valuing its leaves as [`Setup::eval`] asks
    /// (`net` being the game's), with the parameters for that, and the
    /// proof-number solver settling leaves near the end
    /// ([`crate::search::Params::leaf_solve`]).
    pub fn searcher<G: Game>(
        &self,
        net: Option<&LoadedNet<G>>,
        root: G,
    ) -> Result<Searcher<G>, SearchError> {
        let (options, evaluator) = self.choose(net);
        let mut searcher = Searcher::new(options, root)?;
        searcher.set_evaluator(evaluator);
        searcher.set_leaf_solver(Some(Leaves::maker()));
        Ok(searcher)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    #[test]
    fn the_net_brings_its_parameters() {
        let setup = Setup::default();
        let net = Position::net(None).unwrap();
        let (options, evaluator) = setup.choose(net.as_ref());
        assert!(evaluator.is_some());
        assert_eq!(
            options.params,
            NetParams::default().apply(Options::default().params)
        );
        assert_eq!(options.params.expand_visits, 1);
        assert!((options.params.policy - 0.5).abs() < 1e-6);

        let playout = Setup::new(Options::default(), Eval::Playout);
        let (options, evaluator) = playout.choose(net.as_ref());
        assert!(evaluator.is_none());
        assert_eq!(options, Options::default());
    }

    #[test]
    fn a_game_without_a_net_keeps_playouts() {
        let setup = Setup::default();
        let net = setup.load_net::<crate::super15::Position>().unwrap();
        assert!(net.is_none());
        let searcher = setup
            .searcher(net.as_ref(), crate::super15::Position::startpos())
            .unwrap();
        assert!(!searcher.has_evaluator());
        assert_eq!(searcher.options(), &Options::default());
    }
}
