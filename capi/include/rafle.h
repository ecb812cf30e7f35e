/*
 * rafle.h: the C interface of rafle, endgame tablebases for international (10x10) and
 * Brazilian (8x8) draughts under the FMJD rules.
 *
 * Link with librafle (built by `cargo build --release -p rafle-capi`, found in
 * target/release/: librafle.so on Linux, librafle.dylib on macOS, rafle.dll on Windows):
 *
 *     cc -std=c99 -I capi/include my_engine.c -L target/release -lrafle \
 *        -Wl,-rpath,$PWD/target/release -o my_engine
 *
 * Conventions
 * -----------
 * - Squares are numbered as in the rules (docs/rules.md section 1): 1..50 international, 1..32
 *   Brazilian, left to right and top to bottom as White sees the board; White's men move
 *   towards squares 1..5 (1..4), where they are crowned.
 * - A position is four bitboards, bit n-1 standing for square n (see rafle_position), with the
 *   variant and the side to move. rafle_squares_to_bits builds a bitboard from a square list;
 *   rafle_position_from_fen reads a PDN FEN; rafle_probe_fen probes a FEN that may be a
 *   capture under way (lidraughts' ghost pieces).
 * - Every function returning int returns a status: RAFLE_OK (0), a positive status that is an
 *   answer rather than an error (RAFLE_NOT_CACHED, RAFLE_NO_MOVE), or a negative error code
 *   (RAFLE_ERR_*). Results are written through pointer arguments, which must not be null;
 *   outputs are left untouched on error. After an error, rafle_last_error() gives its text
 *   (the file, the square, the material), kept until the next failing call on that thread.
 * - Values are for the side to move. Win/draw/loss and distances ignore the draw rules 6.2 to
 *   6.4 (repetition is a draw); rafle_probe_rules enforces them with the game's counters.
 * - A rafle_tablebase may be used by any number of threads at once (one handle per process
 *   is enough: its cache is shared). Only rafle_close must not overlap other calls on the
 *   same handle. Probes whose blocks are in the cache allocate no memory and take no lock
 *   other than one short, per-shard cache lock.
 * - Decompressed table blocks are kept in a cache whose size is set at rafle_open and never
 *   exceeded (rafle_cache_bytes). The table files themselves are memory-mapped: the
 *   operating system's page cache holds them apart from that budget.
 * - Positions whose side to move must capture are answered through their captures, so a
 *   probe may read a few tables of fewer pieces.
 */
#ifndef RAFLE_H
#define RAFLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ---------------------------------------------------------------------- */

#define RAFLE_OK 0                  /* success */
#define RAFLE_NOT_CACHED 1          /* a cache-only probe needs a block not in the cache */
#define RAFLE_NO_MOVE 2             /* the game is over: no legal move, or no opponent piece */
#define RAFLE_ERR_NULL (-1)         /* a pointer argument was null */
#define RAFLE_ERR_ARGUMENT (-2)     /* unknown variant, side or table kind; bad square number */
#define RAFLE_ERR_POSITION (-3)     /* overlapping bitboards, square past the board, a man on
                                       its promotion row, or a FEN that does not read */
#define RAFLE_ERR_TOO_MANY_PIECES (-4) /* more pieces than the variant's tables cover */
#define RAFLE_ERR_MISSING_TABLE (-5)   /* the table of a material needed is not there */
#define RAFLE_ERR_BAD_TABLE (-6)    /* a table file is damaged, truncated, or another table */
#define RAFLE_ERR_MIXED_LIMITS (-7) /* the rule tables were made with different limits */
#define RAFLE_ERR_IO (-8)           /* the system refused to read a file or directory */
#define RAFLE_ERR_INTERNAL (-9)     /* a bug in rafle; nothing was done */

/* ---- Enumerations ---------------------------------------------------------------------- */

#define RAFLE_INTERNATIONAL 0 /* 10x10, squares 1..50 */
#define RAFLE_BRAZILIAN 1     /* 8x8, squares 1..32 */

#define RAFLE_WHITE 0
#define RAFLE_BLACK 1

/* Win/draw/loss for the side to move: the value seen by the opponent is its negation. */
#define RAFLE_LOSS (-1)
#define RAFLE_DRAW 0
#define RAFLE_WIN 1

/* Rule classes (results with the draw rules enforced and fresh counters). */
#define RAFLE_CLASS_LOSS (-2)         /* lost under the rules */
#define RAFLE_CLASS_BLESSED_LOSS (-1) /* lost without the rules, saved by them */
#define RAFLE_CLASS_DRAW 0            /* drawn even without the rules */
#define RAFLE_CLASS_CURSED_WIN 1      /* won without the rules, drawn by them */
#define RAFLE_CLASS_WIN 2             /* won under the rules */

/* Table kinds, for the availability functions. */
#define RAFLE_TABLE_WDL 0   /* <material>.wdl: win/draw/loss */
#define RAFLE_TABLE_DTW 1   /* <material>.dtw: distance to win */
#define RAFLE_TABLE_RULES 2 /* <material>.rules: rule classes and counts */

