//! Partition schemes (VALUE, RANGE, HASH, LIST and COMPO of two or three of them): which
//! partition each row goes to, partition folder names, and pruning from key predicates.

use crate::bin::{Reader, Writer};
use ahash::AHashMap;
use beluga_runtime::column::{ColData, Column, SymCol};
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::temporal::format_temporal;
use beluga_runtime::types::Physical;
use beluga_runtime::{DataType, Error, Result};

/// Row not in any partition (outside a RANGE/LIST scheme, or a null HASH key).
pub const NONE: u32 = u32::MAX;

/// One level of a partition scheme.
#[derive(Clone, Debug)]
pub enum Level {
    /// one partition per value (new values add partitions)
    Value(Column),
    /// sorted boundaries b0 < b1 < … : partition i holds [b_i, b_{i+1})
    Range(Column),
    /// key type and number of buckets
    Hash(DataType, u32),
    /// the values of each partition
    List(Vec<Column>),
}

/// Key values of a column in a comparable form.
pub enum Keys<'a> {
    Int(Vec<i64>),
    Str(Vec<&'a str>),
}

fn is_int_like(ty: DataType) -> bool {
    matches!(ty.physical(), Physical::I8 | Physical::I16 | Physical::I32 | Physical::I64)
}

pub fn keys(c: &Column) -> Result<Keys<'_>> {
    if is_int_like(c.ty) {
        return Ok(Keys::Int((0..c.len()).map(|i| c.i64_at(i).unwrap_or(i64::NULL)).collect()));
    }
    match &*c.data {
        ColData::Sym(s) => Ok(Keys::Str(s.codes.iter().map(|&k| s.dict.get(k)).collect())),
        ColData::Str(s) => Ok(Keys::Str(s.iter().collect())),
        _ => Err(Error::arg(format!("A partitioning column can't be of type {}", c.ty))),
    }
}

