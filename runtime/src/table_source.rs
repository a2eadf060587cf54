//! The seam between the SQL executor and stored tables: the `TableSource` trait and the
//! predicate type (`Pred`) the planner lowers row-wise `where` conditions to.
//!
//! Why: the executor must not know how a table is stored, and storage must not know the
//! syntax of the language. The planner (`sql/lower.rs`) turns the leading run of row-wise
//! `where` conjuncts of simple shape into `Pred`s once, evaluating their constants in the
//! session; a source uses them to prune partitions, skip blocks and filter rows while it
//! scans. Everything a source does with predicates is an optimisation: the executor still
//! evaluates every `where` condition on what the scan returns (except conditions a source
//! reports as decided for every returned row, see `TableSource::decided`).
//!
//! A table handle value (`Value::Handle`) exposes its source through
//! `Handle::table_source`; `table_source(&value)` is the accessor the executor uses.
//! The shape follows DataFusion's `TableProvider::scan(projection, filters, limit)`:
//! the caller names the columns and hands the filters over, the source decides how much
//! of them it can use.

use crate::column::Column;
use crate::error::{Error, Result};
use crate::kernels::cmp::CmpOp;
use crate::table::Table;
use crate::types::DataType;
use crate::value::Value;
use std::sync::Arc;

/// A row-wise condition on stored columns, by column name (matched like table columns:
/// exactly, else ignoring ASCII case).
#[derive(Clone, Debug)]
pub enum Pred {
    /// `col op constant` (the constant is a scalar column of length 1)
    Cmp { col: String, op: CmpOp, value: Column },
    /// `col between lo : hi` (scalars; a NULL `hi` leaves the upper end open for pruning)
    Between { col: String, lo: Column, hi: Column },
    /// `col in values` (a scalar, vector or set)
    In { col: String, values: Value },
    /// `left op right`, two columns
    ColCmp { left: String, op: CmpOp, right: String },
}

impl Pred {
    /// The columns the predicate reads.
    pub fn columns(&self) -> Vec<&str> {
        match self {
            Pred::Cmp { col, .. } | Pred::Between { col, .. } | Pred::In { col, .. } => vec![col],
            Pred::ColCmp { left, right, .. } => vec![left, right],
        }
    }
    /// True for a predicate on one column against constants (what partition keys decide).
    pub fn is_constant_test(&self) -> bool {
        !matches!(self, Pred::ColCmp { .. })
    }
}

/// What to read: the columns (None: every column, in table order; otherwise the named
/// columns that exist, in table order; names that are not columns are ignored), the
/// predicates (a conjunction), and optionally only some partitions (by id, see
/// `PartInfo`). `split` asks for one batch per partition instead of one table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scan<'a> {
    pub columns: Option<&'a [String]>,
    pub preds: &'a [Pred],
    pub partitions: Option<&'a [String]>,
    pub split: bool,
    /// With `split`: a partition stored in several segments may come as one batch per
    /// segment (for a caller that merges what it computes per batch, as map-reduce
    /// aggregates do), so that segments returned whole need not be copied into one.
    pub segments: bool,
    /// `(column, n)` for `select top n <columns> … order by column desc` when every `where`
    /// condition is among `preds`: the source may leave out partitions that cannot hold
    /// any of the first n rows of that order (keys below the n-th largest key found).
    pub top_desc: Option<(&'a str, usize)>,
}

/// Whether a filter that keeps `kept` of `rows` rows keeps so many (more than 7/8) that
/// carrying the selection as a mask beats gathering the kept rows: a scan may then return
/// them all (see `Scan`), and a map-reduce aggregate runs on every row under the mask,
/// holding no second copy of the columns. Below it, the work on the rows left out (keys,
/// arguments, conditions evaluated for them too) costs more than the copy: at 67% kept
/// (devices d20) the mask was 10-40% slower warm.
pub fn mostly_kept(kept: usize, rows: usize) -> bool {
    kept.saturating_mul(8) > rows.saturating_mul(7)
}

/// A partition that may hold rows satisfying the predicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartInfo {
    /// stable id (for stored tables, the partition's folder relative to the table)
    pub id: String,
    /// rows stored in the partition (before any predicate)
    pub rows: u64,
}

/// Every row of some partitions, read for an update or delete that rewrites them.
#[derive(Debug)]
pub struct PartRows {
    /// the table version the rows were read from (a rewrite checks it did not change)
    pub version: u64,
    /// partition ids and their rows, in the same order
    pub parts: Vec<String>,
    pub tables: Vec<Table>,
}

