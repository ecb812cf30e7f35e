//! Perft of the start positions and the special positions of `shared/reference/perft.md`.
//!
//! The normal suite goes as deep as a few seconds allow; the deeper references are `#[ignore]`
//! tests: `cargo test --release -p rafle-draughts --test perft -- --ignored`.

use rafle_draughts::{perft, Position, Variant};

fn check(variant: Variant, fen: &str, expected: &[u64]) {
    let pos = Position::from_fen(variant, fen).expect("reference FEN parses");
    for (depth, &nodes) in (1..).zip(expected) {
        assert_eq!(perft(&pos, depth), nodes, "{fen} perft({depth})");
    }
}

const INTERNATIONAL: [u64; 11] = [
    9, 81, 658, 4265, 27117, 167140, 1049442, 6483961, 41022423, 258895763, 1665861398,
];
const BRAZILIAN: [u64; 13] = [
    7, 49, 302, 1469, 7473, 37628, 187302, 907830, 4431766, 21560022, 105491257, 511882477,
    2481546396,
];
const RANDOM178: &str = "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46";
const RANDOM178_PERFT: [u64; 9] = [
    14, 55, 1168, 5432, 87195, 629010, 9041010, 86724219, 1216917193,
];
const WOLDOUBY: &str = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
const WOLDOUBY_PERFT: [u64; 15] = [
    6, 12, 30, 73, 215, 590, 1944, 6269, 22369, 88050, 377436, 1910989, 9872645, 58360286,
    346184885,
];
const ALL_KINGS: &str = "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20";
const ALL_KINGS_PERFT: [u64; 11] = [
    17, 79, 352, 1399, 7062, 37589, 217575, 1333217, 8558321, 58381162, 417920283,
];
const ALMOST_PROMOTION: &str = "W:W6,7,8,9,10:B41,42,43,44,45";
const ALMOST_PROMOTION_PERFT: [u64; 9] = [
    9, 81, 795, 7578, 86351, 936311, 11448262, 138362698, 1799526674,
];

#[test]
fn international_start_to_depth_7() {
    check(
        Variant::International,
        "W:W31-50:B1-20",
        &INTERNATIONAL[..7],
    );
}

#[test]
fn brazilian_start_to_depth_9() {
    check(Variant::Brazilian, "W:W21-32:B1-12", &BRAZILIAN[..9]);
}

#[test]
fn random178() {
    check(Variant::International, RANDOM178, &RANDOM178_PERFT[..6]);
}

#[test]
fn woldouby() {
    check(Variant::International, WOLDOUBY, &WOLDOUBY_PERFT[..11]);
}

#[test]
fn all_kings() {
    check(Variant::International, ALL_KINGS, &ALL_KINGS_PERFT[..7]);
}

#[test]
fn almost_promotion() {
    check(
        Variant::International,
        ALMOST_PROMOTION,
        &ALMOST_PROMOTION_PERFT[..6],
    );
}

#[test]
#[ignore = "deep: minutes in release mode"]
fn international_start_deep() {
    check(
        Variant::International,
        "W:W31-50:B1-20",
        &INTERNATIONAL[..10],
    );
}

#[test]
#[ignore = "deep: minutes in release mode"]
fn brazilian_start_deep() {
    check(Variant::Brazilian, "W:W21-32:B1-12", &BRAZILIAN[..12]);
}

#[test]
#[ignore = "deep: minutes in release mode"]
fn special_positions_deep() {
    check(Variant::International, RANDOM178, &RANDOM178_PERFT[..8]);
    check(Variant::International, WOLDOUBY, &WOLDOUBY_PERFT[..14]);
    check(Variant::International, ALL_KINGS, &ALL_KINGS_PERFT[..9]);
    check(
        Variant::International,
        ALMOST_PROMOTION,
        &ALMOST_PROMOTION_PERFT[..8],
    );
}
