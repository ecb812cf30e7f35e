//! Tables: writing a material's table files (blocks packed and compressed in parallel, written
//! to a temporary file, read back and compared, then renamed into place), the counts kept
//! beside them ([`summary`]), reading them back for the materials solved after it ([`load`]
//! whole, [`streamed`] a block at a time), and converting those of the previous format
//! ([`convert`]).

pub(crate) mod convert;
pub(crate) mod counts;
pub(crate) mod load;
pub(crate) mod streamed;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use std::sync::Mutex;

use rafle_probe::toolkit::codec::{Codec, DrawRulesCodec, DtwCodec, Entry, WdlCodec};
use rafle_probe::toolkit::format::{
    BlockEntry, Header, StoredHalf, TableKind, FORMAT_VERSION, HEADER_LEN, POSITIONS_PER_BLOCK,
};
use rafle_probe::{
    draughts::{Limits, Material, Variant},
    toolkit::Table,
    Dtw, RuleValue,
};
use rayon::prelude::*;

use crate::files::{clone_error, io_error};
use crate::plan::{MaterialPlan, Plan, LEAST_CACHE_BYTES};
use crate::work::values::{distance, rule_value, ValuesFile, CAPTURE};
use crate::write::counts::Counts;
use crate::GenerateError;

/// The sizes of a material's three table files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) wdl: u64,
    pub(crate) dtw: u64,
    pub(crate) draw_rules: u64,
}

/// Which of a solved material's tables are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writing {
    /// All three.
    All,
    /// The rule table alone: the others are on disk already.
    RulesOnly,
    /// The win/draw/loss table alone: the rule values were not solved.
    WdlOnly,
}

/// Where a material's values are read from to be written as tables: its work file, or its
/// tables of the previous format version read back.
pub(crate) trait Source: Sync {
    /// The distance codes (with their capture marks, [`CAPTURE`]) and rule codes of `len`
    /// positions from `start`.
    ///
    /// # Errors
    ///
    /// [`GenerateError`] if they cannot be read.
    fn read_range(&self, start: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError>;

    /// Gives back what this source holds in memory if the process is past `mark` bytes of
    /// resident memory (the mark the material was solved under), more if it is past `limit`
    /// (the plan's memory); called between table blocks.
    fn keep_within(&self, _mark: u64, _limit: u64) {}
}

impl Source for crate::solve::store::BandsThroughCache<'_> {
    fn read_range(&self, start: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        self.values.read_through(start, len, self.cache)
    }

    fn keep_within(&self, mark: u64, limit: u64) {
        crate::solve::store::BandsThroughCache::keep_within(self, mark, limit, LEAST_CACHE_BYTES);
    }
}

impl Source for ValuesFile {
    fn read_range(&self, start: u64, len: usize) -> Result<(Vec<u16>, Vec<u8>), GenerateError> {
        ValuesFile::read_range(self, start, len)
    }

    fn keep_within(&self, mark: u64, _limit: u64) {
        ValuesFile::keep_within(self, mark);
    }
}

/// Writes a solved material's tables from its values, those `writing` says. `longest` is
/// its longest win. Returns the sizes of the tables written or kept, and the material's counts
/// (without cursed wins and blessed losses when the rules were not solved).
///
/// Which side to move each table stores (see [`StoredHalf`]): with compact tables
/// (`Plan::compact`), the three store the same side, White to move for a symmetric material,
/// else the side whose win/draw/loss values compress smaller. Otherwise the win/draw/loss
/// table stores both sides, and the distance and rule tables White to move in the stored
/// orientation, the side with more pieces: a position of the other side is found from its
/// moves, and measured on Brazilian up to 5 that side's fewer moves make a distance probe read
/// 3.0 values on average, against 10.9 for the side chosen for size (whose tables are a
/// third smaller). When the rule table alone is written, it stores the side the distance
/// table on disk stores.
///
/// # Errors
///
/// As [`write_table`].
pub(crate) fn write_tables(
    plan: &Plan,
    m: &MaterialPlan,
    values: &dyn Source,
    longest: u16,
    writing: Writing,
) -> Result<(Written, Counts), GenerateError> {
    let tables = SolvedTables {
        plan,
        m,
        values,
        n: m.positions as usize,
        counts: Mutex::new(Counts::default()),
    };
    let (mut written, stored) = if writing == Writing::RulesOnly {
        tables.kept_sizes()?
    } else {
        let (wdl, stored) = tables.write_wdl(writing)?;
        let written = Written {
            wdl,
            ..Written::default()
        };
        (written, stored)
    };
    if writing == Writing::WdlOnly {
        // Solved without distances (see `MaterialSolver::seed`): the levels are not the
        // longest win.
        return Ok((written, into_counts(tables.counts).without_longest()));
    }
    if writing == Writing::All {
        written.dtw = tables.write_dtw(stored, longest)?;
    }
    written.draw_rules = tables.write_rules(stored, writing == Writing::RulesOnly)?;
    Ok((written, into_counts(tables.counts)))
}

