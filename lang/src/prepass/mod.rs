//! Token pre-pass: resolves DolphinDB's context-sensitive syntax before the LR parser runs.
//!
//! * newlines → statement separators or nothing (§1.12)
//! * space-separated literal vectors and negative literals (§4.6)
//! * prefix / infix function-name classification (§4.3, §4.4)
//! * template suffixes applied prefix (`+:A x`, `f:E x`) (§5.12)
//! * SQL contextual keywords (`group by`, `order by`, `asc`, joins, ...) and `=` as `==`
//! * brace kinds (block / dict / lambda / partial application), `<...>` metacode,
//!   open-ended pairs in indexes, `between a and b`.
//!
//! This file holds the driver (`prepass`, `Pre::step`) and shared state; `layout`, `operands`,
//! `names` and `sql` hold the handlers by concern.

use crate::ast::{JoinKind, Literal};
use crate::error::ParseError;
use crate::lexer::{RawTok, Tok};
use crate::span::Span;
use std::collections::HashSet;

// The pre-pass by concern; each file adds methods to `Pre`.
mod ddl;
mod layout;
mod names;
mod operands;
mod sql;

pub type Triple = (usize, Tok, usize);

const MAX_DEPTH: usize = 500;
const MAX_NEST: usize = 1000;

#[derive(Clone, Copy, PartialEq, Debug)]
enum FK {
    Paren,
    Bracket,
    Block,
    Brace,
    Meta,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ctl {
    No,
    Control,
    DefParams,
}

#[derive(Clone, Debug)]
struct Frame {
    kind: FK,
    at_start: bool,
    control: Ctl,
    is_do: bool,
    dict: bool,
    dict_key: bool,
    call: bool,
    lambda: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum SqlKind {
    Select,
    Update,
    Delete,
    Insert,
    /// `with n as (q), … body`: the named queries; the body is a Select context above it
    With,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Clause {
    Items,
    From,
    Where,
    Group,
    Order,
    Csort,
    Having,
    Limit,
    Set,
}

#[derive(Clone, Debug)]
struct SqlCtx {
    depth: usize,
    kind: SqlKind,
    wrapped: bool,
    clause: Clause,
    seen_from: bool,
    in_args: bool,
    /// Index in the output of the query's first token (where a wrapping `(` would go).
    out_pos: usize,
}

struct Pre<'a> {
    toks: Vec<RawTok>,
    src: &'a str,
    out: Vec<Triple>,
    stack: Vec<Frame>,
    sql: Vec<SqlCtx>,
    is_function: &'a dyn Fn(&str) -> bool,
    assigned: HashSet<String>,
    user_fns: HashSet<String>,
    head_at_start: bool,
    infix_head: bool,
    last_ctl: Ctl,
    last_block_close: bool,
    after_do_close: bool,
    pending_do: bool,
    while_is_do: bool,
    between: Vec<usize>,
    case_depth: usize,
    nest: usize,
    force_start: bool,
    expr_mode: bool,
    err: Option<ParseError>,
}

/// A keyword token spelled as a word (`not`, `and`, `select`…), as a plain name.
fn word_name(t: &Tok, spelled: &str) -> Option<String> {
    let word = !spelled.is_empty() && spelled.chars().all(|c| c.is_alphanumeric() || c == '_');
    match t {
        Tok::Ident(_) | Tok::Lit(_) => None,
        _ if word => Some(spelled.to_string()),
        _ => None,
    }
}

/// Marks in the assigned set that some function takes a parameter named `from`.
const FROM_VAR: &str = "from";

/// Word operators that double as builtin function names (`between(x, r)`, `and(a, b)`).
fn word_op(t: &Tok) -> bool {
    matches!(t, Tok::Between | Tok::And | Tok::Or | Tok::In | Tok::Like | Tok::ILike)
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn ident_is(t: Option<&RawTok>, w: &str) -> bool {
    matches!(t, Some(RawTok { tok: Tok::Ident(s), .. }) if s.eq_ignore_ascii_case(w))
}

const SQL_WORDS: &[&str] = &[
    "group", "context", "pivot", "cgroup", "order", "having", "limit", "map", "csort", "join",
    "inner", "left", "right", "full", "cross", "on", "set", "values", "asc", "desc", "nulls",
    "union", "semijoin",
];

fn is_sql_word(s: &str) -> bool {
    s.len() <= 8 && SQL_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w))
}

fn negatable(l: &Literal) -> bool {
    matches!(
        l,
        Literal::Int(Some(_))
            | Literal::Long(Some(_))
            | Literal::Short(Some(_))
            | Literal::Char(Some(_))
            | Literal::Float(Some(_))
            | Literal::Double(Some(_))
            | Literal::Decimal(..)
            | Literal::Duration(..)
    )
}

fn negate(l: Literal) -> Literal {
    match l {
        Literal::Int(Some(v)) => Literal::Int(Some(v.wrapping_neg())),
        Literal::Long(Some(v)) => {
            if v == 2147483648 {
                // `-2147483648` fits in INT only as the null sentinel; keep it LONG
                Literal::Long(Some(-v))
            } else {
                Literal::Long(Some(v.wrapping_neg()))
            }
        }
        Literal::Short(Some(v)) => Literal::Short(Some(v.wrapping_neg())),
        Literal::Char(Some(v)) => Literal::Char(Some(v.wrapping_neg())),
        Literal::Float(Some(v)) => Literal::Float(Some(-v)),
        Literal::Double(Some(v)) => Literal::Double(Some(-v)),
        Literal::Decimal(v, s) => Literal::Decimal(v.wrapping_neg(), s),
        Literal::Duration(v, u) => Literal::Duration(v.wrapping_neg(), u),
        other => other,
    }
}

/// Tokens after which an operand cannot be complete (so an operand must follow).
fn ends_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Lit(_)
            | Tok::VecLit(_)
            | Tok::Ident(_)
            | Tok::RParen
            | Tok::RBracket
            | Tok::RBrace
            | Tok::Tmpl(_)
            | Tok::IsNull(_)
            | Tok::End
            | Tok::Star
            | Tok::OpFunc(_)
            | Tok::MetaClose
            | Tok::Break
            | Tok::Continue
            | Tok::PairEnd
    )
}

