//! The process's own memory: how much is resident, whether it is past a budget's mark, and
//! giving the allocator's free memory back. Read from `/proc` where there is one; elsewhere
//! the answers are unknown and nothing is given back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Resident memory of this process, from `/proc/self/statm` where there is one.
pub fn resident_memory() -> Option<u64> {
    resident_and_mapped_memory().map(|(resident, _)| resident)
}

/// The least bytes of mapped files worth giving back: below, resident memory is past its mark
/// for another reason, and giving the pages back would only make them be read again.
const LEAST_RELEASE: u64 = 64 << 20;

/// Whether this process's resident memory is past `mark` (`None` if it is not, or cannot be
/// read), and if so whether enough of it maps files (work files, tables) to be worth giving
/// back.
pub(crate) fn past_mark(mark: u64) -> Option<bool> {
    would_pass_mark(mark, 0)
}

/// Whether this process's resident memory would be past `mark` with `more` bytes (`None` if
/// not, or if it cannot be read), and if so whether enough of it maps files to be worth giving
/// back.
pub(crate) fn would_pass_mark(mark: u64, more: u64) -> Option<bool> {
    let (resident, mapped) = resident_and_mapped_memory()?;
    (resident.saturating_add(more) > mark).then_some(mapped >= LEAST_RELEASE)
}

/// Resident memory of this process and the part of it that maps files (the pages of the work
/// files it has touched), from `/proc/self/statm` where there is one.
pub(crate) fn resident_and_mapped_memory() -> Option<(u64, u64)> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut pages = statm.split_whitespace().skip(1).map(str::parse::<u64>);
    let resident = pages.next()?.ok()?;
    let mapped = pages.next()?.ok()?;
    Some((resident * 4096, mapped * 4096))
}

/// Peak resident memory of this process so far (`VmHWM` of `/proc/self/status`).
pub fn peak_resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Memory available for generation: `MemAvailable` of `/proc/meminfo` where there is one.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    info.lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// The default memory budget of `rafle generate` and `rafle verify` (and of the Python
/// package's `generate`): the memory available, less a tenth of it (at least 512 MiB) for
/// everything else; `None` where the memory available is unknown.
pub fn default_budget() -> Option<u64> {
    available_memory().map(|free| free.saturating_sub((free / 10).max(512 << 20)))
}

/// Asks the allocator to give its free memory back to the system, at most once per
/// [`Trimmer::EVERY`] unless told to do it at once.
///
/// glibc's `malloc` serves blocks below its mapping threshold, which it raises up to 32 MiB
/// once a mapped block is freed, from its arenas, and keeps what is freed there resident for
/// later allocations: a cache that drops blocks, or pages dropped from a check, leave that
/// memory in the process beside what comes next.
#[derive(Debug)]
pub(crate) struct Trimmer {
    /// When the trimmer was made, and how long after it the allocator last gave back its free
    /// memory (in milliseconds).
    made: Instant,
    trimmed_at: AtomicU64,
}

impl Trimmer {
    /// The least time between two trims: a trim walks all the allocator's free blocks.
    pub const EVERY: Duration = Duration::from_secs(1);

    pub fn new() -> Trimmer {
        Trimmer {
            made: Instant::now(),
            trimmed_at: AtomicU64::new(0),
        }
    }

    /// Trims, unless the last trim was less than [`Trimmer::EVERY`] ago.
    pub fn trim(&self) {
        let now = self.made.elapsed().as_millis() as u64;
        let last = self.trimmed_at.load(Ordering::Relaxed);
        if now >= last + Self::EVERY.as_millis() as u64 {
            self.trim_now();
        }
    }

    /// Trims at once.
    pub fn trim_now(&self) {
        self.trimmed_at
            .store(self.made.elapsed().as_millis() as u64, Ordering::Relaxed);
        trim_allocator();
    }
}

/// Asks glibc's `malloc` to give the free pages of its arenas back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_allocator() {
    // SAFETY: `malloc_trim` takes no pointer and only returns free memory to the system, under
    // the allocator's own locks; every allocation stays valid.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators are left to give memory back their own way.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_allocator() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks below glibc's mapping threshold, each followed by a small allocation that stays:
    /// once the blocks are freed they cannot merge into the end of the arena, so their pages
    /// stay resident until a trim gives them back.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_trim_gives_back_the_blocks_freed_between_live_ones() {
        const BLOCKS: usize = 4096;
        let mut blocks = Vec::with_capacity(BLOCKS);
        let mut pins = Vec::with_capacity(BLOCKS);
        for k in 0..BLOCKS {
            blocks.push(vec![k as u8 | 1; 64 << 10]);
            pins.push(Box::new(k));
        }
        let held = resident_memory().unwrap();
        drop(blocks);
        let freed = resident_memory().unwrap();
        Trimmer::new().trim_now();
        let trimmed = resident_memory().unwrap();
        // 256 MiB of blocks; other tests of this process may allocate meanwhile.
        assert!(
            held.saturating_sub(trimmed) >= 128 << 20,
            "{held} {freed} {trimmed}"
        );
        assert!(pins.iter().enumerate().all(|(k, p)| **p == k));
    }
}
