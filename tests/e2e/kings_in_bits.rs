//! The kings-only materials solved in bits (`RAFLE_KINGS_IN_BITS=1` makes every one of them be,
//! not only those past `solve::IN_BITS_ABOVE` positions) give the same tables, byte for byte, as
//! the engine, with the rule tables and without.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::table_files;

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
        let (a, b) = (
            table_files(engine.path(), variant),
            table_files(bits.path(), variant),
        );
        assert!(a.contains_key("KKvKK.wdl") || a.contains_key("KKvK.wdl"));
        assert_eq!(a.len(), b.len());
        for (name, x) in &a {
            assert!(b.get(name) == Some(x), "{variant} {name} ({kinds}) differs");
        }
    }
}
