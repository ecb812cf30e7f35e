//! A bounded cache of the decompressed blocks of packed work files (see [`crate::packed`]),
//! shared by rayon's threads while a material is solved.
//!
//! The cache is split into shards, each behind its own lock and on cache lines of its own, so
//! threads reading different blocks rarely meet; a read copies the few bytes it wants while it
//! holds the lock, so nothing is reference-counted or allocated on the hot path, and a block
//! is decompressed outside any lock.
//!
//! Each shard keeps an equal part of the byte budget, counting every block's bytes and a fixed
//! allowance for its bookkeeping, and makes room *before* it keeps a new block, so the sum over
//! the shards never passes the budget. Eviction is CLOCK (an approximation of least recently
//! used): a block read since the hand last passed it gets a second chance, so the blocks of the
//! slices a band keeps returning to stay while one-off blocks go first.

use std::collections::hash_map::HashMap;
use std::collections::VecDeque;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Shards: enough that the threads rarely wait on one another.
const SHARDS: usize = 64;

/// Bytes counted for each kept block on top of its data: its map entry (key, pointer, length,
/// flag, with the map's spare room), its place on the clock, and the allocator's header.
pub(crate) const ENTRY_OVERHEAD: usize = 96;

/// Which block of which packed file: the file's number in the high half, the block in the low
/// half.
pub(crate) type BlockKey = u64;

/// The key of block `block` of packed file `file`.
pub(crate) fn block_key(file: u32, block: u32) -> BlockKey {
    u64::from(file) << 32 | u64::from(block)
}

/// Keys are already well spread integers: one multiplication mixes them enough.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = (key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A kept block and whether it was read since the clock hand last passed it.
#[derive(Debug)]
struct Entry {
    data: Box<[u8]>,
    referenced: bool,
}

#[derive(Debug, Default)]
struct Shard {
    blocks: HashMap<BlockKey, Entry, BuildHasherDefault<KeyHasher>>,
    /// The clock: every kept key once, the hand at the front.
    clock: VecDeque<BlockKey>,
    /// Bytes counted against the shard's part of the budget.
    bytes: usize,
}

impl Shard {
    /// Drops blocks, unreferenced ones first, until `wanted` more bytes fit in `budget`.
    fn make_room(&mut self, wanted: usize, budget: usize) {
        while self.bytes + wanted > budget {
            let Some(key) = self.clock.pop_front() else {
                break;
            };
            match self.blocks.get_mut(&key) {
                Some(entry) if entry.referenced => {
                    entry.referenced = false;
                    self.clock.push_back(key);
                }
                Some(_) => self.drop_block(key),
                None => {}
            }
        }
    }

    fn drop_block(&mut self, key: BlockKey) {
        if let Some(gone) = self.blocks.remove(&key) {
            self.bytes -= gone.data.len() + ENTRY_OVERHEAD;
        }
    }
}

/// A shard on cache lines of its own, so that two threads locking neighbouring shards do not
/// keep stealing each other's line.
#[derive(Debug, Default)]
#[repr(align(128))]
struct PaddedShard(Mutex<Shard>);

/// Decompressed blocks kept up to a byte budget.
#[derive(Debug)]
pub(crate) struct BlockCache {
    shards: Box<[PaddedShard]>,
    /// The budget of each shard; the budget can change between materials.
    shard_budget: AtomicUsize,
}

impl BlockCache {
    /// A cache that never holds more than `budget` bytes (blocks and their bookkeeping).
    pub(crate) fn new(budget: u64) -> BlockCache {
        let cache = BlockCache {
            shards: (0..SHARDS).map(|_| PaddedShard::default()).collect(),
            shard_budget: AtomicUsize::new(0),
        };
        cache.set_budget(budget);
        cache
    }

    /// Changes the budget, dropping blocks at once if they no longer fit.
    pub(crate) fn set_budget(&self, budget: u64) {
        let per_shard = usize::try_from(budget / SHARDS as u64).unwrap_or(usize::MAX);
        self.shard_budget.store(per_shard, Ordering::Relaxed);
        for shard in self.shards.iter() {
            lock(shard).make_room(0, per_shard);
        }
    }

