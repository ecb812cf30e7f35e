//! `rafle probe`: positions looked up in the tables, with the value of every legal move, the
//! draw-rule class and count (FMJD 6.2–6.4), the result under live counters, and the game to
//! its end with best play.

use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use rafle_probe::answer::json::{write_line as write_json, JsonAnswer, JsonError};
use rafle_probe::answer::{rule_limits, Answer, AnswerError, Options};
use rafle_probe::{
    draughts::{excerpt, BadCounters, Category, Counters, FenPosition},
    Dtw, ProbeError, RuleClass, RuleValue, Tablebase, Wdl,
};

use super::{VariantArg, VariantChoice};
use crate::output::{input, other, Failure};

/// The long help of `rafle probe`: the output formats.
pub const LONG_ABOUT: &str = "\
Look positions up in the tables: their value and every legal move's, with and without the
FMJD draw rules 6.2-6.4.

Text output, per position: the variant it was read in, the FEN, its value for the side to move (win, draw or loss) and
the distance to the end of the game with best play (the winner hurrying, the loser holding
out) in plies and in moves; then the rule whose counter is live in the position (6.2, or the
endgame rules 6.3 and 6.4), the position's class under the draw rules with fresh counters
(win, cursed win, draw, blessed loss or loss) and, for a win or a loss, its count in plies,
and the limits the rule tables were computed with. Then one indented line per legal move
with what the move is worth to the side playing it: the result and distance ignoring the
rules, then its class and count under the rules (counted from the position before the move):
the moves that keep a win show \"win\".

  $ rafle probe --variant brazilian B:W29:B25,22
  brazilian B:W29:B25,22 win in 3 plies (2 moves); rule 6.2: win, count 1 (rules 6.2=50,...)
    25-30  win in 3 plies (2 moves); win, count 1
    22-26  loss in 2 plies (1 move); loss, count 1

The class and count (docs/rules.md 5.3): with U plies already used on the live counter (the 6.2
count outside the endgame categories, the category count inside them) and L the rule's
limit, the side to move wins iff the class is win and count <= L - U, loses iff the class is
loss and count <= L - U, and otherwise the rules make the game a draw. A cursed win is won
ignoring the rules but drawn under them; a blessed loss is the other side of it.

--counters K,C gives the live counters: K plies of king moves without capture (rule 6.2) and
C plies in the current endgame category (rules 6.3/6.4); the position line then adds the
result under the rules with them (\"counters 0,8: draw\"), and each move line the result for
the side playing it with the counters after the move.

--line plays the game to its end from the position and the counters (0,0 without
--counters): the side that wins under the rules plays, among the moves that keep the win,
the one that ends the game soonest (the smallest distance to win, then the smallest rule
count); the side that loses plays the move that holds out longest (the largest distance,
then the largest count); in a position drawn under the rules, the side to move plays the
first move (in the order of 'rafle moves') that keeps the draw. One line per ply: its
number, the move, the counters after it (K,C), the result for the side to move then, with
its class and count and its distance to win; then how the game ended: \"White wins: Black
has no move\", \"White wins: Black has no piece left\", or \"draw: rule 6.2 (50 plies)\" (the
live counter reached its limit and the side to move still has a move).

  $ rafle probe --variant brazilian --counters 0,2 --line W:WK1,K2:BK28
  brazilian W:WK1,K2:BK28 win in 7 plies (4 moves); rule 6.4: win, count 7; counters 0,2: ...
    ... (the moves)
    line:
       1. 2-9    1,3  Black loses (loss, count 6, dtw 6)
       2. 28-32  2,4  White wins (win, count 5, dtw 5)
       ...
       7. 1x10   0,0  Black loses (loss, count 0, dtw 0)
    end: White wins: Black has no piece left

