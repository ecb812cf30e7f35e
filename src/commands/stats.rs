//! `rafle stats`: what the tables hold, material by material, read from the tables themselves:
//! wins, draws and losses, the classes under the draw rules, and the longest win with a
//! position that reaches it.

use std::io::{self, Write};
use std::ops::Range;
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rafle_probe::codec::{read_code, Codec, DtwCodec};
use rafle_probe::format::TableKind;
use rafle_probe::{
    resets_counter, Category, Color, Counters, Dtw, Limits, Material, Position, ProbeError,
    RuleClass, RuleValue, Table, Tablebase, Variant, Wdl,
};
use rayon::prelude::*;
use serde::Serialize;

use super::generate::write_table;
use super::{parse_variant_choice, VariantChoice};
use crate::output::{other, Failure};

/// The long help of `rafle stats`.
pub const LONG_ABOUT: &str = "\
Count what the tables hold, material by material: the positions (both sides to move), the
wins, draws and losses for the side to move with the draw rules ignored, the positions of
each class under the draw rules 6.2-6.4 with fresh counters (win, cursed win, draw, blessed
loss, loss), and the longest win in plies with the FEN of a position that reaches it (the
first in the table's order); then a total row per variant. The counts are exact: the
positions the tables leave out (those whose side to move must capture, and in the distance
and rule tables the draws and the positions with Black to move) are resolved as the probe
resolves them, so the totals are those of the 'rafle generate' summary.

A line before each variant's table gives its materials and the limits of its rule tables.
Without rule tables the class columns show \"-\" (JSON null).

JSON output (--json), one object per material and one per variant total (material
\"total\"): {\"variant\",\"material\",\"positions\",\"wins\",\"draws\",\"losses\",
\"classes\":{\"win\",\"cursed_win\",\"draw\",\"blessed_loss\",\"loss\"},\"longest_win\",
\"longest_win_fen\",\"limits\"}.";

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Which tables: international, brazilian or all.
    #[arg(long, short = 'v', default_value = "all", value_parser = parse_variant_choice)]
    variant: VariantChoice,
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", default_value = "data")]
    data: PathBuf,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
}

/// The counts of one material, or of a variant's total.
#[derive(Debug, Clone, Default)]
struct Stats {
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    /// Positions of each [`RuleClass`], win, cursed win, draw, blessed loss, loss; `None` without rule
    /// tables.
    classes: Option<[u64; 5]>,
    /// The longest win in plies and the FEN of the first position reaching it; `None`
    /// without any win.
    longest: Option<(u16, String)>,
}

fn class_slot(class: RuleClass) -> usize {
    match class {
        RuleClass::Win => 0,
        RuleClass::CursedWin => 1,
        RuleClass::Draw => 2,
        RuleClass::BlessedLoss => 3,
        RuleClass::Loss => 4,
    }
}

impl Stats {
    /// Adds the counts of `other`; the longest win is the longer one, the first on a tie.
    fn add(&mut self, other: &Stats) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.classes = match (self.classes, other.classes) {
            (Some(a), Some(b)) => Some(std::array::from_fn(|i| a[i] + b[i])),
            _ => None,
        };
        if let Some((plies, _)) = &other.longest {
            if self.longest.as_ref().is_none_or(|(mine, _)| plies > mine) {
                self.longest.clone_from(&other.longest);
            }
        }
    }
}

/// The counts of one block of positions.
#[derive(Default)]
struct BlockStats {
    wins: u64,
    draws: u64,
    losses: u64,
    classes: [u64; 5],
    /// The longest win and the index of its first position.
    longest: Option<(u16, u64)>,
}

#[derive(Serialize)]
struct JsonStats<'a> {
    variant: &'static str,
    material: &'a str,
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    classes: Option<JsonClasses>,
    longest_win: u16,
    longest_win_fen: Option<&'a str>,
    limits: Option<String>,
}

#[derive(Serialize)]
struct JsonClasses {
    win: u64,
    cursed_win: u64,
    draw: u64,
    blessed_loss: u64,
    loss: u64,
}

