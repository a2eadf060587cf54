//! Splitting text into records and fields on bytes: one- or multi-byte delimiters, quoted
//! fields (`"a,b"`, `""` for a quote, newlines inside quotes), `\n` or `\r\n` line ends.
//! No allocation per field: fields are byte ranges of the buffer.

#[derive(Clone, Debug)]
pub struct Dialect {
    pub delim: Vec<u8>,
}

impl Dialect {
    pub fn new(delim: &str) -> Dialect {
        Dialect { delim: if delim.is_empty() { b",".to_vec() } else { delim.as_bytes().to_vec() } }
    }
}

/// One field of a record: a byte range; `quoted` fields may hold `""` escapes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Field {
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
}

/// The text of a field (unescaping `""` only when needed).
pub fn field_bytes<'a>(buf: &'a [u8], f: &Field, scratch: &'a mut Vec<u8>) -> &'a [u8] {
    let b = &buf[f.start..f.end];
    if f.quoted && b.contains(&b'"') {
        scratch.clear();
        let mut k = 0;
        while k < b.len() {
            scratch.push(b[k]);
            k += if b[k] == b'"' && b.get(k + 1) == Some(&b'"') { 2 } else { 1 };
        }
        return scratch;
    }
    b
}

/// Outcome of reading one record.
pub enum Rec {
    /// next position after the record's line end
    Next(usize),
    /// a quoted field runs to the end of the buffer
    Unterminated,
}

/// Split the record starting at `pos` into `fields` (cleared first).
#[inline]
pub fn record(buf: &[u8], pos: usize, d: &Dialect, fields: &mut Vec<Field>) -> Rec {
    fields.clear();
    let n = buf.len();
    let mut p = pos;
    let single = (d.delim.len() == 1).then(|| d.delim[0]);
    loop {
        if p < n && buf[p] == b'"' {
            // quoted field
            let start = p + 1;
            let mut q = start;
            loop {
                if q >= n {
                    return Rec::Unterminated;
                }
                if buf[q] == b'"' {
                    if q + 1 < n && buf[q + 1] == b'"' {
                        q += 2;
                        continue;
                    }
                    break;
                }
                q += 1;
            }
            fields.push(Field { start, end: q, quoted: true });
            p = q + 1;
            // skip to the delimiter or line end (text after the closing quote is ignored)
            while p < n && buf[p] != b'\n' && !at_delim(buf, p, d, single) {
                p += 1;
            }
        } else {
            let start = p;
            match single {
                Some(c) => p = scan(buf, p, c),
                None => {
                    while p < n && buf[p] != b'\n' && !at_delim(buf, p, d, None) {
                        p += 1;
                    }
                }
            }
            let mut end = p;
            if end > start && (p >= n || buf[p] == b'\n') && buf[end - 1] == b'\r' {
                end -= 1;
            }
            fields.push(Field { start, end, quoted: false });
        }
        if p >= n {
            return Rec::Next(n);
        }
        if buf[p] == b'\n' {
            return Rec::Next(p + 1);
        }
        p += d.delim.len();
    }
}

/// Position of the first `c` or newline at or after `p` (or the end): eight bytes per
/// step, testing each byte for zero after xor with the target (the lowest flagged byte is
/// always a true match; borrows only flag bytes above one).
#[inline]
fn scan(buf: &[u8], mut p: usize, c: u8) -> usize {
    const HI: u64 = 0x8080_8080_8080_8080;
    let (dc, dn) = (LO * c as u64, LO * b'\n' as u64);
    let n = buf.len();
    while p + 8 <= n {
        let mut a = [0u8; 8];
        a.copy_from_slice(&buf[p..p + 8]);
        let w = u64::from_le_bytes(a);
        let (x, y) = (w ^ dc, w ^ dn);
        let m = ((x.wrapping_sub(LO) & !x) | (y.wrapping_sub(LO) & !y)) & HI;
        if m != 0 {
            return p + (m.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while p < n && buf[p] != c && buf[p] != b'\n' {
        p += 1;
    }
    p
}

const LO: u64 = 0x0101_0101_0101_0101;
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const L7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The high bit of every zero byte of `x` (exact: no borrow crosses bytes).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & L7).wrapping_add(L7)) | x | L7)
}

