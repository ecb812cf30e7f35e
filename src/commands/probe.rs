//! `rafle probe`: positions looked up in the tables, with the value of every legal move.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;

use clap::Args;
use rafle_probe::{Dtw, Move, Position, ProbeError, SquareStyle, Tablebase, Wdl};
use serde::Serialize;

use super::{read_fen, VariantArg};
use crate::output::{other, Failure};

/// The long help of `rafle probe`: the output formats.
pub const LONG_ABOUT: &str = "\
Look positions up in the tables: their value and every legal move's.

Text output, per position: the FEN, its value for the side to move (win, draw or loss) and
the distance to the end of the game with best play (the winner hurrying, the loser holding
out) in plies and in moves, then one indented line per legal move with the result that move
leads to for the side playing it: the moves that keep a win show \"win\".

  $ rafle probe --variant brazilian B:W29:B25,22
  B:W29:B25,22 win in 3 plies (2 moves)
    22-26  loss in 2 plies (1 move)
    25-30  win in 3 plies (2 moves)

JSON output (--json), one object per line:
  {\"fen\":\"B:W29:B25,22\",\"wdl\":\"win\",\"dtw\":3,\"moves\":[{\"move\":\"22-26\",
   \"wdl\":\"win\",\"dtw\":1},{\"move\":\"25-30\",\"wdl\":\"loss\",\"dtw\":2}]}
where \"dtw\" is the distance to win in plies (null for a draw), and a move's \"wdl\" and
\"dtw\" are those of the side to move AFTER the move, as the tables store them: a winning
move shows \"loss\".

Moves are listed in the order of 'rafle moves'. With one FEN argument, a bad FEN exits with
code 2 and a table that cannot be read with code 1. With several FENs, or FENs read from
standard input (one per line, blank lines skipped), a position that fails gives an error line
instead (JSON: {\"fen\":\"...\",\"error\":\"...\"}), the run goes on, and the exit code is 1 if any
failed.";

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", default_value = "data")]
    data: PathBuf,
    /// One JSON object per position; a move's "wdl" is the value after it (see --help).
    #[arg(long)]
    json: bool,
    /// Positions in PDN FEN; without any, one per line is read from standard input.
    fens: Vec<String>,
}

/// A position's value and its moves' values, as the tables give them.
struct Answer {
    /// For the side to move.
    wdl: Wdl,
    /// For the side to move.
    dtw: Dtw,
    /// Move text and the value for the side to move after the move, in `rafle moves` order.
    moves: Vec<(String, Wdl, Dtw)>,
}

#[derive(Serialize)]
struct JsonAnswer<'a> {
    fen: &'a str,
    wdl: &'static str,
    dtw: Option<u16>,
    moves: Vec<JsonMove>,
}

#[derive(Serialize)]
struct JsonMove {
    #[serde(rename = "move")]
    text: String,
    wdl: &'static str,
    dtw: Option<u16>,
}

#[derive(Serialize)]
struct JsonError<'a> {
    fen: &'a str,
    error: String,
}

pub fn run(args: &ProbeArgs) -> Result<(), Failure> {
    let tables = Tablebase::open(&args.data)
        .map_err(|e| other(format!("cannot open the table directory: {e}")))?;
    let mut out = BufWriter::new(io::stdout().lock());
    if let [fen] = args.fens.as_slice() {
        let pos = read_fen(args.variant.variant, fen)?;
        let answer = probe(&tables, &pos).map_err(other)?;
        write_answer(&mut out, fen, &answer, args.json)?;
        out.flush()?;
        return Ok(());
    }
    let mut batch = Batch {
        args,
        tables: &tables,
        probed: 0,
        failed: 0,
    };
    if args.fens.is_empty() {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            if stdin.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            // Not UTF-8 is just another bad FEN: reported on its line, the run goes on.
            let text = String::from_utf8_lossy(&line);
            let fen = text.trim();
            if !fen.is_empty() {
                batch.one(&mut out, fen)?;
                // Flushed per position so that a program feeding positions one at a time
                // gets each answer at once.
                out.flush()?;
            }
        }
    } else {
        for fen in &args.fens {
            batch.one(&mut out, fen)?;
        }
    }
    out.flush()?;
    if batch.failed > 0 {
        return Err(Failure::Other(anyhow::anyhow!(
            "{} of {} positions could not be probed",
            batch.failed,
            batch.probed
        )));
    }
    Ok(())
}

