//! The Tsetlin Machine (no game dependencies).
//!
//! - [`literals`], how features become packed literal words;
//! - [`bitslice`], bit-sliced saturating automaton counters;
//! - [`sampler`], exact, cheap random literal subsets for the 1/s events;
//! - [`bank`], clause states, evaluation and the Type Ia/Ib/II feedback;
//! - [`params`], hyper-parameters;
//! - [`multiclass`], the per-class machine (parallel, reproducible per seed);
//! - [`rounds`], worker threads that share one machine's clause blocks sample by sample;
//! - [`patches`], a generic board of bit planes cut into square windows with position bits;
//! - [`conv`], the convolutional machine (a clause fires when it matches any patch);
//! - [`coalesced`], one clause pool shared by all classes with signed per-class weights;
//! - [`inference`], batched class sums from exported include masks;
//! - [`device`], the CPU or a CUDA GPU as the place to train and evaluate;
//! - `cuda` (feature `cuda`), the GPU back-end: kernels/tm.cu through cudarc;
//! - [`data`], boolean datasets and the CSV reader;
//! - [`persist`], the versioned, checksummed model file;
//! - [`metrics`], confusion matrix, accuracy, precision, recall and F1;
//! - [`adaptive`], seed 001's adaptive number of epochs.

pub mod adaptive;
pub mod bank;
pub mod bitslice;
pub mod coalesced;
pub mod conv;
pub mod counter_draws;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod data;
pub mod device;
pub mod inference;
pub mod literals;
pub mod metrics;
pub mod multiclass;
pub mod params;
pub mod patches;
pub mod persist;
pub(crate) mod rounds;
pub mod sampler;

pub use coalesced::CoalescedTm;
pub use conv::ConvTm;
pub use data::Dataset;
pub use inference::InferenceModel;
pub use multiclass::MultiClassTm;
pub use params::{CoalescedUpdate, Params};
