//! Little-endian byte encoding for metadata and column blocks, with a 64-bit checksum.
//! A reader over bytes never panics: every read checks the remaining length and reports
//! a corrupt file by name.

use beluga_runtime::column::{ColData, Column, StrCol, SymCol};
use beluga_runtime::{DataType, Error, Result};

/// 64-bit checksum of a byte slice (word-at-a-time multiply/rotate mix; detects torn and
/// corrupted files, not an adversary).
pub fn checksum(b: &[u8]) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let mut h: u64 = 0x27D4_EB2F_1656_67C5 ^ (b.len() as u64).wrapping_mul(P1);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
    }
    let mut tail = 0u64;
    for (k, &x) in chunks.remainder().iter().enumerate() {
        tail |= (x as u64) << (8 * k);
    }
    h = (h ^ tail.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^ (h >> 29)
}

/// Checksum of a column block written since the block-flag `SUM_WIDE` (column_file.rs):
/// the same multiply/rotate round as [`checksum`], over four independent lanes of 8
/// bytes each (32 bytes a step), merged at the end. Four chains instead of one serial
/// chain let the multiplies overlap, so verifying a block costs a quarter of the time
/// (it was ~10% of a cold whole-day read) while any changed byte still changes the sum.
pub fn checksum_wide(b: &[u8]) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let seed = 0x27D4_EB2F_1656_67C5 ^ (b.len() as u64).wrapping_mul(P1);
    let mut h = [seed, seed.wrapping_add(P1), seed.wrapping_add(P2), seed.rotate_left(17)];
    let mut chunks = b.chunks_exact(32);
    for c in &mut chunks {
        for (k, l) in h.iter_mut().enumerate() {
            let o = 8 * k;
            let w = u64::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3], c[o + 4], c[o + 5], c[o + 6], c[o + 7]]);
            *l = (*l ^ w.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
        }
    }
    // lanes merged in order (a block with two lanes' words swapped sums differently)
    let mut m = h[0];
    for &l in &h[1..] {
        m = (m ^ l.wrapping_mul(P2)).rotate_left(27).wrapping_mul(P1);
    }
    m ^ checksum(chunks.remainder())
}

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer { buf: Vec::new() }
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// A data type: its id, then the scale for DECIMAL types (ids 37-39 were never
    /// written before DECIMAL had storage, so older files read unchanged).
    pub fn dtype(&mut self, t: DataType) {
        self.u8(t.id() as u8);
        // a DECIMAL array type (`DECIMAL32(2)[]`, ids 101-103) keeps its scale the same way
        if let Some(s) = t.decimal_scale().or_else(|| t.array_elem().and_then(|e| e.decimal_scale())) {
            self.u8(s);
        }
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// A small column (scheme values, metadata): type, length, values.
    pub fn column(&mut self, c: &Column) {
        self.dtype(c.ty);
        self.u64(c.len() as u64);
        match &*c.data {
            ColData::I8(v) => v.iter().for_each(|x| self.u8(*x as u8)),
            ColData::I16(v) => v.iter().for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes())),
            ColData::I32(v) => v.iter().for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes())),
            ColData::I64(v) => v.iter().for_each(|x| self.i64(*x)),
            ColData::F32(v) => v.iter().for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes())),
            ColData::F64(v) => v.iter().for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes())),
            ColData::I128(v) => v.iter().for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes())),
            ColData::Sym(s) => s.codes.iter().for_each(|&k| self.str(s.dict.get(k))),
            ColData::Str(s) => s.iter().for_each(|x| self.str(x)),
            // an array vector: its rows + 1 offsets, then the flat column
            ColData::Array(a) => {
                a.offsets.iter().for_each(|&o| self.u64(o as u64));
                self.column(&a.data);
            }
        }
    }
    /// Append the checksum of everything written so far.
    pub fn seal(mut self) -> Vec<u8> {
        let c = checksum(&self.buf);
        self.u64(c);
        self.buf
    }
}

pub struct Reader<'a> {
    pub b: &'a [u8],
    pub pos: usize,
    /// file name used in error messages
    pub what: &'a str,
}

