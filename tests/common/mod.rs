//! What the end-to-end tests share: running the `rafle` binary, checking how it succeeded or
//! failed, generating small table sets and reading its tables and JSON back.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use rafle_probe::toolkit::format::{BlockEntry, Header, TableKind, HEADER_LEN};
use rafle_probe::{
    draughts::{Material, Variant},
    toolkit::Table,
};

use serde_json::Value;
use tempfile::TempDir;

/// Runs the `rafle` binary with `args`, `stdin` (nothing if `None`) on its standard input,
/// without a table directory the user set for every command (`RAFLE_DATA`).
pub fn rafle_with_input(args: &[&str], stdin: Option<&str>) -> Output {
    rafle_testkit::run(Path::new(env!("CARGO_BIN_EXE_rafle")), args, stdin)
}

/// Runs the `rafle` binary with `args` and nothing on its standard input.
pub fn rafle(args: &[&str]) -> Output {
    rafle_with_input(args, None)
}

/// As [`rafle`], with the variables `env` (name, value) set as well.
pub fn rafle_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    rafle_testkit::run_with_env(Path::new(env!("CARGO_BIN_EXE_rafle")), args, None, env)
}

pub use rafle_testkit::text;

/// Runs rafle, asserts it succeeded, returns its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = rafle(args);
    assert!(
        out.status.success(),
        "rafle {args:?} failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Runs rafle with `stdin`, asserts it exited with `code`, one line on stderr, no panic and
/// nothing on stdout; returns that line.
pub fn fails_with_input(args: &[&str], stdin: Option<&str>, code: i32) -> String {
    let out = rafle_with_input(args, stdin);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "rafle {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line on stderr: {err}");
    assert!(err.starts_with("rafle: "), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "rafle {args:?} wrote to stdout");
    err
}

/// As [`fails_with_input`], with nothing on stdin.
pub fn fails(args: &[&str], code: i32) -> String {
    fails_with_input(args, None, code)
}

/// The directory as a command-line argument.
pub fn data(dir: &TempDir) -> &str {
    dir.path().to_str().expect("temporary paths are UTF-8")
}

/// Runs `rafle generate --variant VARIANT --pieces PIECES --data DIR EXTRA…` into a new
/// directory and asserts it succeeded; returns the directory, stdout (the summary) and stderr.
pub fn generate(variant: &str, pieces: u32, extra: &[&str]) -> (TempDir, String, String) {
    let dir = TempDir::new().unwrap();
    let (stdout, stderr) = generate_in(dir.path(), variant, pieces, extra);
    (dir, stdout, stderr)
}

/// Runs `rafle generate --variant VARIANT --pieces PIECES --data DIR EXTRA…` into `dir` and
/// asserts it succeeded; returns stdout (the summary) and stderr.
pub fn generate_in(dir: &Path, variant: &str, pieces: u32, extra: &[&str]) -> (String, String) {
    let pieces = pieces.to_string();
    let mut args = vec![
        "generate",
        "--variant",
        variant,
        "--pieces",
        &pieces,
        "--data",
        dir.to_str().expect("temporary paths are UTF-8"),
    ];
    args.extend_from_slice(extra);
    let out = rafle(&args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "rafle {args:?} failed: {err}");
    (text(&out.stdout), err)
}

/// `rafle probe --json --variant VARIANT --data DIR EXTRA… FEN`: the one JSON object.
pub fn probe_json(dir: &TempDir, variant: &str, extra: &[&str], fen: &str) -> Value {
    let mut args = vec!["probe", "--variant", variant, "--data", data(dir), "--json"];
    args.extend_from_slice(extra);
    args.push(fen);
    let out = ok(&args);
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    serde_json::from_str(&out).expect("the line is JSON")
}

