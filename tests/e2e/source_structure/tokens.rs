//! The tokens of a Rust source, read with a small tokenizer rather than a parser (comments,
//! string and char literals, lifetimes and numbers dropped), and the scans made of them: the
//! functions' lengths, the lints allowed, the test code.

/// What the checks read of a source.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    /// An identifier or a keyword.
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other character that is not white space.
    Punct(char),
}

/// The tokens of a Rust source with their 1-based lines; comments, string, byte-string, raw
/// string and char literals are dropped, lifetimes and numbers too.
pub(crate) fn tokenize(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let is_ident_start = |c: char| c.is_alphabetic() || c == '_';
    let is_ident_char = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1, &mut line);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            if next == Some('\\') {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
            match chars.get(i) {
                Some('"') if prefix => i = skip_string(&chars, i + 1, &mut line),
                Some('#') if prefix && word != "b" => {
                    // A raw string r#"..."#, or a raw identifier r#name.
                    let mut hashes = 0;
                    while chars.get(i + hashes) == Some(&'#') {
                        hashes += 1;
                    }
                    if chars.get(i + hashes) == Some(&'"') {
                        i = skip_raw_string(&chars, i + hashes + 1, hashes, &mut line);
                    } else {
                        i += 1;
                    }
                }
                Some('\'') if word == "b" => {
                    i += 1;
                    if chars.get(i) == Some(&'\\') {
                        i += 1;
                    }
                    i += 1;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                }
                _ => tokens.push((Token::Ident(word), line)),
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            tokens.push((Token::PathSep, line));
            i += 2;
        } else {
            tokens.push((Token::Punct(c), line));
            i += 1;
        }
    }
    tokens
}

/// The index after the string whose body starts at `i` (after its opening quote).
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '"' => return i + 1,
            '\n' => *line += 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index after the raw string with `hashes` hashes whose body starts at `i`.
fn skip_raw_string(chars: &[char], mut i: usize, hashes: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        if chars[i] == '\n' {
            *line += 1;
        }
        i += 1;
    }
    i
}

/// The functions of a source outside its test code, each with its name, the line of its
/// `fn` and its length in lines (to its closing brace); declarations without a body are left
/// out.
pub(crate) fn function_lengths(tokens: &[(Token, usize)]) -> Vec<(String, usize, usize)> {
    let test_ranges = test_code(tokens);
    let mut found = Vec::new();
    for (i, (token, line)) in tokens.iter().enumerate() {
        let (Token::Ident(word), Some((Token::Ident(name), _))) = (token, tokens.get(i + 1)) else {
            continue;
        };
        if word != "fn" || test_ranges.iter().any(|r| r.contains(&i)) {
            continue;
        }
        let Some(open) = tokens[i..]
            .iter()
            .position(|(t, _)| matches!(t, Token::Punct('{') | Token::Punct(';')))
            .map(|k| i + k)
            .filter(|&k| tokens[k].0 == Token::Punct('{'))
        else {
            continue;
        };
        let mut depth = 0;
        for (t, end) in &tokens[open..] {
            match t {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                found.push((name.clone(), *line, end - line + 1));
                break;
            }
        }
    }
    found
}

/// The lines where a source allows clippy's lint `lint` (`#[allow(clippy::lint)]`, also among
/// others in one `allow`).
pub(crate) fn lint_allowed(tokens: &[(Token, usize)], lint: &str) -> Vec<usize> {
    let is = |i: usize, token: &Token| tokens.get(i).map(|t| &t.0) == Some(token);
    let ident = |word: &str| Token::Ident(word.to_string());
    let mut lines = Vec::new();
    for i in 0..tokens.len() {
        if !(is(i, &ident("allow")) && is(i + 1, &Token::Punct('('))) {
            continue;
        }
        let mut j = i + 2;
        while let Some((token, line)) = tokens.get(j) {
            if *token == Token::Punct(')') {
                break;
            }
            if *token == ident("clippy") && is(j + 1, &Token::PathSep) && is(j + 2, &ident(lint)) {
                lines.push(*line);
            }
            j += 1;
        }
    }
    lines
}

/// The token ranges of a source's `#[cfg(test)]` items with a body (`mod tests { ... }`).
fn test_code(tokens: &[(Token, usize)]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut i = 0;
    while i + 6 < tokens.len() {
        let attribute: Vec<&Token> = tokens[i..i + 7].iter().map(|(t, _)| t).collect();
        let is_cfg_test = matches!(
            attribute.as_slice(),
            [Token::Punct('#'), Token::Punct('['), Token::Ident(cfg), Token::Punct('('), Token::Ident(test), Token::Punct(')'), Token::Punct(']')]
                if cfg == "cfg" && test == "test"
        );
        if !is_cfg_test {
            i += 1;
            continue;
        }
        let start = i;
        let mut depth = 0;
        i += 7;
        while let Some((token, _)) = tokens.get(i) {
            i += 1;
            match token {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => break,
                _ => {}
            }
        }
        ranges.push(start..i);
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_lengths_run_from_fn_to_the_closing_brace_outside_test_code() {
        let text = "trait T {\n    fn declared(&self);\n}\n\
                    pub(crate) fn short(x: impl Fn(u8) -> u8) -> u8 {\n    x(1)\n}\n\
                    fn longer() {\n    let s = (\"}\", '\\'','}');\n    // }\n    if true {\n    }\n}\n\
                    #[cfg(test)]\nmod tests {\n    fn helper() {\n    }\n}\n";
        assert_eq!(
            function_lengths(&tokenize(text)),
            [("short".to_string(), 4, 3), ("longer".to_string(), 7, 6)]
        );
    }

    #[test]
    fn an_allowed_lint_is_found_alone_or_among_others() {
        let text = "#[allow(clippy::too_many_arguments)]\nfn f() {}\n\
                    #[allow(dead_code, clippy::too_many_arguments)]\nfn g() {}\n\
                    #[allow(clippy::too_many_lines)]\nfn h() {}\n\
                    // #[allow(clippy::too_many_arguments)]\n";
        assert_eq!(lint_allowed(&tokenize(text), "too_many_arguments"), [1, 3]);
    }
}
