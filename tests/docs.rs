//! The manual cannot drift: every command shown in `README.md` and `docs/*.md` is run, and
//! what it prints must be what the page shows; or the block is visibly marked as not run, with
//! the reason. `docs/testing.md` (The manual) says the same for writers of the manual.
//!
//! Conventions:
//!
//! - **```` ```console ```` blocks are run.** A line `$ COMMAND` is a command; the lines after
//!   it, up to the next `$ ` or the end of the block, are its output: stdout and stderr merged
//!   in the order written, as a terminal shows them (stderr is where rafle writes its headers,
//!   log lines and errors). Trailing white space and trailing blank lines do not count.
//! - **Elision.** A line `...` alone matches any number of lines, none included; `...` inside a
//!   line matches any text within that line (`{"variant":...,"dtw":3,...}`). Use it for what
//!   differs between machines or runs (seconds, the default memory budget) and for what
//!   depends on the set the reader built (`max_pieces`), never to hide a value an example is
//!   about.
//! - **Exit codes.** A command must exit 0, unless the last line shown starts with `rafle: `
//!   (its error message): then it must exit 1 or 2.
//! - **Commands.** `rafle …` runs the binary built for the tests; `curl … localhost:8080/…`
//!   sends the request (`-s`, `-G`, `-d`, `--data-urlencode`, `-H`) to a `rafle serve` the
//!   test starts on a free port; `target/probe-example …` runs `examples/probe.c` compiled with
//!   `cc` against the library built for the tests; `echo … | COMMAND` feeds it. Nothing else
//!   runs, and no shell: anything else fails the test until the block is marked.
//! - **Where.** Each page is one session: its blocks run in order in one new directory whose
//!   `data/` holds a copy of the test's tables, Brazilian and international up to 3 pieces
//!   (what a page builds with `--data small` stays for its later blocks). Commands run with
//!   `RAYON_NUM_THREADS=2`: the figures a page shows are those of 2 threads.
//! - **```` ```sh ```` blocks are parsed.** Every `rafle` command line (continuations joined,
//!   after `;`, `&&` or `|`, behind `VAR=value` words, as `PATH/rafle` too) must parse: run
//!   with `--help` added it must exit 0, which clap only does once every option and value
//!   before it reads well. Any other program fails the test unless the block is marked.
//! - **Commands in the prose.** A code span `rafle COMMAND …` outside blocks must parse
//!   as a shell block's line does, unless it holds a placeholder (`N`, `DIR`, `K,C`, `…`).
//! - **Markers**, an HTML comment on the last non-blank line before the block:
//!   `<!-- docs-test: not run: REASON -->` (nothing of the block runs) and, for shell blocks,
//!   `<!-- docs-test: rafle only: REASON -->` (the `rafle` lines are parsed, the other
//!   programs are not run), `<!-- docs-test: ci: REASON -->` (shell blocks that
//!   `scripts/readme-test.sh` runs as written in a fresh copy of the repository, from
//!   `.ci/run`; here as `rafle only`) and `<!-- docs-test: synopsis -->` (each line `rafle COMMAND
//!   [OPTIONS]` must name exactly the options of `rafle COMMAND --help`). Blocks of other
//!   languages (`rust`, plain) are not commands.
//! - **Not a diary.** The manual (`README.md`, `docs/**/*.md`) names no sitting, no previous
//!   `main`, no issue number and no build by its commit, and each of its relative links leads to
//!   a file (`the_manual_is_no_diary_and_its_links_lead_somewhere`). What was run, and how the
//!   figures were reached, is kept in `records/`, which is not the manual: nothing there is run.
//! - **Bless.** `RAFLE_DOCS_BLESS=1 cargo test --test docs` writes the actual output into the
//!   page for every failing command, keeping each line that still matches and each elision
//!   whose surroundings are still there (`matching::blessed`); the result must match, or the
//!   page is left as it was, for a human to edit from the output printed in full.

// The server is stopped with SIGTERM (libc, a Unix dev-dependency), as in tests/e2e/serve.rs.
#![cfg(unix)]

#[path = "docs/commands.rs"]
mod commands;
#[path = "docs/diary.rs"]
mod diary;
#[path = "docs/markdown.rs"]
mod markdown;
#[path = "docs/matching.rs"]
mod matching;

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use commands::{copy_dir, run_process, tokens, Runner, Token};
use markdown::{Block, Marker};

