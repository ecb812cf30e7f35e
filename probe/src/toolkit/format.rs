//! The table file format, shared by the writer (generator) and the reader (probe).
//!
//! ```text
//! header   64 bytes  magic, format version, kind, variant, material, position count,
//!                    positions per block, block count, bits per position, the draw-rule
//!                    limits of a rule table (plies of 6.2, 6.3, 6.4), the half of the
//!                    index stored, crc32 of the first 60 bytes
//! index    16 bytes per block: file offset (u64), compressed length (u32), crc32 of the
//!          compressed bytes (u32); then the crc32 of the whole index (u32)
//! blocks   zstd frames, back to back, up to the end of the file; a block none of whose
//!          positions is stored has length 0 and no frame
//! ```
//!
//! All integers are little-endian. A block holds `positions_per_block` positions (the last one
//! fewer). In a WDL table each is a 2-bit code, four to a byte, lowest bits first; in a DTW
//! table a little-endian integer of 8 or 16 bits; in a rule table a byte, [`RuleValue::code`].
//!
//! Some positions hold no value of their own, and the writer gives them the value before them
//! to lengthen the runs zstd compresses: in every table the positions whose side to move must
//! capture (their value follows from their captures) and the positions of the half of the index
//! not stored (the [`StoredHalf`]: their value follows from their moves, one ply away; a
//! symmetric material reads them from the mirror image); in distance and rule tables also the
//! drawn positions (the win/draw/loss table tells them). Version 3 stores one side to move in
//! all three kinds, the same for the three tables of a material; version 2 stored both sides
//! to move in win/draw/loss tables and White to move in the others (it is read only to be
//! converted); version 1 stored both sides everywhere.
//!
//! The file must end exactly where the last block ends, so a truncated file is told from a
//! complete one.

#[cfg(doc)]
use crate::RuleValue;
use crate::MAX_LIMIT;
use crate::{Limits, Material, Variant};

/// The first eight bytes of every rafle table.
pub const MAGIC: [u8; 8] = *b"RAFLETB\x1a";
/// The format version this code reads and writes.
pub const FORMAT_VERSION: u16 = 3;
/// The previous format version, read only to convert its tables (`rafle generate` does).
pub const LEGACY_VERSION: u16 = 2;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 64;
/// Size of one block index entry.
pub const INDEX_ENTRY_LEN: usize = 16;
/// Positions per block in the tables rafle writes.
pub const POSITIONS_PER_BLOCK: u32 = 1 << 16;

/// What a table stores per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Win/draw/loss, 2 bits per position; file extension `wdl`.
    Wdl,
    /// Distance to win in plies, 8 or 16 bits per position (the largest value meaning a draw);
    /// file extension `dtw`.
    Dtw,
    /// Class and count under the draw rules ([`RuleValue::code`]), 8 bits per position; the
    /// header records the limits; file extension `rules`.
    DrawRules,
}

impl TableKind {
    /// The file extension of tables of this kind.
    pub fn extension(self) -> &'static str {
        match self {
            TableKind::Wdl => "wdl",
            TableKind::Dtw => "dtw",
            TableKind::DrawRules => "rules",
        }
    }

    fn code(self) -> u8 {
        match self {
            TableKind::Wdl => 1,
            TableKind::Dtw => 2,
            TableKind::DrawRules => 3,
        }
    }

    fn from_code(code: u8) -> Option<TableKind> {
        match code {
            1 => Some(TableKind::Wdl),
            2 => Some(TableKind::Dtw),
            3 => Some(TableKind::DrawRules),
            _ => None,
        }
    }

    /// Whether a table of this kind may store `bits` bits per position.
    fn allows_bits(self, bits: u8) -> bool {
        match self {
            TableKind::Wdl => bits == 2,
            TableKind::Dtw => bits == 8 || bits == 16,
            TableKind::DrawRules => bits == 8,
        }
    }
}

/// Which positions of a material's index a table stores values for, by side to move in the
/// table's orientation: the first half of the index has White to move, the second Black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoredHalf {
    /// White to move (the first half); a symmetric material always stores this half and reads
    /// the other from the mirror image.
    White,
    /// Black to move (the second half).
    Black,
    /// Both sides to move: a win/draw/loss table written without `--compact` (and those
    /// of format version 2).
    Both,
}

