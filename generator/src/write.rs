//! Writing a table file: blocks packed and compressed in parallel, written to a temporary
//! file, read back and compared, then renamed into place.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rafle_probe::format::{BlockEntry, Header, TableKind, HEADER_LEN, POSITIONS_PER_BLOCK};
use rafle_probe::{Limits, Material, Table, Variant};
use rayon::prelude::*;

use crate::solve::CAPTURE;
use crate::store::Distances;
use crate::GenerateError;

/// zstd level of table blocks. Measured on the international tables up to 4 pieces: level 15
/// gives 0.1825 bits a position against 0.1815 at level 19, in half the time.
pub const COMPRESSION_LEVEL: i32 = 15;

/// Packs block `block` of `states`: 2-bit codes, with positions whose side to move must
/// capture given the value of the position before them, which lengthens runs.
pub(crate) fn pack_block(states: &[u8], block: u32) -> Vec<u8> {
    let start = block as usize * POSITIONS_PER_BLOCK as usize;
    let end = (start + POSITIONS_PER_BLOCK as usize).min(states.len());
    let mut packed = vec![0u8; Header::block_len((end - start) as u32, 2)];
    let mut last = 0u8;
    for (i, &state) in states[start..end].iter().enumerate() {
        let code = if state & CAPTURE != 0 {
            last
        } else {
            state & 0b11
        };
        last = code;
        packed[i / 4] |= code << (2 * (i % 4));
    }
    packed
}

/// Packs block `block` of a DTW table: the distance of each position `holds_value` keeps, or
/// the draw marker, in `distances`' width; the other positions repeat the value before them
/// (see [`rafle_probe::format`]).
pub(crate) fn pack_dtw_block(
    holds_value: impl Fn(usize) -> bool,
    distances: &Distances,
    block: u32,
) -> Vec<u8> {
    let start = block as usize * POSITIONS_PER_BLOCK as usize;
    let end = (start + POSITIONS_PER_BLOCK as usize).min(distances.len());
    let bits = distances.bits();
    let mut packed = Vec::with_capacity(Header::block_len((end - start) as u32, bits));
    let mut last = 0u16;
    for i in start..end {
        if holds_value(i) {
            last = distances.raw(i);
        }
        if bits == 8 {
            packed.push(last as u8);
        } else {
            packed.extend_from_slice(&last.to_le_bytes());
        }
    }
    packed
}

/// Packs block `block` of a rule table: the code of each position `holds_value` keeps, the
/// others repeating the code before them.
pub(crate) fn pack_draw_rules_block(
    holds_value: impl Fn(usize) -> bool,
    codes: &[u8],
    block: u32,
) -> Vec<u8> {
    let start = block as usize * POSITIONS_PER_BLOCK as usize;
    let end = (start + POSITIONS_PER_BLOCK as usize).min(codes.len());
    let mut last = 0u8;
    (start..end)
        .map(|i| {
            if holds_value(i) {
                last = codes[i];
            }
            last
        })
        .collect()
}

/// Writes a table of `positions` positions whose blocks `pack` makes; returns the file's size.
///
/// # Errors
///
/// [`GenerateError::Io`] if writing fails (the temporary file is removed), or
/// [`GenerateError::Check`] if the written file does not read back the same.
pub(crate) fn write_table(
    path: &Path,
    header: Header,
    pack: impl Fn(u32) -> Vec<u8> + Sync,
) -> Result<u64, GenerateError> {
    let blocks = header.blocks;
    let compressed: Vec<(Vec<u8>, Vec<u8>)> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let packed = pack(b);
            let compressed =
                zstd::bulk::compress(&packed, COMPRESSION_LEVEL).map_err(|source| {
                    GenerateError::Io {
                        path: path.to_path_buf(),
                        source,
                    }
                })?;
            Ok((packed, compressed))
        })
        .collect::<Result<_, GenerateError>>()?;

    let mut offset = (HEADER_LEN + header.index_len()) as u64;
    let mut index = Vec::with_capacity(header.index_len());
    for (_, data) in &compressed {
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

    let tmp = temporary_path(path);
    let result = write_file(
        &tmp,
        &header.encode(),
        &index,
        compressed.iter().map(|(_, c)| c),
    )
    .and_then(|()| check_file(&tmp, &header, &compressed))
    .and_then(|()| {
        fs::rename(&tmp, path).map_err(|source| GenerateError::Io {
            path: path.to_path_buf(),
            source,
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
    }
}

/// The temporary name a table is written under before it is checked.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

fn write_file<'a>(
    path: &Path,
    header: &[u8],
    index: &[u8],
    blocks: impl Iterator<Item = &'a Vec<u8>>,
) -> Result<(), GenerateError> {
    let io = |source| GenerateError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|source| GenerateError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let file = File::create(path).map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(header).map_err(io)?;
    out.write_all(index).map_err(io)?;
    for block in blocks {
        out.write_all(block).map_err(io)?;
    }
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)
}

fn check_file(
    path: &Path,
    header: &Header,
    blocks: &[(Vec<u8>, Vec<u8>)],
) -> Result<(), GenerateError> {
    let (variant, material) = (header.variant, header.material);
    let check = |source| GenerateError::Check {
        variant,
        material,
        source,
    };
    let table = Table::open(path, header.kind, variant, material).map_err(check)?;
    for (b, (packed, _)) in blocks.iter().enumerate() {
        if table.read_block(b as u32).map_err(check)? != *packed {
            return Err(check(rafle_probe::ProbeError::Corrupted {
                path: path.to_path_buf(),
                reason: format!("block {b} reads back different"),
            }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_positions_extend_runs() {
        let win = rafle_probe::Wdl::Win.code();
        let loss = rafle_probe::Wdl::Loss.code();
        let draw = rafle_probe::Wdl::Draw.code();
        let states = [win, loss | CAPTURE, win | CAPTURE, loss, draw | CAPTURE];
        let packed = pack_block(&states, 0);
        let codes: Vec<u8> = (0..5)
            .map(|i| rafle_probe::codec::read_code(&packed, 2, i) as u8)
            .collect();
        assert_eq!(codes, [win, win, win, loss, loss]);
    }
}
