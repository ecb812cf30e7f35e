//! The modules of a crate, the edges between them and their cycles (see the test's
//! documentation for what counts as an edge).

use std::collections::{BTreeMap, BTreeSet};

use super::tokens::{tokenize, Token};

/// A module's path inside its crate: `["verify", "pages"]` for `crate::verify::pages`.
pub(crate) type ModulePath = Vec<String>;

/// One source file of a crate: the module it is, its path for messages and its text.
pub(crate) struct SourceFile {
    pub(crate) module: ModulePath,
    pub(crate) display: String,
    pub(crate) text: String,
}

/// Where module `from` names something in module `to`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: ModulePath,
    to: ModulePath,
    /// `file:line: code` of the naming line.
    site: String,
}

/// One path named in a file: its segments, its line, and how many inline modules of the file
/// enclose it (each one more `super::` to leave the file).
struct NamedPath {
    segments: Vec<String>,
    line: usize,
    inline_depth: usize,
    /// A `use` that imports the path under this name (the last segment unless `as`).
    imported_as: Option<String>,
}

/// The paths a file names outside its test code: every `use` tree's leaves and every other
/// `a::b::c` path.
fn named_paths(tokens: &[(Token, usize)]) -> Vec<NamedPath> {
    let mut paths = Vec::new();
    // Brace depth at which each enclosing inline module opened, and whether it is test code.
    let mut inline: Vec<(usize, bool)> = Vec::new();
    // Brace depth at which each enclosing body of a `#[cfg(test)]` item opened.
    let mut test_bodies: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut cfg_test = false;
    let mut i = 0;
    let ident = |i: usize| match tokens.get(i) {
        Some((Token::Ident(word), _)) => Some(word.as_str()),
        _ => None,
    };
    let is = |i: usize, token: Token| tokens.get(i).map(|t| &t.0) == Some(&token);
    while i < tokens.len() {
        let in_test = !test_bodies.is_empty() || inline.iter().any(|&(_, test)| test);
        let line = tokens[i].1;
        if is(i, Token::Punct('#'))
            && is(i + 1, Token::Punct('['))
            && ident(i + 2) == Some("cfg")
            && is(i + 3, Token::Punct('('))
            && ident(i + 4) == Some("test")
            && is(i + 5, Token::Punct(')'))
        {
            cfg_test = true;
            i += 7;
            continue;
        }
        match &tokens[i].0 {
            Token::Punct('{') => {
                if cfg_test {
                    test_bodies.push(depth);
                }
                depth += 1;
                cfg_test = false;
            }
            Token::Punct('}') => {
                // An attribute on a field or an argument ends with it.
                cfg_test = false;
                depth -= 1;
                if inline.last().is_some_and(|&(open, _)| open == depth) {
                    inline.pop();
                }
                if test_bodies.last() == Some(&depth) {
                    test_bodies.pop();
                }
            }
            Token::Punct(';') | Token::Punct(',') => cfg_test = false,
            Token::Ident(word) if word == "mod" && is(i + 2, Token::Punct('{')) => {
                inline.push((depth, cfg_test || in_test));
                cfg_test = false;
                depth += 1;
                i += 3;
                continue;
            }
            Token::Ident(word) if word == "use" => {
                let mut leaves = Vec::new();
                let end = use_tree(tokens, i + 1, &[], &mut leaves);
                if !(in_test || cfg_test) {
                    for (segments, imported_as) in leaves {
                        paths.push(NamedPath {
                            segments,
                            line,
                            inline_depth: inline.len(),
                            imported_as,
                        });
                    }
                }
                cfg_test = false;
                i = end;
                continue;
            }
            Token::Ident(_)
                if is(i + 1, Token::PathSep) && !(i > 0 && is(i - 1, Token::PathSep)) =>
            {
                let mut segments = Vec::new();
                let mut j = i;
                while let Some(word) = ident(j) {
                    segments.push(word.to_string());
                    if is(j + 1, Token::PathSep) && ident(j + 2).is_some() {
                        j += 2;
                    } else {
                        break;
                    }
                }
                if !(in_test || cfg_test) {
                    paths.push(NamedPath {
                        segments,
                        line,
                        inline_depth: inline.len(),
                        imported_as: None,
                    });
                }
                i = j + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    paths
}

/// The child modules a file declares as test code: `#[cfg(test)] mod name;`.
fn test_children(tokens: &[(Token, usize)]) -> Vec<String> {
    let words: Vec<&Token> = tokens.iter().map(|(token, _)| token).collect();
    let ident = |word: &str| Token::Ident(word.to_string());
    let attribute = [
        Token::Punct('#'),
        Token::Punct('['),
        ident("cfg"),
        Token::Punct('('),
        ident("test"),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let mut children = Vec::new();
    for (i, window) in words.windows(attribute.len()).enumerate() {
        if !window.iter().copied().eq(attribute.iter()) {
            continue;
        }
        // `mod name;`, possibly after a visibility such as `pub(crate)`.
        let rest = &words[i + attribute.len()..];
        let mod_at = rest.iter().take(5).position(|t| **t == ident("mod"));
        if let Some(at) = mod_at {
            if let (Some(Token::Ident(name)), Some(Token::Punct(';'))) =
                (rest.get(at + 1).copied(), rest.get(at + 2).copied())
            {
                children.push(name.clone());
            }
        }
    }
    children
}

/// Parses the `use` tree starting at token `i` under `prefix`, pushing its leaves (path, name
/// it is imported as; none for globs); returns the index after the tree (after the `;` at the
/// top level).
fn use_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut path = prefix.to_vec();
    if tokens.get(i).map(|t| &t.0) == Some(&Token::PathSep) {
        // `use ::other_crate::...`: outside the crate.
        path.push("::".to_string());
        i += 1;
    }
    loop {
        match tokens.get(i).map(|t| &t.0) {
            Some(Token::Ident(word)) if word == "self" && !path.is_empty() => {
                let name = path.last().cloned();
                i += 1;
                let name = alias(tokens, &mut i).or(name);
                leaves.push((path.clone(), name));
                break;
            }
            Some(Token::Ident(word)) => {
                path.push(word.clone());
                i += 1;
                if tokens.get(i).map(|t| &t.0) == Some(&Token::PathSep) {
                    i += 1;
                    continue;
                }
                let name = alias(tokens, &mut i).or(Some(word.clone()));
                leaves.push((path.clone(), name));
                break;
            }
            Some(Token::Punct('*')) => {
                leaves.push((path.clone(), None));
                i += 1;
                break;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                while let Some((token, _)) = tokens.get(i) {
                    match token {
                        Token::Punct('}') => {
                            i += 1;
                            break;
                        }
                        Token::Punct(',') => i += 1,
                        _ => i = use_tree(tokens, i, &path, leaves),
                    }
                }
                break;
            }
            _ => break,
        }
    }
    if prefix.is_empty() {
        while let Some((token, _)) = tokens.get(i) {
            i += 1;
            if *token == Token::Punct(';') {
                break;
            }
        }
    }
    i
}

/// `as name` at token `i`, if there (`as _` imports no name).
fn alias(tokens: &[(Token, usize)], i: &mut usize) -> Option<String> {
    if tokens.get(*i).map(|t| &t.0) != Some(&Token::Ident("as".to_string())) {
        return None;
    }
    *i += 2;
    match tokens.get(*i - 1).map(|t| &t.0) {
        Some(Token::Ident(name)) if name != "_" => Some(name.clone()),
        _ => None,
    }
}

/// The module a path named in module `module` resolves into: the longest module path its
/// segments reach, and whether the path is that module itself; `None` for paths that stay
/// in the file, go below it (`self::`) or leave the crate.
fn resolve(
    module: &[String],
    path: &NamedPath,
    imported: &BTreeMap<String, ModulePath>,
    modules: &BTreeSet<ModulePath>,
) -> Option<(ModulePath, bool)> {
    let segments = &path.segments;
    let first = segments.first()?;
    let (mut target, rest): (ModulePath, &[String]) = if first == "crate" {
        (Vec::new(), &segments[1..])
    } else if first == "super" {
        let supers = segments.iter().take_while(|s| *s == "super").count();
        let leaving = supers.checked_sub(path.inline_depth).filter(|&n| n > 0)?;
        let kept = module.len().checked_sub(leaving)?;
        (module[..kept].to_vec(), &segments[supers..])
    } else if let Some(base) = imported.get(first) {
        (base.clone(), &segments[1..])
    } else {
        return None;
    };
    for segment in rest {
        target.push(segment.clone());
        if !modules.contains(&target) {
            target.pop();
            return Some((target, false));
        }
    }
    Some((target, true))
}

/// The dependency edges between the modules of one crate's files, both ends lifted to the
/// children of their common ancestor (a submodule's import is its whole subtree's, so `a::b`
/// naming `c` while `c` names `a` is a cycle of `a` and `c`); edges between a module and its
/// ancestors or descendants are left out.
fn edges(files: &[SourceFile]) -> Vec<Edge> {
    let modules: BTreeSet<ModulePath> = files.iter().map(|f| f.module.clone()).collect();
    let tokens: Vec<Vec<(Token, usize)>> = files.iter().map(|f| tokenize(&f.text)).collect();
    let mut test_modules = Vec::new();
    for (file, tokens) in files.iter().zip(&tokens) {
        for child in test_children(tokens) {
            test_modules.push([file.module.clone(), vec![child]].concat());
        }
    }
    let mut edges = Vec::new();
    for (file, tokens) in files.iter().zip(&tokens) {
        if test_modules
            .iter()
            .any(|test| file.module.starts_with(test))
        {
            continue;
        }
        let paths = named_paths(tokens);
        // The modules this file imports by name, for paths such as `part::Codes`.
        let mut imported = BTreeMap::new();
        for path in &paths {
            if let (Some(name), Some((target, true))) = (
                &path.imported_as,
                resolve(&file.module, path, &imported, &modules),
            ) {
                imported.insert(name.clone(), target);
            }
        }
        let lines: Vec<&str> = file.text.lines().collect();
        for path in &paths {
            let Some((target, _)) = resolve(&file.module, path, &imported, &modules) else {
                continue;
            };
            let common = file
                .module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == file.module.len() || common == target.len() {
                continue;
            }
            let code = lines.get(path.line - 1).map_or("", |l| l.trim());
            edges.push(Edge {
                from: file.module[..=common].to_vec(),
                to: target[..=common].to_vec(),
                site: format!("{}:{}: {}", file.display, path.line, code),
            });
        }
    }
    edges.sort();
    edges.dedup();
    edges
}

/// The strongly connected components of more than one module (Tarjan's algorithm), each
/// sorted, in a stable order.
fn cycles(edges: &[Edge]) -> Vec<Vec<ModulePath>> {
    let mut nodes: BTreeSet<&ModulePath> = BTreeSet::new();
    for edge in edges {
        nodes.insert(&edge.from);
        nodes.insert(&edge.to);
    }
    let nodes: Vec<&ModulePath> = nodes.into_iter().collect();
    let index_of = |m: &ModulePath| nodes.binary_search(&m).unwrap();
    let mut successors = vec![BTreeSet::new(); nodes.len()];
    for edge in edges {
        successors[index_of(&edge.from)].insert(index_of(&edge.to));
    }
    let successors: Vec<Vec<usize>> = successors
        .into_iter()
        .map(|s| s.into_iter().collect())
        .collect();

    struct Tarjan<'a> {
        successors: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.successors[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(index) if self.on_stack[w] => self.low[v] = self.low[v].min(index),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let mut tarjan = Tarjan {
        successors: &successors,
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..nodes.len() {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    let mut found: Vec<Vec<ModulePath>> = tarjan
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut modules: Vec<ModulePath> = c.into_iter().map(|v| nodes[v].clone()).collect();
            modules.sort();
            modules
        })
        .collect();
    found.sort();
    found
}

/// `crate::a::b`.
fn name(module: &[String]) -> String {
    std::iter::once("crate")
        .chain(module.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("::")
}

/// The cycles of one crate's modules, described with the lines that make each edge; empty
/// when there are none.
pub(crate) fn cycle_report(crate_name: &str, files: &[SourceFile]) -> Vec<String> {
    let edges = edges(files);
    cycles(&edges)
        .into_iter()
        .map(|component| {
            let names: Vec<String> = component.iter().map(|m| name(m)).collect();
            let mut report = format!("{crate_name}: cycle among {}", names.join(", "));
            for edge in edges
                .iter()
                .filter(|e| component.contains(&e.from) && component.contains(&e.to))
            {
                report.push_str(&format!(
                    "\n    {} -> {}: {}",
                    name(&edge.from),
                    name(&edge.to),
                    edge.site
                ));
            }
            report
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(module: &str, text: &str) -> SourceFile {
        SourceFile {
            module: module
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            display: format!("{}.rs", module.replace("::", "/")),
            text: text.to_string(),
        }
    }

    fn module(path: &str) -> ModulePath {
        path.split("::").map(str::to_string).collect()
    }

    #[test]
    fn finds_a_cycle_and_the_lines_of_its_edges() {
        let files = [
            file("", "mod a;\nmod b;\nmod c;\n"),
            file("a", "use super::b::Thing;\nfn f() {}\n"),
            file("b", "fn g() {\n    crate::c::h();\n}\n"),
            file(
                "c",
                "// use crate::a::nothing;\nfn h() { let s = \"crate::b::x\"; }\n",
            ),
        ];
        assert_eq!(cycle_report("made-up", &files), Vec::<String>::new());
        let files = [
            file("", "mod a;\nmod b;\nmod c;\n"),
            file("a", "use super::b::Thing;\nfn f() {}\n"),
            file("b", "fn g() {\n    crate::c::h();\n}\n"),
            file("c", "use super::{a::{self as first}, d};\nfn h() {}\n"),
        ];
        assert_eq!(
            cycle_report("made-up", &files),
            ["made-up: cycle among crate::a, crate::b, crate::c\n    \
                 crate::a -> crate::b: a.rs:1: use super::b::Thing;\n    \
                 crate::b -> crate::c: b.rs:2: crate::c::h();\n    \
                 crate::c -> crate::a: c.rs:1: use super::{a::{self as first}, d};"]
        );
    }

    #[test]
    fn nesting_is_not_a_cycle_but_a_subtree_is_one_module() {
        let files = [
            file("", "mod a;\nmod b;\npub fn root() {}\n"),
            file("a", "mod x;\npub fn f() { x::g(); crate::root(); }\n"),
            file(
                "a::x",
                "pub fn g() { super::f(); super::super::b::y::h(); }\n",
            ),
            file("b", "mod y;\n"),
            file("b::y", "pub fn h() {}\n"),
        ];
        let found = edges(&files);
        let ends: Vec<_> = found
            .iter()
            .map(|e| (e.from.clone(), e.to.clone()))
            .collect();
        assert_eq!(ends, [(module("a"), module("b"))]);
        assert!(cycles(&found).is_empty());
        // `b` naming `a::x` while `a::x` names `b`: the subtrees `a` and `b` name each other.
        let mut files = files;
        files[3] = file("b", "mod y;\nuse crate::a::x;\nfn k() { x::g() }\n");
        assert_eq!(cycles(&edges(&files)), [vec![module("a"), module("b")]]);
        files[3] = file("b", "mod y;\n");
        files[1] = file("a", "mod x;\npub fn f() { crate::b::y::h(); }\n");
        assert!(cycles(&edges(&files)).is_empty());
    }

    #[test]
    fn a_module_imported_by_name_is_followed() {
        let files = [
            file("", "mod a;\n"),
            file("a", "mod x;\nmod y;\n"),
            file(
                "a::x",
                "use crate::a as top;\nfn f() {\n    top::y::g()\n}\n",
            ),
            file("a::y", "use super::x;\npub fn g() {}\n"),
        ];
        assert_eq!(
            cycle_report("made-up", &files),
            ["made-up: cycle among crate::a::x, crate::a::y\n    \
                 crate::a::x -> crate::a::y: a/x.rs:3: top::y::g()\n    \
                 crate::a::y -> crate::a::x: a/y.rs:1: use super::x;"]
        );
    }

    #[test]
    fn test_code_and_inline_modules_resolve_within_their_file() {
        let files = [
            file("", "mod a;\nmod b;\n"),
            file(
                "a",
                "mod inner {\n    fn f() { super::g(); }\n}\nfn g() {}\n\
                 #[cfg(test)]\nmod tests {\n    use crate::b::h;\n}\n\
                 #[cfg(test)]\nuse crate::b::k;\n\
                 #[cfg(test)]\nfn helper() -> crate::b::K {\n    crate::b::k()\n}\n",
            ),
            file(
                "b",
                "use crate::a::g;\nfn h() {}\nfn k() {}\n#[cfg(test)]\nmod tests;\n",
            ),
            file("b::tests", "use crate::a::g;\n"),
            file("c", "use crate::a::g;\n"),
        ];
        let found = edges(&files);
        let ends: Vec<_> = found
            .iter()
            .map(|e| (e.from.clone(), e.to.clone()))
            .collect();
        assert_eq!(
            ends,
            [(module("b"), module("a")), (module("c"), module("a"))]
        );
        assert!(cycles(&found).is_empty());
        // A test-only field ends with it: the code after it counts.
        let mut files = files;
        files[1] = file(
            "a",
            "struct S {\n    #[cfg(test)]\n    x: u8,\n}\nimpl S {\n    fn f() { crate::b::h() }\n}\n",
        );
        assert_eq!(cycles(&edges(&files)), [vec![module("a"), module("b")]]);
    }
}