impl StoredHalf {
    fn code(self) -> u8 {
        match self {
            StoredHalf::White => 1,
            StoredHalf::Black => 2,
            StoredHalf::Both => 3,
        }
    }

    fn from_code(code: u8) -> Option<StoredHalf> {
        match code {
            1 => Some(StoredHalf::White),
            2 => Some(StoredHalf::Black),
            3 => Some(StoredHalf::Both),
            _ => None,
        }
    }

    /// Whether position `i` of an index of `positions` positions is in this half.
    #[inline]
    pub fn contains(self, i: usize, positions: usize) -> bool {
        match self {
            StoredHalf::White => i < positions / 2,
            StoredHalf::Black => i >= positions / 2,
            StoredHalf::Both => true,
        }
    }

    /// Whether a position with White to move (in the table's orientation) is in this half.
    #[inline]
    pub fn holds_side(self, white_to_move: bool) -> bool {
        match self {
            StoredHalf::White => white_to_move,
            StoredHalf::Black => !white_to_move,
            StoredHalf::Both => true,
        }
    }

    /// The positions of an index of `positions` positions in this half, as a range.
    pub fn range(self, positions: usize) -> std::ops::Range<usize> {
        match self {
            StoredHalf::White => 0..positions / 2,
            StoredHalf::Black => positions / 2..positions,
            StoredHalf::Both => 0..positions,
        }
    }

    /// The other half (both stays both).
    pub fn other(self) -> StoredHalf {
        match self {
            StoredHalf::White => StoredHalf::Black,
            StoredHalf::Black => StoredHalf::White,
            StoredHalf::Both => StoredHalf::Both,
        }
    }
}

impl std::fmt::Display for StoredHalf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoredHalf::White => "white to move",
            StoredHalf::Black => "black to move",
            StoredHalf::Both => "both sides to move",
        })
    }
}

/// The fixed header of a table file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What is stored.
    pub kind: TableKind,
    /// The board the positions are on.
    pub variant: Variant,
    /// The material of the positions (the stored orientation).
    pub material: Material,
    /// Number of positions, both sides to move.
    pub positions: u64,
    /// Positions per block (the last block may hold fewer).
    pub positions_per_block: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Bits per position: 2 for WDL, 8 or 16 for DTW, 8 for rules.
    pub bits: u8,
    /// The draw-rule limits a rule table was computed with (`None` for other kinds).
    pub limits: Option<Limits>,
    /// The half of the index whose values are stored.
    pub stored: StoredHalf,
    /// The format version: [`FORMAT_VERSION`], or [`LEGACY_VERSION`] for a table read to be
    /// converted.
    pub version: u16,
}

/// Why header bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderError {
    /// Fewer bytes than a header.
    Short,
    /// Not a rafle table.
    BadMagic,
    /// Written by another version of the format.
    Version(u16),
    /// The header's checksum does not match.
    Checksum,
    /// A field holds an impossible value.
    Field(&'static str),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::Short => f.write_str("shorter than a table header"),
            HeaderError::BadMagic => f.write_str("not a rafle table (bad magic number)"),
            HeaderError::Version(v) if *v == LEGACY_VERSION => write!(
                f,
                "a table of format version {v}, this build reads version {FORMAT_VERSION}: \
                 run 'rafle generate' on its directory to convert the set (its values are \
                 read, not solved again)"
            ),
            HeaderError::Version(v) => write!(
                f,
                "format version {v}, this build reads version {FORMAT_VERSION}"
            ),
            HeaderError::Checksum => f.write_str("header checksum mismatch"),
            HeaderError::Field(name) => write!(f, "invalid header field: {name}"),
        }
    }
}

impl Header {
    /// Number of positions in block `block`.
    pub fn positions_in_block(&self, block: u32) -> u32 {
        let start = u64::from(block) * u64::from(self.positions_per_block);
        (self.positions - start).min(u64::from(self.positions_per_block)) as u32
    }

    /// Bytes of a decompressed block of `positions` positions at `bits` bits each.
    pub fn block_len(positions: u32, bits: u8) -> usize {
        (positions as usize * usize::from(bits)).div_ceil(8)
    }

