//! The tablebase handle and the probes.

use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;

use rafle_probe::toolkit::format::TableKind;
use rafle_probe::{
    draughts::{Category, Counters, Material, SquareStyle},
    Dtw, RuleClass, RuleOutcome, Tablebase, Wdl, DEFAULT_CACHE_BYTES,
};

use crate::error::{
    guard, Failure, RAFLE_ERR_ARGUMENT, RAFLE_ERR_MISSING_TABLE, RAFLE_NOT_CACHED, RAFLE_NO_MOVE,
    RAFLE_OK,
};
use crate::position::{read, variant, RaflePosition};

/// The side to move loses.
pub const RAFLE_LOSS: c_int = -1;
/// Neither side can force a win.
pub const RAFLE_DRAW: c_int = 0;
/// The side to move wins.
pub const RAFLE_WIN: c_int = 1;

/// Rule class: lost under the draw rules.
pub const RAFLE_CLASS_LOSS: c_int = -2;
/// Rule class: lost without the draw rules, saved by them.
pub const RAFLE_CLASS_BLESSED_LOSS: c_int = -1;
/// Rule class: drawn even without the draw rules.
pub const RAFLE_CLASS_DRAW: c_int = 0;
/// Rule class: won without the draw rules, drawn by them.
pub const RAFLE_CLASS_CURSED_WIN: c_int = 1;
/// Rule class: won under the draw rules.
pub const RAFLE_CLASS_WIN: c_int = 2;

/// Win/draw/loss tables (`.wdl`).
pub const RAFLE_TABLE_WDL: c_int = 0;
/// Distance-to-win tables (`.dtw`).
pub const RAFLE_TABLE_DTW: c_int = 1;
/// Rule-aware tables (`.rules`).
pub const RAFLE_TABLE_RULES: c_int = 2;

/// `rafle_tablebase`: an open table directory, shared freely between threads.
#[derive(Debug)]
pub struct RafleTablebase {
    tables: Tablebase,
}

/// `rafle_material`: pieces by colour and role.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RafleMaterial {
    /// White's men.
    pub white_men: u8,
    /// White's kings.
    pub white_kings: u8,
    /// Black's men.
    pub black_men: u8,
    /// Black's kings.
    pub black_kings: u8,
}

/// `rafle_counters`: the live draw-rule counters, in plies.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RafleCounters {
    /// Rule 6.2: consecutive plies in which only kings moved and nothing was captured.
    pub king_plies: u32,
    /// Rules 6.3/6.4: plies since the position entered its category.
    pub category_plies: u32,
}

/// `rafle_rules`: the answer of a rule-aware probe.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RafleRules {
    /// `RAFLE_WIN`, `RAFLE_DRAW` or `RAFLE_LOSS` with the draw rules and the counters given.
    pub result: c_int,
    /// `RAFLE_CLASS_*` with fresh counters.
    pub rule_class: c_int,
    /// For `RAFLE_CLASS_WIN` and `RAFLE_CLASS_LOSS`, the plies to the next counter reset that
    /// keeps the result; -1 otherwise.
    pub count: c_int,
    /// The rule whose counter is live: 62, 63 or 64 (articles 6.2, 6.3, 6.4).
    pub rule: c_int,
    /// That rule's limit in plies.
    pub limit: c_int,
}

/// `rafle_limits`: the draw-rule limits a directory's rule tables were computed with.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RafleLimits {
    /// Rule 6.2, in plies.
    pub rule_6_2: c_int,
    /// Rule 6.3, in plies.
    pub rule_6_3: c_int,
    /// Rule 6.4, in plies.
    pub rule_6_4: c_int,
}

/// `rafle_move`: a move with the value it keeps.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RafleMove {
    /// Start square number.
    pub from: c_int,
    /// End square number.
    pub to: c_int,
    /// The captured pieces, bit `n - 1` for square `n`.
    pub captured: u64,
    /// The position's value for the side to move, kept by this move.
    pub wdl: c_int,
    /// Its distance to the end of the game in plies; -1 for a draw.
    pub plies: c_int,
    /// PDN text, NUL-terminated (`"32-28"`, `"28x19"`, a full path when two moves share start
    /// and end).
    pub text: [c_char; 128],
}

impl Default for RafleMove {
    fn default() -> RafleMove {
        RafleMove {
            from: 0,
            to: 0,
            captured: 0,
            wdl: RAFLE_LOSS,
            plies: 0,
            text: [0; 128],
        }
    }
}

pub(crate) fn wdl_code(wdl: Wdl) -> c_int {
    match wdl {
        Wdl::Loss => RAFLE_LOSS,
        Wdl::Draw => RAFLE_DRAW,
        Wdl::Win => RAFLE_WIN,
    }
}

