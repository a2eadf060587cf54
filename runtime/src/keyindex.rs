//! The key index of keyed and indexed tables: a hash map from the key columns' values to
//! the row holding them, kept with the table and updated as rows are upserted, so that an
//! upsert of k rows costs O(k) (amortised) instead of a pass over the whole table.
//!
//! Keys of one or two integral, temporal or SYMBOL columns (or one 128-bit column) are
//! packed into a u64 / u128 code (a SYMBOL by its code in the table column's symbol base);
//! other keys hash their values (`Key`). The index stays valid while the table's key
//! columns are the storage it was built over: it holds a `Weak` to each key column's data,
//! and any in-place change of that data by other code goes through `Arc::make_mut`, which
//! moves the data away from a weakly referenced allocation, so a stale index is detected
//! (and rebuilt) rather than trusted. `upsert` refreshes these references after its own
//! writes.

use crate::column::{ColData, Column};
use crate::error::Result;
use crate::table::Table;
use crate::value::Key;
use ahash::AHashMap;
use std::sync::{Arc, Weak};

/// What a keyed table carries besides its key names: the key index (built lazily) and,
/// for `latestKeyedTable`/`latestIndexedTable`, the time column that decides whether a new
/// row replaces the row with its key.
#[derive(Clone, Debug, Default)]
pub struct KeyState {
    pub time_col: Option<String>,
    pub index: Option<Arc<KeyIndex>>,
}

impl KeyState {
    /// The same options without the index (for a table with new storage).
    pub fn without_index(&self) -> KeyState {
        KeyState { time_col: self.time_col.clone(), index: None }
    }
}

#[derive(Clone, Debug)]
enum Map {
    One(AHashMap<u64, usize>),
    Two(AHashMap<u128, usize>),
    Gen(AHashMap<Vec<Key>, usize>),
}

/// Key columns → row.
#[derive(Clone, Debug)]
pub struct KeyIndex {
    map: Map,
    cols: Vec<usize>,
    rows: usize,
    storage: Vec<Weak<ColData>>,
}

/// How a key column packs into a code: its values as i64 bits, or its symbol codes.
fn packable(c: &Column) -> bool {
    matches!(&*c.data, ColData::I8(_) | ColData::I16(_) | ColData::I32(_) | ColData::I64(_) | ColData::Sym(_))
        && c.ty.decimal_scale().is_none()
}

#[inline]
fn code_at(c: &Column, i: usize) -> u64 {
    match &*c.data {
        ColData::I8(v) => v[i] as i64 as u64,
        ColData::I16(v) => v[i] as i64 as u64,
        ColData::I32(v) => v[i] as i64 as u64,
        ColData::I64(v) => v[i] as u64,
        ColData::Sym(s) => s.codes[i] as u64,
        _ => 0,
    }
}

/// A key column's codes for rows of another column `src` of the same type: integral values
/// as they are; texts by their code in the key column's symbol base, interned there when
/// new (a new symbol is a new key; the row pushed with it would intern it anyway).
fn codes_for(key: &mut Column, src: &Column) -> Vec<u64> {
    let n = src.len();
    let ColData::Sym(kd) = &*key.data else {
        return (0..n).map(|i| code_at(src, i)).collect();
    };
    if let ColData::Sym(sd) = &*src.data {
        if Arc::ptr_eq(&kd.dict, &sd.dict) {
            return sd.codes.iter().map(|&c| c as u64).collect();
        }
        // one lookup per distinct source symbol
        let mut memo: AHashMap<u32, u64> = AHashMap::new();
        let mut out = Vec::with_capacity(n);
        for &c in &sd.codes {
            let code = match memo.get(&c) {
                Some(&k) => k,
                None => {
                    let k = intern(key, sd.dict.get(c));
                    memo.insert(c, k);
                    k
                }
            };
            out.push(code);
        }
        return out;
    }
    (0..n).map(|i| intern(key, src.str_at(i).unwrap_or(""))).collect()
}

