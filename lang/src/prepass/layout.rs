//! Pre-pass, statement layout: newlines as separators or nothing (§1.12), brace kinds
//! (block / dict / lambda / partial application) and closing brackets.

use super::*;

impl<'a> Pre<'a> {
    /// Whether the item starting at token j can be an ORDER BY key: it names something (a
    /// column, a function) and is not a named argument `k = v` or a nested query. A
    /// literal-only item (`f(exec x from t order by y, 10)`) is the caller's next argument.
    pub(super) fn looks_like_order_key(&self, j: usize) -> bool {
        if matches!(self.tok(j), Some(Tok::Ident(_))) && self.tok(j + 1) == Some(&Tok::Assign) {
            return false;
        }
        if matches!(self.tok(j), Some(Tok::Select | Tok::Exec | Tok::LBrace)) {
            return false;
        }
        let mut depth = 0i32;
        let mut k = j;
        while let Some(t) = self.tok(k) {
            match t {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => {
                    depth -= 1;
                    if depth < 0 {
                        break;
                    }
                }
                Tok::Comma | Tok::Semi | Tok::Newline if depth == 0 => break,
                Tok::Ident(_) => return true,
                _ => {}
            }
            k += 1;
        }
        false
    }

    /// Whether the comma-separated item starting at token j reads as a where condition:
    /// it contains a comparison or logical operator, or it is a call of a predicate
    /// (`isValid(b)`, `startsWith(s, "a")`). Inside a call's arguments,
    /// `f(select … where a > 0, isValid(b))` keeps both conditions, while an item of another
    /// shape (`f(exec x from t where a > 1, [1, 2])`, `take(1.5, 3)`) is the caller's next
    /// argument.
    pub(super) fn looks_like_condition(&self, j: usize) -> bool {
        let mut j = self.next_sig(j);
        if matches!(self.tok(j), Some(Tok::Select | Tok::Exec)) {
            return false;
        }
        if let (Some(Tok::Ident(name)), Some(Tok::LParen)) = (self.tok(j), self.tok(j + 1)) {
            if is_predicate_name(name) {
                return true;
            }
        }
        let mut depth = 0i32;
        while let Some(t) = self.tok(j) {
            match t {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                Tok::Comma | Tok::Semi | Tok::Newline if depth == 0 => return false,
                Tok::Lt
                | Tok::Le
                | Tok::Gt
                | Tok::Ge
                | Tok::EqEq
                | Tok::Ne
                | Tok::Assign
                | Tok::In
                | Tok::Like
                | Tok::ILike
                | Tok::Between
                | Tok::And
                | Tok::Or
                | Tok::AndAnd
                | Tok::OrOr
                | Tok::Not
                | Tok::Bang => return true,
                Tok::Ident(w) if w == "is" => return true,
                _ => {}
            }
            j += 1;
        }
        false
    }

    pub(super) fn adjacent_paren(&self, i: usize) -> bool {
        self.toks.get(i + 1).is_some_and(|t| t.tok == Tok::LParen && !t.ws)
    }

    pub(super) fn emit_sep(&mut self, s: usize, e: usize) {
        if !self.out.is_empty() && self.last() != Some(&Tok::Sep) {
            self.emit(Tok::Sep, s, e);
        }
    }

    pub(super) fn newline(&mut self, i: usize) {
        let (s, e) = (self.toks[i].start, self.toks[i].end);
        if matches!(
            self.stack.last().map(|f| f.kind),
            Some(FK::Paren | FK::Bracket | FK::Brace | FK::Meta)
        ) {
            return;
        }
        let Some(last) = self.last().cloned() else { return };
        if last == Tok::Sep {
            return;
        }
        let j = self.next_sig(i + 1);
        let Some(next) = self.tok(j).cloned() else { return };
        // a line that starts with `,` continues the statement (leading-comma select lists:
        // `select a\n\t,b as c\nfrom t`); no statement can start with a comma
        if matches!(next, Tok::Else | Tok::Catch | Tok::Dot | Tok::Comma) {
            return;
        }
        if next == Tok::While && self.after_do_close {
            return;
        }
        if last == Tok::RParen {
            match self.last_ctl {
                Ctl::Control => return,
                Ctl::DefParams if matches!(next, Tok::LBrace | Tok::Colon | Tok::Arrow) => return,
                _ => {}
            }
        }
        if cant_end(&last) && !(last == Tok::RBrace) {
            return;
        }
        // `(select …)` then `union [all] (select …)` on the next line
        if last == Tok::RParen && ident_is(self.toks.get(j), "union") && self.union_pattern(j).is_some() {
            return;
        }
        if self.case_depth > 0 {
            if let Tok::Ident(w) = &next {
                if ["when", "then", "end"].iter().any(|x| w.eq_ignore_ascii_case(x)) {
                    return;
                }
            }
        }
        if let Some(k) = self.base_sql() {
            let cont = match &next {
                Tok::From | Tok::Where => true,
                // the body of `with` on the line after the named queries
                Tok::Select | Tok::Exec => self.sql[k].kind == SqlKind::With,
                Tok::Ident(w) => is_sql_word(w),
                _ => false,
            };
            if cont {
                return;
            }
            self.end_sql(s);
        }
        self.emit_sep(s, e);
    }