/// Tokens that cannot end a statement: a newline after them is dropped.
fn cant_end(t: &Tok) -> bool {
    if t.binop().is_some() {
        return true;
    }
    matches!(
        t,
        Tok::Comma
            | Tok::LParen
            | Tok::LBracket
            | Tok::LBrace
            | Tok::LBraceDict
            | Tok::LBraceLambda
            | Tok::LBracePartial
            | Tok::LBraceDot
            | Tok::Assign
            | Tok::AddAssign
            | Tok::SubAssign
            | Tok::MulAssign
            | Tok::DivAssign
            | Tok::RatioAssign
            | Tok::ModAssign
            | Tok::Arrow
            | Tok::Question
            | Tok::DictColon
            | Tok::Dot
            | Tok::ColonColon
            | Tok::Bang
            | Tok::Tilde
            | Tok::Not
            | Tok::BetweenAnd
            | Tok::Else
            | Tok::Do
            | Tok::Try
            | Tok::Select
            | Tok::Exec
            | Tok::Update
            | Tok::Delete
            | Tok::Insert
            | Tok::Into
            | Tok::Where
            | Tok::GroupBy
            | Tok::ContextBy
            | Tok::PivotBy
            | Tok::CgroupBy
            | Tok::OrderBy
            | Tok::Csort
            | Tok::Having
            | Tok::Limit
            | Tok::Top
            | Tok::Distinct
            | Tok::As
            | Tok::On
            | Tok::JoinKw(_)
            | Tok::Set
            | Tok::Values
            | Tok::Case
            | Tok::When
            | Tok::Then
            | Tok::MetaOpen
            | Tok::PrefixIdent(_)
            | Tok::InfixIdent(_)
            | Tok::TmplApply(_)
            | Tok::Def
            | Tok::Defg
            | Tok::Assert
            | Tok::Throw
            | Tok::Share
            | Tok::Const
            | Tok::Module
            | Tok::Use
            | Tok::Mutable
            | Tok::Exists
            | Tok::Union(_)
            | Tok::With
            | Tok::Timer
            | Tok::TimerN
            | Tok::Transaction
    )
}