    /// Length of the block index, checksum included.
    pub fn index_len(&self) -> usize {
        self.blocks as usize * INDEX_ENTRY_LEN + 4
    }

    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..10].copy_from_slice(&self.version.to_le_bytes());
        out[10] = self.kind.code();
        out[11] = self.variant.rules().table_code;
        let m = self.material;
        out[12..16].copy_from_slice(&[m.white_men, m.white_kings, m.black_men, m.black_kings]);
        out[16..24].copy_from_slice(&self.positions.to_le_bytes());
        out[24..28].copy_from_slice(&self.positions_per_block.to_le_bytes());
        out[28..32].copy_from_slice(&self.blocks.to_le_bytes());
        out[32] = self.bits;
        if let Some(l) = self.limits {
            out[33..36].copy_from_slice(&[l.rule_6_2, l.rule_6_3, l.rule_6_4]);
        }
        if self.version != LEGACY_VERSION {
            out[36] = self.stored.code();
        }
        let crc = crc32fast::hash(&out[..60]);
        out[60..64].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a header of the current format version.
    ///
    /// # Errors
    ///
    /// [`HeaderError`] for short input, a wrong magic number or version, a checksum mismatch or
    /// an impossible field.
    pub fn decode(bytes: &[u8]) -> Result<Header, HeaderError> {
        Header::decode_versions(bytes, false)
    }

    /// Reads a header of the current format version or, when `legacy`, of
    /// [`LEGACY_VERSION`] too (for converting it).
    ///
    /// # Errors
    ///
    /// As [`Header::decode`].
    pub fn decode_versions(bytes: &[u8], legacy: bool) -> Result<Header, HeaderError> {
        let bytes = bytes.get(..HEADER_LEN).ok_or(HeaderError::Short)?;
        if bytes[0..8] != MAGIC {
            return Err(HeaderError::BadMagic);
        }
        // The checksum first: a damaged header is damaged, whatever version it now reads.
        if crc32fast::hash(&bytes[..60]) != read_u32(bytes, 60) {
            return Err(HeaderError::Checksum);
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != FORMAT_VERSION && !(legacy && version == LEGACY_VERSION) {
            return Err(HeaderError::Version(version));
        }
        let kind = TableKind::from_code(bytes[10]).ok_or(HeaderError::Field("kind"))?;
        let variant = Variant::from_table_code(bytes[11]).ok_or(HeaderError::Field("variant"))?;
        let material = Material {
            white_men: bytes[12],
            white_kings: bytes[13],
            black_men: bytes[14],
            black_kings: bytes[15],
        };
        let mut header = Header {
            kind,
            variant,
            material,
            positions: read_u64(bytes, 16),
            positions_per_block: read_u32(bytes, 24),
            blocks: read_u32(bytes, 28),
            bits: bytes[32],
            limits: None,
            stored: StoredHalf::White,
            version,
        };
        if version == LEGACY_VERSION {
            if kind == TableKind::Wdl {
                header.stored = StoredHalf::Both;
            }
        } else {
            header.stored =
                StoredHalf::from_code(bytes[36]).ok_or(HeaderError::Field("stored half"))?;
            let both_not_wdl = header.stored == StoredHalf::Both && kind != TableKind::Wdl;
            if both_not_wdl || header.stored == StoredHalf::Black && material.is_symmetric() {
                return Err(HeaderError::Field("stored half"));
            }
        }
        let limits = Limits {
            rule_6_2: bytes[33],
            rule_6_3: bytes[34],
            rule_6_4: bytes[35],
        };
        let valid = |p: u8| (1..=MAX_LIMIT).contains(&p);
        if kind == TableKind::DrawRules {
            if ![limits.rule_6_2, limits.rule_6_3, limits.rule_6_4]
                .into_iter()
                .all(valid)
            {
                return Err(HeaderError::Field("draw-rule limits"));
            }
            header.limits = Some(limits);
        }
        if !header.kind.allows_bits(header.bits) {
            return Err(HeaderError::Field("bits per position"));
        }
        if header.positions_per_block == 0 || !header.positions_per_block.is_multiple_of(4) {
            return Err(HeaderError::Field("positions per block"));
        }
        let needed = header
            .positions
            .div_ceil(u64::from(header.positions_per_block));
        if needed != u64::from(header.blocks) {
            return Err(HeaderError::Field("block count"));
        }
        Ok(header)
    }
}

