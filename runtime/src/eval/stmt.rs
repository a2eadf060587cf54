//! Statements and control flow.

use super::{ops, Interpreter};
use crate::column::Column;
use crate::error::{Error, ErrorKind, Result};
use crate::types::DataType;
use crate::value::{Func, UserFunc, Value};
use beluga_lang::ast::{AssignOp, BinOp, Expr, ExprKind, Stmt, StmtKind};
use std::sync::Arc;

pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

impl Interpreter {
    /// Execute a statement; an expression statement yields its value (for REPL echo).
    pub fn exec_stmt_value(&mut self, s: &Stmt) -> Result<Option<Value>> {
        match &s.kind {
            StmtKind::Expr(e) => {
                let v = self.eval(e)?;
                Ok(match v {
                    Value::Void if returns_nothing(e) => None,
                    v => Some(v),
                })
            }
            _ => match self.exec_stmt(s)? {
                Flow::Return(_) | Flow::Normal => Ok(None),
                Flow::Break | Flow::Continue => Err(Error::syntax("break/continue outside a loop", s.span)),
            },
        }
    }

    /// Run a function body: the value of `return`, or VOID.
    pub fn exec_body(&mut self, stmts: &[Stmt]) -> Result<Value> {
        for s in stmts {
            match self.exec_stmt(s)? {
                Flow::Return(v) => return Ok(v),
                Flow::Normal => {}
                Flow::Break | Flow::Continue => return Err(Error::syntax("break/continue outside a loop", s.span)),
            }
        }
        Ok(Value::Void)
    }

