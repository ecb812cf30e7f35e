//! The generator's hold on a table directory: one writer at a time, temporary files under
//! names no one else uses, and the cleaning of those a killed run left.
//!
//! A whole run takes its variant directory's lock exclusively. A unit of work (one material,
//! from finished dependencies) takes it shared and its material's lock exclusively, so units of
//! different materials may run side by side but never beside a whole run; a second unit of the
//! same material waits for the first, then finds its tables finished. The locks are advisory
//! file locks (`flock`): the system releases them when the process ends, however it ends, so a
//! killed run never leaves the directory locked.

use std::collections::hash_map::RandomState;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rafle_probe::toolkit::layout::{is_temporary_name, temporary_name};
use rafle_probe::{draughts::Material, toolkit::VariantDir};

use crate::GenerateError;

/// The name a file is written under before it is complete and renamed to `path`
/// ([`rafle_probe::toolkit::layout::temporary_name`]): in the same directory (so the rename is atomic),
/// hidden, and different for every call and process, so two writers never share one.
pub fn temporary_path(path: &Path) -> PathBuf {
    static PROCESS: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Random per process rather than the process id alone: processes on the nodes of a
    // cluster sharing one filesystem may have the same id.
    let process = *PROCESS.get_or_init(|| {
        let mut h = RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.finish()
    });
    let mut h = RandomState::new().build_hasher();
    h.write_u64(process);
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    temporary_name(path, process ^ h.finish())
}

/// Creates the file `path`, a fresh [`temporary_path`], for writing. Whatever is already
/// under that name (a link planted there, say) is refused rather than written through: the
/// file is created in place of nothing.
///
/// # Errors
///
/// The operating system's error; [`std::io::ErrorKind::AlreadyExists`] if anything is there.
pub fn create_temporary(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Replaces the file `path` with what `write` writes, synced, to the fresh file at a
/// [`temporary_path`] it is given: renamed over `path` if `write` succeeds (the directory then
/// synced, as far as the platform allows), removed otherwise.
///
/// # Errors
///
/// What `write` returns, and [`GenerateError::Io`] if the rename fails.
pub(crate) fn replace_by(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), GenerateError>,
) -> Result<(), GenerateError> {
    let tmp = temporary_path(path);
    let written = write(&tmp).and_then(|()| fs::rename(&tmp, path).map_err(|e| io(path, e)));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
        return written;
    }
    if let Some(dir) = path.parent().and_then(|dir| File::open(dir).ok()) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Writes `bytes` as the whole file `path`: under a [`temporary_path`], synced, then renamed
/// over `path`. A reader never sees it half written, and whatever held the name before (a
/// symbolic link, whose target stays untouched, or a FIFO, which would block a plain write) is
/// replaced rather than written through.
///
/// # Errors
///
/// [`GenerateError::Io`] if it cannot be written (the temporary file is then removed).
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), GenerateError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let tmp = temporary_path(path);
    let written = create_temporary(&tmp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_data()
        })
        .map_err(|e| io(&tmp, e))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| io(path, e)));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// The lock a generation holds on a variant's table directory while it writes there; released
/// when dropped (or when the process ends).
#[derive(Debug)]
pub(crate) struct WriterLock {
    dir: VariantDir,
    /// The directory's lock file, held exclusively by a whole run.
    directory: File,
    /// A unit's material lock, if this is a unit.
    unit: Option<File>,
}