pub fn prepass(
    toks: Vec<RawTok>,
    src: &str,
    is_function: &dyn Fn(&str) -> bool,
    expr_mode: bool,
) -> Result<Vec<Triple>, ParseError> {
    let toks = ddl::rewrite(toks)?;
    let (assigned, mut user_fns) = scan_names(&toks);
    // `def BETWEEN(S, A, B)`, `def IN(...)`: a word operator named by def is a user
    // function under its own spelling (mytt's BETWEEN); calls spelled that way reach it
    for j in 1..toks.len() {
        if matches!(toks[j - 1].tok, Tok::Def | Tok::Defg) && word_op(&toks[j].tok) {
            user_fns.insert(src.get(toks[j].start..toks[j].end).unwrap_or("").to_string());
        }
    }
    let mut p = Pre {
        toks,
        src,
        out: Vec::new(),
        stack: Vec::new(),
        sql: Vec::new(),
        is_function,
        assigned,
        user_fns,
        head_at_start: false,
        infix_head: false,
        last_ctl: Ctl::No,
        last_block_close: false,
        after_do_close: false,
        pending_do: false,
        while_is_do: false,
        between: Vec::new(),
        case_depth: 0,
        nest: 0,
        force_start: false,
        expr_mode,
        err: None,
    };
    p.run();
    match p.err {
        Some(e) => Err(e),
        None => Ok(p.out),
    }
}