    pub(super) fn lbrace(&mut self, i: usize) {
        let rt = self.toks[i].clone();
        let (s, e) = (rt.start, rt.end);
        let last = self.last().cloned();
        let os = self.operand_start();
        let block = match &last {
            None => !self.expr_mode,
            Some(Tok::Sep | Tok::Else | Tok::Do | Tok::Try | Tok::Timer | Tok::Transaction) => {
                true
            }
            Some(Tok::LBrace) => true,
            Some(Tok::RParen) => self.last_ctl != Ctl::No || rt.ws,
            Some(Tok::RBrace) => self.last_block_close,
            _ => false,
        };
        let ctl_paren = last == Some(Tok::RParen) && self.last_ctl != Ctl::No;
        let tok = if last == Some(Tok::Dot) {
            if self.lambda_pattern(i) { Tok::LBraceLambda } else { Tok::LBraceDot }
        } else if !ctl_paren && self.lambda_pattern(i) {
            Tok::LBraceLambda
        } else if block {
            Tok::LBrace
        } else if self.lambda_pattern(i) {
            Tok::LBraceLambda
        } else if !rt.ws
            && matches!(
                last,
                Some(Tok::Ident(_) | Tok::RBrace | Tok::RParen | Tok::RBracket | Tok::Tmpl(_))
            )
        {
            Tok::LBracePartial
        } else if os {
            Tok::LBraceDict
        } else {
            Tok::LBracePartial
        };
        let mut f = Self::frame(if tok == Tok::LBrace { FK::Block } else { FK::Brace }, os);
        if tok == Tok::LBrace {
            f.is_do = self.pending_do;
        }
        self.pending_do = false;
        f.lambda = tok == Tok::LBraceLambda;
        if tok == Tok::LBraceDict {
            f.dict = true;
            f.dict_key = true;
        }
        self.push_frame(f, s, e);
        self.emit(tok, s, e);
    }

    pub(super) fn close(&mut self, i: usize) {
        let rt = self.toks[i].clone();
        let (s, e) = (rt.start, rt.end);
        self.end_sql(s);
        let d = self.stack.len();
        self.between.retain(|&b| b < d);
        let frame = self.stack.pop();
        if let Some(f) = &frame {
            let expect = match f.kind {
                FK::Paren => Tok::RParen,
                FK::Bracket => Tok::RBracket,
                FK::Meta => Tok::Gt,
                _ => Tok::RBrace,
            };
            if expect != rt.tok {
                let msg = format!("unexpected token `{}`", rt.tok);
                self.fail(&msg, s, e);
                return;
            }
        }
        self.emit(rt.tok.clone(), s, e);
        if let Some(f) = frame {
            self.head_at_start = f.at_start;
            self.last_ctl = f.control;
            if f.control == Ctl::Control {
                self.force_start = true;
            }
            // `{x -> x*x} 10`, and `{x -> x*x}{x -> x+1} 10`: a lambda right after a
            // braced lambda is its argument (f(g(10))), not a partial application
            let lambda_next = self.tok(i + 1) == Some(&Tok::LBrace) && self.lambda_pattern(i + 1);
            if f.lambda
                && f.at_start
                && (lambda_next || self.toks.get(i + 1).is_some_and(|n| n.ws) && self.starts_operand(i + 1))
            {
                self.emit(Tok::Apply, e, e);
            }
            if f.kind == FK::Block {
                self.last_block_close = true;
                if f.is_do {
                    self.after_do_close = true;
                }
                // a statement following `}` on the same line gets a separator
                let nx = self.tok(i + 1);
                let sep = match nx {
                    None => false,
                    Some(
                        Tok::Newline
                        | Tok::Semi
                        | Tok::RBrace
                        | Tok::RParen
                        | Tok::RBracket
                        | Tok::Comma
                        | Tok::Else
                        | Tok::Catch
                        | Tok::LParen
                        | Tok::Dot
                        | Tok::LBracket,
                    ) => false,
                    Some(Tok::While) => !f.is_do,
                    Some(t) => t.binop().is_none() || matches!(t, Tok::Minus),
                };
                if sep {
                    self.end_sql(e);
                    self.emit(Tok::Sep, e, e);
                }
            }
        }
    }
}

/// Builtins whose result is a BOOL per row, so that a bare call of one in a list of where
/// conditions is a condition: the `isXxx` tests and the named comparison, membership and
/// string-matching functions.
fn is_predicate_name(name: &str) -> bool {
    let is_test = name.strip_prefix("is").and_then(|r| r.chars().next()).is_some_and(|c| c.is_ascii_uppercase());
    is_test
        || matches!(
            name,
            "startsWith" | "endsWith" | "like" | "ilike" | "notLike" | "notIn" | "between" | "notBetween" | "eq" | "ne"
                | "lt" | "le" | "gt" | "ge" | "and" | "or" | "not" | "valueChanged" | "in"
        )
}
