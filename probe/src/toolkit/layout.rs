//! Where everything lives in a table directory: the one home of its layout.
//!
//! Every crate (the prober, the generator, the server, the C library and the command line)
//! asks these types for a path instead of building it, so a name is spelt once. The contract
//! they implement, with what each file holds, is [docs/format.md] (tables and work files) and
//! [docs/guarantees.md] (rafle's own bookkeeping files):
//!
//! ```text
//! <data>/                             DataDir
//!   .rafle-cluster                    the stamp of `rafle slurm submit`
//!   slurm-logs/                       the jobs' logs
//!   <variant>/                        VariantDir
//!     <material>.wdl .dtw .rules      the tables
//!     .rafle-verified                 the record of `rafle verify --resume`
//!     .rafle-work/                    the generator's work directory
//!       writer.lock <material>.lock   the writers' locks
//!       <stem>.partial .journal       a material being solved
//!       <stem>.packed .summary        a finished one's values and counts
//! ```
//!
//! A work file's stem is the material (`KKMvK`), or `KKMvK.wdl` for a run writing the
//! win/draw/loss tables alone, which keeps work files of its own. A file is written under a
//! temporary name beside its own, `.rafle-<16 hex digits>.<name>.tmp` ([`temporary_name`]),
//! then renamed.
//!
//! [docs/format.md]: https://github.com/rafle-draughts/rafle/blob/main/docs/format.md
//! [docs/guarantees.md]: https://github.com/rafle-draughts/rafle/blob/main/docs/guarantees.md

use std::path::{Path, PathBuf};

use rafle_draughts::{Material, Variant};

use crate::format::TableKind;

/// The generator's work directory, inside a variant directory.
pub const WORK_DIR: &str = ".rafle-work";

/// The record `rafle verify --resume` keeps, inside a variant directory.
pub const VERIFY_RECORD: &str = ".rafle-verified";

/// The stamp `rafle slurm submit` leaves in the data directory.
pub const CLUSTER_STAMP: &str = ".rafle-cluster";

/// The directory of the Slurm jobs' logs, inside the data directory.
pub const SLURM_LOGS: &str = "slurm-logs";

/// The lock every writer of a variant directory takes, in its work directory.
const WRITER_LOCK: &str = "writer.lock";

/// Every temporary file rafle writes is named `.rafle-<16 hex digits>.<final name>.tmp`.
const TEMPORARY_PREFIX: &str = ".rafle-";
const TEMPORARY_SUFFIX: &str = ".tmp";
const TOKEN_DIGITS: usize = 16;

/// A table directory: one directory per variant, and the cluster's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// The table directory at `root`.
    pub fn new(root: impl Into<PathBuf>) -> DataDir {
        DataDir { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of `variant`'s tables: `<data>/<variant>`.
    pub fn variant(&self, variant: Variant) -> VariantDir {
        VariantDir {
            path: self.root.join(variant.name()),
        }
    }

    /// A table's file: `<data>/<variant>/<material>.<kind>`.
    pub fn table(&self, variant: Variant, material: Material, kind: TableKind) -> PathBuf {
        self.variant(variant).table(material, kind)
    }

    /// The stamp of `rafle slurm submit`: `<data>/.rafle-cluster`.
    pub fn cluster_stamp(&self) -> PathBuf {
        self.root.join(CLUSTER_STAMP)
    }

    /// The directory of the Slurm jobs' logs: `<data>/slurm-logs`.
    pub fn slurm_logs(&self) -> PathBuf {
        self.root.join(SLURM_LOGS)
    }
}

/// Where a table lives in a table directory: `<dir>/<variant>/<material>.<kind>` (the same as
/// [`DataDir::table`]).
pub fn table_path(dir: &Path, variant: Variant, material: Material, kind: TableKind) -> PathBuf {
    DataDir::new(dir).table(variant, material, kind)
}

/// The directory of one variant's tables, their bookkeeping files and the work directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantDir {
    path: PathBuf,
}

impl VariantDir {
    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A table's file: `<material>.<kind>`.
    pub fn table(&self, material: Material, kind: TableKind) -> PathBuf {
        self.path.join(table_name(material, kind))
    }

    /// The record of `rafle verify --resume`: `.rafle-verified`.
    pub fn verify_record(&self) -> PathBuf {
        self.path.join(VERIFY_RECORD)
    }

    /// The generator's work directory: `.rafle-work`.
    pub fn work_dir(&self) -> PathBuf {
        self.path.join(WORK_DIR)
    }

    /// The lock of the variant directory's writers: `.rafle-work/writer.lock`.
    pub fn writer_lock(&self) -> PathBuf {
        self.work_dir().join(WRITER_LOCK)
    }