/// What the test found, for its summary and its verdict.
#[derive(Default)]
struct Report {
    failures: Vec<String>,
    /// (file, first expected line, lines it replaces, new lines), for bless mode.
    blessings: Vec<(PathBuf, usize, usize, Vec<String>)>,
    run: usize,
    parsed: usize,
    synopsis: usize,
    inline: usize,
    marked: Vec<String>,
}

#[test]
fn every_command_in_the_manual_prints_what_the_manual_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rafle = PathBuf::from(env!("CARGO_BIN_EXE_rafle"));
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let tables = scratch.path().join("tables");
    let generated = run_process(
        Command::new(&rafle)
            .args(["generate", "--pieces", "3", "--data"])
            .arg(&tables),
        scratch.path(),
        None,
    )
    .expect("rafle generate runs");
    assert_eq!(generated.code, Some(0), "{}", generated.output);

    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ is there")
        .map(|e| e.expect("docs/ lists").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);

    let mut runner = Runner::new(rafle, tables.clone(), scratch.path().to_path_buf());
    let mut report = Report::default();
    for page in &pages {
        let name = page
            .strip_prefix(root)
            .expect("under the root")
            .display()
            .to_string();
        let text = fs::read_to_string(page).expect("the page reads");
        let blocks = match markdown::blocks(&text) {
            Ok(blocks) => blocks,
            Err(e) => {
                report.failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let session = tempfile::tempdir_in(scratch.path()).expect("a directory for the page");
        copy_dir(&tables, &session.path().join("data")).expect("the tables copy");
        for block in &blocks {
            check_block(&mut runner, &name, page, block, session.path(), &mut report);
        }
        for (line, command) in markdown::inline_commands(&text) {
            let args: Vec<String> = command
                .split_whitespace()
                .skip(1)
                .map(String::from)
                .collect();
            report.inline += 1;
            if let Err(e) = runner.parses(&args, session.path()) {
                report
                    .failures
                    .push(format!("{name}:{line}: `{command}` does not parse: {e}"));
            }
        }
    }
    drop(runner);

    if std::env::var_os("RAFLE_DOCS_BLESS").is_some() {
        bless(&report.blessings);
    }
    eprintln!(
        "docs: {} commands run and checked, {} rafle command lines parsed (and {} quoted in the \
         prose), {} synopsis lines checked, {} blocks marked:",
        report.run,
        report.parsed,
        report.inline,
        report.synopsis,
        report.marked.len()
    );
    for marked in &report.marked {
        eprintln!("  {marked}");
    }
    // The manual shows 34 commands to run: far fewer means the parser lost blocks.
    assert!(
        report.run >= 30,
        "only {} commands found to run: is the parser broken?",
        report.run
    );
    assert!(
        report.failures.is_empty(),
        "{} of the manual's commands do not do what it shows:\n\n{}",
        report.failures.len(),
        report.failures.join("\n\n")
    );
}

/// `README.md` and every `.md` under `docs/`, however deep: the manual, and nothing else
/// (`records/` keeps runs, not instructions).
fn manual_pages(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, pages: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("docs/ lists") {
            let path = entry.expect("docs/ lists").path();
            if path.is_dir() {
                walk(&path, pages);
            } else if path.extension().is_some_and(|x| x == "md") {
                pages.push(path);
            }
        }
    }
    let mut pages = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut pages);
    pages.sort();
    pages
}

#[test]
fn the_manual_is_no_diary_and_its_links_lead_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = manual_pages(root);
    assert!(pages.len() >= 10, "the manual's pages: {pages:?}");
    let mut failures = Vec::new();
    for page in &pages {
        let name = page.strip_prefix(root).expect("under the root").display();
        let text = fs::read_to_string(page).expect("the page reads");
        for (line, what) in diary::traces(&text) {
            failures.push(format!("{name}:{line}: {what}"));
        }
        let dir = page.parent().expect("a page is in a directory");
        for (line, target) in diary::broken_links(&text, dir) {
            failures.push(format!("{name}:{line}: the link `{target}` leads nowhere"));
        }
    }
    assert!(
        failures.is_empty(),
        "the manual says what is, with the command that measures it; how figures were \
         reached goes to records/history.md:\n{}",
        failures.join("\n")
    );
}

