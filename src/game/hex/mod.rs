//! Hex: rules, board representation, cell names, records.

pub mod geometry;