/* ---- Types ----------------------------------------------------------------------------- */

/* An open table directory (opaque). */
typedef struct rafle_tablebase rafle_tablebase;

/* A position: bit n-1 of a bitboard is square n. A square may be in one set at most, and a
 * man may not stand on its own promotion row (White: 1..5 / 1..4; Black: 46..50 / 29..32). */
typedef struct rafle_position {
    int variant;          /* RAFLE_INTERNATIONAL or RAFLE_BRAZILIAN */
    int turn;             /* RAFLE_WHITE or RAFLE_BLACK: the side to move */
    uint64_t white_men;
    uint64_t white_kings;
    uint64_t black_men;
    uint64_t black_kings;
} rafle_position;

/* A material: pieces by colour and role. */
typedef struct rafle_material {
    uint8_t white_men;
    uint8_t white_kings;
    uint8_t black_men;
    uint8_t black_kings;
} rafle_material;

/* The live draw-rule counters of the game, in plies (one move of one player), each from 0 to
 * 10000: past it a rule-aware probe returns RAFLE_ERR_ARGUMENT, as every entry point refuses
 * it. */
typedef struct rafle_counters {
    uint32_t king_plies;     /* 6.2: plies in a row with only king moves and no capture */
    uint32_t category_plies; /* 6.3/6.4: plies since the position entered its category */
} rafle_counters;

/* The answer of a rule-aware probe. */
typedef struct rafle_rules {
    int result;     /* RAFLE_WIN, RAFLE_DRAW or RAFLE_LOSS with the rules and counters given */
    int rule_class; /* RAFLE_CLASS_*, with fresh counters */
    int count;      /* for RAFLE_CLASS_WIN/_LOSS: plies to the next counter reset that keeps
                       the result (the winner hurrying, the loser holding out); else -1 */
    int rule;       /* the rule whose counter is live: 62, 63 or 64 (articles 6.2-6.4) */
    int limit;      /* that rule's limit in plies */
} rafle_rules;

/* The draw-rule limits, in plies, a directory's rule tables were computed with. */
typedef struct rafle_limits {
    int rule_6_2;
    int rule_6_3;
    int rule_6_4;
} rafle_limits;

/* A move with the value it keeps for the side playing it. */
typedef struct rafle_move {
    int from;          /* start square */
    int to;            /* end square (the start square for a circular capture) */
    uint64_t captured; /* captured pieces, bit n-1 for square n */
    int wdl;           /* RAFLE_WIN, RAFLE_DRAW or RAFLE_LOSS: the position's value */
    int plies;         /* distance to the end of the game in plies, -1 for a draw */
    char text[128];    /* PDN text, NUL-terminated: "32-28", "28x19", or the full path
                          "47x38x24x13x36" when two legal moves share start and end */
} rafle_move;

/* ---- Library and errors ---------------------------------------------------------------- */

/* The library version, e.g. "0.1.0". Static. */
const char *rafle_version(void);

/* The text of the last failure on the calling thread ("" if none yet). Never null; valid
 * until the next failing call on the same thread. */
const char *rafle_last_error(void);

/* The name of a status code ("RAFLE_ERR_IO"), or "unknown". Static, never null. */
const char *rafle_status_name(int status);

/* ---- Opening and availability ---------------------------------------------------------- */

/* Opens a table directory (holding <dir>/international/ and/or <dir>/brazilian/, as
 * `rafle generate` writes them) with a decompressed-block cache of at most cache_bytes bytes
 * (0: the default, 256 MiB). Tables are checked when first used. Returns null on failure
 * (RAFLE_ERR_IO if dir is not a readable directory; see rafle_last_error). */
rafle_tablebase *rafle_open(const char *dir, size_t cache_bytes);

/* Closes a handle and frees its memory. Null is ignored. No call may use the handle during
 * or after this. */
void rafle_close(rafle_tablebase *tb);

/* Most pieces of any table of kind (RAFLE_TABLE_*) of the variant; 0 if there is none;
 * negative on error. */
int rafle_max_pieces(const rafle_tablebase *tb, int variant, int kind);

/* 1 if there is a table of kind for the material (either orientation), 0 if not; negative
 * on error. */
int rafle_has_table(const rafle_tablebase *tb, int variant, int kind,
                    const rafle_material *material);

/* The materials with a table of kind, fewer pieces first, White the stronger side. Writes up
 * to capacity of them to out (which may be null if capacity is 0) and returns their total
 * number (call with capacity 0 to size the array); negative on error. */
int rafle_materials(const rafle_tablebase *tb, int variant, int kind, rafle_material *out,
                    size_t capacity);

/* The draw-rule limits of the variant's rule tables; RAFLE_ERR_MISSING_TABLE if there is
 * none, RAFLE_ERR_MIXED_LIMITS if they disagree. */
