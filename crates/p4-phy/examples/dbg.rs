fn main() {
    let mut s = p4_phy::Scrambler::default();
    let v: String = (0..80).map(|_| if s.scramble(0x1e) >> 63 == 1 { '1' } else { '0' }).collect();
    println!("{v}");
}