/// A table that lives outside the session (on disk, elsewhere) and is read by scans.
pub trait TableSource: Send + Sync {
    /// The table's name (what a loaded table is named).
    fn name(&self) -> &str;
    /// Column names and types, in table order.
    fn schema(&self) -> Result<Vec<(String, DataType)>>;
    /// The number of rows stored.
    fn rows(&self) -> Result<u64>;
    /// The partitions that may hold rows satisfying `preds` (pruning by partition keys);
    /// an unpartitioned source is one partition.
    fn partitions(&self, preds: &[Pred]) -> Result<Vec<PartInfo>>;
    /// Read the requested columns of the rows that may satisfy the predicates: one table,
    /// or with `split` one table per partition that has such rows. A source may return
    /// rows that fail a predicate, never drop one that satisfies all.
    fn scan(&self, req: Scan<'_>) -> Result<Vec<Table>>;
    /// The number of rows satisfying `preds` when the source's metadata decides it
    /// without reading rows, else None.
    fn count(&self, preds: &[Pred]) -> Result<Option<u64>>;
    /// For each of `tests`: true when it holds for every row of every batch a split scan
    /// with `preds` returns (so the executor need not evaluate it again).
    fn decided(&self, preds: &[Pred], tests: &[Pred]) -> Result<Vec<bool>>;
    /// Append rows (matched by column position); the number of rows added.
    fn append(&self, rows: &Table) -> Result<u64>;
    /// Replace every row by the rows of `t`.
    fn overwrite(&self, t: &Table) -> Result<()>;
    /// Every row of the partitions that may hold rows satisfying `preds` (pruning only).
    fn read_partitions(&self, preds: &[Pred]) -> Result<PartRows>;
    /// Replace the rows of partitions `parts` (read at `version`) by the rows of `tables`
    /// in one commit; rows go where their partitioning columns send them.
    fn rewrite(&self, version: u64, parts: &[String], tables: &[Arc<Table>]) -> Result<()>;

    /// Partitioning functions of the source: `(column, call)` for each partition level
    /// decided by a function of a column (`createPartitionedTable(..., "f(col, 8)")`). The
    /// planner evaluates `call` on the constants of `column = c` and `column in (...)`
    /// predicates and hands the values over as `Pred::In { col: call, values }`, a predicate
    /// on a name that is not a column, which the source uses only to prune partitions
    /// (`sql::lower::key_fn_preds`).
    fn key_functions(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Append a table, or a tuple of columns in table order (`append!`, `tableInsert`);
    /// the number of rows added.
    fn append_value(&self, data: &Value) -> Result<u64> {
        self.append(&self.rows_of(data)?)
    }
    /// The rows `append!`/`tableInsert` accept as a table: a table, or a tuple of columns
    /// in this table's column order.
    fn rows_of(&self, data: &Value) -> Result<Table> {
        match data {
            Value::Table(t) => Ok((**t).clone()),
            Value::Tuple(items) => {
                let names: Vec<String> = self.schema()?.into_iter().map(|(n, _)| n).collect();
                let cols = items
                    .iter()
                    .map(|v| v.column().cloned().ok_or_else(|| Error::arg("Each element of the tuple must be a vector")))
                    .collect::<Result<Vec<_>>>()?;
                Table::new(names, cols)
            }
            _ => Err(Error::arg("Only a table can be appended to a stored table")),
        }
    }
    /// Every row and column as one in-memory table.
    fn table(&self) -> Result<Table> {
        one(self.scan(Scan::default())?)
    }
    /// One whole column (`pt.col`); an error naming the column when there is none.
    fn column(&self, name: &str) -> Result<Column> {
        let schema = self.schema()?;
        let Some((stored, _)) = schema.iter().find(|(n, _)| n == name).or_else(|| schema.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))) else {
            return Err(Error::name(format!("Unrecognized column name [{name}]")));
        };
        let cols = [stored.clone()];
        let mut t = one(self.scan(Scan { columns: Some(&cols), ..Scan::default() })?)?;
        t.cols.pop().ok_or_else(|| Error::runtime("internal: a column scan returned no column"))
    }
}

/// The single table of an unsplit scan.
pub fn one(mut tables: Vec<Table>) -> Result<Table> {
    match (tables.pop(), tables.is_empty()) {
        (Some(t), true) => Ok(t),
        _ => Err(Error::runtime("internal: an unsplit scan returned other than one table")),
    }
}

/// The table source behind a handle value, if it is one.
pub fn table_source(v: &Value) -> Option<&dyn TableSource> {
    match v {
        Value::Handle(h) => h.table_source(),
        _ => None,
    }
}

/// The columns a scan asks for (`Scan::columns`, names matched case-insensitively), in
/// table order; all of them for `None`. In-memory sources answer scans with it.
pub fn project(t: Table, columns: Option<&[String]>) -> Result<Table> {
    match columns {
        None => Ok(t),
        Some(want) => {
            let keep: Vec<usize> = (0..t.ncols()).filter(|&k| want.iter().any(|w| w.eq_ignore_ascii_case(&t.names[k]))).collect();
            Table::new(keep.iter().map(|&k| t.names[k].clone()).collect(), keep.iter().map(|&k| t.cols[k].clone()).collect())
        }
    }
}