int rafle_rule_limits(const rafle_tablebase *tb, int variant, rafle_limits *out);

/* Bytes of decompressed blocks (with their bookkeeping) the cache holds now: never more than
 * the budget given to rafle_open. 0 for a null handle. */
size_t rafle_cache_bytes(const rafle_tablebase *tb);

/* ---- Positions ------------------------------------------------------------------------- */

/* Sets *bits to the bitboard of count square numbers (squares may be null if count is 0).
 * RAFLE_ERR_ARGUMENT for a square off the board. */
int rafle_squares_to_bits(int variant, const int *squares, size_t count, uint64_t *bits);

/* Reads a PDN FEN ("W:W31-50:B1-20", "B:WK4:B18,K29"; Brazilian squares may also be
 * algebraic, "c3") into *out. RAFLE_ERR_POSITION with the column at fault otherwise. */
int rafle_position_from_fen(int variant, const char *fen, rafle_position *out);

/* RAFLE_OK if *pos is a position; otherwise why not (RAFLE_ERR_ARGUMENT for an unknown
 * variant or side, RAFLE_ERR_POSITION for the bitboards, with the square in the text). */
int rafle_check_position(const rafle_position *pos);

/* ---- Probes ---------------------------------------------------------------------------- */

/* Win, draw or loss for the side to move (RAFLE_WIN, RAFLE_DRAW, RAFLE_LOSS) into *wdl. */
int rafle_probe_wdl(const rafle_tablebase *tb, const rafle_position *pos, int *wdl);

/* As rafle_probe_wdl, but only from blocks already in the cache, reading no file and
 * allocating nothing: RAFLE_NOT_CACHED (with *wdl untouched) if a block is missing or there
 * is no table for the position. For the inner nodes of a search, with rafle_probe_wdl nearer
 * the root to fill the cache. */
int rafle_probe_wdl_cached(const rafle_tablebase *tb, const rafle_position *pos, int *wdl);

/* Win, draw or loss into *wdl and the distance to the end of the game with best play (the
 * winner hurrying, the loser holding out) in plies into *plies; -1 for a draw. A side to move
 * without a move has lost in 0 plies. */
int rafle_probe_dtw(const rafle_tablebase *tb, const rafle_position *pos, int *wdl,
                    int *plies);

/* The result with the draw rules 6.2-6.4 enforced and the game's live counters (null:
 * fresh counters, as right after a man move or a capture), with the rule class and count.
 * The side to move wins iff the class is RAFLE_CLASS_WIN and count <= limit - used, where
 * used is the live counter of the rule in force; likewise for a loss; otherwise a draw. */
int rafle_probe_rules(const rafle_tablebase *tb, const rafle_position *pos,
                      const rafle_counters *counters, rafle_rules *out);

/* As rafle_probe_rules, but only from blocks already in the cache: RAFLE_NOT_CACHED (with
 * *out untouched) otherwise. */
int rafle_probe_rules_cached(const rafle_tablebase *tb, const rafle_position *pos,
                             const rafle_counters *counters, rafle_rules *out);

/* The best move by distance to win into *out: the quickest win, a move keeping the draw, or
 * the longest loss; among equal moves the first in `rafle moves` order. out->wdl and
 * out->plies are the position's own value (as rafle_probe_dtw gives it). RAFLE_NO_MOVE when
 * the game is over (out->wdl is then RAFLE_LOSS, or RAFLE_WIN if the opponent has no piece;
 * out->text is ""). */
int rafle_best_move(const rafle_tablebase *tb, const rafle_position *pos, rafle_move *out);

/* Probes the position a FEN holds, which may be a capture under way: lidraughts sends, between
 * the jumps of a capture, a FEN with the pieces already taken still on the board as ghosts
 * ("W:WK20:B16,2,P27": G before a square a man, P a king), the capturing side to move. A
 * rafle_position cannot hold that (rafle_position_from_fen refuses ghosts). Writes win/draw/
 * loss into *wdl, the distance to the end of the game in plies into *plies (-1 for a draw),
 * and, if rules is not null, the rule-aware answer with the live counters (null: fresh;
 * past 10000 plies RAFLE_ERR_ARGUMENT, as in rafle_probe_rules) into *rules; with rules null
 * no rule table is needed. A position between moves gets the
 * values of rafle_probe_dtw and rafle_probe_rules; a capture under way those of its best
 * completion, which are the whole move's from the position before the capture (the rule in
 * force is that of the material the move began in, ghosts counted). RAFLE_ERR_POSITION if
 * the FEN does not read or its capturing piece cannot be told, with the text `rafle probe`
 * gives for it (a FEN without ghosts reads as in rafle_position_from_fen). */
int rafle_probe_fen(const rafle_tablebase *tb, int variant, const char *fen,
                    const rafle_counters *counters, int *wdl, int *plies, rafle_rules *rules);

#ifdef __cplusplus
}
#endif

#endif /* RAFLE_H */
