//! Hyper-parameters of a Tsetlin Machine.

use std::fmt;
use std::str::FromStr;

/// Hyper-parameters shared by the per-class and the coalesced machines.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Clauses per class (per-class machine) or in the shared pool (coalesced machine).
    pub clauses: usize,
    /// Vote clamp T (class sums are clamped to [-T, T]).
    pub threshold: i32,
    /// Specificity s (> = 1): literals that are 0 are forgotten with probability 1/s.
    pub specificity: f64,
    /// Bits per Tsetlin automaton state (1..=16; 8 is usual).
    pub state_bits: usize,
    /// Type Ia strengthens literals that are 1 always instead of with probability (s-1)/s.
    pub boost_true_positive: bool,
    /// Integer clause weights (+1 on Type Ia, -1 on Type II, never below 1).
    pub weighted: bool,
    /// At most this many included literals: a clause at the budget gets Type Ib instead of Ia.
    pub literal_budget: Option<u32>,
    /// Probability that a clause sits out an epoch (neither votes nor learns while training).
    pub clause_drop: f64,
    /// Probability that a literal is ignored by every clause for an epoch while training.
    pub literal_drop: f64,
    /// How the coalesced machine applies a sample's two updates (the others ignore it).
    pub coalesced_update: CoalescedUpdate,
    /// Seed of every random choice of training.
    pub seed: u64,
}

/// The order of a coalesced machine's two updates of one sample: the target class's and the
/// negative class's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CoalescedUpdate {
    /// Both updates read the clause outputs of the sample's one evaluation; a weight moves
    /// when its (clause, class) pair is selected and the clause output 1; every weight of
    /// every clause starts at a sign of its own.
    Joint,
    /// The target class's update first, then the negative class's on the clauses as the
    /// first left them (a clause the first touched is evaluated again); the weights of a
    /// clause that output 1 move on draws of their own at their class's selection
    /// probability; a clause starts with one sign for all classes.
    #[default]
    Sequential,
}

impl FromStr for CoalescedUpdate {
    type Err = String;

    fn from_str(text: &str) -> Result<CoalescedUpdate, String> {
        match text {
            "joint" => Ok(CoalescedUpdate::Joint),
            "sequential" => Ok(CoalescedUpdate::Sequential),
            other => Err(format!(
                "unknown coalesced update '{other}': joint or sequential"
            )),
        }
    }
}

impl fmt::Display for CoalescedUpdate {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            CoalescedUpdate::Joint => "joint",
            CoalescedUpdate::Sequential => "sequential",
        })
    }
}

impl Default for Params {
    fn default() -> Params {
        Params {
            clauses: 100,
            threshold: 15,
            specificity: 3.9,
            state_bits: 8,
            boost_true_positive: true,
            weighted: false,
            literal_budget: None,
            clause_drop: 0.0,
            literal_drop: 0.0,
            coalesced_update: CoalescedUpdate::default(),
            seed: 1,
        }
    }
}

impl Params {
    /// Checks the ranges, naming the offending parameter.
    pub fn validate(&self) -> Result<(), String> {
        if self.clauses == 0 {
            return Err("clauses must be at least 1".into());
        }
        if self.threshold < 1 {
            return Err(format!("T must be at least 1, got {}", self.threshold));
        }
        if !(self.specificity >= 1.0 && self.specificity.is_finite()) {
            return Err(format!("s must be at least 1, got {}", self.specificity));
        }
        if !(1..=16).contains(&self.state_bits) {
            return Err(format!(
                "state bits must be 1..=16, got {}",
                self.state_bits
            ));
        }
        for (name, p) in [
            ("clause drop", self.clause_drop),
            ("literal drop", self.literal_drop),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(format!("{name} must be in [0, 1), got {p}"));
            }
        }
        Ok(())
    }
}
