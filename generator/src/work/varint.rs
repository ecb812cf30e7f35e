//! Numbers of a few bytes in work files: LEB128 (seven bits a byte, the top bit set on all but
//! the last), and the zigzag mapping that gives a small difference of either sign a small
//! number. Seed files code the gaps between seeds so, band file directories the differences
//! between the halves they list.

/// Appends `v` in LEB128.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The LEB128 number at `*at` in `bytes`, `*at` moved past it; `None` if `bytes` ends inside
/// it or it runs past ten bytes.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// `step` as a number of about its magnitude: 0, −1, 1, −2, 2… give 0, 1, 2, 3, 4…
pub(crate) fn zigzag(step: i64) -> u64 {
    ((step << 1) ^ (step >> 63)) as u64
}

/// The step [`zigzag`] gave `z`.
pub(crate) fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_as_written_and_a_cut_one_is_none() {
        let values = [0, 1, 127, 128, 300, 1 << 35, u64::MAX];
        let mut bytes = Vec::new();
        for &v in &values {
            put_varint(&mut bytes, v);
        }
        let mut at = 0;
        for &v in &values {
            assert_eq!(get_varint(&bytes, &mut at), Some(v));
        }
        assert_eq!(at, bytes.len());
        // u64::MAX takes ten bytes; cut in the middle it does not read.
        let mut at = bytes.len() - 5;
        assert_eq!(get_varint(&bytes[..bytes.len() - 1], &mut at), None);
        // Ten bytes all continuing: too long.
        assert_eq!(get_varint(&[0x80; 11], &mut 0), None);
        for step in [0, -1, 1, -2, 2, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(step)), step);
        }
        assert_eq!([0, -1, 1, -2, 2].map(zigzag), [0, 1, 2, 3, 4]);
    }
}
