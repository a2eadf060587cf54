//! Builtins: metaprogramming (eval, parseExpr, expr, unifiedExpr, binaryExpr, makeCall,
//! makeUnifiedCall, sqlCol, sqlColAlias, sqlTuple, sql, sqlUpdate, sqlDelete, syntax).
//!
//! Metacode is a syntax tree (`Value::Code`). Values placed into metacode become literals
//! when they have a literal form, function references for named functions, and otherwise
//! a reference to the variable holding them (found by identity) or to a hidden session
//! variable `__metaN`.

use beluga_runtime::CallCtx;
use crate::util::{col, describe, opt};
use beluga_lang::ast::{
    Arg, BinOp, Expr, ExprKind, FromItem, FuncBody, FuncDef, GroupKind, Literal, OrderItem, SelectItem, SelectQuery, Stmt,
    StmtKind, TemporalType, UnOp, UpdateStmt, DeleteStmt,
};
use beluga_lang::Span;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::Interpreter;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::value::Func;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

/// Name of the internal builtin marking `expr as alias` inside metacode.
pub const ALIAS_FN: &str = "__alias";

fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn code(e: Expr) -> Value {
    Value::Code(Arc::new(e))
}

fn temporal_tag(t: DataType) -> Option<TemporalType> {
    Some(match t {
        DataType::Date => TemporalType::Date,
        DataType::Month => TemporalType::Month,
        DataType::Time => TemporalType::Time,
        DataType::Minute => TemporalType::Minute,
        DataType::Second => TemporalType::Second,
        DataType::DateTime => TemporalType::DateTime,
        DataType::Timestamp => TemporalType::Timestamp,
        DataType::NanoTime => TemporalType::NanoTime,
        DataType::NanoTimestamp => TemporalType::NanoTimestamp,
        DataType::DateHour => TemporalType::DateHour,
        _ => return None,
    })
}

/// The literal of element `k`, for types that have one.
fn literal_at(c: &Column, k: usize) -> Option<Literal> {
    let null = c.is_null(k);
    Some(match (&*c.data, c.ty) {
        (ColData::I8(v), DataType::Bool) => Literal::Bool(if null { None } else { Some(v[k] != 0) }),
        (ColData::I8(v), DataType::Char) => Literal::Char(if null { None } else { Some(v[k]) }),
        (ColData::I16(v), DataType::Short) => Literal::Short(if null { None } else { Some(v[k]) }),
        (ColData::I32(v), DataType::Int) => Literal::Int(if null { None } else { Some(v[k]) }),
        (ColData::I64(v), DataType::Long) => Literal::Long(if null { None } else { Some(v[k]) }),
        (ColData::F32(v), DataType::Float) => Literal::Float(if null { None } else { Some(v[k]) }),
        (ColData::F64(v), DataType::Double) => Literal::Double(if null { None } else { Some(v[k]) }),
        (ColData::Str(s), DataType::String) => Literal::Str(s.get(k).to_string()),
        (_, t) if t.is_temporal() => Literal::Temporal(temporal_tag(t)?, if null { None } else { c.i64_at(k) }),
        _ => return None,
    })
}