    /// The lock of a unit of work on `material`: `.rafle-work/<material>.lock`.
    pub fn material_lock(&self, material: Material) -> PathBuf {
        self.work_dir().join(format!("{material}.lock"))
    }

    /// The lock of a unit of work seeding part `part` of `material`:
    /// `.rafle-work/<material>.seeds-<part>.lock`.
    pub fn seed_part_lock(&self, material: Material, part: u32) -> PathBuf {
        self.work_dir()
            .join(format!("{material}.seeds-{part}.lock"))
    }

    /// The work files of `material` in a run writing `tables`.
    pub fn work_files(&self, material: Material, tables: Tables) -> WorkFiles {
        let work = self.work_dir();
        let stem = match tables {
            Tables::All => material.to_string(),
            Tables::Wdl => format!("{material}.wdl"),
        };
        let file = |extension: &str| work.join(format!("{stem}.{extension}"));
        WorkFiles {
            partial: file("partial"),
            journal: file("journal"),
            packed: file("packed"),
            summary: file("summary"),
            legacy: file("values"),
        }
    }
}

/// A table's file name: `<material>.<kind>`.
pub fn table_name(material: Material, kind: TableKind) -> String {
    format!("{material}.{}", kind.extension())
}

/// The material and kind of a file named like a table (`KKMvK.wdl`), `None` for any other
/// name. The material is read as written: whether a set can hold it is the caller's question.
pub fn parse_table_name(name: &str) -> Option<(Material, TableKind)> {
    TableKind::ALL.into_iter().find_map(|kind| {
        let stem = name.strip_suffix(kind.extension())?.strip_suffix('.')?;
        stem.parse::<Material>()
            .ok()
            .map(|material| (material, kind))
    })
}

/// The name a file is written under before it is complete and renamed to `path`:
/// `.rafle-<token in 16 hex digits>.<its name>.tmp`, in the same directory (so the rename is
/// atomic) and hidden. The writer picks a token no other writer uses.
pub fn temporary_name(path: &Path, token: u64) -> PathBuf {
    let mut name: std::ffi::OsString = format!("{TEMPORARY_PREFIX}{token:016x}.").into();
    name.push(path.file_name().unwrap_or_default());
    name.push(TEMPORARY_SUFFIX);
    path.with_file_name(name)
}

/// Whether `name` is one [`temporary_name`] makes: a file a writer stopped before its rename
/// may have left, which nothing else is named like.
pub fn is_temporary_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(TEMPORARY_PREFIX) else {
        return false;
    };
    let Some((token, rest)) = rest.split_at_checked(TOKEN_DIGITS) else {
        return false;
    };
    token
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && rest.len() > 1 + TEMPORARY_SUFFIX.len()
        && rest.starts_with('.')
        && rest.ends_with(TEMPORARY_SUFFIX)
}

/// Which tables a generation run writes; a run writing the win/draw/loss tables alone keeps
/// work files of its own, since its rule values are never solved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tables {
    /// Win/draw/loss, distance to win and draw-rule tables.
    #[default]
    All,
    /// The win/draw/loss tables alone: the draw rules are not solved, and the distances
    /// (still found, to order the wins) are not written.
    Wdl,
}

impl Tables {
    /// The kinds of table files a run writes for each material.
    pub fn kinds(self) -> &'static [TableKind] {
        match self {
            Tables::All => &TableKind::ALL,
            Tables::Wdl => &[TableKind::Wdl],
        }
    }

    /// The name used on the command line: `all` or `wdl`.
    pub fn name(self) -> &'static str {
        match self {
            Tables::All => "all",
            Tables::Wdl => "wdl",
        }
    }

    /// The choice [`Tables::name`] names, `None` for any other text.
    pub fn from_name(name: &str) -> Option<Tables> {
        [Tables::All, Tables::Wdl]
            .into_iter()
            .find(|tables| tables.name() == name)
    }
}

/// The paths of a material's work files ([`VariantDir::work_files`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkFiles {
    /// The raw values of a material being solved: `<stem>.partial`.
    pub partial: PathBuf,
    /// The bands of it finished, with their checksums: `<stem>.journal`.
    pub journal: PathBuf,
    /// A finished material's values, compressed, for the materials that read them:
    /// `<stem>.packed`.
    pub packed: PathBuf,
    /// A finished material's counts, so a rerun reports them without reading its tables:
    /// `<stem>.summary`.
    pub summary: PathBuf,
    /// The raw values of a finished material as versions before packed files kept them:
    /// `<stem>.values`. Nothing reads it; it is only removed.
    pub legacy: PathBuf,
}