/// Where one compressed block lies in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset from the start of the file.
    pub offset: u64,
    /// Compressed length.
    pub len: u32,
    /// crc32 of the compressed bytes.
    pub crc: u32,
}

impl BlockEntry {
    /// The entry's bytes.
    pub fn encode(&self) -> [u8; INDEX_ENTRY_LEN] {
        let mut out = [0u8; INDEX_ENTRY_LEN];
        out[0..8].copy_from_slice(&self.offset.to_le_bytes());
        out[8..12].copy_from_slice(&self.len.to_le_bytes());
        out[12..16].copy_from_slice(&self.crc.to_le_bytes());
        out
    }

    /// Reads an entry from exactly [`INDEX_ENTRY_LEN`] bytes.
    pub fn decode(bytes: &[u8]) -> BlockEntry {
        BlockEntry {
            offset: read_u64(bytes, 0),
            len: read_u32(bytes, 8),
            crc: read_u32(bytes, 12),
        }
    }
}

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            kind: TableKind::Wdl,
            variant: Variant::Brazilian,
            material: "KKvK".parse().unwrap(),
            positions: 200_000,
            positions_per_block: POSITIONS_PER_BLOCK,
            blocks: 4,
            bits: 2,
            limits: None,
            stored: StoredHalf::Black,
            version: FORMAT_VERSION,
        }
    }

    #[test]
    fn header_round_trip() {
        let h = header();
        assert_eq!(Header::decode(&h.encode()), Ok(h));
        assert_eq!(h.positions_in_block(3), 200_000 - 3 * 65536);
        let rules = Header {
            kind: TableKind::DrawRules,
            bits: 8,
            limits: Some(Limits::fmjd(Variant::Brazilian)),
            ..h
        };
        assert_eq!(Header::decode(&rules.encode()), Ok(rules));
        let no_limits = Header {
            limits: None,
            ..rules
        };
        assert_eq!(
            Header::decode(&no_limits.encode()),
            Err(HeaderError::Field("draw-rule limits"))
        );
    }

    #[test]
    fn damaged_headers_are_rejected() {
        let bytes = header().encode();
        assert_eq!(Header::decode(&bytes[..10]), Err(HeaderError::Short));
        let mut bad = bytes;
        bad[0] = b'X';
        assert_eq!(Header::decode(&bad), Err(HeaderError::BadMagic));
        for i in 10..60 {
            let mut bad = bytes;
            bad[i] ^= 0x10;
            assert_eq!(Header::decode(&bad), Err(HeaderError::Checksum), "byte {i}");
        }
        let mut bad = bytes;
        bad[8] = 9;
        assert_eq!(Header::decode(&bad), Err(HeaderError::Checksum));
        let other = Header {
            version: 9,
            ..header()
        };
        assert_eq!(
            Header::decode(&other.encode()),
            Err(HeaderError::Version(9))
        );
        // A version-2 table is refused with the way to convert it, unless read to convert.
        let legacy = Header {
            version: LEGACY_VERSION,
            stored: StoredHalf::Both,
            ..header()
        };
        let bytes = legacy.encode();
        let refused = Header::decode(&bytes).unwrap_err();
        assert_eq!(refused, HeaderError::Version(2));
        assert!(
            refused.to_string().contains("run 'rafle generate'"),
            "{refused}"
        );
        assert_eq!(Header::decode_versions(&bytes, true), Ok(legacy));
    }

    #[test]
    fn a_symmetric_material_stores_white_to_move() {
        let h = Header {
            material: "KvK".parse().unwrap(),
            ..header()
        };
        assert_eq!(
            Header::decode(&h.encode()),
            Err(HeaderError::Field("stored half"))
        );
        let white = Header {
            stored: StoredHalf::White,
            ..h
        };
        assert_eq!(Header::decode(&white.encode()), Ok(white));
    }
}
