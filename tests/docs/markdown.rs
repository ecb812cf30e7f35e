//! The fenced code blocks of a manual page, each with the `docs-test` marker written just
//! before it, and the commands of a `console` block with the output each one shows.

/// What the marker before a block asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Marker {
    /// No marker: the block is run or checked in full.
    None,
    /// `<!-- docs-test: not run: REASON -->`: nothing of the block is run.
    NotRun(String),
    /// `<!-- docs-test: rafle only: REASON -->` (shell blocks): the `rafle` command lines are
    /// checked, the other programs are not run, for the reason given.
    RafleOnly(String),
    /// `<!-- docs-test: ci: REASON -->` (shell blocks): run as written, in a fresh copy of the
    /// repository, by `scripts/readme-test.sh` (from `.ci/run`) rather than by this test, which
    /// checks its `rafle` command lines as for `rafle only`.
    Ci(String),
    /// `<!-- docs-test: synopsis -->` (shell blocks): each line `rafle COMMAND [OPTIONS]` names
    /// exactly the options of `rafle COMMAND --help`.
    Synopsis,
}

/// A fenced code block.
#[derive(Debug)]
pub struct Block {
    /// The line of the opening fence, from 1.
    pub line: usize,
    /// What follows the opening fence (`console`, `sh`, `rust`, or nothing).
    pub lang: String,
    /// The lines between the fences, each with its line number in the page.
    pub body: Vec<(usize, String)>,
    pub marker: Marker,
}

/// A command of a `console` block and the output shown under it.
#[derive(Debug)]
pub struct Example {
    /// The line of the `$ ` line.
    pub line: usize,
    pub command: String,
    /// The lines shown up to the next command or the end of the block.
    pub expected: Vec<String>,
}

const MARKER: &str = "<!-- docs-test:";

/// Every fenced block of `text`. A marker must be the last line that is not blank before a
/// fence, and must be one of the known ones: a marker that is misspelt or that drifted away
/// from its block would otherwise silently let the block be run, or not.
pub fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    let mut pending: Option<(usize, Marker)> = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = raw.trim();
        if let Some(block) = open.as_mut() {
            if trimmed == "```" {
                blocks.push(open.take().expect("a block is open"));
            } else {
                block.body.push((number, raw.to_string()));
            }
            continue;
        }
        if let Some(lang) = trimmed.strip_prefix("```") {
            let marker = pending.take().map_or(Marker::None, |(_, m)| m);
            open = Some(Block {
                line: number,
                lang: lang.trim().to_string(),
                body: Vec::new(),
                marker,
            });
        } else if trimmed.starts_with(MARKER) {
            if let Some((line, _)) = pending {
                return Err(format!(
                    "line {line}: a docs-test marker not just before a block"
                ));
            }
            pending = Some((
                number,
                marker(trimmed).map_err(|e| format!("line {number}: {e}"))?,
            ));
        } else if !trimmed.is_empty() {
            if let Some((line, _)) = pending {
                return Err(format!(
                    "line {line}: a docs-test marker not just before a block"
                ));
            }
        }
    }
    if let Some(block) = open {
        return Err(format!("line {}: a block that is never closed", block.line));
    }
    if let Some((line, _)) = pending {
        return Err(format!(
            "line {line}: a docs-test marker not just before a block"
        ));
    }
    Ok(blocks)
}

fn marker(line: &str) -> Result<Marker, String> {
    let inner = line
        .strip_prefix(MARKER)
        .and_then(|rest| rest.strip_suffix("-->"))
        .ok_or("a docs-test marker must be one line: <!-- docs-test: ... -->")?
        .trim();
    let reason = |rest: &str| {
        let rest = rest.trim();
        if rest.is_empty() {
            Err(format!("the marker `{inner}` gives no reason"))
        } else {
            Ok(rest.to_string())
        }
    };
    if inner == "synopsis" {
        Ok(Marker::Synopsis)
    } else if let Some(rest) = inner.strip_prefix("not run:") {
        Ok(Marker::NotRun(reason(rest)?))
    } else if let Some(rest) = inner.strip_prefix("rafle only:") {
        Ok(Marker::RafleOnly(reason(rest)?))
    } else if let Some(rest) = inner.strip_prefix("ci:") {
        Ok(Marker::Ci(reason(rest)?))
    } else {
        Err(format!(
            "unknown docs-test marker `{inner}` (expected `not run: REASON`, `rafle only: REASON`, \
             `ci: REASON` or `synopsis`)"
        ))
    }
}

/// The commands of a `console` block: a line `$ COMMAND`, then the output it shows.
pub fn examples(block: &Block) -> Result<Vec<Example>, String> {
    let mut examples: Vec<Example> = Vec::new();
    for (number, line) in &block.body {
        if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                line: *number,
                command: command.trim().to_string(),
                expected: Vec::new(),
            });
        } else if let Some(example) = examples.last_mut() {
            example.expected.push(line.clone());
        } else {
            return Err(format!(
                "line {number}: output before the first `$ ` command of the block"
            ));
        }
    }
    if examples.is_empty() {
        return Err(format!(
            "line {}: a console block without a `$ ` command",
            block.line
        ));
    }
    Ok(examples)
}

