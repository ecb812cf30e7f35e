//! A bounded cache of decompressed blocks, shared by all tables of a [`crate::Tablebase`].
//!
//! The cache is split into shards, each behind its own lock, so that threads probing at once
//! seldom wait for each other; a probe copies the two bits it wants while it holds the lock,
//! so nothing is reference-counted on the hot path. Each shard keeps its part of the byte
//! budget and drops its oldest blocks first.

use std::collections::hash_map::HashMap;
use std::collections::VecDeque;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

const SHARDS: usize = 16;

/// Which block of which table: the table's slot in the high half, the block in the low half.
pub(crate) type BlockKey = u64;

pub(crate) fn block_key(table: u32, block: u32) -> BlockKey {
    u64::from(table) << 32 | u64::from(block)
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

#[derive(Debug, Default)]
struct Shard {
    blocks: HashMap<BlockKey, Box<[u8]>, BuildHasherDefault<KeyHasher>>,
    order: VecDeque<BlockKey>,
    bytes: usize,
}

/// Decompressed blocks kept up to a byte budget.
#[derive(Debug)]
pub(crate) struct BlockCache {
    shards: Box<[Mutex<Shard>]>,
    shard_budget: usize,
}

impl std::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyHasher")
    }
}

impl BlockCache {
    pub(crate) fn new(budget: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            shard_budget: budget / SHARDS,
        }
    }

    fn shard(&self, key: BlockKey) -> std::sync::MutexGuard<'_, Shard> {
        let spread = (key ^ key >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60;
        self.shards[spread as usize % SHARDS]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What `read` makes of a cached block, if the block is cached.
    pub(crate) fn read<T>(&self, key: BlockKey, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        self.shard(key).blocks.get(&key).map(|block| read(block))
    }

    /// Keeps a block, dropping the shard's oldest ones past its budget (but never the block
    /// just added, so a budget smaller than one block still works, one block at a time).
    pub(crate) fn insert(&self, key: BlockKey, block: Vec<u8>) {
        let mut shard = self.shard(key);
        if shard.blocks.contains_key(&key) {
            return;
        }
        shard.bytes += block.len();
        shard.blocks.insert(key, block.into_boxed_slice());
        shard.order.push_back(key);
        while shard.bytes > self.shard_budget && shard.order.len() > 1 {
            let Some(old) = shard.order.pop_front() else {
                break;
            };
            if let Some(gone) = shard.blocks.remove(&old) {
                shard.bytes -= gone.len();
            }
        }
    }

    /// Bytes of decompressed blocks held.
    pub(crate) fn bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                s.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .bytes
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_within_budget() {
        let cache = BlockCache::new(16 * 1000);
        for i in 0..1000 {
            cache.insert(block_key(0, i), vec![0b1110_0100; 300]);
            assert!(cache.bytes() <= 16 * 1000);
        }
        let code = |key, i| cache.read(key, |b| crate::format::packed_code(b, i));
        assert_eq!(code(block_key(0, 999), 1), Some(0b01));
        assert!(
            (0..1000)
                .filter(|&i| code(block_key(0, i), 0).is_some())
                .count()
                < 60
        );
    }
}
