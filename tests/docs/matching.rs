//! Expected output against actual output, with the manual's elisions, and the difference
//! between them for a failure message.

/// The elision mark.
pub const ELLIPSIS: &str = "...";

/// Whether `expected` (lines that may hold the elision) describes `actual`. A line that is
/// `...` alone stands for any number of lines, none included; `...` inside a line for any
/// text within that line. Trailing white space is ignored on both sides (editors strip it
/// from the manual, and `rafle show` pads its last line), as are blank lines at the end.
pub fn matches(expected: &[String], actual: &[String]) -> bool {
    let expected = trimmed(expected);
    let actual = trimmed(actual);
    // memo[e][a]: whether expected[e..] matches actual[a..], once known.
    let mut memo = vec![vec![None; actual.len() + 1]; expected.len() + 1];
    lines_match(&expected, &actual, 0, 0, &mut memo)
}

fn trimmed(lines: &[String]) -> Vec<&str> {
    let mut lines: Vec<&str> = lines.iter().map(|l| l.trim_end()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

fn lines_match(
    expected: &[&str],
    actual: &[&str],
    e: usize,
    a: usize,
    memo: &mut Vec<Vec<Option<bool>>>,
) -> bool {
    if let Some(known) = memo[e][a] {
        return known;
    }
    let result = if e == expected.len() {
        a == actual.len()
    } else if expected[e].trim() == ELLIPSIS {
        lines_match(expected, actual, e + 1, a, memo)
            || (a < actual.len() && lines_match(expected, actual, e, a + 1, memo))
    } else {
        a < actual.len()
            && line_matches(expected[e], actual[a])
            && lines_match(expected, actual, e + 1, a + 1, memo)
    };
    memo[e][a] = Some(result);
    result
}

/// Whether one expected line describes one actual line: the text between elisions must appear
/// in that order, the first piece at the start and the last at the end.
pub fn line_matches(expected: &str, actual: &str) -> bool {
    let expected = expected.trim_end();
    let actual = actual.trim_end();
    if expected.trim() == ELLIPSIS {
        return true;
    }
    let pieces: Vec<&str> = expected.split(ELLIPSIS).collect();
    if pieces.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for piece in &pieces[1..pieces.len() - 1] {
        // The leftmost place is always right when the only wildcard is "any text".
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A line diff of `expected` against `actual` (`-` shown only, `+` printed only, two spaces
/// for lines that match), from the longest common subsequence under [`line_matches`].
pub fn diff(expected: &[String], actual: &[String]) -> String {
    let expected = trimmed(expected);
    let actual = trimmed(actual);
    let (n, m) = (expected.len(), actual.len());
    // common[i][j]: the longest common subsequence of expected[i..] and actual[j..].
    let mut common = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if line_matches(expected[i], actual[j]) {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && expected[i].trim() == ELLIPSIS {
            // An elision stands for the actual lines up to the first that the next expected
            // line matches (all that are left if it is the last).
            while j < m && (i + 1 == n || !line_matches(expected[i + 1], actual[j])) {
                out.push_str(&format!("  {}\n", actual[j]));
                j += 1;
            }
            i += 1;
            continue;
        }
        if i < n && j < m && line_matches(expected[i], actual[j]) {
            out.push_str(&format!("  {}\n", expected[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || common[i + 1][j] >= common[i][j + 1]) {
            out.push_str(&format!("- {}\n", expected[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", actual[j]));
            j += 1;
        }
    }
    out
}

/// The expected lines rewritten to describe `actual`, keeping every line that still matches
/// and every `...` line, for bless mode; `None` when the result would not match (a line with
/// an elision inside it that would be dropped, say).
pub fn blessed(expected: &[String], actual: &[String]) -> Option<Vec<String>> {
    let expected = trimmed(expected);
    let actual = trimmed(actual);
    let (n, m) = (expected.len(), actual.len());
    // cost[e][a]: what it costs for expected[e..] to describe actual[a..]. A `...` line takes
    // an actual line for 1, a line changed costs 2 into a like one and 6 into another, a line
    // added 2 and one dropped 10: the page keeps its lines and elisions, only what changed
    // moves.
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for e in (0..=n).rev() {
        for a in (0..=m).rev() {
            cost[e][a] = if e == n {
                ADD * (m - a)
            } else if expected[e].trim() == ELLIPSIS {
                let skip = cost[e + 1][a];
                if a < m {
                    skip.min(1 + cost[e][a + 1])
                } else {
                    skip
                }
            } else {
                let drop = DROP + cost[e + 1][a];
                if a < m {
                    let pair = change(expected[e], actual[a]) + cost[e + 1][a + 1];
                    drop.min(pair).min(ADD + cost[e][a + 1])
                } else {
                    drop
                }
            };
        }
    }
    let mut out = Vec::new();
    let (mut e, mut a) = (0, 0);
    while e < n || a < m {
        if e == n {
            out.push(actual[a].to_string());
            a += 1;
        } else if expected[e].trim() == ELLIPSIS {
            if a < m && cost[e][a] == 1 + cost[e][a + 1] {
                a += 1;
            } else {
                out.push(expected[e].to_string());
                e += 1;
            }
        } else if a < m && cost[e][a] == change(expected[e], actual[a]) + cost[e + 1][a + 1] {
            if line_matches(expected[e], actual[a]) {
                out.push(expected[e].to_string());
            } else if expected[e].contains(ELLIPSIS) {
                out.push(blessed_line(expected[e], actual[a])?);
            } else {
                out.push(actual[a].to_string());
            }
            (e, a) = (e + 1, a + 1);
        } else if cost[e][a] == DROP + cost[e + 1][a] {
            if expected[e].contains(ELLIPSIS) {
                return None;
            }
            e += 1;
        } else {
            out.push(actual[a].to_string());
            a += 1;
        }
    }
    let lines: Vec<String> = actual.iter().map(|l| l.to_string()).collect();
    matches(&out, &lines).then_some(out)
}

/// One line with elisions inside it rewritten to describe `actual`, character by character
/// with the same costs as lines: each `...` keeps what it elides where the text around it is
/// still there, the rest takes the actual text. `None` if the result would not match.
fn blessed_line(expected: &str, actual: &str) -> Option<String> {
    // None: an elision; Some(c): a character to match.
    let mut pattern: Vec<Option<char>> = Vec::new();
    for (k, piece) in expected.split(ELLIPSIS).enumerate() {
        if k > 0 {
            pattern.push(None);
        }
        pattern.extend(piece.chars().map(Some));
    }
    let actual: Vec<char> = actual.chars().collect();
    let (n, m) = (pattern.len(), actual.len());
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for e in (0..=n).rev() {
        for a in (0..=m).rev() {
            cost[e][a] = match (pattern.get(e), actual.get(a)) {
                (None, _) => ADD * (m - a),
                (Some(None), None) => cost[e + 1][a],
                (Some(None), Some(_)) => cost[e + 1][a].min(1 + cost[e][a + 1]),
                (Some(Some(_)), None) => ADD + cost[e + 1][a],
                (Some(Some(c)), Some(d)) => {
                    let pair = if c == d { 0 } else { 3 } + cost[e + 1][a + 1];
                    pair.min(ADD + cost[e + 1][a]).min(ADD + cost[e][a + 1])
                }
            };
        }
    }
    let mut out = String::new();
    let (mut e, mut a) = (0, 0);
    while e < n || a < m {
        match (pattern.get(e), actual.get(a)) {
            (None, Some(&d)) => {
                out.push(d);
                a += 1;
            }
            (Some(None), _) => {
                if a < m && cost[e][a] == 1 + cost[e][a + 1] {
                    a += 1;
                } else {
                    out.push_str(ELLIPSIS);
                    e += 1;
                }
            }
            (Some(&Some(c)), Some(&d))
                if cost[e][a] == if c == d { 0 } else { 3 } + cost[e + 1][a + 1] =>
            {
                out.push(d);
                (e, a) = (e + 1, a + 1);
            }
            (Some(Some(_)), _) if cost[e][a] == ADD + cost[e + 1][a] => e += 1,
            (_, Some(&d)) => {
                out.push(d);
                a += 1;
            }
            (_, None) => return None,
        }
    }
    let actual: String = actual.into_iter().collect();
    line_matches(&out, &actual).then_some(out)
}

const ADD: usize = 2;
const DROP: usize = 10;

/// What changing `expected` into `actual` costs in bless mode: nothing if it matches, little
/// if they share a third of a line at the start or the end (a word added, a value changed).
fn change(expected: &str, actual: &str) -> usize {
    if line_matches(expected, actual) {
        return 0;
    }
    let (x, y) = (expected.as_bytes(), actual.as_bytes());
    let prefix = x.iter().zip(y).take_while(|(a, b)| a == b).count();
    let suffix = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    if 3 * prefix.max(suffix) >= x.len().min(y.len()) {
        2
    } else {
        6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn elisions() {
        assert!(line_matches(
            r#"{"a":...,"dtw":3,...}"#,
            r#"{"a":1,"b":2,"dtw":3,"c":4}"#
        ));
        assert!(!line_matches(
            r#"{"a":...,"dtw":3,...}"#,
            r#"{"a":1,"dtw":4}"#
        ));
        assert!(line_matches("x ... y", "x  y"));
        assert!(!line_matches("ab...ba", "aba"));
        assert!(matches(&lines("a\n...\nz"), &lines("a\nb\nc\nz\n\n")));
        assert!(matches(&lines("a\n...\nz"), &lines("a\nz")));
        assert!(!matches(&lines("a\n...\nz"), &lines("a\nb")));
        assert!(!matches(&lines("a\nb"), &lines("a\nb\nc")));
        assert!(matches(&lines("a  \nb"), &lines("a\nb   ")));
    }

    #[test]
    fn bless_keeps_the_elisions() {
        let new = blessed(&lines("a\n...\nz 1"), &lines("a\nb\nc\nz 2\nw"));
        assert_eq!(new, Some(lines("a\n...\nz 2\nw")));
        let new = blessed(&lines("x ... y\nb 1"), &lines("x 1 y\nb 2"));
        assert_eq!(new, Some(lines("x ... y\nb 2")));
        let new = blessed(&lines("p q r\n...\ns"), &lines("V p q r\nt\ns\nu"));
        assert_eq!(new, Some(lines("V p q r\n...\ns\nu")));
        let new = blessed(
            &lines(r#"{"fen":"B:W29","pieces":3,"max_pieces":...,"moves":[...]}"#),
            &lines(r#"{"variant":"brazilian","fen":"B:W29","pieces":3,"max_pieces":3,"moves":[]}"#),
        );
        assert_eq!(
            new,
            Some(lines(
                r#"{"variant":"brazilian","fen":"B:W29","pieces":3,"max_pieces":...,"moves":[...]}"#
            ))
        );
    }

    #[test]
    fn diff_marks_the_lines_that_differ() {
        let d = diff(&lines("a\nb\nc"), &lines("a\nB\nc"));
        assert_eq!(d, "  a\n- b\n+ B\n  c\n");
        let d = diff(&lines("a\n...\nz"), &lines("a\nb\nc\ny"));
        assert_eq!(d, "  a\n  b\n  c\n  y\n- z\n");
        let d = diff(&lines("a\n..."), &lines("b\nc"));
        assert_eq!(d, "- a\n  b\n  c\n");
    }
}