/// Find a variable of the current scope holding exactly this (shared) object: the name of
/// an argument passed as a plain variable (the smallest name when several share it).
pub fn var_holding(i: &CallCtx, v: &Value) -> Option<String> {
    let same = |a: &Value| match (a, v) {
        (Value::Table(x), Value::Table(y)) => Arc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Arc::ptr_eq(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => Arc::ptr_eq(x, y),
        (Value::Matrix(x), Value::Matrix(y)) => Arc::ptr_eq(x, y),
        (Value::Vector(x), Value::Vector(y)) => x.ty == y.ty && Arc::ptr_eq(&x.data, &y.data),
        _ => false,
    };
    let pick = |names: Vec<&String>| names.into_iter().min().cloned();
    if let Some(f) = i.frames().last() {
        if let Some(k) = pick(f.vars.iter().filter(|(_, a)| same(a)).map(|(k, _)| k).collect()) {
            return Some(k);
        }
    }
    if let Some(k) = pick(i.globals().iter().filter(|(k, a)| !k.starts_with("__") && same(a)).map(|(k, _)| k).collect()) {
        return Some(k);
    }
    i.shared().lock().ok().and_then(|m| pick(m.iter().filter(|(_, a)| same(a)).map(|(k, _)| k).collect()))
}

/// Keep a value in a hidden session variable and refer to it by name.
fn hidden_var(i: &mut CallCtx, v: Value) -> Expr {
    let n = i.globals().keys().filter(|k| k.starts_with("__meta")).count();
    let mut name = format!("__meta{n}");
    let mut k = n;
    while i.globals().contains_key(&name) {
        k += 1;
        name = format!("__meta{k}");
    }
    i.set_global(name.clone(), v);
    ex(ExprKind::Ident(name))
}

/// Metacode standing for a value.
pub fn value_expr(i: &mut CallCtx, v: &Value) -> Expr {
    match v {
        Value::Code(e) => (**e).clone(),
        Value::Void => ex(ExprKind::Lit(Literal::Null)),
        Value::Scalar(c) => match literal_at(c, 0) {
            Some(l) => ex(ExprKind::Lit(l)),
            None => hidden_var(i, v.clone()),
        },
        Value::Vector(c) if !c.is_empty() && c.ty != DataType::Symbol => {
            let lits: Option<Vec<Literal>> = (0..c.len()).map(|k| literal_at(c, k)).collect();
            match lits {
                Some(l) if c.len() > 1 && l.iter().any(|x| !matches!(x, Literal::Null)) => ex(ExprKind::VecLit(l)),
                _ => match var_holding(i, v) {
                    Some(n) => ex(ExprKind::Ident(n)),
                    None => hidden_var(i, v.clone()),
                },
            }
        }
        Value::Function(Func::Builtin(id)) => ex(ExprKind::FuncRef(i.registry().get(*id).name.to_string())),
        Value::Function(Func::User(u)) if u.def.name.is_some() && u.captured.is_empty() => {
            ex(ExprKind::FuncRef(u.def.name.clone().unwrap_or_default()))
        }
        other => match var_holding(i, other) {
            Some(n) => ex(ExprKind::Ident(n)),
            None => hidden_var(i, other.clone()),
        },
    }
}

/// The binary operator a function value stands for (`add` → `+`).
fn binop_of(i: &CallCtx, v: &Value) -> Option<BinOp> {
    use BinOp::*;
    const ALL: &[BinOp] = &[
        Add, Sub, Mul, Div, Ratio, Mod, Dot, Cast, Join, Seq, Pair, Shl, Shr, BitAnd, BitXor, BitOr, Lt, Le, Gt, Ge, Eq, Ne,
        In, NotIn, Like, NotLike, ILike, Between, NotBetween, And, Or, At,
    ];
    let name = match v {
        Value::Function(Func::Builtin(id)) => i.registry().get(*id).name,
        _ => return None,
    };
    ALL.iter().copied().find(|op| op.func_name() == name)
}

fn unop_of(i: &CallCtx, v: &Value) -> Option<UnOp> {
    match v {
        Value::Function(Func::Builtin(id)) => match i.registry().get(*id).name {
            "not" => Some(UnOp::Not),
            "neg" => Some(UnOp::Neg),
            "bitNot" => Some(UnOp::BitNot),
            _ => None,
        },
        _ => None,
    }
}

fn call_expr(i: &mut CallCtx, f: &Value, args: &[Value]) -> Expr {
    let fe = value_expr(i, f);
    let args: Vec<Arg> = args.iter().map(|a| Arg::Pos(Some(value_expr(i, a)))).collect();
    ex(ExprKind::Call(Box::new(fe), args))
}

// ------------------------------------------------------------------ building expressions

fn expr_fn(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(op) = unop_of(i, &args[0]) {
        if args.len() == 2 {
            let x = value_expr(i, &args[1]);
            return Ok(code(ex(ExprKind::Unary(op, Box::new(x)))));
        }
    }
    if matches!(args[0], Value::Function(_)) && binop_of(i, &args[0]).is_none() {
        return Ok(code(call_expr(i, &args[0].clone(), &args[1..])));
    }
    // operand, operator, operand, ... folded left to right
    let mut acc = value_expr(i, &args[0]);
    let mut k = 1;
    while k < args.len() {
        let op = binop_of(i, &args[k]).ok_or_else(|| Error::arg(format!("expr: argument {} must be an operator", k + 1)))?;
        let rhs = args.get(k + 1).ok_or_else(|| Error::arg("expr: an operator needs a right operand"))?;
        let r = value_expr(i, rhs);
        acc = ex(ExprKind::Binary(op, Box::new(acc), Box::new(r)));
        k += 2;
    }
    Ok(code(acc))
}

fn binary_expr(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let op = binop_of(i, &args[2]).ok_or_else(|| Error::arg("The optr argument of [binaryExpr] must be a binary operator"))?;
    let (x, y) = (value_expr(i, &args[0]), value_expr(i, &args[1]));
    Ok(code(ex(ExprKind::Binary(op, Box::new(x), Box::new(y)))))
}

fn unified_expr(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let objs = match &args[0] {
        Value::Tuple(t) => t.iter().cloned().collect::<Vec<_>>(),
        other => return Err(Error::arg(format!("The objs argument of [unifiedExpr] must be a tuple, not {}", describe(other)))),
    };
    let ops: Vec<Value> = match &args[1] {
        Value::Tuple(t) => t.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    if objs.len() != ops.len() + 1 {
        return Err(Error::arg("unifiedExpr needs one operator fewer than operands"));
    }
    let mut acc = value_expr(i, &objs[0]);
    for (k, o) in ops.iter().enumerate() {
        let op = binop_of(i, o).ok_or_else(|| Error::arg("The optrs of [unifiedExpr] must be binary operators"))?;
        let r = value_expr(i, &objs[k + 1]);
        acc = ex(ExprKind::Binary(op, Box::new(acc), Box::new(r)));
    }
    Ok(code(acc))
}

fn make_call(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    Ok(code(call_expr(i, &args[0].clone(), &args[1..])))
}

fn make_unified_call(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let rest: Vec<Value> = match &args[1] {
        Value::Tuple(t) => t.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    Ok(code(call_expr(i, &args[0].clone(), &rest)))
}

// ------------------------------------------------------------------ eval and parseExpr

fn eval_fn(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Code(e) => {
            let e = e.clone();
            if let Some(stmt) = wrapped_stmt(&e) {
                i.exec_stmt(stmt)?;
                return Ok(Value::Void);
            }
            i.eval(&e)
        }
        Value::Tuple(items) => {
            let items = items.clone();
            let out: Vec<Value> = items
                .iter()
                .map(|v| match v {
                    Value::Code(e) => i.eval(e),
                    other => Ok(other.clone()),
                })
                .collect::<Result<_>>()?;
            Ok(Value::tuple(out))
        }
        other => Ok(other.clone()),
    }
}

/// Replace identifiers bound in `vars` by metacode for their values.
fn substitute(i: &mut CallCtx, e: &mut Expr, vars: &[(String, Value)]) {
    let sub = |i: &mut CallCtx, x: &mut Expr| substitute(i, x, vars);
    match &mut e.kind {
        ExprKind::Ident(n) => {
            if let Some((_, v)) = vars.iter().find(|(k, _)| k == n) {
                let v = v.clone();
                *e = value_expr(i, &v);
            }
        }
        ExprKind::Binary(_, a, b) | ExprKind::Quantified(_, _, a, b) => {
            sub(i, a);
            sub(i, b);
        }
        ExprKind::Unary(_, a) | ExprKind::Meta(a) | ExprKind::IsNull(a, _) => sub(i, a),
        ExprKind::Compare(items, _) | ExprKind::Vector(items) | ExprKind::Tuple(items) => items.iter_mut().for_each(|x| sub(i, x)),
        ExprKind::Infix(a, b, c) | ExprKind::Ternary(a, b, c) => {
            sub(i, a);
            sub(i, b);
            sub(i, c);
        }
        ExprKind::Call(f, args) | ExprKind::Partial(f, args) => {
            sub(i, f);
            for a in args.iter_mut() {
                match a {
                    Arg::Pos(Some(x)) | Arg::Named(_, x) => sub(i, x),
                    Arg::Pos(None) => {}
                }
            }
        }
        ExprKind::Method(t, _, args) => {
            sub(i, t);
            for a in args.iter_mut() {
                match a {
                    Arg::Pos(Some(x)) | Arg::Named(_, x) => sub(i, x),
                    Arg::Pos(None) => {}
                }
            }
        }
        ExprKind::Index(t, idx) => {
            sub(i, t);
            idx.iter_mut().flatten().for_each(|x| sub(i, x));
        }
        ExprKind::Member(t, _) | ExprKind::Template(t, _) => sub(i, t),
        ExprKind::Dict(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            sub(i, k);
            sub(i, v);
        }),
        ExprKind::Select(q) => {
            q.items.iter_mut().for_each(|it| sub(i, &mut it.expr));
            q.where_.iter_mut().for_each(|w| sub(i, w));
        }
        _ => {}
    }
}

fn parse_expr(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // funcs/p/parseExpr.md: X is a string scalar or vector; a vector gives one metacode per string
    if let Value::Vector(c) = &args[0] {
        if c.ty.is_literal() {
            let texts: Vec<String> = (0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect();
            let mut out = Vec::with_capacity(texts.len());
            for t in texts {
                let mut one = args.clone();
                one[0] = Value::string(&t);
                out.push(parse_expr(i, one)?);
            }
            return Ok(Value::tuple(out));
        }
    }
    let text = args[0].as_str().ok_or_else(|| Error::arg("The text argument of [parseExpr] must be a string"))?.to_string();
    let mut e = {
        let is_fn = |n: &str| i.is_function_name(n);
        beluga_lang::parse_expr(&text, &is_fn).map_err(|e| Error::syntax(e.message, e.span))?
    };
    if let Some(Value::Dict(d)) = opt(&args, 1) {
        let keys = &d.keys;
        let mut vars = Vec::with_capacity(keys.len());
        for k in 0..keys.len() {
            let name = keys.str_at(k).unwrap_or("").to_string();
            let v = i.index_value(Value::Dict(d.clone()), vec![Value::string(&name)])?;
            vars.push((name, v));
        }
        substitute(i, &mut e, &vars);
    }
    Ok(code(e))
}

// ------------------------------------------------------------------ SQL metacode

/// `expr as alias` inside metacode.
pub fn alias_expr(e: Expr, alias: &str) -> Expr {
    ex(ExprKind::Call(Box::new(ex(ExprKind::FuncRef(ALIAS_FN.into()))), vec![Arg::Pos(Some(e)), Arg::Pos(Some(ex(ExprKind::Lit(Literal::Str(alias.to_string())))))]))
}

/// Split an aliased expression into the expression and its alias.
pub fn split_alias(e: &Expr) -> (Expr, Vec<String>) {
    if let ExprKind::Call(f, args) = &e.kind {
        if matches!(&f.kind, ExprKind::FuncRef(n) | ExprKind::Ident(n) if n == ALIAS_FN) {
            if let [Arg::Pos(Some(x)), Arg::Pos(Some(Expr { kind: ExprKind::Lit(Literal::Str(a)), .. }))] = args.as_slice() {
                return (x.clone(), a.split('`').map(|s| s.to_string()).collect());
            }
        }
    }
    (e.clone(), vec![])
}

fn alias_builtin(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    Ok(args.into_iter().next().unwrap_or(Value::Void))
}

fn col_code(name: &str, func: Option<&Value>, alias: Option<&str>, i: &mut CallCtx) -> Value {
    // sqlCol("*") selects every column (funcs/s/sql.md: sql(sqlCol("*"), t1))
    let c = if name == "*" { ex(ExprKind::Star) } else { ex(ExprKind::Ident(name.to_string())) };
    match func {
        None => code(match alias {
            Some(a) => alias_expr(c, a),
            None => c,
        }),
        Some(f) => {
            let fe = value_expr(i, f);
            let fname = match f {
                Value::Function(func) => i.func_name(func),
                _ => "col".into(),
            };
            let call = ex(ExprKind::Call(Box::new(fe), vec![Arg::Pos(Some(c))]));
            let a = alias.map(|s| s.to_string()).unwrap_or_else(|| format!("{fname}_{name}"));
            code(alias_expr(call, &a))
        }
    }
}

fn sql_col(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let names = col("sqlCol", &args[0])?;
    if !names.ty.is_literal() {
        return Err(Error::arg("The colName argument of [sqlCol] must be a string"));
    }
    let func = opt(&args, 1).cloned();
    let aliases: Option<Column> = opt(&args, 2).map(|v| col("sqlCol", v)).transpose()?;
    if let Some(a) = &aliases {
        if a.len() != 1 && a.len() != names.len() {
            return Err(Error::arg(format!("sqlCol got {} column names and {} aliases; give one alias per name", names.len(), a.len())));
        }
    }
    let one = |i: &mut CallCtx, k: usize| -> Value {
        let alias = aliases.as_ref().and_then(|a| a.str_at(if a.len() == 1 { 0 } else { k }).map(|s| s.to_string()));
        col_code(names.str_at(k).unwrap_or(""), func.as_ref(), alias.as_deref(), i)
    };
    if args[0].is_scalar() {
        return Ok(one(i, 0));
    }
    let items: Vec<Value> = (0..names.len()).map(|k| one(i, k)).collect();
    Ok(Value::tuple(items))
}

fn sql_col_alias(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // a tuple of column definitions with one name each gives a tuple of aliased
    // definitions (the wq101alpha helper: sqlColAlias(sqlCol(d.values()), d.keys()))
    if let (Value::Tuple(defs), Some(v)) = (&args[0], opt(&args, 1)) {
        let names = col("sqlColAlias", v)?;
        if names.len() != defs.len() {
            return Err(Error::arg(format!(
                "sqlColAlias got {} column definitions and {} names; they must be as many",
                defs.len(),
                names.len()
            )));
        }
        let mut out = Vec::with_capacity(defs.len());
        for (k, d) in defs.iter().enumerate() {
            let e = value_expr(i, d);
            out.push(code(alias_expr(split_alias(&e).0, names.str_at(k).unwrap_or(""))));
        }
        return Ok(Value::tuple(out));
    }
    let e = value_expr(i, &args[0]);
    match opt(&args, 1) {
        None => Ok(code(e)),
        Some(v) => {
            let names = col("sqlColAlias", v)?;
            let joined: Vec<String> = (0..names.len()).map(|k| names.str_at(k).unwrap_or("").to_string()).collect();
            Ok(code(alias_expr(split_alias(&e).0, &joined.join("`"))))
        }
    }
}

fn sql_tuple(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let names = col("sqlTuple", &args[0])?;
    let items: Vec<Expr> = (0..names.len()).map(|k| ex(ExprKind::Ident(names.str_at(k).unwrap_or("").to_string()))).collect();
    let _ = i;
    Ok(code(ex(ExprKind::Vector(items))))
}

/// Metacode items of a select/where/group argument: one code object or a tuple of them.
fn code_list(i: &mut CallCtx, v: Option<&Value>) -> Vec<Expr> {
    match v {
        None => vec![],
        Some(Value::Tuple(items)) => items.clone().iter().map(|x| value_expr(i, x)).collect(),
        Some(Value::Code(e)) => match &e.kind {
            // <[a, b]> lists several items
            ExprKind::Vector(items) => items.clone(),
            _ => vec![(**e).clone()],
        },
        Some(other) => vec![value_expr(i, other)],
    }
}

fn select_items(es: Vec<Expr>) -> Vec<SelectItem> {
    es.into_iter()
        .map(|e| {
            let (x, alias) = split_alias(&e);
            SelectItem { expr: x, alias }
        })
        .collect()
}

fn table_ref(i: &mut CallCtx, v: &Value) -> Expr {
    match v {
        Value::Scalar(c) if c.ty.is_literal() => ex(ExprKind::Ident(c.str_at(0).unwrap_or("").to_string())),
        other => value_expr(i, other),
    }
}

fn bools(v: Option<&Value>, n: usize) -> Vec<bool> {
    match v.and_then(|x| x.column().cloned()) {
        None => vec![true; n],
        Some(c) => (0..n.max(1)).map(|k| c.i64_at(if c.len() == 1 { 0 } else { k.min(c.len() - 1) }).map(|x| x != 0).unwrap_or(true)).collect(),
    }
}

fn sql(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let items = select_items(code_list(i, Some(&args[0])));
    let from = table_ref(i, &args[1]);
    let where_ = code_list(i, opt(&args, 2));
    let group_exprs = code_list(i, opt(&args, 3));
    let group_flag = opt(&args, 4).and_then(|v| v.as_i64()).unwrap_or(1);
    let csort = code_list(i, opt(&args, 5));
    let csort_asc = bools(opt(&args, 6), csort.len());
    let having = code_list(i, opt(&args, 7)).into_iter().next();
    let order = code_list(i, opt(&args, 8));
    let order_asc = bools(opt(&args, 9), order.len());
    let limit = match opt(&args, 10) {
        None => None,
        Some(Value::Pair(c)) => {
            let a = literal_at(c, 0).map(|l| ex(ExprKind::Lit(l)));
            let b = literal_at(c, 1).map(|l| ex(ExprKind::Lit(l))).unwrap_or_else(|| ex(ExprKind::Lit(Literal::Null)));
            Some((a, b))
        }
        Some(v) => Some((None, value_expr(i, v))),
    };
    let exec = opt(&args, 12).and_then(|v| v.as_bool()).unwrap_or(false);
    let map = opt(&args, 13).and_then(|v| v.as_bool()).unwrap_or(false);
    let group = if group_exprs.is_empty() {
        None
    } else {
        let kind = match group_flag {
            0 => GroupKind::ContextBy,
            2 => GroupKind::PivotBy,
            _ => GroupKind::GroupBy,
        };
        Some((kind, select_items(group_exprs)))
    };
    let q = SelectQuery {
        exec,
        top: None,
        distinct: false,
        items,
        from: Some(FromItem::Table(from, None)),
        where_,
        group,
        cgroup: vec![],
        csort: csort.into_iter().zip(csort_asc).map(|(expr, asc)| OrderItem { expr, asc, nulls_first: None }).collect(),
        having,
        order: order.into_iter().zip(order_asc).map(|(expr, asc)| OrderItem { expr, asc, nulls_first: None }).collect(),
        limit,
        map,
        span: Span::default(),
    };
    Ok(code(ex(ExprKind::Select(Box::new(q)))))
}

/// Marks the lambda that wraps a statement (`sqlUpdate`, `sqlDelete`).
const STMT_MARK: &str = "__sqlStmt";

/// The statement wrapped by [`stmt_code`], if `e` is one.
fn wrapped_stmt(e: &Expr) -> Option<&Stmt> {
    if let ExprKind::Call(f, args) = &e.kind {
        if let (ExprKind::Lambda(def), true) = (&f.kind, args.is_empty()) {
            if def.text == STMT_MARK {
                if let FuncBody::Block(stmts) = &def.body {
                    return stmts.first();
                }
            }
        }
    }
    None
}

/// Metacode running one statement when evaluated: a call of a zero-argument lambda (so that
/// it is an expression); `eval` runs the statement in the caller's scope.
fn stmt_code(s: StmtKind) -> Value {
    let def = FuncDef {
        name: None,
        params: vec![],
        body: FuncBody::Block(vec![Stmt { kind: s, span: Span::default() }]),
        aggregate: false,
        span: Span::default(),
        text: STMT_MARK.to_string(),
        annotations: vec![],
    };
    code(ex(ExprKind::Call(Box::new(ex(ExprKind::Lambda(Arc::new(def)))), vec![])))
}

fn sql_update(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let table = table_ref(i, &args[0]);
    let mut sets = Vec::new();
    for e in code_list(i, Some(&args[1])) {
        let (x, alias) = split_alias(&e);
        let name = alias.first().cloned().ok_or_else(|| Error::arg("The updates of [sqlUpdate] must be metacode with aliases (sqlColAlias)"))?;
        sets.push((name, x));
    }
    let from = opt(&args, 2).map(|v| FromItem::Table(table_ref(i, v), None));
    let where_ = code_list(i, opt(&args, 3));
    let context_by = select_items(code_list(i, opt(&args, 4)));
    let csort = code_list(i, opt(&args, 5));
    let csort_asc = bools(opt(&args, 6), csort.len());
    let having = code_list(i, opt(&args, 7)).into_iter().next();
    let u = UpdateStmt {
        table,
        sets,
        from,
        where_,
        context_by,
        csort: csort.into_iter().zip(csort_asc).map(|(expr, asc)| OrderItem { expr, asc, nulls_first: None }).collect(),
        having,
    };
    Ok(stmt_code(StmtKind::Update(Box::new(u))))
}

fn sql_delete(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let table = table_ref(i, &args[0]);
    let where_ = code_list(i, opt(&args, 1));
    Ok(stmt_code(StmtKind::Delete(Box::new(DeleteStmt { table, where_, from: None }))))
}

// ------------------------------------------------------------------ syntax

fn syntax(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let text = match &args[0] {
        Value::Function(Func::Builtin(id)) => {
            let b = i.registry().get(*id);
            let params: Vec<String> = b
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| if k >= b.min as usize { format!("[{p}]") } else { p.to_string() })
                .collect();
            format!("{}({})", b.name, params.join(", "))
        }
        Value::Function(Func::User(u)) => {
            let params: Vec<String> = u.def.params.iter().map(|p| if p.default.is_some() { format!("[{}]", p.name) } else { p.name.clone() }).collect();
            format!("{}({})", u.def.name.clone().unwrap_or_else(|| "lambda".into()), params.join(", "))
        }
        Value::Function(func) => format!("{}(...)", i.func_name(func)),
        other => return Err(Error::unsupported("syntax", describe(other))),
    };
    Ok(Value::string(&text))
}

/// The parameter list `syntax` and `defs` show: `(X, [Y])` for a builtin (made-up names
/// X, Y, Z… when the registry has none), `(a, b)` for a user function.
fn builtin_params(b: &Builtin) -> String {
    const LETTERS: [&str; 6] = ["X", "Y", "Z", "W", "V", "U"];
    let max = if b.max == u8::MAX { (b.min as usize).max(1) + 1 } else { b.max as usize };
    let mut out = Vec::with_capacity(max);
    for k in 0..max {
        let name = match b.params.get(k) {
            Some(p) => p.trim_matches(|c| c == '[' || c == ']').to_string(),
            None if k < LETTERS.len() => LETTERS[k].to_string(),
            None => format!("X{k}"),
        };
        let name = if b.max == u8::MAX && k + 1 == max { format!("{name}...") } else { name };
        out.push(if k >= b.min as usize { format!("[{name}]") } else { name });
    }
    format!("({})", out.join(", "))
}

/// `defs([pattern])`: one row per function, builtin or user-defined (module functions
/// under their qualified name too): name, isCommand, userDefined, isView, minParamCount,
/// maxParamCount, syntax (funcs/d/defs.md). `pattern` takes `%` (any run) and `?` (one
/// character).
fn defs(i: &mut Interpreter, a: Vec<Value>) -> Result<Value> {
    let pattern = match opt(&a, 0) {
        None => None,
        Some(v) => Some(v.as_str().ok_or_else(|| Error::arg("The argument of [defs] must be a string pattern"))?.to_string()),
    };
    // (name, userDefined, min, max, syntax)
    let mut rows: Vec<(String, bool, i32, i32, String)> = Vec::new();
    for n in i.registry.names().filter(|n| !n.starts_with("__")) {
        if let Some(id) = i.registry.lookup(n) {
            let b = i.registry.get(id);
            let max = if b.max == u8::MAX { i32::MAX } else { b.max as i32 };
            rows.push((n.to_string(), false, b.min as i32, max, builtin_params(b)));
        }
    }
    for (n, v) in i.functions.iter() {
        if let Value::Function(Func::User(u)) = v {
            let min = u.def.params.iter().filter(|p| p.default.is_none()).count() as i32;
            let names: Vec<&str> = u.def.params.iter().map(|p| p.name.as_str()).collect();
            rows.push((n.clone(), true, min, u.def.params.len() as i32, format!("({})", names.join(", "))));
        }
    }
    if let Some(p) = pattern {
        let p = p.replace('_', "\u{1}");
        rows.retain(|r| beluga_runtime::eval::ops::like_match(&r.0.replace('_', "\u{1}"), &p, false));
    }
    rows.sort_by(|x, y| x.0.cmp(&y.0));
    let strs = |f: &dyn Fn(&(String, bool, i32, i32, String)) -> String| {
        let v: Vec<String> = rows.iter().map(f).collect();
        Column::new(DataType::String, ColData::Str(beluga_runtime::StrCol::from_iter(v.iter().map(|s| s.as_str()))))
    };
    let bools = |f: &dyn Fn(&(String, bool, i32, i32, String)) -> bool| {
        Column::from_vec(DataType::Bool, rows.iter().map(|r| f(r) as i8).collect::<Vec<i8>>())
    };
    let ints = |f: &dyn Fn(&(String, bool, i32, i32, String)) -> i32| {
        Column::from_vec(DataType::Int, rows.iter().map(|r| f(r)).collect::<Vec<i32>>())
    };
    let t = beluga_runtime::Table::new(
        ["name", "isCommand", "userDefined", "isView", "minParamCount", "maxParamCount", "syntax"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        vec![
            strs(&|r| r.0.clone()),
            bools(&|_| false),
            bools(&|r| r.1),
            bools(&|_| false),
            ints(&|r| r.2),
            ints(&|r| r.3),
            strs(&|r| r.4.clone()),
        ],
    )?;
    Ok(Value::table(t))
}

/// `login(user, password)` / `logout([user])`: Beluga runs one local session with no users;
/// both succeed and do nothing, so tutorial scripts that start with them run.
fn login(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    for (k, v) in a.iter().enumerate().take(2) {
        if v.as_str().is_none() {
            return Err(Error::arg(format!(
                "The {} argument of [login] must be a string",
                if k == 0 { "userId" } else { "password" }
            )));
        }
    }
    Ok(Value::Void)
}

fn logout(_: &mut CallCtx, _: Vec<Value>) -> Result<Value> {
    Ok(Value::Void)
}

pub const DEFS: &[Builtin] = &[
    beluga_runtime::registry::fps("defs", Kind::System, 0, 1, defs, &["X"]),
    fp("login", Kind::System, 2, 3, login, &["userId", "password", "enableEncryption"]),
    fp("logout", Kind::System, 0, 2, logout, &["userId", "closeSessions"]),
    f("__alias", Kind::System, 1, 2, alias_builtin),
    f("binaryExpr", Kind::System, 3, 3, binary_expr),
    beluga_runtime::registry::fps("eval", Kind::System, 1, 1, eval_fn, &["obj"]),
    f("expr", Kind::System, 2, u8::MAX, expr_fn),
    f("makeCall", Kind::System, 1, u8::MAX, make_call),
    fp("makeUnifiedCall", Kind::System, 2, 2, make_unified_call, &["func", "args"]),
    fp("parseExpr", Kind::System, 1, 4, parse_expr, &["text", "varDict", "modules", "overwriteByDict"]),
    fp(
        "sql",
        Kind::System,
        2,
        15,
        sql,
        &["select", "from", "where", "groupBy", "groupFlag", "csort", "ascSort", "having", "orderBy", "ascOrder", "limit", "hint", "exec", "map", "cgroupBy"],
    ),
    fp("sqlCol", Kind::System, 1, 4, sql_col, &["colName", "func", "alias", "qualifier"]),
    fp("sqlColAlias", Kind::System, 1, 2, sql_col_alias, &["colDefs", "colNames"]),
    fp("sqlDelete", Kind::System, 1, 3, sql_delete, &["table", "where", "from"]),
    fp("sqlTuple", Kind::System, 1, 1, sql_tuple, &["colNames"]),
    fp("sqlUpdate", Kind::System, 2, 8, sql_update, &["table", "updates", "from", "where", "contextBy", "csort", "ascSort", "having"]),
    fp("syntax", Kind::System, 1, 1, syntax, &["func"]),
    fp("unifiedExpr", Kind::System, 2, 2, unified_expr, &["objs", "optrs"]),
];
