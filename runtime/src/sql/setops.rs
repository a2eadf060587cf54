//! Query combinators for the evaluator: `q1 union [all] q2` and `with name as (q) …`.
//! (The syntax tree has no node for them yet; these are the entry points to call.)

use super::keys::group_ids;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::kernels::cast::cast_column;
use crate::table::Table;
use crate::types::common_type;
use crate::value::Value;
use ahash::AHashMap;
use beluga_lang::ast::SelectQuery;
use std::sync::Arc;

/// `a union b` (distinct rows of both, first occurrences in order) and `a union all b`
/// (all rows). Columns are matched by position; names come from `a`.
pub fn union(a: &Value, b: &Value, all: bool) -> Result<Value> {
    let (Value::Table(x), Value::Table(y)) = (a, b) else {
        return Err(Error::type_err("union combines the results of two queries (tables)"));
    };
    if x.ncols() != y.ncols() {
        return Err(Error::size(format!(
            "The two queries of union have {} and {} columns",
            x.ncols(),
            y.ncols()
        )));
    }
    let mut cols = Vec::with_capacity(x.ncols());
    for (p, q) in x.cols.iter().zip(&y.cols) {
        let ty = common_type(p.ty, q.ty)
            .ok_or_else(|| Error::type_err(format!("The columns of union have incompatible types {} and {}", p.ty, q.ty)))?;
        let p = if p.ty == ty { p.clone() } else { cast_column(p, ty)? };
        let q = if q.ty == ty { q.clone() } else { cast_column(q, ty)? };
        cols.push(Column::concat(ty, &[&p, &q]));
    }
    if !all && !cols.is_empty() {
        let refs: Vec<&Column> = cols.iter().collect();
        let g = group_ids(&refs);
        if g.n < cols[0].len() {
            cols = cols.iter().map(|c| c.take_usize(&g.first)).collect();
        }
    }
    Ok(Value::table(Table::new(x.names.clone(), cols)?))
}

/// `with n1 as (q1), n2 as (q2) … q`: each named query is evaluated in order (later ones
/// may use earlier names) and visible as a table in the following queries.
pub fn with_queries(i: &mut Interpreter, ctes: &[(String, SelectQuery)], body: &SelectQuery) -> Result<Value> {
    let depth = i.col_scopes.len();
    let r = (|| {
        let mut names: AHashMap<String, Value> = AHashMap::new();
        for (n, q) in ctes {
            i.col_scopes.push(names.clone());
            let v = super::select(i, q);
            i.col_scopes.pop();
            let v = match v? {
                Value::Table(t) => {
                    let mut t2 = (*t).clone();
                    t2.name = Some(n.clone());
                    Value::Table(Arc::new(t2))
                }
                other => other,
            };
            names.insert(n.clone(), v);
        }
        i.col_scopes.push(names);
        super::select(i, body)
    })();
    i.col_scopes.truncate(depth);
    r
}
