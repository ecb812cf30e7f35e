//! `rafle`: the command line that ties the rules, the generator and the probe together.

mod commands;
mod output;

use std::process::ExitCode;

use clap::Parser;

use crate::commands::Command;
use crate::output::{stderr_line, Failure};

/// Endgame tablebases for international (10x10) and Brazilian (8x8) draughts.
#[derive(Debug, Parser)]
#[command(name = "rafle", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    output::quiet_panics();
    // An empty RAFLE_DATA counts as unset (as XDG's variables do), not as an empty path that
    // clap would report as a missing --data value. No thread runs yet.
    if std::env::var_os(commands::DATA_ENV).is_some_and(|v| v.is_empty()) {
        std::env::remove_var(commands::DATA_ENV);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return output::usage_error(err),
    };
    match commands::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Input(err)) => {
            stderr_line!("rafle: {err:#}");
            ExitCode::from(2)
        }
        Err(Failure::Other(err)) => {
            stderr_line!("rafle: {err:#}");
            ExitCode::from(1)
        }
    }
}
