//! Calling functions: builtins, user functions, partial applications and templates.

use super::{Frame, Interpreter, MAX_CALL_DEPTH};
use crate::error::{Error, ErrorKind, Result};
use crate::registry::Kind;
use crate::value::{Func, UserFunc, Value};
use beluga_lang::ast::{Arg, Expr, ExprKind, FuncBody};
use std::sync::Arc;

/// Arguments after evaluation: positional slots (None = empty) and keyword arguments.
pub type Args = (Vec<Option<Value>>, Vec<(String, Value)>);

impl Interpreter {
    pub fn eval_args(&mut self, args: &[Arg]) -> Result<Args> {
        let mut pos = Vec::with_capacity(args.len());
        let mut named = Vec::new();
        for a in args {
            match a {
                Arg::Pos(Some(e)) => pos.push(Some(self.eval(e)?)),
                Arg::Pos(None) => pos.push(None),
                Arg::Named(n, e) => named.push((n.clone(), self.eval(e)?)),
            }
        }
        Ok((pos, named))
    }

    /// `f(args)` in the source: handles in-place `!` functions and `mutable` parameters by
    /// writing the new value back to the variable passed as argument.
    pub fn eval_call(&mut self, f: &Expr, args: &[Arg]) -> Result<Value> {
        // `t.append!(a).append!(b)`: a `!` call returns the object it changed, so the outer
        // `!` call changes the same variable: run the inner call (it writes its variable
        // back), then apply the outer one to that variable
        if let (ExprKind::Ident(name), Some(Arg::Pos(Some(inner)))) = (&f.kind, args.first()) {
            if name.ends_with('!') {
                if let Some(root) = inplace_chain_root(inner) {
                    if self.has_var(&root) {
                        self.eval(inner)?;
                        let mut rest = args.to_vec();
                        rest[0] = Arg::Pos(Some(Expr::new(ExprKind::Ident(root), inner.span)));
                        return self.eval_call(f, &rest);
                    }
                }
            }
        }
        let fv = self.eval_callee(f)?;
        let func = match &fv {
            Value::Function(func) => func.clone(),
            Value::Tuple(fs) => {
                // a tuple of functions: call each on the same arguments
                let (pos, named) = self.eval_args(args)?;
                let fs = fs.clone();
                let mut out = Vec::with_capacity(fs.len());
                for g in fs.iter() {
                    out.push(self.call_full(g, pos.clone(), named.clone())?);
                }
                return super::assemble(out, &[]);
            }
            Value::Type(t) if t.decimal_scale().is_some() => {
                // `DECIMAL32(2)`: the DECIMAL type with scale 2
                let (pos, _) = self.eval_args(args)?;
                let s = match pos.as_slice() {
                    [Some(v)] => v.as_i64(),
                    _ => None,
                };
                return match s {
                    Some(s) if (0..=t.decimal_max_scale() as i64).contains(&s) => Ok(Value::Type(t.with_scale(s as u8))),
                    _ => Err(Error::arg(format!(
                        "{}(scale) needs one integer scale in [0, {}]",
                        t.name(),
                        t.decimal_max_scale()
                    ))),
                };
            }
            other => {
                // indexing a non-function with call syntax is an error
                return Err(Error::type_err(format!("{} is not a function", super::ops::describe(other))));
            }
        };
        // `table(x as a, y)`: aliases and variable names name the columns
        if let Func::Builtin(id) = &func {
            if self.registry.get(*id).name == "table" && !is_table_schema_form(args) {
                return self.table_call(args);
            }
        }
        // `update!(table = t, ...)`: the first argument of a `!` builtin given by name is
        // moved to the front, so that the variable is written back as when positional
        let moved: Vec<Arg>;
        let args: &[Arg] = match first_named_inplace(self, &func, args) {
            Some(v) => {
                moved = v;
                &moved
            }
            None => args,
        };
        // which argument (if any) is written back after the call
        let writeback: Vec<(usize, String)> = self.writeback_targets(&func, args);
        // `f(ctx["book"])` with a mutable parameter: the element is written back into its
        // container after the call, as a dictionary held by another one is shared in DolphinDB
        let elems = element_targets(self, &func, args);
        if writeback.is_empty() {
            let (pos, named) = self.eval_args(args)?;
            if elems.is_empty() {
                if let Func::Builtin(id) = &func {
                    // `interpolate(X=a, inplace=true)`: the result replaces the variable X names
                    if let Some(target) = self.inplace_target(*id, args, &pos, &named) {
                        let r = self.call_func(&func, pos, named)?;
                        self.set_var_mutated(&target, r.clone())?;
                        return Ok(r);
                    }
                    self.pending_arg_names = arg_idents(args);
                }
                return self.call_func(&func, pos, named);
            }
            let (ret, mutated) = self.call_func_inplace(&func, pos, named)?;
            self.write_elements(&elems, &mutated)?;
            return Ok(ret);
        }
        // take the variables out of the environment so the callee mutates them without a copy
        // evaluate the other arguments first: they may read the variables being updated
        let mut pos: Vec<Option<Value>> = Vec::with_capacity(args.len());
        let mut named = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match a {
                Arg::Pos(Some(_)) if writeback.iter().any(|(j, _)| *j == i) => pos.push(None),
                Arg::Pos(Some(e)) => pos.push(Some(self.eval(e)?)),
                Arg::Pos(None) => pos.push(None),
                Arg::Named(n, e) => named.push((n.clone(), self.eval(e)?)),
            }
        }
        let mut taken: Vec<(usize, String)> = Vec::new();
        // `append!` (and `upsert!`) to a table takes it out of every holder (its variable, the shared
        // registry, the other name of a `share t as st` pair), so that it grows in place
        // (the builtin runs no script code before the write-back below)
        let append_builtin = matches!(&func, Func::Builtin(id) if matches!(self.registry.get(*id).name, "append!" | "upsert!"))
            && writeback.len() == 1
            && writeback[0].0 == 0;
        let mut holders: Option<super::Holders> = None;
        for (i, name) in &writeback {
            let took = if append_builtin { self.take_table_for_update(name) } else { None };
            let took = match took {
                Some((v, h)) => {
                    holders = Some(h);
                    Some(v)
                }
                None => self.take_var(name),
            };
            match took {
                Some(v) => {
                    taken.push((*i, name.clone()));
                    pos[*i] = Some(v);
                }
                None => pos[*i] = Some(self.resolve(name)?),
            }
        }
        // `append!` on a table variable hands the callee the only reference, so it grows
        // the table in place (no copy per call); on failure it returns the untouched table
        // through inplace_out. Other calls keep a copy of the originals to restore.
        let hands_back = match &func {
            Func::Builtin(id) => {
                matches!(self.registry.get(*id).name, "append!" | "upsert!")
                    && taken.len() == 1
                    && taken[0].0 == 0
                    && matches!(pos.first(), Some(Some(Value::Table(_))))
            }
            _ => false,
        };
        let originals: Vec<(usize, Value)> = if hands_back {
            Vec::new()
        } else {
            taken.iter().map(|(i, _)| (*i, pos[*i].clone().unwrap_or(Value::Void))).collect()
        };
        self.inplace_out = None;
        let is_builtin = matches!(func, Func::Builtin(_));
        let r = self.call_func_inplace(&func, pos, named);
        match r {
            Ok((ret, mutated)) => {
                for (i, name) in &taken {
                    let newv = if is_builtin {
                        match self.inplace_out.take() {
                            Some(v) => v,
                            None => ret.clone(),
                        }
                    } else {
                        mutated.iter().find(|(j, _)| j == i).map(|(_, v)| v.clone()).unwrap_or(Value::Void)
                    };
                    match holders.take() {
                        Some(h) => self.put_back_table(newv, h),
                        None => self.set_var_mutated(name, newv)?,
                    }
                }
                self.write_elements(&elems, &mutated)?;
                Ok(ret)
            }
            Err(e) => {
                // a failed call leaves the variables as they were
                if hands_back {
                    if let (Some((_, name)), Some(v)) = (taken.first(), self.inplace_out.take()) {
                        match holders.take() {
                            Some(h) => self.put_back_table(v, h),
                            None => {
                                let _ = self.set_var_mutated(name, v);
                            }
                        }
                    }
                }
                for ((_, name), (_, v)) in taken.iter().zip(originals) {
                    match holders.take() {
                        Some(h) => self.put_back_table(v, h),
                        None => {
                            let _ = self.set_var_mutated(name, v);
                        }
                    }
                }
                Err(e)
            }
        }
    }

    /// Store the final values of mutable parameters that were passed as elements
    /// (`ctx["book"]`) back into their containers.
    fn write_elements(&mut self, elems: &[(usize, Expr)], mutated: &[(usize, Value)]) -> Result<()> {
        for (i, e) in elems {
            if let Some((_, v)) = mutated.iter().find(|(j, _)| j == i) {
                self.assign_to(e, beluga_lang::ast::AssignOp::Set, v.clone())?;
            }
        }
        Ok(())
    }

    /// The variable a builtin with an `inplace` parameter overwrites: the one passed as its
    /// first parameter (by position or by name) when `inplace` is true.
    fn inplace_target(&self, id: u32, args: &[Arg], pos: &[Option<Value>], named: &[(String, Value)]) -> Option<String> {
        let b = self.registry.get(id);
        let k = b.params.iter().position(|p| *p == "inplace")?;
        let on = named.iter().find(|(n, _)| n == "inplace").map(|(_, v)| v).or_else(|| pos.get(k).and_then(|v| v.as_ref()));
        if on.and_then(|v| v.as_bool()) != Some(true) {
            return None;
        }
        let first = b.params.first()?;
        let x = args.iter().find_map(|a| match a {
            Arg::Named(n, e) if n == first => Some(e),
            _ => None,
        });
        let x = x.or_else(|| match args.first() {
            Some(Arg::Pos(Some(e))) => Some(e),
            _ => None,
        })?;
        match &x.kind {
            ExprKind::Ident(n) if self.has_var(n) => Some(n.clone()),
            _ => None,
        }
    }

    /// Arguments written back after a call: the first argument of a `!` builtin, and
    /// the `mutable` parameters of a user function, when passed as plain variables.
    fn writeback_targets(&self, func: &Func, args: &[Arg]) -> Vec<(usize, String)> {
        let var_at = |i: usize| -> Option<String> {
            match args.get(i) {
                // a `share`d table is written back too (else `append!(sharedT, x)` changed a copy)
                Some(Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })))
                    if self.has_var(n) || self.get_shared(n).is_some() =>
                {
                    Some(n.clone())
                }
                _ => None,
            }
        };
        match func {
            Func::Builtin(id) => {
                let b = self.registry.get(*id);
                if b.name.ends_with('!') {
                    var_at(0).map(|n| vec![(0, n)]).unwrap_or_default()
                } else {
                    vec![]
                }
            }
            Func::User(u) => u
                .def
                .params
                .iter()
                .enumerate()
                .filter(|(_, p)| p.mutable)
                .filter_map(|(i, _)| var_at(i).map(|n| (i, n)))
                .collect(),
            _ => vec![],
        }
    }

    /// Call a function value with positional arguments.
    pub fn call_value(&mut self, f: &Value, args: Vec<Value>) -> Result<Value> {
        self.call_full(f, args.into_iter().map(Some).collect(), vec![])
    }

    pub fn call_full(&mut self, f: &Value, pos: Vec<Option<Value>>, named: Vec<(String, Value)>) -> Result<Value> {
        match f {
            Value::Function(func) => self.call_func(func, pos, named),
            Value::Tuple(fs) => {
                let fs = fs.clone();
                let mut out = Vec::with_capacity(fs.len());
                for g in fs.iter() {
                    out.push(self.call_full(g, pos.clone(), named.clone())?);
                }
                super::assemble(out, &[])
            }
            other => Err(Error::type_err(format!("{} is not a function", super::ops::describe(other)))),
        }
    }

    pub fn call_builtin_by_name(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let id = self
            .registry
            .lookup(name)
            .ok_or_else(|| Error::name(format!("The function [{name}] is not available")))?;
        self.call_func(&Func::Builtin(id), args.into_iter().map(Some).collect(), vec![])
    }

    pub fn call_func(&mut self, f: &Func, pos: Vec<Option<Value>>, named: Vec<(String, Value)>) -> Result<Value> {
        self.call_func_inplace(f, pos, named).map(|(v, _)| v)
    }

    /// Call, also returning the final values of `mutable` parameters (by position).
    fn call_func_inplace(
        &mut self,
        f: &Func,
        pos: Vec<Option<Value>>,
        named: Vec<(String, Value)>,
    ) -> Result<(Value, Vec<(usize, Value)>)> {
        match f {
            Func::Builtin(id) => {
                let b = *self.registry.get(*id);
                let mut args: Vec<Value> = Vec::with_capacity(pos.len().max(named.len()));
                let mut slots = pos;
                for (n, v) in named {
                    let Some(i) = b.params.iter().position(|p| p.trim_matches(|c| c == '[' || c == ']') == n) else {
                        // the first argument goes back to a caller that handed it over
                        self.inplace_out = slots.into_iter().next().flatten();
                        return Err(Error::arg(format!("The function [{}] doesn't have a parameter named {n}", b.name)));
                    };
                    if slots.len() <= i {
                        slots.resize(i + 1, None);
                    }
                    slots[i] = Some(v);
                }
                for s in slots {
                    args.push(s.unwrap_or(Value::Void));
                }
                let n = args.len();
                if n < b.min as usize || (b.max != u8::MAX && n > b.max as usize) {
                    self.inplace_out = args.into_iter().next();
                    return Err(Error::new(
                        ErrorKind::Arity,
                        format!(
                            "The function [{}] expects {} argument(s), but the actual number of arguments is: {}",
                            b.name,
                            if b.min == b.max { b.min.to_string() } else if b.max == u8::MAX { format!("at least {}", b.min) } else { format!("{}~{}", b.min, b.max) },
                            n
                        ),
                    ));
                }
                if !b.cap.is_pure() {
                    if let Err(e) = self.policy.admit(b.name, b.cap, b.path_args, &mut args) {
                        self.inplace_out = args.into_iter().next();
                        return Err(e);
                    }
                }
                // the call-site names belong to this call only (a builtin calling another
                // one through the context sees none), and the caller's come back after it
                let names = std::mem::take(&mut self.pending_arg_names);
                let outer = std::mem::replace(&mut self.arg_names, names);
                let v = match b.call {
                    crate::registry::Call::Plain(g) => g(crate::callctx::CallCtx::of(self), args),
                    crate::registry::Call::Session(g) => g(self, args),
                };
                self.arg_names = outer;
                Ok((v?, vec![]))
            }
            Func::User(u) => self.call_user(u, pos, named),
            Func::Partial(inner, fixed, fixed_named) => self.call_partial(inner, fixed, fixed_named, pos, named),
            Func::Template(inner, kind) => {
                let args: Vec<Value> = pos.into_iter().map(|v| v.unwrap_or(Value::Void)).collect();
                Ok((self.apply_template(kind, inner, args)?, vec![]))
            }
        }
    }

    fn call_user(
        &mut self,
        u: &Arc<UserFunc>,
        pos: Vec<Option<Value>>,
        named: Vec<(String, Value)>,
    ) -> Result<(Value, Vec<(usize, Value)>)> {
        let def = u.def.clone();
        let fname = def.name.clone().unwrap_or_else(|| "lambda".into());
        // a call refused before it starts hands its `mutable` arguments back (a partial
        // application's bound objects must not be lost)
        let fail = |this: &mut Interpreter, pos: &mut Vec<Option<Value>>, e: Error| -> Error {
            this.unwound = def
                .params
                .iter()
                .enumerate()
                .filter(|(_, p)| p.mutable)
                .filter_map(|(i, _)| pos.get_mut(i).and_then(|s| s.take()).map(|v| (i, v)))
                .collect();
            e
        };
        let mut pos = pos;
        if pos.len() > def.params.len() {
            let e = Error::new(
                ErrorKind::Arity,
                format!(
                    "The function [{fname}] expects {} argument(s), but the actual number of arguments is: {}",
                    def.params.len(),
                    pos.len()
                ),
            );
            return Err(fail(self, &mut pos, e));
        }
        if self.depth >= MAX_CALL_DEPTH {
            let e = Error::runtime(format!(
                "The call depth exceeded the limit of {MAX_CALL_DEPTH} (infinite recursion in [{fname}]?)"
            ));
            return Err(fail(self, &mut pos, e));
        }
        let mut frame = Frame { module: u.module.clone(), ..Frame::default() };
        for (k, v) in &u.captured {
            frame.vars.insert(k.clone(), v.clone());
        }
        let given = pos.len();
        pos.resize(def.params.len(), None);
        let mut named_at: Vec<usize> = Vec::with_capacity(named.len());
        for (n, v) in named {
            let Some(i) = def.params.iter().position(|p| p.name == n) else {
                let e = Error::arg(format!("The function [{fname}] doesn't have a parameter named {n}"));
                return Err(fail(self, &mut pos, e));
            };
            pos[i] = Some(v);
            named_at.push(i);
        }
        // a parameter with no argument and no default value: too few arguments
        let missing = def
            .params
            .iter()
            .enumerate()
            .filter(|(i, p)| *i >= given && !named_at.contains(i) && p.default.is_none())
            .count();
        if missing > 0 {
            let e = Error::new(
                ErrorKind::Arity,
                format!(
                    "The function [{fname}] expects {} argument(s), but the actual number of arguments is: {}",
                    def.params.len(),
                    given + named_at.len()
                ),
            );
            return Err(fail(self, &mut pos, e));
        }
        for (i, p) in def.params.iter().enumerate() {
            let v = match pos[i].take() {
                Some(v) => v,
                None => match &p.default {
                    Some(d) => self.eval(d)?,
                    None => Value::Void,
                },
            };
            frame.vars.insert(p.name.clone(), v);
            if !p.mutable {
                frame.readonly.insert(p.name.clone());
            }
        }
        self.frames.push(frame);
        self.depth += 1;
        let saved_scopes = std::mem::take(&mut self.col_scopes);
        let r = match &def.body {
            FuncBody::Expr(e) => self.eval(e),
            FuncBody::Block(stmts) => self.exec_body(stmts),
            FuncBody::Forward => Err(Error::runtime(format!("The function [{fname}] is declared but not defined"))),
        };
        self.col_scopes = saved_scopes;
        self.depth -= 1;
        // an error raised in a module's code names the module file and its line
        let r = match (r, &u.module) {
            (Err(e), Some(m)) if e.location.is_none() && e.span.is_some() => match self.module_sources.get(m) {
                Some((file, src)) => Err(e.locate_in(file, src)),
                None => Err(e),
            },
            (r, _) => r,
        };
        let mut frame = self.frames.pop().unwrap_or_default();
        // the frame is gone: its values are moved out (a bound object changed in place
        // keeps a single reference)
        let mutated: Vec<(usize, Value)> = def
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.mutable)
            .filter_map(|(i, p)| frame.vars.remove(&p.name).map(|v| (i, v)))
            .collect();
        match r {
            Ok(v) => Ok((v, mutated)),
            Err(e) => {
                self.unwound = mutated;
                Err(e)
            }
        }
    }

    /// How a callee treats its argument at position `k`: whether it may change the object
    /// in place (a `mutable` parameter, the first argument of an in-place builtin).
    fn arg_mode(&self, f: &Func, k: usize) -> ArgMode {
        match f {
            Func::User(u) => match u.def.params.get(k) {
                Some(p) if p.mutable => ArgMode::Move,
                _ => ArgMode::Read,
            },
            Func::Builtin(id) if k == 0 => {
                let name = self.registry.get(*id).name;
                // these two hand the object back through inplace_out when they fail
                if name == "append!" || name == "tableInsert" {
                    ArgMode::Move
                } else if name.ends_with('!') {
                    ArgMode::Copy
                } else {
                    ArgMode::Read
                }
            }
            Func::Partial(inner, fixed, _) => {
                // the k-th free argument of the partial application
                let mut free = 0;
                for (j, s) in fixed.iter().enumerate() {
                    if s.is_none() {
                        if free == k {
                            return self.arg_mode(inner, j);
                        }
                        free += 1;
                    }
                }
                self.arg_mode(inner, fixed.len() + (k - free))
            }
            _ => ArgMode::Read,
        }
    }

    /// Call a partial application. Its fixed arguments are the objects it was given
    /// (`value::Bound`): one a callee may change in place is taken out of its cell for the
    /// call (the callee then holds the only reference and changes it without a copy) and
    /// its final value stored back, so the next call and the variable it was bound from
    /// see the change. Returns the final values of the changed free arguments, by their
    /// positions among the free arguments.
    fn call_partial(
        &mut self,
        inner: &Arc<Func>,
        fixed: &Arc<Vec<Option<crate::value::Bound>>>,
        fixed_named: &Arc<Vec<(String, Value)>>,
        pos: Vec<Option<Value>>,
        named: Vec<(String, Value)>,
    ) -> Result<(Value, Vec<(usize, Value)>)> {
        let mut args: Vec<Option<Value>> = Vec::with_capacity(fixed.len() + pos.len());
        // inner position -> the free argument it takes
        let mut free_at: Vec<Option<usize>> = Vec::with_capacity(fixed.len() + pos.len());
        // bound objects taken out or copied: (inner position, slot, mode, holders)
        let mut taken = Vec::new();
        let mut rest = pos.into_iter();
        let mut free = 0;
        for (k, slot) in fixed.iter().enumerate() {
            match slot {
                Some(b) => {
                    let mode = self.arg_mode(inner, k);
                    let v = match mode {
                        ArgMode::Move => {
                            let (v, held) = self.take_bound(b);
                            if matches!(v, Value::Handle(_) | Value::Function(_)) {
                                // a reference already: nothing to write back
                                self.store_bound(b, v.clone(), held);
                            } else {
                                taken.push((k, b.clone(), mode, held));
                            }
                            v
                        }
                        ArgMode::Copy => {
                            taken.push((k, b.clone(), mode, None));
                            self.bound_value(b)
                        }
                        ArgMode::Read => self.bound_value(b),
                    };
                    args.push(Some(v));
                    free_at.push(None);
                }
                None => {
                    args.push(rest.next().flatten());
                    free_at.push(Some(free));
                    free += 1;
                }
            }
        }
        for v in rest {
            args.push(v);
            free_at.push(Some(free));
            free += 1;
        }
        let mut all_named: Vec<(String, Value)> = (**fixed_named).clone();
        all_named.extend(named);
        let builtin = match inner.as_ref() {
            Func::Builtin(id) => Some(self.registry.get(*id).name),
            _ => None,
        };
        if builtin.is_some() {
            self.inplace_out = None;
        }
        self.unwound.clear();
        let r = self.call_func_inplace(inner, args, all_named);
        // the final values of the arguments the callee may have changed, by inner position
        let mut finals: Vec<(usize, Value)> = match (&r, builtin) {
            (Ok((_, m)), None) => m.clone(),
            (Err(_), None) => std::mem::take(&mut self.unwound),
            (Ok((ret, _)), Some(name)) => match self.inplace_out.take() {
                Some(v) => vec![(0, v)],
                None if name.ends_with('!') => vec![(0, ret.clone())],
                None => vec![],
            },
            // append! and tableInsert hand the object back when they fail
            (Err(_), Some(_)) => self.inplace_out.take().map(|v| vec![(0, v)]).unwrap_or_default(),
        };
        for (k, b, mode, held) in taken {
            let fin = finals.iter().position(|(j, _)| *j == k).map(|p| finals.swap_remove(p).1);
            match (fin, mode) {
                (Some(v), _) => self.store_bound(&b, v, held),
                // a copy was passed: the object is unchanged
                (None, ArgMode::Copy) => {}
                // a moved object the callee lost (it failed without handing it back)
                (None, _) => self.store_bound(&b, Value::Void, held),
            }
        }
        // what is left belongs to free arguments: report it by their positions
        let out: Vec<(usize, Value)> = finals
            .into_iter()
            .filter_map(|(j, v)| free_at.get(j).copied().flatten().map(|f| (f, v)))
            .collect();
        match r {
            Ok((v, _)) => Ok((v, out)),
            Err(e) => {
                self.unwound = out;
                Err(e)
            }
        }
    }

    /// Kind of a function value for the SQL executor (user `defg` functions are aggregates).
    pub fn func_kind(&self, f: &Func) -> Kind {
        match f {
            Func::Builtin(id) => self.registry.get(*id).kind,
            Func::User(u) => {
                if u.def.aggregate {
                    Kind::Aggregate
                } else {
                    Kind::VectorToVector
                }
            }
            Func::Partial(inner, ..) => self.func_kind(inner),
            Func::Template(..) => Kind::VectorToVector,
        }
    }

    /// Display name of a function value (for column naming and printing).
    pub fn func_name(&self, f: &Func) -> String {
        match f {
            Func::Builtin(id) => self.registry.get(*id).name.to_string(),
            Func::User(u) => u.def.name.clone().unwrap_or_else(|| "lambda".into()),
            Func::Partial(inner, ..) => self.func_name(inner),
            Func::Template(inner, _) => self.func_name(inner),
        }
    }
}

