//! A bounded cache of decompressed blocks, shared by all tables of a [`crate::Tablebase`].

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Which block of which table.
pub(crate) type BlockKey = (u32, u32);

/// Decompressed blocks kept up to a byte budget; the oldest go first.
#[derive(Debug)]
pub(crate) struct BlockCache {
    inner: Mutex<Inner>,
    budget: usize,
}

#[derive(Debug, Default)]
struct Inner {
    blocks: HashMap<BlockKey, Arc<[u8]>>,
    order: VecDeque<BlockKey>,
    bytes: usize,
}

impl BlockCache {
    pub(crate) fn new(budget: usize) -> BlockCache {
        BlockCache { inner: Mutex::new(Inner::default()), budget }
    }

    pub(crate) fn get(&self, key: BlockKey) -> Option<Arc<[u8]>> {
        let inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        inner.blocks.get(&key).cloned()
    }

    pub(crate) fn insert(&self, key: BlockKey, block: Arc<[u8]>) {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if inner.blocks.contains_key(&key) {
            return;
        }
        inner.bytes += block.len();
        inner.blocks.insert(key, block);
        inner.order.push_back(key);
        while inner.bytes > self.budget && inner.order.len() > 1 {
            let Some(old) = inner.order.pop_front() else { break };
            if let Some(gone) = inner.blocks.remove(&old) {
                inner.bytes -= gone.len();
            }
        }
    }

    /// Bytes of decompressed blocks held.
    pub(crate) fn bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner).bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_within_budget() {
        let cache = BlockCache::new(1000);
        for i in 0..100 {
            cache.insert((0, i), vec![0u8; 300].into());
            assert!(cache.bytes() <= 1000);
        }
        assert!(cache.get((0, 99)).is_some());
        assert!(cache.get((0, 0)).is_none());
    }
}