pub fn run(args: &StatsArgs) -> Result<(), Failure> {
    let (tables, chosen) = super::open_tables(&args.data, args.variant)?;
    // Refused before any work: tables of mixed limits have no one meaning.
    let limits = chosen
        .iter()
        .map(|&v| tables.limits(v).map_err(other))
        .collect::<Result<Vec<Option<Limits>>, Failure>>()?;
    // Drawn on stderr only when it is a terminal; the results go to stdout.
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{prefix:>24} [{bar:40}] {human_pos}/{human_len} positions  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let mut out = io::stdout().lock();
    for (i, (&variant, limits)) in chosen.iter().zip(limits).enumerate() {
        let materials = tables.materials(variant);
        let mut rows = Vec::with_capacity(materials.len());
        for &material in &materials {
            bar.reset();
            bar.set_length(rafle_probe::PositionIndex::count(variant, material));
            bar.set_prefix(format!("{variant} {material}"));
            let stats = material_stats(&tables, variant, material, limits, &bar).map_err(other)?;
            rows.push((material.to_string(), stats));
        }
        bar.finish_and_clear();
        let mut total = Stats {
            classes: limits.map(|_| [0; 5]),
            ..Stats::default()
        };
        for (_, stats) in &rows {
            total.add(stats);
        }
        rows.push(("total".to_string(), total));
        if args.json {
            for (material, stats) in &rows {
                let json = json_stats(variant, material, stats, limits);
                serde_json::to_writer(&mut out, &json).map_err(io::Error::from)?;
                writeln!(out)?;
            }
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            let rules = limits.map_or("no rule tables".to_string(), |l| format!("rules {l}"));
            writeln!(
                out,
                "{variant}: {} materials up to {} pieces, {rules}",
                materials.len(),
                tables.max_pieces(variant)
            )?;
            write_stats(&mut out, variant, &rows)?;
        }
        out.flush()?;
    }
    Ok(())
}