JSON output (--json), one object per line:
  {\"variant\":\"brazilian\",\"fen\":\"B:W29:B25,22\",\"wdl\":\"win\",\"dtw\":3,
   \"class\":\"win\",\"count\":1,\"rule\":\"6.2\",\"limits\":\"6.2=50,6.3=40,6.4=10\",
   \"moves\":[{\"move\":\"25-30\",\"wdl\":\"loss\",\"dtw\":2,\"class\":\"loss\",\"count\":1},
   {\"move\":\"22-26\",\"wdl\":\"win\",\"dtw\":1,\"class\":\"win\",\"count\":1}]}
where \"variant\" is the variant the FEN was read in, \"dtw\" the distance to win in plies
(null for a draw), \"class\" one of \"win\",
\"cursed_win\", \"draw\", \"blessed_loss\", \"loss\", \"count\" the rule count in plies (null
unless the class is \"win\" or \"loss\"), \"rule\" the rule whose counter is live (\"6.2\",
\"6.3\" or \"6.4\") and \"limits\" the plies of each rule the rule tables were computed with.
A move's \"wdl\", \"dtw\", \"class\" and \"count\" are those of the side to move AFTER the
move, as the tables store them: a winning move shows \"loss\". With --counters the object
also has \"king_plies\" and \"category_plies\" (the counters given) and \"result\" (\"win\",
\"draw\" or \"loss\" under the rules with them), and each move the counters after it and the
\"result\" of the side to move after it. With --line it has \"line\": an array of
{\"move\",\"king_plies\",\"category_plies\",\"result\",\"class\",\"count\",\"dtw\"}, one per
ply (the counters after the ply; result, class, count and dtw for the side to move after
it), and \"end\": how the game ended, as in the text.

Without rule tables in the directory (tables of an older rafle), the class and count are
shown as unavailable (JSON null) and --counters and --line are refused. Rule tables computed
with different limits are refused.

A finished game (a side without pieces, or without a move) has no moves. Moves are listed
best first for the side to move, as the HTTP API, the explorer and the Python package list
them: the wins, quickest first (the smallest distance, then the smallest rule count), then
the draws, then the losses, longest first; the wins and losses the rules turn into draws
(cursed, blessed) stand between them and the draws, and with --counters the result under the
rules after the move decides first. Ties keep the order of 'rafle moves'.

With one FEN argument, a bad FEN or a position with more pieces than the tables cover exits
with code 2, and a table that cannot be read (or missing) with code 1. With several FENs, or
FENs read from standard input (one per line, blank lines skipped), a position that fails
gives an error line instead (JSON: {\"fen\":\"...\",\"error\":\"...\"}), the run goes on, and
the exit code is 1 if any failed. Reading from a terminal, it first says so on stderr.

A FEN in the middle of a capture, with lidraughts' ghost pieces (G27 a man, P27 a king, already
taken by the capture under way), is answered with the capture's completions, from the square
the capturing piece stands on, and the value of the best one; the first line names that
square (\"(capture under way by 20)\"), JSON adds \"capturing\" and \"ghosts\", and --line is
refused. A FEN whose capturing piece cannot be told is refused as a bad FEN.

Without --variant a FEN is read as international; one that is a Brazilian position too (squares
up to 32, or names on both boards) gets a note on stderr, for the first such FEN of a run.";

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    data: PathBuf,
    /// One JSON object per position; a move's "wdl" is the value after it (see --help).
    #[arg(long)]
    json: bool,
    /// The live draw-rule counters: K plies of king moves without capture (6.2), C plies in
    /// the endgame category (6.3/6.4); adds the result under the rules with them.
    #[arg(long, value_name = "K,C", value_parser = parse_counters)]
    counters: Option<Counters>,
    /// Play the game to its end with best play under the draw rules (see --help).
    #[arg(long)]
    line: bool,
    /// Positions in PDN FEN; without any, one per line is read from standard input.
    fens: Vec<String>,
}

fn parse_counters(text: &str) -> Result<Counters, String> {
    text.parse().map_err(|e: BadCounters| e.to_string())
}

/// A probe that failed: bad input when the position has more pieces than the tables cover
/// (the user asked the impossible, as with a malformed FEN), a failure otherwise; with no
/// table of the variant at all it is the directory that is wrong, not the position.
fn probe_failure(err: AnswerError) -> Failure {
    if matches!(err, AnswerError::LineOfCapture) {
        return input(err);
    }
    match err.probe_error() {
        Some(ProbeError::TooManyPieces { max, .. }) if *max > 0 => input(err),
        _ => other(err),
    }
}

pub fn run(args: &ProbeArgs) -> Result<(), Failure> {
    let variant = args.variant.variant();
    // A single FEN is read before the tables are looked for: a malformed one is the user's to
    // fix whatever the directory holds.
    let single = match args.fens.as_slice() {
        [fen] => Some((fen, args.variant.read_fen_position(fen)?)),
        _ => None,
    };
    let (tables, _) = super::open_tables(&args.data, VariantChoice::One(variant))?;
    check_rule_tables(&tables, variant, args)?;
    let probe = Probe {
        tables: &tables,
        options: Options {
            counters: args.counters,
            line: args.line,
        },
    };
    let mut out = BufWriter::new(io::stdout().lock());
    if let Some((fen, pos)) = single {
        let answer = probe.answer(&pos).map_err(probe_failure)?;
        write_answer(&mut out, fen, &answer, args.json)?;
        out.flush()?;
        return Ok(());
    }
    let mut batch = Batch {
        args,
        probe: &probe,
        probed: 0,
        failed: 0,
        noted: false,
    };
    if args.fens.is_empty() {
        batch.read_stdin(&mut out)?;
    } else {
        for fen in &args.fens {
            batch.one(&mut out, fen)?;
        }
    }
    out.flush()?;
    if batch.failed > 0 {
        return Err(Failure::Other(anyhow!(
            "{} of {} positions could not be probed",
            batch.failed,
            batch.probed
        )));
    }
    Ok(())
}

/// Refuses `--counters` and `--line` where the directory holds no rule tables of `variant`.
fn check_rule_tables(
    tables: &Tablebase,
    variant: rafle_probe::draughts::Variant,
    args: &ProbeArgs,
) -> Result<(), Failure> {
    match rule_limits(tables, variant, args.counters.is_some() || args.line) {
        Ok(_) => Ok(()),
        Err(AnswerError::NoRuleTables { dir, .. }) => {
            let option = if args.line { "--line" } else { "--counters" };
            Err(Failure::Other(anyhow!(
                "{option} needs the draw-rule tables, and there is no {variant} rule table \
                 (<material>.rules) in {}: generate them with 'rafle generate'",
                rafle_probe::toolkit::printable_path(&dir)
            )))
        }
        Err(e) => Err(other(e)),
    }
}

/// Several positions, each failing on its own line without stopping the run.
struct Batch<'a> {
    args: &'a ProbeArgs,
    probe: &'a Probe<'a>,
    probed: usize,
    failed: usize,
    /// Whether a FEN of both variants, read in the default one, has been noted on stderr:
    /// once a run, not once a line of a long batch.
    noted: bool,
}

impl Batch<'_> {
    /// Probes the FENs of standard input, one a line, each answer written and flushed as soon
    /// as it is found, so that a program feeding positions one at a time gets each at once.
    fn read_stdin(&mut self, out: &mut impl Write) -> io::Result<()> {
        let mut stdin = io::stdin().lock();
        if stdin.is_terminal() {
            // Otherwise a user who forgot the FEN sees a command that seems to hang.
            crate::output::stderr_line!(
                "rafle probe: reading FENs from standard input, one a line (Ctrl-D to end)"
            );
        }
        let mut line = Vec::new();
        loop {
            line.clear();
            if stdin.read_until(b'\n', &mut line)? == 0 {
                return Ok(());
            }
            // Not UTF-8 is just another bad FEN: reported on its line, the run goes on.
            let text = String::from_utf8_lossy(&line);
            let fen = text.trim();
            if !fen.is_empty() {
                self.one(out, fen)?;
                out.flush()?;
            }
        }
    }

    fn one(&mut self, out: &mut impl Write, fen: &str) -> io::Result<()> {
        self.probed += 1;
        let answer = FenPosition::from_fen(self.args.variant.variant(), fen)
            .map_err(|e| e.to_string())
            .and_then(|pos| {
                if !self.noted {
                    self.noted = self.args.variant.note_if_ambiguous(fen);
                }
                self.probe
                    .answer(&pos)
                    .map_err(|e| format!("{:#}", anyhow::Error::new(e)))
            });
        match answer {
            Ok(answer) => write_answer(out, fen, &answer, self.args.json),
            Err(error) => {
                self.failed += 1;
                if self.args.json {
                    let fen = &excerpt(fen);
                    write_json(out, &JsonError { fen, error })
                } else {
                    writeln!(out, "{} error: {error}", excerpt(fen))
                }
            }
        }
    }
}

/// What every position of a run is probed with.
struct Probe<'a> {
    tables: &'a Tablebase,
    options: Options,
}

impl Probe<'_> {
    /// Looks a position (or a capture under way) and all its moves up, best first as the
    /// HTTP API and the Python package list them, and plays its line if asked.
    fn answer(&self, pos: &FenPosition) -> Result<Answer, AnswerError> {
        let mut answer = Answer::probe_fen(self.tables, pos, self.options)?;
        answer.order_best_first();
        Ok(answer)
    }
}

