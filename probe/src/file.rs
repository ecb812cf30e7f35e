//! Opening the files rafle reads: regular files only, and never waiting.

use std::fs::{File, FileType, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for reading if it is a regular file (symbolic links followed).
///
/// A FIFO in a table's place would make a plain `open` wait for a writer forever, so the file
/// is opened without waiting, then anything that is not a regular file (a FIFO, a device, a
/// directory, a socket) is refused with an error saying what it is.
///
/// # Errors
///
/// The operating system's error if the file cannot be opened, and an
/// [`io::ErrorKind::InvalidInput`] error if it is not a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}, not a regular file", describe(kind)),
        ))
    }
}

/// What a file that is not a regular file is, in words.
fn describe(kind: FileType) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_others_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());

        let err = open_regular(dir.path()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "a directory, not a regular file");

        let missing = open_regular(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("KvK.wdl");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let err = open_regular(&fifo).unwrap_err();
        assert_eq!(err.to_string(), "a FIFO, not a regular file");

        let err = open_regular(Path::new("/dev/null")).unwrap_err();
        assert_eq!(err.to_string(), "a character device, not a regular file");
    }
}
