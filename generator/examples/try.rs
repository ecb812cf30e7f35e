use rafle_generator::*;
use rafle_probe::*;
fn main() {
    let v: Variant = std::env::args().nth(1).unwrap().parse().unwrap();
    let n: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
    let dir = std::path::PathBuf::from("/tmp/tb");
    let plan = Plan::new(v, n, &dir).unwrap();
    println!("peak {}", human_bytes(plan.peak_bytes));
    let t = std::time::Instant::now();
    let s = generate(&plan, &NoProgress).unwrap();
    let total: u64 = s.iter().map(|m| m.positions).sum();
    let bytes: u64 = s.iter().map(|m| m.bytes).sum();
    for m in &s { println!("{} {} W{} D{} L{} {:.2}s {}B reused={}", m.material, m.positions, m.wins, m.draws, m.losses, m.seconds, m.bytes, m.reused); }
    println!("total {} positions {:.1}s {:.0} pos/s, {:.4} bits/pos", total, t.elapsed().as_secs_f64(), total as f64 / t.elapsed().as_secs_f64(), bytes as f64 * 8.0 / total as f64);
    if std::env::args().nth(3).is_some() {
        let tb = Tablebase::open(&dir).unwrap();
        for m in tb.materials(v) { let r = verify_table(&tb, v, m, &|_| {}).unwrap(); println!("verify {m}: {} mismatches {:?}", r.mismatches, r.examples); }
    }
}
