//! A plain-text picture of a position.

use crate::{Color, Position, Role, Square, SquareStyle};

impl Position {
    /// A text diagram: White at the bottom, each empty dark square showing its number, pieces as
    /// `w`/`W` (white man/king) and `b`/`B` (black man/king), files and ranks around the edge,
    /// the square numbers of each row on the right, and the side to move.
    pub fn diagram(&self) -> String {
        let v = self.variant;
        let size = v.board_size();
        let per_row = v.squares_per_row();
        let mut out = String::new();
        let border = format!("   +{}+\n", "-".repeat(usize::from(size) * 4 + 1));
        out.push_str(&border);
        for row in 0..size {
            out.push_str(&format!("{:>2} | ", size - row));
            for column in 0..size {
                let cell = match Square::from_coordinates(v, column, row) {
                    None => "  ".to_string(),
                    Some(sq) => match self.piece_at(sq) {
                        None => format!("{:>2}", sq.number()),
                        Some(p) => {
                            let c = match (p.color, p.role) {
                                (Color::White, Role::Man) => 'w',
                                (Color::White, Role::King) => 'W',
                                (Color::Black, Role::Man) => 'b',
                                (Color::Black, Role::King) => 'B',
                            };
                            format!(" {c}")
                        }
                    },
                };
                out.push_str(&cell);
                out.push_str(if column + 1 < size { "  " } else { " " });
            }
            let first = row * per_row + 1;
            out.push_str(&format!(
                "| {:>5}\n",
                format!("{first}-{}", first + per_row - 1)
            ));
        }
        out.push_str(&border);
        out.push_str("    ");
        for column in 0..size {
            out.push_str(&format!("  {} ", char::from(b'a' + column)));
        }
        out.push('\n');
        let side = match self.turn {
            Color::White => "White",
            Color::Black => "Black",
        };
        out.push_str(&format!(
            "{} draughts, {side} to move\nFEN {}\n",
            capitalised(v.name()),
            self.to_fen_with(SquareStyle::Numeric)
        ));
        out
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::{Position, Variant};

    #[test]
    fn brazilian_start_diagram() {
        let d = Position::start(Variant::Brazilian).diagram();
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[1], " 8 |      b       b       b       b |   1-4");
        assert_eq!(lines[4], " 5 | 13      14      15      16     | 13-16");
        assert!(d.contains("Brazilian draughts, White to move"));
    }
}