    fn exec_block(&mut self, stmts: &[Stmt]) -> Result<Flow> {
        for s in stmts {
            match self.exec_stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    pub fn exec_stmt(&mut self, s: &Stmt) -> Result<Flow> {
        self.exec_stmt_inner(s).map_err(|e| e.or_span(s.span))
    }

    fn exec_stmt_inner(&mut self, s: &Stmt) -> Result<Flow> {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(Flow::Normal)
            }
            StmtKind::Assign(targets, op, value) => {
                self.exec_assign(targets, *op, value)?;
                Ok(Flow::Normal)
            }
            StmtKind::RefAssign(name, e) => {
                if let (ExprKind::Ident(target), true) = (&e.kind, self.frames.is_empty()) {
                    if self.globals.contains_key(target.as_str()) || self.aliases.contains_key(target.as_str()) {
                        self.set_alias(name, target);
                        return Ok(Flow::Normal);
                    }
                }
                let v = self.eval(e)?;
                self.unlink(name);
                self.set_var(name, v)?;
                Ok(Flow::Normal)
            }
            StmtKind::Const(name, e) => {
                let v = self.eval(e)?;
                self.unlink(name);
                self.set_var(name, v)?;
                if self.frames.is_empty() {
                    self.consts.insert(name.clone());
                }
                Ok(Flow::Normal)
            }
            StmtKind::Def(def) => {
                let name = def.name.clone().unwrap_or_default();
                if matches!(def.body, beluga_lang::ast::FuncBody::Forward) && self.functions.contains_key(&name) {
                    return Ok(Flow::Normal);
                }
                let module = self.frames.last().and_then(|f| f.module.clone()).or_else(|| self.current_module());
                let f = Arc::new(UserFunc { def: def.clone(), captured: vec![], module });
                self.define_function(&name, f)?;
                Ok(Flow::Normal)
            }
            StmtKind::If(c, then, els) => {
                let cv = self.eval(c)?;
                if ops::truthy(&cv)? {
                    self.exec_stmt(then)
                } else if let Some(e) = els {
                    self.exec_stmt(e)
                } else {
                    Ok(Flow::Normal)
                }
            }
            StmtKind::For(var, iter, body) => self.exec_for(var, iter, body),
            StmtKind::While(c, body) => {
                loop {
                    self.check_interrupt()?;
                    let cv = self.eval(c)?;
                    if !ops::truthy(&cv)? {
                        break;
                    }
                    match self.exec_stmt(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::DoWhile(body, c) => {
                loop {
                    self.check_interrupt()?;
                    match self.exec_stmt(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                    let cv = self.eval(c)?;
                    if !ops::truthy(&cv)? {
                        break;
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Void,
                };
                Ok(Flow::Return(v))
            }
            StmtKind::Try(body, var, handler) => {
                let frames = self.frames.len();
                let depth = self.depth;
                let scopes = self.col_scopes.len();
                match self.exec_stmt(body) {
                    Ok(f) => Ok(f),
                    Err(e) if e.kind == ErrorKind::Interrupted => Err(e),
                    Err(e) => {
                        self.frames.truncate(frames);
                        self.depth = depth;
                        self.col_scopes.truncate(scopes);
                        if let Some(v) = var {
                            let ex = match e.thrown.as_deref().and_then(|t| t.downcast_ref::<Value>()) {
                                Some(t) if !matches!(t, Value::Scalar(_)) => t.clone(),
                                _ => Value::Pair(Column::new(
                                    DataType::String,
                                    crate::column::ColData::Str(crate::column::StrCol::from_iter([
                                        e.category(),
                                        e.message.as_str(),
                                    ])),
                                )),
                            };
                            self.set_var(v, ex)?;
                        }
                        self.exec_stmt(handler)
                    }
                }
            }
            StmtKind::Throw(e) => {
                let v = self.eval(e)?;
                let msg = match &v {
                    Value::Scalar(c) => crate::fmt::format_elem(c, 0),
                    other => self.format(other),
                };
                let mut err = Error::new(ErrorKind::User, msg);
                err.thrown = Some(std::sync::Arc::new(v));
                Err(err)
            }
            StmtKind::Block(stmts) => self.exec_block(stmts),
            StmtKind::Share(e, name) => {
                let v = self.eval(e)?;
                let is_table = matches!(v, Value::Table(_));
                self.share(v, name)?;
                // `share t as st`: `t` becomes another name of the shared table (as in
                // DolphinDB, both names are one table), not a second reference that would
                // make every append to either name copy it
                if let (ExprKind::Ident(var), true) = (&e.kind, is_table) {
                    if var != name && self.frames.is_empty() && self.globals.contains_key(var.as_str()) {
                        self.set_alias(var, name);
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::UndefAll(kind) => {
                let k = kind.as_deref().unwrap_or("");
                if k != "DEF" {
                    self.globals.clear();
                    self.links.clear();
                    self.consts.clear();
                }
                if k.is_empty() || k == "DEF" {
                    self.functions.clear();
                }
                Ok(Flow::Normal)
            }
            StmtKind::Module(_) => Ok(Flow::Normal),
            StmtKind::Use(path) => {
                self.use_module(path)?;
                Ok(Flow::Normal)
            }
            StmtKind::Timer(count, body) => {
                let n = match count {
                    Some(c) => self.eval(c)?.as_i64().unwrap_or(1).max(1),
                    None => 1,
                };
                let start = std::time::Instant::now();
                for _ in 0..n {
                    match self.exec_stmt(body)? {
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Break => break,
                        _ => {}
                    }
                }
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let text = format!("Time elapsed: {} ms", trim_float(ms));
                self.emit(&text);
                Ok(Flow::Normal)
            }
            StmtKind::Assert(sub, e) => {
                let ok = match self.eval(e) {
                    Ok(v) => ops::all_true(&v),
                    Err(err) => {
                        let case = self.test.case.clone();
                        self.test.failures.push((case, sub.clone().unwrap_or_default(), err.message.clone()));
                        return Ok(Flow::Normal);
                    }
                };
                if !ok {
                    let case = self.test.case.clone();
                    let sub = sub.clone().unwrap_or_default();
                    let id = if sub.is_empty() { case.clone() } else { format!("{case}_{sub}") };
                    self.test.failures.push((case, sub, format!("Testing case {id} failed")));
                }
                Ok(Flow::Normal)
            }
            StmtKind::Update(u) => {
                crate::sql::update(self, u)?;
                Ok(Flow::Normal)
            }
            StmtKind::Delete(d) => {
                crate::sql::delete(self, d)?;
                Ok(Flow::Normal)
            }
            StmtKind::Insert(i) => {
                crate::sql::insert(self, i)?;
                Ok(Flow::Normal)
            }
            StmtKind::Transaction(stmts) => {
                let saved = self.globals.clone();
                match self.exec_block(stmts) {
                    Ok(f) => Ok(f),
                    Err(e) => {
                        self.globals = saved;
                        Err(e)
                    }
                }
            }
            StmtKind::Empty => Ok(Flow::Normal),
        }
    }

    fn current_module(&self) -> Option<String> {
        self.ext.get("module").and_then(|b| b.downcast_ref::<String>()).cloned()
    }

    /// `share value as name`.
    pub fn share(&mut self, v: Value, name: &str) -> Result<()> {
        let mut m = self.shared.lock().map_err(|_| Error::runtime("shared table lock poisoned"))?;
        if m.contains_key(name) {
            return Err(Error::runtime(format!("The shared table {name} already exists.")));
        }
        m.insert(name.to_string(), v);
        drop(m);
        self.globals.remove(name);
        Ok(())
    }

    /// `use a::b`: load `<module_dir>/a/b.dos` once; its functions become callable.
    pub fn use_module(&mut self, path: &[String]) -> Result<()> {
        let name = path.join("::");
        if self.loaded_modules.contains(&name) {
            return Ok(());
        }
        let mut file = self.module_dir.clone();
        for p in path {
            file.push(p);
        }
        file.set_extension("dos");
        let text = std::fs::read_to_string(&file)
            .map_err(|e| Error::new(ErrorKind::Io, format!("Can't load module {name} from {}: {e}", file.display())))?;
        self.loaded_modules.insert(name.clone());
        let saved_file = self.current_file.replace(file.clone());
        let saved_mod = self.ext.insert("module", Box::new(name.clone()));
        let shown = file.display().to_string();
        let r = (|| -> Result<()> {
            let src = self.preprocess(&text)?;
            self.module_sources.insert(name.clone(), (shown.clone(), Arc::from(src.as_str())));
            for (off, seg) in super::split_segments(&src) {
                let shift = |e: Error| match e.span {
                    Some(sp) if e.location.is_none() => {
                        let o = off as u32;
                        let e2 = Error { span: Some(beluga_lang::Span { start: sp.start + o, end: sp.end + o }), ..e };
                        e2.locate_in(&shown, &src)
                    }
                    _ => e.locate_in(&shown, &src),
                };
                let stmts = self.parse(seg).map_err(shift)?;
                for s in &stmts {
                    self.exec_stmt(s).map_err(shift)?;
                }
            }
            Ok(())
        })();
        self.current_file = saved_file;
        match saved_mod {
            Some(m) => {
                self.ext.insert("module", m);
            }
            None => {
                self.ext.remove("module");
            }
        }
        if r.is_err() {
            self.loaded_modules.remove(&name);
        }
        r.map_err(|e| if e.location.is_some() { e } else { Error { message: format!("{} (in module {name}: {})", e.message, file.display()), ..e } })
    }

    fn exec_for(&mut self, var: &str, iter: &Expr, body: &Stmt) -> Result<Flow> {
        let it = self.eval(iter)?;
        let n = match &it {
            Value::Pair(c) => {
                let (a, b) = (c.i64_at(0).unwrap_or(0), c.i64_at(1).unwrap_or(0));
                let ty = c.ty;
                let seq: Box<dyn Iterator<Item = i64>> = if a <= b { Box::new(a..b) } else { Box::new((b..a).rev()) };
                for i in seq {
                    self.check_interrupt()?;
                    let v = Value::Scalar(Column::from_vec(DataType::Long, vec![i]));
                    let v = if ty == DataType::Long { v } else { crate::ops::cast_value(&v, if ty.is_temporal() { ty } else { DataType::Int })? };
                    // each element is another object (`f{x}` in the body binds that one)
                    self.unlink(var);
                    self.set_var(var, v)?;
                    match self.exec_stmt(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                return Ok(Flow::Normal);
            }
            other => other.size(),
        };
        let n = if it.is_scalar() { 1 } else { n };
        let n = if let Value::Matrix(m) = &it { m.cols } else { n };
        for i in 0..n {
            self.check_interrupt()?;
            let v = self.element(&it, i)?;
            // each element is another object (`f{x}` in the body binds that one)
            self.unlink(var);
            self.set_var(var, v)?;
            match self.exec_stmt(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_assign(&mut self, targets: &[Expr], op: AssignOp, value: &Expr) -> Result<()> {
        let v = self.eval(value)?;
        if targets.len() > 1 {
            if op != AssignOp::Set {
                return Err(Error::syntax("Compound assignment needs one target", value.span));
            }
            let parts: Vec<Value> = match &v {
                Value::Tuple(t) => {
                    if t.len() != targets.len() {
                        return Err(Error::size(format!(
                            "The number of values ({}) doesn't match the number of variables ({})",
                            t.len(),
                            targets.len()
                        )));
                    }
                    t.iter().cloned().collect()
                }
                Value::Matrix(m) if m.cols == targets.len() => (0..m.cols).map(|c| Value::Vector(m.column(c))).collect(),
                Value::Table(t) if t.rows() == targets.len() => {
                    (0..t.rows()).map(|i| self.element(&v, i)).collect::<Result<_>>()?
                }
                // a pair too: `rows, cols = m.shape()` (func_progr_cases tutorial)
                Value::Vector(c) | Value::Pair(c) if c.len() == targets.len() => {
                    (0..c.len()).map(|i| Value::Scalar(c.slice(i, i + 1))).collect()
                }
                other if other.is_scalar() => vec![other.clone(); targets.len()],
                _ => {
                    return Err(Error::size(format!(
                        "The value can't be assigned to {} variables",
                        targets.len()
                    )))
                }
            };
            for (t, p) in targets.iter().zip(parts) {
                self.assign_to(t, AssignOp::Set, p)?;
            }
            return Ok(());
        }
        self.assign_to(&targets[0], op, v)
    }

    pub fn assign_to(&mut self, target: &Expr, op: AssignOp, v: Value) -> Result<()> {
        match &target.kind {
            ExprKind::Ident(name) => {
                let v = if op == AssignOp::Set {
                    self.break_alias(name);
                    // a new object: no longer the one bound into partial applications
                    self.unlink(name);
                    v
                } else if op == AssignOp::Add && self.append_string_in_place(name, &v) {
                    return Ok(());
                } else {
                    let old = self.resolve(name)?;
                    self.binary_op(compound_op(op), old, v)?
                };
                self.set_var(name, v).map_err(|e| e.or_span(target.span))
            }
            ExprKind::Index(base, idx) => {
                let name = match &base.kind {
                    ExprKind::Ident(n) => n.clone(),
                    ExprKind::Index(..) | ExprKind::Member(..) => {
                        // `d[k1][k2] = v`: change the element d[k1] and store it back
                        let inner = self.eval(base)?;
                        let idxv: Vec<Option<Value>> =
                            idx.iter().map(|e| e.as_ref().map(|e| self.eval(e)).transpose()).collect::<Result<_>>()?;
                        let v = if op == AssignOp::Set {
                            v
                        } else {
                            let old = self.index_value(inner.clone(), idxv.iter().map(|x| x.clone().unwrap_or(Value::Void)).collect())?;
                            self.binary_op(compound_op(op), old, v)?
                        };
                        let changed = self.assign_index(inner, &idxv, v)?;
                        return self.assign_to(base, AssignOp::Set, changed);
                    }
                    _ => return Err(Error::syntax("Only a variable can be assigned by index", target.span)),
                };
                let idxv: Vec<Option<Value>> = idx
                    .iter()
                    .map(|e| e.as_ref().map(|e| self.eval_index_arg(e, &name)).transpose())
                    .collect::<Result<_>>()?;
                let mut cur = self
                    .take_var(&name)
                    .ok_or_else(|| Error::name(format!("Cannot recognize the token {name}")))?;
                if let (AssignOp::Set, [Some(i)]) = (op, &idxv[..]) {
                    match super::index::assign_scalar_in_place(&mut cur, i, &v) {
                        Ok(true) => return self.set_var(&name, cur),
                        Ok(false) => {}
                        Err(e) => {
                            self.set_var(&name, cur)?;
                            return Err(e);
                        }
                    }
                }
                let r = (|| {
                    let v = if op == AssignOp::Set {
                        v
                    } else {
                        let old = self.index_value(cur.clone(), idxv.iter().map(|x| x.clone().unwrap_or(Value::Void)).collect())?;
                        self.binary_op(compound_op(op), old, v)?
                    };
                    self.assign_index(cur.clone(), &idxv, v)
                })();
                match r {
                    Ok(newv) => self.set_var(&name, newv),
                    Err(e) => {
                        self.set_var(&name, cur)?;
                        Err(e)
                    }
                }
            }
            ExprKind::Member(base, col) => {
                let idx = Expr::new(ExprKind::Lit(beluga_lang::ast::Literal::Str(col.clone())), target.span);
                let t = Expr::new(ExprKind::Index(base.clone(), vec![Some(idx)]), target.span);
                self.assign_to(&t, op, v)
            }
            _ => Err(Error::syntax(
                "Please use '==' rather than '=' as equal operator in non-sql expression.",
                target.span,
            )),
        }
    }

    /// Element i of an iterable value (for loops, each): scalar, column, row dict, tuple item.
    pub fn element(&mut self, v: &Value, i: usize) -> Result<Value> {
        Ok(match v {
            Value::Vector(c) | Value::Pair(c) => Value::Scalar(c.slice(i, i + 1)),
            Value::Tuple(t) => t[i].clone(),
            Value::ArrayVector(a) => Value::Vector(a.row(i)),
            Value::Matrix(m) => Value::Vector(m.column(i)),
            Value::Table(_) => self.index_value(v.clone(), vec![Value::long(i as i64)])?,
            Value::Set(s) => Value::Scalar(s.items.slice(i, i + 1)),
            Value::Dict(d) => match &d.vals {
                crate::value::DictVals::Col(c) => Value::Scalar(c.slice(i, i + 1)),
                crate::value::DictVals::Any(a) => a[i].clone(),
            },
            other => other.clone(),
        })
    }
}

impl Interpreter {
    /// `s += t` on a non-empty STRING scalar variable appends `t` to its buffer in place
    /// (amortised O(len t)) instead of building a new string (O(len s)), which made string
    /// building in a loop quadratic. Returns false (nothing done) when the fast path does not
    /// apply; the result is the same as `s = s + t` for these operands.
    fn append_string_in_place(&mut self, name: &str, add: &Value) -> bool {
        let Value::Scalar(t) = add else { return false };
        if t.ty != DataType::String || t.len() != 1 {
            return false;
        }
        let ok = matches!(self.get_var(name), Some(Value::Scalar(c)) if c.ty == DataType::String
            && matches!(&*c.data, crate::column::ColData::Str(sc) if sc.offsets.len() == 2
                && sc.offsets[0] == 0 && sc.offsets[1] == sc.bytes.len() && !sc.bytes.is_empty()));
        let modifiable = !self.consts.contains(name)
            && self.col_scopes.iter().all(|s| !s.contains_key(name))
            && self.frames.last().is_none_or(|f| !f.readonly.contains(name));
        if !ok || !modifiable {
            return false;
        }
        let Some(Value::Scalar(mut c)) = self.take_var(name) else { return false };
        let tail = t.str_at(0).unwrap_or("").to_string();
        if let crate::column::ColData::Str(sc) = Arc::make_mut(&mut c.data) {
            sc.bytes.extend_from_slice(tail.as_bytes());
            let end = sc.bytes.len();
            if let Some(last) = sc.offsets.last_mut() {
                *last = end;
            }
        }
        self.set_var(name, Value::Scalar(c)).is_ok()
    }
}

fn compound_op(op: AssignOp) -> BinOp {
    match op {
        AssignOp::Add => BinOp::Add,
        AssignOp::Sub => BinOp::Sub,
        AssignOp::Mul => BinOp::Mul,
        AssignOp::Div => BinOp::Div,
        AssignOp::Ratio => BinOp::Ratio,
        AssignOp::Mod => BinOp::Mod,
        AssignOp::Set => BinOp::Add,
    }
}

/// Calls whose VOID result is not echoed (print, in-place statements).
fn returns_nothing(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(..) | ExprKind::Method(..) => true,
        ExprKind::Ident(_) => false,
        _ => false,
    }
}

fn trim_float(ms: f64) -> String {
    let s = format!("{:.3}", ms);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[allow(dead_code)]
fn _unused(_: Func) {}
