/*
 * probe.c: an example C program using librafle.
 *
 * Build (from the repository root, after `cargo build --release -p rafle-capi`):
 *
 *     cc -std=c99 -Wall -I capi/include examples/probe.c -L target/release -lrafle \
 *        -Wl,-rpath,$PWD/target/release -o target/probe-example
 *
 * Run:
 *
 *     target/probe-example DIR --demo      a few positions given as square lists
 *     target/probe-example DIR < FILE      positions as bitboards, one per line
 *
 * DIR is a table directory written by `rafle generate`. Each input line is
 *
 *     VARIANT TURN WHITE_MEN WHITE_KINGS BLACK_MEN BLACK_KINGS [KING_PLIES CATEGORY_PLIES]
 *
 * with VARIANT `international` or `brazilian`, TURN `W` or `B`, four bitboards in hex (bit
 * n-1 for square n) and optionally the live draw-rule counters in plies. For each line it
 * prints one line of fields:
 *
 *     wdl=win dtw=3 best=25-30 rules=win/3 rule=64/10 result=win cached=win
 *
 * wdl: win/draw/loss for the side to move; dtw: plies to the end with best play (or draw);
 * best: the best move by distance (none when the game is over); rules: the rule class with
 * its count; rule: the rule in force and its limit; result: the result with the draw rules
 * and the counters given; cached: what the cache-only probe answers afterwards (miss if it
 * cannot). A probe that fails prints `!` and the status name instead of its value; a line
 * that is not a position prints `error=` with the status name and the library's message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rafle.h"

static const char *wdl_name(int wdl) {
    switch (wdl) {
    case RAFLE_WIN: return "win";
    case RAFLE_DRAW: return "draw";
    case RAFLE_LOSS: return "loss";
    default: return "?";
    }
}

static const char *class_name(int rule_class) {
    switch (rule_class) {
    case RAFLE_CLASS_WIN: return "win";
    case RAFLE_CLASS_CURSED_WIN: return "cursed_win";
    case RAFLE_CLASS_DRAW: return "draw";
    case RAFLE_CLASS_BLESSED_LOSS: return "blessed_loss";
    case RAFLE_CLASS_LOSS: return "loss";
    default: return "?";
    }
}

/* Probes one position and prints its line of fields. */
static void probe(const rafle_tablebase *tb, const rafle_position *pos,
                  const rafle_counters *counters) {
    int status = rafle_check_position(pos);
    if (status != RAFLE_OK) {
        printf("error=%s %s\n", rafle_status_name(status), rafle_last_error());
        return;
    }

    int wdl;
    status = rafle_probe_wdl(tb, pos, &wdl);
    if (status == RAFLE_OK) printf("wdl=%s", wdl_name(wdl));
    else printf("wdl=!%s", rafle_status_name(status));

    int plies;
    status = rafle_probe_dtw(tb, pos, &wdl, &plies);
    if (status != RAFLE_OK) printf(" dtw=!%s", rafle_status_name(status));
    else if (plies < 0) printf(" dtw=draw");
    else printf(" dtw=%d", plies);

    rafle_move best;
    status = rafle_best_move(tb, pos, &best);
    if (status == RAFLE_OK) printf(" best=%s", best.text);
    else if (status == RAFLE_NO_MOVE) printf(" best=none");
    else printf(" best=!%s", rafle_status_name(status));

    rafle_rules rules;
    status = rafle_probe_rules(tb, pos, counters, &rules);
    if (status == RAFLE_OK) {
        printf(" rules=%s", class_name(rules.rule_class));
        if (rules.count >= 0) printf("/%d", rules.count);
        printf(" rule=%d/%d result=%s", rules.rule, rules.limit, wdl_name(rules.result));
    } else {
        printf(" rules=!%s", rafle_status_name(status));
    }

    status = rafle_probe_wdl_cached(tb, pos, &wdl);
    if (status == RAFLE_OK) printf(" cached=%s\n", wdl_name(wdl));
    else if (status == RAFLE_NOT_CACHED) printf(" cached=miss\n");
    else printf(" cached=!%s\n", rafle_status_name(status));
}

