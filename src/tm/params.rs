//! Hyper-parameters of a Tsetlin Machine.

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
    /// Seed of every random choice of training.
    pub seed: u64,
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