/// FNV-1a hash of text (HASH partitions of STRING/SYMBOL keys).
fn hash_str(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s.as_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Convert a partitioning column to the scheme's key type.
pub fn conform(col: &Column, key: DataType, name: &str) -> Result<Column> {
    if col.ty == key || (col.ty.is_literal() && key.is_literal()) {
        return Ok(col.clone());
    }
    if col.ty.is_temporal() && key.is_temporal() {
        return beluga_runtime::kernels::temporal_to(col, key);
    }
    if is_int_like(col.ty) && is_int_like(key) && !col.ty.is_temporal() {
        return cast_column(col, key);
    }
    Err(Error::type_err(format!(
        "The partitioning column {name} has type {}, which doesn't match the partition scheme type {key}",
        col.ty
    )))
}

fn sanitize(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if t.is_empty() { "NULL".into() } else { t }
}

fn value_text(c: &Column, i: usize) -> String {
    if c.ty.is_temporal() {
        let v = c.i64_at(i).unwrap_or(0);
        return format_temporal(c.ty, v).chars().filter(|ch| ch.is_ascii_alphanumeric()).collect();
    }
    beluga_runtime::fmt::format_elem(c, i)
}

impl Level {
    pub fn type_id(&self) -> i32 {
        match self {
            Level::Value(_) => 1,
            Level::Range(_) => 2,
            Level::List(_) => 3,
            Level::Hash(..) => 5,
        }
    }
    pub fn type_name(&self) -> &'static str {
        match self {
            Level::Value(_) => "VALUE",
            Level::Range(_) => "RANGE",
            Level::List(_) => "LIST",
            Level::Hash(..) => "HASH",
        }
    }
    pub fn key_type(&self) -> DataType {
        match self {
            Level::Value(c) | Level::Range(c) => c.ty,
            Level::Hash(t, _) => *t,
            Level::List(v) => v.first().map(|c| c.ty).unwrap_or(DataType::Int),
        }
    }
    pub fn count(&self) -> usize {
        match self {
            Level::Value(c) => c.len(),
            Level::Range(c) => c.len().saturating_sub(1),
            Level::Hash(_, n) => *n as usize,
            Level::List(v) => v.len(),
        }
    }

    /// Validate and build a level from `database`'s arguments.
    pub fn new(kind: i32, scheme: &beluga_runtime::Value) -> Result<Level> {
        use beluga_runtime::Value;
        let vec_of = |v: &Value| -> Result<Column> {
            match v {
                Value::Vector(c) | Value::Pair(c) | Value::Scalar(c) => Ok(c.clone()),
                _ => Err(Error::arg("The partition scheme must be a vector")),
            }
        };
        let check_ty = |c: &Column| -> Result<()> {
            if c.ty.is_floating() || matches!(c.ty.physical(), Physical::I128 | Physical::None) {
                return Err(Error::arg(format!("The data type {} is not supported for a partition scheme", c.ty)));
            }
            Ok(())
        };
        let lvl = match kind {
            1 => {
                let c = vec_of(scheme)?;
                check_ty(&c)?;
                if c.is_empty() {
                    return Err(Error::arg("A VALUE partition scheme can't be empty"));
                }
                Level::Value(dedup(&c))
            }
            2 => {
                let c = vec_of(scheme)?;
                check_ty(&c)?;
                if c.len() < 2 {
                    return Err(Error::arg("A RANGE partition scheme needs at least two boundaries"));
                }
                let ok = match keys(&c)? {
                    Keys::Int(v) => v.windows(2).all(|w| w[0] < w[1]) && !v.iter().any(|x| x.is_null()),
                    Keys::Str(v) => v.windows(2).all(|w| w[0] < w[1]),
                };
                if !ok {
                    return Err(Error::arg("The boundaries of a RANGE partition scheme must be increasing"));
                }
                Level::Range(c)
            }
            5 => {
                let items: Vec<Value> = match scheme {
                    Value::Tuple(t) => t.iter().cloned().collect(),
                    Value::Vector(c) => (0..c.len()).map(|i| Value::Scalar(c.slice(i, i + 1))).collect(),
                    _ => return Err(Error::arg("A HASH partition scheme is [type, number of buckets]")),
                };
                let ty = match items.first() {
                    Some(Value::Type(t)) => *t,
                    Some(v) => v
                        .as_i64()
                        .and_then(|id| DataType::from_id(id as i32))
                        .ok_or_else(|| Error::arg("A HASH partition scheme is [type, number of buckets]"))?,
                    None => return Err(Error::arg("A HASH partition scheme is [type, number of buckets]")),
                };
                let n = items.get(1).and_then(|v| v.as_i64()).filter(|n| *n > 0 && *n <= 1 << 20);
                let n = n.ok_or_else(|| Error::arg("The number of HASH partitions must be a positive integer"))?;
                if ty.is_floating() {
                    return Err(Error::arg(format!("The data type {ty} is not supported for a partition scheme")));
                }
                Level::Hash(ty, n as u32)
            }
            3 => {
                let lists: Vec<Column> = match scheme {
                    Value::Tuple(t) => t.iter().map(|v| vec_of(v)).collect::<Result<_>>()?,
                    Value::Vector(c) => (0..c.len()).map(|i| c.slice(i, i + 1)).collect(),
                    _ => return Err(Error::arg("A LIST partition scheme is a tuple of vectors")),
                };
                if lists.is_empty() {
                    return Err(Error::arg("A LIST partition scheme can't be empty"));
                }
                let ty = lists[0].ty;
                let mut out = Vec::with_capacity(lists.len());
                for l in lists {
                    check_ty(&l)?;
                    out.push(if l.ty == ty || (l.ty.is_literal() && ty.is_literal()) { l } else { cast_column(&l, ty)? });
                }
                Level::List(out)
            }
            0 => return Err(Error::arg("SEQ partitions are not supported; use RANGE or HASH")),
            _ => return Err(Error::arg("Invalid partition type")),
        };
        Ok(lvl)
    }

    /// Folder name of partition `i`.
    pub fn dir_name(&self, i: usize) -> String {
        match self {
            Level::Value(c) => {
                let t = value_text(c, i);
                let s = sanitize(&t);
                if s != t { format!("{s}_{i}") } else { s }
            }
            Level::Range(c) => {
                let (a, b) = (value_text(c, i), value_text(c, i + 1));
                let s = sanitize(&format!("{a}_{b}"));
                if c.ty.is_literal() && s != format!("{a}_{b}") { format!("{s}_{i}") } else { s }
            }
            Level::Hash(..) => format!("Key{i}"),
            Level::List(_) => format!("List{i}"),
        }
    }

    /// Partition index of every row of a key column (already conformed); NONE when the row
    /// belongs to no partition. VALUE levels add partitions for new values (returns true
    /// when the level changed).
    pub fn assign(&mut self, col: &Column) -> Result<(Vec<u32>, bool)> {
        // symbol columns: decide once per distinct code
        if let ColData::Sym(s) = &*col.data {
            if s.dict.names.len() < col.len() {
                let dict_col = Column::new(DataType::Symbol, ColData::Sym(SymCol { codes: (0..s.dict.names.len() as u32).collect(), dict: s.dict.clone() }));
                let used = used_codes(s);
                let (per_code, changed) = self.assign_inner(&dict_col, Some(&used))?;
                return Ok((s.codes.iter().map(|&c| per_code[c as usize]).collect(), changed));
            }
        }
        self.assign_inner(col, None)
    }

    fn assign_inner(&mut self, col: &Column, used: Option<&[bool]>) -> Result<(Vec<u32>, bool)> {
        let in_use = |i: usize| used.is_none_or(|u| u[i]);
        match self {
            Level::Value(sc) => {
                let mut changed = false;
                let out = match (keys(col)?, keys(sc)?) {
                    (Keys::Int(v), Keys::Int(s)) => {
                        let mut map: AHashMap<i64, u32> = s.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
                        let mut added: Vec<i64> = Vec::new();
                        let out = v
                            .iter()
                            .enumerate()
                            .map(|(i, &x)| {
                                if x.is_null() || !in_use(i) {
                                    return NONE;
                                }
                                let n = map.len() as u32;
                                *map.entry(x).or_insert_with(|| {
                                    added.push(x);
                                    n
                                })
                            })
                            .collect();
                        if !added.is_empty() {
                            changed = true;
                            let add = cast_column(&Column::from_vec(DataType::Long, added), sc.ty)?;
                            sc.append(&add);
                        }
                        out
                    }
                    (Keys::Str(v), Keys::Str(s)) => {
                        let mut map: AHashMap<String, u32> = s.iter().enumerate().map(|(i, x)| (x.to_string(), i as u32)).collect();
                        let mut added: Vec<String> = Vec::new();
                        let out = v
                            .iter()
                            .enumerate()
                            .map(|(i, x)| {
                                if x.is_empty() || !in_use(i) {
                                    return NONE;
                                }
                                if let Some(&k) = map.get(*x) {
                                    return k;
                                }
                                let n = map.len() as u32;
                                map.insert(x.to_string(), n);
                                added.push(x.to_string());
                                n
                            })
                            .collect();
                        if !added.is_empty() {
                            changed = true;
                            let mut sc2 = sc.clone();
                            sc2.append(&Column::new(DataType::String, ColData::Str(beluga_runtime::StrCol::from_iter(added.iter().map(|s| s.as_str())))));
                            *sc = sc2;
                        }
                        out
                    }
                    _ => return Err(Error::type_err("The partitioning column doesn't match the partition scheme type")),
                };
                Ok((out, changed))
            }
            Level::Range(sc) => {
                let out = match (keys(col)?, keys(sc)?) {
                    (Keys::Int(v), Keys::Int(b)) => v
                        .iter()
                        .map(|&x| {
                            if x.is_null() || x < b[0] || x >= b[b.len() - 1] {
                                NONE
                            } else {
                                (b.partition_point(|&y| y <= x) - 1) as u32
                            }
                        })
                        .collect(),
                    (Keys::Str(v), Keys::Str(b)) => v
                        .iter()
                        .map(|&x| {
                            if x.is_empty() || x < b[0] || x >= b[b.len() - 1] {
                                NONE
                            } else {
                                (b.partition_point(|&y| y <= x) - 1) as u32
                            }
                        })
                        .collect(),
                    _ => return Err(Error::type_err("The partitioning column doesn't match the partition scheme type")),
                };
                Ok((out, false))
            }
            Level::Hash(_, n) => {
                let n = *n as u64;
                let out = match keys(col)? {
                    Keys::Int(v) => v.iter().map(|&x| if x.is_null() { NONE } else { (x.rem_euclid(n as i64)) as u32 }).collect(),
                    Keys::Str(v) => v.iter().map(|x| if x.is_empty() { NONE } else { (hash_str(x) % n) as u32 }).collect(),
                };
                Ok((out, false))
            }
            Level::List(lists) => {
                let out = match keys(col)? {
                    Keys::Int(v) => {
                        let mut map: AHashMap<i64, u32> = AHashMap::new();
                        for (i, l) in lists.iter().enumerate() {
                            if let Keys::Int(k) = keys(l)? {
                                for x in k {
                                    map.entry(x).or_insert(i as u32);
                                }
                            }
                        }
                        v.iter().map(|x| map.get(x).copied().unwrap_or(NONE)).collect()
                    }
                    Keys::Str(v) => {
                        let mut map: AHashMap<String, u32> = AHashMap::new();
                        for (i, l) in lists.iter().enumerate() {
                            if let Keys::Str(k) = keys(l)? {
                                for x in k {
                                    map.entry(x.to_string()).or_insert(i as u32);
                                }
                            }
                        }
                        v.iter().map(|x| map.get(*x).copied().unwrap_or(NONE)).collect()
                    }
                };
                Ok((out, false))
            }
        }
    }

    /// Which partitions may hold rows whose key is in `vals` (a conformed column).
    pub fn prune_in(&self, vals: &Column) -> Result<Vec<bool>> {
        let mut l = self.clone();
        let (idx, _) = match &mut l {
            Level::Value(_) => {
                // never extend while pruning: look values up only
                let mut keep = vec![false; self.count()];
                let Level::Value(sc) = self else { unreachable!() };
                match (keys(vals)?, keys(sc)?) {
                    (Keys::Int(v), Keys::Int(s)) => {
                        let set: ahash::AHashSet<i64> = v.into_iter().collect();
                        for (i, x) in s.iter().enumerate() {
                            keep[i] = set.contains(x);
                        }
                    }
                    (Keys::Str(v), Keys::Str(s)) => {
                        let set: ahash::AHashSet<&str> = v.into_iter().collect();
                        for (i, x) in s.iter().enumerate() {
                            keep[i] = set.contains(x);
                        }
                    }
                    _ => return Ok(vec![true; self.count()]),
                }
                return Ok(keep);
            }
            other => other.assign_inner(vals, None)?,
        };
        let mut keep = vec![false; self.count()];
        for i in idx {
            if i != NONE {
                keep[i as usize] = true;
            }
        }
        Ok(keep)
    }

    /// Which partitions may hold keys in [lo, hi] (inclusive; None = unbounded).
    pub fn prune_range(&self, lo: Option<&Column>, hi: Option<&Column>) -> Result<Vec<bool>> {
        let n = self.count();
        let within_i = |x: i64, lo: Option<i64>, hi: Option<i64>| lo.is_none_or(|l| x >= l) && hi.is_none_or(|h| x <= h);
        let within_s = |x: &str, lo: Option<&str>, hi: Option<&str>| lo.is_none_or(|l| x >= l) && hi.is_none_or(|h| x <= h);
        let lo_k = lo.map(keys).transpose()?;
        let hi_k = hi.map(keys).transpose()?;
        let li = match &lo_k {
            Some(Keys::Int(v)) => v.first().copied(),
            _ => None,
        };
        let hi_i = match &hi_k {
            Some(Keys::Int(v)) => v.first().copied(),
            _ => None,
        };
        let ls = match &lo_k {
            Some(Keys::Str(v)) => v.first().copied(),
            _ => None,
        };
        let hs = match &hi_k {
            Some(Keys::Str(v)) => v.first().copied(),
            _ => None,
        };
        let one = |c: &Column| -> Result<Vec<bool>> {
            Ok(match keys(c)? {
                Keys::Int(v) => v.iter().map(|&x| within_i(x, li, hi_i)).collect(),
                Keys::Str(v) => v.iter().map(|x| within_s(x, ls, hs)).collect(),
            })
        };
        match self {
            Level::Value(sc) => one(sc),
            Level::Range(sc) => Ok(match keys(sc)? {
                Keys::Int(b) => (0..n).map(|i| hi_i.is_none_or(|h| b[i] <= h) && li.is_none_or(|l| b[i + 1] > l)).collect(),
                Keys::Str(b) => (0..n).map(|i| hs.is_none_or(|h| b[i] <= h) && ls.is_none_or(|l| b[i + 1] > l)).collect(),
            }),
            Level::Hash(..) => Ok(vec![true; n]),
            Level::List(lists) => lists.iter().map(|l| one(l).map(|v| v.iter().any(|&b| b))).collect(),
        }
    }

    pub fn write(&self, w: &mut Writer) {
        w.u8(self.type_id() as u8);
        match self {
            Level::Value(c) | Level::Range(c) => w.column(c),
            Level::Hash(t, n) => {
                w.u8(t.id() as u8);
                w.u32(*n);
            }
            Level::List(v) => {
                w.u32(v.len() as u32);
                v.iter().for_each(|c| w.column(c));
            }
        }
    }

    pub fn read(r: &mut Reader) -> Result<Level> {
        Ok(match r.u8()? {
            1 => Level::Value(r.column()?),
            2 => Level::Range(r.column()?),
            5 => {
                let t = DataType::from_id(r.u8()? as i32).ok_or_else(|| crate::bin::corrupt(r.what, "bad type"))?;
                Level::Hash(t, r.u32()?)
            }
            3 => {
                let n = r.u32()? as usize;
                let mut v = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    v.push(r.column()?);
                }
                Level::List(v)
            }
            _ => return Err(crate::bin::corrupt(r.what, "bad partition type")),
        })
    }

    /// The scheme as a value (for `schema(db).partitionSchema`).
    pub fn scheme_value(&self) -> beluga_runtime::Value {
        use beluga_runtime::Value;
        match self {
            Level::Value(c) | Level::Range(c) => Value::Vector(c.clone()),
            Level::Hash(_, n) => Value::int(*n as i32),
            Level::List(v) => Value::tuple(v.iter().map(|c| Value::Vector(c.clone())).collect()),
        }
    }
}

