//! Playing series of games: opening books and how a tournament walks through them.

pub mod openings;
