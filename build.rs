//! Tells the command line the optimization level it is built with (`RAFLE_OPT_LEVEL`), so that
//! `rafle generate` can warn when it runs unoptimized, about ten times slower. The level, not
//! `debug_assertions`: the test profile optimizes but keeps debug assertions, and the tests run
//! the binary it builds.

fn main() {
    let level = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=RAFLE_OPT_LEVEL={level}");
    println!("cargo:rerun-if-changed=build.rs");
}
