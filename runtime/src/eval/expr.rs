//! Expression evaluation.

use super::{literal_value, ops, unify_scalars, Interpreter};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::types::DataType;
use crate::value::{Dict, DictVals, Func, Key, UserFunc, Value};
use ahash::AHashMap;
use beluga_lang::ast::{Arg, BinOp, Expr, ExprKind, UnOp};
use std::sync::Arc;

impl Interpreter {
    pub fn eval(&mut self, e: &Expr) -> Result<Value> {
        self.eval_inner(e).map_err(|err| err.or_span(e.span))
    }

    fn eval_inner(&mut self, e: &Expr) -> Result<Value> {
        match &e.kind {
            ExprKind::Lit(l) => Ok(literal_value(l)),
            ExprKind::VecLit(ls) => {
                let items: Vec<Value> = ls.iter().map(literal_value).collect();
                if let [Value::Vector(_)] = items.as_slice() {
                    return Ok(items.into_iter().next().unwrap_or(Value::Void));
                }
                // backtick vectors inside a space-separated literal flatten into strings
                if items.iter().any(|v| matches!(v, Value::Vector(_))) && items.iter().all(|v| v.data_type() == DataType::String) {
                    let mut all = Vec::new();
                    for v in &items {
                        match v {
                            Value::Vector(c) => all.extend((0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string())),
                            other => all.push(other.as_str().unwrap_or("").to_string()),
                        }
                    }
                    return Ok(Value::string_vec(all.iter().map(|s| s.as_str())));
                }
                match unify_scalars(&items)? {
                    Some(v) => Ok(v),
                    None => {
                        if items.iter().all(|v| matches!(v, Value::Void)) {
                            return Ok(Value::Vector(Column::nulls(DataType::Double, items.len())));
                        }
                        Ok(Value::tuple(items))
                    }
                }
            }
            ExprKind::Ident(n) => self.resolve(n).map_err(|e| self.explain_unknown(e, n)),
            ExprKind::QualIdent(parts) => self.resolve_qualified(parts),
            ExprKind::FuncRef(n) => self.resolve_function(n),
            ExprKind::OpFunc(op) => self.op_function(*op),
            ExprKind::Vector(items) => {
                let vals: Vec<Value> = items.iter().map(|x| self.eval(x)).collect::<Result<_>>()?;
                if vals.is_empty() {
                    return Ok(Value::tuple(vec![]));
                }
                match unify_scalars(&vals)? {
                    Some(v) => Ok(v),
                    None => {
                        if vals.iter().all(|v| matches!(v, Value::Void)) {
                            return Ok(Value::Vector(Column::nulls(DataType::Double, vals.len())));
                        }
                        Ok(Value::tuple(vals))
                    }
                }
            }
            ExprKind::Tuple(items) => {
                let vals: Vec<Value> = items.iter().map(|x| self.eval(x)).collect::<Result<_>>()?;
                Ok(Value::tuple(vals))
            }
            ExprKind::Dict(pairs) => {
                let mut keys = Vec::with_capacity(pairs.len());
                let mut vals = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    // a bare name as a key is the name itself (funcs/s/setColumnComment.md:
                    // `{sym:"...", date:"..."}` while sym and date are vectors of the session;
                    // `compressMethods={timestamp:"delta"}`)
                    keys.push(match &k.kind {
                        ExprKind::Ident(name) => Value::string(name),
                        _ => self.eval(k)?,
                    });
                    vals.push(self.eval(v)?);
                }
                build_dict(&keys, vals, true)
            }
            ExprKind::Unary(op, x) => {
                let v = self.eval(x)?;
                match op {
                    UnOp::Neg => ops::neg_value(&v),
                    UnOp::Not => ops::not_value(&v),
                    UnOp::BitNot => self.call_builtin_by_name("bitNot", vec![v]),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary_op(*op, x, y)
            }
            ExprKind::Quantified(op, all, a, b) => {
                let x = self.eval(a)?;
                let s = self.eval(b)?;
                crate::sql::quantified::compare(self, *op, *all, x, s)
            }
            ExprKind::Compare(operands, opers) => {
                let vals: Vec<Value> = operands.iter().map(|x| self.eval(x)).collect::<Result<_>>()?;
                let mut acc: Option<Value> = None;
                for (i, op) in opers.iter().enumerate() {
                    let r = self.binary_op(*op, vals[i].clone(), vals[i + 1].clone())?;
                    acc = Some(match acc {
                        None => r,
                        Some(p) => ops::binary(BinOp::And, &p, &r)?,
                    });
                }
                acc.ok_or_else(|| Error::runtime("empty comparison"))
            }
            ExprKind::Infix(a, f, b) => {
                let fv = self.eval_callee(f)?;
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.call_value(&fv, vec![x, y])
            }
            ExprKind::Ternary(c, a, b) => {
                let cv = self.eval(c)?;
                if cv.is_scalar() {
                    if ops::truthy(&cv)? {
                        self.eval(a)
                    } else {
                        self.eval(b)
                    }
                } else {
                    let x = self.eval(a)?;
                    let y = self.eval(b)?;
                    self.call_builtin_by_name("iif", vec![cv, x, y])
                }
            }
            ExprKind::OpenPair(a, b) => {
                let x = match a {
                    Some(a) => self.eval(a)?,
                    None => Value::Void,
                };
                let y = match b {
                    Some(b) => self.eval(b)?,
                    None => Value::Void,
                };
                let xi = x.as_i64();
                let yi = y.as_i64();
                let v = vec![
                    xi.map(|v| v as i32).unwrap_or(i32::MIN),
                    yi.map(|v| v as i32).unwrap_or(i32::MIN),
                ];
                Ok(Value::Pair(Column::from_vec(DataType::Int, v)))
            }
            ExprKind::Call(f, args) => self.eval_call(f, args),
            ExprKind::Partial(f, args) => {
                let fv = self.eval_callee(f)?;
                // a fixed argument is the object itself: a variable is bound (linked to the
                // partial application's cell), anything else gets a cell of its own
                let mut pos: Vec<Option<crate::value::Bound>> = Vec::with_capacity(args.len());
                let mut named = Vec::new();
                for a in args {
                    match a {
                        Arg::Pos(Some(e)) => {
                            let bound = match &e.kind {
                                ExprKind::Ident(n) => self.bind_var(n),
                                _ => None,
                            };
                            pos.push(Some(match bound {
                                Some(b) => b,
                                None => crate::value::Bound::new(self.eval(e)?),
                            }));
                        }
                        Arg::Pos(None) => pos.push(None),
                        Arg::Named(n, e) => named.push((n.clone(), self.eval(e)?)),
                    }
                }
                let func = match fv {
                    Value::Function(func) => func,
                    other => {
                        return Err(Error::type_err(format!(
                            "Partial application needs a function, not {}",
                            ops::describe(&other)
                        )))
                    }
                };
                Ok(Value::Function(Func::Partial(Arc::new(func), Arc::new(pos), Arc::new(named))))
            }
            ExprKind::Index(t, idx) => self.eval_index(t, idx),
            ExprKind::Member(t, name) => self.eval_member(t, name),
            ExprKind::Method(t, name, args) => self.eval_method(t, name, args),
            ExprKind::Template(f, kind) => {
                let fv = self.eval_callee(f)?;
                match fv {
                    Value::Function(func) => Ok(Value::Function(Func::Template(Arc::new(func), kind.as_str().into()))),
                    other => Err(Error::type_err(format!("A template needs a function, not {}", ops::describe(&other)))),
                }
            }
            ExprKind::Lambda(def) => {
                let captured = self.capture();
                let module = self.frames.last().and_then(|f| f.module.clone());
                Ok(Value::Function(Func::User(Arc::new(UserFunc { def: def.clone(), captured, module }))))
            }
            ExprKind::Select(q) => crate::sql::select(self, q),
            ExprKind::Union(a, b, all) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                crate::sql::union(&x, &y, *all)
            }
            ExprKind::With(ctes, body) => crate::sql::with_queries(self, ctes, body),
            ExprKind::Meta(x) => Ok(Value::Code(Arc::new((**x).clone()))),
            ExprKind::Case(arms, default) => {
                // evaluate as nested iif from the last arm backwards
                let mut acc = match default {
                    Some(d) => self.eval(d)?,
                    None => Value::Void,
                };
                for (c, v) in arms.iter().rev() {
                    let cv = self.eval(c)?;
                    let vv = self.eval(v)?;
                    acc = if cv.is_scalar() {
                        if ops::truthy(&cv)? { vv } else { acc }
                    } else {
                        self.call_builtin_by_name("iif", vec![cv, vv, acc])?
                    };
                }
                Ok(acc)
            }
            ExprKind::IsNull(x, negated) => {
                let v = self.eval(x)?;
                let r = self.call_builtin_by_name("isNull", vec![v])?;
                if *negated { ops::not_value(&r) } else { Ok(r) }
            }
            ExprKind::Exists(q) => {
                let v = crate::sql::select(self, q)?;
                Ok(Value::bool(v.size() > 0))
            }
            ExprKind::Star => Err(Error::runtime("`*` is only valid in a select list")),
            ExprKind::ColumnSeq(..) => Err(Error::runtime("A column sequence is only valid in a select list")),
        }
    }

    /// Values of the current frame, captured by a lambda created inside a function.
    fn capture(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = Vec::new();
        if let Some(f) = self.frames.last() {
            out.extend(f.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        for scope in &self.col_scopes {
            out.extend(scope.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        out
    }

    pub fn binary_op(&mut self, op: BinOp, x: Value, y: Value) -> Result<Value> {
        if op == BinOp::At {
            return self.each_at(x, y);
        }
        // `x $ symbol`: a conversion function on the right converts
        if let (BinOp::Cast, Value::Function(_)) = (op, &y) {
            return self.call_value(&y, vec![x]);
        }
        // `"select " + avg + "(Px)"`: a function joined to a string is its name (the idiom of
        // scripts that build query text for parseExpr)
        if op == BinOp::Add {
            let textual = |v: &Value| matches!(v, Value::Scalar(c) | Value::Vector(c) if c.ty.is_literal());
            let named = |i: &Self, v: &Value| match v {
                Value::Function(f) => Some(Value::string(&i.func_name(f))),
                _ => None,
            };
            if textual(&x) {
                if let Some(n) = named(self, &y) {
                    return ops::binary(op, &x, &n);
                }
            } else if textual(&y) {
                if let Some(n) = named(self, &x) {
                    return ops::binary(op, &n, &y);
                }
            }
        }
        ops::binary(op, &x, &y)
    }

    pub fn op_function(&self, op: BinOp) -> Result<Value> {
        let name = op.func_name();
        self.registry
            .lookup(name)
            .map(|id| Value::Function(Func::Builtin(id)))
            .ok_or_else(|| Error::name(format!("The operator function {name} is not available")))
    }

    fn resolve_qualified(&self, parts: &[String]) -> Result<Value> {
        if parts.first().map(|s| s.is_empty()).unwrap_or(false) {
            let name = parts[1..].join("::");
            return self
                .registry
                .lookup(&name)
                .map(|id| Value::Function(Func::Builtin(id)))
                .ok_or_else(|| Error::name(format!("Cannot recognize the token ::{name}")));
        }
        let full = parts.join("::");
        if let Some(f) = self.functions.get(&full) {
            return Ok(f.clone());
        }
        Err(Error::name(format!("Cannot recognize the token {full}")))
    }

    /// Evaluate the function position of a call: a name resolves to the function even when
    /// nothing else would (and a variable holding a function wins).
    pub fn eval_callee(&mut self, f: &Expr) -> Result<Value> {
        match &f.kind {
            ExprKind::Ident(n) => {
                if let Some(v) = self.get_var(n) {
                    if matches!(v, Value::Function(_) | Value::Tuple(_)) {
                        return Ok(v.clone());
                    }
                }
                if self.get_var(n).is_some() && self.resolve_function(n).is_err() {
                    return Err(Error::type_err(format!("{n} is a variable, not a function")).or_span(f.span));
                }
                self.resolve_function(n).map_err(|e| self.explain_unknown(e, n).or_span(f.span))
            }
            _ => self.eval(f),
        }
    }

    /// `t.name`: column, dictionary key, or zero-argument method call.
    fn eval_member(&mut self, t: &Expr, name: &str) -> Result<Value> {
        let tv = self.eval(t)?;
        match &tv {
            Value::Table(tab) => {
                if let Some(c) = tab.column(name) {
                    return Ok(Value::of_column(c.clone()));
                }
            }
            Value::Dict(d) => {
                let key = match d.keys.ty {
                    t if t.is_literal() => Value::string(name),
                    _ => match name.parse::<i64>() {
                        Ok(n) => Value::long(n),
                        Err(_) => Value::string(name),
                    },
                };
                return self.index_value(tv.clone(), vec![key]);
            }
            Value::Handle(h) => {
                // a stored table's columns are read through its table source
                if let Some(src) = h.table_source() {
                    return Ok(Value::of_column(src.column(name)?));
                }
            }
            _ => {}
        }
        let f = self.resolve_function(name)?;
        self.call_value(&f, vec![tv])
    }

    /// `x.f(args)` = `f(x, args)`, writing back in-place results to a variable receiver.
    fn eval_method(&mut self, t: &Expr, name: &str, args: &[beluga_lang::ast::Arg]) -> Result<Value> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(beluga_lang::ast::Arg::Pos(Some(t.clone())));
        all.extend(args.iter().cloned());
        let callee = Expr::new(ExprKind::Ident(name.to_string()), t.span);
        // a column of a table receiver (`t.col.f()`) or a variable holding a function
        self.eval_call(&callee, &all)
    }
}

/// Build a dictionary from key and value lists.
pub fn build_dict(keys: &[Value], vals: Vec<Value>, ordered: bool) -> Result<Value> {
    let kcol = match unify_scalars(keys)? {
        Some(Value::Vector(c)) => c,
        _ => return Err(Error::arg("Dictionary keys must be scalars of one type")),
    };
    let mut index = AHashMap::with_capacity(kcol.len());
    let mut keep_keys = Vec::new();
    let mut keep_vals: Vec<Value> = Vec::new();
    for (i, v) in vals.into_iter().enumerate() {
        let k = Key::of(&kcol, i);
        match index.get(&k) {
            Some(&pos) => keep_vals[pos] = v,
            None => {
                index.insert(k, keep_keys.len());
                keep_keys.push(i);
                keep_vals.push(v);
            }
        }
    }
    let keys = kcol.take_usize(&keep_keys);
    let key_type = keys.ty;
    let (vals, val_type) = match unify_scalars(&keep_vals)? {
        Some(Value::Vector(c)) if !keep_vals.is_empty() => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        _ => (DictVals::Any(keep_vals), DataType::Any),
    };
    Ok(Value::Dict(Arc::new(Dict { keys, vals, index, ordered, key_type, val_type })))
}
