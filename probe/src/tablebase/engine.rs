//! What an engine needs besides the plain probes: probes that answer only from blocks already
//! in the cache (cheap enough for every node of a search), and whether a material has a table.
//!
//! This is a child module of `tablebase` so that it reads the table slots and the cache
//! without widening their visibility.

use super::{Reading, Tablebase};
use crate::codec::{DrawRulesCodec, WdlCodec};
use crate::format::TableKind;
use crate::{Category, Counters, Material, Position, RuleOutcome, Variant, Wdl};

/// A tablebase is shared between the threads of a search: checked here, at compile time.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Tablebase>();
};

impl Tablebase {
    /// Whether the directory has a table of `kind` for a material (either orientation: `KvKK`
    /// is found in the `KKvK` table).
    ///
    /// ```
    /// # use rafle_probe::{Tablebase, draughts::{Material, Variant}, toolkit::format::TableKind};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// let kk_k: Material = "KvKK".parse()?;
    /// assert!(tables.has_table(TableKind::Wdl, Variant::Brazilian, kk_k));
    /// assert!(tables.has_table(TableKind::Dtw, Variant::Brazilian, kk_k));
    /// assert!(!tables.has_table(TableKind::Wdl, Variant::International, kk_k));
    /// assert_eq!(tables.max_pieces(Variant::Brazilian), 3);
    /// assert_eq!(tables.materials(Variant::Brazilian).len(), 9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn has_table(&self, kind: TableKind, variant: Variant, material: Material) -> bool {
        self.slot(kind, variant, material.canonical()).is_some()
    }

    /// Win, draw or loss for the side to move, as [`Tablebase::probe_wdl`] gives it, but only
    /// if every block needed is already in the cache (a position whose side to move must
    /// capture needs the blocks of its captures); `None` otherwise, and also when there is no
    /// table for the position, without reading any file. Nothing is allocated.
    ///
    /// Meant for the inner nodes of a search, where waiting for a block to be decompressed
    /// costs more than searching on: probe with [`Tablebase::probe_wdl`] near the root, which
    /// fills the cache, and with this deeper down.
    ///
    /// ```
    /// # use rafle_probe::{Tablebase, Wdl, draughts::{Position, Variant}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open_with_cache(dir.path(), 64 << 20)?;
    /// let pos = Position::from_fen(Variant::Brazilian, "B:W29:B25,22")?;
    /// assert_eq!(tables.probe_wdl_cached(&pos), None); // nothing read yet
    /// assert_eq!(tables.probe_wdl(&pos)?, Wdl::Win); // reads the block
    /// assert_eq!(tables.probe_wdl_cached(&pos), Some(Wdl::Win));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_wdl_cached(&self, pos: &Position) -> Option<Wdl> {
        self.resolve::<WdlCodec>(pos, None, Reading::CachedOnly)
            .ok()
            .flatten()
    }

    /// The rule-aware outcome, as [`Tablebase::probe_draw_rules`] gives it, but only if every
    /// block needed is already in the cache; `None` otherwise, and also when there is no
    /// rule table for the position or the directory's rule tables mix limits, without reading
    /// any file. Nothing is allocated.
    ///
    /// ```
    /// # use rafle_probe::{RuleClass, Tablebase, Wdl, draughts::{Counters, Position, Variant}};
    /// # let dir = tempfile::tempdir()?;
    /// # let plan = rafle_generator::Plan::new(Variant::Brazilian, 3, dir.path())?;
    /// # rafle_generator::generate(&plan, &rafle_generator::NoProgress)?;
    /// let tables = Tablebase::open(dir.path())?;
    /// let pos = Position::from_fen(Variant::Brazilian, "B:W29:B25,22")?;
    /// let fresh = tables.probe_draw_rules(&pos, Counters::FRESH)?;
    /// assert_eq!(fresh.value.class(), RuleClass::Win);
    /// assert_eq!(fresh.value.count(), Some(1)); // the man move 25-30 resets the count
    /// assert_eq!((fresh.category.article(), fresh.limit), ("6.2", 50));
    /// assert_eq!(fresh.result, Wdl::Win);
    /// // With 50 king-only plies already played, rule 6.2 has drawn the game.
    /// let late = Counters { king_plies: 50, category_plies: 0 };
    /// assert_eq!(tables.probe_draw_rules(&pos, late)?.result, Wdl::Draw);
    /// // The blocks are cached now: the cache-only probe answers the same.
    /// assert_eq!(tables.probe_draw_rules_cached(&pos, late), Some(tables.probe_draw_rules(&pos, late)?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_draw_rules_cached(
        &self,
        pos: &Position,
        counters: Counters,
    ) -> Option<RuleOutcome> {
        let limits = self.rule_limits_for(pos).ok()?;
        let value = self
            .resolve::<DrawRulesCodec>(pos, Some(limits), Reading::CachedOnly)
            .ok()??;
        Some(RuleOutcome::new(
            value,
            Category::of_position(pos),
            limits,
            counters,
        ))
    }
}
