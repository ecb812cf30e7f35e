//! The command line end to end, one module per concern: the `rafle` binary run as a user
//! runs it (generate, probe, verify, stats, compare, plan, slurm, serve), its files, its
//! errors, and the C library and the sources' structure. One binary, so the workspace links
//! this suite once; the slow and special suites (the browser, lidraughts' types, the soak,
//! the fuzzing of damaged tables, the large sets, the manual's commands) are binaries of their
//! own.

#[path = "../common/mod.rs"]
mod common;

mod bounded_input;
mod capi;
mod cli;
mod cluster;
mod compact;
mod compare;
mod concurrent_units;
mod convert;
mod failing_stderr;
mod hostile;
mod kept_sides;
mod kings_in_bits;
mod own_files;
mod rules;
mod seed_parts;
mod serve;
mod slurm_submit;
mod source_structure;
mod tables;
mod verify_materials;
mod verify_memory;
mod verify_resume;
mod verify_sample;
mod work_files;
