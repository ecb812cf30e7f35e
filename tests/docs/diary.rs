//! The manual says what is, with the command that measures it: it is no diary. How figures
//! were reached, with the builds measured, belongs in `records/` (its `history.md`), which is
//! not the manual. These checks find the traces a diary leaves (sittings, a previous `main`,
//! builds named by commit, issue numbers) and links that lead nowhere.

use std::path::Path;

/// Each diary trace in `text`, as (line, what was found).
pub fn traces(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '#'))
            .filter(|w| !w.is_empty())
            .collect();
        for (k, word) in words.iter().enumerate() {
            if *word == "sitting" || *word == "sittings" {
                found.push((
                    index + 1,
                    format!("`{word}`: say what is, not when it was measured"),
                ));
            }
            let numbered = |w: &str| {
                let digits = w.strip_prefix('#').unwrap_or(w);
                !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
            };
            if (*word == "issue" || *word == "issues")
                && words.get(k + 1).is_some_and(|w| numbered(w))
            {
                found.push((
                    index + 1,
                    format!("an issue number: `{word} {}`", words[k + 1]),
                ));
            }
        }
        if lower.contains("previous `main`") || lower.contains("previous main") {
            found.push((
                index + 1,
                "a previous `main`: compare with a named figure".into(),
            ));
        }
    }
    for (line, hash) in commit_spans(text) {
        found.push((line, format!("a build named by commit: `{hash}`")));
    }
    found
}

/// Code spans that hold nothing but a commit-like hash (7 to 40 lowercase hex digits, with a
/// letter and a digit), with their line, unless the words before name another repository
/// (`owner/name`): a snapshot of someone else's code is cited that way.
fn commit_spans(text: &str) -> Vec<(usize, String)> {
    let ticks: Vec<usize> = text.match_indices('`').map(|(at, _)| at).collect();
    let mut found = Vec::new();
    for pair in ticks.windows(2) {
        let inside = &text[pair[0] + 1..pair[1]];
        let hex = (7..=40).contains(&inside.len())
            && inside
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
            && inside.chars().any(|c| c.is_ascii_digit())
            && inside.chars().any(|c| c.is_ascii_alphabetic());
        if !hex {
            continue;
        }
        let before = text[..pair[0]].trim_end();
        let word = before
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or_default()
            .trim_start_matches('(');
        let other_repository = word.split_once('/').is_some_and(|(owner, name)| {
            let part = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            };
            part(owner) && part(name)
        });
        if !other_repository {
            let line = text[..pair[0]].matches('\n').count() + 1;
            found.push((line, inside.to_string()));
        }
    }
    found
}

/// Each relative link of a page (`[text](target)`, images too) whose target does not exist,
/// as (line, target); `page_dir` is the directory the page's links start from.
pub fn broken_links(text: &str, page_dir: &Path) -> Vec<(usize, String)> {
    let mut broken = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let Some(end) = rest.find(')') else {
                continue;
            };
            let target = &rest[..end];
            let external = target.contains("://") || target.starts_with("mailto:");
            let path = target.split('#').next().unwrap_or_default();
            if external || path.is_empty() || target.contains(' ') {
                continue;
            }
            if !page_dir.join(path).exists() {
                broken.push((index + 1, target.to_string()));
            }
        }
    }
    broken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diary_of_before_is_found() {
        let text = "**Third sitting (`26af5cc`).** Three changes\nmeasured in the first sitting\n\
                    against the previous `main` (`ea2b4a9`), issue 10 and issue #66.\n";
        let found = traces(text);
        let lines: Vec<usize> = found.iter().map(|f| f.0).collect();
        assert_eq!(lines, vec![1, 2, 3, 3, 3, 1, 3], "{found:?}");
    }

    #[test]
    fn what_is_no_diary_passes() {
        let text = "A run in a session of its own (`setsid`); `4632231405` for 46x32x23x14x5;\n\
                    the snapshot read (RoepStoep/lidraughts\n`c7feaf1`); `deadbeef` has no digit;\n\
                    `0123456789abcdef0123456789abcdef0123456789` is too long; \
                    `RAFLESP2`, `e9` and the issue of a move.\n";
        assert_eq!(traces(text), vec![]);
    }

    #[test]
    fn links_that_lead_nowhere_are_found() {
        let dir = tempfile::tempdir().expect("a directory");
        std::fs::write(dir.path().join("there.md"), "").expect("a page");
        let text = "[a](there.md) [b](there.md#part) [c](https://x.org/y) [d](#top)\n\
                    ![e](gone.png) and [f](runs/gone.md).\n";
        assert_eq!(
            broken_links(text, dir.path()),
            vec![(2, "gone.png".to_string()), (2, "runs/gone.md".to_string())]
        );
    }
}
