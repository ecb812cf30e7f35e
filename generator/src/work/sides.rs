//! Which sides to move of a finished material's values a run still keeps: a position of
//! material `d` reached by a capture or a promotion has the side that did not move to move,
//! so a material read by a few later ones often needs one side only once some of them are
//! done. The index puts White to move in its first half and Black to move in its second, a
//! band file's chunks and a packed file's blocks hold one side each (but the block across the
//! middle), so a side no longer read is let go by copying the other's compressed bytes.

use rafle_probe::draughts::Material;

/// A set of sides to move: the halves of a material's positions (White to move first in the
/// index, Black to move second).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Sides {
    /// White to move: the first half of the index.
    pub(crate) white: bool,
    /// Black to move: the second half.
    pub(crate) black: bool,
}

impl Sides {
    /// Both sides.
    pub(crate) const BOTH: Sides = Sides {
        white: true,
        black: true,
    };
    /// White to move alone.
    pub(crate) const WHITE: Sides = Sides {
        white: true,
        black: false,
    };
    /// Black to move alone.
    pub(crate) const BLACK: Sides = Sides {
        white: false,
        black: true,
    };
    /// Neither.
    pub(crate) const NONE: Sides = Sides {
        white: false,
        black: false,
    };

    /// Whether it holds no side.
    pub(crate) fn is_empty(self) -> bool {
        !self.white && !self.black
    }

    /// The sides of either.
    #[must_use]
    pub(crate) fn or(self, other: Sides) -> Sides {
        Sides {
            white: self.white || other.white,
            black: self.black || other.black,
        }
    }

    /// Whether every side of `other` is in it.
    pub(crate) fn contains(self, other: Sides) -> bool {
        (self.white || !other.white) && (self.black || !other.black)
    }

    /// Whether the positions `start..end` of a material of `positions` (both sides to move)
    /// hold a position of one of its sides.
    pub(crate) fn meets(self, start: u64, end: u64, positions: u64) -> bool {
        let middle = positions / 2;
        (self.white && start < middle) || (self.black && end > middle)
    }

    /// How a file that holds these sides alone says so after its request's identity: nothing
    /// for both.
    pub(crate) fn suffix(self) -> &'static str {
        match (self.white, self.black) {
            (true, false) => " white to move",
            (false, true) => " black to move",
            _ => "",
        }
    }

    /// The sides of the positions of `dep` that a move of a position of `reader` reaches
    /// (both for a symmetric `dep`, whose positions are read through either side).
    pub(crate) fn read_by(reader: Material, dep: Material) -> Sides {
        if dep.is_symmetric() {
            return if reaches(reader, dep) || reaches(reader, dep.mirrored()) {
                Sides::BOTH
            } else {
                Sides::NONE
            };
        }
        // After a move of White (of either orientation of the reader), Black is to move: in
        // `dep` as stored if the move reaches it, White in `dep` as stored if it reaches its
        // mirror image.
        Sides {
            white: reaches(reader, dep.mirrored()),
            black: reaches(reader, dep),
        }
    }
}

/// Whether a move of White in either orientation of `m` can reach material `d` (in the same
/// orientation): a capture removes pieces of the side not moving, and a man that captures or
/// moves onto its promotion row is crowned.
pub(crate) fn reaches(m: Material, d: Material) -> bool {
    [m, m.mirrored()].into_iter().any(|m| {
        let crowned = d.white_men + 1 == m.white_men && d.white_kings == m.white_kings + 1;
        let kept = d.white_men == m.white_men && d.white_kings == m.white_kings;
        let captured = d.black_men <= m.black_men
            && d.black_kings <= m.black_kings
            && d.black_men + d.black_kings < m.black_men + m.black_kings;
        let untouched = d.black_men == m.black_men && d.black_kings == m.black_kings;
        (crowned && (captured || untouched)) || (kept && captured)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(reader: &str, dep: &str) -> Sides {
        Sides::read_by(reader.parse().unwrap(), dep.parse().unwrap())
    }

    #[test]
    fn a_capture_or_a_promotion_reaches_the_side_that_did_not_move() {
        // KKMvKM: Black takes White's man (KKvKM, White to move), or Black's man takes a king
        // and is crowned (KMvKK, White to move, stored as KKvKM with Black to move).
        assert_eq!(read("KKMvKM", "KKvKM"), Sides::BOTH);
        // White takes Black's man (KKMvK, Black to move); Black cannot reach it.
        assert_eq!(read("KKMvKM", "KKMvK"), Sides::BLACK);
        // Black takes a king of White (KMvKM, symmetric: both), White promotes (KKKvKM:
        // Black to move), Black promotes (KKMvKK: White to move).
        assert_eq!(read("KKMvKM", "KMvKM"), Sides::BOTH);
        assert_eq!(read("KKMvKM", "KKKvKM"), Sides::BLACK);
        assert!(read("KKMvKM", "KKMvKK").white);
        // KKvK from KKKvK: White cannot lose a king moving; Black takes one.
        assert_eq!(read("KKKvK", "KKvK"), Sides::WHITE);
        assert_eq!(read("KKKvK", "KMvK"), Sides::NONE);
        // As docs/format.md says.
        assert_eq!(read("KKMvM", "KMvM"), Sides::WHITE);
        assert_eq!(read("KKvKM", "KKvK"), Sides::BLACK);
        // White takes Black's man; Black takes White's, colours swapped as stored.
        assert_eq!(read("KMvKM", "KMvK"), Sides::BLACK);
    }

    #[test]
    fn sides_combine_and_say_which_positions_they_hold() {
        let (white, black) = (Sides::WHITE, Sides::BLACK);
        assert_eq!(white.or(black), Sides::BOTH);
        assert!(Sides::BOTH.contains(white) && !white.contains(black));
        assert!(white.contains(Sides::NONE) && Sides::NONE.is_empty());
        // 10 positions: 0..5 White to move, 5..10 Black.
        assert!(white.meets(0, 4, 10) && white.meets(4, 6, 10) && !white.meets(5, 10, 10));
        assert!(black.meets(4, 6, 10) && !black.meets(0, 5, 10));
        assert_eq!(white.suffix(), " white to move");
        assert_eq!(Sides::BOTH.suffix(), "");
    }
}