/// Counts one material's positions from its tables, block by block, in parallel.
///
/// The distance and rule tables hold values only for the positions with White to move that
/// need not capture and are not drawn (see [`rafle_probe::format`]); the others are found as
/// the probe finds them: a position that must capture from its captures (through the probe), a
/// draw from the win/draw/loss table, a position with Black to move from its moves (the White
/// to move positions of the material, counted first, and the probe for the moves that leave
/// it).
fn material_stats(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
    limits: Option<Limits>,
    bar: &ProgressBar,
) -> Result<Stats, ProbeError> {
    let wdl_table = tables.table_of(TableKind::Wdl, variant, material)?;
    let dtw_table = tables.table_of(TableKind::Dtw, variant, material)?;
    let draw_rules_table = limits
        .map(|_| tables.table_of(TableKind::DrawRules, variant, material))
        .transpose()?;
    let header = dtw_table.header();
    for table in std::iter::once(wdl_table).chain(draw_rules_table) {
        let other = table.header();
        if (other.positions_per_block, other.blocks) != (header.positions_per_block, header.blocks)
        {
            return Err(ProbeError::Corrupted {
                path: table.path().to_path_buf(),
                reason: format!("its blocks are not those of {}", dtw_table.path().display()),
            });
        }
    }
    let material_tables = MaterialTables {
        tables,
        material,
        wdl: wdl_table,
        dtw: dtw_table,
        rules: draw_rules_table,
        limits,
    };
    let per_block = u64::from(header.positions_per_block);
    // White to move is the first half of the index.
    let half = header.positions / 2;
    let span = |b: u32| {
        let first = u64::from(b) * per_block;
        first..first + u64::from(header.positions_in_block(b))
    };
    let white = (0..header.blocks)
        .into_par_iter()
        .filter(|&b| span(b).start < half)
        .map(|b| {
            let values = material_tables.white_values(b, span(b).start..span(b).end.min(half))?;
            bar.inc(values.len() as u64);
            Ok(values)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?
        .concat();
    let mut blocks = vec![BlockStats::count(0, &white)];
    let black = (0..header.blocks)
        .into_par_iter()
        .filter(|&b| span(b).end > half)
        .map(|b| {
            let range = span(b).start.max(half)..span(b).end;
            let values = material_tables.black_values(b, range.clone(), &white)?;
            bar.inc(values.len() as u64);
            Ok(BlockStats::count(range.start, &values))
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    blocks.extend(black);
    let mut stats = Stats {
        positions: header.positions,
        classes: limits.map(|_| [0; 5]),
        ..Stats::default()
    };
    let mut longest: Option<(u16, u64)> = None;
    for block in &blocks {
        stats.wins += block.wins;
        stats.draws += block.draws;
        stats.losses += block.losses;
        if let Some(classes) = &mut stats.classes {
            for (total, n) in classes.iter_mut().zip(block.classes) {
                *total += n;
            }
        }
        // Blocks come in index order: a later block wins only with a longer win.
        if let Some((plies, index)) = block.longest {
            if longest.is_none_or(|(best, _)| plies > best) {
                longest = Some((plies, index));
            }
        }
    }
    stats.longest = longest.map(|(plies, index)| (plies, dtw_table.index().unrank(index).to_fen()));
    Ok(stats)
}

/// A position's distance and, with rule tables, its rule-aware value.
type Values = (Dtw, Option<RuleValue>);

/// The tables of one material.
struct MaterialTables<'a> {
    tables: &'a Tablebase,
    material: Material,
    wdl: &'a Table,
    dtw: &'a Table,
    rules: Option<&'a Table>,
    /// The limits of the rule tables, if there are rule tables.
    limits: Option<Limits>,
}

impl MaterialTables<'_> {
    /// The values of the positions `range` (White to move) of block `b`.
    fn white_values(&self, b: u32, range: Range<u64>) -> Result<Vec<Values>, ProbeError> {
        let wdl = self.wdl.read_block(b)?;
        let distances = self.dtw.read_block(b)?;
        let codes = self.rules.map(|t| t.read_block(b)).transpose()?;
        let bits = self.dtw.header().bits;
        let first = u64::from(b) * u64::from(self.dtw.header().positions_per_block);
        let mut cursor = self.dtw.index().cursor(range.start);
        let mut values = Vec::with_capacity((range.end - range.start) as usize);
        for at in range {
            let pos = cursor.position();
            cursor.advance();
            let i = (at - first) as usize;
            let value = if pos.must_capture() {
                self.resolved(&pos, true)?
            } else if (read_code(&wdl, 2, i) as u8) == Wdl::Draw.code() {
                self.draw()
            } else {
                let rule = match (&codes, self.rules) {
                    (Some(codes), Some(table)) => {
                        Some(RuleValue::from_code(codes[i]).ok_or_else(|| {
                            ProbeError::Corrupted {
                                path: table.path().to_path_buf(),
                                reason: format!("invalid rule value code {}", codes[i]),
                            }
                        })?)
                    }
                    _ => None,
                };
                (DtwCodec::read(&distances, bits, i).unwrap_or(Dtw::Draw), rule)
            };
            values.push(value);
        }
        Ok(values)
    }

    /// The values of the positions `range` (Black to move) of block `b`, from their moves;
    /// `white` holds the values of the material's positions with White to move.
    fn black_values(
        &self,
        b: u32,
        range: Range<u64>,
        white: &[Values],
    ) -> Result<Vec<Values>, ProbeError> {
        let wdl = self.wdl.read_block(b)?;
        let first = u64::from(b) * u64::from(self.dtw.header().positions_per_block);
        let index = self.dtw.index();
        let mut cursor = index.cursor(range.start);
        let mut values = Vec::with_capacity((range.end - range.start) as usize);
        for at in range {
            let pos = cursor.position();
            cursor.advance();
            let value = if pos.must_capture() {
                self.resolved(&pos, true)?
            } else if (read_code(&wdl, 2, (at - first) as usize) as u8) == Wdl::Draw.code() {
                self.draw()
            } else {
                self.through_moves(&pos, |next| {
                    if Material::of(next) == self.material {
                        Ok(white[index.rank(next) as usize])
                    } else {
                        self.resolved(next, false)
                    }
                })?
            };
            values.push(value);
        }
        Ok(values)
    }

    /// The values of a position of any material. A position that must capture is resolved
    /// through its captures here, both values at once, as is, when `expand` holds, one that the
    /// distance and rule tables leave out (Black to move in the stored orientation of an
    /// asymmetric material; see [`rafle_probe::format`]), through its moves; a draw is read
    /// from the win/draw/loss table; the rest is probed. Which positions are left out matters
    /// only for speed: the probe answers any position.
    fn resolved(&self, pos: &Position, expand: bool) -> Result<Values, ProbeError> {
        let (side, other) = (pos.turn(), pos.turn().opposite());
        if pos.side_pieces(side).is_empty() || pos.side_pieces(other).is_empty() {
            return self.probed(pos);
        }
        if pos.must_capture() {
            // Captures leave the material: the recursion ends.
            return self.through_moves(pos, |next| self.resolved(next, true));
        }
        if self.tables.probe_wdl(pos)? == Wdl::Draw {
            return Ok(self.draw());
        }
        let material = Material::of(pos);
        let left_out =
            !material.is_symmetric() && (side == Color::White) != material.is_canonical();
        if expand && left_out {
            // Its moves reach positions kept in the tables, or captures.
            return self.through_moves(pos, |next| self.resolved(next, false));
        }
        self.probed(pos)
    }

    /// The values of a position from those of its successors, `value_of` each.
    fn through_moves(
        &self,
        pos: &Position,
        value_of: impl Fn(&Position) -> Result<Values, ProbeError>,
    ) -> Result<Values, ProbeError> {
        let moves = pos.legal_moves();
        let mut successors = Vec::with_capacity(moves.len());
        for mv in &moves {
            let next = pos.play(mv);
            successors.push((value_of(&next)?, resets_counter(pos, mv, &next)));
        }
        let dtw = Dtw::from_successors(successors.iter().map(|((d, _), _)| *d));
        let rule = self.limits.map(|limits| {
            RuleValue::from_successors(
                limits.of(Category::of_position(pos)),
                successors
                    .iter()
                    .filter_map(|((_, r), resets)| r.map(|r| (r, *resets))),
            )
        });
        Ok((dtw, rule))
    }

    /// The values of a position as the probe gives them.
    fn probed(&self, pos: &Position) -> Result<Values, ProbeError> {
        let dtw = self.tables.probe_dtw(pos)?;
        let rule = match self.limits {
            Some(_) => Some(self.tables.probe_draw_rules(pos, Counters::FRESH)?.value),
            None => None,
        };
        Ok((dtw, rule))
    }

    fn draw(&self) -> Values {
        let rule = self.limits.map(|_| RuleValue::uncounted(RuleClass::Draw));
        (Dtw::Draw, rule)
    }
}

impl BlockStats {
    /// The counts of consecutive positions from index `first`.
    fn count(first: u64, values: &[Values]) -> BlockStats {
        let mut stats = BlockStats::default();
        for (i, (dtw, rule)) in values.iter().enumerate() {
            match *dtw {
                Dtw::Win(plies) => {
                    stats.wins += 1;
                    if stats.longest.is_none_or(|(best, _)| plies > best) {
                        stats.longest = Some((plies, first + i as u64));
                    }
                }
                Dtw::Draw => stats.draws += 1,
                Dtw::Loss(_) => stats.losses += 1,
            }
            if let Some(rule) = rule {
                stats.classes[class_slot(rule.class())] += 1;
            }
        }
        stats
    }
}

/// Which columns are numbers, aligned right.
const RIGHT_ALIGNED: [bool; COLUMNS] = [
    false, false, true, true, true, true, true, true, true, true, true, true, false,
];
const COLUMNS: usize = 13;

/// Writes one row per material and the total row, in aligned columns.
fn write_stats(out: &mut impl Write, variant: Variant, rows: &[(String, Stats)]) -> io::Result<()> {
    let mut table: Vec<[String; COLUMNS]> = vec![[
        "variant",
        "material",
        "positions",
        "wins",
        "draws",
        "losses",
        "rule wins",
        "cursed",
        "rule draws",
        "blessed",
        "rule losses",
        "longest",
        "longest win at",
    ]
    .map(String::from)];
    for (material, stats) in rows {
        let class = |slot: usize| {
            stats
                .classes
                .map_or("-".to_string(), |classes| classes[slot].to_string())
        };
        let (plies, fen) = match &stats.longest {
            Some((plies, fen)) => (*plies, fen.as_str()),
            None => (0, "-"),
        };
        table.push([
            variant.to_string(),
            material.clone(),
            stats.positions.to_string(),
            stats.wins.to_string(),
            stats.draws.to_string(),
            stats.losses.to_string(),
            class(0),
            class(1),
            class(2),
            class(3),
            class(4),
            plies.to_string(),
            fen.to_string(),
        ]);
    }
    write_table(out, &table, &RIGHT_ALIGNED)
}

fn json_stats<'a>(
    variant: Variant,
    material: &'a str,
    stats: &'a Stats,
    limits: Option<Limits>,
) -> JsonStats<'a> {
    JsonStats {
        variant: variant.name(),
        material,
        positions: stats.positions,
        wins: stats.wins,
        draws: stats.draws,
        losses: stats.losses,
        classes: stats.classes.map(|c| JsonClasses {
            win: c[0],
            cursed_win: c[1],
            draw: c[2],
            blessed_loss: c[3],
            loss: c[4],
        }),
        longest_win: stats.longest.as_ref().map_or(0, |(plies, _)| *plies),
        longest_win_fen: stats.longest.as_ref().map(|(_, fen)| fen.as_str()),
        limits: limits.map(|l| l.to_string()),
    }
}