/// The command lines of a shell block: continuations (`\` at the end of a line) joined, blank
/// lines and whole-line comments left out; each with the line it starts on.
pub fn shell_lines(block: &Block) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (number, line) in &block.body {
        let (start, mut text) = current.take().unwrap_or((*number, String::new()));
        let piece = line.trim();
        if let Some(head) = piece.strip_suffix('\\') {
            text.push_str(head);
            text.push(' ');
            current = Some((start, text));
            continue;
        }
        text.push_str(piece);
        let text = text.trim().to_string();
        if !text.is_empty() && !text.starts_with('#') {
            lines.push((start, text));
        }
    }
    if let Some((start, text)) = current {
        lines.push((start, text.trim().to_string()));
    }
    lines
}

/// The `rafle COMMAND …` command lines quoted inline in the prose, outside blocks, each with
/// the line it starts on: `rafle` and a command word, not a message (`rafle serve: …`) nor a
/// pattern with a placeholder (`rafle generate --pieces N`, `rafle generate --unit …`).
pub fn inline_commands(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_block = false;
    // A paragraph's text, joined, with the line each of its lines starts on: a code span may
    // run over a line break.
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if fence || in_block || line.trim().is_empty() || index + 1 == lines.len() {
            if !fence && !in_block && !line.trim().is_empty() {
                paragraph.push((index + 1, line));
            }
            spans(&paragraph, &mut found);
            paragraph.clear();
            in_block ^= fence;
        } else {
            paragraph.push((index + 1, line));
        }
    }
    found
}

fn spans(paragraph: &[(usize, &str)], found: &mut Vec<(usize, String)>) {
    let mut joined = String::new();
    let mut starts = Vec::new();
    for (number, line) in paragraph {
        starts.push((joined.len(), *number));
        joined.push_str(line);
        joined.push(' ');
    }
    let mut offset = 0;
    for (k, span) in joined.split('`').enumerate() {
        let line = starts
            .iter()
            .rev()
            .find(|(at, _)| *at <= offset)
            .map_or(0, |s| s.1);
        offset += span.len() + 1;
        // The odd pieces between backticks are code spans.
        if k % 2 == 0 || !span.starts_with("rafle ") {
            continue;
        }
        let words: Vec<&str> = span.split_whitespace().collect();
        let command = words.get(1).copied().unwrap_or_default();
        let placeholder = words.iter().any(|w| {
            w.contains('…')
                || w.chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c == ',')
        });
        if !command.is_empty() && command.chars().all(|c| c.is_ascii_lowercase()) && !placeholder {
            found.push((line, words.join(" ")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_belong_to_the_next_block() {
        let text = "x\n<!-- docs-test: not run: slow -->\n\n```sh\na \\\n  b\n# c\n```\n```console\n$ r\no\n```\n";
        let found = blocks(text).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].marker, Marker::NotRun("slow".into()));
        assert_eq!(found[0].line, 4);
        assert_eq!(shell_lines(&found[0]), vec![(5, "a  b".to_string())]);
        assert_eq!(found[1].marker, Marker::None);
        let example = &examples(&found[1]).unwrap()[0];
        assert_eq!((example.line, example.command.as_str()), (10, "r"));
        assert_eq!(example.expected, vec!["o".to_string()]);
    }

    #[test]
    fn inline_commands_over_line_breaks() {
        let text = "a `rafle probe --json` and `rafle serve: x`,\n`rafle plan --data\nd` `rafle x N`\n\n```sh\n`rafle y`\n```\n";
        let found = inline_commands(text);
        assert_eq!(
            found,
            vec![
                (1, "rafle probe --json".to_string()),
                (2, "rafle plan --data d".to_string())
            ]
        );
    }

    #[test]
    fn a_marker_astray_or_misspelt_is_an_error() {
        assert!(blocks("<!-- docs-test: not run: x -->\ntext\n```sh\n```\n").is_err());
        assert!(blocks("<!-- docs-test: skip: x -->\n```sh\n```\n").is_err());
        assert!(blocks("<!-- docs-test: not run: -->\n```sh\n```\n").is_err());
        assert!(blocks("text\n<!-- docs-test: rafle only: x -->\n").is_err());
        assert!(blocks("```sh\nopen\n").is_err());
        assert!(blocks("<!-- docs-test: ci: -->\n```sh\n```\n").is_err());
    }

    #[test]
    fn a_ci_marker_carries_its_reason() {
        let found =
            blocks("<!-- docs-test: ci: builds the library -->\n```sh\ncc x\n```\n").unwrap();
        assert_eq!(found[0].marker, Marker::Ci("builds the library".into()));
    }
}
