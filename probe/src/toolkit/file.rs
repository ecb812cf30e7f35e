//! Opening the files rafle reads and writes: regular files only, never waiting, and never
//! through a symbolic link among rafle's own files.
//!
//! Two kinds of file are opened. Tables are placed by the user, who may link a table (or the
//! whole directory) to another disk, so [`open_table_file`] follows links: reading through
//! one does no harm. rafle's own work, record and lock files are written as well as read, and
//! whoever can write the data directory could plant a link there to make rafle truncate or
//! append to a file elsewhere, so [`open_regular`] and [`open_regular_with`] refuse a link as
//! the last component of the path (links among the directories above it are the user's
//! layout and are followed).

use std::fs::{File, FileType, OpenOptions};
use std::io;
use std::path::Path;

/// Opens one of rafle's own files (a work file, a record, a stamp) for reading, if it is a
/// regular file and not a symbolic link.
///
/// A FIFO in its place would make a plain `open` wait for a writer forever, so the file is
/// opened without waiting, then anything that is not a regular file (a FIFO, a device, a
/// directory, a socket) is refused with an error saying what it is.
///
/// # Errors
///
/// The operating system's error if the file cannot be opened, and an
/// [`io::ErrorKind::InvalidInput`] error if it is a symbolic link or not a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    open_regular_with(path, OpenOptions::new().read(true))
}

/// Opens one of rafle's own files with `options`, which may write, append or create it, as
/// [`open_regular`] does: never through a symbolic link in its place (nothing outside the
/// data directory is truncated or appended to), never waiting on a FIFO, and only if it is a
/// regular file. A file created here is created in place of nothing, never at a link's
/// target.
///
/// The one place rafle's writers open a file they did not just create under a fresh name
/// (lock files, append-only records): files written whole are written under a
/// temporary name and renamed, which replaces a link rather than writing through it.
///
/// # Errors
///
/// As [`open_regular`].
pub fn open_regular_with(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    open_checked(path, options, false)
}

/// Opens a table file for reading if it is a regular file, following symbolic links: tables
/// are placed by the user, who may link them to another disk. Never waits on a FIFO, and
/// refuses anything that is not a regular file, as [`open_regular`] does.
///
/// # Errors
///
/// As [`open_regular`], less the refusal of a link.
pub fn open_table_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    open_checked(path, &options, true)
}

/// Opens `path` with `options`, then refuses it unless it is a regular file. When the open
/// itself fails because of what is there (a link refused, a directory opened for writing, a
/// FIFO without a reader opened for writing), the error says what is there instead of the
/// system's bare words.
fn open_checked(path: &Path, options: &OpenOptions, follow: bool) -> io::Result<File> {
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(e),
        Err(e) => {
            let found = if follow {
                std::fs::metadata(path)
            } else {
                std::fs::symlink_metadata(path)
            };
            return match found {
                Ok(meta) if !meta.is_file() => Err(not_regular(meta.file_type(), follow)),
                _ => Err(e),
            };
        }
    };
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        Ok(file)
    } else {
        Err(not_regular(kind, follow))
    }
}

/// The error for a file of `kind` where a regular file belongs. One of rafle's own files
/// (`follow` false) is also said to be removable: rafle neither follows nor replaces it.
fn not_regular(kind: FileType, follow: bool) -> io::Error {
    let advice = if follow { "" } else { ": remove it" };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}, not a regular file{advice}", describe(kind)),
    )
}

/// What a file that is not a regular file is, in words.
fn describe(kind: FileType) -> &'static str {
    if kind.is_symlink() {
        return "a symbolic link";
    }
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Why the symbolic link at `path` leads to nothing that can be opened, if there is one: a
/// link whose target does not exist or a loop of links, where a directory (a variant's, the
/// data directory) belongs. Such a link is named as the error rather than read as no
/// directory, which would say there are no tables, or have a writer fail on creating a
/// directory in its place.
///
/// `None` if nothing is at `path`, if it is not a link, or if the link can be followed.
pub fn broken_link(path: &Path) -> Option<io::Error> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    let err = std::fs::metadata(path).err()?;
    let what = if err.kind() == io::ErrorKind::NotFound {
        match std::fs::read_link(path) {
            Ok(target) => format!(
                "a symbolic link to {}, which does not exist",
                crate::printable_path(&target)
            ),
            Err(_) => "a symbolic link to nothing that exists".to_string(),
        }
    } else if is_loop(&err) {
        "a symbolic link in a loop of links".to_string()
    } else {
        format!("a symbolic link that cannot be followed ({err})")
    };
    Some(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{what}: remove it, or link it to a directory"),
    ))
}