fn intern(key: &mut Column, text: &str) -> u64 {
    if let ColData::Sym(kd) = &*key.data {
        if let Some(&c) = kd.dict.index.get(text) {
            return c as u64;
        }
    }
    match key.data_mut() {
        ColData::Sym(kd) => Arc::make_mut(&mut kd.dict).intern(text) as u64,
        _ => 0,
    }
}

impl KeyIndex {
    /// The index of `t`'s rows by the columns `cols`; the first row of a key holds it.
    pub fn build(t: &Table, cols: &[usize]) -> KeyIndex {
        let keys: Vec<&Column> = cols.iter().map(|&k| &t.cols[k]).collect();
        let n = t.rows();
        let map = match keys.as_slice() {
            [a] if packable(a) => {
                let mut m = AHashMap::with_capacity(n);
                for r in 0..n {
                    m.entry(code_at(a, r)).or_insert(r);
                }
                Map::One(m)
            }
            [a] if matches!(&*a.data, ColData::I128(_)) => {
                let ColData::I128(v) = &*a.data else { unreachable!() };
                let mut m = AHashMap::with_capacity(n);
                for (r, x) in v.iter().enumerate() {
                    m.entry(*x as u128).or_insert(r);
                }
                Map::Two(m)
            }
            [a, b] if packable(a) && packable(b) => {
                let mut m = AHashMap::with_capacity(n);
                for r in 0..n {
                    m.entry(((code_at(a, r) as u128) << 64) | code_at(b, r) as u128).or_insert(r);
                }
                Map::Two(m)
            }
            _ => {
                let mut m = AHashMap::with_capacity(n);
                for r in 0..n {
                    m.entry(keys.iter().map(|c| Key::of(c, r)).collect()).or_insert(r);
                }
                Map::Gen(m)
            }
        };
        let mut ix = KeyIndex { map, cols: cols.to_vec(), rows: n, storage: Vec::new() };
        ix.seal(t);
        ix
    }