/// How a callee treats one of its arguments (`Interpreter::arg_mode`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ArgMode {
    /// only reads it
    Read,
    /// may change it in place and hands it back (also when it fails)
    Move,
    /// may change it in place; gets a copy, its result replaces the object
    Copy,
}

/// The variable at the root of a chain of `!` calls (`t.append!(a)`, `append!(t, a)`),
/// None when the expression is not such a call.
fn inplace_chain_root(e: &Expr) -> Option<String> {
    let (name, first) = match &e.kind {
        ExprKind::Method(t, name, _) => (name.as_str(), Some(t.as_ref())),
        ExprKind::Call(c, args) => match (&c.kind, args.first()) {
            (ExprKind::Ident(n), Some(Arg::Pos(Some(a)))) => (n.as_str(), Some(a)),
            _ => return None,
        },
        _ => return None,
    };
    if !name.ends_with('!') {
        return None;
    }
    match first.map(|x| &x.kind) {
        Some(ExprKind::Ident(n)) => Some(n.clone()),
        Some(_) => inplace_chain_root(first?),
        None => None,
    }
}

/// Positional arguments of a user function's `mutable` parameters that are elements of a
/// variable (`d[k]`, `d[k1][k2]`, `t.col`): written back with an index assignment.
fn element_targets(i: &Interpreter, func: &Func, args: &[Arg]) -> Vec<(usize, Expr)> {
    let Func::User(u) = func else { return Vec::new() };
    fn rooted(i: &Interpreter, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => i.has_var(n),
            ExprKind::Index(b, _) | ExprKind::Member(b, _) => rooted(i, b),
            _ => false,
        }
    }
    u.def
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.mutable)
        .filter_map(|(k, _)| match args.get(k) {
            Some(Arg::Pos(Some(e))) if matches!(e.kind, ExprKind::Index(..) | ExprKind::Member(..)) && rooted(i, e) => {
                Some((k, e.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The arguments with a named first argument of a `!` builtin moved to the front as a
/// positional one (None when there is nothing to move).
fn first_named_inplace(i: &Interpreter, func: &Func, args: &[Arg]) -> Option<Vec<Arg>> {
    let Func::Builtin(id) = func else { return None };
    let b = i.registry.get(*id);
    if !b.name.ends_with('!') || args.iter().any(|a| matches!(a, Arg::Pos(_))) {
        return None;
    }
    let first = b.params.first()?.trim_matches(|c| c == '[' || c == ']');
    let k = args.iter().position(|a| matches!(a, Arg::Named(n, _) if n == first))?;
    let Arg::Named(_, e) = &args[k] else { return None };
    let mut out = Vec::with_capacity(args.len());
    out.push(Arg::Pos(Some(e.clone())));
    out.extend(args.iter().enumerate().filter(|(j, _)| *j != k).map(|(_, a)| a.clone()));
    Some(out)
}

/// `table(capacity:size, names, types)` is an ordinary call; everything else names columns.
fn is_table_schema_form(args: &[Arg]) -> bool {
    args.len() == 3
        && matches!(&args[0], Arg::Pos(Some(Expr { kind: ExprKind::Binary(beluga_lang::ast::BinOp::Pair, ..), .. })))
}

impl Interpreter {
    fn table_call(&mut self, args: &[Arg]) -> Result<Value> {
        let mut names = Vec::with_capacity(args.len());
        let mut vals = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            match a {
                Arg::Named(n, e) => {
                    names.push(n.clone());
                    vals.push(self.eval(e)?);
                }
                Arg::Pos(Some(e)) => {
                    names.push(match &e.kind {
                        ExprKind::Ident(n) => n.clone(),
                        // table(t.sym, t.price): the column keeps the member's name
                        ExprKind::Member(_, n) => n.clone(),
                        _ => format!("C{k}"),
                    });
                    vals.push(self.eval(e)?);
                }
                Arg::Pos(None) => {}
            }
        }
        crate::table::table_from(names, vals)
    }
}

/// The variable name of each positional argument written as a plain identifier (none when
/// no argument is one, so most calls allocate nothing).
fn arg_idents(args: &[Arg]) -> Vec<Option<String>> {
    let name = |a: &Arg| match a {
        Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })) => Some(n.clone()),
        _ => None,
    };
    if !args.iter().any(|a| name(a).is_some()) {
        return Vec::new();
    }
    args.iter().map(name).collect()
}
