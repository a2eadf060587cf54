//! Partitioning functions: `createPartitionedTable(..., partitionColumns="f(ts, 6, 8)")` and
//! `create table ... partitioned by f(ts, 6, 8)` partition a table by what a function returns
//! for a column rather than by the column's own values (manual: funcs/c/createPartitionedTable,
//! progr/sql/create, example 6). The call names exactly one column of the table; its other
//! arguments are constant scalars. The call's text is kept in the table's manifest
//! (`TableOpts::part_fns`) and evaluated in the appending session, so user functions work
//! and the function is looked up again after the database is reopened.
//!
//! Queries never prune such a level by the column's values (a partition holds the rows whose
//! function value, not column value, lies in the scheme); block statistics of the column
//! itself still skip data.

use beluga_runtime::callctx::ColumnCall;
use beluga_runtime::{CallCtx, Column, Error, Result, Value};

/// Whether a partitioning column entry is a function call rather than a column name.
pub fn is_call(s: &str) -> bool {
    s.contains('(')
}

fn parse(text: &str) -> Result<ColumnCall> {
    ColumnCall::parse(text).map_err(|why| Error::arg(format!("The partitioning function '{text}' {why}")))
}

/// Check the call `text` against the table's columns: (function name, index of the column
/// it is applied to, the column's name as written in the call).
pub fn check(text: &str, names: &[String]) -> Result<(String, usize, String)> {
    let call = parse(text)?;
    let n = call.column();
    let Some(k) = names.iter().position(|c| c.eq_ignore_ascii_case(n)) else {
        return Err(Error::arg(format!("The partitioning function '{text}' names {n}, which is not a column of the table")));
    };
    Ok((call.func().to_string(), k, n.to_string()))
}

/// Evaluate the partitioning call `text` on the column's values `col` in session `i`: one
/// value per row.
pub fn apply(i: &mut CallCtx, text: &str, col: &Column) -> Result<Column> {
    let call = parse(text)?;
    let out = i.eval_column_call(&call, col).map_err(|err| Error::runtime(format!("The partitioning function '{text}' failed: {err}")))?;
    let n = col.len();
    match out {
        Value::Vector(c) if c.len() == n => Ok(c),
        Value::Scalar(c) if n == 1 => Ok(c),
        other => Err(Error::runtime(format!(
            "The partitioning function '{text}' must return one value per row ({n}), not {}",
            beluga_runtime::value::describe(&other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{self, write_db_meta, DbMeta};
    use crate::partition::Level;
    use crate::store::Appender;
    use beluga_runtime::{DataType, Table};

    #[test]
    fn calls_name_one_column_and_constants() {
        let names: Vec<String> = ["id", "ts", "v"].iter().map(|s| s.to_string()).collect();
        assert_eq!(check("f(ID, 6, -8)", &names).unwrap(), ("f".to_string(), 0, "ID".to_string()));
        assert_eq!(check("g(\"x\", ts)", &names).unwrap().1, 1);
        for bad in ["f(id, v)", "f(3)", "f(nope)", "f(id, v + 1)", "id + 1", "f(x = id)"] {
            assert!(check(bad, &names).is_err(), "{bad}");
        }
        assert!(is_call("f(id)") && !is_call("id"));
    }

    /// The call is kept in the manifest; appends without a session are refused with a clear
    /// error, and with one the function's values place the rows.
    #[test]
    fn the_function_persists_and_places_rows() {
        let dir = std::env::temp_dir().join(format!("beluga-partfn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let levels = vec![Level::Value(Column::from_vec(DataType::Int, vec![1, 2]))];
        write_db_meta(&dir, &DbMeta { levels, engine: "OLAP".into() }).unwrap();
        let names = vec!["code".to_string(), "v".to_string()];
        Appender::create(&dir, "t", names.clone(), vec![DataType::Int, DataType::Double], vec!["bucket(code, 1000)".into()]).unwrap().commit().unwrap();
        let m = catalog::read_table(&dir, "t").unwrap();
        assert_eq!(m.part_cols, vec!["code".to_string()]);
        assert_eq!(m.opts.part_fns, vec!["bucket(code, 1000)".to_string()]);
        let t = Table::new(names, vec![Column::from_vec(DataType::Int, vec![1500, 2100, 1999, 3000]), Column::from_vec(DataType::Double, vec![1.0, 2.0, 3.0, 4.0])]).unwrap();
        let mut ap = Appender::open(&dir, "t").unwrap();
        let e = ap.push(&t, None).unwrap_err().to_string();
        assert!(e.contains("bucket(code, 1000)") && e.contains("session"), "{e}");
        drop(ap);
        let mut ap = Appender::open(&dir, "t").unwrap();
        let mut calls = 0;
        let mut keyer = |text: &str, c: &Column| -> Result<Column> {
            calls += 1;
            assert_eq!(text, "bucket(code, 1000)");
            let beluga_runtime::ColData::I32(v) = &*c.data else { panic!("type") };
            Ok(Column::from_vec(DataType::Int, v.iter().map(|x| x / 1000).collect::<Vec<i32>>()))
        };
        ap.push_keyed(&t, None, Some(&mut keyer)).unwrap();
        ap.commit().unwrap();
        assert_eq!(calls, 1);
        let m = catalog::read_table(&dir, "t").unwrap();
        let rows: Vec<(String, u64)> = m.parts.iter().map(|p| (p.dir.clone(), p.rows())).collect();
        assert_eq!(rows, vec![("1".to_string(), 2), ("2".to_string(), 1), ("3".to_string(), 1)]);
        // pruning: the planner's function values (`Pred::In` on the call) select partitions;
        // the column's own values never do (2100 is no partition value, yet rows hold it)
        use beluga_runtime::kernels::cmp::CmpOp;
        use beluga_runtime::table_source::Pred;
        let db = std::sync::Arc::new(crate::handle::DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta: crate::catalog::read_db_meta(&dir).unwrap() });
        let h = crate::handle::TableHandle { db, name: "t".into() };
        let ids = |preds: &[Pred]| -> Vec<String> { crate::load::partitions(&h, preds).unwrap().into_iter().map(|p| p.id).collect() };
        let key = Pred::In { col: "bucket(code, 1000)".into(), values: Value::vector(Column::from_vec(DataType::Int, vec![2])) };
        let raw = Pred::Cmp { col: "code".into(), op: CmpOp::Eq, value: Column::from_vec(DataType::Int, vec![2100]) };
        assert_eq!(ids(&[raw.clone(), key]), vec!["2".to_string()]);
        assert_eq!(ids(&[raw]).len(), 3);
        let range = Pred::Cmp { col: "code".into(), op: CmpOp::Gt, value: Column::from_vec(DataType::Int, vec![2]) };
        assert_eq!(ids(&[range]).len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