/// Names assigned anywhere in the script (they are variables, not functions) and names
/// defined with `def`.
fn scan_names(toks: &[RawTok]) -> (HashSet<String>, HashSet<String>) {
    let mut assigned = HashSet::new();
    let mut fns = HashSet::new();
    let n = toks.len();
    for j in 0..n {
        match &toks[j].tok {
            Tok::Ident(name) => {
                let next = toks.get(j + 1).map(|t| &t.tok);
                if matches!(
                    next,
                    Some(
                        Tok::Assign
                            | Tok::AddAssign
                            | Tok::SubAssign
                            | Tok::MulAssign
                            | Tok::DivAssign
                            | Tok::RatioAssign
                            | Tok::ModAssign
                            | Tok::Arrow
                    )
                ) {
                    assigned.insert(name.clone());
                }
                if j >= 2
                    && toks[j - 1].tok == Tok::LParen
                    && matches!(toks[j - 2].tok, Tok::For | Tok::Catch)
                {
                    assigned.insert(name.clone());
                }
                if j >= 1 && matches!(toks[j - 1].tok, Tok::Def | Tok::Defg) {
                    fns.insert(name.clone());
                }
                if next == Some(&Tok::Comma) {
                    // `a, b = ...`, `(x, y) -> ...`, `{x, y -> ...}`
                    let mut k = j;
                    let mut names = vec![];
                    while let Some(Tok::Ident(s)) = toks.get(k).map(|t| &t.tok) {
                        names.push(s.clone());
                        if toks.get(k + 1).map(|t| &t.tok) == Some(&Tok::Comma) {
                            k += 2;
                        } else {
                            k += 1;
                            break;
                        }
                    }
                    let t1 = toks.get(k).map(|t| &t.tok);
                    let t2 = toks.get(k + 1).map(|t| &t.tok);
                    if matches!(t1, Some(Tok::Assign | Tok::Arrow))
                        || (t1 == Some(&Tok::RParen) && t2 == Some(&Tok::Arrow))
                    {
                        assigned.extend(names);
                    }
                }
            }
            Tok::Def | Tok::Defg => {
                let mut k = j + 1;
                if matches!(toks.get(k).map(|t| &t.tok), Some(Tok::Ident(_))) {
                    k += 1;
                }
                if toks.get(k).map(|t| &t.tok) == Some(&Tok::LParen) {
                    let mut depth = 0;
                    while k < n {
                        match &toks[k].tok {
                            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Tok::Ident(s) if depth == 1 => {
                                let nx = toks.get(k + 1).map(|t| &t.tok);
                                if matches!(nx, Some(Tok::Comma | Tok::RParen | Tok::Assign)) {
                                    assigned.insert(s.clone());
                                }
                            }
                            // `def convertFreq(tb, from = 'q', to = 'm')`: `from` as a parameter
                            Tok::From if depth == 1 => {
                                let nx = toks.get(k + 1).map(|t| &t.tok);
                                if matches!(nx, Some(Tok::Comma | Tok::RParen | Tok::Assign)) {
                                    assigned.insert(FROM_VAR.to_string());
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
            }
            _ => {}
        }
    }
    (assigned, fns)
}

impl<'a> Pre<'a> {
    fn fail(&mut self, msg: &str, s: usize, e: usize) {
        if self.err.is_none() {
            self.err = Some(ParseError::new(msg, Span::new(s, e)));
        }
    }

    fn last(&self) -> Option<&Tok> {
        self.out.last().map(|t| &t.1)
    }

    fn last2(&self) -> Option<&Tok> {
        if self.out.len() >= 2 { Some(&self.out[self.out.len() - 2].1) } else { None }
    }

    fn emit(&mut self, t: Tok, s: usize, e: usize) {
        match &t {
            Tok::Sep => self.nest = 0,
            Tok::PrefixIdent(_)
            | Tok::TmplApply(_)
            | Tok::Arrow
            | Tok::Question
            | Tok::Else
            | Tok::Bang
            | Tok::Not
            | Tok::Tilde => {
                self.nest += 1;
                if self.nest > MAX_NEST {
                    self.fail("nesting too deep", s, e);
                }
            }
            _ => {}
        }
        self.force_start = false;
        self.last_block_close = false;
        if !matches!(t, Tok::Newline | Tok::Sep | Tok::While) {
            self.after_do_close = false;
        }
        self.out.push((s, t, e));
    }

    fn operand_start(&self) -> bool {
        if self.force_start {
            return true;
        }
        match self.last() {
            None => true,
            Some(Tok::RBrace) if self.last_block_close => true,
            Some(t) => !ends_operand(t),
        }
    }

    /// Word operator i names a function under its own spelling: right after `def`, or a
    /// call `BETWEEN(...)` of a user function defined with that spelling.
    fn spelled_fn(&self, i: usize) -> bool {
        if matches!(self.last(), Some(Tok::Def | Tok::Defg)) {
            return true;
        }
        let w = self.src_word(i);
        w.chars().any(|c| c.is_ascii_uppercase()) && self.adjacent_paren(i) && self.is_fn(&w)
    }

    fn is_fn(&self, name: &str) -> bool {
        !self.assigned.contains(name)
            && (self.user_fns.contains(name) || (self.is_function)(name))
    }

    fn base_sql(&self) -> Option<usize> {
        match self.sql.last() {
            Some(c) if c.depth == self.stack.len() => Some(self.sql.len() - 1),
            _ => None,
        }
    }

    /// The source spelling of word token j (keywords keep the case they were written in).
    fn src_word(&self, j: usize) -> String {
        let t = &self.toks[j];
        self.src.get(t.start..t.end).unwrap_or("").to_string()
    }

    fn tok(&self, j: usize) -> Option<&Tok> {
        self.toks.get(j).map(|t| &t.tok)
    }

    fn push_frame(&mut self, f: Frame, s: usize, e: usize) {
        if self.stack.len() >= MAX_DEPTH {
            self.fail("nesting too deep", s, e);
        }
        self.stack.push(f);
    }

    fn frame(kind: FK, at_start: bool) -> Frame {
        Frame {
            kind,
            at_start,
            control: Ctl::No,
            is_do: false,
            dict: false,
            dict_key: false,
            call: false,
            lambda: false,
        }
    }

    /// Ends SQL contexts started at or inside the current depth.
    fn end_sql(&mut self, pos: usize) {
        let d = self.stack.len();
        while let Some(c) = self.sql.last() {
            if c.depth < d {
                break;
            }
            let c = self.sql.pop().unwrap();
            if c.wrapped {
                self.emit(Tok::RParen, pos, pos);
            }
        }
    }

    /// Whether token j ends an operand, so that a word operator before it (`print BETWEEN`)
    /// has no right operand and must be a variable name.
    pub(super) fn word_ends_operand(&self, j: usize) -> bool {
        match self.tok(j) {
            None | Some(Tok::Semi | Tok::RParen | Tok::RBracket | Tok::Comma) => true,
            // at a line end the word may continue on the next line (`where a > 1 and`),
            // except right after a statement's first word (`print BETWEEN`)
            Some(Tok::Newline | Tok::Comment) => {
                j >= 2
                    && matches!(self.tok(j - 2), Some(Tok::Ident(_)))
                    && (j == 2 || matches!(self.tok(j - 3), Some(Tok::Newline | Tok::Semi | Tok::LBrace)))
            }
            _ => false,
        }
    }

    /// Whether token j can start an operand of a prefix call (after whitespace).
    fn starts_operand(&self, j: usize) -> bool {
        let Some(t) = self.toks.get(j) else { return false };
        let adj_next = |k: usize| self.toks.get(k).is_some_and(|n| !n.ws);
        match &t.tok {
            // `print BETWEEN` (a variable), `print in(1, d)` (the function called)
            Tok::Between | Tok::And | Tok::Or | Tok::In | Tok::Like | Tok::ILike => {
                self.word_ends_operand(j + 1) || self.adjacent_paren(j)
            }
            Tok::Lit(_) => true,
            Tok::Ident(s) => !(self.base_sql().is_some() && is_sql_word(s)),
            Tok::LBracket | Tok::ColonColon => true,
            Tok::Minus | Tok::Bang => {
                adj_next(j + 1)
                    && matches!(
                        self.tok(j + 1),
                        Some(Tok::Lit(_) | Tok::Ident(_) | Tok::LParen | Tok::LBracket)
                    )
            }
            Tok::Amp => adj_next(j + 1) && matches!(self.tok(j + 1), Some(Tok::Ident(_))),
            Tok::Lt => adj_next(j + 1),
            Tok::LBrace => self.lambda_pattern(j),
            _ => false,
        }
    }

    /// Inside metacode, whether a `>` before token j is a comparison: j starts an operand
    /// (a literal, a name, a parenthesis or bracket, a negative number).
    pub(super) fn gt_compares(&self, j: usize) -> bool {
        match self.tok(j) {
            Some(Tok::Lit(_) | Tok::VecLit(_) | Tok::Ident(_) | Tok::LParen | Tok::LBracket) => true,
            Some(Tok::Minus) => matches!(self.tok(j + 1), Some(Tok::Lit(_) | Tok::Ident(_) | Tok::LParen)),
            _ => false,
        }
    }

    /// `{` at j starts a braced lambda: `{x -> ..}`, `{x, y -> ..}`, `{def(x): ..}`.
    fn lambda_pattern(&self, j: usize) -> bool {
        let mut k = j + 1;
        while self.tok(k) == Some(&Tok::Newline) {
            k += 1;
        }
        if matches!(self.tok(k), Some(Tok::Def | Tok::Defg)) {
            return true;
        }
        loop {
            match self.tok(k) {
                Some(Tok::Ident(_)) => k += 1,
                _ => return false,
            }
            match self.tok(k) {
                Some(Tok::Comma) => k += 1,
                Some(Tok::Arrow) => return true,
                _ => return false,
            }
        }
    }

    /// Whether the tokens so far end a complete expression statement on this line, in a
    /// block or at the top and outside SQL and `case`: a statement word that follows
    /// (`return`, `name =`) starts a new statement. Not after `if (c)` / `for (..)`.
    pub(super) fn after_complete_statement(&self) -> bool {
        self.base_sql().is_none()
            && self.case_depth == 0
            && self.stack.last().is_none_or(|f| f.kind == FK::Block)
            && self.last().is_some_and(|t| ends_operand(t) && !matches!(t, Tok::Break | Tok::Continue))
            && !(self.last() == Some(&Tok::RParen) && self.last_ctl != Ctl::No)
    }

    fn next_sig(&self, mut j: usize) -> usize {
        while self.tok(j) == Some(&Tok::Newline) {
            j += 1;
        }
        j
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.toks.len() && self.err.is_none() {
            i = self.step(i);
        }
        let end = self.toks.last().map(|t| t.end).unwrap_or(0);
        while let Some(c) = self.sql.pop() {
            if c.wrapped {
                self.emit(Tok::RParen, end, end);
            }
        }
    }

    /// Processes token i, returns the index of the next token to process.
    fn step(&mut self, i: usize) -> usize {
        let rt = self.toks[i].clone();
        let (s, e) = (rt.start, rt.end);
        if matches!(
            rt.tok,
            Tok::Select | Tok::Exec | Tok::From | Tok::Where | Tok::Update | Tok::Delete | Tok::Insert
        ) && self.tok(i + 1) == Some(&Tok::Assign)
            && matches!(self.last(), Some(Tok::LParen | Tok::Comma))
            && self.stack.last().is_some_and(|f| f.call)
        {
            let name = format!("{}", rt.tok);
            self.emit(Tok::Ident(name), s, e);
            return i + 1;
        }
        // `{ r = f(x) return r }`: `return` after a complete expression on the same line
        // starts a new statement
        if rt.tok == Tok::Return && self.after_complete_statement() {
            self.emit_sep(s, s);
        }
        // `::not(x)`, `::and(a, b)`: after `::` every word names a function
        if self.last() == Some(&Tok::ColonColon) {
            if let Some(w) = word_name(&rt.tok, &self.src_word(i)) {
                self.emit(Tok::Ident(w), s, e);
                return i + 1;
            }
        }
        // `BETWEEN = select …`, `print(IN)`: a word operator where an operand must start
        // (or `NOT` assigned to) is a variable name
        if matches!(rt.tok, Tok::Between | Tok::And | Tok::Or | Tok::In | Tok::Like | Tok::ILike | Tok::Not)
            && (self.operand_start() || (rt.tok != Tok::Not && self.word_ends_operand(i + 1)))
            && !self.adjacent_paren(i)
            && self.last() != Some(&Tok::Not)
            && (rt.tok != Tok::Not || self.tok(i + 1) == Some(&Tok::Assign))
        {
            let w = self.src_word(i);
            self.emit(Tok::Ident(w), s, e);
            return i + 1;
        }
        // `@state` / `@jit` on the line(s) before `def`: a function annotation
        if rt.tok == Tok::At
            && matches!(self.last(), None | Some(Tok::Sep | Tok::LBrace) | Some(Tok::Annot(_)))
        {
            if let Some(RawTok { tok: Tok::Ident(n), start, ws: false, .. }) = self.toks.get(i + 1).cloned() {
                let _ = start;
                let mut k = i + 2;
                while matches!(self.tok(k), Some(Tok::Newline | Tok::Comment)) {
                    k += 1;
                }
                if matches!(self.tok(k), Some(Tok::Def | Tok::Defg | Tok::At)) {
                    let e2 = self.toks[i + 1].end;
                    self.emit(Tok::Annot(n), s, e2);
                    return k;
                }
            }
        }
        // SQL macro variables `_$name` / `_$$names`: one identifier the executor expands
        if rt.tok == Tok::Ident("_".into()) {
            let adj = |k: usize| self.toks.get(k).is_some_and(|t| !t.ws);
            let many = self.tok(i + 1) == Some(&Tok::Dollar) && self.tok(i + 2) == Some(&Tok::Dollar);
            let k = if many { i + 3 } else { i + 2 };
            if self.tok(i + 1) == Some(&Tok::Dollar) && (i + 1..=k).all(adj) {
                if let Some(Tok::Ident(n)) = self.tok(k).cloned() {
                    let name = format!("{}{n}", if many { "_$$" } else { "_$" });
                    return self.ident_named(k, s, name);
                }
            }
        }
        // `share(t, "name")`: the function form of `share t as name`; `share = 1`,
        // `share + 1`, `f(share)`: a variable named share
        let share_name = rt.tok == Tok::Share
            && match self.tok(i + 1) {
                None => true,
                Some(t) => matches!(
                    t,
                    Tok::Assign
                        | Tok::AddAssign
                        | Tok::SubAssign
                        | Tok::MulAssign
                        | Tok::DivAssign
                        | Tok::Plus
                        | Tok::Mul
                        | Tok::Slash
                        | Tok::EqEq
                        | Tok::Ne
                        | Tok::Lt
                        | Tok::Le
                        | Tok::Gt
                        | Tok::Ge
                        | Tok::Comma
                        | Tok::RParen
                        | Tok::RBracket
                        | Tok::Newline
                        | Tok::Semi
                        | Tok::Dot
                        | Tok::DotDot
                        | Tok::Colon
                ) || (t == &Tok::LBracket && self.toks.get(i + 1).is_some_and(|n| !n.ws)),
            };
        if share_name {
            return self.ident_named(i, s, "share".into());
        }
        if rt.tok == Tok::Share && self.adjacent_paren(i) {
            self.emit(Tok::Ident("share".into()), s, e);
            return i + 1;
        }
        match rt.tok {
            Tok::Newline => self.newline(i),
            Tok::Semi => {
                self.end_sql(s);
                self.emit_sep(s, e);
            }
            Tok::LParen => {
                let os = self.operand_start();
                let ctl = match self.last() {
                    Some(Tok::If | Tok::For | Tok::Catch | Tok::TimerN) => Ctl::Control,
                    Some(Tok::While) => {
                        if self.while_is_do {
                            Ctl::No
                        } else {
                            Ctl::Control
                        }
                    }
                    Some(Tok::Def | Tok::Defg) => Ctl::DefParams,
                    Some(Tok::Ident(_)) if matches!(self.last2(), Some(Tok::Def | Tok::Defg)) => {
                        Ctl::DefParams
                    }
                    _ => Ctl::No,
                };
                self.while_is_do = false;
                let mut f = Self::frame(FK::Paren, os);
                f.control = ctl;
                f.call = !os && ctl == Ctl::No && self.last2() != Some(&Tok::Into);
                self.push_frame(f, s, e);
                self.emit(Tok::LParen, s, e);
            }
            Tok::LBracket => {
                let os = self.operand_start();
                self.push_frame(Self::frame(FK::Bracket, os), s, e);
                self.emit(Tok::LBracket, s, e);
            }
            Tok::LBrace => self.lbrace(i),
            Tok::RParen | Tok::RBracket | Tok::RBrace => self.close(i),
            Tok::Colon => {
                let depth = self.stack.len();
                let nx = self.tok(i + 1).cloned();
                if let Some(f) = self.stack.last_mut() {
                    if f.kind == FK::Brace && f.dict && f.dict_key {
                        f.dict_key = false;
                        self.emit(Tok::DictColon, s, e);
                        return i + 1;
                    }
                    if (f.kind == FK::Bracket
                        && matches!(nx, Some(Tok::RBracket | Tok::Comma)))
                        || (f.kind == FK::Paren && matches!(nx, Some(Tok::RParen | Tok::Comma)))
                    {
                        self.emit(Tok::PairEnd, s, e);
                        return i + 1;
                    }
                }
                self.between.retain(|&b| b != depth);
                self.emit(Tok::Colon, s, e);
            }
            Tok::Comma => {
                if let Some(f) = self.stack.last_mut() {
                    if f.dict {
                        f.dict_key = true;
                    }
                }
                if let Some(k) = self.base_sql() {
                    let c = &self.sql[k];
                    if c.wrapped && c.in_args && c.seen_from {
                        // `f(exec x from t where a > 1, expected)`: a comma in the where list
                        // followed by something that is not a condition ends the query
                        let ends = c.clause == Clause::From
                            || (c.clause == Clause::Where && !self.looks_like_condition(i + 1))
                            || (c.clause == Clause::Order && !self.looks_like_order_key(i + 1));
                        if ends {
                            self.sql.pop();
                            self.emit(Tok::RParen, s, s);
                        }
                    }
                }
                self.emit(Tok::Comma, s, e);
            }
            Tok::Assign => {
                // `name=value` right after `(` or `,` of a call: a named argument, in
                // metacode and SQL as anywhere (`<percentile(X=price, percent=50)>`)
                let named_arg = matches!(self.last(), Some(Tok::Ident(_)))
                    && matches!(self.last2(), Some(Tok::LParen | Tok::Comma))
                    && self.stack.last().is_some_and(|f| f.call);
                if self.stack.iter().any(|f| f.kind == FK::Meta) && !named_arg {
                    self.emit(Tok::EqEq, s, e);
                    return i + 1;
                }
                if let Some(c) = self.sql.last() {
                    let base = c.depth == self.stack.len();
                    let in_set = base && c.clause == Clause::Set;
                    let named_arg = !base
                        && matches!(self.last(), Some(Tok::Ident(_)))
                        && matches!(self.last2(), Some(Tok::LParen | Tok::Comma))
                        && self.stack.last().is_some_and(|f| f.call);
                    if !in_set && !named_arg {
                        self.emit(Tok::EqEq, s, e);
                        return i + 1;
                    }
                }
                self.emit(Tok::Assign, s, e);
            }
            Tok::Lit(_) => return self.literal(i, None),
            Tok::Ident(_) => return self.ident(i),
            Tok::Tmpl(v) => {
                let nx = self.toks.get(i + 1);
                if self.infix_head {
                    self.infix_head = false;
                    self.emit(Tok::Tmpl(v), s, e);
                    self.force_start = true;
                } else if self.head_at_start
                    && nx.is_some_and(|n| n.ws)
                    && (self.starts_operand(i + 1) || self.tok(i + 1) == Some(&Tok::LParen))
                {
                    self.emit(Tok::TmplApply(v), s, e);
                } else {
                    self.emit(Tok::Tmpl(v), s, e);
                }
            }
            Tok::Select | Tok::Exec => {
                let wrapped = self.query_wrapped();
                let in_args =
                    wrapped && self.stack.last().is_some_and(|f| matches!(f.kind, FK::Paren | FK::Bracket));
                let out_pos = self.out.len();
                if wrapped {
                    self.emit(Tok::LParen, s, s);
                }
                self.sql.push(SqlCtx {
                    depth: self.stack.len(),
                    kind: SqlKind::Select,
                    wrapped,
                    clause: Clause::Items,
                    seen_from: false,
                    in_args,
                    out_pos,
                });
                self.emit(rt.tok, s, e);
            }
            Tok::Update | Tok::Delete | Tok::Insert => {
                let kind = match rt.tok {
                    Tok::Update => SqlKind::Update,
                    Tok::Delete => SqlKind::Delete,
                    _ => SqlKind::Insert,
                };
                self.sql.push(SqlCtx {
                    depth: self.stack.len(),
                    kind,
                    wrapped: false,
                    clause: Clause::Items,
                    seen_from: false,
                    in_args: false,
                    out_pos: self.out.len(),
                });
                self.emit(rt.tok, s, e);
            }
            // a parameter named `from` used outside any query: `if(from == 'q')`
            Tok::From if self.base_sql().is_none() && self.assigned.contains(FROM_VAR) => {
                let w = self.src_word(i);
                self.emit(Tok::Ident(w), s, e);
            }
            Tok::From | Tok::Where => {
                if let Some(k) = self.base_sql() {
                    let c = &mut self.sql[k];
                    if rt.tok == Tok::From {
                        c.clause = Clause::From;
                        c.seen_from = true;
                    } else {
                        c.clause = Clause::Where;
                    }
                }
                self.emit(rt.tok, s, e);
            }
            _ if word_op(&rt.tok) && self.spelled_fn(i) => {
                let w = self.src_word(i);
                self.emit(Tok::Ident(w), s, e);
            }
            Tok::Between => {
                if self.operand_start() && self.adjacent_paren(i) {
                    self.emit(Tok::Ident("between".into()), s, e);
                } else {
                    self.between.push(self.stack.len());
                    self.emit(Tok::Between, s, e);
                }
            }
            Tok::And => {
                if self.operand_start() && self.adjacent_paren(i) {
                    self.emit(Tok::Ident("and".into()), s, e);
                } else if self.between.last() == Some(&self.stack.len()) {
                    self.between.pop();
                    self.emit(Tok::BetweenAnd, s, e);
                } else {
                    self.emit(Tok::And, s, e);
                }
            }
            Tok::Or | Tok::In | Tok::Like | Tok::ILike => {
                if self.operand_start() && self.adjacent_paren(i) {
                    let name = match rt.tok {
                        Tok::Or => "or",
                        Tok::In => "in",
                        Tok::Like => "like",
                        _ => "ilike",
                    };
                    self.emit(Tok::Ident(name.into()), s, e);
                } else {
                    self.emit(rt.tok, s, e);
                }
            }
            Tok::Do => {
                self.pending_do = true;
                self.emit(Tok::Do, s, e);
            }
            Tok::While => {
                if self.after_do_close {
                    self.while_is_do = true;
                }
                self.emit(Tok::While, s, e);
            }
            Tok::Timer => {
                let mut t = Tok::Timer;
                if self.tok(i + 1) == Some(&Tok::LParen) {
                    let mut depth = 0i32;
                    let mut k = i + 1;
                    while k < self.toks.len() {
                        match self.tok(k) {
                            Some(Tok::LParen) => depth += 1,
                            Some(Tok::RParen) => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                    // `timer(n) { … }` and `timer(n) stmt`: a repeat count when a statement follows
                    let next = self.tok(k + 1).cloned();
                    let k2 = self.next_sig(k + 1);
                    let starts_stmt = match &next {
                        None | Some(Tok::Newline | Tok::Semi | Tok::RBrace | Tok::Dot | Tok::Comma) => false,
                        Some(t) => t.binop().is_none() || matches!(t, Tok::Not),
                    };
                    if self.tok(k2) == Some(&Tok::LBrace) || starts_stmt {
                        t = Tok::TimerN;
                    }
                }
                self.emit(t, s, e);
            }
            Tok::Else | Tok::Catch => {
                while self.last() == Some(&Tok::Sep) {
                    self.out.pop();
                }
                self.emit(rt.tok, s, e);
            }
            Tok::Dot => {
                while self.last() == Some(&Tok::Sep) {
                    self.out.pop();
                }
                self.emit(Tok::Dot, s, e);
            }
            Tok::Comment => {}
            _ => return self.operator(i),
        }
        i + 1
    }
}
