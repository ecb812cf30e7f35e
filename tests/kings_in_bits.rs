//! The kings-only materials solved in bits (`RAFLE_KINGS_IN_BITS=1` makes every one of them be,
//! not only those past `solve::IN_BITS_ABOVE` positions) give the same tables, byte for byte, as
//! the engine, with the rule tables and without.

use std::path::Path;
use std::process::Command;

fn generate(dir: &Path, variant: &str, pieces: &str, tables: &str, bits: bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_rafle"))
        .args([
            "generate",
            "--variant",
            variant,
            "--pieces",
            pieces,
            "--tables",
            tables,
            "--data",
        ])
        .arg(dir)
        .env("RAFLE_KINGS_IN_BITS", if bits { "1" } else { "0" })
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every table file of `dir/variant`, by name, with its bytes.
fn tables(dir: &Path, variant: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join(variant))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn kings_only_materials_in_bits_give_the_same_tables() {
    for (variant, pieces, kinds) in [
        ("brazilian", "4", "all"),
        ("international", "3", "all"),
        ("brazilian", "4", "wdl"),
    ] {
        let engine = tempfile::tempdir().unwrap();
        let bits = tempfile::tempdir().unwrap();
        generate(engine.path(), variant, pieces, kinds, false);
        generate(bits.path(), variant, pieces, kinds, true);
        let (a, b) = (tables(engine.path(), variant), tables(bits.path(), variant));
        assert!(a
            .iter()
            .any(|(name, _)| name == "KKvKK.wdl" || name == "KKvK.wdl"));
        assert_eq!(a.len(), b.len());
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{variant} {name} ({kinds}) differs");
        }
    }
}
