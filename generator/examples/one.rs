// Profile helper: generate a variant up to N pieces into /tmp/tb (reusing what exists).
fn main() {
    let v: rafle_probe::Variant = std::env::args().nth(1).unwrap().parse().unwrap();
    let n: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
    let plan = rafle_generator::Plan::new(v, n, "/tmp/tb".as_ref()).unwrap();
    let t = std::time::Instant::now();
    let s = rafle_generator::generate(&plan, &rafle_generator::NoProgress).unwrap();
    for m in s.iter().filter(|m| !m.reused) { println!("{} {} {:.2}s", m.material, m.positions, m.seconds); }
    println!("{:.1}s", t.elapsed().as_secs_f64());
}