/// Whether `err` says a path runs through a loop of symbolic links.
fn is_loop(err: &io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_others_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());
        assert!(open_table_file(&file).is_ok());

        let err = open_table_file(dir.path()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "a directory, not a regular file");
        let err = open_regular(dir.path()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a directory, not a regular file: remove it"
        );

        let missing = open_regular(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let missing = open_table_file(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("KvK.wdl");
        mkfifo(&fifo);
        let err = open_table_file(&fifo).unwrap_err();
        assert_eq!(err.to_string(), "a FIFO, not a regular file");
        let err = open_regular(&fifo).unwrap_err();
        assert_eq!(err.to_string(), "a FIFO, not a regular file: remove it");

        let err = open_table_file(Path::new("/dev/null")).unwrap_err();
        assert_eq!(err.to_string(), "a character device, not a regular file");
    }

    #[cfg(unix)]
    #[test]
    fn tables_are_read_through_links_and_own_files_never() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"kept").unwrap();
        let link = dir.path().join("KvK.wdl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut text = String::new();
        io::Read::read_to_string(&mut open_table_file(&link).unwrap(), &mut text).unwrap();
        assert_eq!(text, "kept");

        let err = open_regular(&link).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            "a symbolic link, not a regular file: remove it"
        );
        // Opened to write, append or create, the link is refused and its target untouched;
        // so is a link to nothing, which a plain create would make at the link's target.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("made"), &dangling).unwrap();
        for path in [&link, &dangling] {
            let err =
                open_regular_with(path, OpenOptions::new().read(true).write(true).create(true))
                    .unwrap_err();
            assert_eq!(
                err.to_string(),
                "a symbolic link, not a regular file: remove it"
            );
            let err =
                open_regular_with(path, OpenOptions::new().append(true).create(true)).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"kept");
        assert!(!dir.path().join("made").exists());
    }

    #[cfg(unix)]
    #[test]
    fn opened_to_write_others_are_named_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        for options in [
            OpenOptions::new().write(true).clone(),
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .clone(),
            OpenOptions::new().append(true).create(true).clone(),
        ] {
            let err = open_regular_with(&fifo, &mut options.clone()).unwrap_err();
            assert_eq!(err.to_string(), "a FIFO, not a regular file: remove it");
            let err = open_regular_with(dir.path(), &mut options.clone()).unwrap_err();
            assert_eq!(
                err.to_string(),
                "a directory, not a regular file: remove it"
            );
        }
        // A new file is made, and an existing one opened, as usual.
        let new = dir.path().join("new");
        let mut file =
            open_regular_with(&new, OpenOptions::new().append(true).create(true)).unwrap();
        io::Write::write_all(&mut file, b"one\n").unwrap();
        drop(file);
        let mut file = open_regular_with(&new, OpenOptions::new().append(true)).unwrap();
        io::Write::write_all(&mut file, b"two\n").unwrap();
        assert_eq!(std::fs::read(&new).unwrap(), b"one\ntwo\n");
    }
}

#[cfg(all(test, unix))]
mod link_tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn dangling_links_and_loops_are_named_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let dangling = dir.path().join("brazilian");
        symlink(dir.path().join("gone"), &dangling).unwrap();
        let err = broken_link(&dangling).unwrap();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            format!(
                "a symbolic link to {}, which does not exist: remove it, or link it to a directory",
                dir.path().join("gone").display()
            )
        );
        let looped = dir.path().join("international");
        symlink(&looped, &looped).unwrap();
        assert_eq!(
            broken_link(&looped).unwrap().to_string(),
            "a symbolic link in a loop of links: remove it, or link it to a directory"
        );
        // Nothing there, a directory, a link to one: nothing to say.
        assert!(broken_link(&dir.path().join("none")).is_none());
        assert!(broken_link(dir.path()).is_none());
        let good = dir.path().join("good");
        symlink(dir.path(), &good).unwrap();
        assert!(broken_link(&good).is_none());
    }
}