fn write_answer(out: &mut impl Write, fen: &str, answer: &Answer, json: bool) -> io::Result<()> {
    if json {
        return write_json(out, &JsonAnswer::for_cli(answer, &excerpt(fen)));
    }
    // The variant first, as in JSON: the same FEN is a position of either board.
    let variant = answer.variant();
    // The command line answers only positions the tables cover.
    let Some(values) = answer.values else {
        return writeln!(
            out,
            "{variant} {} unknown: more pieces than the tables cover",
            excerpt(fen)
        );
    };
    let category = Category::of_position(&answer.position);
    let rules = match &values.rules {
        None => format!(
            "rule {}: class unavailable (no rule tables)",
            category.article()
        ),
        Some(rules) => {
            let with_counters = answer
                .counters
                .zip(rules.result)
                .map_or(String::new(), |(c, result)| {
                    format!("; counters {},{}: {result}", c.king_plies, c.category_plies)
                });
            format!(
                "rule {}: {}{with_counters} (rules {})",
                category.article(),
                describe_rule(rules.value),
                rules.limits
            )
        }
    };
    let capture = answer.capture.map_or(String::new(), |cap| {
        format!(" (capture under way by {})", cap.capturer())
    });
    writeln!(
        out,
        "{variant} {}{capture} {}; {rules}",
        excerpt(fen),
        describe(values.dtw)
    )?;
    let width = answer.moves.iter().map(|m| m.text.len()).max().unwrap_or(0);
    for m in &answer.moves {
        let Some(after) = m.values else { continue };
        // The mover's result is the opposite of the value for the side to move after it, one
        // ply longer.
        let mut line = format!(
            "  {:<width$}  {}",
            m.text,
            describe(Dtw::from_successors([after.dtw]))
        );
        if let Some((_, mover)) = after.rules {
            line += &format!("; {}", describe_rule(mover));
        }
        if let Some((c, result)) = m.counters_after.zip(after.result) {
            let result = -result;
            line += &format!("; counters {},{}: {result}", c.king_plies, c.category_plies);
        }
        writeln!(out, "{line}")?;
    }
    if let Some(line) = &answer.line {
        writeln!(out, "  line:")?;
        let width = line.plies.iter().map(|p| p.text.len()).max().unwrap_or(0);
        let counters_width = line
            .plies
            .iter()
            .map(|p| counters_text(p.counters).len())
            .max()
            .unwrap_or(0);
        for (n, ply) in line.plies.iter().enumerate() {
            let statement = match ply.outcome.result {
                Wdl::Win => format!("{} wins", ply.turn.name()),
                Wdl::Loss => format!("{} loses", ply.turn.name()),
                Wdl::Draw => "draw".to_string(),
            };
            let dtw = ply
                .dtw
                .plies()
                .map_or(String::new(), |d| format!(", dtw {d}"));
            writeln!(
                out,
                "  {:>4}. {:<width$}  {:<counters_width$}  {statement} ({}{dtw})",
                n + 1,
                ply.text,
                counters_text(ply.counters),
                describe_rule(ply.outcome.value)
            )?;
        }
        writeln!(out, "  end: {}", line.end)?;
    }
    Ok(())
}

/// `12,3`.
fn counters_text(c: Counters) -> String {
    format!("{},{}", c.king_plies, c.category_plies)
}

/// `win, count 7`, `cursed win`, `draw`.
fn describe_rule(value: RuleValue) -> String {
    let class = match value.class() {
        RuleClass::CursedWin => "cursed win",
        RuleClass::BlessedLoss => "blessed loss",
        class => class.name(),
    };
    match value.count() {
        Some(count) => format!("{class}, count {count}"),
        None => class.to_string(),
    }
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
