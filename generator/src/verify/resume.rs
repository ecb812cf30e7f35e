//! The record `rafle verify --resume` keeps of the materials whose every position it checked,
//! so that a check of a large set (hours) stopped at any point starts again at the first
//! material not recorded instead of from scratch.
//!
//! The record is `DIR/<variant>/.rafle-verified` ([`rafle_probe::toolkit::VariantDir::verify_record`]),
//! a line a material appended (and synced) as
//! soon as it passes: the material, then for each of its three tables the file's length and
//! [fingerprint](rafle_probe::toolkit::Table::fingerprint), which covers every block's checksum, then a
//! checksum of the same for every material before it in dependency order (those its moves
//! reach among them). A material is taken as checked only while all of these are as recorded:
//! if a table is generated or copied again, its material and every material after it are
//! checked again, since their values were checked against its. A line cut short by a stop, or
//! one that does not parse, matches nothing.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::DataDir,
    ProbeError, Tablebase,
};

use crate::VerifyError;

/// The record of one variant's checked materials, open for appending.
#[derive(Debug)]
pub struct VerifiedRecord {
    path: PathBuf,
    file: File,
    /// Each recorded material's stamp (the last line of a material counts).
    stamps: HashMap<Material, String>,
}

impl VerifiedRecord {
    /// Reads the record of `variant` in the table directory `dir` (none yet: an empty one) and
    /// opens it for appending.
    ///
    /// # Errors
    ///
    /// [`VerifyError::Record`] if the record cannot be read, or created or opened for
    /// appending (a read-only directory, a link or a FIFO in its place).
    pub fn open(dir: &Path, variant: Variant) -> Result<VerifiedRecord, VerifyError> {
        let path = DataDir::new(dir).variant(variant).verify_record();
        let context = |source: io::Error| VerifyError::Record {
            path: path.clone(),
            source,
        };
        // Read and appended through one descriptor, opened never through a link (the records
        // would be appended to its target) nor waiting on a FIFO.
        let mut file = rafle_probe::toolkit::open_regular_with(
            &path,
            OpenOptions::new().read(true).append(true).create(true),
        )
        .map_err(context)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(context)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let stamps = text
            .lines()
            .filter_map(|line| {
                let (material, stamp) = line.split_once(' ')?;
                let material: Material = material.parse().ok()?;
                well_formed(stamp).then(|| (material, stamp.to_string()))
            })
            .collect();
        // A line cut short by a stop is ended, so that the next record starts a line of its own.
        if !text.is_empty() && !text.ends_with('\n') {
            file.write_all(b"\n").map_err(context)?;
        }
        Ok(VerifiedRecord { path, file, stamps })
    }

    /// The stamp of each of `materials` (given in dependency order, as [`Tablebase::materials`]
    /// lists them): its tables' own (`kind:length:fingerprint` for each), then `after:` and a
    /// checksum of the own stamps of the materials before it. `None` for a material whose tables cannot be opened; the
    /// materials after it then have stamps that match no record.
    pub fn stamps(
        tables: &Tablebase,
        variant: Variant,
        materials: &[Material],
    ) -> Vec<Option<String>> {
        let mut before = crc32fast::Hasher::new();
        materials
            .iter()
            .map(|&material| {
                let prior = before.clone().finalize();
                match own_stamp(tables, variant, material) {
                    Ok(own) => {
                        before.update(format!("{material} {own}\n").as_bytes());
                        Some(format!("{own} after:{prior:08x}"))
                    }
                    Err(_) => {
                        before.update(format!("{material} unreadable\n").as_bytes());
                        None
                    }
                }
            })
            .collect()
    }

    /// Whether `material` was checked whole with the tables whose stamp is `stamp`.
    pub fn holds(&self, material: Material, stamp: &str) -> bool {
        self.stamps.get(&material).is_some_and(|s| s == stamp)
    }

    /// Records that `material`, with tables of stamp `stamp`, passed a check of every position;
    /// on disk before it returns.
    ///
    /// # Errors
    ///
    /// [`VerifyError::Recording`] if the line cannot be written and synced.
    pub fn record(&mut self, material: Material, stamp: &str) -> Result<(), VerifyError> {
        // One write of the whole line, so that lines of two runs never interleave.
        let line = format!("{material} {stamp}\n");
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| VerifyError::Recording {
                material,
                path: self.path.clone(),
                source,
            })?;
        self.stamps.insert(material, stamp.to_string());
        Ok(())
    }
}

/// The stamp of a material's three tables: `kind:length:fingerprint` for each, space apart.
///
/// # Errors
///
/// As [`Tablebase::table_of`]: a table missing, or whose header or block index is damaged.
fn own_stamp(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
) -> Result<String, ProbeError> {
    let mut parts = Vec::with_capacity(TableKind::ALL.len());
    for &kind in TableKind::ALL.iter() {
        let table = tables.table_of(kind, variant, material)?;
        parts.push(format!(
            "{}:{}:{:08x}",
            kind.extension(),
            table.file_len(),
            table.fingerprint()
        ));
    }
    Ok(parts.join(" "))
}

