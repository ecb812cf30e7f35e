//! Property-based fuzzing, on stable Rust, of every parser that reads what a user types: PDN
//! FEN, move text, the draw-rule limits (`--limits`) and the live counters (`--counters`).
//!
//! Each parser must never panic, whatever it is given (arbitrary strings, bytes read as text,
//! control characters, numbers too long for any integer); what it writes it must read back to
//! the same value; and a valid text mutated at random must either read as a valid value or fail
//! with a message that quotes no control character. The normal suite runs proptest's default
//! number of cases; a long run sets it from the environment:
//!
//! ```sh
//! PROPTEST_CASES=100000 cargo test --release -p rafle-draughts --test fuzz
//! ```
//!
//! Cases that once failed are kept as plain tests at the end of the file.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use rafle_draughts::{
    printable, Color, Counters, Limits, Move, Piece, Position, Role, Square, SquareStyle, Variant,
    MAX_COUNTER, MAX_LIMIT,
};

// ---------------------------------------------------------------------------------------------
// Inputs.

fn variant() -> impl Strategy<Value = Variant> {
    select(Variant::ALL.to_vec())
}

/// Any text a user or a pipe could hand over: arbitrary strings, arbitrary bytes read as the
/// probe reads a line, text over the parsers' own alphabet (to get past their first checks),
/// and numbers too long for any integer type.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        "[WBwbKkHF:,.\"x\\- 0-9a-j=\\x00\\x07\\x1b\\t\\r\\n\u{85}\u{202e}é]{0,48}",
        "[WB]:[WB][0-9]{1,40}(,[0-9]{1,40}){0,3}",
        "[0-9]{1,60}[-x,=][0-9]{1,60}",
    ]
}

/// A placement of pieces, kept only where `Position::put` accepts it: any position the FEN
/// parser could be asked to write, however unreachable in a game.
fn placed_position() -> impl Strategy<Value = Position> {
    (variant(), any::<bool>()).prop_flat_map(|(variant, black)| {
        let square = 1..=variant.square_count();
        vec((square, any::<bool>(), any::<bool>()), 0..24).prop_map(move |pieces| {
            let turn = if black { Color::Black } else { Color::White };
            let mut pos = Position::empty(variant, turn);
            for (number, white, king) in pieces {
                let piece = Piece {
                    color: if white { Color::White } else { Color::Black },
                    role: if king { Role::King } else { Role::Man },
                };
                let square = Square::new(variant, number).expect("in range");
                let _ = pos.put(square, piece);
            }
            pos
        })
    })
}

/// A position of a game: random legal moves from the start.
fn played_position() -> impl Strategy<Value = Position> {
    (variant(), vec(any::<prop::sample::Index>(), 0..90)).prop_map(|(variant, choices)| {
        let mut pos = Position::start(variant);
        for choice in choices {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play(&moves[choice.index(moves.len())]);
        }
        pos
    })
}

fn any_position() -> impl Strategy<Value = Position> {
    prop_oneof![placed_position(), played_position()]
}

/// A random edit of a text: a character deleted, inserted, replaced or doubled, or the text
/// cut short.
#[derive(Debug, Clone)]
enum Edit {
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, char),
    Replace(prop::sample::Index, char),
    Double(prop::sample::Index),
    Cut(prop::sample::Index),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let index = any::<prop::sample::Index>;
    let character = || {
        prop_oneof![
            select(
                " :,.-xX=WBKkHF\"0123456789abcjz\u{0}\u{1b}"
                    .chars()
                    .collect::<Vec<_>>()
            ),
            any::<char>(),
        ]
    };
    let edit = prop_oneof![
        index().prop_map(Edit::Delete),
        (index(), character()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (index(), character()).prop_map(|(i, c)| Edit::Replace(i, c)),
        index().prop_map(Edit::Double),
        index().prop_map(Edit::Cut),
    ];
    vec(edit, 1..4)
}

fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let at = |i: &prop::sample::Index, len: usize| i.index(len.max(1)).min(len);
        match edit {
            Edit::Delete(i) if !chars.is_empty() => {
                let i = at(i, chars.len()).min(chars.len() - 1);
                chars.remove(i);
            }
            Edit::Insert(i, c) => chars.insert(at(i, chars.len() + 1), *c),
            Edit::Replace(i, c) if !chars.is_empty() => {
                let i = at(i, chars.len()).min(chars.len() - 1);
                chars[i] = *c;
            }
            Edit::Double(i) if !chars.is_empty() => {
                let i = at(i, chars.len()).min(chars.len() - 1);
                chars.insert(i, chars[i]);
            }
            Edit::Cut(i) => chars.truncate(at(i, chars.len())),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// What every answer must satisfy.

/// An error message: something said, on one line, with no control character from the input.
fn assert_clean_message(message: &str) {
    assert!(!message.is_empty());
    assert!(
        !message.chars().any(char::is_control),
        "control character in {message:?}"
    );
}

/// A position that the parser accepted is a position of the game: it reads back from what it
/// writes, in both styles, no man stands on its promotion row, and its moves can be listed,
/// played and written.
fn assert_valid(pos: &Position) {
    let v = pos.variant();
    for style in [SquareStyle::Numeric, SquareStyle::Algebraic] {
        let fen = pos.to_fen_with(style);
        assert_eq!(Position::from_fen(v, &fen).as_ref(), Ok(pos), "{fen}");
    }
    let last_row = v.board_size() - 1;
    for sq in pos.pieces(Color::White, Role::Man) {
        assert_ne!(sq.row(v), 0, "white man on {sq} in {}", pos.to_fen());
    }
    for sq in pos.pieces(Color::Black, Role::Man) {
        assert_ne!(sq.row(v), last_row, "black man on {sq} in {}", pos.to_fen());
    }
    assert!(pos.piece_count() <= u32::from(v.square_count()));
    let legal = pos.legal_moves();
    for mv in &legal {
        let _ = pos.play(mv);
        let text = pos.move_text_among(mv, &legal, SquareStyle::Numeric);
        assert_eq!(pos.parse_move(&text), Ok(*mv), "{text} in {}", pos.to_fen());
    }
}

/// What `text` is as a plain number, if it is one: `None` past `u64` (leading zeros allowed).
fn number_value(text: &str) -> Option<u64> {
    let digits = text.trim_start_matches('0');
    if digits.len() > 19 {
        return None;
    }
    Some(digits.parse().unwrap_or(0))
}

// ---------------------------------------------------------------------------------------------
// FEN.

proptest! {
    #[test]
    fn fen_parser_never_panics(variant in variant(), text in any_text()) {
        match Position::from_fen(variant, &text) {
            Ok(pos) => assert_valid(&pos),
            Err(e) => {
                prop_assert!(e.column >= 1 && e.column <= text.chars().count() + 1, "{e}");
                assert_clean_message(&e.to_string());
            }
        }
    }

    #[test]
    fn positions_round_trip_through_fen(pos in any_position()) {
        for style in [SquareStyle::Numeric, SquareStyle::Algebraic] {
            let fen = pos.to_fen_with(style);
            prop_assert_eq!(Position::from_fen(pos.variant(), &fen), Ok(pos), "{}", fen);
        }
    }

    #[test]
    fn mutated_fens_read_as_valid_positions_or_fail(pos in any_position(), edits in edits()) {
        let text = mutate(&pos.to_fen(), &edits);
        match Position::from_fen(pos.variant(), &text) {
            Ok(pos) => assert_valid(&pos),
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }

    #[test]
    fn long_square_numbers_are_quoted_as_written(digits in "[0-9]{1,60}") {
        let v = Variant::International;
        let fen = format!("W:W31:B{digits}");
        let value = number_value(&digits);
        match Position::from_fen(v, &fen) {
            Ok(pos) => {
                let n = value.expect("a square is a small number");
                prop_assert!((1..=45).contains(&n) && n != 31, "{} read as {}", fen, pos.to_fen());
            }
            Err(e) => {
                let message = e.to_string();
                if !value.is_some_and(|n| (1..=50).contains(&n)) {
                    let expected = format!("square {digits} is out of range (1..50)");
                    prop_assert!(message.ends_with(&expected), "{}", message);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Move text.

proptest! {
    #[test]
    fn move_parser_never_panics(pos in any_position(), text in any_text()) {
        match pos.parse_move(&text) {
            Ok(mv) => prop_assert!(pos.legal_moves().contains(&mv)),
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }

    #[test]
    fn legal_moves_round_trip_through_notation(pos in played_position()) {
        let legal = pos.legal_moves();
        for mv in &legal {
            for style in [SquareStyle::Numeric, SquareStyle::Algebraic] {
                let text = pos.move_text_among(mv, &legal, style);
                prop_assert_eq!(pos.parse_move(&text), Ok(*mv), "{}", text);
            }
            let path: Vec<String> = pos.move_path(mv).iter().map(Square::to_string).collect();
            let separator = if mv.is_capture() { "x" } else { "-" };
            let full = path.join(separator);
            prop_assert_eq!(pos.parse_move(&full), Ok(*mv), "{}", full);
        }
    }

    #[test]
    fn mutated_move_texts_name_a_legal_move_or_fail(
        pos in played_position(),
        choice in any::<prop::sample::Index>(),
        edits in edits(),
    ) {
        let legal = pos.legal_moves();
        // Not an assumption: games that end early are too frequent to be rejected.
        if legal.is_empty() {
            return Ok(());
        }
        let mv: Move = legal[choice.index(legal.len())];
        let text = mutate(&pos.move_text_among(&mv, &legal, SquareStyle::Numeric), &edits);
        match pos.parse_move(&text) {
            Ok(found) => prop_assert!(legal.contains(&found)),
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Draw-rule limits and counters.

fn limits() -> impl Strategy<Value = Limits> {
    (1..=MAX_LIMIT, 1..=MAX_LIMIT, 1..=MAX_LIMIT).prop_map(|(a, b, c)| Limits {
        rule_6_2: a,
        rule_6_3: b,
        rule_6_4: c,
    })
}

fn assert_limits_in_range(limits: Limits) {
    for plies in [limits.rule_6_2, limits.rule_6_3, limits.rule_6_4] {
        assert!((1..=MAX_LIMIT).contains(&plies), "{limits}");
    }
}

proptest! {
    #[test]
    fn limits_parser_never_panics(variant in variant(), text in any_text()) {
        match Limits::parse(variant, &text) {
            Ok(limits) => assert_limits_in_range(limits),
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }

    #[test]
    fn limits_round_trip(variant in variant(), limits in limits()) {
        prop_assert_eq!(Limits::parse(variant, &limits.to_string()), Ok(limits));
    }

    #[test]
    fn rules_left_out_keep_their_default(
        variant in variant(),
        limits in limits(),
        rules in Just(vec![0usize, 1, 2]).prop_shuffle(),
        kept in 1..=3usize,
        space in "[ \\t]{0,2}",
    ) {
        let values = [limits.rule_6_2, limits.rule_6_3, limits.rule_6_4];
        let items: Vec<String> = rules[..kept]
            .iter()
            .map(|&r| format!("{space}6.{}{space}={space}{}{space}", r + 2, values[r]))
            .collect();
        let parsed = Limits::parse(variant, &items.join(",")).expect("a valid list");
        let fmjd = Limits::fmjd(variant);
        let defaults = [fmjd.rule_6_2, fmjd.rule_6_3, fmjd.rule_6_4];
        let got = [parsed.rule_6_2, parsed.rule_6_3, parsed.rule_6_4];
        for rule in 0..3 {
            let given = rules[..kept].contains(&rule);
            prop_assert_eq!(got[rule], if given { values[rule] } else { defaults[rule] });
        }
        // The same list with one rule given again is refused, whatever the value.
        let again = format!("{},6.{}={}", items.join(","), rules[0] + 2, values[rules[0]]);
        let err = Limits::parse(variant, &again).unwrap_err().to_string();
        prop_assert!(err.contains("is given twice"), "{}", err);
    }

    #[test]
    fn mutated_limits_read_as_valid_limits_or_fail(
        variant in variant(),
        limits in limits(),
        edits in edits(),
    ) {
        let text = mutate(&limits.to_string(), &edits);
        match Limits::parse(variant, &text) {
            Ok(limits) => {
                assert_limits_in_range(limits);
                prop_assert_eq!(Limits::parse(variant, &limits.to_string()), Ok(limits));
            }
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }

    #[test]
    fn counters_parser_never_panics(text in any_text()) {
        match text.parse::<Counters>() {
            Ok(c) => prop_assert!(c.king_plies <= MAX_COUNTER && c.category_plies <= MAX_COUNTER),
            Err(e) => assert_clean_message(&e.to_string()),
        }
    }

    #[test]
    fn counters_round_trip(king_plies in 0..=MAX_COUNTER, category_plies in 0..=MAX_COUNTER) {
        let counters = Counters { king_plies, category_plies };
        prop_assert_eq!(format!("{king_plies},{category_plies}").parse(), Ok(counters));
        prop_assert_eq!(format!(" {king_plies} , {category_plies} ").parse(), Ok(counters));
    }

    #[test]
    fn counters_out_of_range_name_the_range(k in "[0-9]{1,40}", c in "[0-9]{1,40}") {
        let fits = |digits: &str| number_value(digits).is_some_and(|n| n <= u64::from(MAX_COUNTER));
        match format!("{k},{c}").parse::<Counters>() {
            Ok(counters) => {
                prop_assert!(fits(&k) && fits(&c));
                prop_assert_eq!(Some(u64::from(counters.king_plies)), number_value(&k));
                prop_assert_eq!(Some(u64::from(counters.category_plies)), number_value(&c));
            }
            Err(e) => {
                prop_assert!(!(fits(&k) && fits(&c)));
                let expected = format!("must be from 0 to {MAX_COUNTER} plies");
                prop_assert!(e.to_string().contains(&expected), "{}", e);
            }
        }
    }

    #[test]
    fn printable_hides_every_control_character(text in any_text()) {
        let shown = printable(&text);
        prop_assert!(!shown.chars().any(char::is_control), "{:?}", shown);
        prop_assert_eq!(printable(&shown), shown.clone(), "escaping twice changes nothing");
        if !text.chars().any(|c| c.is_control() || c.escape_debug().count() > 1) {
            prop_assert_eq!(shown, text);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The minimal cases the properties above found against the parsers before issue 11's fixes.

fn fen_error(text: &str) -> String {
    Position::from_fen(Variant::International, text)
        .unwrap_err()
        .to_string()
}

#[test]
fn found_a_nul_echoed_raw_in_a_fen_error() {
    assert_eq!(
        fen_error("\0"),
        "invalid FEN at column 1: found '\\0' where the side to move, W or B was expected"
    );
}

#[test]
fn found_control_characters_echoed_raw_in_move_errors() {
    let pos = Position::from_fen(Variant::International, "W:W:B").unwrap();
    assert_eq!(
        pos.parse_move("\u{e}\0\0").unwrap_err().to_string(),
        "cannot read move '\\u{e}\\0\\0' (expected squares joined by '-' or 'x', like 32-28 or \
         28x19)"
    );
    let start = Position::start(Variant::International);
    assert_eq!(
        start.parse_move("\u{0}31-27").unwrap_err().to_string(),
        "unknown square '\\031' (expected a number or an algebraic name like c3)"
    );
}

#[test]
fn found_square_numbers_not_quoted_as_written() {
    // Saturated to 4294967295 past u32, and "00" shown as 0.
    assert_eq!(
        fen_error("W:W31:B4300000000"),
        "invalid FEN at column 8: square 4300000000 is out of range (1..50)"
    );
    assert_eq!(
        fen_error("W:W31:B00"),
        "invalid FEN at column 8: square 00 is out of range (1..50)"
    );
}

#[test]
fn found_a_rule_given_twice_accepted() {
    let err = Limits::parse(Variant::International, "6.2=1,6.2=1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad limits \"6.2=1,6.2=1\": rule 6.2 is given twice, at items 1 and 2"
    );
}

#[test]
fn found_a_counter_past_the_range_accepted() {
    let err = "0,10001".parse::<Counters>().unwrap_err();
    assert!(
        err.to_string().ends_with(
            "category_plies (C, rules 6.3/6.4) must be from 0 to 10000 plies, not 10001"
        ),
        "{err}"
    );
}