pub fn corrupt(what: &str, detail: &str) -> Error {
    Error::new(beluga_runtime::ErrorKind::Io, format!("The file {what} is corrupt or incomplete ({detail})"))
}

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8], what: &'a str) -> Reader<'a> {
        Reader { b, pos: 0, what }
    }
    /// A reader over a sealed buffer: verifies and strips the trailing checksum.
    pub fn sealed(b: &'a [u8], what: &'a str) -> Result<Reader<'a>> {
        if b.len() < 8 {
            return Err(corrupt(what, "too short"));
        }
        let (body, tail) = b.split_at(b.len() - 8);
        let want = u64::from_le_bytes(tail.try_into().map_err(|_| corrupt(what, "checksum"))?);
        if checksum(body) != want {
            return Err(corrupt(what, "checksum mismatch"));
        }
        Ok(Reader::new(body, what))
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.b.len() - self.pos {
            return Err(corrupt(self.what, "unexpected end of data"));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// A data type written by `Writer::dtype`.
    pub fn dtype(&mut self) -> Result<DataType> {
        let t = DataType::from_id(self.u8()? as i32).ok_or_else(|| corrupt(self.what, "bad type"))?;
        if t.decimal_scale().is_some() {
            let s = self.u8()?;
            if s > t.decimal_max_scale() {
                return Err(corrupt(self.what, "bad DECIMAL scale"));
            }
            return Ok(t.with_scale(s));
        }
        if let Some(e) = t.array_elem().filter(|e| e.decimal_scale().is_some()) {
            let s = self.u8()?;
            if s > e.decimal_max_scale() {
                return Err(corrupt(self.what, "bad DECIMAL scale"));
            }
            return DataType::array_of(e.with_scale(s)).ok_or_else(|| corrupt(self.what, "bad type"));
        }
        Ok(t)
    }
    pub fn u32(&mut self) -> Result<u32> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    pub fn u64(&mut self) -> Result<u64> {
        let s = self.take(8)?;
        Ok(u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]))
    }
    pub fn i64(&mut self) -> Result<i64> {
        Ok(self.u64()? as i64)
    }
    pub fn len(&mut self) -> Result<usize> {
        let n = self.u64()?;
        if n > (self.b.len() - self.pos) as u64 * 8 + 64 {
            return Err(corrupt(self.what, "bad length"));
        }
        Ok(n as usize)
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()? as usize;
        self.take(n)
    }
    pub fn str(&mut self) -> Result<&'a str> {
        let b = self.bytes()?;
        std::str::from_utf8(b).map_err(|_| corrupt(self.what, "invalid text"))
    }
    pub fn string(&mut self) -> Result<String> {
        Ok(self.str()?.to_string())
    }
    pub fn column(&mut self) -> Result<Column> {
        let ty = self.dtype()?;
        let n = self.len()?;
        if ty.array_elem().is_some() {
            let mut offsets = Vec::with_capacity(n + 1);
            for _ in 0..=n {
                offsets.push(self.u64()? as usize);
            }
            let data = self.column()?;
            if offsets[0] != 0 || offsets.windows(2).any(|w| w[0] > w[1]) || offsets[n] != data.len() {
                return Err(corrupt(self.what, "array-vector offsets"));
            }
            return Ok(Column::from_array(std::sync::Arc::new(beluga_runtime::value::ArrayVec::new(offsets, data))));
        }
        macro_rules! fixed {
            ($t:ty, $w:expr, $var:ident) => {{
                let s = self.take(n * $w)?;
                ColData::$var(s.chunks_exact($w).map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $w]))).collect())
            }};
        }
        let data = match ty.physical() {
            beluga_runtime::types::Physical::I8 | beluga_runtime::types::Physical::None => {
                ColData::I8(self.take(n)?.iter().map(|&x| x as i8).collect())
            }
            beluga_runtime::types::Physical::I16 => fixed!(i16, 2, I16),
            beluga_runtime::types::Physical::I32 => fixed!(i32, 4, I32),
            beluga_runtime::types::Physical::I64 => fixed!(i64, 8, I64),
            beluga_runtime::types::Physical::F32 => fixed!(f32, 4, F32),
            beluga_runtime::types::Physical::F64 => fixed!(f64, 8, F64),
            beluga_runtime::types::Physical::I128 => fixed!(i128, 16, I128),
            beluga_runtime::types::Physical::Sym => {
                let mut s = SymCol::new();
                for _ in 0..n {
                    s.push(self.str()?);
                }
                ColData::Sym(s)
            }
            beluga_runtime::types::Physical::Str => {
                let mut s = StrCol::new();
                for _ in 0..n {
                    s.push(self.str()?);
                }
                ColData::Str(s)
            }
        };
        Ok(Column::new(ty, data))
    }
    pub fn done(&self) -> bool {
        self.pos >= self.b.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_round_trip_and_corruption() {
        let mut w = Writer::new();
        w.str("hello");
        w.column(&Column::from_vec(DataType::Int, vec![1, 2, 3]));
        let mut b = w.seal();
        {
            let mut r = Reader::sealed(&b, "x").unwrap();
            assert_eq!(r.str().unwrap(), "hello");
            let c = r.column().unwrap();
            assert_eq!(c.len(), 3);
        }
        b[3] ^= 1;
        assert!(Reader::sealed(&b, "x").is_err());
        assert!(Reader::sealed(&b[..5], "x").is_err());
    }

    /// Every single-bit change of a buffer (lanes, lane boundaries, the tail) and a swap
    /// of two lanes' words change the wide checksum; equal bytes give equal sums.
    #[test]
    fn wide_checksum_sees_every_bit() {
        let base: Vec<u8> = (0..203u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let s = checksum_wide(&base);
        assert_eq!(s, checksum_wide(&base.clone()));
        for i in 0..base.len() {
            for bit in 0..8 {
                let mut b = base.clone();
                b[i] ^= 1 << bit;
                assert_ne!(checksum_wide(&b), s, "byte {i} bit {bit}");
            }
        }
        let mut sw = base.clone();
        let (a, b) = sw.split_at_mut(8);
        a[..8].swap_with_slice(&mut b[..8]);
        assert_ne!(checksum_wide(&sw), s);
        assert_ne!(checksum_wide(&base[..202]), s);
    }
}