impl WriterLock {
    /// Takes the lock of a whole run on the variant directory `dir` (its work directory
    /// created if missing).
    ///
    /// # Errors
    ///
    /// [`GenerateError::Busy`] if another generation writes there, [`GenerateError::Io`] if
    /// the lock file cannot be made.
    pub(crate) fn whole(dir: &VariantDir) -> Result<WriterLock, GenerateError> {
        let path = dir.writer_lock();
        let mut directory = lock_file(dir, &path)?;
        let taken = with_grace(|| match directory.try_lock() {
            Ok(()) => Ok(Attempt::Taken),
            // Shared holders are units, which do not leave their process id here (what the
            // file holds is a dead run's).
            Err(TryLockError::WouldBlock) if directory.try_lock_shared().is_ok() => {
                Ok(Attempt::HeldByUnits)
            }
            Err(TryLockError::WouldBlock) => Ok(Attempt::Held(read_pid(&mut directory))),
            Err(TryLockError::Error(e)) => Err(io(&path, e)),
        })?;
        match taken {
            Attempt::Taken => {}
            Attempt::HeldByUnits => return Err(busy(dir.path(), None)),
            Attempt::Held(pid) => return Err(busy(dir.path(), pid)),
        }
        write_pid(&mut directory, &path)?;
        Ok(WriterLock {
            dir: dir.clone(),
            directory,
            unit: None,
        })
    }

    /// Takes the lock of a unit of work on `material` in the variant directory `dir`. When
    /// another unit writes the same material, calls `waiting` with its process id (if it has
    /// written one) and waits for it to finish: that unit's tables are then checked and
    /// reused, so two jobs given the same unit end with one set of tables.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Busy`] if a whole run writes there, [`GenerateError::Io`] if a lock
    /// file cannot be made or locked.
    pub(crate) fn unit(
        dir: &VariantDir,
        material: Material,
        waiting: &dyn Fn(Option<u32>),
    ) -> Result<WriterLock, GenerateError> {
        WriterLock::unit_at(dir, &dir.material_lock(material), waiting)
    }

