//! The SQL executor: select/exec/update/delete/insert on whole columns (DESIGN.md "SQL
//! executor", LANGUAGE.md §6).
//!
//! * `plan`: analysis of the query's syntax tree (referenced columns, qualified names,
//!   result column names, row-wise test).
//! * `source`: the `from` clause (tables, subqueries, handles, `a join b on …`).
//! * `frame`: the working set of referenced columns, scopes and `where` filtering.
//! * `exec`: the select pipeline and its final steps (order by, top/limit, distinct, exec).
//! * `group`, `context`, `pivot`: `group by`, `context by`, `pivot by`/`cgroup by`.
//! * `keys`, `order`, `par`: re-exports of the grouping, sorting and parallel-row kernels
//!   (`crate::kernels::{group, order, par}`, shared with the builtins).
//! * `join`, `asof`: join kernels shared by the SQL join syntax and the join builtins.
//! * `dml`: update, delete, insert.
//! * `setops`: `union [all]` and `with` (entry points for the evaluator).

pub mod asof;
mod context;
mod dml;
mod dml_stored;
pub mod ds;
mod exec;
mod frame;
mod group;
mod interval;
mod lower;
mod macros;
mod mapreduce;
pub(crate) use mapreduce::Snapshot;
mod mapreduce_agg;
pub mod join;
pub mod over;
pub mod keys;
pub mod order;
pub mod par;
mod pivot;
mod plan;
pub(crate) mod quantified;
mod setops;
mod source;
mod window;

use crate::error::Result;
use crate::eval::Interpreter;
use crate::value::Value;
use beluga_lang::ast::{DeleteStmt, InsertStmt, SelectQuery, UpdateStmt};

// The kernel types live with the builtin row that carries them (`registry::Caps`).
pub use crate::registry::{GroupedKernel, GroupedKernel2, SegmentedKernel};

pub use frame::ColBuilder;
pub use setops::{union, with_queries};
pub use plan::{auto_name, map_expr, names_in, walk};

/// The capability slots of the builtin `name` in this session's registry (a name not
/// registered has none).
pub(crate) fn caps_of(i: &Interpreter, name: &str) -> crate::registry::Caps {
    i.registry.caps(name).copied().unwrap_or_default()
}

pub use lower::{lower, lower_preds, Lowered};
pub use mapreduce_agg::split_eval;

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
