//! `upsert!` on a stored table: rows of `newData` whose key columns
//! (`keyColNames`; a TSDB table's sortColumns when omitted) match a stored row replace its
//! values (only the non-null ones with `ignoreNull=true`); the others are appended. One
//! write transaction: the partitions holding updated rows are rewritten (other partitions
//! keep their files), the new rows are appended, and a single manifest commit makes both
//! visible (a failure or a crash leaves the table as it was).
//!
//! As the manual says, the partitioning columns are part of the key besides `keyColNames`.
//! So a stored row with the same key as a new row lies in the new row's partition, and only
//! the partitions the new keys fall into are read: the partitioning columns' new values
//! prune the read (`key_preds`; levels decided by a function of a column are not pruned).

use crate::handle::TableHandle;
use crate::store::Appender;
use beluga_runtime::column::Column;
use beluga_runtime::kernels::group::group_ids;
use beluga_runtime::table_source::{Pred, TableSource};
use beluga_runtime::{CallCtx, Error, Result, Table, Value};

/// `upsert!(h, newData, [ignoreNull], [keyColNames], [sortColumns])`; the rows inserted and
/// the rows updated (`tableUpsert`'s pair).
pub fn upsert_stored(i: &mut CallCtx, h: &TableHandle, args: &[Value]) -> Result<(u64, u64)> {
    let f = "upsert!";
    let meta = h.meta()?;
    let ignore_null = args.get(2).and_then(|v| v.as_bool()).unwrap_or(false);
    let key_names: Vec<String> = match args.get(3) {
        Some(Value::Void) | None => meta.opts.sort_cols.clone(),
        Some(v) => crate::builtins_db::names_of(f, v)?,
    };
    if key_names.is_empty() {
        return Err(Error::arg(format!("[{f}] needs keyColNames to upsert into the stored table {}", h.name)));
    }
    let mut kidx: Vec<usize> = key_names
        .iter()
        .map(|n| meta.col_index(n).ok_or_else(|| Error::arg(format!("[{f}] The key column {n} is not a column of the table {}", h.name))))
        .collect::<Result<_>>()?;
    // the manual (funcs/u/upsert_.md): on a DFS table, keyColNames and the partitioning
    // columns together are the key
    for pc in &meta.part_cols {
        if let Some(k) = meta.col_index(pc).filter(|k| !kidx.contains(k)) {
            kidx.push(k);
        }
    }
    let new = match args.get(1) {
        Some(Value::Table(t)) => (**t).clone(),
        _ => return Err(Error::arg(format!("[{f}] newData must be a table"))),
    };
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    // the new rows in the stored types (and symbol base), so keys compare as stored
    let new_cols = ap.conform(&new)?;
    let ns = new_cols.first().map_or(0, |c| c.len());
    if ns == 0 {
        return Ok((0, 0));
    }
    let stored = h.read_partitions(&key_preds(&meta, &kidx, &new_cols))?;
    if stored.version != ap.meta.version {
        return Err(Error::runtime(format!("The table {} was changed by another writer during upsert!; nothing was written", h.name)));
    }
    let nt: usize = stored.tables.iter().map(|t| t.rows()).sum();
    // partition and row of every stored row, in concatenation order
    let mut origin: Vec<(usize, usize)> = Vec::with_capacity(nt);
    for (p, t) in stored.tables.iter().enumerate() {
        origin.extend((0..t.rows()).map(|r| (p, r)));
    }
    let keys: Vec<Column> = kidx
        .iter()
        .map(|&k| {
            let mut parts: Vec<&Column> = stored.tables.iter().map(|t| &t.cols[k]).collect();
            parts.push(&new_cols[k]);
            crate::store::concat_stored(meta.types[k], &parts, &ap.meta.symbols)
        })
        .collect();
    let g = group_ids(&keys.iter().collect::<Vec<_>>());
    // the stored row holding each key (the last one when several do)
    let mut holder: Vec<Option<usize>> = vec![None; g.n];
    for r in 0..nt {
        holder[g.gid[r] as usize] = Some(r);
    }
    // per stored row, the new row that writes it (the last one of that key); new rows
    // without a stored row are appended, one per key (the last one)
    let mut writer: Vec<Option<usize>> = vec![None; nt];
    let mut appended: Vec<Option<usize>> = vec![None; g.n];
    for s in 0..ns {
        let id = g.gid[nt + s] as usize;
        match holder[id] {
            Some(r) => writer[r] = Some(s),
            None => appended[id] = Some(s),
        }
    }
    let mut changed: Vec<bool> = vec![false; stored.tables.len()];
    for (r, w) in writer.iter().enumerate() {
        if w.is_some() {
            changed[origin[r].0] = true;
        }
    }
    let mut add: Vec<usize> = appended.into_iter().flatten().collect();
    add.sort_unstable();
    // rewrite the changed partitions with the new values in place
    let fn_keys = ap.meta.opts.has_part_fns();
    let mut rewrites: Vec<(Vec<u32>, Table)> = Vec::new();
    let mut base = 0;
    for (p, t) in stored.tables.iter().enumerate() {
        let rows = t.rows();
        if changed[p] {
            let mut cols = Vec::with_capacity(t.ncols());
            for (k, c) in t.cols.iter().enumerate() {
                let c = crate::store::conform_column(c, meta.types[k], &mut ap.meta.symbols, &meta.names[k])?;
                let combined = crate::store::concat_stored(meta.types[k], &[&c, &new_cols[k]], &ap.meta.symbols);
                let idx: Vec<usize> = (0..rows)
                    .map(|r| match writer[base + r] {
                        Some(s) if !(ignore_null && new_cols[k].is_null(s)) => rows + s,
                        _ => r,
                    })
                    .collect();
                cols.push(combined.take_usize(&idx));
            }
            let key = ap.meta.parts.iter().find(|q| q.dir == stored.parts[p]).map(|q| q.key.clone()).unwrap_or_default();
            rewrites.push((key, Table::new(meta.names.clone(), cols)?));
        }
        base += rows;
    }
    let dirs: Vec<&String> = stored.parts.iter().zip(&changed).filter(|(_, c)| **c).map(|(d, _)| d).collect();
    ap.meta.parts.retain(|p| !dirs.contains(&&p.dir));
    for (key, t) in &rewrites {
        if fn_keys {
            ap.push_to_part(key.clone(), t)?;
        } else {
            ap.push(t, None)?;
        }
    }
    let updated = writer.iter().filter(|w| w.is_some()).count() as u64;
    if !add.is_empty() {
        let t = Table::new(meta.names.clone(), new_cols.iter().map(|c| c.take_usize(&add)).collect())?;
        ap.push_keyed(&t, None, Some(&mut |text: &str, c: &Column| crate::partfn::apply(i, text, c)))?;
    }
    ap.commit()?;
    Ok((add.len() as u64, updated))
}