/// Bit k set when byte k of the 64 bytes `b` is `c` or a newline: four 16-byte SSE2
/// compares (SSE2 is part of every x86-64 CPU).
#[cfg(target_arch = "x86_64")]
#[inline]
fn block_mask(b: &[u8; 64], c: u8) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    // SAFETY: SSE2 is enabled on every x86_64 target; each unaligned 16-byte load reads
    // b[16k..16k + 16], inside the 64-byte array.
    unsafe {
        let (vc, vn) = (_mm_set1_epi8(c as i8), _mm_set1_epi8(b'\n' as i8));
        let mut m = 0u64;
        for k in 0..4 {
            let x = _mm_loadu_si128(b.as_ptr().add(16 * k) as *const __m128i);
            let e = _mm_or_si128(_mm_cmpeq_epi8(x, vc), _mm_cmpeq_epi8(x, vn));
            m |= (_mm_movemask_epi8(e) as u32 as u64) << (16 * k);
        }
        m
    }
}

/// `block_mask` for other targets.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn block_mask(b: &[u8; 64], c: u8) -> u64 {
    block_mask_swar(b, c)
}

/// `block_mask` eight bytes at a time, without SIMD instructions.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn block_mask_swar(b: &[u8; 64], c: u8) -> u64 {
    let (dc, dn) = (LO * c as u64, LO * b'\n' as u64);
    let mut m = 0u64;
    for k in 0..8 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[8 * k..8 * k + 8]);
        let w = u64::from_le_bytes(a);
        // the high bit of each matching byte, gathered into the low eight bits
        let hits = (zero_bytes(w ^ dc) | zero_bytes(w ^ dn)) >> 7;
        m |= (hits.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    m
}

/// Positions of the delimiter and newline bytes of a buffer, in order, found 64 bytes at a
/// time (one bit per byte).
struct Seps {
    /// start of the block whose flags are in `mask`
    base: usize,
    /// bit k: byte `base + k` is a separator still to be returned
    mask: u64,
    c: u8,
}

impl Seps {
    fn new(buf: &[u8], pos: usize, c: u8) -> Seps {
        let mut s = Seps { base: pos, mask: 0, c };
        s.load(buf);
        s
    }

    #[inline]
    fn load(&mut self, buf: &[u8]) {
        let p = self.base;
        if let Some(b) = buf.get(p..p + 64) {
            self.mask = block_mask(b.try_into().unwrap_or(&[0; 64]), self.c);
        } else {
            self.mask = 0;
            for (k, &b) in buf.get(p..).unwrap_or(&[]).iter().enumerate() {
                if b == self.c || b == b'\n' {
                    self.mask |= 1 << k;
                }
            }
        }
    }

    /// The next delimiter or newline at or after the last one returned (`buf.len()` at the end).
    #[inline]
    fn next(&mut self, buf: &[u8]) -> usize {
        loop {
            if self.mask != 0 {
                let k = self.base + self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                return k;
            }
            if self.base + 64 >= buf.len() {
                self.base = buf.len();
                return buf.len();
            }
            self.base += 64;
            self.load(buf);
        }
    }
}

/// Split up to `max_rows` records of a buffer without quotes, with a one-byte delimiter,
/// starting at `pos`: appends `nf` field ranges per record to `out` (fields past `nf` are
/// dropped, missing ones are empty), skipping blank lines. Returns the position after the
/// last record and the number of records.
/// `counts` receives the number of fields of each record.
pub fn plain_rows(buf: &[u8], mut pos: usize, c: u8, nf: usize, out: &mut Vec<(u32, u32)>, max_rows: usize, counts: &mut Vec<u32>) -> (usize, usize) {
    let n = buf.len();
    let mut seps = Seps::new(buf, pos, c);
    let mut rows = 0;
    while rows < max_rows && pos < n {
        let first = out.len();
        let mut start = pos;
        let mut f = 0;
        let ended = loop {
            let s = seps.next(buf);
            let nl = s >= n || buf[s] == b'\n';
            let mut e = s.min(n);
            if nl && e > start && buf[e - 1] == b'\r' {
                e -= 1;
            }
            if f < nf {
                out.push((start as u32, e as u32));
            }
            f += 1;
            start = s + 1;
            if nl {
                break s < n;
            }
        };
        pos = start.min(n);
        if f == 1 && ended && out.get(first).is_some_and(|r| r.0 == r.1) {
            // a blank line
            out.truncate(first);
            continue;
        }
        for _ in f..nf {
            out.push((0, 0));
        }
        counts.push(f as u32);
        rows += 1;
    }
    (pos, rows)
}

