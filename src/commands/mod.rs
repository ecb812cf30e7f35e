//! The subcommands.

mod cluster_stamp;
mod compare;
mod generate;
mod moves;
mod perft;
mod plan;
mod probe;
mod request;
mod serve;
mod show;
mod slurm;
mod stats;
mod verify;

use std::path::Path;

use clap::{Args, Subcommand};
use rafle_probe::{
    draughts::{FenPosition, Position, SquareStyle, Variant},
    ProbeError, Tablebase,
};

use crate::output::{input, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal move tree, depth by depth.
    Perft(perft::PerftArgs),
    /// List the legal moves of a position.
    Moves(moves::MovesArgs),
    /// Draw a position as a board with square numbers.
    Show(show::ShowArgs),
    /// Build the tables (win/draw/loss, distance to win, draw-rule classes), reusing valid
    /// ones already on disk.
    Generate(generate::GenerateArgs),
    /// Look positions up in the tables: their value and every legal move's.
    #[command(long_about = probe::LONG_ABOUT)]
    Probe(probe::ProbeArgs),
    /// Check every table against its successors by forward move generation.
    Verify(verify::VerifyArgs),
    /// Count what the tables hold: values, draw-rule classes, longest wins, per material.
    #[command(long_about = stats::LONG_ABOUT)]
    Stats(stats::StatsArgs),
    /// Check that two table directories hold the same values on every position.
    #[command(long_about = compare::LONG_ABOUT)]
    Compare(compare::CompareArgs),
    /// Serve the tables over HTTP: a JSON API and the explorer page.
    #[command(long_about = serve::LONG_ABOUT)]
    Serve(serve::ServeArgs),
    /// List the units of work of a generation in dependency order, and which are finished.
    #[command(long_about = plan::LONG_ABOUT)]
    Plan(plan::PlanCommand),
    /// Run a generation on a Slurm cluster: one job per unit of work.
    #[command(subcommand)]
    Slurm(slurm::SlurmCommand),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Perft(args) => perft::run(&args),
        Command::Moves(args) => moves::run(&args),
        Command::Show(args) => show::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::Probe(args) => probe::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Slurm(command) => slurm::run(&command),
    }
}

/// The variant option shared by every command that reads a position.
#[derive(Debug, Args)]
pub struct VariantArg {
    /// Rules and board: international (10x10) or brazilian (8x8) [default: international].
    // An `Option` rather than a default value: a FEN read in the default variant that is a
    // position of the other too gets a note saying which was assumed.
    #[arg(long = "variant", short = 'v', value_name = "VARIANT", value_parser = parse_variant)]
    given: Option<Variant>,
}

impl VariantArg {
    /// The variant positions are read in: the one given, international otherwise.
    pub fn variant(&self) -> Variant {
        self.given.unwrap_or(Variant::International)
    }

    /// Reads a FEN given on the command line, as an input error if it is malformed, with the
    /// note of [`VariantArg::note_if_ambiguous`].
    pub fn read_fen(&self, fen: &str) -> Result<Position, Failure> {
        let pos = read_fen(self.variant(), fen)?;
        self.note_if_ambiguous(fen);
        Ok(pos)
    }

    /// As [`VariantArg::read_fen`], also reading a capture under way (a FEN with ghost
    /// pieces), for the commands that answer one.
    pub fn read_fen_position(&self, fen: &str) -> Result<FenPosition, Failure> {
        let read = FenPosition::from_fen(self.variant(), fen).map_err(input)?;
        self.note_if_ambiguous(fen);
        Ok(read)
    }

    /// Given `fen`, already read as a position of [`VariantArg::variant`]: if that variant was
    /// assumed (none given) and the FEN is a position of the other variant too, says on stderr
    /// which variant it was read in and how to read it in the other. Returns whether it said so.
    pub fn note_if_ambiguous(&self, fen: &str) -> bool {
        if self.given.is_some() {
            return false;
        }
        let assumed = self.variant();
        let Some(other) = Variant::ALL.into_iter().find(|&v| v != assumed) else {
            return false;
        };
        // Valid in both: a position of squares and names that exist on both boards.
        if FenPosition::from_fen(other, fen).is_err() {
            return false;
        }
        crate::output::stderr_line!(
            "rafle: note: {} is a position of both variants, read as {assumed} (the default); \
             --variant {other} reads it as {other}",
            rafle_probe::draughts::excerpt(fen)
        );
        true
    }
}

