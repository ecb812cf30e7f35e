//! The stamp `rafle slurm submit` leaves in the data directory
//! ([`rafle_probe::toolkit::DataDir::cluster_stamp`]): each job checks it holds the token its command
//! carries, which a directory not shared with the submitting node does not, before `rafle
//! generate` writes anything.

use std::io;
use std::path::Path;

use anyhow::anyhow;
use rafle_generator::write_replacing;
use rafle_probe::toolkit::{printable_path, DataDir};

use crate::output::{other, Failure};

/// The token of the data directory's stamp, made (and written, unless `dry_run`) on the first
/// submission; later submissions keep it, so the jobs still queued stay valid.
pub fn stamp_token(data: &Path, dry_run: bool) -> Result<String, Failure> {
    let path = DataDir::new(data).cluster_stamp();
    match read_stamp(&path) {
        Ok(text) if is_token(text.trim()) => return Ok(text.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(other(anyhow!("cannot read {}: {e}", printable_path(&path)))),
    }
    let token = format!(
        "{:016x}{:016x}",
        rand_u64(),
        rand_u64() ^ u64::from(std::process::id())
    );
    if !dry_run {
        // Written whole then renamed: a job never reads half a stamp.
        write_replacing(&path, format!("{token}\n").as_bytes())
            .map_err(|e| other(anyhow!("cannot write the stamp {e}")))?;
    }
    Ok(token)
}

/// The stamp's text; never read through a link nor waited for on a FIFO (a job would hang
/// until Slurm kills it).
fn read_stamp(path: &Path) -> io::Result<String> {
    io::read_to_string(rafle_probe::toolkit::open_regular(path)?)
}

fn is_token(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// 64 random bits from the standard library's randomly seeded hasher.
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x9e37_79b9_7f4a_7c15);
    hasher.finish()
}

/// Checks, in a job, that the data directory holds the stamp of the submission the job
/// belongs to.
///
/// # Errors
///
/// A [`Failure`] naming the directory and this node when the stamp is missing or another,
/// naming the stamp when something that is not a regular file is in its place.
pub fn check_stamp(data: &Path, token: &str) -> Result<(), Failure> {
    let path = DataDir::new(data).cluster_stamp();
    let found = match read_stamp(&path) {
        Ok(text) => Some(text),
        // Something other than a file in the stamp's place is named as such; a directory the
        // node cannot reach at all is the usual case of a directory not shared.
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
            return Err(other(anyhow!("cannot read {}: {e}", printable_path(&path))))
        }
        Err(_) => None,
    };
    if found.as_deref().map(str::trim) == Some(token) {
        return Ok(());
    }
    let node = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "this node".to_string());
    let what = match found {
        None => "holds no stamp of 'rafle slurm submit'".to_string(),
        Some(_) => "holds the stamp of another submission".to_string(),
    };
    Err(other(anyhow!(
        "{} on {node} {what} ({} should hold {token}): the data directory is not the one \
         the jobs were submitted with. It must be on a filesystem shared by every node, at the \
         same path",
        printable_path(data),
        printable_path(&path)
    )))
}