fn used_codes(s: &SymCol) -> Vec<bool> {
    let mut u = vec![false; s.dict.names.len()];
    for &c in &s.codes {
        u[c as usize] = true;
    }
    u
}

/// Distinct values of a scheme vector, in first-seen order.
fn dedup(c: &Column) -> Column {
    let mut seen = ahash::AHashSet::new();
    let idx: Vec<usize> = (0..c.len()).filter(|&i| seen.insert(beluga_runtime::Key::of(c, i))).collect();
    if idx.len() == c.len() { c.clone() } else { c.take_usize(&idx) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_and_value_assignment() {
        let mut r = Level::Range(Column::from_vec(DataType::Int, vec![0, 5, 10]));
        let (idx, _) = r.assign(&Column::from_vec(DataType::Int, vec![0, 4, 5, 9, 10, -1, i32::NULL])).unwrap();
        assert_eq!(idx, vec![0, 0, 1, 1, NONE, NONE, NONE]);
        assert_eq!(r.dir_name(1), "5_10");
        let mut v = Level::Value(Column::from_vec(DataType::Date, vec![17385, 17386]));
        let (idx, changed) = v.assign(&Column::from_vec(DataType::Date, vec![17386, 17390, 17385])).unwrap();
        assert_eq!(idx, vec![1, 2, 0]);
        assert!(changed);
        assert_eq!(v.count(), 3);
        assert_eq!(v.dir_name(0), "20170807");
        let keep = v.prune_range(Some(&Column::from_vec(DataType::Date, vec![17386])), None).unwrap();
        assert_eq!(keep, vec![false, true, true]);
        let keep = r.prune_range(Some(&Column::from_vec(DataType::Int, vec![5])), Some(&Column::from_vec(DataType::Int, vec![7]))).unwrap();
        assert_eq!(keep, vec![false, true]);
        let s = Level::Range(Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["A", "M", "ZZZZ"]))));
        let keep = s.prune_in(&Column::new(DataType::String, ColData::Str(beluga_runtime::StrCol::from_iter(["IBM"])))).unwrap();
        assert_eq!(keep, vec![true, false]);
    }
}