fn check_block(
    runner: &mut Runner,
    name: &str,
    page: &Path,
    block: &Block,
    cwd: &Path,
    report: &mut Report,
) {
    let at = format!("{name}:{}", block.line);
    let shell = matches!(block.lang.as_str(), "sh" | "bash" | "shell");
    match (&block.marker, block.lang.as_str()) {
        (Marker::NotRun(reason), _) => {
            report
                .marked
                .push(format!("{at} ({}): not run: {reason}", block.lang));
            return;
        }
        (Marker::RafleOnly(reason), _) if shell => {
            report
                .marked
                .push(format!("{at} ({}): rafle lines only: {reason}", block.lang));
        }
        (Marker::RafleOnly(_), _) => {
            report
                .failures
                .push(format!("{at}: `rafle only` is for shell blocks"));
            return;
        }
        (Marker::Ci(reason), _) if shell => {
            report.marked.push(format!(
                "{at} ({}): run by scripts/readme-test.sh: {reason}",
                block.lang
            ));
        }
        (Marker::Ci(_), _) => {
            report
                .failures
                .push(format!("{at}: `ci` is for shell blocks"));
            return;
        }
        (Marker::Synopsis, _) if shell => return check_synopsis(runner, name, block, cwd, report),
        (Marker::Synopsis, _) => {
            report
                .failures
                .push(format!("{at}: `synopsis` is for shell blocks"));
            return;
        }
        (Marker::None, _) => {}
    }
    if block.lang == "console" {
        check_console(runner, name, page, block, cwd, report);
    } else if shell {
        check_shell(runner, name, block, cwd, report);
    } else if block.body.iter().any(|(_, l)| l.starts_with("$ ")) {
        // A session shown in a block of another kind would escape the test.
        report
            .failures
            .push(format!("{at}: `$ ` commands belong in a console block"));
    }
}

fn check_console(
    runner: &mut Runner,
    name: &str,
    page: &Path,
    block: &Block,
    cwd: &Path,
    report: &mut Report,
) {
    let examples = match markdown::examples(block) {
        Ok(examples) => examples,
        Err(e) => return report.failures.push(format!("{name}: {e}")),
    };
    for example in examples {
        let at = format!("{name}:{} (block at line {})", example.line, block.line);
        let outcome = match runner.run(&example.command, cwd) {
            Ok(outcome) => outcome,
            Err(e) => {
                report
                    .failures
                    .push(format!("{at}\n$ {}\n{e}", example.command));
                continue;
            }
        };
        report.run += 1;
        let actual: Vec<String> = outcome.output.lines().map(str::to_string).collect();
        let fails = example
            .expected
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.starts_with("rafle: "));
        let code_ok = if fails {
            matches!(outcome.code, Some(1 | 2))
        } else {
            outcome.code == Some(0)
        };
        if code_ok && matching::matches(&example.expected, &actual) {
            continue;
        }
        let mut message = format!("{at}\n$ {}\n", example.command);
        if !code_ok {
            let wanted = if fails {
                "1 or 2 (the output ends with `rafle: `)"
            } else {
                "0"
            };
            message.push_str(&format!(
                "exit code {:?}, expected {wanted}\n",
                outcome.code
            ));
        }
        message.push_str("difference (`-` shown in the page, `+` printed, `...` elides):\n");
        message.push_str(&indent(&matching::diff(&example.expected, &actual)));
        message.push_str("printed in full:\n");
        message.push_str(&indent(&outcome.output));
        let blessed = matching::blessed(&example.expected, &actual).filter(|_| code_ok);
        if blessed.is_none() && std::env::var_os("RAFLE_DOCS_BLESS").is_some() {
            message.push_str("not blessed (the exit code differs, or an elision would be lost)\n");
        }
        report.failures.push(message);
        if let Some(new) = blessed {
            report.blessings.push((
                page.to_path_buf(),
                example.line + 1,
                example.expected.len(),
                new,
            ));
        }
    }
}