/// Several positions, each failing on its own line without stopping the run.
struct Batch<'a> {
    args: &'a ProbeArgs,
    tables: &'a Tablebase,
    probed: usize,
    failed: usize,
}

impl Batch<'_> {
    fn one(&mut self, out: &mut impl Write, fen: &str) -> io::Result<()> {
        self.probed += 1;
        let answer = Position::from_fen(self.args.variant.variant, fen)
            .map_err(|e| e.to_string())
            .and_then(|pos| probe(self.tables, &pos).map_err(|e| e.to_string()));
        match answer {
            Ok(answer) => write_answer(out, fen, &answer, self.args.json),
            Err(error) => {
                self.failed += 1;
                if self.args.json {
                    write_json(out, &JsonError { fen, error })
                } else {
                    writeln!(out, "{fen} error: {error}")
                }
            }
        }
    }
}

/// Looks a position and all its moves up.
fn probe(tables: &Tablebase, pos: &Position) -> Result<Answer, ProbeError> {
    // The position first: past the tables' reach it fails with "too many pieces" rather than
    // with a missing table of one of its captures.
    let wdl = tables.probe_wdl(pos)?;
    let dtw = tables.probe_dtw(pos)?;
    let legal = pos.legal_moves();
    let mut moves: Vec<(Move, Wdl, Dtw)> = tables
        .probe_moves(pos)?
        .into_iter()
        .zip(tables.probe_moves_dtw(pos)?)
        .map(|((mv, wdl), (_, dtw))| (mv, wdl, dtw))
        .collect();
    moves.sort_by_key(|(m, _, _)| super::move_order(m));
    let moves = moves
        .into_iter()
        .map(|(mv, wdl, dtw)| {
            (
                pos.move_text_among(&mv, &legal, SquareStyle::Numeric),
                wdl,
                dtw,
            )
        })
        .collect();
    Ok(Answer { wdl, dtw, moves })
}

fn write_answer(out: &mut impl Write, fen: &str, answer: &Answer, json: bool) -> io::Result<()> {
    if json {
        let moves = answer
            .moves
            .iter()
            .map(|(text, after, dtw)| JsonMove {
                text: text.clone(),
                wdl: after.name(),
                dtw: dtw.plies(),
            })
            .collect();
        return write_json(
            out,
            &JsonAnswer {
                fen,
                wdl: answer.wdl.name(),
                dtw: answer.dtw.plies(),
                moves,
            },
        );
    }
    writeln!(out, "{fen} {}", describe(answer.dtw))?;
    let width = answer
        .moves
        .iter()
        .map(|(text, _, _)| text.len())
        .max()
        .unwrap_or(0);
    for (text, _, after) in &answer.moves {
        // The mover's result is the opposite of the value for the side to move after it, one
        // ply longer.
        writeln!(
            out,
            "  {text:<width$}  {}",
            describe(Dtw::from_successors([*after]))
        )?;
    }
    Ok(())
}

/// `win in 7 plies (4 moves)`, `draw`, `loss in 6 plies (3 moves)`.
fn describe(dtw: Dtw) -> String {
    match (dtw.plies(), dtw.moves()) {
        (Some(plies), Some(moves)) => {
            let ply_word = if plies == 1 { "ply" } else { "plies" };
            let move_word = if moves == 1 { "move" } else { "moves" };
            format!("{} in {plies} {ply_word} ({moves} {move_word})", dtw.wdl())
        }
        _ => dtw.wdl().to_string(),
    }
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)
}