fn parse_variant(text: &str) -> Result<Variant, String> {
    text.parse::<Variant>().map_err(|e| e.to_string())
}

/// The variants a table command covers: one, or every variant (`all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantChoice {
    /// Every variant, in [`Variant::ALL`] order.
    All,
    /// Just this one.
    One(Variant),
}

impl VariantChoice {
    /// The chosen variants.
    pub fn variants(self) -> Vec<Variant> {
        match self {
            VariantChoice::All => Variant::ALL.to_vec(),
            VariantChoice::One(variant) => vec![variant],
        }
    }
}

/// Reads `all` or a variant name.
pub fn parse_variant_choice(text: &str) -> Result<VariantChoice, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(VariantChoice::All);
    }
    text.parse::<Variant>()
        .map(VariantChoice::One)
        .map_err(|_| {
            format!(
                "unknown variant '{}' (expected 'international', 'brazilian' or 'all')",
                rafle_draughts::excerpt(text)
            )
        })
}

/// Whether squares are written as numbers or algebraic names.
#[derive(Debug, Args)]
pub struct StyleArg {
    /// Write squares algebraically (c3-d4) instead of by number (22-18).
    #[arg(long)]
    pub algebraic: bool,
}

impl StyleArg {
    pub fn style(&self) -> SquareStyle {
        if self.algebraic {
            SquareStyle::Algebraic
        } else {
            SquareStyle::Numeric
        }
    }
}

/// Reads a FEN given on the command line, as an input error if it is malformed.
pub fn read_fen(variant: Variant, fen: &str) -> Result<Position, Failure> {
    Position::from_fen(variant, fen).map_err(input)
}

/// Opens a table directory and lists the chosen variants that have tables there, failing if
/// none has.
pub fn open_tables(
    dir: &Path,
    choice: VariantChoice,
) -> Result<(Tablebase, Vec<Variant>), Failure> {
    let tables = open_table_dir(dir, rafle_probe::DEFAULT_CACHE_BYTES)?;
    let chosen: Vec<Variant> = choice
        .variants()
        .into_iter()
        .filter(|&v| !tables.materials(v).is_empty())
        .collect();
    if chosen.is_empty() {
        let variant = match choice {
            VariantChoice::All => None,
            VariantChoice::One(v) => Some(v),
        };
        return Err(no_tables(dir, variant));
    }
    Ok((tables, chosen))
}

/// Opens a table directory with a cache of `cache_bytes`; a directory that does not exist is
/// one without tables, and gets the same hint.
pub fn open_table_dir(dir: &Path, cache_bytes: usize) -> Result<Tablebase, Failure> {
    Tablebase::open_with_cache(dir, cache_bytes).map_err(|e| match &e {
        ProbeError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            no_tables(dir, None)
        }
        _ => crate::output::other(format!("cannot open the table directory: {e}")),
    })
}

/// The environment variable that gives `--data` of every command when the option is left out:
/// a table directory set once, wherever the command runs.
pub const DATA_ENV: &str = "RAFLE_DATA";

/// The failure of a command that finds no tables (of `variant`, or at all) where it looks:
/// the same words and hint from every command. A relative directory is named as given and as
/// the absolute path it resolved to, since `data` means the current directory's.
pub fn no_tables(dir: &Path, variant: Option<Variant>) -> Failure {
    let which = variant.map_or(String::new(), |v| format!("{v} "));
    let resolved = match std::path::absolute(dir) {
        Ok(absolute) if absolute.as_path() != dir => {
            format!(" ({})", rafle_probe::toolkit::printable_path(&absolute))
        }
        _ => String::new(),
    };
    Failure::Other(anyhow::anyhow!(
        "no {which}tables in {}{resolved}: build them with 'rafle generate' (or point --data or \
         {DATA_ENV} at a table directory)",
        rafle_probe::toolkit::printable_path(dir)
    ))
}