    /// As [`WriterLock::unit`], the unit's own lock being `unit_lock` (a seed part's).
    ///
    /// # Errors
    ///
    /// As [`WriterLock::unit`].
    pub(crate) fn unit_at(
        dir: &VariantDir,
        unit_lock: &Path,
        waiting: &dyn Fn(Option<u32>),
    ) -> Result<WriterLock, GenerateError> {
        let path = dir.writer_lock();
        let mut directory = lock_file(dir, &path)?;
        let taken = with_grace(|| match directory.try_lock_shared() {
            Ok(()) => Ok(Attempt::Taken),
            Err(TryLockError::WouldBlock) => Ok(Attempt::Held(read_pid(&mut directory))),
            Err(TryLockError::Error(e)) => Err(io(&path, e)),
        })?;
        if let Attempt::Held(pid) = taken {
            return Err(busy(dir.path(), pid));
        }
        let path = unit_lock.to_path_buf();
        let mut unit = lock_file(dir, &path)?;
        // No grace here: the holder's id only decorates the message that this unit waits.
        match unit.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                waiting(read_pid(&mut unit));
                unit.lock().map_err(|e| io(&path, e))?;
            }
            Err(TryLockError::Error(e)) => return Err(io(&path, e)),
        }
        write_pid(&mut unit, &path)?;
        Ok(WriterLock {
            dir: dir.clone(),
            directory,
            unit: Some(unit),
        })
    }

    /// Removes the temporary files ([`temporary_path`]) a killed run left in the directory and
    /// its work directory; the number removed. Only a whole run does: a unit cannot tell
    /// another unit's files from a dead one's. Nothing else is touched, whatever its name.
    ///
    /// # Errors
    ///
    /// [`GenerateError::Io`] if a directory cannot be read or a leftover removed.
    pub(crate) fn remove_leftovers(&self) -> Result<usize, GenerateError> {
        if self.unit.is_some() {
            return Ok(0);
        }
        let mut removed = 0;
        for dir in [self.dir.path().to_path_buf(), self.dir.work_dir()] {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let entry = entry.map_err(|e| io(&dir, e))?;
                let is_file = entry.file_type().is_ok_and(|t| t.is_file());
                let ours = entry.file_name().to_str().is_some_and(is_temporary_name);
                if is_file && ours {
                    let path = entry.path();
                    fs::remove_file(&path).map_err(|e| io(&path, e))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // The process id goes first, so that no one reads it after the lock is free; the lock
        // itself goes with the file.
        if let Some(unit) = &self.unit {
            let _ = unit.set_len(0);
        } else {
            let _ = self.directory.set_len(0);
        }
    }
}

/// The lock of a unit of work on `material` if no one holds it (a unit of it is not
/// running), held until the file returned is dropped; `None` if someone does.
///
/// # Errors
///
/// [`GenerateError::Io`] if the lock file cannot be made or locked.
pub(crate) fn try_lock_material(
    dir: &VariantDir,
    material: Material,
) -> Result<Option<File>, GenerateError> {
    let path = dir.material_lock(material);
    let unit = lock_file(dir, &path)?;
    match unit.try_lock() {
        Ok(()) => Ok(Some(unit)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(io(&path, e)),
    }
}

/// Opens (creating it and the work directory if needed) the lock file `path` of the work
/// directory of `dir`.
fn lock_file(dir: &VariantDir, path: &Path) -> Result<File, GenerateError> {
    let work = dir.work_dir();
    // The data directory or the variant's place in it may be a file: say which, not what
    // creating the work directory inside it would say.
    let dir = dir.path();
    for place in [dir.parent(), Some(dir)].into_iter().flatten() {
        // A link there that leads nowhere is named, not what creating the directories
        // through it would say ("File exists", "Too many levels of symbolic links").
        if let Some(broken) = rafle_probe::toolkit::broken_link(place) {
            return Err(io(place, broken));
        }
        if fs::metadata(place).is_ok_and(|meta| !meta.is_dir()) {
            return Err(io(
                place,
                std::io::Error::other("not a directory: tables cannot be written there"),
            ));
        }
    }
    // Every work file is written under this directory: a link in its place would have them
    // written wherever it points, outside the data directory.
    match fs::symlink_metadata(&work) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(io(
                &work,
                std::io::Error::other("a symbolic link, not a directory: remove it"),
            ))
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(io(
                &work,
                std::io::Error::other("not a directory: rafle's work files cannot be kept there"),
            ))
        }
        _ => {}
    }
    fs::create_dir_all(&work).map_err(|e| io(&work, e))?;
    // Never through a link (the lock's process id would truncate its target) nor on a FIFO.
    rafle_probe::toolkit::open_regular_with(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .map_err(|e| io(path, e))
}

fn write_pid(file: &mut File, path: &Path) -> Result<(), GenerateError> {
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| writeln!(file, "{}", std::process::id()))
        .map_err(|e| io(path, e))
}

/// How long a lock's holder is given to write its process id: one that has just taken the lock
/// has not written it yet, and one letting the lock go has already erased it.
const PID_GRACE: Duration = Duration::from_millis(500);

/// What one try at a lock found.
enum Attempt {
    Taken,
    /// Held by a process that wrote this id, or has not written one (yet).
    Held(Option<u32>),
    /// Held shared by units of work, which write no id.
    HeldByUnits,
}

/// Repeats `attempt` while the lock is held by a holder without a process id, for at most
/// [`PID_GRACE`], so that a contender names the holder, or takes the lock it has just let go,
/// instead of reporting a nameless holder because of a moment's timing.
fn with_grace(
    mut attempt: impl FnMut() -> Result<Attempt, GenerateError>,
) -> Result<Attempt, GenerateError> {
    let deadline = Instant::now() + PID_GRACE;
    loop {
        match attempt()? {
            Attempt::Held(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            settled => return Ok(settled),
        }
    }
}

/// The process id the lock's holder wrote, if it has written one yet.
fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

fn busy(dir: &Path, pid: Option<u32>) -> GenerateError {
    GenerateError::Busy {
        dir: dir.to_path_buf(),
        pid,
    }
}

/// The error of an I/O failure on `path`.
pub(crate) fn io(path: &Path, source: std::io::Error) -> GenerateError {
    GenerateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// An `io::Error` like `e`, which cannot be cloned (the error of a per-thread zstd context's
/// creation, reported by every block that needed it).
pub(crate) fn clone_error(e: &std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), e.to_string())
}

