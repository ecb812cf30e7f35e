//! A bounded cache of decompressed blocks, shared by all tables of a [`crate::Tablebase`], and
//! by the threads of the generator for the packed values of finished materials.
//!
//! The cache is split into shards, each behind its own lock (and on its own cache line, so two
//! threads probing different shards never touch the same line); a probe copies the few bits it
//! wants while it holds the lock, so nothing is reference-counted or allocated on the hot path.
//! The generator's cache holds its blocks shared instead (`BlockCache<Arc<[u8]>>`), so that
//! each thread can keep the few it reads most at hand and skip the lock.
//!
//! Each shard keeps an equal part of the byte budget, counting every block's bytes and a fixed
//! allowance for its bookkeeping, and makes room *before* it keeps a new block, so the sum
//! over the shards never passes the budget, however many probes run. Eviction is CLOCK (an
//! approximation of least recently used): a block read since the hand last passed it gets a
//! second chance, so the blocks a search keeps returning to stay while one-off blocks go
//! first. A block larger than a whole shard's part is not kept at all: its probe still
//! answers, decompressing it each time.

use std::collections::hash_map::HashMap;
use std::collections::VecDeque;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Most shards; fewer when the budget is small, so that a shard still holds several blocks.
const MAX_SHARDS: usize = 64;

/// The largest block a table holds: 65,536 positions of 16 bits.
const LARGEST_BLOCK: usize = 128 << 10;

/// Bytes counted for each kept block on top of its data: its map entry (key, pointer, length,
/// flag, with the map's spare room), its place on the clock, and the allocator's header.
pub const ENTRY_OVERHEAD: usize = 96;

/// Which block of which file: the file's number in the high half, the block in the low half.
pub type BlockKey = u64;

/// The key of block `block` of file `file`.
pub fn block_key(file: u32, block: u32) -> BlockKey {
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

impl std::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyHasher")
    }
}

/// A kept block and whether it was read since the clock hand last passed it.
#[derive(Debug)]
struct Entry<B> {
    data: B,
    referenced: bool,
}

#[derive(Debug)]
struct Shard<B> {
    blocks: HashMap<BlockKey, Entry<B>, BuildHasherDefault<KeyHasher>>,
    /// The clock: every kept key once, the hand at the front.
    clock: VecDeque<BlockKey>,
    /// Bytes counted against the shard's part of the budget.
    bytes: usize,
}

impl<B> Default for Shard<B> {
    fn default() -> Shard<B> {
        Shard {
            blocks: HashMap::default(),
            clock: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<B: AsRef<[u8]>> Shard<B> {
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
            self.bytes -= gone.data.as_ref().len() + ENTRY_OVERHEAD;
        }
    }
}

/// A shard on cache lines of its own, so that two threads locking neighbouring shards do not
/// keep stealing each other's line.
#[derive(Debug)]
#[repr(align(128))]
struct PaddedShard<B>(Mutex<Shard<B>>);

/// Decompressed blocks kept up to a byte budget, each held as a `B`: owned by the cache (the
/// default), or shared (`Arc<[u8]>`) so that a reader may keep a block at hand past its lock
/// (see [`BlockCache::shared`]).
#[derive(Debug)]
pub struct BlockCache<B = Box<[u8]>> {
    shards: Box<[PaddedShard<B>]>,
    /// `shards.len() - 1`; the count is a power of two.
    mask: usize,
    /// The budget of each shard ([`BlockCache::set_budget`] changes it).
    shard_budget: AtomicUsize,
}

impl<B: AsRef<[u8]>> BlockCache<B> {
    /// A cache that never holds more than `budget` bytes (blocks and their bookkeeping).
    pub fn new(budget: usize) -> BlockCache<B> {
        // Enough shards to spread the threads, few enough that each holds four of the largest
        // blocks; a small budget gets one shard, so that its blocks are not cut off from it.
        let mut count = MAX_SHARDS;
        while count > 1 && budget / count < 4 * (LARGEST_BLOCK + ENTRY_OVERHEAD) {
            count /= 2;
        }
        BlockCache {
            shards: (0..count).map(|_| PaddedShard(Mutex::default())).collect(),
            mask: count - 1,
            shard_budget: AtomicUsize::new(budget / count),
        }
    }