/// Checks every block checksum of a material's three tables, without decompressing them.
///
/// # Errors
///
/// The first [`ProbeError`] met.
pub fn check_block_checksums(
    tables: &Tablebase,
    variant: Variant,
    material: Material,
) -> Result<(), ProbeError> {
    TableKind::ALL
        .iter()
        .try_for_each(|&kind| tables.table_of(kind, variant, material)?.check_checksums())
}

/// Whether a recorded stamp has the shape [`VerifiedRecord::stamps`] gives (a line cut short does not).
fn well_formed(stamp: &str) -> bool {
    let fields: Vec<&str> = stamp.split(' ').collect();
    let Some((after, own)) = fields.split_last() else {
        return false;
    };
    is_checksum(after.strip_prefix("after:"))
        && own.len() == TableKind::ALL.len()
        && own.iter().zip(TableKind::ALL.iter()).all(|(field, kind)| {
            let mut it = field.split(':');
            it.next() == Some(kind.extension())
                && it.next().is_some_and(|n| n.parse::<u64>().is_ok())
                && is_checksum(it.next())
                && it.next().is_none()
        })
}

/// Whether `field` is a checksum as stamps write it: 8 hexadecimal digits.
fn is_checksum(field: Option<&str>) -> bool {
    field.is_some_and(|f| f.len() == 8 && u32::from_str_radix(f, 16).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const STAMP: &str = "wdl:1450:0a1b2c3d dtw:2200:ffffffff rules:900:00000000 after:12345678";

    #[test]
    fn only_whole_stamps_are_taken() {
        assert!(well_formed(STAMP));
        // Cut short by a stop, or another shape.
        assert!(!well_formed(&STAMP[..STAMP.len() - 3]));
        assert!(!well_formed(
            "wdl:1450:0a1b2c3d dtw:2200:ffffffff rules:900:00000000"
        ));
        assert!(!well_formed(
            "wdl:1450:0a1b2c3d dtw:2200:ffffffff after:12345678"
        ));
        assert!(!well_formed(
            "dtw:1450:0a1b2c3d wdl:2200:ffffffff rules:900:00000000 after:12345678"
        ));
        assert!(!well_formed(
            "wdl:x:0a1b2c3d dtw:2200:ffffffff rules:900:00000000 after:12345678"
        ));
        assert!(!well_formed(
            "wdl:1450:0a1b2c3d:1 dtw:2200:ffffffff rules:900:00000000 after:12345678"
        ));
    }

    #[test]
    fn a_record_survives_reopening_and_the_last_line_of_a_material_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::create_dir_all(dir.join("brazilian")).unwrap();
        let kk: Material = "KKvK".parse().unwrap();
        let km: Material = "KMvK".parse().unwrap();
        let other = STAMP.replace("0a1b2c3d", "0a1b2c3e");
        {
            let mut v = VerifiedRecord::open(dir, Variant::Brazilian).unwrap();
            assert!(!v.holds(kk, STAMP));
            v.record(kk, STAMP).unwrap();
            v.record(km, STAMP).unwrap();
            v.record(km, &other).unwrap();
            assert!(v.holds(kk, STAMP));
        }
        // A line cut short at the end, as a stop during a write leaves it.
        let path = dir.join("brazilian").join(".rafle-verified");
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"KKvK wdl:14").unwrap();
        drop(file);
        let mut v = VerifiedRecord::open(dir, Variant::Brazilian).unwrap();
        assert!(v.holds(kk, STAMP));
        assert!(!v.holds(km, STAMP));
        assert!(v.holds(km, &other));
        assert!(!v.holds(kk, &other));
        // The next record after the cut line stands on a line of its own.
        v.record(kk, &other).unwrap();
        drop(v);
        let v = VerifiedRecord::open(dir, Variant::Brazilian).unwrap();
        assert!(v.holds(kk, &other));
        assert!(VerifiedRecord::open(dir, Variant::International).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_record_in_place_of_a_link_or_fifo_is_refused_and_nothing_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let variant = dir.path().join("brazilian");
        fs::create_dir_all(&variant).unwrap();
        let record = variant.join(".rafle-verified");
        let target = dir.path().join("someone else's file");
        fs::write(&target, b"theirs").unwrap();
        std::os::unix::fs::symlink(&target, &record).unwrap();
        let err = VerifiedRecord::open(dir.path(), Variant::Brazilian).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot keep the record of checked materials in {} (--resume writes it): \
                 a symbolic link, not a regular file: remove it",
                record.display()
            )
        );
        assert_eq!(fs::read(&target).unwrap(), b"theirs");

        fs::remove_file(&record).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&record)
            .status()
            .unwrap();
        assert!(made.success());
        let err = VerifiedRecord::open(dir.path(), Variant::Brazilian).unwrap_err();
        assert!(
            err.to_string()
                .ends_with(": a FIFO, not a regular file: remove it"),
            "{err}"
        );
    }
}
