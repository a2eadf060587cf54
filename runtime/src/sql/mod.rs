//! The SQL executor: select/exec/update/delete/insert on whole columns (DESIGN.md "SQL
//! executor", LANGUAGE.md §6).
//!
//! * `plan`: analysis of the query's syntax tree (referenced columns, qualified names,
//!   result column names, row-wise test).
//! * `source`: the `from` clause (tables, subqueries, handles, `a join b on …`).
//! * `frame`: the working set of referenced columns, scopes and `where` filtering.
//! * `exec`: the select pipeline and its final steps (order by, top/limit, distinct, exec).
//! * `group`, `context`, `pivot`: `group by`, `context by`, `pivot by`/`cgroup by`.
//! * `keys`: group ids by hashing (ahash) with direct-index and sorted-run fast paths.
//! * `order`: stable multi-key sort permutations.
//! * `join`, `asof`: join kernels shared by the SQL join syntax and the join builtins.
//! * `dml`: update, delete, insert.
//! * `setops`: `union [all]` and `with` (entry points for the evaluator).

pub mod asof;
mod context;
mod dml;
mod dml_stored;
mod exec;
mod frame;
mod group;
mod interval;
mod macros;
mod mapreduce;
mod mapreduce_agg;
pub mod join;
pub mod keys;
pub mod order;
pub mod par;
mod pivot;
mod plan;
mod setops;
mod source;
mod window;

use crate::column::Column;
use crate::error::Result;
use crate::eval::Interpreter;
use crate::value::Value;
use beluga_lang::ast::{DeleteStmt, InsertStmt, SelectQuery, UpdateStmt};
use std::sync::OnceLock;

/// A group-wise aggregate kernel: `(function name, values, group id per row, number of
/// groups)` → one value per group, or `None` when the function has no grouped kernel.
pub type GroupedKernel = fn(&str, &Column, &[u32], usize) -> Option<Result<Column>>;

/// A group-wise kernel of a two-column aggregate (`wavg`, `wsum`, `corr`, `covar`…).
pub type GroupedKernel2 = fn(&str, &Column, &Column, &[u32], usize) -> Option<Result<Column>>;

static GROUPED: OnceLock<GroupedKernel> = OnceLock::new();
static GROUPED2: OnceLock<GroupedKernel2> = OnceLock::new();

/// Install the group-wise aggregate kernels (stdlib's `agg::grouped`). Without them
/// `group by` evaluates aggregates on per-group slices.
pub fn set_grouped_kernel(f: GroupedKernel) {
    let _ = GROUPED.set(f);
}

/// Install the two-column group-wise aggregate kernels (stdlib's `agg_group::grouped2`).
pub fn set_grouped_kernel2(f: GroupedKernel2) {
    let _ = GROUPED2.set(f);
}

pub(crate) fn grouped_kernel2() -> Option<GroupedKernel2> {
    GROUPED2.get().copied()
}

pub use frame::ColBuilder;
pub use setops::{union, with_queries};
pub use group::{set_segmented_kernel, SegmentedKernel};
pub use plan::{auto_name, names_in};

pub(crate) fn grouped_kernel() -> Option<GroupedKernel> {
    GROUPED.get().copied()
}

/// Builtin that materialises a storage handle as an in-memory table:
/// `__handleLoad(handle, columnNames, conditions)`, provided by the storage crate.
/// `columnNames` is a STRING vector of the names the query may reference (it can hold
/// names that are not columns; VOID = every column). `conditions` is a tuple of metacode:
/// the query's leading row-wise `where` conditions, which the loader may use to skip
/// partitions that cannot match (it need not filter rows: the executor applies them again).
pub const HANDLE_LOAD: &str = "__handleLoad";

/// How many queries ran map-reduce style over stored partitions (`sql/mapreduce.rs`).
pub fn mapreduce_runs() -> usize {
    mapreduce::RUNS.load(std::sync::atomic::Ordering::Relaxed)
}

pub fn select(i: &mut Interpreter, q: &SelectQuery) -> Result<Value> {
    let depth = i.col_scopes.len();
    let r = if macros::uses_macros(q) {
        macros::expand(i, q).and_then(|q2| exec::select(i, &q2))
    } else {
        exec::select(i, q)
    };
    // a failed evaluation may leave scopes pushed by nested queries
    i.col_scopes.truncate(depth);
    r
}

pub fn update(i: &mut Interpreter, q: &UpdateStmt) -> Result<()> {
    let depth = i.col_scopes.len();
    let r = dml::update(i, q);
    i.col_scopes.truncate(depth);
    r
}

pub fn delete(i: &mut Interpreter, q: &DeleteStmt) -> Result<()> {
    let depth = i.col_scopes.len();
    let r = dml::delete(i, q);
    i.col_scopes.truncate(depth);
    r
}

pub fn insert(i: &mut Interpreter, q: &InsertStmt) -> Result<()> {
    let depth = i.col_scopes.len();
    let r = dml::insert(i, q);
    i.col_scopes.truncate(depth);
    r
}

#[cfg(test)]
mod tests;