fn class_code(class: RuleClass) -> c_int {
    match class {
        RuleClass::Loss => RAFLE_CLASS_LOSS,
        RuleClass::BlessedLoss => RAFLE_CLASS_BLESSED_LOSS,
        RuleClass::Draw => RAFLE_CLASS_DRAW,
        RuleClass::CursedWin => RAFLE_CLASS_CURSED_WIN,
        RuleClass::Win => RAFLE_CLASS_WIN,
    }
}

fn kind(code: c_int) -> Result<TableKind, Failure> {
    match code {
        RAFLE_TABLE_WDL => Ok(TableKind::Wdl),
        RAFLE_TABLE_DTW => Ok(TableKind::Dtw),
        RAFLE_TABLE_RULES => Ok(TableKind::DrawRules),
        _ => Err(Failure::new(
            RAFLE_ERR_ARGUMENT,
            format!("unknown table kind {code} (expected RAFLE_TABLE_WDL, _DTW or _RULES)"),
        )),
    }
}

pub(crate) fn rules(outcome: RuleOutcome) -> RafleRules {
    RafleRules {
        result: wdl_code(outcome.result),
        rule_class: class_code(outcome.value.class()),
        count: outcome.value.count().map_or(-1, c_int::from),
        rule: match outcome.category {
            Category::Outside => 62,
            Category::Rule63 => 63,
            Category::Rule64 => 64,
        },
        limit: c_int::from(outcome.limit),
    }
}

/// The live counters (fresh for null), each in the range every entry point takes.
pub(crate) fn counters(counters: Option<&RafleCounters>) -> Result<Counters, Failure> {
    counters.map_or(Ok(Counters::FRESH), |c| {
        Counters::from_plies(c.king_plies.into(), c.category_plies.into())
            .map_err(|e| Failure::new(RAFLE_ERR_ARGUMENT, e.to_string()))
    })
}

/// Borrows what a handle points to.
///
/// # Safety
///
/// `tb` must be null or a handle from `rafle_open` not yet closed.
pub(crate) unsafe fn handle<'a>(tb: *const RafleTablebase) -> Result<&'a Tablebase, Failure> {
    // SAFETY: the caller's promise above.
    unsafe { tb.as_ref() }
        .map(|h| &h.tables)
        .ok_or_else(|| Failure::null("the tablebase handle"))
}

/// Borrows the position and the output of a probe, checking the position.
///
/// # Safety
///
/// `pos` null or valid for reading, `out` null or valid for writing.
unsafe fn io<'a, T>(
    pos: *const RaflePosition,
    out: *mut T,
) -> Result<(rafle_probe::draughts::Position, &'a mut T), Failure> {
    // SAFETY: the caller's promise above.
    let pos = unsafe { pos.as_ref() }.ok_or_else(|| Failure::null("pos"))?;
    // SAFETY: the caller's promise above.
    let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("the output"))?;
    Ok((read(pos)?, out))
}

/// Opens the table directory `dir` (holding `<dir>/<variant>/<material>.wdl` …) with a
/// decompressed-block cache of at most `cache_bytes` bytes (0: 256 MiB). Returns null on
/// failure (see `rafle_last_error`).
///
/// # Safety
///
/// `dir` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rafle_open(dir: *const c_char, cache_bytes: usize) -> *mut RafleTablebase {
    let mut opened = std::ptr::null_mut();
    guard(|| {
        if dir.is_null() {
            return Err(Failure::null("dir"));
        }
        // SAFETY: not null, and the caller promises a NUL-terminated string.
        let dir = unsafe { CStr::from_ptr(dir) };
        let path = path(dir)?;
        let budget = if cache_bytes == 0 {
            DEFAULT_CACHE_BYTES
        } else {
            cache_bytes
        };
        let tables = Tablebase::open_with_cache(path, budget)?;
        opened = Box::into_raw(Box::new(RafleTablebase { tables }));
        Ok(RAFLE_OK)
    });
    opened
}

#[cfg(unix)]
fn path(dir: &CStr) -> Result<PathBuf, Failure> {
    use std::os::unix::ffi::OsStrExt;
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes())))
}

#[cfg(not(unix))]
fn path(dir: &CStr) -> Result<PathBuf, Failure> {
    dir.to_str()
        .map(PathBuf::from)
        .map_err(|_| Failure::new(RAFLE_ERR_ARGUMENT, "the directory name is not UTF-8"))
}