/// Predicates that keep only the partitions holding the new rows' partitioning values, when
/// every partitioning column is a key column (else none: any partition may hold a key).
/// Levels decided by a function of a column are not pruned.
fn key_preds(meta: &crate::catalog::TableMeta, kidx: &[usize], new_cols: &[Column]) -> Vec<Pred> {
    if meta.part_cols.is_empty() || meta.opts.has_part_fns() {
        return Vec::new();
    }
    let mut preds = Vec::with_capacity(meta.part_cols.len());
    for pc in &meta.part_cols {
        match meta.col_index(pc) {
            Some(k) if kidx.contains(&k) => preds.push(Pred::In { col: meta.names[k].clone(), values: Value::Vector(new_cols[k].clone()) }),
            _ => return Vec::new(),
        }
    }
    preds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{TableMeta, TableOpts};
    use beluga_runtime::column::SymbolDict;
    use beluga_runtime::DataType;
    use std::sync::Arc;

    fn meta(part_cols: &[&str], fns: Vec<String>) -> TableMeta {
        TableMeta {
            version: 1,
            names: vec!["date".into(), "sym".into(), "x".into()],
            types: vec![DataType::Date, DataType::Symbol, DataType::Double],
            part_cols: part_cols.iter().map(|s| s.to_string()).collect(),
            symbols: Arc::new(SymbolDict::default()),
            next_seg: 1,
            parts: Vec::new(),
            opts: TableOpts { part_fns: fns, ..Default::default() },
        }
    }

    #[test]
    fn new_keys_prune_only_when_every_partitioning_column_is_a_key() {
        let cols = vec![Column::from_vec(DataType::Date, vec![18000, 18005]), Column::nulls(DataType::Symbol, 2), Column::nulls(DataType::Double, 2)];
        // partitioned by date, keyed by (date, sym): one IN predicate with the new dates
        let p = key_preds(&meta(&["date"], vec![]), &[0, 1], &cols);
        assert_eq!(p.len(), 1);
        let Pred::In { col, values: Value::Vector(v) } = &p[0] else { panic!("{p:?}") };
        assert_eq!((col.as_str(), v.len()), ("date", 2));
        // a key without the partitioning column: any partition may hold a key
        assert!(key_preds(&meta(&["date"], vec![]), &[1], &cols).is_empty());
        // two levels, one of them not a key; a dimension table; a partitioning function
        assert!(key_preds(&meta(&["date", "sym"], vec![]), &[0], &cols).is_empty());
        assert!(key_preds(&meta(&[], vec![]), &[0, 1], &cols).is_empty());
        assert!(key_preds(&meta(&["date"], vec!["f(date)".into()]), &[0, 1], &cols).is_empty());
    }
}