#[inline]
fn at_delim(buf: &[u8], p: usize, d: &Dialect, single: Option<u8>) -> bool {
    match single {
        Some(c) => buf[p] == c,
        None => buf[p..].starts_with(&d.delim),
    }
}

/// True when the line at `pos` is empty (only `\r`), so it can be skipped.
#[inline]
pub fn blank_line(buf: &[u8], pos: usize) -> Option<usize> {
    match buf.get(pos) {
        Some(b'\n') => Some(pos + 1),
        Some(b'\r') if buf.get(pos + 1) == Some(&b'\n') => Some(pos + 2),
        _ => None,
    }
}

/// Scan `buf` for record boundaries outside quotes: returns the end of the last complete
/// record (0 if none) and cut points roughly every `every` bytes for parallel parsing.
/// `in_quote` is the quote state at the start of `buf`.
pub fn boundaries(buf: &[u8], every: usize) -> (usize, Vec<usize>) {
    let (last, cuts, _) = boundaries_quoted(buf, every);
    (last, cuts)
}

/// `boundaries`, and whether `buf` holds a quote at all (when not, the parsers of its
/// pieces need not scan them for one again).
pub fn boundaries_quoted(buf: &[u8], every: usize) -> (usize, Vec<usize>, bool) {
    let mut in_quote = false;
    let mut last = 0;
    let mut cuts = Vec::new();
    let mut next = every;
    // whether the text holds a quote at all, tested a megabyte per task on rayon's workers
    // (a serial scan of a 32 MB chunk would leave the other core idle)
    let quoted = {
        use rayon::prelude::*;
        buf.par_chunks(1 << 20).any(|c| c.contains(&b'"'))
    };
    if !quoted {
        // fast path: every newline is a boundary
        let last = buf.iter().rposition(|&b| b == b'\n').map(|k| k + 1).unwrap_or(0);
        let mut from = every;
        while from < last {
            match buf[from..last].iter().position(|&b| b == b'\n') {
                Some(k) => {
                    let c = from + k + 1;
                    if c < last {
                        cuts.push(c);
                    }
                    from = c + every;
                }
                None => break,
            }
        }
        return (last, cuts, false);
    }
    for (p, &b) in buf.iter().enumerate() {
        if b == b'"' {
            in_quote = !in_quote;
        } else if b == b'\n' && !in_quote {
            last = p + 1;
            if p + 1 >= next {
                cuts.push(p + 1);
                next = p + 1 + every;
            }
        }
    }
    cuts.retain(|&c| c < last);
    (last, cuts, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str, d: &str) -> Vec<Vec<String>> {
        let b = s.as_bytes();
        let d = Dialect::new(d);
        let mut out = Vec::new();
        let mut f = Vec::new();
        let mut p = 0;
        let mut scratch = Vec::new();
        while p < b.len() {
            match record(b, p, &d, &mut f) {
                Rec::Next(q) => {
                    out.push(f.iter().map(|x| String::from_utf8(field_bytes(b, x, &mut scratch).to_vec()).unwrap()).collect());
                    p = q;
                }
                Rec::Unterminated => panic!("unterminated"),
            }
        }
        out
    }

    /// `len` bytes drawn from `alphabet` by a xorshift generator with state `x`.
    fn random_buf(x: &mut u32, alphabet: &[u8], len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| {
                *x ^= *x << 13;
                *x ^= *x >> 17;
                *x ^= *x << 5;
                alphabet[(*x % alphabet.len() as u32) as usize]
            })
            .collect()
    }

    #[test]
    fn word_scan_finds_the_first_delimiter_or_newline() {
        let mut x: u32 = 2463534242;
        let alphabet = b",\n\ra1\x80\xff\x01\x2b\x0b";
        for len in 0..40 {
            for _ in 0..200 {
                let buf = random_buf(&mut x, alphabet, len);
                for start in 0..=len {
                    let want = (start..len).find(|&k| buf[k] == b',' || buf[k] == b'\n').unwrap_or(len);
                    assert_eq!(scan(&buf, start, b','), want, "{buf:?} from {start}");
                }
            }
        }
    }

    #[test]
    fn separators_found_64_bytes_at_a_time() {
        let mut x: u32 = 2463534242;
        let alphabet = b",\n\ra1\x80\xff\x01\x2b\x0b\x8a";
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 200, 300] {
            for _ in 0..50 {
                let buf = random_buf(&mut x, alphabet, len);
                for start in [0, 1, 7, len / 2] {
                    if start > len {
                        continue;
                    }
                    let want: Vec<usize> = (start..len).filter(|&k| buf[k] == b',' || buf[k] == b'\n').collect();
                    let mut s = Seps::new(&buf, start, b',');
                    let mut got = Vec::new();
                    loop {
                        let k = s.next(&buf);
                        if k >= len {
                            break;
                        }
                        got.push(k);
                    }
                    assert_eq!(got, want, "{buf:?} from {start}");
                    if let Some(b) = buf.get(start..start + 64) {
                        let b: &[u8; 64] = b.try_into().unwrap();
                        assert_eq!(block_mask(b, b','), block_mask_swar(b, b','));
                    }
                }
            }
        }
    }

    #[test]
    fn plain_rows_match_records() {
        let d = Dialect::new(",");
        let texts = ["a,b,c\n1,,3\r\n\n,x\n\r\nlast,1,2,3,4", "x\n\ny\n", "", "\n\n", "1,2\n3,4\n", "abcdefghijklmnop,q\r\n"];
        for t in texts {
            let b = t.as_bytes();
            for nf in 1..4 {
                let mut want: Vec<(u32, u32)> = Vec::new();
                let mut nrec = 0;
                let mut p = 0;
                let mut f = Vec::new();
                while p < b.len() {
                    if let Some(q) = blank_line(b, p) {
                        p = q;
                        continue;
                    }
                    let Rec::Next(q) = record(b, p, &d, &mut f) else { panic!() };
                    p = q;
                    for k in 0..nf {
                        want.push(f.get(k).map_or((0, 0), |x| (x.start as u32, x.end as u32)));
                    }
                    nrec += 1;
                }
                for step in [1, 2, 100] {
                    let mut got = Vec::new();
                    let (mut p, mut rows) = (0, 0);
                    while p < b.len() {
                        let (q, r) = plain_rows(b, p, b',', nf, &mut got, step, &mut Vec::new());
                        (p, rows) = (q, rows + r);
                    }
                    let norm = |v: &[(u32, u32)]| v.iter().map(|&(s, e)| if s == e { (0, 0) } else { (s, e) }).collect::<Vec<_>>();
                    assert_eq!((rows, norm(&got)), (nrec, norm(&want)), "{t:?} nf {nf} step {step}");
                }
            }
        }
    }

    #[test]
    fn records_and_quotes() {
        assert_eq!(split("a,b\r\n1,\"x,\"\"y\"\"\"\n,3", ","), vec![vec!["a", "b"], vec!["1", "x,\"y\""], vec!["", "3"]]);
        assert_eq!(split("a||b\n\"l1\nl2\"||c\n", "||"), vec![vec!["a", "b"], vec!["l1\nl2", "c"]]);
        let (last, cuts) = boundaries(b"aa\nbb\ncc\ndd", 3);
        assert_eq!(last, 9);
        assert!(cuts.iter().all(|&c| c < last));
        let (last, _) = boundaries(b"a,\"x\ny\"\nb", 2);
        assert_eq!(last, 8);
    }
}