/// Closes a handle and frees its cache. Null is ignored.
///
/// # Safety
///
/// `tb` must be null or a handle from `rafle_open`, not closed before, and no other thread
/// may be using it.
#[no_mangle]
pub unsafe extern "C" fn rafle_close(tb: *mut RafleTablebase) {
    if !tb.is_null() {
        // SAFETY: the caller promises a live handle from rafle_open (made by Box::into_raw)
        // that nobody else uses any more. Dropping it runs no code that can panic.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// Most pieces of any table of `kind` (`RAFLE_TABLE_*`) of the variant: 0 if there is none,
/// a negative status on error.
///
/// # Safety
///
/// `tb` must be null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn rafle_max_pieces(
    tb: *const RafleTablebase,
    variant_code: c_int,
    kind_code: c_int,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let tables = unsafe { handle(tb) }?;
        let count = tables.max_pieces_of(kind(kind_code)?, variant(variant_code)?);
        Ok(c_int::try_from(count).unwrap_or(c_int::MAX))
    })
}

/// 1 if the directory has a table of `kind` for the material (either orientation), 0 if not,
/// a negative status on error.
///
/// # Safety
///
/// `tb` null or a live handle, `material` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn rafle_has_table(
    tb: *const RafleTablebase,
    variant_code: c_int,
    kind_code: c_int,
    material: *const RafleMaterial,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let tables = unsafe { handle(tb) }?;
        // SAFETY: the caller's promise.
        let m = unsafe { material.as_ref() }.ok_or_else(|| Failure::null("material"))?;
        let (kind, variant) = (kind(kind_code)?, variant(variant_code)?);
        // More pieces than squares is no material of any table; `Material` counts its pieces
        // in `u8`, which such counts (up to 4 x 255) would overflow.
        let pieces = [m.white_men, m.white_kings, m.black_men, m.black_kings]
            .iter()
            .map(|&n| u32::from(n))
            .sum::<u32>();
        if pieces > u32::from(variant.square_count()) {
            return Ok(0);
        }
        let material = Material {
            white_men: m.white_men,
            white_kings: m.white_kings,
            black_men: m.black_men,
            black_kings: m.black_kings,
        };
        Ok(c_int::from(tables.has_table(kind, variant, material)))
    })
}

/// The materials with a table of `kind`, in the order they are generated (fewer pieces
/// first), stored orientation (White at least as strong). Writes up to `capacity` of them to
/// `out` (which may be null when `capacity` is 0) and returns how many there are in all, or a
/// negative status.
///
/// # Safety
///
/// `tb` null or a live handle; `out` valid for writing `capacity` materials.
#[no_mangle]
pub unsafe extern "C" fn rafle_materials(
    tb: *const RafleTablebase,
    variant_code: c_int,
    kind_code: c_int,
    out: *mut RafleMaterial,
    capacity: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let tables = unsafe { handle(tb) }?;
        let list = tables.materials_of(kind(kind_code)?, variant(variant_code)?);
        if capacity > 0 && out.is_null() {
            return Err(Failure::null("out"));
        }
        for (i, m) in list.iter().take(capacity).enumerate() {
            let c = RafleMaterial {
                white_men: m.white_men,
                white_kings: m.white_kings,
                black_men: m.black_men,
                black_kings: m.black_kings,
            };
            // SAFETY: i < capacity, and the caller promises that many writable materials.
            unsafe { out.add(i).write(c) };
        }
        Ok(c_int::try_from(list.len()).unwrap_or(c_int::MAX))
    })
}

/// The draw-rule limits the variant's rule tables were computed with;
/// `RAFLE_ERR_MISSING_TABLE` if there is no rule table.
///
/// # Safety
///
/// `tb` null or a live handle, `out` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_rule_limits(
    tb: *const RafleTablebase,
    variant_code: c_int,
    out: *mut RafleLimits,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let tables = unsafe { handle(tb) }?;
        let variant = variant(variant_code)?;
        // SAFETY: the caller's promise.
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let limits = tables.limits(variant)?.ok_or_else(|| {
            Failure::new(
                RAFLE_ERR_MISSING_TABLE,
                format!("there are no {variant} rule tables"),
            )
        })?;
        *out = RafleLimits {
            rule_6_2: c_int::from(limits.rule_6_2),
            rule_6_3: c_int::from(limits.rule_6_3),
            rule_6_4: c_int::from(limits.rule_6_4),
        };
        Ok(RAFLE_OK)
    })
}

/// Bytes the decompressed-block cache holds now (never more than the budget given to
/// `rafle_open`); 0 for a null handle.
///
/// # Safety
///
/// `tb` null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn rafle_cache_bytes(tb: *const RafleTablebase) -> usize {
    // SAFETY: the caller's promise. Counting takes each shard's lock and cannot panic.
    unsafe { handle(tb) }.map_or(0, Tablebase::cache_bytes)
}

/// Win, draw or loss for the side to move (`RAFLE_WIN`, `RAFLE_DRAW`, `RAFLE_LOSS`), the
/// draw rules ignored, into `*wdl`.
///
/// # Safety
///
/// `tb` null or a live handle, `pos` null or valid for reading, `wdl` null or valid for
/// writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_wdl(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    wdl: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, out)) = unsafe { (handle(tb)?, io(pos, wdl)?) };
        *out = wdl_code(tables.probe_wdl(&pos)?);
        Ok(RAFLE_OK)
    })
}

