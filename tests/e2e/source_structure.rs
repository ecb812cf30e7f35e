//! The sources' structure: no crate of the workspace has a cycle among its modules, no
//! function of the generator (`generator/src/`) is longer than [`LONGEST_FUNCTION`] lines or
//! silences clippy's `too_many_arguments` (a bundle of parameters is a struct waiting to be
//! named), and the command line is glue: no command's `run` is longer than [`LONGEST_RUN`]
//! lines, and no work is shared out over threads in `src/commands/`.
//!
//! A module is a file (`foo.rs` or `foo/mod.rs`; inline `mod x {}` blocks belong to their
//! file). Module A depends on module B when A's code names an item through `crate::`,
//! `super::` or a module it imported with `use`, and resolves into B, where neither contains
//! the other: a parent declaring `mod child` and the child using the parent's items is how
//! Rust nests modules, not a cycle. An edge into another subtree counts as an edge to that
//! subtree's root below the common ancestor: `a::x` naming `crate::b::y::f` depends on `b`,
//! so `a -> b::y` and `b::z -> a` are a cycle between `a` and `b`. Test code (`#[cfg(test)]`
//! modules, `use` declarations and items with their bodies) is left out: a test may reach
//! wherever it needs.
//!
//! A function's length runs from the line of its `fn` to that of its closing brace; test code
//! is left out as above.
//!
//! Both checks read the sources as text with a small tokenizer (comments, strings and char
//! literals skipped) rather than a Rust parser, which is enough for paths and `use` trees.

mod cycles;
mod tokens;

use std::fs;
use std::path::{Path, PathBuf};

use cycles::{cycle_report, ModulePath, SourceFile};
use tokens::{function_lengths, lint_allowed, tokenize};

/// The most lines a function of the generator may take.
const LONGEST_FUNCTION: usize = 80;

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The module a file under a crate's `src` is: `lib.rs` and `main.rs` the root, `a/mod.rs`
/// and `a.rs` module `a`, `a/b.rs` module `a::b`.
fn module_of(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap();
    let stem = file.trim_end_matches(".rs");
    if !(parts.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The source files of the crate whose `src` directory is `root/dir/src`, as modules; files
/// under `src/bin` are left out (each is a crate of its own).
fn crate_files(root: &Path, dir: &str) -> Vec<SourceFile> {
    let src = root.join(dir).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths
        .into_iter()
        .filter(|path| !path.strip_prefix(&src).unwrap().starts_with("bin"))
        .map(|path| SourceFile {
            module: module_of(path.strip_prefix(&src).unwrap()),
            display: path.strip_prefix(root).unwrap().display().to_string(),
            text: fs::read_to_string(&path).unwrap(),
        })
        .collect()
}

/// The directories of the workspace's packages: the root's and its `members`.
fn package_dirs(root: &Path) -> Vec<String> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find(|line| line.trim_start().starts_with("members"))
        .expect("the workspace's members in Cargo.toml");
    let mut dirs = vec![".".to_string()];
    dirs.extend(members.split('"').skip(1).step_by(2).map(str::to_string));
    dirs
}

#[test]
fn no_crate_has_a_cycle_among_its_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = package_dirs(root);
    assert!(dirs.len() >= 7, "the workspace's packages: {dirs:?}");
    let mut reports = Vec::new();
    let mut files_seen = 0;
    for dir in &dirs {
        if !root.join(dir).join("src").is_dir() {
            continue;
        }
        let files = crate_files(root, dir);
        files_seen += files.len();
        let crate_name = if dir == "." { "rafle" } else { dir.as_str() };
        reports.extend(cycle_report(crate_name, &files));
    }
    assert!(files_seen > 50, "only {files_seen} source files found");
    assert!(reports.is_empty(), "module cycles:\n{}", reports.join("\n"));
}

#[test]
fn no_function_of_the_generator_is_too_long_or_takes_too_many_arguments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<SourceFile> = crate_files(root, "generator");
    let verification = files
        .iter()
        .filter(|f| f.module.first().is_some_and(|m| m == "verify"))
        .count();
    assert!(
        files.len() > 40 && verification > 10,
        "only {} files in generator/src, {verification} of them in generator/src/verify",
        files.len()
    );
    let mut long = Vec::new();
    for file in &files {
        let tokens = tokenize(&file.text);
        for (name, line, length) in function_lengths(&tokens) {
            if length > LONGEST_FUNCTION {
                long.push(format!(
                    "{}:{line}: fn {name} is {length} lines long",
                    file.display
                ));
            }
        }
        for line in lint_allowed(&tokens, "too_many_arguments") {
            long.push(format!(
                "{}:{line}: allows clippy::too_many_arguments",
                file.display
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FUNCTION} lines (split them into named steps) or with too many \
         arguments (name the bundle):\n{}",
        long.join("\n")
    );
}

/// The most lines a command's `run` may take: it parses, calls the library, prints.
const LONGEST_RUN: usize = 60;

#[test]
fn the_command_line_is_glue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src/commands"), &mut paths);
    assert!(
        paths.len() > 10,
        "only {} files in src/commands",
        paths.len()
    );
    let mut found = Vec::new();
    let mut runs = 0;
    for path in &paths {
        let text = fs::read_to_string(path).unwrap();
        let tokens = tokenize(&text);
        let shown = path.strip_prefix(root).unwrap().display();
        for (name, line, length) in function_lengths(&tokens) {
            runs += usize::from(name == "run");
            if name == "run" && length > LONGEST_RUN {
                found.push(format!("{shown}:{line}: fn run is {length} lines long"));
            }
        }
        // The work of many positions belongs to a library, where every surface reaches it.
        for (number, line) in text.lines().enumerate() {
            if line.contains("par_iter") || line.contains("par_chunks") {
                found.push(format!("{shown}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(runs >= 12, "only {runs} commands' run found");
    assert!(
        found.is_empty(),
        "a command's run over {LONGEST_RUN} lines, or parallel work in the binary (move it \
         into a library):\n{}",
        found.join("\n")
    );
}