/// The tables of a solved material as they are written from its values, and the counts of
/// the blocks written so far.
struct SolvedTables<'a> {
    plan: &'a Plan,
    m: &'a MaterialPlan,
    values: &'a dyn Source,
    /// Positions, both sides to move.
    n: usize,
    counts: Mutex<Counts>,
}

impl SolvedTables<'_> {
    /// The header of the material's table of `kind`.
    fn header(
        &self,
        kind: TableKind,
        bits: u8,
        limits: Option<Limits>,
        stored: StoredHalf,
    ) -> Header {
        let m = self.m;
        header(
            kind,
            self.plan.variant,
            m.material,
            m.positions,
            bits,
            limits,
            stored,
        )
    }

    /// Whether block `b` holds positions of `half` or of `counted` (a range of positions),
    /// the only blocks a pass reads: a table storing one side to move holds nothing of a block
    /// of the other, and reading it would only be thrown away.
    fn is_read(&self, b: u32, half: StoredHalf, counted: &Range<usize>) -> bool {
        let start = b as usize * POSITIONS_PER_BLOCK as usize;
        let block = start..(start + POSITIONS_PER_BLOCK as usize).min(self.n);
        let meets = |r: Range<usize>| r.start < block.end && block.start < r.end;
        meets(half.range(self.n)) || meets(counted.clone())
    }

    /// Block `b`'s codes, with what the codec needs to know of each position: its first
    /// position, its distance codes and its rule codes.
    fn block(&self, b: u32) -> Result<(usize, Vec<u16>, Vec<u8>), GenerateError> {
        let start = b as usize * POSITIONS_PER_BLOCK as usize;
        let len = (self.n - start).min(POSITIONS_PER_BLOCK as usize);
        let (distances, rules) = self.values.read_range(start as u64, len)?;
        (self.values).keep_within(self.plan.release_mark(), self.plan.planned_bytes());
        Ok((start, distances, rules))
    }

    /// The sizes of the win/draw/loss and distance tables kept on disk when the rule table
    /// alone is written, and the side the distance table stores (a win/draw/loss table may
    /// store both).
    fn kept_sizes(&self) -> Result<(Written, StoredHalf), GenerateError> {
        let (plan, m) = (self.plan, self.m);
        let written = Written {
            wdl: file_len(&m.path)?,
            dtw: file_len(&m.dtw_path)?,
            draw_rules: 0,
        };
        let table = Table::open(&m.dtw_path, TableKind::Dtw, plan.variant, m.material).map_err(
            |source| GenerateError::Check {
                variant: plan.variant,
                material: m.material,
                source,
            },
        )?;
        Ok((written, table.header().stored))
    }

    /// Writes the win/draw/loss table, counting the material's positions. Returns its size,
    /// and the side the distance and rule tables store (see [`write_tables`]).
    fn write_wdl(&self, writing: Writing) -> Result<(u64, StoredHalf), GenerateError> {
        let (plan, m, n) = (self.plan, self.m, self.n);
        // Each side's pass counts its own half; without a pass for Black to move, White's
        // counts both. Rule values are counted where they were solved.
        let black_pass = !(m.material.is_symmetric() && plan.compact);
        let rules = writing == Writing::All;
        let white_counted = Counted {
            range: if black_pass { 0..n / 2 } else { 0..n },
            rules,
        };
        let white = self.compress_wdl(StoredHalf::White, &white_counted)?;
        let black = if black_pass {
            let counted = Counted {
                range: n / 2..n,
                rules,
            };
            Some(self.compress_wdl(StoredHalf::Black, &counted)?)
        } else {
            None
        };
        let stored = match &black {
            Some(black)
                if !m.material.is_symmetric()
                    && compressed_len(&black.1) < compressed_len(&white.1) =>
            {
                StoredHalf::Black
            }
            _ => StoredHalf::White,
        };
        let (header, blocks) = match black {
            _ if !plan.compact => {
                let black = black.map(|(_, blocks)| blocks).unwrap_or_default();
                self.compress_wdl_of_both(&white.1, &black)?
            }
            Some(black) if stored == StoredHalf::Black => black,
            _ => white,
        };
        let len = write_compressed(&m.path, &header, &blocks)?;
        Ok((
            len,
            if plan.compact {
                stored
            } else {
                StoredHalf::White
            },
        ))
    }

    /// The header and compressed blocks of the win/draw/loss table storing `stored`, the
    /// positions `counted` names counted.
    fn compress_wdl(
        &self,
        stored: StoredHalf,
        counted: &Counted,
    ) -> Result<(Header, Compressed), GenerateError> {
        let n = self.n;
        let header = self.header(TableKind::Wdl, 2, None, stored);
        let blocks = compress_blocks(&self.m.path, &header, |b| {
            if !self.is_read(b, stored, &counted.range) {
                return Ok(Reuse::Pack(None));
            }
            let (start, distances, rules) = self.block(b)?;
            counted.add(&self.counts, start, &distances, &rules);
            let value = |i: usize| distance(distances[i - start]).wdl();
            Ok(Reuse::Pack(pack_block::<WdlCodec>(
                n,
                b,
                2,
                entry_at(n, start, stored, &distances),
                value,
            )))
        })?;
        Ok((header, blocks))
    }

    /// The header and compressed blocks of the win/draw/loss table storing both sides: a
    /// block within one half is that half's block as compressed already (`white`, `black`);
    /// only the block across the middle is made again.
    fn compress_wdl_of_both(
        &self,
        white: &Compressed,
        black: &Compressed,
    ) -> Result<(Header, Compressed), GenerateError> {
        let n = self.n;
        let header = self.header(TableKind::Wdl, 2, None, StoredHalf::Both);
        let half = n / 2;
        let per_block = POSITIONS_PER_BLOCK as usize;
        let blocks = compress_blocks(&self.m.path, &header, |b| {
            let (start, end) = (b as usize * per_block, (b as usize + 1) * per_block);
            if end <= half {
                return Ok(Reuse::Block(white[b as usize].clone()));
            }
            if start >= half {
                return Ok(Reuse::Block(black[b as usize].clone()));
            }
            let (start, distances, _) = self.block(b)?;
            let value = |i: usize| distance(distances[i - start]).wdl();
            Ok(Reuse::Pack(pack_block::<WdlCodec>(
                n,
                b,
                2,
                entry_at(n, start, StoredHalf::Both, &distances),
                value,
            )))
        })?;
        Ok((header, blocks))
    }

    /// Writes the distance table storing `stored`, its width set by the longest win
    /// `longest`. Returns its size.
    fn write_dtw(&self, stored: StoredHalf, longest: u16) -> Result<u64, GenerateError> {
        let n = self.n;
        let bits = DtwCodec::bits_for(longest);
        let header = self.header(TableKind::Dtw, bits, None, stored);
        write_table(&self.m.dtw_path, header, |b| {
            if !self.is_read(b, stored, &Counted::NOTHING.range) {
                return Ok(None);
            }
            let (start, distances, _) = self.block(b)?;
            let value = |i: usize| distance(distances[i - start]);
            Ok(pack_block::<DtwCodec>(
                n,
                b,
                bits,
                entry_at(n, start, stored, &distances),
                value,
            ))
        })
    }

    /// Writes the rule table storing `stored`, counting every position of the material if
    /// `count` (the win/draw/loss table was not written, so did not count them). Returns its
    /// size.
    fn write_rules(&self, stored: StoredHalf, count: bool) -> Result<u64, GenerateError> {
        let n = self.n;
        let header = self.header(TableKind::DrawRules, 8, Some(self.m.limits), stored);
        let counted = if count {
            Counted {
                range: 0..n,
                rules: true,
            }
        } else {
            Counted::NOTHING
        };
        write_table(&self.m.draw_rules_path, header, |b| {
            if !self.is_read(b, stored, &counted.range) {
                return Ok(None);
            }
            let (start, distances, rules) = self.block(b)?;
            counted.add(&self.counts, start, &distances, &rules);
            let value = |i: usize| rule_value(rules[i - start]);
            Ok(pack_block::<DrawRulesCodec>(
                n,
                b,
                8,
                entry_at(n, start, stored, &distances),
                value,
            ))
        })
    }
}

