//! `rafle moves`: the legal moves of a position, as text or JSON lines; none once the game is
//! over.

use std::io::{BufWriter, Write};

use clap::Args;
use rafle_probe::draughts::Square;
use serde::Serialize;

use super::{StyleArg, VariantArg};
use crate::output::Failure;

#[derive(Debug, Args)]
pub struct MovesArgs {
    #[command(flatten)]
    variant: VariantArg,
    #[command(flatten)]
    style: StyleArg,
    /// One JSON object per line: move, from, to, captures, fen after the move.
    #[arg(long)]
    json: bool,
    /// The position, in PDN FEN (for example W:W31-50:B1-20).
    fen: String,
}

#[derive(Serialize)]
struct MoveLine {
    #[serde(rename = "move")]
    text: String,
    from: u8,
    to: u8,
    captures: Vec<u8>,
    fen: String,
}

pub fn run(args: &MovesArgs) -> Result<(), Failure> {
    let pos = args.variant.read_fen(&args.fen)?;
    let style = args.style.style();
    // A finished game has no moves, as `rafle probe` and the API answer it.
    let legal = pos.moves_in_play();
    let mut moves: Vec<_> = legal.iter().collect();
    moves.sort_by_cached_key(|mv| rafle_probe::toolkit::listing_order(mv));
    let mut out = BufWriter::new(std::io::stdout().lock());
    for mv in moves {
        let text = pos.move_text_among(mv, &legal, style);
        if args.json {
            let line = MoveLine {
                text,
                from: mv.from().number(),
                to: mv.to().number(),
                captures: mv.captured().into_iter().map(Square::number).collect(),
                fen: pos.play(mv).to_fen_with(style),
            };
            serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{text}")?;
        }
    }
    out.flush()?;
    Ok(())
}