fn check_shell(runner: &mut Runner, name: &str, block: &Block, cwd: &Path, report: &mut Report) {
    let others_allowed = matches!(block.marker, Marker::RafleOnly(_) | Marker::Ci(_));
    for (line, text) in markdown::shell_lines(block) {
        let at = format!("{name}:{line} (block at line {})", block.line);
        let tokens = match tokens(&text) {
            Ok(tokens) => tokens,
            Err(e) => return report.failures.push(format!("{at}: {e}")),
        };
        // Each command of the line: split at the operators, without a redirection's target.
        let mut commands: Vec<Vec<String>> = vec![Vec::new()];
        let mut redirect = false;
        for token in tokens {
            match token {
                Token::Op(op) if op == ">" || op == ">>" || op == "<" => redirect = true,
                Token::Op(_) => commands.push(Vec::new()),
                Token::Word(_) if redirect => redirect = false,
                Token::Word(w) => commands.last_mut().expect("one at least").push(w),
            }
        }
        for words in commands.into_iter().filter(|c| !c.is_empty()) {
            let mut words = words
                .into_iter()
                .skip_while(|w| is_assignment(w))
                .peekable();
            let Some(program) = words.next() else {
                continue;
            };
            let args: Vec<String> = words.collect();
            if program == "rafle" || program.ends_with("/rafle") {
                report.parsed += 1;
                if let Err(e) = runner.parses(&args, cwd) {
                    report
                        .failures
                        .push(format!("{at}\n{text}\ndoes not parse: {e}"));
                }
            } else if !others_allowed {
                report.failures.push(format!(
                    "{at}\n{text}\n`{program}` is not a rafle command: mark the block \
                     `<!-- docs-test: not run: REASON -->` or `<!-- docs-test: rafle only: REASON -->`"
                ));
            }
        }
    }
}

/// A synopsis of the commands: each line `rafle COMMAND [OPTIONS]   # what` must name every
/// option that `rafle COMMAND --help` lists, and no other (`[X options]` stands for those of
/// the line of command X), so that an option added, renamed or removed shows here.
fn check_synopsis(runner: &Runner, name: &str, block: &Block, cwd: &Path, report: &mut Report) {
    let mut named: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (line, text) in markdown::shell_lines(block) {
        let at = format!("{name}:{line} (block at line {})", block.line);
        let text = text.split(" #").next().unwrap_or_default();
        let mut words = text.split_whitespace();
        if words.next() != Some("rafle") {
            report
                .failures
                .push(format!("{at}: a synopsis line is `rafle COMMAND …`"));
            continue;
        }
        let command: Vec<&str> = words
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        let mut shown = options(text);
        for (other, options) in &named {
            if text.contains(&format!("[{other} options]")) {
                shown.extend(options.iter().cloned());
            }
        }
        let mut args: Vec<String> = command.iter().map(|w| w.to_string()).collect();
        args.push("--help".into());
        let help = match run_process(Command::new(&runner.rafle).args(&args), cwd, None) {
            Ok(out) if out.code == Some(0) => out.output,
            Ok(out) => return report.failures.push(format!("{at}: {}", out.output)),
            Err(e) => return report.failures.push(format!("{at}: {e}")),
        };
        // The options are the first column of the lines that start with a dash.
        let listed: BTreeSet<String> = help
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .flat_map(|l| options(l.split("  ").next().unwrap_or_default()))
            .filter(|o| o != "--help" && o != "--version")
            .collect();
        let unknown: Vec<_> = shown.difference(&listed).collect();
        let missing: Vec<_> = listed.difference(&shown).collect();
        if !unknown.is_empty() || !missing.is_empty() {
            report.failures.push(format!(
                "{at}\n{text}\nnot options of `rafle {}`: {unknown:?}; its options not shown: {missing:?}",
                command.join(" ")
            ));
        }
        report.synopsis += 1;
        named.insert(command.join(" "), shown);
    }
}

/// The `--long` options named in `text`.
fn options(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .collect()
}

/// `NAME=value`, a shell variable set for the command after it.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Writes each blessed output in place of the lines the page showed, last first in each page
/// so that earlier line numbers stay right.
fn bless(blessings: &[(PathBuf, usize, usize, Vec<String>)]) {
    let mut sorted: Vec<_> = blessings.iter().collect();
    sorted.sort_by(|a, b| (&a.0, b.1).cmp(&(&b.0, a.1)));
    for (page, first, count, new) in sorted {
        let text = fs::read_to_string(page).expect("the page reads");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.splice(first - 1..first - 1 + count, new.iter().cloned());
        let end = if text.ends_with('\n') { "\n" } else { "" };
        fs::write(page, lines.join("\n") + end).expect("the page writes");
        eprintln!("blessed {}:{first}", page.display());
    }
}
