//! Ordered joins: the as-of match of `aj` and the windows of `wj`/`pwj`. Right rows are
//! bucketed by their equality keys (shared ids with the left side), sorted by the ordered
//! key inside each bucket once, and every left row is answered by binary search.

use super::join::{align_key_types, rows_by_id, NO_ID};
use super::order::codes;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::kernels::arith::as_native;
use crate::null::Native;
use crate::types::DataType;

/// Right rows bucketed by id with each bucket sorted by `key` (stable; rows whose key is
/// null are left out): CSR offsets and rows.
fn sorted_buckets(rids: &[u32], n: usize, key: &[u64], null: &[bool]) -> (Vec<usize>, Vec<usize>) {
    let keep: Vec<bool> = null.iter().map(|&x| !x).collect();
    let (off, mut rows) = rows_by_id(rids, n, Some(&keep));
    for g in 0..n {
        rows[off[g]..off[g + 1]].sort_by_key(|&r| key[r]);
    }
    (off, rows)
}

/// For each left row, the right row with the same equality keys and the largest ordered
/// key ≤ the left one (the last such row on ties); −1 when there is none.
pub fn asof_rows(lids: &[u32], ltime: &Column, rids: &[u32], rtime: &Column, n: usize) -> Result<Vec<i64>> {
    let (a, b) = align_key_types(ltime, rtime)?;
    let both = Column::concat(a.ty, &[&a, &b]);
    let c = codes(&both);
    let nl = a.len();
    let (rkey, rnull) = (&c.code[nl..], &c.null[nl..]);
    let (off, rows) = sorted_buckets(rids, n, rkey, rnull);
    let out = (0..nl)
        .map(|l| {
            let g = lids[l];
            if g == NO_ID || c.null[l] {
                return -1;
            }
            let t = c.code[l];
            let bucket = &rows[off[g as usize]..off[g as usize + 1]];
            let p = bucket.partition_point(|&r| rkey[r] <= t);
            if p == 0 {
                -1
            } else {
                bucket[p - 1] as i64
            }
        })
        .collect();
    Ok(out)
}

/// Windows of right rows per left row: `rows` lists right rows bucketed by key and sorted
/// by time; left row k uses `rows[ranges[k].0..ranges[k].1]`.
pub struct Windows {
    pub rows: Vec<usize>,
    pub ranges: Vec<(usize, usize)>,
}

/// Integer times of an ordered key (temporal or integral), nulls as `i64::MIN`.
pub fn time_values(c: &Column) -> Result<Vec<i64>> {
    if !(c.ty.is_temporal() || c.ty.is_integral()) {
        return Err(Error::type_err(format!("The window join column must be temporal or integral, not {}", c.ty)));
    }
    Ok(as_native::<i64>(c).into_owned())
}

/// Window bounds in the time column's unit: an integer pair, or DURATION values
/// (`-5s:0s`) converted to the column's unit.
pub fn duration_in_unit(n: i64, unit: &str, ty: DataType) -> Result<i64> {
    let ns: i128 = match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "H" | "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        "w" => 7 * 86_400_000_000_000,
        _ => return Err(Error::arg(format!("The duration unit {unit} is not supported in a window"))),
    };
    let unit_ns: i128 = match ty {
        DataType::NanoTime | DataType::NanoTimestamp => 1,
        DataType::Time | DataType::Timestamp => 1_000_000,
        DataType::Second | DataType::DateTime => 1_000_000_000,
        DataType::Minute => 60_000_000_000,
        DataType::DateHour => 3_600_000_000_000,
        DataType::Date => 86_400_000_000_000,
        _ => return Ok(n),
    };
    let v = n as i128 * ns;
    if v % unit_ns != 0 {
        return Err(Error::arg(format!("The duration {n}{unit} is finer than the unit of {ty}")));
    }
    Ok((v / unit_ns) as i64)
}

/// For each left row with time t, right rows of its bucket with time in [t+w1, t+w2].
/// `prevailing` (pwj): the window starts at the last right row with time ≤ t+w1 when there is one.
pub fn window_rows(
    lids: &[u32],
    ltime: &[i64],
    rids: &[u32],
    rtime: &[i64],
    n: usize,
    w1: i64,
    w2: i64,
    prevailing: bool,
) -> Windows {
    let key: Vec<u64> = rtime.iter().map(|&t| (t as u64) ^ (1u64 << 63)).collect();
    let null: Vec<bool> = rtime.iter().map(|t| t.is_null()).collect();
    let (off, rows) = sorted_buckets(rids, n, &key, &null);
    let ranges = (0..lids.len())
        .map(|l| {
            let g = lids[l];
            let t = ltime[l];
            if g == NO_ID || t.is_null() {
                return (0, 0);
            }
            let (s, e) = (off[g as usize], off[g as usize + 1]);
            let bucket = &rows[s..e];
            let lo_t = t.saturating_add(w1);
            let hi_t = t.saturating_add(w2);
            let mut lo = bucket.partition_point(|&r| rtime[r] < lo_t);
            if prevailing {
                let p = bucket.partition_point(|&r| rtime[r] <= lo_t);
                if p > 0 {
                    lo = p - 1;
                }
            }
            let hi = bucket.partition_point(|&r| rtime[r] <= hi_t);
            if hi <= lo {
                (s, s)
            } else {
                (s + lo, s + hi)
            }
        })
        .collect();
    Windows { rows, ranges }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asof_last_not_after() {
        let l = Column::from_vec(DataType::Date, vec![0, 31, 59, 90, 120]);
        let r = Column::from_vec(DataType::Date, vec![31, 46, 120, 120]);
        let got = asof_rows(&[0; 5], &l, &[0; 4], &r, 1).unwrap();
        assert_eq!(got, vec![-1, 0, 1, 1, 3]);
    }

    #[test]
    fn windows_plain_and_prevailing() {
        let rt = vec![1i64, 2, 3, 7, 8, 9, 10];
        let w = window_rows(&[0, 0], &[6, 7], &[0; 7], &rt, 1, -1, 1, false);
        assert_eq!(w.ranges, vec![(3, 4), (3, 5)]);
        let p = window_rows(&[0, 0], &[6, 7], &[0; 7], &rt, 1, -1, 1, true);
        assert_eq!(p.ranges, vec![(2, 4), (2, 5)]);
        assert_eq!(duration_in_unit(-5, "s", DataType::Time).unwrap(), -5000);
    }
}
