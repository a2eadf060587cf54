//! Query combinators: `q1 union [all] q2` and `with name as (q) … body` (the evaluator's
//! entry points for `ExprKind::Union` and `ExprKind::With`).

use super::keys::group_ids;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::kernels::cast::cast_column;
use crate::table::Table;
use crate::types::DataType;
use crate::value::Value;
use ahash::AHashMap;
use beluga_lang::ast::{Cte, Expr};
use std::sync::Arc;

/// `a union b` (the distinct rows of both, first occurrences in order) and `a union all b`
/// (all rows). Columns are matched by position; the first query gives the names and the
/// types (the second query's columns are cast to them). Two `exec` results (vectors)
/// combine into a vector.
pub fn union(a: &Value, b: &Value, all: bool) -> Result<Value> {
    match (a, b) {
        (Value::Table(x), Value::Table(y)) => {
            if x.ncols() != y.ncols() {
                return Err(Error::size(format!(
                    "The queries of union must return the same number of columns, not {} and {}",
                    x.ncols(),
                    y.ncols()
                )));
            }
            let mut cols = Vec::with_capacity(x.ncols());
            for (p, q) in x.cols.iter().zip(&y.cols) {
                cols.push(append(p, q)?);
            }
            if !all {
                if let Some(keep) = distinct_rows(&cols) {
                    cols = cols.iter().map(|c| c.take_usize(&keep)).collect();
                }
            }
            Ok(Value::table(Table::new(x.names.clone(), cols)?))
        }
        (Value::Vector(p), Value::Vector(q)) => {
            let c = append(p, q)?;
            match distinct_rows(std::slice::from_ref(&c)) {
                Some(keep) if !all => Ok(Value::vector(c.take_usize(&keep))),
                _ => Ok(Value::vector(c)),
            }
        }
        _ => Err(Error::type_err(format!(
            "union combines the results of two queries (two tables or two vectors), not {} and {}",
            kind(a),
            kind(b)
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Table(_) => "a table",
        Value::Vector(_) => "a vector",
        Value::Scalar(_) | Value::Void => "a scalar",
        _ => "another object",
    }
}

/// `p` followed by `q` cast to `p`'s type (`q`'s type when `p` is untyped).
fn append(p: &Column, q: &Column) -> Result<Column> {
    let ty = if p.ty == DataType::Void { q.ty } else { p.ty };
    let cast = |c: &Column| -> Result<Column> {
        if c.ty == ty {
            Ok(c.clone())
        } else {
            cast_column(c, ty).map_err(|e| {
                Error::type_err(format!(
                    "The columns of union have incompatible types {} and {}: {e}",
                    p.ty, q.ty
                ))
            })
        }
    };
    let (p, q) = (cast(p)?, cast(q)?);
    Ok(Column::concat(ty, &[&p, &q]))
}

/// Positions of the first occurrence of every distinct row, in order (rows hashed over all
/// columns); None when every row is distinct.
fn distinct_rows(cols: &[Column]) -> Option<Vec<usize>> {
    let n = cols.first()?.len();
    let refs: Vec<&Column> = cols.iter().collect();
    let g = group_ids(&refs);
    if g.n == n {
        return None;
    }
    let mut first = g.first;
    first.sort_unstable();
    Some(first)
}

/// `with n1 as (q1), n2(c1, …) as (q2) … body`: each named query is evaluated in order,
/// visible under its name (as a table, its columns renamed when a list is given) in the
/// following queries and the body. The names go out of scope afterwards.
pub fn with_queries(i: &mut Interpreter, ctes: &[Cte], body: &Expr) -> Result<Value> {
    let depth = i.col_scopes.len();
    let r = (|| {
        let mut names: AHashMap<String, Value> = AHashMap::new();
        for c in ctes {
            i.col_scopes.push(names.clone());
            let v = i.eval(&c.query);
            i.col_scopes.pop();
            let v = match v? {
                Value::Table(t) => {
                    let mut t2 = (*t).clone();
                    if !c.columns.is_empty() {
                        if c.columns.len() != t2.ncols() {
                            return Err(Error::size(format!(
                                "with {}: {} column names given for a query of {} columns",
                                c.name,
                                c.columns.len(),
                                t2.ncols()
                            )));
                        }
                        t2 = Table::new(c.columns.clone(), t2.cols)?;
                    }
                    t2.name = Some(c.name.clone());
                    Value::Table(Arc::new(t2))
                }
                other if c.columns.is_empty() => other,
                _ => {
                    return Err(Error::type_err(format!(
                        "with {}: column names need a query that returns a table",
                        c.name
                    )))
                }
            };
            names.insert(c.name.clone(), v);
        }
        i.col_scopes.push(names);
        i.eval(body)
    })();
    i.col_scopes.truncate(depth);
    r
}