/// [`io`] for `map_err`: the error of an I/O failure on `path`.
pub(crate) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> GenerateError + '_ {
    move |source| io(path, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rafle_probe::toolkit::layout::WORK_DIR;
    use rafle_probe::{draughts::Variant, toolkit::DataDir};

    /// The Brazilian directory of a table directory `data`: the lock's place, and its path.
    fn brazilian(data: &Path) -> (VariantDir, PathBuf) {
        let layout = DataDir::new(data).variant(Variant::Brazilian);
        let dir = layout.path().to_path_buf();
        (layout, dir)
    }

    #[test]
    fn temporary_names_differ_and_are_recognised() {
        let a = temporary_path(Path::new("d/KKvK.wdl"));
        let b = temporary_path(Path::new("d/KKvK.wdl"));
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some(Path::new("d")));
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(".rafle-") && name.ends_with(".KKvK.wdl.tmp"),
            "{name}"
        );
        assert!(is_temporary_name(name));
    }

    #[test]
    fn one_whole_run_at_a_time_and_units_beside_each_other() {
        let tmp = tempfile::tempdir().unwrap();
        let (layout, dir) = brazilian(tmp.path());
        let k = |s: &str| s.parse::<Material>().unwrap();
        let never = |_: Option<u32>| panic!("no unit of this material is being written");
        {
            let _whole = WriterLock::whole(&layout).unwrap();
            let err = WriterLock::whole(&layout).unwrap_err();
            let pid = std::process::id();
            assert!(matches!(err, GenerateError::Busy { pid: Some(p), .. } if p == pid));
            assert_eq!(
                err.to_string(),
                format!(
                    "another rafle generate (pid {pid}) is writing {}",
                    dir.display()
                )
            );
            assert!(WriterLock::unit(&layout, k("KvK"), &never).is_err());
        }
        let kvk = WriterLock::unit(&layout, k("KvK"), &never).unwrap();
        let _kkvk = WriterLock::unit(&layout, k("KKvK"), &never).unwrap();
        let err = WriterLock::whole(&layout).unwrap_err();
        assert!(
            matches!(err, GenerateError::Busy { pid: None, .. }),
            "{err}"
        );
        // A second unit of KvK waits, told who holds it, until the first is done.
        let (told, heard) = std::sync::mpsc::channel();
        let second = std::thread::spawn({
            let layout = layout.clone();
            move || {
                let told = std::sync::Mutex::new(told);
                let waiting = |pid: Option<u32>| told.lock().unwrap().send(pid).unwrap();
                WriterLock::unit(&layout, k("KvK"), &waiting).map(drop)
            }
        });
        let pid = heard
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap();
        assert_eq!(pid, Some(std::process::id()));
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!second.is_finished(), "the second unit did not wait");
        drop(kvk);
        second.join().unwrap().unwrap();
    }

    #[test]
    fn a_holder_that_has_not_yet_written_its_id_is_named_once_it_has() {
        let tmp = tempfile::tempdir().unwrap();
        let (layout, _) = brazilian(tmp.path());
        // A holder caught between taking the lock and writing its id, as a second run started
        // at the same moment finds it.
        let holder = lock_file(&layout, &layout.writer_lock()).unwrap();
        holder.lock().unwrap();
        let writes = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            let mut holder = holder;
            write_pid(&mut holder, Path::new("writer.lock")).unwrap();
            holder
        });
        let err = WriterLock::whole(&layout).unwrap_err();
        let pid = std::process::id();
        assert!(
            matches!(err, GenerateError::Busy { pid: Some(p), .. } if p == pid),
            "{err}"
        );
        // One that never writes it is reported without, after the grace.
        let holder = writes.join().unwrap();
        holder.set_len(0).unwrap();
        let started = Instant::now();
        let err = WriterLock::whole(&layout).unwrap_err();
        assert!(
            matches!(err, GenerateError::Busy { pid: None, .. }),
            "{err}"
        );
        assert!(started.elapsed() >= PID_GRACE);
        // Once it lets go, the lock is taken.
        drop(holder);
        WriterLock::whole(&layout).unwrap();
    }

    #[test]
    fn a_file_in_the_way_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        fs::write(&data, b"").unwrap();
        let err = WriterLock::whole(&brazilian(&data).0).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not a directory: tables cannot be written there",
                data.display()
            )
        );
    }

    #[test]
    fn only_our_temporary_files_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let (layout, dir) = brazilian(tmp.path());
        let lock = WriterLock::whole(&layout).unwrap();
        let ours = [
            temporary_path(&dir.join("KvK.wdl")),
            temporary_path(&dir.join(WORK_DIR).join("KvK.packed")),
        ];
        for path in &ours {
            fs::write(path, b"half").unwrap();
        }
        let theirs = [dir.join("notes.tmp"), dir.join("KvK.wdl.tmp")];
        for path in &theirs {
            fs::write(path, b"keep").unwrap();
        }
        // A directory under one of our names is not ours to remove.
        let odd = temporary_path(&dir.join("x"));
        fs::create_dir(&odd).unwrap();
        assert_eq!(lock.remove_leftovers().unwrap(), 2);
        assert!(ours.iter().all(|p| !p.exists()));
        assert!(theirs.iter().all(|p| p.exists()));
        assert!(odd.is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn locks_never_write_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let (layout, dir) = brazilian(tmp.path());
        let work = dir.join(WORK_DIR);
        fs::create_dir_all(&work).unwrap();
        let target = tmp.path().join("someone else's file");
        fs::write(&target, b"theirs").unwrap();
        let never = |_: Option<u32>| panic!("no unit of this material is being written");
        let kvk: Material = "KvK".parse().unwrap();

        std::os::unix::fs::symlink(&target, work.join("writer.lock")).unwrap();
        let expected = format!(
            "{}: a symbolic link, not a regular file: remove it",
            work.join("writer.lock").display()
        );
        assert_eq!(
            WriterLock::whole(&layout).unwrap_err().to_string(),
            expected
        );
        let err = WriterLock::unit(&layout, kvk, &never).unwrap_err();
        assert_eq!(err.to_string(), expected);
        fs::remove_file(work.join("writer.lock")).unwrap();

        std::os::unix::fs::symlink(&target, work.join("KvK.lock")).unwrap();
        let err = WriterLock::unit(&layout, kvk, &never).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: a symbolic link, not a regular file: remove it",
                work.join("KvK.lock").display()
            )
        );
        assert_eq!(fs::read(&target).unwrap(), b"theirs");

        // The work directory itself may not be a link, nor a file.
        fs::remove_dir_all(&work).unwrap();
        std::os::unix::fs::symlink(tmp.path(), &work).unwrap();
        assert_eq!(
            WriterLock::whole(&layout).unwrap_err().to_string(),
            format!(
                "{}: a symbolic link, not a directory: remove it",
                work.display()
            )
        );
        fs::remove_file(&work).unwrap();
        fs::write(&work, b"").unwrap();
        assert_eq!(
            WriterLock::whole(&layout).unwrap_err().to_string(),
            format!(
                "{}: not a directory: rafle's work files cannot be kept there",
                work.display()
            )
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_temporary_file_is_made_in_place_of_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("someone else's file");
        fs::write(&target, b"theirs").unwrap();
        let path = temporary_path(&tmp.path().join("KvK.wdl"));
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let err = create_temporary(&path).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&target).unwrap(), b"theirs");
        let fresh = temporary_path(&tmp.path().join("KvK.wdl"));
        create_temporary(&fresh)
            .unwrap()
            .write_all(b"table")
            .unwrap();
        assert_eq!(fs::read(&fresh).unwrap(), b"table");
    }
}