impl WorkFiles {
    /// What seed part `part` (from 1) of a large kings-only material leaves for the unit
    /// that solves it: `<stem>.seeds-<part>`.
    pub fn seed_part(&self, part: u32) -> PathBuf {
        self.partial.with_extension(format!("seeds-{part}"))
    }

    /// The values of band `band` (from 0) of a material with men being solved, compressed:
    /// `<stem>.band-<band>`, three digits at least. Once the material is finished its band
    /// files are what the materials solved after it read.
    pub fn band(&self, band: usize) -> PathBuf {
        self.partial.with_extension(format!("band-{band:03}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_of_tables_is_read_back_from_its_name_alone() {
        for tables in [Tables::All, Tables::Wdl] {
            assert_eq!(Tables::from_name(tables.name()), Some(tables));
        }
        for other in ["", "dtw", "WDL", "all "] {
            assert_eq!(Tables::from_name(other), None, "{other:?}");
        }
    }

    /// The names are the on-disk contract of docs/format.md and docs/guarantees.md.
    #[test]
    fn every_name_is_the_documented_one() {
        let data = DataDir::new("d");
        let kmvk: Material = "KMvK".parse().unwrap();
        let dir = data.variant(Variant::Brazilian);
        assert_eq!(dir.path(), Path::new("d/brazilian"));
        assert_eq!(
            data.table(Variant::International, kmvk, TableKind::Dtw),
            Path::new("d/international/KMvK.dtw")
        );
        assert_eq!(
            table_path(
                Path::new("d"),
                Variant::Brazilian,
                kmvk,
                TableKind::DrawRules
            ),
            Path::new("d/brazilian/KMvK.rules")
        );
        assert_eq!(data.cluster_stamp(), Path::new("d/.rafle-cluster"));
        assert_eq!(data.slurm_logs(), Path::new("d/slurm-logs"));
        assert_eq!(
            dir.verify_record(),
            Path::new("d/brazilian/.rafle-verified")
        );
        assert_eq!(dir.work_dir(), Path::new("d/brazilian/.rafle-work"));
        assert_eq!(
            dir.writer_lock(),
            Path::new("d/brazilian/.rafle-work/writer.lock")
        );
        assert_eq!(
            dir.material_lock(kmvk),
            Path::new("d/brazilian/.rafle-work/KMvK.lock")
        );
        let work = |name: &str| Path::new("d/brazilian/.rafle-work").join(name);
        let all = dir.work_files(kmvk, Tables::All);
        assert_eq!(
            [
                &all.partial,
                &all.journal,
                &all.packed,
                &all.summary,
                &all.legacy
            ],
            [
                &work("KMvK.partial"),
                &work("KMvK.journal"),
                &work("KMvK.packed"),
                &work("KMvK.summary"),
                &work("KMvK.values")
            ]
        );
        let wdl = dir.work_files(kmvk, Tables::Wdl);
        assert_eq!(wdl.partial, work("KMvK.wdl.partial"));
        assert_eq!(wdl.summary, work("KMvK.wdl.summary"));
        assert_eq!(all.seed_part(3), work("KMvK.seeds-3"));
        assert_eq!(wdl.seed_part(1), work("KMvK.wdl.seeds-1"));
        assert_eq!(
            dir.seed_part_lock(kmvk, 2),
            Path::new("d/brazilian/.rafle-work/KMvK.seeds-2.lock")
        );
    }

    #[test]
    fn temporary_names_are_recognised() {
        let path = temporary_name(Path::new("d/KKvK.wdl"), 0x0123_4567_89ab_cdef);
        assert_eq!(path, Path::new("d/.rafle-0123456789abcdef.KKvK.wdl.tmp"));
        assert!(is_temporary_name(
            path.file_name().unwrap().to_str().unwrap()
        ));
        for other in [
            "notes.tmp",
            "KKvK.wdl.tmp",
            ".rafle-notes.tmp",
            ".rafle-0123456789abcdef.tmp",
            ".rafle-0123456789ABCDEF.KvK.wdl.tmp",
            ".rafle-0123456789abcdef.KvK.wdl",
        ] {
            assert!(!is_temporary_name(other), "{other}");
        }
    }

    #[test]
    fn table_names_read_back() {
        let kmvk: Material = "KMvK".parse().unwrap();
        for kind in TableKind::ALL {
            assert_eq!(
                parse_table_name(&table_name(kmvk, kind)),
                Some((kmvk, kind))
            );
        }
        for other in [
            "notes.txt",
            "KvK.wdl.old",
            "KvK.",
            ".wdl",
            "KxK.wdl",
            "KvKwdl",
        ] {
            assert_eq!(parse_table_name(other), None, "{other}");
        }
    }
}