/* Reads bitboard lines from standard input. Returns the process exit code. */
static int batch(const rafle_tablebase *tb) {
    char line[512];
    int bad = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        char variant[32], turn[4];
        unsigned long long wm, wk, bm, bk;
        unsigned king_plies = 0, category_plies = 0;
        int fields = sscanf(line, "%31s %3s %llx %llx %llx %llx %u %u", variant, turn, &wm, &wk,
                            &bm, &bk, &king_plies, &category_plies);
        if (fields == EOF) continue; /* a blank line */
        if (fields != 6 && fields != 8) {
            printf("error=input expected VARIANT TURN WM WK BM BK [KING_PLIES CATEGORY_PLIES]\n");
            bad = 1;
            continue;
        }
        rafle_position pos;
        pos.variant = strcmp(variant, "brazilian") == 0 ? RAFLE_BRAZILIAN
                      : strcmp(variant, "international") == 0 ? RAFLE_INTERNATIONAL
                      : -1;
        pos.turn = strcmp(turn, "W") == 0 ? RAFLE_WHITE : strcmp(turn, "B") == 0 ? RAFLE_BLACK : -1;
        pos.white_men = (uint64_t)wm;
        pos.white_kings = (uint64_t)wk;
        pos.black_men = (uint64_t)bm;
        pos.black_kings = (uint64_t)bk;
        rafle_counters counters = {king_plies, category_plies};
        probe(tb, &pos, &counters);
    }
    return bad;
}

/* Builds one side's bitboards from square lists, the way many engines keep their pieces. */
static int side(int variant, const int *men, size_t n_men, const int *kings, size_t n_kings,
                uint64_t *men_bits, uint64_t *king_bits) {
    int status = rafle_squares_to_bits(variant, men, n_men, men_bits);
    if (status == RAFLE_OK) status = rafle_squares_to_bits(variant, kings, n_kings, king_bits);
    return status;
}

/* A few positions written as square lists, probed with a readable account. */
static int demo(const rafle_tablebase *tb) {
    const char *variants[] = {"international", "brazilian"};
    for (int v = RAFLE_INTERNATIONAL; v <= RAFLE_BRAZILIAN; v++) {
        int count = rafle_materials(tb, v, RAFLE_TABLE_WDL, NULL, 0);
        printf("%s: %d materials, up to %d pieces\n", variants[v], count,
               rafle_max_pieces(tb, v, RAFLE_TABLE_WDL));
    }

    /* Brazilian, Black to move: black men on 22 and 25 against a white man on 29. */
    const int black_men[] = {22, 25}, white_men[] = {29};
    /* International, White to move: two white kings on 28 and 33 against a black king on 1. */
    const int white_kings[] = {28, 33}, black_kings[] = {1};

    rafle_position positions[2];
    memset(positions, 0, sizeof positions);
    positions[0].variant = RAFLE_BRAZILIAN;
    positions[0].turn = RAFLE_BLACK;
    positions[1].variant = RAFLE_INTERNATIONAL;
    positions[1].turn = RAFLE_WHITE;
    int status = side(RAFLE_BRAZILIAN, white_men, 1, NULL, 0, &positions[0].white_men,
                      &positions[0].white_kings);
    if (status == RAFLE_OK)
        status = side(RAFLE_BRAZILIAN, black_men, 2, NULL, 0, &positions[0].black_men,
                      &positions[0].black_kings);
    if (status == RAFLE_OK)
        status = side(RAFLE_INTERNATIONAL, NULL, 0, white_kings, 2, &positions[1].white_men,
                      &positions[1].white_kings);
    if (status == RAFLE_OK)
        status = side(RAFLE_INTERNATIONAL, NULL, 0, black_kings, 1, &positions[1].black_men,
                      &positions[1].black_kings);
    if (status != RAFLE_OK) {
        fprintf(stderr, "probe: %s\n", rafle_last_error());
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        const rafle_position *p = &positions[i];
        printf("%s, %s to move, white men %#" PRIx64 " kings %#" PRIx64
               ", black men %#" PRIx64 " kings %#" PRIx64 ":\n  ",
               variants[p->variant], p->turn == RAFLE_WHITE ? "White" : "Black", p->white_men,
               p->white_kings, p->black_men, p->black_kings);
        probe(tb, p, NULL);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--demo") != 0)) {
        fprintf(stderr, "usage: %s DIR [--demo] (rafle %s)\n", argv[0], rafle_version());
        return 2;
    }
    /* 64 MiB of decompressed blocks at most. */
    rafle_tablebase *tb = rafle_open(argv[1], (size_t)64 << 20);
    if (tb == NULL) {
        fprintf(stderr, "probe: %s\n", rafle_last_error());
        return 1;
    }
    int code = argc == 3 ? demo(tb) : batch(tb);
    rafle_close(tb);
    return code;
}
