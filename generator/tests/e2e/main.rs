//! The generator end to end, one module per concern: its tables against naive solvers
//! written apart from it (win/draw/loss, distances and the draw rules, kings only and with
//! men), the pipeline from generation to probing and verification, resumption, and the
//! verifier against damaged values. One binary, so the suite links once; the heap measured by
//! a counting allocator (`memory.rs`) keeps a binary of its own.

#[path = "../support/naive.rs"]
mod naive;
#[path = "../support/naive_rules.rs"]
mod naive_rules;

mod independent;
mod naive_rule_values;
mod naive_solver;
mod pipeline;
mod resume;
mod rules;
mod verify;