/// The positions a pass over a table's blocks counts (each position is counted by one pass),
/// with their rule values, or as draws under the rules where those were not solved.
struct Counted {
    range: Range<usize>,
    rules: bool,
}

impl Counted {
    /// A pass that counts nothing.
    const NOTHING: Counted = Counted {
        range: 0..0,
        rules: false,
    };

    /// Adds to `total` the positions of this range among those from `start` whose codes are
    /// `distances` and `rules`.
    fn add(&self, total: &Mutex<Counts>, start: usize, distances: &[u16], rules: &[u8]) {
        let from = self.range.start.max(start);
        let to = self.range.end.min(start + distances.len());
        if from >= to {
            return;
        }
        let mut here = Counts::default();
        for at in from..to {
            let rule = if self.rules {
                rule_value(rules[at - start])
            } else {
                RuleValue::DRAW
            };
            here.add(at as u64, distance(distances[at - start]), rule);
        }
        add_counts(total, here);
    }
}

/// The size of the file at `path`.
fn file_len(path: &Path) -> Result<u64, GenerateError> {
    std::fs::metadata(path)
        .map(|md| md.len())
        .map_err(|source| GenerateError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Adds the counts of one block to the total.
fn add_counts(total: &Mutex<Counts>, block: Counts) {
    let mut total = total
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *total = total.merge(block);
}

/// The counts added up.
fn into_counts(total: Mutex<Counts>) -> Counts {
    total
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// zstd level of table blocks. Measured on the international tables up to 4 pieces: level 15
/// gives 0.1825 bits a position against 0.1815 at level 19, in half the time.
pub const COMPRESSION_LEVEL: i32 = 15;

/// A zstd compressor for the blocks of a `kind` table: [`COMPRESSION_LEVEL`] with its match
/// finder set by kind. Level 15 picks btultra for a `.wdl` block (16 KB) and btopt with a
/// search depth of 6 for the others; measured on Brazilian up to 6 (docs/history.md), btopt
/// with depth 5 and target length 999 compresses `.wdl` blocks 2.45 times as fast for 0.47%
/// more bytes, and depth 7 (`.dtw`) or 5 (`.rules`) with target length 999 gives 0.25% and
/// 0.9% fewer bytes in about the same time. Any parameters decode with the same reader.
fn block_compressor(kind: TableKind) -> std::io::Result<zstd::bulk::Compressor<'static>> {
    use zstd::stream::raw::CParameter;
    use zstd::zstd_safe::Strategy;
    let search_log = match kind {
        TableKind::Dtw => 7,
        TableKind::Wdl | TableKind::DrawRules => 5,
    };
    let mut compressor = zstd::bulk::Compressor::new(COMPRESSION_LEVEL)?;
    for parameter in [
        CParameter::Strategy(Strategy::ZSTD_btopt),
        CParameter::SearchLog(search_log),
        CParameter::MinMatch(3),
        CParameter::TargetLength(999),
    ] {
        compressor.set_parameter(parameter)?;
    }
    Ok(compressor)
}

/// What the codecs need to know of position `i` of a table of `n` positions storing `stored`,
/// whose codes from `start` on are `distances`.
fn entry_at(
    n: usize,
    start: usize,
    stored: StoredHalf,
    distances: &[u16],
) -> impl Fn(usize) -> Entry + '_ {
    move |i: usize| {
        let code = distances[i - start];
        Entry::at_index(
            i,
            n,
            stored,
            code & CAPTURE != 0,
            distance(code) == Dtw::Draw,
        )
    }
}

/// Packs block `block` of a table of `positions` positions of codec `C` and `bits` bits a
/// position: `value(i)` for each position `i` the table holds by `entry(i)`; `None` when it
/// holds none of the block's positions (the block is stored empty).
pub(crate) fn pack_block<C: Codec>(
    positions: usize,
    block: u32,
    bits: u8,
    entry: impl Fn(usize) -> Entry,
    value: impl Fn(usize) -> C::Value,
) -> Option<Vec<u8>> {
    let start = block as usize * POSITIONS_PER_BLOCK as usize;
    let end = (start + POSITIONS_PER_BLOCK as usize).min(positions);
    let (packed, any) = C::pack(
        (start..end).map(|i| C::KIND.holds(entry(i)).then(|| value(i))),
        bits,
    );
    any.then_some(packed)
}

/// A table's blocks compressed, each with the CRC-32 of its decompressed bytes (for reading
/// the file back); an empty block stands for one that holds no position.
type Compressed = Vec<(u32, Vec<u8>)>;

/// The bytes the blocks take in the file.
fn compressed_len(blocks: &Compressed) -> u64 {
    blocks.iter().map(|(_, c)| c.len() as u64).sum()
}

/// Writes a table whose blocks `pack` makes (`None` for a block that holds no position);
/// returns the file's size.
///
/// # Errors
///
/// [`GenerateError::Io`] if writing fails (the temporary file is removed), or
/// [`GenerateError::Check`] if the written file does not read back the same.
pub(crate) fn write_table(
    path: &Path,
    header: Header,
    pack: impl Fn(u32) -> Result<Option<Vec<u8>>, GenerateError> + Sync,
) -> Result<u64, GenerateError> {
    let compressed = compress_blocks(path, &header, |b| pack(b).map(Reuse::Pack))?;
    write_compressed(path, &header, &compressed)
}

/// A block of a table being compressed: packed, to compress (`None`: it holds no position),
/// or already compressed for another table with the same contents.
enum Reuse {
    Pack(Option<Vec<u8>>),
    Block((u32, Vec<u8>)),
}

/// The blocks of a table of `path` whose blocks `pack` makes, compressed in parallel.
fn compress_blocks(
    path: &Path,
    header: &Header,
    pack: impl Fn(u32) -> Result<Reuse, GenerateError> + Sync,
) -> Result<Compressed, GenerateError> {
    let io = io_error(path);
    // A block holding no position is checked against zeros; most blocks have the same length.
    let zeros_crc = |len: usize| crc32fast::hash(&vec![0; len]);
    let full_len = Header::block_len(header.positions_per_block, header.bits);
    let full_zeros_crc = zeros_crc(full_len);
    (0..header.blocks)
        .into_par_iter()
        .map_init(
            || block_compressor(header.kind),
            |compressor, b| {
                let packed = match pack(b)? {
                    Reuse::Block(block) => return Ok(block),
                    Reuse::Pack(Some(packed)) => packed,
                    Reuse::Pack(None) => {
                        let len = Header::block_len(header.positions_in_block(b), header.bits);
                        let crc = if len == full_len {
                            full_zeros_crc
                        } else {
                            zeros_crc(len)
                        };
                        return Ok((crc, Vec::new()));
                    }
                };
                let compressor = compressor.as_mut().map_err(|e| io(clone_error(e)))?;
                let mut compressed = compressor.compress(&packed).map_err(&io)?;
                // The buffer was sized for the worst case, the whole block; every block of the
                // table is held until the file is written, so the spare room would add up to
                // gigabytes for the largest materials.
                compressed.shrink_to_fit();
                Ok((crc32fast::hash(&packed), compressed))
            },
        )
        .collect()
}

/// Writes a table of `header` and `compressed` blocks to `path`: by a temporary name, read back
/// and compared, then renamed. Returns the file's size.
fn write_compressed(
    path: &Path,
    header: &Header,
    compressed: &Compressed,
) -> Result<u64, GenerateError> {
    let mut offset = (HEADER_LEN + header.index_len()) as u64;
    let mut index = Vec::with_capacity(header.index_len());
    for (_, data) in compressed {
        let entry = BlockEntry {
            offset,
            len: data.len() as u32,
            crc: crc32fast::hash(data),
        };
        index.extend_from_slice(&entry.encode());
        offset += data.len() as u64;
    }
    let index_crc = crc32fast::hash(&index);
    index.extend_from_slice(&index_crc.to_le_bytes());

    let tmp = crate::temporary_path(path);
    let result = write_file(
        &tmp,
        &header.encode(),
        &index,
        compressed.iter().map(|(_, c)| c),
    )
    .and_then(|()| check_file(&tmp, header, compressed))
    .and_then(|()| {
        fs::rename(&tmp, path).map_err(|source| GenerateError::Io {
            path: path.to_path_buf(),
            // Said rather than a bare "Is a directory": what stands in the table's place.
            source: match fs::symlink_metadata(path) {
                Ok(meta) if meta.is_dir() => std::io::Error::new(
                    source.kind(),
                    "a directory, where the table belongs: the new table cannot replace it",
                ),
                _ => source,
            },
        })
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    if let Some(dir) = path.parent() {
        // Make the rename durable; not every platform can open a directory, so this is best
        // effort.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(offset)
}

/// The header of a table of `kind` for a solved material of `positions` positions.
pub(crate) fn header(
    kind: TableKind,
    variant: Variant,
    material: Material,
    positions: u64,
    bits: u8,
    limits: Option<Limits>,
    stored: StoredHalf,
) -> Header {
    Header {
        kind,
        variant,
        material,
        positions,
        positions_per_block: POSITIONS_PER_BLOCK,
        blocks: positions.div_ceil(u64::from(POSITIONS_PER_BLOCK)) as u32,
        bits,
        limits,
        stored,
        version: FORMAT_VERSION,
    }
}

/// Writes a table's bytes to `path`, a fresh [`crate::temporary_path`], synced.
fn write_file<'a>(
    path: &Path,
    header: &[u8],
    index: &[u8],
    blocks: impl Iterator<Item = &'a Vec<u8>>,
) -> Result<(), GenerateError> {
    let io = io_error(path);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let file = crate::create_temporary(path).map_err(&io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(header).map_err(&io)?;
    out.write_all(index).map_err(&io)?;
    for block in blocks {
        out.write_all(block).map_err(&io)?;
    }
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(&io)
}

/// Checks that the table written to `path` reads back block by block as `blocks` were
/// packed (their CRC-32s).
fn check_file(
    path: &Path,
    header: &Header,
    blocks: &[(u32, Vec<u8>)],
) -> Result<(), GenerateError> {
    let (variant, material) = (header.variant, header.material);
    let check = |source| GenerateError::Check {
        variant,
        material,
        source,
    };
    let table = Table::open(path, header.kind, variant, material).map_err(check)?;
    blocks
        .par_iter()
        .enumerate()
        .try_for_each(|(b, (packed, _))| {
            if crc32fast::hash(&table.read_block(b as u32).map_err(check)?) != *packed {
                return Err(check(rafle_probe::ProbeError::Corrupted {
                    path: path.to_path_buf(),
                    reason: format!("block {b} reads back different"),
                }));
            }
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_positions_extend_runs() {
        use rafle_probe::toolkit::codec::WdlCodec;
        use rafle_probe::Wdl::{Draw, Loss, Win};
        let values = [Win, Loss, Win, Loss, Draw];
        let captures = [false, true, true, false, true];
        let entry = |i: usize| Entry {
            capture: captures[i],
            drawn: values[i] == Draw,
            stored_side: true,
        };
        let packed = pack_block::<WdlCodec>(5, 0, 2, entry, |i| values[i]).unwrap();
        let codes: Vec<u8> = (0..5)
            .map(|i| rafle_probe::toolkit::codec::read_code(&packed, 2, i) as u8)
            .collect();
        let (win, loss) = (Win.code(), Loss.code());
        // The change from win to loss goes at the most aligned left-out position, 2.
        assert_eq!(codes, [win, win, loss, loss, loss]);
        let other_side = |i: usize| Entry {
            stored_side: false,
            ..entry(i)
        };
        assert_eq!(
            pack_block::<WdlCodec>(5, 0, 2, other_side, |i| values[i]),
            None
        );
    }
}
