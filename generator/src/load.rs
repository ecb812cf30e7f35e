//! Reading a material's tables back from disk for the materials solved after it: every checksum
//! checked, and the positions the tables leave out (see [`rafle_probe::format`]) given their
//! values again, from the materials below and from the positions kept.

use rafle_probe::codec::{read_code, Codec, DtwCodec};
use rafle_probe::format::{Header, TableKind};
use rafle_probe::{
    resets_counter, Category, Dtw, Material, Position, PositionIndex, RuleClass, RuleValue, Table,
    Wdl,
};
use rayon::prelude::*;

use crate::plan::MaterialPlan;
use crate::solve::CAPTURE;
use crate::store::{Distances, Store};
use crate::Progress;

/// Which positions' side to move must capture, a bit each.
pub(crate) struct Captures(Vec<u64>);

impl Captures {
    /// From a solution's states.
    pub(crate) fn from_states(states: &[u8]) -> Captures {
        let mut words = vec![0u64; states.len().div_ceil(64)];
        for (i, s) in states.iter().enumerate() {
            if s & CAPTURE != 0 {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        Captures(words)
    }

    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}

/// Whether the distance and rule tables keep position `i` of a material's solution: White to
/// move (the first half of the index), no capture due, not drawn.
pub(crate) fn holds_value(captures: &Captures, distances: &Distances, i: usize) -> bool {
    i < distances.len() / 2 && !captures.contains(i) && distances.get(i) != Dtw::Draw
}

/// A material's win/draw/loss and distance tables read back, with its rule table if that one
/// is valid too.
pub(crate) struct Loaded {
    pub(crate) distances: Distances,
    pub(crate) captures: Captures,
    pub(crate) bytes: u64,
    pub(crate) dtw_bytes: u64,
    /// The rule codes and the file's size, or why the rule table must be computed again
    /// (`None`: there was none).
    pub(crate) rules: Result<(Vec<u8>, u64), Option<String>>,
}

/// Checks a material's complete tables, every checksum, and reads its values back; its rule
/// table is taken only if it has the plan's limits.
pub(crate) fn load_existing(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Loaded, String> {
    let (variant, material) = (index.variant(), m.material);
    let open = |path, kind| Table::open(path, kind, variant, material).map_err(|e| e.to_string());
    let wdl_table = open(&m.path, TableKind::Wdl)?;
    let wdl = read_all_blocks(&wdl_table)?;
    let dtw_table = open(&m.dtw_path, TableKind::Dtw)?;
    let bytes = read_all_blocks(&dtw_table)?;
    let successors = |pos: &Position, same: &dyn Fn(&Position) -> Dtw| {
        Dtw::from_successors(pos.legal_moves().iter().map(|mv| {
            let next = pos.play(mv);
            if Material::of(&next) == material {
                same(&next)
            } else {
                store.dtw(&next)
            }
        }))
    };
    let (distances, captures) = if dtw_table.header().bits == 8 {
        let mut values = bytes;
        let encode = |d: Dtw| d.plies().map_or(u8::MAX, |p| p as u8);
        let decode = |v: u8| DtwCodec::decode(u16::from(v), 8).unwrap_or(Dtw::Draw);
        let captures = complete(
            &mut values,
            index,
            (&wdl, u8::MAX),
            (progress, 2),
            |pos, same| encode(successors(pos, &|next| decode(same(next)))),
        );
        (Distances::Narrow(values), captures)
    } else {
        let mut values: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let encode = |d: Dtw| d.plies().unwrap_or(u16::MAX);
        let decode = |v: u16| DtwCodec::decode(v, 16).unwrap_or(Dtw::Draw);
        let captures = complete(
            &mut values,
            index,
            (&wdl, u16::MAX),
            (progress, 2),
            |pos, same| encode(successors(pos, &|next| decode(same(next)))),
        );
        (Distances::Wide(values), captures)
    };
    Ok(Loaded {
        distances,
        captures,
        bytes: wdl_table.file_len(),
        dtw_bytes: dtw_table.file_len(),
        rules: load_draw_rules(m, index, store, &wdl, progress),
    })
}

/// A valid rule table of the plan's limits, read back complete; else why not (`None` when
/// there is no file).
fn load_draw_rules(
    m: &MaterialPlan,
    index: &PositionIndex,
    store: &Store,
    wdl: &[u8],
    progress: &dyn Progress,
) -> Result<(Vec<u8>, u64), Option<String>> {
    if !m.draw_rules_path.exists() {
        return Err(None);
    }
    let (variant, material) = (index.variant(), m.material);
    let table = Table::open(&m.draw_rules_path, TableKind::DrawRules, variant, material)
        .map_err(|e| Some(e.to_string()))?;
    if table.header().limits != Some(m.limits) {
        return Err(Some(format!(
            "{} was computed with other draw-rule limits",
            m.draw_rules_path.display()
        )));
    }
    let mut codes = read_all_blocks(&table).map_err(Some)?;
    let limit = m.limits.of(Category::of(variant, material));
    let decode = |code: u8| RuleValue::from_code(code).unwrap_or(RuleValue::loss(0));
    if let Some(bad) = codes.iter().find(|&&c| RuleValue::from_code(c).is_none()) {
        return Err(Some(format!(
            "{}: invalid rule value code {bad}",
            m.draw_rules_path.display()
        )));
    }
    let draw = RuleValue::uncounted(RuleClass::Draw).code();
    complete(
        &mut codes,
        index,
        (wdl, draw),
        (progress, 1),
        |pos, same| {
            RuleValue::from_successors(
                limit,
                pos.legal_moves().iter().map(|mv| {
                    let next = pos.play(mv);
                    let value = if Material::of(&next) == material {
                        decode(same(&next))
                    } else {
                        store.rule(&next)
                    };
                    (value, resets_counter(pos, mv, &next))
                }),
            )
            .code()
        },
    );
    Ok((codes, table.file_len()))
}

/// The decompressed contents of every block of a table, checksums checked.
fn read_all_blocks(table: &Table) -> Result<Vec<u8>, String> {
    let header = table.header();
    let mut bytes =
        Vec::with_capacity(Header::block_len(1, header.bits) * header.positions as usize);
    for b in 0..header.blocks {
        bytes.extend_from_slice(&table.read_block(b).map_err(|e| e.to_string())?);
    }
    Ok(bytes)
}

/// Gives the positions a distance or rule table leaves out their values: first the positions
/// that must capture (from their captures) and the draws (`draw`, where `wdl`, a packed
/// win/draw/loss table, says so), then the positions with Black to move, from their moves. `from_moves(pos, same)`
/// combines a position's successors, reading those of the same material with `same`. Returns
/// which positions must capture.
fn complete<T: Copy + Send + Sync>(
    values: &mut [T],
    index: &PositionIndex,
    (wdl, draw): (&[u8], T),
    (progress, units): (&dyn Progress, u64),
    from_moves: impl Fn(&Position, &dyn Fn(&Position) -> T) -> T + Sync,
) -> Captures {
    const CHUNK: usize = 1 << 12;
    // A capture always leaves the material: `same` is never called for one.
    let words: Vec<Vec<u64>> = values
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let start = c * CHUNK;
            let mut cursor = index.cursor(start as u64);
            let mut words = vec![0u64; chunk.len().div_ceil(64)];
            for (i, slot) in chunk.iter_mut().enumerate() {
                let pos = cursor.position();
                cursor.advance();
                if pos.must_capture() {
                    *slot = from_moves(&pos, &|_| *slot);
                    words[i / 64] |= 1 << (i % 64);
                } else if (read_code(wdl, 2, start + i) as u8) == Wdl::Draw.code() {
                    *slot = draw;
                }
            }
            words
        })
        .collect();
    let captures = Captures(words.concat());
    let half = values.len() / 2;
    let (white, black) = values.split_at_mut(half);
    let white: &[T] = white;
    black
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let start = half + c * CHUNK;
            let mut cursor = index.cursor(start as u64);
            for (i, slot) in chunk.iter_mut().enumerate() {
                let pos = cursor.position();
                cursor.advance();
                let at = start + i;
                if !captures.contains(at) && (read_code(wdl, 2, at) as u8) != Wdl::Draw.code() {
                    *slot = from_moves(&pos, &|next| white[index.rank(next) as usize]);
                }
            }
        });
    progress.advance(units * values.len() as u64);
    captures
}