/// CRC-32 (IEEE), as the table format uses it.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                crc >> 1 ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `data` as a zstd frame of uncompressed ("raw") blocks: what any zstd reader decompresses.
pub fn raw_zstd_frame(data: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd];
    // Single segment, a 4-byte content size, no checksum, no dictionary.
    frame.push(0xa0);
    frame.extend_from_slice(&(data.len() as u32).to_le_bytes());
    let chunks: Vec<&[u8]> = data.chunks(1 << 16).collect();
    for (k, chunk) in chunks.iter().enumerate() {
        let last = u32::from(k + 1 == chunks.len());
        let header = (chunk.len() as u32) << 3 | last;
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.extend_from_slice(chunk);
    }
    frame
}

/// Rewrites a win/draw/loss table with every stored win made a loss and every loss a win, its
/// blocks and their checksums written anew so that the file opens and reads cleanly.
pub fn swap_wins_and_losses(path: &Path, material: Material) {
    let (header, blocks) = {
        let table = Table::open(path, TableKind::Wdl, Variant::Brazilian, material).unwrap();
        let blocks: Vec<Vec<u8>> = (0..table.header().blocks)
            .map(|b| table.read_block(b).unwrap())
            .collect();
        (*table.header(), blocks)
    };
    let frames: Vec<Vec<u8>> = blocks
        .into_iter()
        .map(|mut block| {
            for byte in &mut block {
                for k in 0..4 {
                    let code = *byte >> (2 * k) & 3;
                    if code == 1 || code == 2 {
                        *byte ^= 0b11 << (2 * k);
                    }
                }
            }
            raw_zstd_frame(&block)
        })
        .collect();
    let bytes = table_bytes(&header, &frames);
    let temporary = path.with_extension("new");
    std::fs::write(&temporary, bytes).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

/// Runs `rafle args`, killing it if it has not finished within 20 s (a hang is the defect):
/// exit code, stdout and stderr.
pub fn run_bounded(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args(args)
        .env_remove("RAFLE_DATA")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rafle binary runs");
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("rafle {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("finished");
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// A whole table file: `header`, then the block index of `frames` with its checksums, then the
/// frames themselves.
pub fn table_bytes(header: &Header, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut offset = (HEADER_LEN + header.index_len()) as u64;
    let mut index = Vec::new();
    for frame in frames {
        let entry = BlockEntry {
            offset,
            len: frame.len() as u32,
            crc: crc32(frame),
        };
        index.extend_from_slice(&entry.encode());
        offset += frame.len() as u64;
    }
    let mut bytes = header.encode().to_vec();
    bytes.extend_from_slice(&index);
    bytes.extend_from_slice(&crc32(&index).to_le_bytes());
    bytes.extend(frames.concat());
    bytes
}

/// Every table file of a variant directory, by name.
pub fn table_files(dir: &Path, variant: &str) -> HashMap<String, Vec<u8>> {
    fs::read_dir(dir.join(variant))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "wdl" || x == "dtw" || x == "rules")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (name, fs::read(&p).unwrap())
        })
        .collect()
}

/// Runs `rafle args` bounded, asserts it failed with exit 1 and a last line on stderr that is
/// one of rafle's (`rafle: …`) and ends with `path: what`, without a panic.
pub fn refused(args: &[&str], path: &Path, what: &str) {
    let (code, _, err) = run_bounded(args);
    assert_eq!(code, Some(1), "rafle {args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
    let expected = format!("{}: {what}\n", path.display());
    assert!(err.ends_with(&expected), "rafle {args:?}: {err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("rafle: "), "rafle {args:?}: {err}");
}

/// Asserts two directories hold the same table files, byte for byte; their number.
pub fn assert_same_tables(a: &Path, b: &Path, variant: &str) -> usize {
    let (a, b) = (table_files(a, variant), table_files(b, variant));
    let mut names: Vec<&String> = a.keys().collect();
    names.sort();
    assert_eq!(
        names,
        {
            let mut n: Vec<&String> = b.keys().collect();
            n.sort();
            n
        },
        "the same files"
    );
    for name in names {
        assert!(a[name] == b[name], "{name} differs");
    }
    a.len()
}

/// The packed work files of Brazilian materials in `dir`.
pub fn packed_files(dir: &Path) -> usize {
    fs::read_dir(dir.join("brazilian/.rafle-work")).map_or(0, |entries| {
        entries
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "packed")
            })
            .count()
    })
}