/// As `rafle_probe_wdl`, but answers only from blocks already in the cache, reading no file:
/// `RAFLE_NOT_CACHED` (and `*wdl` untouched) when a block is missing or the position has no
/// table. For the inner nodes of a search.
///
/// # Safety
///
/// As `rafle_probe_wdl`.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_wdl_cached(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    wdl: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, out)) = unsafe { (handle(tb)?, io(pos, wdl)?) };
        Ok(match tables.probe_wdl_cached(&pos) {
            Some(value) => {
                *out = wdl_code(value);
                RAFLE_OK
            }
            None => RAFLE_NOT_CACHED,
        })
    })
}

/// Win, draw or loss into `*wdl` and the distance to the end of the game in plies with best
/// play into `*plies` (-1 for a draw), from the distance-to-win tables.
///
/// # Safety
///
/// As `rafle_probe_wdl`; `plies` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_dtw(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    wdl: *mut c_int,
    plies: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, wdl)) = unsafe { (handle(tb)?, io(pos, wdl)?) };
        // SAFETY: the caller's promise.
        let plies = unsafe { plies.as_mut() }.ok_or_else(|| Failure::null("plies"))?;
        let dtw = tables.probe_dtw(&pos)?;
        *wdl = wdl_code(dtw.wdl());
        *plies = dtw.plies().map_or(-1, c_int::from);
        Ok(RAFLE_OK)
    })
}

/// The result with the draw rules 6.2–6.4 enforced and the live `counters` used (null: fresh
/// counters, as right after a man move or a capture), with the rule class and count.
///
/// # Safety
///
/// As `rafle_probe_wdl`; `counters` null or valid for reading, `out` null or valid for
/// writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_rules(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    live: *const RafleCounters,
    out: *mut RafleRules,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, out), live) = unsafe { (handle(tb)?, io(pos, out)?, live.as_ref()) };
        *out = rules(tables.probe_draw_rules(&pos, counters(live)?)?);
        Ok(RAFLE_OK)
    })
}

/// As `rafle_probe_rules`, but answers only from blocks already in the cache:
/// `RAFLE_NOT_CACHED` (and `*out` untouched) otherwise.
///
/// # Safety
///
/// As `rafle_probe_rules`.
#[no_mangle]
pub unsafe extern "C" fn rafle_probe_rules_cached(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    live: *const RafleCounters,
    out: *mut RafleRules,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, out), live) = unsafe { (handle(tb)?, io(pos, out)?, live.as_ref()) };
        let live = counters(live)?;
        Ok(match tables.probe_draw_rules_cached(&pos, live) {
            Some(outcome) => {
                *out = rules(outcome);
                RAFLE_OK
            }
            None => RAFLE_NOT_CACHED,
        })
    })
}

/// The best move by distance to win (the quickest win, a drawing move, the longest loss;
/// among equals the first in `rafle moves` order) into `*out`, with the value it keeps.
/// `RAFLE_NO_MOVE` when the game is over (then `*out` holds no move, its value a loss in 0
/// if the side to move is blocked or has no piece, a win in 0 if the opponent has none).
///
/// # Safety
///
/// As `rafle_probe_wdl`; `out` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn rafle_best_move(
    tb: *const RafleTablebase,
    pos: *const RaflePosition,
    out: *mut RafleMove,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promises.
        let (tables, (pos, out)) = unsafe { (handle(tb)?, io(pos, out)?) };
        let Some((mv, value)) = tables.best_move(&pos)? else {
            let over = match pos.game_over() {
                Some(end) if end.side_to_move_wins() => Dtw::Win(0),
                _ => Dtw::Loss(0),
            };
            *out = RafleMove {
                wdl: wdl_code(over.wdl()),
                ..RafleMove::default()
            };
            return Ok(RAFLE_NO_MOVE);
        };
        let mut text = [0; 128];
        let written = pos.move_text(&mv, SquareStyle::Numeric);
        // The longest possible path (every landing square of a 20-piece capture) is far
        // shorter than the buffer; cut anyway rather than overrun.
        for (slot, byte) in text.iter_mut().zip(written.bytes().take(127)) {
            *slot = byte as c_char;
        }
        *out = RafleMove {
            from: c_int::from(mv.from().number()),
            to: c_int::from(mv.to().number()),
            captured: mv.captured().to_numbered_bits(),
            wdl: wdl_code(value.wdl()),
            plies: value.plies().map_or(-1, c_int::from),
            text,
        };
        Ok(RAFLE_OK)
    })
}