    /// Changes the budget (the shards stay as [`BlockCache::new`] made them), dropping blocks
    /// at once if they no longer fit.
    pub fn set_budget(&self, budget: usize) {
        let per_shard = budget / self.shards.len();
        self.shard_budget.store(per_shard, Ordering::Relaxed);
        for shard in self.shards.iter() {
            lock(shard).make_room(0, per_shard);
        }
    }

    fn shard(&self, key: BlockKey) -> MutexGuard<'_, Shard<B>> {
        let spread = (key ^ key >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        lock(&self.shards[spread as usize & self.mask])
    }

    /// What `read` makes of a cached block, if the block is cached.
    #[inline]
    pub fn read<T>(&self, key: BlockKey, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        self.visit(key, |data| read(data.as_ref()))
    }

    /// What `visit` makes of a cached block as the cache holds it, marking the block read.
    #[inline]
    fn visit<T>(&self, key: BlockKey, visit: impl FnOnce(&B) -> T) -> Option<T> {
        let mut shard = self.shard(key);
        let entry = shard.blocks.get_mut(&key)?;
        // Written only when it changes, so that a block read over and over does not dirty its
        // entry's line on every probe.
        if !entry.referenced {
            entry.referenced = true;
        }
        Some(visit(&entry.data))
    }

    /// Keeps a block, first dropping other blocks of its shard until it fits. A block bigger
    /// than the shard's whole part of the budget is not kept.
    pub fn insert(&self, key: BlockKey, block: impl Into<B>) {
        let block = block.into();
        let cost = block.as_ref().len() + ENTRY_OVERHEAD;
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
                data: block,
                referenced: false,
            },
        );
        shard.clock.push_back(key);
    }

    /// Drops every block of file `file`: nothing will read them again (but the holders of
    /// [shared](BlockCache::shared) ones).
    pub fn forget(&self, file: u32) {
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
    pub fn bytes(&self) -> usize {
        self.shards.iter().map(|s| lock(s).bytes).sum()
    }

    /// The budget: the most bytes [`BlockCache::bytes`] may come to (whole shards' parts of
    /// what [`BlockCache::new`] or [`BlockCache::set_budget`] was given).
    pub fn budget(&self) -> usize {
        self.shard_budget.load(Ordering::Relaxed) * self.shards.len()
    }
}

impl BlockCache<Arc<[u8]>> {
    /// The cached block itself, if cached: for a reader that keeps the few blocks it reads
    /// most at hand, without a lock. Those stay alive while it holds them, even once the cache
    /// has dropped them, so such a reader holds few.
    #[inline]
    pub fn shared(&self, key: BlockKey) -> Option<Arc<[u8]>> {
        self.visit(key, Arc::clone)
    }
}

