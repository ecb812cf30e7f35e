//! Retrograde generation of draughts endgame tablebases.
//!
//! The generator enumerates every position of a small material, solves the material by
//! parallel retrograde analysis from the rules of [`rafle_probe`], and writes compressed tables
//! that the probe crate reads. Nothing is generated yet: this crate is the place it will live.

pub use rafle_probe::Variant;