    fn shard(&self, key: BlockKey) -> MutexGuard<'_, Shard> {
        let spread = (key ^ key >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        lock(&self.shards[spread as usize % SHARDS])
    }

    /// What `read` makes of a cached block, if the block is cached.
    #[inline]
    pub(crate) fn read<T>(&self, key: BlockKey, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut shard = self.shard(key);
        let entry = shard.blocks.get_mut(&key)?;
        // Written only when it changes, so that a block read over and over does not dirty its
        // entry's line on every read.
        if !entry.referenced {
            entry.referenced = true;
        }
        Some(read(&entry.data))
    }

    /// Keeps a block, first dropping other blocks of its shard until it fits. A block bigger
    /// than the shard's whole part of the budget is not kept.
    pub(crate) fn insert(&self, key: BlockKey, block: Vec<u8>) {
        let cost = block.len() + ENTRY_OVERHEAD;
        let budget = self.shard_budget.load(Ordering::Relaxed);
        if cost > budget {
            return;
        }
        let mut shard = self.shard(key);
        if shard.blocks.contains_key(&key) {
            // Another thread decompressed it too, at the same time.
            return;
        }
        shard.make_room(cost, budget);
        shard.bytes += cost;
        shard.blocks.insert(
            key,
            Entry {
                data: block.into_boxed_slice(),
                referenced: false,
            },
        );
        shard.clock.push_back(key);
    }

    /// Drops every block of packed file `file`: nothing will read them again.
    pub(crate) fn forget(&self, file: u32) {
        for shard in self.shards.iter() {
            let mut shard = lock(shard);
            let gone: Vec<BlockKey> = shard
                .blocks
                .keys()
                .copied()
                .filter(|&key| (key >> 32) as u32 == file)
                .collect();
            for key in gone {
                shard.drop_block(key);
            }
            // The clock skips keys no longer kept, but they would take room in it.
            let Shard { clock, blocks, .. } = &mut *shard;
            clock.retain(|key| blocks.contains_key(key));
        }
    }

    /// Bytes counted against the budget: kept blocks and their bookkeeping.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> u64 {
        self.shards.iter().map(|s| lock(s).bytes as u64).sum()
    }
}

/// Locks a shard. A poisoned lock only means another thread panicked while holding it; every
/// update of a shard leaves it consistent, so its contents are still good.
fn lock(shard: &PaddedShard) -> MutexGuard<'_, Shard> {
    shard.0.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_within_budget_and_keeps_what_is_read() {
        let budget = 64 * 4 * (300 + ENTRY_OVERHEAD) as u64;
        let cache = BlockCache::new(budget);
        let hot = block_key(1, 0);
        cache.insert(hot, vec![7; 300]);
        for i in 0..2000 {
            cache.insert(block_key(0, i), vec![i as u8; 300]);
            assert!(cache.bytes() <= budget);
            // A block read between insertions survives the clock.
            assert_eq!(cache.read(hot, |b| b[5]), Some(7));
        }
        assert!(cache.bytes() > budget / 2);
        assert_eq!(
            cache.read(block_key(0, 1999), |b| b[0]),
            Some(1999u32 as u8)
        );
        assert_eq!(cache.read(block_key(0, 0), |b| b[0]), None);
        // Too big for a shard: answered elsewhere, never kept.
        cache.insert(block_key(2, 0), vec![0; budget as usize]);
        assert_eq!(cache.read(block_key(2, 0), |b| b.len()), None);
        // A smaller budget drops blocks at once.
        cache.set_budget(budget / 4);
        assert!(cache.bytes() <= budget / 4);
        // A file forgotten leaves nothing behind.
        cache.forget(0);
        cache.forget(1);
        assert_eq!(cache.bytes(), 0);
        assert_eq!(cache.read(hot, |b| b[0]), None);
    }
}