/// Locks a shard. A poisoned lock only means another thread panicked while holding it; every
/// update of a shard leaves it consistent, so its contents are still good.
fn lock<B>(shard: &PaddedShard<B>) -> MutexGuard<'_, Shard<B>> {
    shard.0.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_within_budget() {
        let budget = 16 * 1000;
        let cache: BlockCache = BlockCache::new(budget);
        for i in 0..1000 {
            cache.insert(block_key(0, i), vec![0b1110_0100; 300]);
            assert!(cache.bytes() <= budget);
        }
        let code = |key, i| cache.read(key, |b| crate::codec::read_code(b, 2, i));
        assert_eq!(code(block_key(0, 999), 1), Some(0b01));
        let kept = (0..1000)
            .filter(|&i| code(block_key(0, i), 0).is_some())
            .count();
        assert_eq!(kept, budget / (300 + ENTRY_OVERHEAD));
    }

    #[test]
    fn the_budget_is_whole_shards_and_follows_set_budget() {
        let big = 64 * 4 * (LARGEST_BLOCK + ENTRY_OVERHEAD) + 7;
        let cache: BlockCache = BlockCache::new(big);
        assert!(cache.shards.len() > 1);
        assert_eq!(cache.budget(), big - big % cache.shards.len());
        assert!(big - cache.budget() < cache.shards.len());
        cache.set_budget(1 << 20);
        assert_eq!(cache.budget(), 1 << 20);
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn a_block_bigger_than_the_budget_is_not_kept() {
        let cache: BlockCache = BlockCache::new(1000);
        cache.insert(block_key(0, 0), vec![0; 2000]);
        assert_eq!(cache.bytes(), 0);
        assert_eq!(cache.read(block_key(0, 0), |b| b.len()), None);
        cache.insert(block_key(0, 1), vec![0; 100]);
        assert_eq!(cache.read(block_key(0, 1), |b| b.len()), Some(100));
    }

    #[test]
    fn a_shared_block_outlives_its_place_in_the_cache() {
        let cache: BlockCache<Arc<[u8]>> = BlockCache::new(2 * (100 + ENTRY_OVERHEAD));
        cache.insert(block_key(2, 0), vec![5; 100]);
        let held = cache.shared(block_key(2, 0)).unwrap();
        for i in 1..10 {
            cache.insert(block_key(2, i), vec![i as u8; 100]);
        }
        assert!(cache.shared(block_key(2, 0)).is_none());
        assert_eq!(&held[..], &[5; 100][..]);
        assert_eq!(cache.read(block_key(2, 9), |b| b[0]), Some(9));
        assert!(cache.bytes() <= 2 * (100 + ENTRY_OVERHEAD));
    }

    #[test]
    fn blocks_read_again_outlive_blocks_read_once() {
        let cache: BlockCache = BlockCache::new(10 * (100 + ENTRY_OVERHEAD));
        for i in 0..10 {
            cache.insert(block_key(1, i), vec![0; 100]);
        }
        // Block 3 is read while the others are not; twenty new blocks go through.
        for i in 10..30 {
            assert!(cache.read(block_key(1, 3), |_| ()).is_some(), "{i}");
            cache.insert(block_key(1, i), vec![0; 100]);
        }
        assert!(cache.read(block_key(1, 3), |_| ()).is_some());
        assert!(cache.read(block_key(1, 4), |_| ()).is_none());
    }

    #[test]
    fn a_smaller_budget_and_forgotten_files_drop_blocks_at_once() {
        let budget = 64 * 4 * (300 + ENTRY_OVERHEAD);
        let cache: BlockCache = BlockCache::new(budget);
        let hot = block_key(1, 0);
        cache.insert(hot, vec![7; 300]);
        for i in 0..2000 {
            cache.insert(block_key(0, i), vec![i as u8; 300]);
            assert!(cache.bytes() <= budget);
        }
        assert!(cache.bytes() > budget / 2);
        cache.set_budget(budget / 4);
        assert!(cache.bytes() <= budget / 4);
        cache.insert(block_key(0, 5000), vec![1; 300]);
        assert!(cache.bytes() <= budget / 4);
        cache.forget(0);
        assert!(cache.read(block_key(0, 5000), |b| b[0]).is_none());
        cache.forget(1);
        assert_eq!(cache.bytes(), 0);
        assert_eq!(cache.read(hot, |b| b[0]), None);
    }

    #[test]
    fn many_threads_never_pass_the_budget() {
        let budget = 600 << 10;
        let cache: BlockCache = BlockCache::new(budget);
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let cache = &cache;
                scope.spawn(move || {
                    let mut state = 0x9e37_79b9u32.wrapping_mul(t + 1);
                    for _ in 0..5000 {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        let key = block_key(state % 7, state % 300);
                        let len = [100, 16 << 10, 64 << 10, 128 << 10][(state % 4) as usize];
                        if cache.read(key, |b| b.len()).is_none() {
                            cache.insert(key, vec![0; len]);
                        }
                        assert!(cache.bytes() <= budget);
                    }
                });
            }
        });
        assert!(cache.bytes() <= budget);
    }
}