    /// Whether the index describes `t`'s current key columns `cols`.
    pub fn valid_for(&self, t: &Table, cols: &[usize]) -> bool {
        self.cols == cols
            && self.rows == t.rows()
            && cols.iter().all(|&k| k < t.cols.len())
            && self.storage.iter().zip(cols).all(|(w, &k)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&t.cols[k].data)))
    }

    fn seal(&mut self, t: &Table) {
        self.rows = t.rows();
        self.storage = self.cols.iter().map(|&k| Arc::downgrade(&t.cols[k].data)).collect();
    }

    pub fn len(&self) -> usize {
        match &self.map {
            Map::One(m) => m.len(),
            Map::Two(m) => m.len(),
            Map::Gen(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row holding each row of `probe` (columns in key order, typed as the key
    /// columns), None when the key is absent. Texts absent from a SYMBOL key's base are
    /// absent keys.
    pub fn lookup(&self, t: &Table, probe: &[Column]) -> Vec<Option<usize>> {
        let n = probe.first().map_or(0, |c| c.len());
        let code = |j: usize, i: usize| -> Option<u64> {
            let key = &t.cols[self.cols[j]];
            let p = &probe[j];
            match (&*key.data, &*p.data) {
                (ColData::Sym(kd), ColData::Sym(pd)) if Arc::ptr_eq(&kd.dict, &pd.dict) => Some(pd.codes[i] as u64),
                (ColData::Sym(kd), _) => kd.dict.index.get(p.str_at(i).unwrap_or("")).map(|&c| c as u64),
                _ => Some(code_at(p, i)),
            }
        };
        (0..n)
            .map(|i| match &self.map {
                Map::One(m) => code(0, i).and_then(|c| m.get(&c).copied()),
                Map::Two(m) if self.cols.len() == 1 => match &*probe[0].data {
                    ColData::I128(v) => m.get(&(v[i] as u128)).copied(),
                    _ => None,
                },
                Map::Two(m) => {
                    let (a, b) = (code(0, i)?, code(1, i)?);
                    m.get(&(((a as u128) << 64) | b as u128)).copied()
                }
                Map::Gen(m) => m.get(&probe.iter().map(|c| Key::of(c, i)).collect::<Vec<_>>()).copied(),
            })
            .collect()
    }
}

/// What an upsert did: rows appended and rows updated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Upserted {
    pub inserted: usize,
    pub updated: usize,
}

/// The positions of `t`'s key columns.
pub fn key_positions(t: &Table) -> Result<Vec<usize>> {
    t.keys
        .iter()
        .map(|k| t.col_index(k).ok_or_else(|| crate::error::Error::name(format!("Unrecognized key column [{k}]"))))
        .collect()
}

/// Upsert the rows `src` (one column per table column, already of the table's types) into
/// `t` by the key columns `key_cols`: a row whose key exists overwrites that row's values
/// in place (only its non-null ones with `ignore_null`), the others are appended in order;
/// among rows of one batch with the same key, later rows update the earlier ones. With
/// the table's time column (`latestKeyedTable`), a row replaces the row of its key only
/// when its time is not earlier. The index is kept with `t` when `key_cols` are its keys.
pub fn upsert(t: &mut Table, key_cols: &[usize], src: &[Column], ignore_null: bool) -> Result<Upserted> {
    let ns = src.first().map_or(0, |c| c.len());
    let persistent = !t.keys.is_empty() && key_positions(t).map_or(false, |k| k == key_cols);
    let time_col = if persistent { t.keyed.time_col.as_ref().and_then(|n| t.col_index(n)) } else { None };
    let mut index = match t.keyed.index.take() {
        Some(ix) if persistent && ix.valid_for(t, key_cols) => ix,
        _ => Arc::new(KeyIndex::build(t, key_cols)),
    };
    if ns == 0 {
        if persistent {
            t.keyed.index = Some(index);
        }
        return Ok(Upserted::default());
    }
    let ix = Arc::make_mut(&mut index);
    let nt = t.rows();
    // the existing or earlier-in-batch row each source row writes, or a new row
    let mut appends: Vec<usize> = Vec::new();
    let mut updates: Vec<(usize, usize)> = Vec::new();
    let mut place = |found: Option<usize>, s: usize, appends: &mut Vec<usize>| -> Option<usize> {
        match found {
            Some(r) => {
                updates.push((r, s));
                None
            }
            None => {
                appends.push(s);
                Some(nt + appends.len() - 1)
            }
        }
    };
    match &mut ix.map {
        Map::One(m) => {
            let codes = codes_for(&mut t.cols[key_cols[0]], &src[key_cols[0]]);
            for (s, c) in codes.into_iter().enumerate() {
                let found = m.get(&c).copied();
                if let Some(r) = place(found, s, &mut appends) {
                    m.insert(c, r);
                }
            }
        }
        Map::Two(m) if key_cols.len() == 1 => {
            let ColData::I128(v) = &*src[key_cols[0]].data else {
                return Err(crate::error::Error::type_err("The key column's type changed"));
            };
            for (s, &x) in v.iter().enumerate() {
                let found = m.get(&(x as u128)).copied();
                if let Some(r) = place(found, s, &mut appends) {
                    m.insert(x as u128, r);
                }
            }
        }
        Map::Two(m) => {
            let a = codes_for(&mut t.cols[key_cols[0]], &src[key_cols[0]]);
            let b = codes_for(&mut t.cols[key_cols[1]], &src[key_cols[1]]);
            for (s, (x, y)) in a.into_iter().zip(b).enumerate() {
                let c = ((x as u128) << 64) | y as u128;
                let found = m.get(&c).copied();
                if let Some(r) = place(found, s, &mut appends) {
                    m.insert(c, r);
                }
            }
        }
        Map::Gen(m) => {
            for s in 0..ns {
                let k: Vec<Key> = key_cols.iter().map(|&j| Key::of(&src[j], s)).collect();
                let found = m.get(&k).copied();
                if let Some(r) = place(found, s, &mut appends) {
                    m.insert(k, r);
                }
            }
        }
    }
    drop(place);
    if let Some(tc) = time_col {
        // a row replaces its key's row only when its time is not earlier than that row's
        // current time (which the accepted rows before it in the batch may have changed)
        let time = |c: &Column, i: usize| c.i64_at(i).unwrap_or(i64::MIN);
        let mut now: AHashMap<usize, i64> = AHashMap::new();
        updates.retain(|&(r, s)| {
            let cur = match now.get(&r) {
                Some(&x) => x,
                None if r < nt => time(&t.cols[tc], r),
                None => time(&src[tc], appends[r - nt]),
            };
            let new = time(&src[tc], s);
            if new >= cur {
                now.insert(r, new);
                true
            } else {
                false
            }
        });
    }
    let all_in_order = appends.len() == ns;
    let (rows, from): (Vec<usize>, Vec<usize>) = updates.iter().copied().unzip();
    for (k, c) in t.cols.iter_mut().enumerate() {
        if !appends.is_empty() {
            if all_in_order {
                c.append(&src[k]);
            } else {
                c.append(&src[k].take_usize(&appends));
            }
        }
        // a key column's value is the key itself: nothing to overwrite
        if !rows.is_empty() && !key_cols.contains(&k) {
            c.set_rows(&rows, &src[k], &from, ignore_null);
        }
    }
    // with ignoreNull, a row whose values are all NULL updates nothing (tableUpsert's count,
    // funcs/t/tableUpsert.md: 1:2 for the manual's example)
    let updated = if ignore_null {
        updates.iter().filter(|&&(_, s)| src.iter().enumerate().any(|(k, c)| !key_cols.contains(&k) && !c.is_null_strict(s))).count()
    } else {
        updates.len()
    };
    let done = Upserted { inserted: appends.len(), updated };
    if persistent {
        ix.seal(t);
        t.keyed.index = Some(index);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::SymCol;
    use crate::types::DataType;

    fn ints(v: &[i32]) -> Column {
        Column::from_vec(DataType::Int, v.to_vec())
    }
    fn dbls(v: &[f64]) -> Column {
        Column::from_vec(DataType::Double, v.to_vec())
    }
    fn syms(v: &[&str]) -> Column {
        Column::from_vec(DataType::Symbol, SymCol::from_iter(v.iter().copied()))
    }
    fn keyed(names: &[&str], cols: Vec<Column>, keys: &[&str]) -> Table {
        let mut t = Table::new(names.iter().map(|s| s.to_string()).collect(), cols).unwrap();
        t.keys = keys.iter().map(|s| s.to_string()).collect();
        t
    }
    fn i32s(c: &Column) -> Vec<i32> {
        match &*c.data {
            ColData::I32(v) => v.clone(),
            _ => panic!("not INT"),
        }
    }
    fn f64s(c: &Column) -> Vec<f64> {
        match &*c.data {
            ColData::F64(v) => v.clone(),
            _ => panic!("not DOUBLE"),
        }
    }

    #[test]
    fn insert_and_overwrite() {
        let mut t = keyed(&["id", "v"], vec![ints(&[1, 2, 3]), dbls(&[1.0, 2.0, 3.0])], &["id"]);
        let r = upsert(&mut t, &[0], &[ints(&[2, 4, 4, 1]), dbls(&[20.0, 40.0, 41.0, 10.0])], false).unwrap();
        assert_eq!(r, Upserted { inserted: 1, updated: 3 });
        assert_eq!(i32s(&t.cols[0]), vec![1, 2, 3, 4]);
        assert_eq!(f64s(&t.cols[1]), vec![10.0, 20.0, 3.0, 41.0]);
        let ix = t.keyed.index.clone().unwrap();
        assert!(ix.valid_for(&t, &[0]));
        assert_eq!(ix.len(), 4);
        assert_eq!(ix.lookup(&t, &[ints(&[4, 9, 1])]), vec![Some(3), None, Some(0)]);
    }

    #[test]
    fn ignore_null_keeps_old_values() {
        let mut t = keyed(&["id", "v"], vec![ints(&[1, 2]), dbls(&[1.0, 2.0])], &["id"]);
        upsert(&mut t, &[0], &[ints(&[1, 2]), dbls(&[f64::MIN, 5.0])], true).unwrap();
        assert_eq!(f64s(&t.cols[1]), vec![1.0, 5.0]);
    }

    #[test]
    fn growth_keeps_positions() {
        let mut t = keyed(&["id", "v"], vec![ints(&[]), dbls(&[])], &["id"]);
        for b in 0..50 {
            let ids: Vec<i32> = (0..100).map(|i| b * 100 + i).chain([0, 7]).collect();
            let vals: Vec<f64> = ids.iter().map(|&i| (i + b) as f64).collect();
            upsert(&mut t, &[0], &[ints(&ids), dbls(&vals)], false).unwrap();
        }
        assert_eq!(t.rows(), 5000);
        assert_eq!(t.keyed.index.as_ref().unwrap().len(), 5000);
        let ids = i32s(&t.cols[0]);
        assert!(ids.iter().enumerate().all(|(r, &i)| r as i32 == i));
        // keys 0 and 7 were rewritten by every batch; the last wrote id + 49
        let v = f64s(&t.cols[1]);
        assert_eq!((v[0], v[7], v[4999]), (49.0, 56.0, 4999.0 + 49.0));
    }

    #[test]
    fn clone_on_write_leaves_the_copy_alone() {
        let mut t = keyed(&["s", "d", "v"], vec![syms(&["a", "b"]), ints(&[1, 1]), dbls(&[1.0, 2.0])], &["s", "d"]);
        upsert(&mut t, &[0, 1], &[syms(&[]), ints(&[]), dbls(&[])], false).unwrap();
        let before = t.clone();
        let r = upsert(&mut t, &[0, 1], &[syms(&["b", "c", "a"]), ints(&[1, 1, 2]), dbls(&[20.0, 30.0, 40.0])], false).unwrap();
        assert_eq!(r, Upserted { inserted: 2, updated: 1 });
        assert_eq!(f64s(&t.cols[2]), vec![1.0, 20.0, 30.0, 40.0]);
        // the earlier value shares nothing that changed
        assert_eq!(before.rows(), 2);
        assert_eq!(f64s(&before.cols[2]), vec![1.0, 2.0]);
        let bix = before.keyed.index.as_ref().unwrap();
        assert!(!bix.valid_for(&t, &[0, 1]));
        assert_eq!(bix.lookup(&before, &[syms(&["b", "c"]), ints(&[1, 1])]), vec![Some(1), None]);
        let ix = t.keyed.index.as_ref().unwrap();
        assert!(ix.valid_for(&t, &[0, 1]));
        assert_eq!(ix.lookup(&t, &[syms(&["c", "a", "a"]), ints(&[1, 2, 1])]), vec![Some(2), Some(3), Some(0)]);
    }

    #[test]
    fn stale_index_is_rebuilt() {
        let mut t = keyed(&["id", "v"], vec![ints(&[1, 2]), dbls(&[1.0, 2.0])], &["id"]);
        upsert(&mut t, &[0], &[ints(&[3]), dbls(&[3.0])], false).unwrap();
        // another writer changes a key in place: the index sees new storage
        if let ColData::I32(v) = t.cols[0].data_mut() {
            v[0] = 9;
        }
        assert!(!t.keyed.index.as_ref().unwrap().valid_for(&t, &[0]));
        upsert(&mut t, &[0], &[ints(&[9, 1]), dbls(&[90.0, 10.0])], false).unwrap();
        assert_eq!(i32s(&t.cols[0]), vec![9, 2, 3, 1]);
        assert_eq!(f64s(&t.cols[1]), vec![90.0, 2.0, 3.0, 10.0]);
    }

    #[test]
    fn general_keys_and_latest_time() {
        let strs = |v: &[&str]| Column::from_vec(DataType::String, crate::column::StrCol::from_iter(v.iter().copied()));
        let mut t = keyed(&["k", "t", "v"], vec![strs(&["x"]), ints(&[5]), dbls(&[1.0])], &["k"]);
        t.keyed.time_col = Some("t".into());
        let r = upsert(&mut t, &[0], &[strs(&["x", "y", "x", "y"]), ints(&[4, 3, 6, 2]), dbls(&[2.0, 3.0, 4.0, 5.0])], false).unwrap();
        assert_eq!(r, Upserted { inserted: 1, updated: 1 });
        assert_eq!(i32s(&t.cols[1]), vec![6, 3]);
        assert_eq!(f64s(&t.cols[2]), vec![4.0, 3.0]);
    }
}
